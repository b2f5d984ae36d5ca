"""The HTTP catalogue API: pure routing (domain/http_api.py) and the skill's HttpHandler."""

import base64
import json
from typing import Any, Optional, Tuple

from packages.mech_catalogue.skills.tool_metadata_abci.domain.http_api import (
    decode_cursor,
    encode_cursor,
    route,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model import (
    STATUS_INVALID,
    Catalogue,
    Mech,
    MechRef,
    Provenance,
    Tool,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.problems import error
from packages.mech_catalogue.skills.tool_metadata_abci.domain.published import (
    SHARED_STATE_KEY,
    PublishedCatalogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.test_behaviours import (
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


def published(*mechs: Mech, agreed_at: float = NOW - 10) -> PublishedCatalogue:
    """Publish a catalogue read at block 20.

    :param mechs: the mechs.
    :param agreed_at: unix time of the agreement.
    :return: a published catalogue read at block 20.
    """
    catalogue = Catalogue.build(mechs)
    return PublishedCatalogue(
        catalogue, catalogue.digest(), "ab" * 32, 20, agreed_at, 3
    )


def get(
    url: str, current: Optional[PublishedCatalogue], page_size: int = 2
) -> Tuple[int, Any]:
    """Send a GET through the router.

    :param url: the URL.
    :param current: the published catalogue.
    :param page_size: tools per page.
    :return: status and decoded body of a GET.
    """
    result = route("GET", url, current, NOW, page_size, 3600.0)
    assert result is not None
    return result.status_code, json.loads(result.body_bytes())


CATALOGUE = published(mech(1, "b", "a"), mech(2, "a", "c"), mech(3, "d", block=10))


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


def test_bad_cursor_is_a_400_naming_it() -> None:
    """A cursor we did not issue is rejected with a reason."""
    forged = base64.urlsafe_b64encode(b"page:2").decode()
    for cursor in ("%%%", forged):
        status, body = get(f"/tools?cursor={cursor}", CATALOGUE)
        assert status == 400 and body["error"]["code"] == "invalid_cursor"


def test_cursor_round_trip() -> None:
    """Cursors are opaque but decode back to the offset."""
    assert decode_cursor(encode_cursor(40)) == 40
    assert decode_cursor("") is None


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
    current = published(mech(1, "a"), mech(3, "d", block=10), broken)
    _, body = get("/mechs", current)
    by_id = {m["ref"]["mech_id"]: m for m in body["mechs"]}
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
    status, body = get("/healthcheck", published(mech(1, "a"), agreed_at=NOW - 7200))
    assert status == 503 and body["status"] == "stale"
    status, body = get("/healthcheck", None)
    assert status == 503 and body["status"] == "no_catalogue"


def test_before_the_first_agreement_lists_are_empty() -> None:
    """No catalogue yet: empty lists, not errors."""
    status, body = get("/tools", None)
    assert status == 200 and body["tools"] == [] and "nextCursor" not in body
    assert get("/mechs", None) == (200, {"mechs": []})


def test_other_paths_and_methods() -> None:
    """Paths outside the API are left to others (None); other methods get 405."""
    assert route("GET", "/metrics", CATALOGUE, NOW, 2, 1.0) is None
    result = route("POST", "/tools", CATALOGUE, NOW, 2, 1.0)
    assert result is not None and result.status_code == 405


class TestHttpHandler(ToolMetadataBehaviourCase):
    """The skill's HttpHandler answers requests from the http_server connection."""

    def request(self, url: str, method: str = "GET") -> HttpMessage:
        """Send a request through the handler and return the response from the outbox."""
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
            body=b"",
        )
        self.http_handler.handle(incoming)
        self.assert_quantity_in_outbox(1)
        response = self.outbox_message(HttpMessage)
        assert response.performative == HttpMessage.Performative.RESPONSE
        return response

    def test_serves_the_published_catalogue(self) -> None:
        """With a catalogue in shared_state the handler serves it as JSON."""
        self.skill.skill_context.shared_state[SHARED_STATE_KEY] = CATALOGUE
        response = self.request("http://127.0.0.1:8000/tools")
        assert response.status_code == 200
        assert [t["name"] for t in json.loads(response.body)["tools"]] == [
            "a",
            "b",
            "c",
            "d",
        ]
        assert "application/json" in response.headers

    def test_unknown_path_is_404(self) -> None:
        """A path the API does not know gets a JSON 404."""
        response = self.request("http://127.0.0.1:8000/nothing")
        assert response.status_code == 404
        assert json.loads(response.body)["error"]["code"] == "unknown_path"

    def test_healthcheck_without_catalogue(self) -> None:
        """Before the first agreement the healthcheck says so with 503."""
        response = self.request("http://127.0.0.1:8000/healthcheck")
        assert response.status_code == 503
        assert json.loads(response.body)["status"] == "no_catalogue"
