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

"""The HTTP catalogue API: pure routing (mech_catalogue_core/http_api/routes.py) and the skill's HttpHandler."""

import base64
import json
import logging
from typing import Any, Optional, Tuple
from unittest import mock

import pytest
from mech_catalogue_core.catalogue.exposure import (
    SHARED_STATE_KEY,
    ExposedCatalogue,
)
from mech_catalogue_core.http_api.request import (
    ERROR_STATUS,
    MAX_URL_LENGTH,
    HttpResult,
)
from mech_catalogue_core.http_api.routes import (
    CatalogueView,
    route,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_INVALID,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.problems import (
    error,
)
from mech_catalogue_core.model.tool import (
    MechRef,
    Provenance,
    Tool,
)

from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    ToolMetadataBehaviourCase,
)
from packages.valory.protocols.http import HttpMessage

NOW = 1_000_000.0


def ref(mech_id: int) -> MechRef:
    """Get a mech ref on a test registry.

    :param mech_id: the agent id.
    :return: a mech ref on a test registry.
    """
    return MechRef(31337, "legacy_mech_registry", "0x" + "aa" * 20, mech_id)


def mech(mech_id: int, *tools: str, block: int = 20) -> Mech:
    """Build an ok mech with name-only tools.

    :param mech_id: the agent id.
    :param tools: the tool names.
    :param block: the block its hash was read at.
    :return: an ok mech with name-only tools.
    """
    return Mech(
        ref=ref(mech_id),
        digest="0x" + f"{mech_id:02x}" * 32,
        cid=f"bafy{mech_id}",
        status="ok",
        tools=tuple(
            Tool(
                name=t,
                description=f"{t} of {mech_id}",
                provenance=Provenance("name_only", ref(mech_id)),
            )
            for t in tools
        ),
        observed_block=block,
    )


def exposed(*mechs: Mech, agreed_at: float = NOW - 10) -> ExposedCatalogue:
    """Publish a catalogue read at block 20.

    :param mechs: the mechs.
    :param agreed_at: unix time of the agreement.
    :return: an exposed catalogue read at block 20.
    """
    catalogue = Catalogue.build(mechs)
    return ExposedCatalogue(catalogue, catalogue.digest(), "ab" * 32, 20, agreed_at, 3)


def answer(
    url: str,
    current: Optional[ExposedCatalogue],
    page_size: int = 2,
    method: str = "GET",
    body: bytes = b"",
) -> HttpResult:
    """Send a request through the router.

    :param url: the URL.
    :param current: the exposed catalogue.
    :param page_size: tools per page.
    :param method: the HTTP method.
    :param body: the request body.
    :return: the response.
    """
    view = None if current is None else CatalogueView.build(current)
    return route(method, url, body, view, NOW, page_size, 3600.0)


def get(
    url: str, current: Optional[ExposedCatalogue], page_size: int = 2
) -> Tuple[int, Any]:
    """Send a GET through the router.

    :param url: the URL.
    :param current: the exposed catalogue.
    :param page_size: tools per page.
    :return: status and decoded body of a GET.
    """
    result = answer(url, current, page_size)
    return result.status_code, json.loads(result.body_bytes())


def error_code(result: HttpResult) -> str:
    """Check an error response's shape and return its code.

    :param result: a 4xx/5xx response.
    :return: ``error.code`` (the test fails unless the body is ``{"error": {"code", "message"}}``
        with the code's status).
    """
    body = json.loads(result.body)
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert body["error"]["message"].strip()
    assert ERROR_STATUS[body["error"]["code"]] == result.status_code
    return body["error"]["code"]


CATALOGUE = exposed(mech(1, "b", "a"), mech(2, "a", "c"), mech(3, "d", block=10))


def test_tools_pages_with_a_cursor_in_mcp_shape() -> None:
    """Distinct names, sorted, page by page; the last page has no nextCursor."""
    status, first = get("/tools", CATALOGUE)
    assert status == 200 and [t["name"] for t in first["tools"]] == ["a", "b"]
    tool_a = first["tools"][0]
    assert tool_a["inputSchema"]["type"] == "object"
    meta = tool_a["_meta"]["io.olas/mech-tool"]
    assert meta["collision"] is True and meta["mechs"] == [ref(1).key, ref(2).key]
    _, second = get(f"/tools?cursor={first['nextCursor']}", CATALOGUE)
    assert [t["name"] for t in second["tools"]] == ["c", "d"]
    assert "nextCursor" not in second


