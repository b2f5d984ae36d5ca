# Copyright 2026 mech-catalogue contributors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.


"""The catalogue web page's files, served from the library's package data.

The page (``http_api/page/``: ``index.html``, its stylesheet and plain JavaScript
modules, no build step) reads the JSON API of the same server: the agent's
(``GET /catalogue/`` beside ``/tools``) and ``mech-catalogue serve``'s, both through
:func:`.routes.route`. Which files exist is decided once, from the package's own folder:
a request names a file (:data:`.request.PAGE_FILE_NAME`) and gets it only when it is one
of them, so no request path ever reaches the file system (``..``, ``%2e%2e``, a folder,
a name of another suffix: 404 ``unknown_path``). Every file is read once and kept (each
at most :data:`MAX_PAGE_FILE_BYTES`, all of them at most :data:`MAX_PAGE_BYTES`).

Every page response carries :data:`PAGE_HEADERS`: a Content-Security-Policy that allows
only this server's own scripts, styles and API (no inline script or style, no plugin,
no framing, no form posting anywhere; W3C CSP Level 3), ``X-Content-Type-Options:
nosniff`` (a file is used only as its declared type; WHATWG Fetch) and
``Referrer-Policy: no-referrer``. The page itself writes every text from a manifest or a
mech through ``textContent`` and attribute setters, never as HTML (docs/mcp.md, "The
catalogue page").
"""

from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Mapping, Tuple

from mech_catalogue_core.http_api.request import (
    PAGE_FILE_NAME,
    PAGE_PREFIX,
    UNKNOWN_PATH,
    HttpResult,
    error_result,
    json_result,
    quoted,
)

#: the folder of the page's files, inside this package
PAGE_FOLDER = "page"
#: the file answered for ``/catalogue/``
INDEX_FILE = "index.html"
#: the largest page file served, bytes (a larger one is left out and named at load)
MAX_PAGE_FILE_BYTES = 256 * 1024
#: all page files together at most, bytes
MAX_PAGE_BYTES = 1024 * 1024
#: suffix -> Content-Type (RFC 9110 media types; JavaScript modules need a JavaScript type)
CONTENT_TYPES: Mapping[str, str] = MappingProxyType(
    {
        ".html": "text/html; charset=utf-8",
        ".css": "text/css; charset=utf-8",
        ".js": "text/javascript; charset=utf-8",
    }
)
#: the page's Content-Security-Policy: its own files and API only, nothing inline
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; font-src 'none'; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
#: header lines of every page response (besides its Content-Type)
PAGE_HEADERS = (
    f"Content-Security-Policy: {CONTENT_SECURITY_POLICY}\n"
    "X-Content-Type-Options: nosniff\n"
    "Referrer-Policy: no-referrer\n"
    "Cache-Control: no-cache\n"
)


@lru_cache(maxsize=1)
def page_files() -> Mapping[str, Tuple[str, bytes]]:
    """Read the page's files once.

    :return: file name -> (Content-Type, bytes), for the files of :data:`PAGE_FOLDER`
        whose names match :data:`.request.PAGE_FILE_NAME`, each within
        :data:`MAX_PAGE_FILE_BYTES`, in name order until :data:`MAX_PAGE_BYTES`.
    """
    folder = resources.files(__package__) / PAGE_FOLDER
    files = {}
    total = 0
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if not entry.is_file() or not PAGE_FILE_NAME.fullmatch(entry.name):
            continue
        data = entry.read_bytes()
        if len(data) > MAX_PAGE_FILE_BYTES or total + len(data) > MAX_PAGE_BYTES:
            continue
        total += len(data)
        suffix = entry.name[entry.name.rindex(".") :]
        files[entry.name] = (CONTENT_TYPES[suffix], data)
    return MappingProxyType(files)


def page_file(name: str) -> HttpResult:
    """Answer ``GET /catalogue/<name>``.

    :param name: the file name as parsed ("" for ``/catalogue/`` itself).
    :return: the file with its Content-Type and :data:`PAGE_HEADERS`; 404
        ``unknown_path`` when the page has no such file.
    """
    found = page_files().get(name or INDEX_FILE)
    if found is None:
        return error_result(
            UNKNOWN_PATH,
            f"the catalogue page has no file {quoted(name)}; open {PAGE_PREFIX}",
        )
    content_type, data = found
    return HttpResult(200, data, f"Content-Type: {content_type}\n{PAGE_HEADERS}")


def page_redirect() -> HttpResult:
    """Answer ``GET /`` and ``GET /catalogue`` (what a person types for the page).

    :return: 302 Found (RFC 9110 section 15.4.3; temporary, so no browser keeps it should
        ``/`` serve something else one day) with ``Location: /catalogue/``, relative to
        the server asked (never another origin), and a JSON body naming it.
    """
    return json_result(302, {"location": PAGE_PREFIX}, f"Location: {PAGE_PREFIX}\n")
