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

"""A fresh server never fetches an incumbent's manifest behind strangers' dead hashes (adv29v).

Severity: HIGH (redirects payments: on every fresh start of ``mech-catalogue mcp``, which
an MCP client does at each launch over stdio, the incumbent's tool is served by a copy
alone; the ranking is the library's, which the skill's agent uses too: not checked on
an agent here).

``fetching.fetch_ranks`` orders a period's manifest fetches so that dead digests
("anyone may register any number") cannot starve what was served: rank 0 for a digest
that had an ``ok`` entry in the previous catalogue, rank 1 for others, rank 2 for one
that failed in the previous period; then digest order. A fresh process has no previous
catalogue: every digest is rank 1, in digest order, and ``changeHash`` takes any 32
bytes. Once the period's budget (``GatewayPolicy.period_budget_seconds``, 60 s) is spent
on failures, every digest still queued fails at once (``ipfs/gateways.py``). So a
stranger registers services whose hashes nobody serves and that sort first
(``0x00ff..01``...; a public gateway holds an unprovided CID until its own timeout): at
the defaults (8 GETs at once, ``fetch_timeout`` 10 s) about 48 of them spend the
budget. The incumbent's manifest, queued after them, "fails": in the next period it is
rank 2 beside the dead hashes, again after them, and so in every period after. A copy
whose digest was ground to sort before the dead ones (a manifest field changed until
its digest starts with 0x00: about 256 tries) is fetched in the first round, ranked
0 from the next period on, and is the tool's only offer.

docs/faults.md ("Cost at scale", left open) says "a new honest mech competes with fresh
dead digests in digest order". What this adds: on a fresh start every mech is new, so
static dead hashes (no ``changeHash`` per period) starve the whole catalogue, and a
digest that was never requested counts as failed, so it stays behind them in every
later period of the process.

Observed on main f50e9323 (devnet: anvil with the real registry and marketplace bytecode, kubo behind a
loopback proxy holding the unprovided CIDs 3 s as a public gateway does, read through
``DirectSource`` as ``mcp --devnet`` reads; the budget scaled to 2 s and the fetch
timeout to 1 s, so about 16 GETs spend it; 24 dead hashes): two periods of a fresh
source; in both the tool's offers are the copy alone, the incumbent (which declared
the tool first and delivered) absent. The control (no dead hashes) serves both, the
incumbent first. At the defaults over stdio (``mech-catalogue mcp --devnet-dir ...
--ipfs-gateway <the proxy>``, the proxy holding the 56 dead CIDs 12 s; the MCP SDK's
client): the server logged "listing 1 of the catalogue's 1 tools": the copy's tool
alone, every seeded honest tool of the devnet gone too, and the call paid the copy
1e15 wei (the request's ``priorityMech`` on chain); 96 s for the test, most of it the
first read's 60 s budget.

Expected: hashes nobody serves cannot keep a live manifest from being fetched on a
fresh start (nor in any later period); the incumbent is offered, and first.
"""

import hashlib
import json
from pathlib import Path
from typing import Any, Dict, List

import anyio
from mech_catalogue_core.ipfs.cid import candidate_cids
from mech_catalogue_core.ipfs.unixfs import file_root

from mech_catalogue_cli.mcp_server.source import DirectSource
from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.adversary.test_adv29v_tenure_fetch_budget import (
    TOOL,
    _delivered,
    _scaled_source,
    _service,
)
from tests.devnet.mcp_helpers import checksum, request_info, stdio_client
from tests.devnet.test_mcp_offer_choice import REQUEST_META

#: services whose hash nobody serves (the scaled budget takes about 16 GETs)
DEAD = 24


def _copy_sorting_first() -> bytes:
    """A manifest declaring ``TOOL`` as the incumbent's does, its digest 0x00 first."""
    for nonce in range(1 << 16):
        data = _manifest_bytes(f"budget {nonce}")
        if hashlib.sha256(file_root(data, raw_leaves=False)[1]).digest()[0] == 0:
            return data
    raise AssertionError("no digest starting with 0x00 in 65,536 tries")


def _manifest_bytes(title: str) -> bytes:
    tool = {
        "name": TOOL,
        "description": f"{TOOL} for the fetch budget test.",
        "kwargs": [{"identifier": "amount", "type": "str"}],
    }
    return json.dumps({"name": title, "tools": [tool]}).encode()


def _dead(index: int) -> bytes:
    """The ``index``-th hash nobody serves: after the ground copy, before the rest."""
    return b"\x00\xff" + bytes(29) + bytes([index + 1])


