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

"""One-line breakages the suite must notice (issue 18), each pinned by a test named after it.

Pure domain code, driven through its public entry points: the HTTP routing function
(``mech_catalogue_core/http_api.route``) and the period's catalogue refresh
(``mech_catalogue_core/fetching.refresh_catalogue``). The behaviour-level guards are in
``tests/test_fetch_behaviour_guards.py``; the publisher's "refused before the upload" in
``tests/devnet/test_publish_bad_cases.py::test_non_owner_key_is_refused``.
"""

import base64
import hashlib
import json
from typing import Any, Optional, Tuple

import pytest
from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.catalogue.fetching import (
    FETCH_FAILED,
    KEPT_LAST_GOOD,
    FetchResult,
    refresh_catalogue,
)
from mech_catalogue_core.chain.registry import (
    READ_CALL_FAILED,
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.http_api.routes import (
    CatalogueView,
    route,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    STATUS_UNAVAILABLE,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.tool import MechRef

REGISTRY = "0x" + "aa" * 20
NOW = 1_000_000.0


def ref(mech_id: int) -> MechRef:
    """A legacy-registry mech.

    :param mech_id: the id.
    :return: its ref.
    """
    return MechRef(100, "legacy_mech_registry", REGISTRY, mech_id)


def parse(data: bytes):
    """Parse as the skill does.

    :param data: manifest bytes.
    :return: (manifest, problems).
    """
    result = parse_manifest(data)
    return result.manifest, result.problems


def manifest(*tools: Any) -> bytes:
    """A manifest with these tools (anything JSON: a non-string makes it invalid).

    :param tools: the tools.
    :return: its bytes.
    """
    return json.dumps({"name": "m", "tools": list(tools)}).encode()


def raw_digest(data: bytes) -> str:
    """The raw-block digest of bytes.

    :param data: bytes.
    :return: ``0x`` hex.
    """
    return "0x" + hashlib.sha256(data).hexdigest()


def build(block: int, entries, fetched, previous: Optional[Catalogue] = None):
    """One period's refresh.

    :param block: the snapshot block.
    :param entries: the snapshot's reads.
    :param fetched: digest -> fetch result.
    :param previous: the agreed catalogue of the period before.
    :return: the catalogue.
    """
    return refresh_catalogue(
        RegistrySnapshot.build(block, entries), fetched, parse, previous
    )


def codes(mech: Optional[Mech]) -> Tuple[str, ...]:
    """Problem codes of an entry that must exist.

    :param mech: the entry.
    :return: its codes.
    """
    assert mech is not None
    return tuple(p.code for p in mech.problems)


# --- GET /tools: collision only where two mechs offer one name ---------------------------


def catalogue_of_offers() -> ExposedCatalogue:
    """Mech 1 offers a, b; mech 2 offers a, c; mech 3 offers d: only 'a' is shared.

    :return: the exposed catalogue.
    """
    first = {
        "1": manifest("b", "a"),
        "2": manifest("a", "c"),
        "3": manifest("d"),
    }
    reads = [DigestRead(ref(int(k)), raw_digest(v)) for k, v in first.items()]
    fetched = {
        raw_digest(v): FetchResult.ok(raw_digest(v), f"bafk{k}", v)
        for k, v in first.items()
    }
    catalogue = build(20, reads, fetched)
    return ExposedCatalogue(catalogue, catalogue.digest(), "ab" * 32, 20, NOW, 1)


def get(url: str, exposed: Optional[ExposedCatalogue], page_size: int = 50):
    """GET through the public router.

    :param url: path and query.
    :param exposed: the catalogue.
    :param page_size: tools per page.
    :return: (status, body).
    """
    view = None if exposed is None else CatalogueView.build(exposed)
    result = route("GET", url, b"", view, NOW, page_size, 3600.0)
    return result.status_code, json.loads(result.body)


def test_tools_collision_is_true_only_for_shared_names() -> None:
    """docs/skill-contract.md: `collision` is set when more than one mech offers the name, false for the rest."""
    exposed = catalogue_of_offers()
    status, body = get("/tools", exposed)
    assert status == 200
    collisions = {
        tool["name"]: tool["_meta"]["io.olas/mech-tool"]["collision"]
        for tool in body["tools"]
    }
    assert collisions == {"a": True, "b": False, "c": False, "d": False}
    for name, shared in collisions.items():
        _, detail = get(f"/tools/{name}", exposed)
        assert detail["collision"] is shared
        assert len(detail["offers"]) == (2 if shared else 1)


def _typed(name: str, *arguments: Tuple[str, str]) -> dict:
    return {
        "name": name,
        "kwargs": [{"identifier": i, "type": t} for i, t in arguments],
    }


def test_a_name_squatted_with_other_arguments_is_flagged_and_not_sent_there() -> None:
    """A stranger's offer of a name with other arguments is flagged, never a target.

    Mech 2 registers mech 1's tool name with other arguments: `/tools` serves mech 1's
    schema, names only the mechs taking those arguments in `schema_mechs` (mech 1 and mech
    3, which agrees) and sets `conflicting_schemas`; `/tools/<name>` marks each offer.
    """
    honest = _typed("swap", ("sender", "hexAddress"), ("amount", "int"))
    first = {
        "1": manifest(honest),
        "2": manifest(_typed("swap", ("recipient", "hexAddress"))),
        "3": manifest(honest, _typed("quote", ("amount", "int"))),
    }
    reads = [DigestRead(ref(int(k)), raw_digest(v)) for k, v in first.items()]
    fetched = {
        raw_digest(v): FetchResult.ok(raw_digest(v), f"bafk{k}", v)
        for k, v in first.items()
    }
    catalogue = build(20, reads, fetched)
    exposed = ExposedCatalogue(catalogue, catalogue.digest(), "ab" * 32, 20, NOW, 1)
    _, body = get("/tools", exposed)
    meta = {t["name"]: t["_meta"]["io.olas/mech-tool"] for t in body["tools"]}
    keys = {k: ref(int(k)).key for k in first}
    served = next(t for t in body["tools"] if t["name"] == "swap")
    assert sorted(served["inputSchema"]["properties"]) == ["amount", "sender"]
    assert meta["swap"]["mechs"] == [keys["1"], keys["2"], keys["3"]]
    assert meta["swap"]["schema_mechs"] == [keys["1"], keys["3"]]
    assert meta["swap"]["conflicting_schemas"] is True
    assert meta["quote"]["schema_mechs"] == [keys["3"]]
    assert meta["quote"]["conflicting_schemas"] is False
    _, detail = get("/tools/swap", exposed)
    assert [o["same_as_served"] for o in detail["offers"]] == [True, False, True]


def _b64(text: bytes) -> str:
    return base64.urlsafe_b64encode(text).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        _b64(b"offset:abc"),
        _b64(b"offset:-1"),
        _b64(b"offset:"),
        _b64(b"offset:1e3"),
        _b64(b"offset: 2"),
        _b64(b"offset:2.5"),
        _b64(b"\xff\xfe"),
        "%%%",
        "a",
    ],
    ids=[
        "letters",
        "negative",
        "empty",
        "exponent",
        "space",
        "decimal",
        "not-utf8",
        "not-base64",
        "one-char",
    ],
)
def test_crafted_cursor_is_a_4xx_not_a_crash(cursor: str) -> None:
    """A cursor the API did not issue is answered 4xx with an error body; the router never raises."""
    status, body = get(f"/tools?cursor={cursor}", catalogue_of_offers(), page_size=1)
    assert 400 <= status < 500, body
    assert body["error"]["code"] and body["error"]["message"]


