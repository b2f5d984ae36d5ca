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

"""Issue #29, attack 8: a paid answer is read behind an RPC capping ``eth_getLogs`` ranges.

The session devnet behind ``scripts/loopback_proxy.py`` with ``max_log_range`` and
``tags_are_head`` (``latest`` counts as the head, as hosted providers judge it), the MCP
server launched by the SDK's own client with ``--rpc`` pointing at the proxy. Blocks are
mined between the request, its delivery and the read, so the range from the request to
the head is wider than the cap. Before the fix the server read ``Deliver`` logs from the
request's block to ``latest`` in one query: refused on every retry, the more so the
longer one waited.
"""

import math
from pathlib import Path
from typing import Any, Iterator

import anyio
import pytest
from mech_catalogue_core.exporters.js_integers import integers_as_text
from web3.types import RPCEndpoint

from mech_catalogue_cli.mcp_server.market import MarketError, Marketplace
from scripts.devnet import Devnet
from scripts.devnet.responder import Responder
from scripts.loopback_proxy import LoopbackProxy
from tests.answer_shape import answer_of
from tests.devnet.mcp_helpers import market_nonce, stdio_client
from tests.devnet.test_mcp_server import TOOL

REQUEST_META = "io.olas/mech-request"
#: a hosted provider's words (``rpc_limits.RANGE_TOO_WIDE`` reads them)
REFUSAL = "range {width} exceeds limit of {limit}"


@pytest.fixture
def proxy(chain_snapshot: Devnet) -> Iterator[LoopbackProxy]:
    """A proxy in front of the session devnet's anvil, the chain reverted afterwards.

    :param chain_snapshot: the devnet.
    :yield: the proxy.
    """
    with LoopbackProxy(chain_snapshot.info.rpc_url) as rpc:
        yield rpc


def _call(devnet: Devnet, state: Path, rpc: str, *extra: str) -> Any:
    async def main() -> Any:
        async with stdio_client(devnet, state, "--rpc", rpc, *extra) as client:
            return await client.call_tool(TOOL, {"prompt": "read behind a capped RPC"})

    return anyio.run(main)


def _mine(devnet: Devnet, blocks: int) -> None:
    devnet.w3.provider.make_request(RPCEndpoint("anvil_mine"), [hex(blocks)])


@pytest.mark.parametrize("cap", [100, 7])
def test_a_delivery_is_read_in_halves_behind_a_capped_rpc(
    chain_snapshot: Devnet, proxy: LoopbackProxy, tmp_path: Path, cap: int
) -> None:
    """Blocks past the cap between request and read: the answer, halvings counted, one payment."""
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    first = _call(devnet, tmp_path, proxy.url, "--timeout", "1")
    request_id = first.meta[REQUEST_META]["request_id"]
    _mine(devnet, 3 * cap)
    mechs = [m["address"] for m in devnet.info.mechs if m["kind"] == "marketplace"]
    with Responder(devnet.info, mechs, from_block=1, interval=0.3) as answering:
        delivery = answering.wait_for(bytes.fromhex(request_id[2:]))
    _mine(devnet, 3 * cap)  # waiting longer widens the range
    proxy.max_log_range, proxy.tags_are_head = cap, True
    proxy.log_range_refusal = REFUSAL
    proxy.reset_counters()
    result = _call(devnet, tmp_path, proxy.url, "--timeout", "30")
    assert not result.is_error, result.content[0].text[:500]
    # the 77-digit requestId as a decimal string (issue #34 item 11)
    assert answer_of(result) == integers_as_text(delivery.response)
    assert proxy.counters.faults > 0  # ranges were refused, then read in halves
    assert market_nonce(devnet) == nonce + 1


def test_a_refusal_no_range_satisfies_is_a_market_error_after_few_reads(
    chain_snapshot: Devnet, proxy: LoopbackProxy, tmp_path: Path
) -> None:
    """One block refused: MarketError in the RPC's words after a few reads (reader alone)."""
    devnet = chain_snapshot
    first = _call(devnet, tmp_path, proxy.url, "--timeout", "1")
    request_id = first.meta[REQUEST_META]["request_id"]
    mechs = [m["address"] for m in devnet.info.mechs if m["kind"] == "marketplace"]
    with Responder(devnet.info, mechs, from_block=1, interval=0.3) as answering:
        answering.wait_for(bytes.fromhex(request_id[2:]))
    market = Marketplace(
        proxy.url,
        devnet.info.contracts["MechMarketplace"],
        str(devnet.info.accounts["stranger"]["private_key"]),
    )
    proxy.max_log_range, proxy.tags_are_head = 0, True
    proxy.log_range_refusal = REFUSAL
    proxy.reset_counters()
    with pytest.raises(MarketError, match="exceeds limit of 0"):
        market.delivery(request_id, 1)
    head = devnet.w3.eth.block_number
    assert proxy.counters.rpc_methods["eth_getLogs"] <= math.ceil(math.log2(head)) + 2
