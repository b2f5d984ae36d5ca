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

"""Strict, total parsing of the HTTP requests the catalogue API answers.

Every request is input from anyone who can reach the agent's port, so
:func:`parse_request` accepts any value for each part and never raises: it returns
either a :class:`Request` for one of the API's routes or the :class:`HttpResult` error to
send (``{"error": {"code", "message"}}``). Nothing is normalised or guessed:

- the URL (the request target exactly as sent, which the agent's
  ``mech_catalogue/http_server`` connection passes on: an origin-form ``/...`` target,
  or an absolute ``http://host[:port]/...`` naming this server,
  :func:`.request_line.target_refusal`) is at most
  :data:`MAX_URL_LENGTH` characters (else 414 ``url_too_long``) of printable ASCII, and
  carries no fragment (else 400 ``invalid_url``);
- the path is one of the routes exactly (:data:`FIXED_PATHS`, the skill's extra paths,
  ``/tools/<name>`` or ``/mechs/<key>`` with one segment, or ``/catalogue/<file>`` with a
  file name of :data:`PAGE_FILE_NAME` or none); anything else, a trailing slash, ``..``
  or a percent-encoded route included, is 404 ``unknown_path``;
- ``<name>`` and ``<key>`` are percent-decoded strictly (``%`` + two hex digits, the
  bytes UTF-8), else 400 ``invalid_path``; a page ``<file>`` is never decoded (which
  files exist is decided by :mod:`.page_files`, never by a path on disk);
- the method is ``GET``, case-sensitive as RFC 9110 section 9.1 says (405
  ``method_not_allowed`` with ``Allow: GET``; ``get`` is another method);
- the query has only the route's parameters, each once, as ``key=value`` (400
  ``unknown_parameter`` / ``duplicate_parameter`` / ``invalid_query``); the cursor of
  ``/tools`` and ``/tools/<name>`` is 1 to :data:`MAX_CURSOR_DIGITS` ASCII digits (400
  ``invalid_cursor``); the ``/tools``
  ``kind`` is a lowercase word of at most 64 characters (400 ``invalid_kind``);
- a ``/tools`` search (any of :data:`SEARCH_PARAMETERS`), and every ``/offers``
  request, is checked value by value (400
  ``invalid_search_parameter``, naming the parameter and what it takes): ``q``
  percent-decodes (``+`` a space) to UTF-8 text of at most ``MAX_QUERY_CHARS``;
  ``max_price`` is 1 to 18 ASCII digits; ``sort`` a :class:`.SearchSort`; ``payment`` a
  payment type name of ``PAYMENT_TYPE_NAMES``; ``mech`` a mech contract address or a
  catalogue entry key; ``registry`` a :class:`.RegistryKind`; ``typed`` ``true`` or
  ``false``; ``callable`` and ``delivering`` ``true``; ``min_karma`` 1 to 18 ASCII
  digits, negative after a ``-``; ``delivered_within`` 1 to 18 ASCII digits (blocks).
  Its cursor is the engine's
  (``<offset>.<16 hex digits>``, else 400 ``invalid_cursor``); ``/mechs`` takes a
  ``cursor`` of digits like ``/tools``;
- a GET carries no body (400 ``unexpected_body``).
"""

import json
import re
from dataclasses import dataclass, replace
from http import HTTPStatus
from typing import Dict, Iterable, Optional, Tuple, Union
from urllib.parse import unquote_to_bytes

from mech_catalogue_core.model.market import PAYMENT_TYPE_NAMES
from mech_catalogue_core.model.vocabulary import RegistryKind, SearchSort
from mech_catalogue_core.search.query import MAX_QUERY_CHARS, SearchQuery