def _offers_over_two_fresh_periods(devnet: Devnet, dead: int) -> List[List[str]]:
    """Set up the incumbent, the copy and ``dead`` dead hashes; read twice afresh."""
    owner, stranger = devnet.address("owner_2"), devnet.address("owner_3")
    honest = devnet.add_manifest(_manifest_bytes("budget"))[1]
    _, _, incumbent = _service(devnet, owner, honest)
    _delivered(devnet, incumbent, owner, 1)
    copy_digest = devnet.add_manifest(_copy_sorting_first())[1]
    _, _, copy = _service(devnet, stranger, copy_digest)
    _delivered(devnet, copy, stranger, 2)
    for index in range(dead):
        service = devnet.register_service(stranger, deploy=True)
        devnet.change_service_hash(service, _dead(index))
    assert copy_digest < _dead(0) and _dead(DEAD) < honest
    names: Dict[str, str] = {incumbent.lower(): "incumbent", copy.lower(): "copy"}
    with LoopbackProxy(devnet.info.ipfs_gateway_url.rstrip("/")) as gateway:
        gateway.hang_seconds = 3.0
        gateway.path_modes = {
            cid: "timeout"
            for index in range(DEAD)
            for cid in candidate_cids(_dead(index))
        }
        source: DirectSource = _scaled_source(devnet, gateway.url)
        periods = []
        try:
            for _ in range(2):
                tool = next(t for t in source.read().tools if t.mech_tool == TOOL)
                periods.append([names.get(o.address, o.address) for o in tool.offers])
        finally:
            source.close()
    return periods


def test_without_dead_hashes_a_fresh_read_offers_the_incumbent_first(
    chain_snapshot: Devnet,
) -> None:
    """Control: the scaled budget alone fetches both manifests."""
    periods = _offers_over_two_fresh_periods(chain_snapshot, 0)
    assert periods == [["incumbent", "copy"]] * 2


def test_dead_hashes_sorting_first_do_not_starve_the_incumbent(
    chain_snapshot: Devnet,
) -> None:
    """Twenty-four dead hashes between the ground copy and the incumbent's digest."""
    periods = _offers_over_two_fresh_periods(chain_snapshot, DEAD)
    # observed on main: [["copy"], ["copy"]]
    assert periods == [["incumbent", "copy"]] * 2


#: past the defaults' budget: 8 GETs at once, 10 s each, 60 s (48 requested)
DEAD_AT_DEFAULTS = 56


def test_a_fresh_server_at_the_defaults_pays_the_incumbent(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """``mcp --devnet`` over stdio, default budget and timeouts, 56 dead hashes: a call.

    The SDK's client lists the tools and calls ``TOOL`` once, pinning no mech; the
    request on chain names the mech paid.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    owner, stranger = devnet.address("owner_2"), devnet.address("owner_3")
    honest = devnet.add_manifest(_manifest_bytes("budget"))[1]
    _, _, incumbent = _service(devnet, owner, honest)
    _delivered(devnet, incumbent, owner, 1)
    copy_digest = devnet.add_manifest(_copy_sorting_first())[1]
    _, _, copy = _service(devnet, stranger, copy_digest)
    _delivered(devnet, copy, stranger, 2)
    for index in range(DEAD_AT_DEFAULTS):
        service = devnet.register_service(stranger, deploy=True)
        devnet.change_service_hash(service, _dead(index))

    async def main() -> Any:
        async with stdio_client(
            devnet, tmp_path, "--ipfs-gateway", gateway.url, "--timeout", "2"
        ) as client:
            # a first read past --start-wait is served empty, then announced: list again
            names: List[str] = []
            for _ in range(90):
                names = [tool.name for tool in (await client.list_tools()).tools]
                if TOOL in names:
                    break
                await anyio.sleep(1)
            assert TOOL in names
            return await client.call_tool(TOOL, {"amount": "1"})

    with LoopbackProxy(devnet.info.ipfs_gateway_url.rstrip("/")) as gateway:
        gateway.hang_seconds = 12.0  # a public gateway gives up later than 10 s
        gateway.path_modes = {
            cid: "timeout"
            for index in range(DEAD_AT_DEFAULTS)
            for cid in candidate_cids(_dead(index))
        }
        result = anyio.run(main)
    paid = request_info(devnet, result.meta[REQUEST_META]["request_id"])["priorityMech"]
    # observed on main: the copy
    assert paid == checksum(incumbent), f"paid {paid}; the copy is {checksum(copy)}"