def test_issued_cursor_pages_through_every_tool() -> None:
    """The cursors the API issues walk every tool once (so the 4xx above is not 'every cursor fails')."""
    exposed = catalogue_of_offers()
    names, url = [], "/tools"
    for _ in range(10):
        status, body = get(url, exposed, page_size=1)
        assert status == 200
        names += [t["name"] for t in body["tools"]]
        if "nextCursor" not in body:
            break
        url = f"/tools?cursor={body['nextCursor']}"
    assert names == ["a", "b", "c", "d"]


# --- a failed fetch keeps the last good entry only when there was one ----------------------


@pytest.mark.parametrize("was", ["invalid", "unavailable", "read_failed"])
def test_failed_fetch_of_a_mech_that_was_not_ok_keeps_nothing(was: str) -> None:
    """kept_last_good only for a mech whose previous entry was ok; otherwise the failure shows as is."""
    bad, gone = manifest(3), b"never served"
    d_bad, d_gone = raw_digest(bad), raw_digest(gone)
    first_reads = {
        "invalid": DigestRead(ref(1), d_bad),
        "unavailable": DigestRead(ref(1), d_gone),
        "read_failed": DigestRead(ref(1), "", READ_CALL_FAILED),
    }
    failed = FetchResult.unavailable(d_gone, ["bafkgone"], "HTTP 502")
    first = build(
        10,
        [first_reads[was]],
        {d_bad: FetchResult.ok(d_bad, "bafkbad", bad), d_gone: failed},
    )
    assert first.mech(ref(1)).status != STATUS_OK  # type: ignore[union-attr]
    second = build(20, [DigestRead(ref(1), d_gone)], {d_gone: failed}, first)
    entry = second.mech(ref(1))
    assert entry is not None and entry.status == STATUS_UNAVAILABLE
    assert FETCH_FAILED in codes(entry) and KEPT_LAST_GOOD not in codes(entry)
    assert entry.digest == d_gone and entry.observed_block == 20 and not entry.tools


