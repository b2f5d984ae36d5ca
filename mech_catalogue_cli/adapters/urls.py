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

"""URLs fit for messages: every adapter names a node or gateway by scheme and host only."""

import urllib.parse


def redacted_url(url: str) -> str:
    """A URL fit for a message: scheme and host only, the rest replaced by ``/…``.

    RPC providers put the account's API key in the path or query
    (``https://gnosis.example/v2/<key>``); errors, logs and MCP results must not carry it.

    :param url: any URL (or text that is not one: returned as ``<url>``).
    :return: e.g. ``https://gnosis.example/…``.
    """
    parts = urllib.parse.urlsplit(url)
    if not parts.scheme or not parts.hostname:
        return "<url>"
    host = parts.hostname + (f":{parts.port}" if parts.port else "")
    tail = "/…" if (parts.path.strip("/") or parts.query or parts.fragment) else ""
    return f"{parts.scheme}://{host}{tail}"


def without_url(text: str, url: str) -> str:
    """``text`` with every occurrence of ``url`` redacted (exception texts quote it).

    :param text: e.g. ``str(exc)`` of a requests error.
    :param url: the URL to hide.
    :return: the text.
    """
    return text.replace(url, redacted_url(url)) if url else text