#: longest URL answered (characters); browsers and proxies commonly allow 2,000-8,000
MAX_URL_LENGTH = 2048
#: the ``/tools`` cursor: the offset of the next tool name, at most this many digits
MAX_CURSOR_DIGITS = 9
TOOLS_PATH = "/tools"
TOOL_PREFIX = "/tools/"
MECHS_PATH = "/mechs"
HEALTHCHECK_PATH = "/healthcheck"
#: the route of ``/tools/<name>`` in :attr:`Request.path`
TOOL_ROUTE = "/tools/{name}"
#: one page of matching offers (a tool of one mech) with their chain facts: the page's search
OFFERS_PATH = "/offers"
MECH_PREFIX = "/mechs/"
#: the route of ``/mechs/<key>`` (one mech's ``/mechs`` entry) in :attr:`Request.path`
MECH_ROUTE = "/mechs/{key}"
#: the catalogue web page's files (``/catalogue/`` is its ``index.html``)
PAGE_PREFIX = "/catalogue/"
#: the route of ``/catalogue/<file>`` in :attr:`Request.path`
PAGE_ROUTE = "/catalogue/{file}"
#: what a person types for the page (the server root, the page without its slash): each
#: answers 302 to :data:`PAGE_PREFIX` (``page_files.page_redirect``)
PAGE_ALIASES: Tuple[str, ...] = ("/", "/catalogue")
#: the route of the :data:`PAGE_ALIASES` in :attr:`Request.path`
PAGE_ALIAS_ROUTE = "/ or /catalogue (no slash)"
#: what a page file's name may be: a lowercase word, a dot and a suffix (no folder, no dot
#: first, nothing percent-encoded)
PAGE_FILE_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}\.(?:html|css|js)")
CURSOR = "cursor"
#: the ``/tools`` filter: tools of one kind (``Tool.kind``), a lowercase word
KIND = "kind"
#: the ``/tools`` search parameters (any of them makes the request a search)
QUERY_TEXT = "q"
MAX_PRICE = "max_price"
SORT = "sort"
PAYMENT = "payment"
MECH = "mech"
REGISTRY = "registry"
TYPED = "typed"
CALLABLE = "callable"
DELIVERING = "delivering"
MIN_KARMA = "min_karma"
DELIVERED_WITHIN = "delivered_within"
SEARCH_PARAMETERS: Tuple[str, ...] = (
    QUERY_TEXT,
    MAX_PRICE,
    SORT,
    PAYMENT,
    MECH,
    REGISTRY,
    TYPED,
    CALLABLE,
    DELIVERING,
    MIN_KARMA,
    DELIVERED_WITHIN,
)
#: route -> the query parameters it accepts
FIXED_PATHS: Dict[str, Tuple[str, ...]] = {
    TOOLS_PATH: (CURSOR, KIND, *SEARCH_PARAMETERS),
    OFFERS_PATH: (CURSOR, KIND, *SEARCH_PARAMETERS),
    MECHS_PATH: (CURSOR, KIND, *SEARCH_PARAMETERS),
    HEALTHCHECK_PATH: (),
}
#: the query parameters of ``/tools/<name>``: a cursor through the name's offers
TOOL_ROUTE_PARAMETERS: Tuple[str, ...] = (CURSOR,)
JSON_CONTENT_TYPE = "Content-Type: application/json\n"

# error codes (the ``error.code`` of a 4xx/5xx body)
MALFORMED_REQUEST = "malformed_request"
URL_TOO_LONG = "url_too_long"
INVALID_URL = "invalid_url"
UNKNOWN_PATH = "unknown_path"
INVALID_PATH = "invalid_path"
METHOD_NOT_ALLOWED = "method_not_allowed"
INVALID_QUERY = "invalid_query"
UNKNOWN_PARAMETER = "unknown_parameter"
DUPLICATE_PARAMETER = "duplicate_parameter"
INVALID_CURSOR = "invalid_cursor"
INVALID_KIND = "invalid_kind"
INVALID_SEARCH_PARAMETER = "invalid_search_parameter"
UNEXPECTED_BODY = "unexpected_body"
UNKNOWN_TOOL = "unknown_tool"
UNKNOWN_MECH = "unknown_mech"
#: no catalogue agreed yet: the catalogue routes answer 503, as ``/healthcheck`` does
NO_CATALOGUE = "no_catalogue"
INTERNAL_ERROR = "internal_error"
# answered by the agent's HTTP server connection before the skill sees the request
# (``mech_catalogue/http_server``; target forms: :mod:`.request_line`)
#: an absolute-form target naming another server than the one connected to (RFC 9110
#: section 15.5.20)
MISDIRECTED_REQUEST = "misdirected_request"
#: the request head (request line and header fields) is over the server's size caps
HEADERS_TOO_LARGE = "headers_too_large"
#: the request body is over the server's cap (a GET carries none)
BODY_TOO_LARGE = "body_too_large"
#: not HTTP/1.0 or HTTP/1.1
HTTP_VERSION_NOT_SUPPORTED = "http_version_not_supported"
#: the client did not send the whole request in time
REQUEST_TIMEOUT = "request_timeout"
#: too many connections open at once; try again
SERVER_BUSY = "server_busy"
#: the agent did not answer in time (its loop is busy); try again
NOT_ANSWERED = "not_answered"
#: every error code the API answers with, and its status
ERROR_STATUS: Dict[str, int] = {
    MALFORMED_REQUEST: 400,
    URL_TOO_LONG: 414,
    INVALID_URL: 400,
    UNKNOWN_PATH: 404,
    INVALID_PATH: 400,
    METHOD_NOT_ALLOWED: 405,
    INVALID_QUERY: 400,
    UNKNOWN_PARAMETER: 400,
    DUPLICATE_PARAMETER: 400,
    INVALID_CURSOR: 400,
    INVALID_KIND: 400,
    INVALID_SEARCH_PARAMETER: 400,
    UNEXPECTED_BODY: 400,
    UNKNOWN_TOOL: 404,
    UNKNOWN_MECH: 404,
    NO_CATALOGUE: 503,
    INTERNAL_ERROR: 500,
    MISDIRECTED_REQUEST: 421,
    HEADERS_TOO_LARGE: 431,
    BODY_TOO_LARGE: 413,
    HTTP_VERSION_NOT_SUPPORTED: 505,
    REQUEST_TIMEOUT: 408,
    SERVER_BUSY: 503,
    NOT_ANSWERED: 503,
}