def b64(text: str) -> str:
    """Encode as the old cursors were (base64url, no padding).

    :param text: the cursor text.
    :return: its base64url form.
    """
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        b64("offset:\u00b2"),  # issue #10: a superscript digit stopped the agent
        b64("offset:" + "7" * 1500),
        b64("offset:2"),  # the old format is not ours any more
        "%C2%B2",  # a superscript two, percent-encoded
        "%D9%A1",  # an Arabic-Indic one (str.isdigit() and int() accept it)
        "1" * 10,  # more than 9 digits
        "9" * 2000,
        "-1",
        "+1",
        "1.0",
        "0x1",
        "%31",  # "1" percent-encoded: the cursor is not decoded
        "",
        "page:2",
        "%%%",
    ],
)
def test_cursor_not_issued_here_is_a_400(cursor: str) -> None:
    """A cursor is 1 to 9 ASCII digits: anything else is 400 invalid_cursor, never an exception."""
    result = answer(f"/tools?cursor={cursor}", CATALOGUE)
    assert error_code(result) == "invalid_cursor"


@pytest.mark.parametrize(
    "cursor", ["offset:" + "7" * 5000, b64("offset:" + "7" * 5000), "7" * 5000]
)
def test_huge_cursors_are_refused_before_parsing(cursor: str) -> None:
    """Issue #10: a cursor of offset: + 5,000 digits passed int()'s 4,300-digit limit and raised."""
    assert error_code(answer(f"/tools?cursor={cursor}", CATALOGUE)) == "url_too_long"


@pytest.mark.parametrize("cursor", ["4", "5", "999999999", "0004"])
def test_cursor_past_the_names_is_a_400(cursor: str) -> None:
    """A well-formed cursor must point inside the names served now (4 here).

    Before the first agreement there are no names to point into: 503 no_catalogue.

    :param cursor: a well-formed cursor.
    """
    assert error_code(answer(f"/tools?cursor={cursor}", CATALOGUE)) == "invalid_cursor"
    assert error_code(answer(f"/tools?cursor={cursor}", None)) == "no_catalogue"


def test_cursor_pages_cover_every_name_once() -> None:
    """Following nextCursor from any page size lists each name exactly once, in order."""
    many = exposed(*(mech(i, *(f"t{i}-{j}" for j in range(i))) for i in range(1, 8)))
    expected = sorted({f"t{i}-{j}" for i in range(1, 8) for j in range(i)})
    for page_size in (1, 3, 28, 50):
        seen, url = [], "/tools"
        while True:
            status, page = get(url, many, page_size)
            assert status == 200 and len(page["tools"]) <= page_size
            seen += [t["name"] for t in page["tools"]]
            if "nextCursor" not in page:
                break
            assert page["nextCursor"].isascii() and page["nextCursor"].isdigit()
            url = f"/tools?cursor={page['nextCursor']}"
        assert seen == expected


@pytest.mark.parametrize(
    "query, code",
    [
        ("cursor=2&cursor=2", "duplicate_parameter"),
        ("limit=5", "unknown_parameter"),
        ("Cursor=2", "unknown_parameter"),
        ("cursor%3D2", "invalid_query"),
        ("cursor", "invalid_query"),
        ("cursor=2&", "invalid_query"),
        ("&cursor=2", "invalid_query"),
        ("=2", "invalid_query"),
        ("cursor=2&x=1", "unknown_parameter"),
    ],
)
def test_query_takes_only_the_route_parameters_once(query: str, code: str) -> None:
    """Unknown, repeated or malformed query parameters are refused by name."""
    assert error_code(answer(f"/tools?{query}", CATALOGUE)) == code


