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

"""adv29zp C4 on the devnet: an unmined request older than the window frees the cap.

The reproduction without a chain, the severity and what is expected:
``test_adv29zp_unmined_request_ages_out.py``. Here through the MCP SDK's client over
stdio, on the devnet (anvil with the marketplace's real bytecode): ``--max-spend`` one
price, ``--spend-window 6`` (seconds: the same rule as 24 h, in a test's time),
automine off so that call A's request waits unmined (as a base fee over
``--max-fee-per-gas`` keeps it). Seven seconds later call B is signed and broadcast
too; once blocks are mined both requests are on chain: two prices paid within seconds
under a cap of one.

Observed on main 3f9bf80e: call B "was signed and journalled before its broadcast"
(not refused), and the marketplace nonce moved by two once mined.
"""

import time
from pathlib import Path
from typing import Any, Dict

import anyio
import pytest

from scripts.devnet import Devnet
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.adversary.test_mcp_unseen_revert import _rpc
from tests.devnet.mcp_helpers import market_nonce, price_of, stdio_client
from tests.devnet.test_mcp_server import TOOL

pytestmark = pytest.mark.devnet

WINDOW_S = 6


def test_an_unmined_request_keeps_counting_past_the_window_devnet(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Cap one price: call B is refused while call A's request waits unmined."""
    devnet = chain_snapshot
    chosen, _, _ = _paid_mechs(devnet)
    price = price_of(devnet, chosen)
    nonce = market_nonce(devnet)
    out: Dict[str, Any] = {}

    async def main() -> None:
        async with stdio_client(
            devnet,
            tmp_path,
            "--mech",
            chosen,
            "--max-spend",
            str(price),
            "--spend-window",
            str(WINDOW_S),
            "--timeout",
            "4",
            "--io-timeout",
            "2",
        ) as client:
            await client.list_tools()
            _rpc(devnet, "evm_setAutomine", False)
            try:
                out["a"] = await client.call_tool(TOOL, {"prompt": "adv29zp C4 a"})
                time.sleep(WINDOW_S + 1)
                out["b"] = await client.call_tool(TOOL, {"prompt": "adv29zp C4 b"})
            finally:
                _rpc(devnet, "evm_setAutomine", True)
                _rpc(devnet, "evm_mine")

    anyio.run(main)
    first = str(out["a"].content[0].text)
    assert "not mined within" in first, first[:400]  # premise: A waits unmined
    second = str(out["b"].content[0].text)
    paid = market_nonce(devnet) - nonce
    assert paid <= 1 and "over --max-spend" in second, (
        f"{paid} requests paid under --max-spend {price} wei (one price); call B "
        f"said: {second[:300]}"
    )