_PRINTABLE_ASCII = re.compile(r"[\x21-\x7e]*")
_PERCENT_ENCODED = re.compile(r"(?:[^%]|%[0-9A-Fa-f]{2})*")
_CURSOR = re.compile(rf"[0-9]{{1,{MAX_CURSOR_DIGITS}}}")
_KIND = re.compile(r"[a-z][a-z0-9_]{0,63}")
_SEARCH_CURSOR = re.compile(rf"[0-9]{{1,{MAX_CURSOR_DIGITS}}}\.[0-9a-f]{{16}}")
_PRICE = re.compile(r"[0-9]{1,18}")
_KARMA = re.compile(r"-?[0-9]{1,18}")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
_MECH_KEY = re.compile(r"[0-9]{1,20}:[a-z_]{1,64}:0x[0-9a-f]{40}:[0-9]{1,78}")
_FLAGS: Dict[str, Tuple[str, ...]] = {
    TYPED: ("true", "false"),
    CALLABLE: ("true",),
    DELIVERING: ("true",),
}
_ORIGIN = re.compile(r"https?://[^/?#]*", re.IGNORECASE)
_QUOTE_LIMIT = 80


@dataclass(frozen=True, slots=True)
class HttpResult:
    """An HTTP response to send.

    :param status_code: the HTTP status.
    :param body: the body, UTF-8 JSON.
    :param headers: the header lines, each ``Name: value`` and a newline.
    """

    status_code: int
    body: bytes
    headers: str = JSON_CONTENT_TYPE

    @property
    def status_text(self) -> str:
        """Get the HTTP reason phrase.

        :return: the standard phrase of the status ("" for an unregistered one).
        """
        try:
            return HTTPStatus(self.status_code).phrase
        except ValueError:
            return ""

    def body_bytes(self) -> bytes:
        """Get the body.

        :return: the body as UTF-8 JSON.
        """
        return self.body


def json_bytes(value: object) -> bytes:
    """Serialise a JSON value compactly, keys sorted.

    :param value: JSON-serialisable.
    :return: the bytes (ASCII: JSON escapes non-ASCII text, so any string encodes).
    """
    return json.dumps(value, separators=(",", ":"), sort_keys=True).encode("ascii")


def json_result(status_code: int, value: object, headers: str = "") -> HttpResult:
    """Build a JSON response.

    :param status_code: the HTTP status.
    :param value: the JSON value of the body.
    :param headers: header lines besides the content type.
    :return: the response.
    """
    return HttpResult(status_code, json_bytes(value), JSON_CONTENT_TYPE + headers)


