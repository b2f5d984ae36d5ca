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

"""Tenure per tool definition, read from the chain and IPFS (adversarial review adv29b).

A stranger copies an honest tool (same schema: an offer; other arguments: a claim on
the name's schema) and delivers requests it paid itself. The incumbent then updates its
manifest without changing the tool: before, any update restarted its tenure, and the
stranger became the default offer and the owner of the name's arguments. Now the
server walks back through the service's ``ComplementaryMetadataUpdated`` events and the
earlier manifests (fetched from kubo and verified) and keeps the tenure; only a changed
definition restarts it. Through ``DirectSource``, what ``mcp --devnet`` reads: anvil
with the real registry and marketplace bytecode, kubo.
"""

import json
from dataclasses import replace
from typing import Any, Dict, List, Mapping, Optional, Tuple

from mech_catalogue_core.catalogue.fetching import FetchPolicy

from mech_catalogue_cli.mcp_server import tenure
from mech_catalogue_cli.mcp_server.source import DirectSource, ServedTool
from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import direct_source

TOOL = "tenure-swap"
OTHER = "tenure-quote"
PRICE = 10**15


def _tool(name: str, *arguments: str) -> Dict[str, Any]:
    return {
        "name": name,
        "description": f"{name} for the tenure tests.",
        "kwargs": [{"identifier": a, "type": "str"} for a in arguments],
    }


def _manifest(devnet: Devnet, *tools: Dict[str, Any]) -> bytes:
    _, digest = devnet.add_manifest(
        json.dumps({"name": "tenure", "tools": list(tools)}).encode()
    )
    return digest


def _set(devnet: Devnet, service: int, digest: bytes) -> int:
    """Set a service's manifest; return the block it was set at."""
    devnet.change_service_hash(service, digest)
    return int(devnet.w3.eth.block_number)


def _delivered(devnet: Devnet, mech: str, owner: str, tag: int) -> int:
    """One request to the mech, delivered by its own service; return the block."""
    devnet.deliver(mech, [devnet.request_mech(mech, bytes([tag]) * 32, owner)])
    return int(devnet.w3.eth.block_number)


def _service(devnet: Devnet, owner: str, digest: bytes) -> Tuple[int, int, str]:
    """A deployed service declaring ``digest``, with a mech: (id, declared block, mech)."""
    service = devnet.register_service(owner, deploy=True)
    declared = _set(devnet, service, digest)
    return service, declared, devnet.create_mech(service, PRICE, owner)


def _read(source: DirectSource) -> Tuple[ServedTool, Mapping[Tuple[str, str], Any]]:
    served = source.read()
    tool = next(t for t in served.tools if t.mech_tool == TOOL)
    return tool, dict(source._tenures)  # pylint: disable=protected-access


def test_an_update_beside_the_tool_keeps_the_default_and_the_schema(
    chain_snapshot: Devnet,
) -> None:
    """The incumbent adds a tool: it stays the default offer and owns the arguments.

    :param chain_snapshot: the devnet, reverted afterwards.
    """
    devnet = chain_snapshot
    owner, stranger = devnet.address("owner_2"), devnet.address("owner_3")
    honest = _manifest(devnet, _tool(TOOL, "amount"))
    service, declared, incumbent = _service(devnet, owner, honest)
    first = _delivered(devnet, incumbent, owner, 1)
    # lurkers: an exact copy (an offer) and the name with other arguments (a schema)
    _, _, copy = _service(devnet, stranger, honest)
    _delivered(devnet, copy, stranger, 2)
    other = _manifest(devnet, _tool(TOOL, "wallet_note"))
    _, _, squatter = _service(devnet, stranger, other)
    _delivered(devnet, squatter, stranger, 3)
    # the incumbent's routine update: a new tool beside the unchanged one (a manifest
    # the walk has to fetch from kubo), then it goes on delivering
    _set(devnet, service, _manifest(devnet, _tool(TOOL, "amount"), _tool(OTHER, "x")))
    _delivered(devnet, incumbent, owner, 4)

    source = direct_source(devnet)
    try:
        tool, tenures = _read(source)
    finally:
        source.close()
    assert sorted(tool.tool["inputSchema"]["properties"]) == ["amount"]
    assert [o.address for o in tool.offers][:1] == [incumbent.lower()]
    assert copy.lower() in [o.address for o in tool.offers]
    assert tool.offers[0].declared_block == declared
    assert tool.offers[0].first_delivery_block == first
    meta = tool.tool["_meta"]["io.olas/mech-tool"]
    assert len(meta["conflicting_mechs"]) == 1
    assert tenures[(squatter.lower(), TOOL)].declared_block is not None
    assert (
        tenures[(incumbent.lower(), OTHER)].declared_block > declared
    )  # the new tool: new


