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

"""Typed tool metadata stored in the ways of issue #12, from the chain to what callers read.

On the session devnet (anvil with our legacy mech registry and Multicall2, kubo): a mech
is registered whose manifest is registry NFT metadata with the typed tools as JSON in its
``description``, another whose ``tools`` hold typed tool objects. The reads, fetches and
catalogue are driven by the same domain code as the skill's behaviours
(:mod:`tests.test_tool_metadata_devnet`), and ``GET /tools`` is answered by the same
route function the agent's HTTP handler calls; only the transports differ (web3 and
urllib instead of the agent's connections; tests/e2e run the agent process itself).
Chain changes are rolled back after each test (``chain_snapshot``).
"""

import json
from typing import Any, Dict, Tuple

import pytest
from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.catalogue.fetching import (
    ManifestCache,
    refresh_catalogue,
)
from mech_catalogue_core.catalogue.views import (
    mech_tools_view,
)
from mech_catalogue_core.http_api.routes import (
    CatalogueView,
    route,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_INVALID,
    STATUS_OK,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.tool import (
    SHAPE_DESCRIPTION_JSON,
    SHAPE_KWARGS,
)

from packages.mech_catalogue.skills.tool_metadata_abci.tests.test_reads_and_fetch_policy import (
    entry,
)

from tests.test_tool_metadata_devnet import fetch, parse, read_snapshot, sources_of

SELL: Dict[str, Any] = {
    "name": "storage-ways-sell",  # unique: the seed already has a sell-tx-omen
    "kind": "prediction",
    "kwargs": [
        {"identifier": "sender", "type": "hexAddress", "description": "the seller"},
        {"identifier": "amount", "type": "int", "required": False, "default": 1},
    ],
}
#: registry NFT metadata whose description holds the typed tools as JSON
NFT_METADATA = {
    "name": "storage-ways description mech",
    "description": "Sells outcome tokens on Omen. " + json.dumps({"tools": [SELL]}),
    "code_uri": "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
    "image": "ipfs://bafybeihashofanimage",
    "attributes": [{"trait_type": "version", "value": "0.1.0"}],
}
#: the typed tool objects in `tools`
TYPED_TOOLS = {
    "name": "storage-ways typed mech",
    "description": "Sells outcome tokens on Omen.",
    "tools": [SELL],
}
EXPECTED_ARGUMENTS = [
    ("sender", "hexAddress", True, "the seller"),
    ("amount", "int", False, ""),
]


def _register(devnet: Any, document: Dict[str, Any]) -> Tuple[int, str, str]:
    cid, digest = devnet.add_manifest(json.dumps(document).encode())
    mech_id = devnet.register_legacy_mech(devnet.address("owner_1"), digest)
    return mech_id, cid, "0x" + digest.hex()


def _tools_page(catalogue: Catalogue) -> Dict[str, Any]:
    published = ExposedCatalogue(catalogue, catalogue.digest(), "", 0, 0.0, 1)
    response = route(
        "GET",
        "/tools?kind=prediction",
        b"",
        CatalogueView.build(published),
        0.0,
        100,
        60.0,
    )
    assert response.status_code == 200, response.body
    return json.loads(response.body)


@pytest.mark.parametrize(
    "document, shape",
    [(NFT_METADATA, SHAPE_DESCRIPTION_JSON), (TYPED_TOOLS, SHAPE_KWARGS)],
    ids=["description-json", "typed-tool-objects"],
)
def test_typed_tools_from_the_chain_to_get_tools(  # pylint: disable=too-many-locals
    chain_snapshot: Any, document: Dict[str, Any], shape: str
) -> None:
    """Registry -> kubo -> catalogue -> GET /tools: typed arguments with provenance.

    A second period fetches nothing for the unchanged CID and agrees on the same digest.

    :param chain_snapshot: the session devnet, rolled back after the test.
    :param document: the manifest registered.
    :param shape: the provenance shape its tools must carry.
    """
    devnet = chain_snapshot
    mech_id, cid, digest = _register(devnet, document)
    sources = sources_of(devnet)
    legacy = next(s for s in sources if s.kind == "legacy_mech_registry")
    snapshot, _ = read_snapshot(devnet, sources)
    cache = ManifestCache()
    results, cold_gets = fetch(devnet, snapshot, cache)
    catalogue = refresh_catalogue(snapshot, results, parse)

    mech: Mech = entry(catalogue, legacy.ref(mech_id))
    assert mech.status == STATUS_OK and mech.cid == cid and mech.digest == digest
    (tool,) = mech.tools
    assert tool.name == "storage-ways-sell" and tool.kind == "prediction"
    assert [
        (a.identifier, a.type, a.required, a.description) for a in tool.arguments
    ] == EXPECTED_ARGUMENTS
    assert tool.provenance.shape == shape
    assert (tool.provenance.cid, tool.provenance.digest) == (cid, digest)
    assert tool.provenance.mech == legacy.ref(mech_id)
    assert "storage-ways-sell" in mech_tools_view(catalogue)
    if shape == SHAPE_DESCRIPTION_JSON:
        assert mech.description == "Sells outcome tokens on Omen."
        assert mech.extra["code_uri"] == NFT_METADATA["code_uri"]

    page = _tools_page(catalogue)
    (listed,) = [t for t in page["tools"] if t["name"] == "storage-ways-sell"]
    assert listed["inputSchema"]["required"] == ["sender"]
    assert listed["inputSchema"]["properties"]["amount"] == {
        "type": "integer",
        "default": 1,
    }
    meta = listed["_meta"]["io.olas/mech-tool"]
    assert meta["kind"] == "prediction"
    assert meta["provenance"]["shape"] == shape and meta["provenance"]["cid"] == cid
    assert legacy.ref(mech_id).key in meta["mechs"]

    warm_snapshot, _ = read_snapshot(devnet, sources)
    warm_results, warm_gets = fetch(devnet, warm_snapshot, cache)
    assert cold_gets >= 1 and warm_gets == 0  # the CID did not change: no IPFS request
    again = refresh_catalogue(warm_snapshot, warm_results, parse, catalogue)
    assert again.digest() == catalogue.digest()


def test_description_json_tool_with_an_error_is_withheld_from_the_chain(
    chain_snapshot: Any,
) -> None:
    """A described tool declaring `amount` twice is not offered; /mechs shows why.

    Its mech has no other tool, so it is quarantined (status invalid) like any manifest
    without a usable tool, and still names the withheld tool.

    :param chain_snapshot: the session devnet, rolled back after the test.
    """
    devnet = chain_snapshot
    clash = {
        **SELL,
        "kwargs": [*SELL["kwargs"], {"identifier": "amount", "type": "str"}],
    }
    document = {**NFT_METADATA, "description": json.dumps(clash)}
    mech_id, _, _ = _register(devnet, document)
    sources = sources_of(devnet)
    legacy = next(s for s in sources if s.kind == "legacy_mech_registry")
    snapshot, _ = read_snapshot(devnet, sources)
    results, _ = fetch(devnet, snapshot, ManifestCache())
    catalogue = refresh_catalogue(snapshot, results, parse)
    mech = entry(catalogue, legacy.ref(mech_id))
    assert mech.tools == () and mech.withheld == ("storage-ways-sell",)
    assert mech.status == STATUS_INVALID
    assert "storage-ways-sell" not in mech_tools_view(catalogue)
    assert not [
        t for t in _tools_page(catalogue)["tools"] if t["name"] == "storage-ways-sell"
    ]
    published = ExposedCatalogue(catalogue, catalogue.digest(), "", 0, 0.0, 1)
    response = route(
        "GET", "/mechs", b"", CatalogueView.build(published), 0.0, 100, 60.0
    )
    (shown,) = [
        m
        for m in json.loads(response.body)["mechs"]
        if m["key"] == legacy.ref(mech_id).key
    ]
    assert shown["withheld"] == ["storage-ways-sell"]
    assert {p["code"] for p in shown["problems"]} >= {
        "duplicate_argument",
        "tool_withheld",
    }
    paths = {p["path"] for p in shown["problems"] if p["code"] == "duplicate_argument"}
    assert paths == {"/description/kwargs/2"}