def error_result(code: str, message: str, headers: str = "") -> HttpResult:
    """Build an error response ``{"error": {"code", "message"}}``.

    :param code: one of the codes of :data:`ERROR_STATUS` (its status is used).
    :param message: one sentence: what was wrong and what to do.
    :param headers: header lines besides the content type.
    :return: the response.
    """
    return json_result(
        ERROR_STATUS[code], {"error": {"code": code, "message": message}}, headers
    )


def quoted(text: str) -> str:
    """Quote client text for an error message, shortened (an attacker chooses it).

    :param text: what the client sent.
    :return: its ``repr``, cut to about 80 characters.
    """
    if len(text) > _QUOTE_LIMIT:
        return repr(text[:_QUOTE_LIMIT]) + f"... ({len(text)} characters)"
    return repr(text)


@dataclass(frozen=True, slots=True)
class Request:
    """A request the API can answer.

    :param path: the route: a key of :data:`FIXED_PATHS`, an extra path of the skill,
        :data:`TOOL_ROUTE`, :data:`MECH_ROUTE`, :data:`PAGE_ROUTE` or
        :data:`PAGE_ALIAS_ROUTE`.
    :param tool_name: the decoded ``<name>`` of ``/tools/<name>`` ("" otherwise).
    :param cursor: the ``/tools`` cursor as an offset (None when absent).
    :param kind: the ``/tools`` kind filter ("" when absent: every tool).
    :param search: the ``/tools`` search (None: no search parameter was given); its
        ``page_size`` is the default, the server sets its own.
    :param search_cursor: the search's cursor as given ("" when absent).
    :param mech_key: the decoded ``<key>`` of ``/mechs/<key>`` ("" otherwise).
    :param page_file: the ``<file>`` of ``/catalogue/<file>`` ("" otherwise, and for
        ``/catalogue/`` itself: the page's ``index.html``).
    """

    path: str
    tool_name: str = ""
    cursor: Optional[int] = None
    kind: str = ""
    search: Optional[SearchQuery] = None
    search_cursor: str = ""
    mech_key: str = ""
    page_file: str = ""


def _target(url: str) -> Union[str, HttpResult]:
    if len(url) > MAX_URL_LENGTH:
        return error_result(
            URL_TOO_LONG,
            f"the URL has {len(url)} characters, more than the {MAX_URL_LENGTH} served",
        )
    if not _PRINTABLE_ASCII.fullmatch(url):
        return error_result(
            INVALID_URL,
            "the URL must be printable ASCII without spaces; percent-encode other "
            "characters as UTF-8 (RFC 3986)",
        )
    origin = _ORIGIN.match(url)
    target = url[origin.end() :] if origin else url
    if origin and not target:
        target = "/"
    if not target.startswith("/"):
        return error_result(
            INVALID_URL, f"{quoted(url)} is not an http URL or a path starting with /"
        )
    if "#" in target:
        return error_result(INVALID_URL, "the URL must not carry a #fragment")
    return target


def _route(path: str, extra_paths: Iterable[str]) -> Union[Request, HttpResult]:
    if path in FIXED_PATHS or path in extra_paths:
        return Request(path)
    if path in PAGE_ALIASES:
        return Request(PAGE_ALIAS_ROUTE)
    if path.startswith(PAGE_PREFIX):
        file = path[len(PAGE_PREFIX) :]
        if not file or PAGE_FILE_NAME.fullmatch(file):
            return Request(PAGE_ROUTE, page_file=file)
    for prefix, route, what in (
        (TOOL_PREFIX, TOOL_ROUTE, "tool name"),
        (MECH_PREFIX, MECH_ROUTE, "mech key"),
    ):
        raw_name = path[len(prefix) :] if path.startswith(prefix) else ""
        if raw_name and "/" not in raw_name:
            return _segment(route, raw_name, what)
    served = ", ".join(
        sorted({*FIXED_PATHS, *extra_paths, TOOL_ROUTE, MECH_ROUTE, PAGE_PREFIX})
    )
    return error_result(
        UNKNOWN_PATH, f"{quoted(path)} is not served; the paths are {served}"
    )


def _segment(route: str, raw_name: str, what: str) -> Union[Request, HttpResult]:
    """The request of a one-segment route, its segment percent-decoded strictly."""
    if not _PERCENT_ENCODED.fullmatch(raw_name):
        return error_result(
            INVALID_PATH,
            f"the {what} {quoted(raw_name)} has a % not followed by two hex digits",
        )
    try:
        name = unquote_to_bytes(raw_name).decode("utf-8")
    except UnicodeDecodeError:
        return error_result(
            INVALID_PATH,
            f"the {what} {quoted(raw_name)} does not percent-decode to UTF-8",
        )
    if route == MECH_ROUTE:
        return Request(route, mech_key=name)
    return Request(route, tool_name=name)