def test_failed_fetch_of_a_mech_that_was_ok_keeps_its_tools() -> None:
    """The counterpart: an ok mech whose new manifest cannot be fetched keeps its tools, marked."""
    good, gone = manifest("a"), b"never served"
    d_good, d_gone = raw_digest(good), raw_digest(gone)
    first = build(
        10, [DigestRead(ref(1), d_good)], {d_good: FetchResult.ok(d_good, "g", good)}
    )
    failed = FetchResult.unavailable(d_gone, ["bafkgone"], "HTTP 502")
    entry = build(20, [DigestRead(ref(1), d_gone)], {d_gone: failed}, first).mech(
        ref(1)
    )
    assert entry is not None and entry.status == STATUS_OK
    assert [t.name for t in entry.tools] == ["a"] and entry.digest == d_good
    assert {FETCH_FAILED, KEPT_LAST_GOOD} <= set(codes(entry))


# --- the answers docs/skill-contract.md "HTTP" describes, field by field -----------------


def test_mechs_lists_every_field_the_contract_names() -> None:
    """GET /mechs: ref, key, status, digest, CID, observed block, stale, tools, withheld, problems, marketplace, in_views."""
    exposed = catalogue_of_offers()
    status, body = get("/mechs", exposed)
    assert status == 200
    first = body["mechs"][0]
    mech = exposed.catalogue.mechs[0]
    assert first == {
        "ref": mech.ref.to_dict(),
        "key": mech.ref.key,
        "status": STATUS_OK,
        "digest": mech.digest,
        "cid": "bafk1",
        "observed_block": 20,
        "stale": False,
        "tools": ["b", "a"],  # the manifest's order
        "withheld": [],
        "problems": [],
        "marketplace": [],  # no marketplace facts read for this catalogue
        "in_views": True,
    }
    assert get("/mechs", None)[0] == 503  # not ready: no catalogue agreed yet


def test_healthcheck_fields_and_freshness_boundary() -> None:
    """GET /healthcheck: fresh (200) up to exactly max age, stale (503) past it; every counter named."""
    exposed = catalogue_of_offers()  # agreed at NOW
    view = CatalogueView.build(exposed)
    fresh = route("GET", "/healthcheck", b"", view, NOW + 60, 50, 60.0)
    assert fresh.status_code == 200
    assert json.loads(fresh.body) == {
        "status": "fresh",
        "age_seconds": 60.0,
        "max_age_seconds": 60.0,
        "catalogue_digest": exposed.catalogue_digest,
        "snapshot_digest": "ab" * 32,
        "block_number": 20,
        "period": 1,
        "mechs": 3,
        "tools": 4,
        "stale_mechs": 0,
        "errors": 0,
        "collisions": 1,
    }
    stale = route("GET", "/healthcheck", b"", view, NOW + 61, 50, 60.0)
    assert stale.status_code == 503
    assert json.loads(stale.body)["status"] == "stale"
    none = route("GET", "/healthcheck", b"", None, NOW, 50, 60.0)
    assert none.status_code == 503
    assert json.loads(none.body) == {
        "status": "no_catalogue",
        "max_age_seconds": 60.0,
    }


def test_tool_detail_fields_and_unknown_tool() -> None:
    """GET /tools/<name>: name, collision, the MCP Tool and each offer; 404 unknown_tool naming it."""
    exposed = catalogue_of_offers()
    status, body = get("/tools/b", exposed)
    assert status == 200 and set(body) == {
        "name",
        "collision",
        "offer_count",
        "mcp",
        "offers",
    }
    assert body["offer_count"] == 1
    assert body["name"] == "b" and body["mcp"]["name"] == "b"
    (offer,) = body["offers"]
    tool = exposed.catalogue.tools_named("b")[0]
    assert offer == {
        "mech": ref(1).to_dict(),
        "tool": tool.to_dict(),
        "same_as_served": True,
        "marketplace": [],
    }
    status, body = get("/tools/zzz", exposed)
    assert status == 404 and body["error"] == {
        "code": "unknown_tool",
        "message": "no mech in the catalogue offers a tool named 'zzz'; see GET /tools",
    }


