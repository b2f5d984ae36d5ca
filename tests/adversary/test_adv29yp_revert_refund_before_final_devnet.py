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

"""adv29yp C1 on the devnet: ``--max-spend`` frees a reverted request's price before final.

Severity: MEDIUM (see ``test_adv29yp_revert_refund_before_final``).

Observed on main c8221b19 (devnet, the MCP SDK's client over stdio, one session,
``--max-spend`` the larger of the two same-schema offers' prices): the chosen mech
reverts for the marketplace only when mined; call A's request to it is mined and
reverts at block B and call A is held until block B + 64 (fix29pa: a reorg may still
mine it paid); call B, other arguments, sent at once while B is one block deep, pays
the next offer: if a reorg mined call A's request paid, both prices would be spent
under a cap of one.

Expected: call B is refused by the cap (nothing sent) while call A's reverted request
is not final.
"""

from pathlib import Path
from typing import Any, Dict

import anyio

from scripts.devnet import Devnet
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.devnet.mcp_helpers import market_nonce, price_of, stdio_client
from tests.devnet.reverting_mech import reverting_when_mined
from tests.devnet.test_mcp_server import TOOL


def test_a_reverted_request_still_counts_against_the_cap_until_final(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Call A held by its revert; call B refused by the cap, nothing sent.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the state folder.
    """
    devnet = chain_snapshot
    w3 = devnet.w3
    chosen, same, _ = _paid_mechs(devnet)
    cap = max(price_of(devnet, chosen), price_of(devnet, same))
    nonce, account, before = reverting_when_mined(devnet, chosen)
    seen: Dict[str, Any] = {}

    async def main() -> None:
        async with stdio_client(
            devnet, tmp_path, "--timeout", "2", "--max-spend", str(cap)
        ) as client:
            seen["a"] = await client.call_tool(TOOL, {"prompt": "adv29yp cap A"})
            seen["a_sent"] = w3.eth.get_transaction_count(account) - before
            seen["b"] = await client.call_tool(TOOL, {"prompt": "adv29yp cap B"})

    anyio.run(main)
    assert seen["a"].is_error and seen["a_sent"] == 1  # premise: call A held
    assert "not final yet" in str(seen["a"].content[0].text)
    text = str(seen["b"].content[0].text)
    assert market_nonce(devnet) == nonce, (
        f"call B paid at once (marketplace nonce {nonce} -> {market_nonce(devnet)}) "
        f"while call A's reverted request was not final; --max-spend {cap}: {text[:300]}"
    )
    assert "max-spend" in text, text