def test_a_changed_definition_starts_the_tenure_again(chain_snapshot: Devnet) -> None:
    """The tool changes (one argument more): its tenure restarts; the other tool's not.

    :param chain_snapshot: the devnet, reverted afterwards.
    """
    devnet = chain_snapshot
    owner = devnet.address("owner_2")
    first = _manifest(devnet, _tool(TOOL, "amount"), _tool(OTHER, "x"))
    service, declared, incumbent = _service(devnet, owner, first)
    _delivered(devnet, incumbent, owner, 5)
    changed = _manifest(devnet, _tool(TOOL, "amount", "slippage"), _tool(OTHER, "x"))
    changed_at = _set(devnet, service, changed)
    delivered_after = _delivered(devnet, incumbent, owner, 6)

    source = direct_source(devnet)
    try:
        _, tenures = _read(source)
    finally:
        source.close()
    assert tenures[(incumbent.lower(), TOOL)].declared_block == changed_at
    assert tenures[(incumbent.lower(), TOOL)].first_delivery_block == delivered_after
    assert tenures[(incumbent.lower(), OTHER)].declared_block == declared


def _fast_source(devnet: Devnet) -> DirectSource:
    """A direct read whose fetches give up at once (a missing CID hangs kubo's gateway)."""
    probe = direct_source(devnet)
    config, market = probe.config, probe.marketplace
    probe.close()
    return DirectSource(
        replace(config, fetch_timeout=2.0, policy=FetchPolicy(retries=0)), market
    )


def test_an_unfetchable_earlier_manifest_ends_the_walk_and_is_asked_again_later(
    chain_snapshot: Devnet,
) -> None:
    """A manifest between two settings of the current one cannot be fetched.

    The tenure starts after it (as before this rule), the read goes on, and the
    manifest is asked for again only after ``RETRY_UNREADABLE_SECONDS``.

    :param chain_snapshot: the devnet, reverted afterwards.
    """
    devnet = chain_snapshot
    owner = devnet.address("owner_2")
    honest = _manifest(devnet, _tool(TOOL, "amount"))
    service, _, incumbent = _service(devnet, owner, honest)
    _set(devnet, service, b"\x5e" * 32)  # no such content on IPFS
    again = _set(devnet, service, honest)

    source = _fast_source(devnet)
    asked: List[Mapping[str, Any]] = []
    fetch = source.tenure.definitions_of
    assert fetch is not None

    def counted(wanted: Mapping[str, Any]) -> Mapping[str, Optional[Mapping[str, str]]]:
        asked.append(wanted)
        return fetch(wanted)

    source.tenure.definitions_of = counted
    now = [1_000.0]
    source.tenure.clock = lambda: now[0]
    try:
        assert _read(source)[1][(incumbent.lower(), TOOL)].declared_block == again
        assert len(asked) == 1 and "0x" + "5e" * 32 in asked[0]
        assert _read(source)[1][(incumbent.lower(), TOOL)].declared_block == again
        assert len(asked) == 1  # within the retry delay: not asked again
        now[0] += tenure.RETRY_UNREADABLE_SECONDS
        assert _read(source)[1][(incumbent.lower(), TOOL)].declared_block == again
        assert len(asked) == 2
    finally:
        source.close()


def test_a_tenure_reaches_back_at_most_max_declarations_updates(
    chain_snapshot: Devnet,
) -> None:
    """The same manifest set 40 times: declared at the oldest of the last 32 updates.

    :param chain_snapshot: the devnet, reverted afterwards.
    """
    devnet = chain_snapshot
    owner = devnet.address("owner_2")
    honest = _manifest(devnet, _tool(TOOL, "amount"))
    service, declared, incumbent = _service(devnet, owner, honest)
    blocks = [declared] + [_set(devnet, service, honest) for _ in range(39)]

    source = direct_source(devnet)
    try:
        _, tenures = _read(source)
    finally:
        source.close()
    assert tenures[(incumbent.lower(), TOOL)].declared_block == (
        blocks[-tenure.MAX_DECLARATIONS]
    )