def _query(
    request: Request, query: str, accepted: Tuple[str, ...]
) -> Union[Request, HttpResult]:
    values: Dict[str, str] = {}
    for item in query.split("&") if query else ():
        key, equals, value = item.partition("=")
        if not key or not equals:
            return error_result(
                INVALID_QUERY,
                f"query item {quoted(item)} is not key=value; "
                f"{request.path} takes {', '.join(accepted) or 'no parameters'}",
            )
        if key not in accepted:
            return error_result(
                UNKNOWN_PARAMETER,
                f"{request.path} takes {', '.join(accepted) or 'no parameters'}, "
                f"not {quoted(key)}",
            )
        if key in values:
            return error_result(
                DUPLICATE_PARAMETER, f"{quoted(key)} is given more than once"
            )
        values[key] = value
    if (
        request.path == OFFERS_PATH
        or any(key in values for key in SEARCH_PARAMETERS)
        or (request.path == MECHS_PATH and KIND in values)  # /mechs: kind is a search
    ):
        return _search_request(request, values)
    problem = _value_problem(values)
    if problem is not None:
        return problem
    cursor = values.get(CURSOR)
    return replace(
        request,
        cursor=None if cursor is None else int(cursor),
        kind=values.get(KIND, ""),
    )


def _decoded(name: str, value: str) -> Union[str, HttpResult]:
    """Percent-decode a query value strictly (``+`` is a space), to UTF-8 text."""
    if _PERCENT_ENCODED.fullmatch(value):
        try:
            return unquote_to_bytes(value.replace("+", " ")).decode("utf-8")
        except UnicodeDecodeError:
            pass
    return _search_problem(
        name, value, "percent-encoded UTF-8 (% followed by two hex digits)"
    )


def _search_problem(name: str, value: str, takes: str) -> HttpResult:
    return error_result(
        INVALID_SEARCH_PARAMETER,
        f"{name} {quoted(value)} is not valid: {name} takes {takes}",
    )


def _search_text(values: Dict[str, str]) -> Union[Dict[str, str], HttpResult]:
    """The decoded ``q`` and ``mech`` values, each checked."""
    decoded: Dict[str, str] = {}
    for name in (QUERY_TEXT, MECH):
        text = _decoded(name, values.get(name, ""))
        if isinstance(text, HttpResult):
            return text
        decoded[name] = text
    if len(decoded[QUERY_TEXT]) > MAX_QUERY_CHARS:
        return _search_problem(
            QUERY_TEXT, decoded[QUERY_TEXT], f"at most {MAX_QUERY_CHARS} characters"
        )
    mech = decoded[MECH]
    if mech and not (_ADDRESS.fullmatch(mech) or _MECH_KEY.fullmatch(mech)):
        return _search_problem(
            MECH,
            mech,
            "a mech contract address (0x and 40 hex digits) or a catalogue entry key "
            "(<chain id>:<registry kind>:<registry address>:<id>, as GET /mechs gives)",
        )
    return decoded


def _search_choice_problem(values: Dict[str, str]) -> Optional[HttpResult]:
    """The first value of a closed choice that is not one of its choices."""
    choices: Dict[str, Tuple[str, ...]] = {
        SORT: tuple(SearchSort),
        PAYMENT: tuple(sorted(set(PAYMENT_TYPE_NAMES.values()))),
        REGISTRY: tuple(RegistryKind),
        **_FLAGS,
    }
    for name, allowed in choices.items():
        value = values.get(name)
        if value is not None and value not in allowed:
            return _search_problem(name, value, "one of " + ", ".join(allowed))
    price = values.get(MAX_PRICE)
    if price is not None and not _PRICE.fullmatch(price):
        return _search_problem(
            MAX_PRICE, price, "1 to 18 ASCII digits (the smallest unit: wei for native)"
        )
    karma = values.get(MIN_KARMA)
    if karma is not None and not _KARMA.fullmatch(karma):
        return _search_problem(
            MIN_KARMA, karma, "1 to 18 ASCII digits, after a - for a negative floor"
        )
    window = values.get(DELIVERED_WITHIN)
    if window is not None and not _PRICE.fullmatch(window):
        return _search_problem(
            DELIVERED_WITHIN,
            window,
            "1 to 18 ASCII digits: blocks before the block the facts were read at",
        )
    cursor = values.get(CURSOR)
    if cursor is not None and not _SEARCH_CURSOR.fullmatch(cursor):
        return error_result(
            INVALID_CURSOR,
            f"cursor {quoted(cursor)} was not issued by a search of this API; omit it "
            "to start over",
        )
    return None


