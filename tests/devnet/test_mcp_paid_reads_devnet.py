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

"""Re-reads of a dripped delivery at the default --io-timeout share one read (devnet).

The MCP SDK's client over stdio, the server with its default ``--io-timeout`` (30 s):
the paid call's response is dripped by the gateway (adv29q's :class:`DrippingGateway`),
and the agent gives up on each call after 0.5 s and calls again, 45 times (anyio's
default pool has 40 threads). Before, each re-read started a read of its own in that
pool and ``tools/list`` stopped answering after 40; now one read per request is in
flight, on threads of the paid path's own (``mcp_server/paid_reads.py``).
"""

import time
from pathlib import Path
from typing import Any, Dict

import anyio

from scripts.devnet import Devnet
from tests.adversary.test_adv29q_dripped_delivery_devnet import (
    DrippingGateway,
    devnet_dir_with_gateway,
)
from tests.devnet.mcp_helpers import market_nonce, responder, stdio_client
from tests.devnet.test_mcp_server import TOOL

#: re-reads, each given up after GIVE_UP s: all within one --io-timeout (30 s)
RE_READS, GIVE_UP = 45, 0.5
#: how long tools/list may take after them
LIST_BOUND = 5.0


def test_re_reads_at_the_default_io_timeout_share_one_read(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """45 given-up re-reads within 30 s: one dripped GET, tools/list prompt throughout.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    gateway = DrippingGateway(devnet.info.ipfs_gateway_url)
    dripping = devnet_dir_with_gateway(devnet, tmp_path / "dripping", gateway.url)
    state = tmp_path / "state"
    state.mkdir()
    options = ["--poll", "3600", "--devnet-dir", str(dripping)]
    arguments = {"prompt": "Shared read?", "temperature": 0.5}
    nonce = market_nonce(devnet)
    seen: Dict[str, Any] = {"lists": []}

    async def main() -> None:
        async with stdio_client(devnet, state, *options) as client:
            await client.list_tools()
            gateway.armed.set()
            with anyio.move_on_after(8):  # paid, delivered, read dripping
                await client.call_tool(TOOL, arguments)
            began_reads = time.monotonic()
            for attempt in range(1, RE_READS + 1):
                with anyio.move_on_after(GIVE_UP):
                    await client.call_tool(TOOL, arguments)
                if attempt % 15 == 0:
                    began = time.monotonic()
                    with anyio.move_on_after(6 * LIST_BOUND):
                        await client.list_tools()
                    seen["lists"].append((attempt, round(time.monotonic() - began, 3)))
            seen["re-read seconds"] = round(time.monotonic() - began_reads, 1)
            seen["dripped"] = list(gateway.dripped)
            gateway.stop.set()  # the read in flight ends; the server can stop

    with gateway.running(), responder(devnet):
        anyio.run(main)
    observed = (
        f"tools/list seconds after (re-reads, seconds) {seen['lists']}; dripped GETs "
        f"{seen.get('dripped')} over {seen.get('re-read seconds')} s; market nonce "
        f"{nonce} -> {market_nonce(devnet)}"
    )
    assert market_nonce(devnet) == nonce + 1, observed  # premise: paid once
    assert seen["dripped"], observed  # premise: the delivery was read through the drip
    # before: a GET per re-read (40 in flight, the pool full, tools/list stalled)
    assert len(seen["dripped"]) <= 2, observed
    assert len(seen["lists"]) == RE_READS // 15, observed
    for _, seconds in seen["lists"]:
        assert seconds < LIST_BOUND, observed