def test_routes_without_parameters_refuse_any() -> None:
    """/healthcheck takes no query parameters; an empty query is fine."""
    assert error_code(answer("/healthcheck?cursor=2", CATALOGUE)) == "unknown_parameter"
    assert answer("/healthcheck?", CATALOGUE).status_code in (200, 503)


def test_mechs_take_a_cursor_and_the_search_filters_only() -> None:
    """/mechs pages its mechs: a cursor, or /tools' search filters (kind included).

    Anything else is an unknown parameter; an empty query is fine.
    """
    for query in ("limit=2", "colour=red"):
        assert error_code(answer(f"/mechs?{query}", CATALOGUE)) == "unknown_parameter"
    for query in ("kind=chat", "q=predict"):
        found = answer(f"/mechs?{query}", CATALOGUE)
        assert found.status_code == 200 and "total" in json.loads(found.body)
    assert error_code(answer("/mechs?cursor=x", CATALOGUE)) == "invalid_cursor"
    assert answer("/mechs?", CATALOGUE).status_code == 200


def test_a_tools_offers_take_a_cursor_and_nothing_else() -> None:
    """/tools/<name> pages its offers: cursor only (no kind), and an empty query is fine."""
    assert error_code(answer("/tools/a?kind=chat", CATALOGUE)) == "unknown_parameter"
    assert error_code(answer("/tools/a?cursor=x", CATALOGUE)) == "invalid_cursor"
    assert answer("/tools/a?", CATALOGUE).status_code in (200, 404)


@pytest.mark.parametrize(
    "url",
    [
        "//",  # "/" itself leads to the page (test_the_root_and_the_page_...)
        "//tools",
        "/tools/",
        "/tools//a",
        "/tools/a/",
        "/tools/a/b",
        "/./tools",
        "/tools/../mechs",
        "/%74ools",
        "/TOOLS",
        "/tools;x",
        "/mechs/",
        "/healthcheck/x",
        "/metrics",
        "/synchronized_data",  # the chained skill's, not this skill's
    ],
)
def test_odd_paths_are_404(url: str) -> None:
    """Only the exact routes are served; nothing is normalised."""
    assert error_code(answer(url, CATALOGUE)) == "unknown_path"


@pytest.mark.parametrize(
    "url",
    [
        "/tools/%zz",
        "/tools/%",
        "/tools/%4",
        "/tools/a%C3",
        "/tools/%FF",
        "/tools/%ED%A0%80",
    ],
)
def test_tool_names_must_percent_decode_to_utf8(url: str) -> None:
    """Broken escapes, truncated or invalid UTF-8 and encoded surrogates are 400 invalid_path."""
    assert error_code(answer(url, CATALOGUE)) == "invalid_path"


def test_tool_names_are_percent_decoded() -> None:
    """A name with a slash, spaces and non-ASCII letters is reachable percent-encoded."""
    name = "caf\u00e9/\u03c0 x?"
    current = exposed(mech(1, name))
    status, body = get("/tools/caf%C3%A9%2F%CF%80%20x%3F", current)
    assert status == 200 and body["name"] == name
    assert error_code(answer("/tools/caf%C3%A9", current)) == "unknown_tool"


@pytest.mark.parametrize(
    "url, code",
    [
        ("/tools/\u00e9", "invalid_url"),
        ("/tools/a b", "invalid_url"),
        ("/tools\n", "invalid_url"),
        ("/tools\x00", "invalid_url"),
        ("/tools#top", "invalid_url"),
        ("tools", "invalid_url"),
        ("*", "invalid_url"),
        ("", "invalid_url"),
        ("ftp://host/tools", "invalid_url"),
        ("/tools?cursor=" + "1" * MAX_URL_LENGTH, "url_too_long"),
        ("/" + "a" * 1_000_000, "url_too_long"),
    ],
)
def test_urls_outside_the_grammar_are_refused(url: str, code: str) -> None:
    """Non-ASCII, spaces, control characters, fragments, relative and huge URLs are refused."""
    assert error_code(answer(url, CATALOGUE)) == code


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/tools",
        "HTTPS://agent.example/tools",
        "http://[/tools",  # urlparse raised ValueError("Invalid IPv6 URL") on this
        "http://host:notaport/tools",
    ],
)
def test_absolute_urls_are_served_whatever_the_host(url: str) -> None:
    """The connection passes absolute URLs; the authority is not ours to check."""
    status, body = get(url, CATALOGUE)
    assert status == 200 and len(body["tools"]) == 2