def test_a_names_offers_are_paged_in_ref_order() -> None:
    """GET /tools/<name>?cursor=c: page_size offers a page, every offer once, then 400.

    Anyone can register a name, so one tool's offers are unbounded; the pages keep each
    answer O(page size). Seven mechs offer 'x' (and mech 3 also 'y').
    """
    data = {i: manifest("x", "y") if i == 3 else manifest("x") for i in range(1, 8)}
    reads = [DigestRead(ref(i), raw_digest(v)) for i, v in data.items()]
    fetched = {
        raw_digest(v): FetchResult.ok(raw_digest(v), f"bafk{i}", v)
        for i, v in data.items()
    }
    catalogue = build(20, reads, fetched)
    exposed = ExposedCatalogue(catalogue, catalogue.digest(), "ab" * 32, 20, NOW, 1)
    seen, cursor, pages = [], None, 0
    while True:
        url = "/tools/x" + ("" if cursor is None else f"?cursor={cursor}")
        status, body = get(url, exposed, page_size=3)
        assert status == 200 and body["offer_count"] == 7 and len(body["offers"]) <= 3
        assert body["mcp"]["name"] == "x" and body["collision"] is True
        seen += [offer["mech"]["mech_id"] for offer in body["offers"]]
        pages += 1
        cursor = body.get("nextCursor")
        if cursor is None:
            break
    assert seen == list(range(1, 8)) and pages == 3
    status, body = get("/tools/y", exposed, page_size=3)
    assert "nextCursor" not in body and len(body["offers"]) == 1
    for past in ("7", "8", "999999999"):
        status, body = get(f"/tools/x?cursor={past}", exposed, page_size=3)
        assert status == 400 and body["error"]["code"] == "invalid_cursor"
    for bad in ("cursor=-1", "cursor=a", "cursor=1&cursor=2", "kind=chat", "page=2"):
        status, body = get(f"/tools/x?{bad}", exposed, page_size=3)
        assert status == 400, bad


def test_issued_cursors_are_unpadded_base64url() -> None:
    """Cursors travel in a query string: URL-safe base64 without '=' padding."""
    exposed = catalogue_of_offers()
    _, body = get("/tools", exposed, page_size=1)
    cursor = body["nextCursor"]
    assert "=" not in cursor and set(cursor) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    )


def test_tools_exports_mcp_safe_unique_names() -> None:
    """A tool name MCP does not allow is exported sanitised and made unique; safe names stay as they are."""
    data = manifest("my tool!", "my_tool_", "ok")
    digest = raw_digest(data)
    catalogue = build(
        20, [DigestRead(ref(1), digest)], {digest: FetchResult.ok(digest, "c", data)}
    )
    exposed = ExposedCatalogue(catalogue, catalogue.digest(), "ab" * 32, 20, NOW, 1)
    _, body = get("/tools", exposed)
    names = [tool["name"] for tool in body["tools"]]
    assert "my_tool_" in names and "ok" in names and "my tool!" not in names
    assert len(set(names)) == 3
    assert all(name.replace("_", "").replace("-", "").isalnum() for name in names)


def test_other_methods_are_405_with_allow_get() -> None:
    """POST to an API path: 405 method_not_allowed, and the Allow header names GET."""
    view = CatalogueView.build(catalogue_of_offers())
    result = route("POST", "/tools", b"", view, NOW, 50, 3600.0)
    assert result.status_code == 405
    assert json.loads(result.body)["error"]["code"] == "method_not_allowed"
    assert "Allow: GET" in result.headers


def test_paths_are_matched_exactly() -> None:
    """Only the documented paths: a trailing slash and look-alikes are 404 unknown_path."""
    view = CatalogueView.build(catalogue_of_offers())
    for other in ("/tools/", "/mechsX", "/tools2", "/healthcheckX", "//tools", "//"):
        result = route("GET", other, b"", view, NOW, 50, 3600.0)
        assert result.status_code == 404, other
        assert json.loads(result.body)["error"]["code"] == "unknown_path", other
