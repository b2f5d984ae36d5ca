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

"""Which request targets the catalogue API's server passes on: a pure decision.

An HTTP/1.1 request line is ``method SP request-target SP HTTP-version`` (RFC 9112
section 3), and the target has one of four forms (section 3.2):

- origin-form ``/path?query``: what every client sends to a server; passed on, the
  skill's :func:`.request.parse_request` checks the rest;
- absolute-form ``http://host[:port]/path``: what clients send to a proxy. A server must
  accept it (section 3.2.2), but it names a server: it is passed on only when that is
  this one (the address the client connected to, RFC 9110 section 7.4); another is 421
  ``misdirected_request``. Any scheme but ``http`` (``ftp:``, ``https:`` on this plain
  TCP port, ``file:``...) is 400 ``invalid_url``, as is userinfo (``user@host``,
  RFC 9110 section 4.2.4);
- authority-form ``host:port``: only for ``CONNECT``, which asks a proxy for a tunnel:
  405 ``method_not_allowed`` (this server is no proxy);
- asterisk-form ``*``: only for ``OPTIONS``, about the server itself: 400 ``invalid_url``.

Anything else (``tools``, ``//x``-less text) is 400 ``invalid_url``. Nothing is rewritten:
the target passed on is the one received.
"""

import re
from typing import Collection, Optional

from mech_catalogue_core.http_api.request import (
    INVALID_URL,
    METHOD_NOT_ALLOWED,
    MISDIRECTED_REQUEST,
    HttpResult,
    error_result,
    quoted,
)

#: ``scheme "://" authority rest`` (RFC 3986 section 3: scheme = ALPHA *( ALPHA / DIGIT /
#: "+" / "-" / "." ))
_ABSOLUTE = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)(.*)", re.DOTALL)
#: the scheme this server speaks (plain TCP, no TLS)
SERVED_SCHEME = "http"
#: the port an ``http`` URL without one names (RFC 9110 section 4.2.1)
DEFAULT_HTTP_PORT = 80
_ONLY_PATHS = "send the path only, as in GET /tools HTTP/1.1"


def authority_of(host: str, port: int) -> str:
    """Write a listening address as a URL authority, lowercase.

    :param host: an IPv4 or IPv6 address or a host name.
    :param port: the TCP port.
    :return: ``host:port`` (an IPv6 address in brackets, RFC 3986 section 3.2.2).
    """
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"{shown.lower()}:{port}"


def target_refusal(
    method: str, target: str, served: Collection[str]
) -> Optional[HttpResult]:
    """Decide whether a request target may go on to the skill.

    :param method: the request method as received (case-sensitive, RFC 9110 section 9.1).
    :param target: the request target as received (printable ASCII: the HTTP parser
        refused anything else).
    :param served: this server's authorities, each from :func:`authority_of` (the
        address the client connected to).
    :return: None to pass it on unchanged, else the 400/405/421 error to answer (see the
        module doc).
    """
    if target.startswith("/"):
        return None
    if method == "CONNECT":
        return error_result(
            METHOD_NOT_ALLOWED,
            f"this server is no proxy: CONNECT {quoted(target)} is not served; the API "
            f"answers GET only, {_ONLY_PATHS}",
            headers="Allow: GET\n",
        )
    absolute = _ABSOLUTE.fullmatch(target)
    if absolute is None:
        return error_result(INVALID_URL, _not_a_target(target))
    scheme, authority, _ = absolute.groups()
    return _absolute_refusal(scheme, authority, target, served)


def _not_a_target(target: str) -> str:
    if target == "*":
        return f"'*' asks about the server itself; the API answers paths only: {_ONLY_PATHS}"
    return (
        f"{quoted(target)} is neither a path starting with / nor an http:// URL; "
        f"{_ONLY_PATHS}"
    )


def _absolute_refusal(
    scheme: str, authority: str, target: str, served: Collection[str]
) -> Optional[HttpResult]:
    if scheme.lower() != SERVED_SCHEME:
        return error_result(
            INVALID_URL,
            f"{quoted(scheme + '://')} is not served: this server speaks plain http; "
            f"{_ONLY_PATHS}",
        )
    if "@" in authority:
        return error_result(
            INVALID_URL,
            "an http URL carries no user information (user@host, RFC 9110 section "
            f"4.2.4); {_ONLY_PATHS}",
        )
    named = authority.lower()
    if named and ":" not in named.rsplit("]", 1)[-1]:
        named = f"{named}:{DEFAULT_HTTP_PORT}"
    if named not in served:
        return error_result(
            MISDIRECTED_REQUEST,
            f"{quoted(target)} names another server than this one "
            f"({', '.join(sorted(served)) or 'unknown'}); this server is no proxy: "
            f"{_ONLY_PATHS}",
        )
    return None
