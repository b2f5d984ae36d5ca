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

"""adv29yq W1 on the devnet: one session's own spending never leaves ``--spend-window``.

Severity: LOW (see ``test_adv29yq_run_spending_never_ages``).

Observed on main f997ebd3 (devnet, the MCP SDK's client over stdio, ``--spend-window
3``, ``--max-spend`` the chosen offer's price): call A is paid; 4 s later (A outside the
window) call B, other arguments, is refused by the cap, counting A as "spent ... by this
run" (the unit reproduction shows a ledger restarted over the same journal paying it).

Expected: the session that paid A pays B too, as a restart does.
"""

from pathlib import Path
from typing import Any, Dict

import anyio

from scripts.devnet import Devnet
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.devnet.mcp_helpers import market_nonce, price_of, stdio_client
from tests.devnet.test_mcp_server import TOOL

WINDOW = 3


def test_a_session_s_own_payment_leaves_the_window(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Cap of one price, window 3 s: A paid, B paid 4 s later by the same session.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the state folder.
    """
    devnet = chain_snapshot
    chosen, _, _ = _paid_mechs(devnet)
    price = price_of(devnet, chosen)
    flags = ["--timeout", "2", "--max-spend", str(price)]
    flags += ["--spend-window", str(WINDOW)]
    nonce = market_nonce(devnet)
    seen: Dict[str, Any] = {}

    async def main() -> None:
        async with stdio_client(devnet, tmp_path, *flags) as client:
            await client.call_tool(TOOL, {"prompt": "adv29yq window A"})
            seen["a"] = market_nonce(devnet)
            await anyio.sleep(WINDOW + 1)
            seen["b"] = await client.call_tool(TOOL, {"prompt": "adv29yq window B"})

    anyio.run(main)
    assert seen["a"] == nonce + 1  # premise: A paid
    text = str(seen["b"].content[0].text)
    assert market_nonce(devnet) == nonce + 2, text[:400]