def _search_request(
    request: Request, values: Dict[str, str]
) -> Union[Request, HttpResult]:
    """A ``/tools`` request with search parameters, every value checked."""
    problem = _value_problem({KIND: values[KIND]} if KIND in values else {})
    problem = problem or _search_choice_problem(values)
    if problem is not None:
        return problem
    text = _search_text(values)
    if isinstance(text, HttpResult):
        return text
    price = values.get(MAX_PRICE)
    typed = values.get(TYPED)
    karma = values.get(MIN_KARMA)
    window = values.get(DELIVERED_WITHIN)
    query = SearchQuery(
        text=text[QUERY_TEXT],
        kind=values.get(KIND, ""),
        payment=values.get(PAYMENT, ""),
        max_price=None if price is None else int(price),
        mech=text[MECH],
        registry=values.get(REGISTRY, ""),
        typed=None if typed is None else typed == "true",
        callable_now=CALLABLE in values,
        delivering=DELIVERING in values,
        min_karma=None if karma is None else int(karma),
        delivered_within=None if window is None else int(window),
        sort=SearchSort(values.get(SORT, SearchSort.RELEVANCE)),
    )
    return Request(request.path, search=query, search_cursor=values.get(CURSOR, ""))


def _value_problem(values: Dict[str, str]) -> Optional[HttpResult]:
    kind = values.get(KIND)
    if kind is not None and not _KIND.fullmatch(kind):
        return error_result(
            INVALID_KIND,
            f"kind {quoted(kind)} is not a tool kind (a lowercase word such as "
            "prediction, resolve, chat, image, question_generation)",
        )
    cursor = values.get(CURSOR)
    if cursor is not None and not _CURSOR.fullmatch(cursor):
        return error_result(
            INVALID_CURSOR,
            f"cursor {quoted(cursor)} was not issued by this API (1 to "
            f"{MAX_CURSOR_DIGITS} ASCII digits); omit it to start over",
        )
    return None


def parse_request(
    method: object,
    url: object,
    body: object = b"",
    extra_paths: Tuple[str, ...] = (),
) -> Union[Request, HttpResult]:
    """Parse one request strictly; never raises.

    :param method: the HTTP method as sent (the agent's ``mech_catalogue/http_server``
        connection passes it unchanged; ``valory/http_server`` lowercased it).
    :param url: the URL, absolute or origin-form.
    :param body: the request body.
    :param extra_paths: further fixed paths the skill serves (no query parameters).
    :return: the request, or the 4xx error response to send (see the module doc).
    """
    if not (
        isinstance(method, str)
        and isinstance(url, str)
        and isinstance(body, (bytes, bytearray))
    ):
        return error_result(
            MALFORMED_REQUEST, "the request's method, URL or body has the wrong type"
        )
    target = _target(url)
    if isinstance(target, HttpResult):
        return target
    path, _, query = target.partition("?")
    request = _route(path, extra_paths)
    if isinstance(request, HttpResult):
        return request
    return _checked(request, method, query, body)


def _checked(
    request: Request, method: str, query: str, body: Union[bytes, bytearray]
) -> Union[Request, HttpResult]:
    if method != "GET":
        return error_result(
            METHOD_NOT_ALLOWED,
            f"{request.path} answers GET only, not {quoted(method)}",
            headers="Allow: GET\n",
        )
    accepted = (
        TOOL_ROUTE_PARAMETERS
        if request.path == TOOL_ROUTE
        else FIXED_PATHS.get(request.path, ())
    )
    parsed = _query(request, query, accepted)
    if isinstance(parsed, HttpResult):
        return parsed
    if body:
        return error_result(
            UNEXPECTED_BODY, f"a GET carries no body; this one has {len(body)} bytes"
        )
    return parsed