@pytest.mark.parametrize(
    "method",
    ["POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "", "G\x00ET", "GETX"],
)
def test_methods_other_than_get_are_405(method: str) -> None:
    """Every route answers GET only, with an Allow header; unknown paths stay 404."""
    for url in ("/tools", "/tools/a", "/mechs", "/healthcheck"):
        result = answer(url, CATALOGUE, method=method)
        assert error_code(result) == "method_not_allowed"
        assert "Allow: GET" in result.headers
    assert error_code(answer("/nothing", CATALOGUE, method=method)) == "unknown_path"
    # methods are case-sensitive (RFC 9110 section 9.1): "get" is not GET
    assert error_code(answer("/tools", CATALOGUE, method="get")) == "method_not_allowed"
    assert answer("/tools", CATALOGUE, method="GET").status_code == 200


def test_a_get_with_a_body_is_400() -> None:
    """A GET carries no body."""
    result = answer("/tools", CATALOGUE, body=b"{}")
    assert error_code(result) == "unexpected_body"


@pytest.mark.parametrize(
    "method, url, body",
    [
        (None, "/tools", b""),
        ("GET", b"/tools", b""),
        ("GET", "/tools", "text"),
        (1, 2, 3),
    ],
)
def test_parts_of_the_wrong_type_are_400(method: Any, url: Any, body: Any) -> None:
    """The router is total even on values the protocol should never carry."""
    result = route(method, url, body, None, NOW, 2, 1.0)
    assert error_code(result) == "malformed_request"


def test_tool_detail_lists_every_offer() -> None:
    """/tools/<name> gives each mech's description with provenance; unknown names are 404."""
    status, body = get("/tools/a", CATALOGUE)
    assert status == 200 and body["collision"] is True
    assert [o["mech"]["mech_id"] for o in body["offers"]] == [1, 2]
    assert body["mcp"]["name"] == "a"
    status, body = get("/tools/zzz", CATALOGUE)
    assert status == 404 and body["error"]["code"] == "unknown_tool"


def test_mechs_lists_status_and_staleness() -> None:
    """/mechs marks a mech read before the catalogue's block as stale and lists problems."""
    broken = Mech(
        ref=ref(4),
        digest="0x" + "04" * 32,
        status=STATUS_INVALID,
        problems=(error("invalid_json", "bad"),),
        observed_block=20,
    )
    current = exposed(mech(1, "a"), mech(3, "d", block=10), broken)
    _, body = get("/mechs", current)  # two mechs a page: the third is on the next
    assert len(body["mechs"]) == 2
    _, rest = get(f"/mechs?cursor={body['nextCursor']}", current)
    assert "nextCursor" not in rest
    by_id = {m["ref"]["mech_id"]: m for m in body["mechs"] + rest["mechs"]}
    assert by_id[1]["stale"] is False and by_id[3]["stale"] is True
    assert (
        by_id[4]["status"] == "invalid"
        and by_id[4]["problems"][0]["code"] == "invalid_json"
    )


def test_healthcheck_freshness() -> None:
    """200 when fresh, 503 when older than the limit or before the first agreement."""
    status, body = get("/healthcheck", CATALOGUE)
    assert (
        status == 200
        and body["status"] == "fresh"
        and body["tools"] == 4
        and body["collisions"] == 1
    )
    status, body = get("/healthcheck", exposed(mech(1, "a"), agreed_at=NOW - 7200))
    assert status == 503 and body["status"] == "stale"
    status, body = get("/healthcheck", None)
    assert status == 503 and body["status"] == "no_catalogue"


@pytest.mark.parametrize(
    "url",
    ["/tools", "/tools?kind=prediction", "/tools/a", "/tools/a?cursor=1", "/mechs"],
)
def test_before_the_first_agreement_every_catalogue_route_is_not_ready(
    url: str,
) -> None:
    """No catalogue yet: 503 no_catalogue, as /healthcheck says, never an empty 200 list."""
    result = answer(url, None)
    assert result.status_code == 503 and error_code(result) == "no_catalogue"
    assert "/healthcheck" in json.loads(result.body)["error"]["message"]


def test_an_agreed_catalogue_without_mechs_is_an_empty_200() -> None:
    """Agreed but empty is a fact, not "not ready": 200 with empty lists."""
    empty = exposed()
    status, body = get("/tools", empty)
    assert status == 200 and body["tools"] == [] and "nextCursor" not in body
    assert get("/mechs", empty) == (200, {"mechs": []})
    assert error_code(answer("/tools/a", empty)) == "unknown_tool"


class TestHttpHandler(ToolMetadataBehaviourCase):
    """The skill's HttpHandler answers requests from the http_server connection."""

    def setup_method(self, **kwargs: Any) -> None:
        """Serve 50 tools per page."""
        super().setup_method(**kwargs)
        self.skill.skill_context.params.__dict__["tools_page_size"] = 50

    def request(self, url: str, method: str = "GET", body: bytes = b"") -> HttpMessage:
        """Send a request through the handler and return the response from the outbox.

        :param url: the URL as the connection passes it.
        :param method: the method.
        :param body: the body.
        :return: the response (the test fails unless exactly one was sent).
        """
        incoming = self.build_incoming_message(
            message_type=HttpMessage,
            performative=HttpMessage.Performative.REQUEST,
            dialogue_reference=(f"{abs(hash(url + method))}", ""),
            message_id=1,
            target=0,
            to=str(self.skill.skill_context.skill_id),
            sender="valory/http_server:0.22.0",
            method=method,
            url=url,
            version="",
            headers="",
            body=body,
        )
        self.http_handler.handle(incoming)
        self.assert_quantity_in_outbox(1)
        response = self.outbox_message(HttpMessage)
        assert response.performative == HttpMessage.Performative.RESPONSE
        return response

    def names(self, url: str = "http://127.0.0.1:8000/tools") -> list:
        """List the tool names of one /tools page.

        :param url: the page's URL.
        :return: the names.
        """
        response = self.request(url)
        assert response.status_code == 200
        return [t["name"] for t in json.loads(response.body)["tools"]]

    def test_serves_the_published_catalogue(self) -> None:
        """With an agreed catalogue in the skill's state the handler serves it as JSON."""
        self.skill.skill_context.state.exposed = CATALOGUE
        assert self.names() == ["a", "b", "c", "d"]
        assert "application/json" in self.request("/tools").headers

    def test_serves_the_agreed_catalogue_not_the_shared_state_key(self) -> None:
        """Another skill replacing shared_state[key] changes nothing /tools, /mechs or /healthcheck serve."""
        state = self.skill.skill_context.state
        state.exposed = CATALOGUE

        def served() -> dict:
            bodies = {
                url: json.loads(self.request(url).body)
                for url in ("/tools", "/mechs", "/healthcheck")
            }
            bodies["/healthcheck"].pop("age_seconds")
            return bodies

        before = served()
        impostor = exposed(mech(9, "injected-tool"), agreed_at=NOW)
        for value in (impostor, None, "garbage", {"tools": ["x"]}):
            self.skill.skill_context.shared_state[SHARED_STATE_KEY] = value
            assert served() == before, value
        assert b"injected-tool" not in self.request("/tools").body

    def test_the_view_is_built_once_per_agreed_catalogue(self) -> None:
        """Requests reuse the view; a new agreement replaces it."""
        state = self.skill.skill_context.state
        state.exposed = exposed(mech(1, "a"), mech(2, "b"))
        with mock.patch.object(
            CatalogueView, "build", side_effect=CatalogueView.build
        ) as build:
            for _ in range(5):
                self.request("/tools")
                self.request("/healthcheck")
            assert build.call_count == 1
            state.exposed = exposed(mech(1, "z"))
            assert self.names() == ["z"]
            assert build.call_count == 2

    def test_superscript_cursor_is_a_400_not_a_stop(self) -> None:
        """Issue #10's request (base64 of offset: + a superscript digit) gets a 400 and the agent goes on."""
        self.skill.skill_context.state.exposed = CATALOGUE
        response = self.request("http://127.0.0.1:8000/tools?cursor=b2Zmc2V0OsKy")
        assert response.status_code == 400
        assert json.loads(response.body)["error"]["code"] == "invalid_cursor"
        assert self.names() == ["a", "b", "c", "d"]

    def test_unexpected_exception_is_a_logged_500(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        """Anything raising while answering is answered 500 internal_error and logged, never re-raised."""
        self.skill.skill_context.state.exposed = exposed(
            mech(1, "b", "a"), mech(2, "c", "d")
        )
        with (
            mock.patch.object(CatalogueView, "build", side_effect=ValueError("a bug")),
            caplog.at_level(logging.ERROR),
        ):
            response = self.request("/tools")
        assert response.status_code == 500
        body = json.loads(response.body)
        assert body["error"]["code"] == "internal_error"
        assert "a bug" not in response.body.decode()  # details go to the log only
        assert "internal_error" in caplog.text and "a bug" in caplog.text
        assert self.names() == ["a", "b", "c", "d"]

    def test_failure_before_a_dialogue_exists_is_logged(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        """Even a failure outside the answer (here: dialogue bookkeeping) does not escape."""
        dialogues = self.skill.skill_context.http_dialogues
        with (
            mock.patch.object(
                type(dialogues), "update", side_effect=RuntimeError("bookkeeping")
            ),
            caplog.at_level(logging.ERROR),
        ):
            incoming = self.build_incoming_message(
                message_type=HttpMessage,
                performative=HttpMessage.Performative.REQUEST,
                dialogue_reference=("x", ""),
                message_id=1,
                target=0,
                to=str(self.skill.skill_context.skill_id),
                sender="valory/http_server:0.22.0",
                method="GET",
                url="/tools",
                version="",
                headers="",
                body=b"",
            )
            self.http_handler.handle(incoming)
        assert "bookkeeping" in caplog.text

    def test_unknown_path_is_404(self) -> None:
        """A path the API does not know gets a JSON 404."""
        response = self.request("http://127.0.0.1:8000/nothing")
        assert response.status_code == 404
        assert json.loads(response.body)["error"]["code"] == "unknown_path"

    def test_refusals_reach_the_client_with_status_and_headers(self) -> None:
        """405 carries Allow, 414 its status text, 400 a body naming the problem."""
        response = self.request("/tools", method="post")
        assert response.status_code == 405 and "Allow: GET" in response.headers
        response = self.request("/" + "x" * 5000)
        assert response.status_code == 414 and response.status_text.endswith(
            "URI Too Long"
        )
        response = self.request("/tools", body=b"x")
        assert json.loads(response.body)["error"]["code"] == "unexpected_body"

    def test_the_catalogue_page_reaches_the_client_with_its_policy(self) -> None:
        """The agent serves the catalogue page, its CSP and nosniff headers intact."""
        response = self.request("/catalogue/")
        assert response.status_code == 200
        assert "Content-Type: text/html; charset=utf-8" in response.headers
        assert "Content-Security-Policy: default-src 'self';" in response.headers
        assert "X-Content-Type-Options: nosniff" in response.headers
        assert b'src="app.js"' in response.body
        module = self.request("/catalogue/app.js")
        assert "Content-Type: text/javascript" in module.headers
        assert self.request("/catalogue/../handlers.py").status_code == 404

    def test_the_root_and_the_page_without_its_slash_lead_to_the_page(self) -> None:
        """/ and /catalogue answer 302 Location: /catalogue/ through the handler (issue 33)."""
        for path in ("/", "/catalogue", "http://127.0.0.1:8000"):
            response = self.request(path)
            assert response.status_code == 302, path
            assert "Location: /catalogue/\n" in response.headers
        assert self.request("/catalogues").status_code == 404

    def test_healthcheck_without_catalogue(self) -> None:
        """Before the first agreement the healthcheck says so with 503."""
        response = self.request("http://127.0.0.1:8000/healthcheck")
        assert response.status_code == 503
        assert json.loads(response.body)["status"] == "no_catalogue"
