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

"""adv29yq C2 on the devnet: a revert another session released stays in the sender's cap.

Severity: MEDIUM (see ``test_adv29yq_revert_release_other_process``: denial of paid
calls in the session that sent the reverted request, for as long as its server lives).

Observed on main f997ebd3 (devnet, the MCP SDK's client over stdio, two sessions open at
once on one state folder, as an MCP client starts one server per session;
``--max-spend`` twice the other offer's price): the chosen mech reverts for the
marketplace only when mined; session 1's call A is held (one transaction, reverted);
64 blocks are mined (A's revert final); session 2's call B pays the other offer and
releases A's revert (``final_at`` journalled); session 1's call C, other arguments, is
refused by ``--max-spend``: "paying 10000000000000000 wei would bring the spending ... to
25000000000000000 wei, over --max-spend 20000000000000000 wei (5000000000000000 wei
spent on 1 request(s) by this run, ...); nothing was sent": the run's "spending" is A's
reverted request, which paid nothing and is final.

Expected: session 1 pays call C (the marketplace nonce moves twice in all: B and C).
"""

from pathlib import Path
from typing import Any, Dict

import anyio
from web3.types import RPCEndpoint

from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH
from scripts.devnet import Devnet
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.devnet.mcp_helpers import market_nonce, price_of, stdio_client
from tests.devnet.reverting_mech import reverting_when_mined
from tests.devnet.test_mcp_server import REQUEST_META, TOOL


def test_a_revert_released_by_another_session_frees_the_sender_s_cap(  # pylint: disable=too-many-locals
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Session 1: A held; session 2: B paid after the final block; session 1: C paid.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the state folder both sessions use.
    """
    devnet = chain_snapshot
    w3 = devnet.w3
    chosen, same, _ = _paid_mechs(devnet)
    cap = 2 * price_of(devnet, same)
    nonce, account, before = reverting_when_mined(devnet, chosen)
    seen: Dict[str, Any] = {}
    flags = ("--timeout", "2", "--max-spend", str(cap))

    async def main() -> None:
        async with stdio_client(devnet, tmp_path, *flags) as first:
            seen["a"] = await first.call_tool(TOOL, {"prompt": "adv29yq release A"})
            seen["a_sent"] = w3.eth.get_transaction_count(account) - before
            w3.provider.make_request(RPCEndpoint("anvil_mine"), [FINAL_DEPTH])
            async with stdio_client(devnet, tmp_path, *flags) as second:
                seen["b"] = await second.call_tool(
                    TOOL, {"prompt": "adv29yq release B"}
                )
            seen["b_nonce"] = market_nonce(devnet)
            seen["c"] = await first.call_tool(TOOL, {"prompt": "adv29yq release C"})

    anyio.run(main)
    assert seen["a"].is_error and seen["a_sent"] == 1  # premise: call A held
    assert "not final yet" in str(seen["a"].content[0].text)
    paid_b = (seen["b"].meta or {}).get(REQUEST_META) or {}
    assert paid_b.get("request_id") and seen["b_nonce"] == nonce + 1, seen["b"]
    text = str(seen["c"].content[0].text)
    paid_c = (seen["c"].meta or {}).get(REQUEST_META) or {}
    assert paid_c.get("request_id") and market_nonce(devnet) == nonce + 2, (
        "session 1 refused call C although call A's reverted request is final and "
        f"released by session 2 (cap {cap} wei): {text[:400]}"
    )
