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

"""Hypothesis strategies for HTTP requests an outsider may send the catalogue API.

Shared by the routing-layer fuzz test (``test_http_fuzz.py``) and the running-agent fuzz
test (``tests/e2e/test_one_agent.py``). Requests are biased towards the API's own shapes
(its paths, ``cursor``, percent-escapes, base64 and digit strings) so that most reach
the parser's deeper branches, with arbitrary text, bytes and sizes mixed in.
"""

import base64
from dataclasses import dataclass
from typing import Tuple

from hypothesis import strategies as st

ROUTES = (
    "/tools",
    "/tools/",
    "/mechs",
    "/healthcheck",
    "/synchronized_data",
    "/tools/prediction-online",
    "/",
    "",
)
METHODS = ("GET", "get", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH")
ORIGINS = ("", "http://127.0.0.1:8000", "https://agent.example", "http://[", "ftp://x")
#: characters that matter to URL parsing, and some that must never reach it
URL_ALPHABET = st.sampled_from(
    list("/?#&=%.;+ -_~") + list("0123456789abcdefABCDEF") + ["\x00", "\n", "é", "²"]
)


@dataclass(frozen=True)
class GeneratedRequest:
    """One generated request.

    :param method: the method.
    :param url: the URL (origin + path + query + fragment).
    :param headers: extra header lines ``(name, value)``.
    :param body: the body.
    """

    method: str
    url: str
    headers: Tuple[Tuple[str, str], ...]
    body: bytes


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode("utf-8", "surrogatepass")).decode()


cursor_values = st.one_of(
    st.integers(min_value=-(10**12), max_value=10**30).map(str),
    st.text(st.characters(categories=["Nd", "No"]), max_size=12),
    st.text(max_size=20).map(lambda t: _b64("offset:" + t)),
    st.integers(min_value=0, max_value=6000).map(lambda n: "9" * n),
    st.text(URL_ALPHABET, max_size=30),
    st.text(max_size=30),
)
#: the ``/tools`` search parameters, and values of the shapes each takes (and near them)
SEARCH_KEYS = (
    "q",
    "kind",
    "max_price",
    "sort",
    "payment",
    "mech",
    "registry",
    "typed",
    "callable",
    "delivering",
    "min_karma",
)
search_values = st.one_of(
    st.sampled_from(
        [
            "prediction",
            "image+generation",
            "claude%20prediction",
            "%E2%80%AE",
            "%FF",
            "%",
            "relevance",
            "price",
            "karma",
            "native",
            "token_olas",
            "true",
            "false",
            "TRUE",
            "olas_agent_registry",
            "0x" + "ab" * 20,
            "100:legacy_mech_registry:0x" + "ab" * 20 + ":3",
            "0." + "0" * 16,
            "3.0123456789abcdef",
            "-7",
            "--7",
            "-" + "9" * 18,
        ]
    ),
    st.integers(min_value=-1, max_value=10**20).map(str),
    st.text(URL_ALPHABET, max_size=30),
    st.integers(min_value=250, max_value=3000).map(lambda n: "a" * n),
)
query_items = st.one_of(
    st.tuples(
        st.sampled_from(["cursor", "cursor", "Cursor", "limit", "", "cursor%3D"]),
        st.sampled_from(["=", "=", "", "=="]),
        cursor_values,
    ).map("".join),
    st.tuples(
        st.sampled_from(SEARCH_KEYS), st.sampled_from(["=", "=", ""]), search_values
    ).map("".join),
)
queries = st.one_of(
    st.just(""),
    st.lists(query_items, max_size=4).map(lambda items: "?" + "&".join(items)),
    st.text(URL_ALPHABET, max_size=40).map(lambda t: "?" + t),
)
paths = st.one_of(
    st.sampled_from(ROUTES),
    st.text(URL_ALPHABET, max_size=60).map(lambda t: "/tools/" + t),
    st.lists(st.text(URL_ALPHABET, max_size=12), max_size=5).map(
        lambda parts: "/" + "/".join(parts)
    ),
    st.binary(max_size=20).map(
        lambda b: "/tools/" + "".join(f"%{byte:02X}" for byte in b)
    ),
    st.text(max_size=40),
)
urls = st.one_of(
    st.tuples(
        st.sampled_from(ORIGINS),
        paths,
        queries,
        st.sampled_from(["", "", "#", "#x"]),
    ).map("".join),
    st.integers(min_value=2000, max_value=20_000).map(
        lambda n: "/tools?cursor=" + "7" * n
    ),
    st.text(max_size=80),
)
methods = st.one_of(st.sampled_from(METHODS), st.text(max_size=10))
headers = st.lists(
    st.tuples(
        st.sampled_from(
            ["Accept", "X-Forwarded-For", "Content-Type", "Cookie", "X-" + "a" * 50]
        ),
        st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=200),
    ),
    max_size=3,
).map(tuple)
bodies = st.one_of(st.just(b""), st.just(b""), st.binary(max_size=256))
requests = st.builds(GeneratedRequest, methods, urls, headers, bodies)


def _wire_safe(request: GeneratedRequest) -> GeneratedRequest:
    """Shape a request so that an HTTP/1.1 server passes it on to the skill's handler.

    aiohttp (llhttp) itself answers 400 to request lines with bytes outside printable
    ASCII, unknown or lowercase methods and targets that are neither ``/...`` nor
    absolute, and refuses lines over 8,190 bytes; those never reach the skill.

    :param request: a generated request.
    :return: the request with its URL percent-encoded to printable ASCII and made
        origin-form (or kept absolute), and its method a known one.
    """
    url = "".join(
        (
            char
            if "\x21" <= char <= "\x7e"
            else "".join(
                f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass")
            )
        )
        for char in request.url
    )
    if not url.lower().startswith(("/", "http://", "https://")):
        url = "/" + url
    method = request.method.upper()
    return GeneratedRequest(
        method if method in METHODS else "GET",
        url[:8000],
        request.headers,
        request.body,
    )


#: for a running agent: mostly requests its HTTP server passes on to the skill's handler
#: (the server itself answers 400 to malformed request lines), some raw ones
wire_requests = st.one_of(
    requests.map(_wire_safe),
    requests.map(_wire_safe),
    requests.map(_wire_safe),
    requests,
)
