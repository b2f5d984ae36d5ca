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

"""adv29yp R1 on the devnet: each new server process pays a mined revert's gas again.

Severity: MEDIUM (see ``test_adv29yp_revert_memory_restart``: the revert memory is the
process's; with fix29pa each forgotten revert also holds its call until final).

Observed on main c8221b19 (devnet, the MCP SDK's client over stdio, two sessions on one
state folder, as an MCP client starts one server per session): the chosen mech reverts
for the marketplace only when mined; session 1's call is held (one transaction,
reverted, journalled with ``reverted_when_mined``); session 2's call with other
arguments sends that mech a second request (a second transaction, reverted: gas
again) and is held "not final yet ... until block N" too, the tool's other offer
unpaid.

Expected: session 2 reads the journal's revert (within ``--spend-window``): it sends
the mech nothing and pays the next offer (the account's second transaction, the
marketplace nonce moved once).
"""

from pathlib import Path
from typing import Any, Dict

import anyio

from scripts.devnet import Devnet
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.devnet.mcp_helpers import market_nonce, request_info, stdio_client
from tests.devnet.reverting_mech import reverting_when_mined
from tests.devnet.test_mcp_server import REQUEST_META, TOOL


def test_a_second_session_does_not_pay_a_mined_revert_again(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Session 2, other arguments: no second reverted request, the next offer paid.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the state folder both sessions use.
    """
    devnet = chain_snapshot
    w3 = devnet.w3
    chosen, _, _ = _paid_mechs(devnet)
    nonce, account, before = reverting_when_mined(devnet, chosen)
    seen: Dict[str, Any] = {}

    async def session(name: str, prompt: str) -> None:
        async with stdio_client(devnet, tmp_path, "--timeout", "2") as client:
            seen[name] = await client.call_tool(TOOL, {"prompt": prompt})
            seen[f"{name}_sent"] = w3.eth.get_transaction_count(account) - before

    anyio.run(session, "first", "tides at Vigo, adv29yp session 1")
    assert seen["first"].is_error and seen["first_sent"] == 1  # premise: held
    anyio.run(session, "second", "tides at Brest, adv29yp session 2")
    second = seen["second"]
    text = str(second.content[0].text)
    # paid to the other offer: no operator answers it within 2 s here, so the call
    # ends "not delivered" (fix29yf: the check was `not is_error`, a delivery)
    paid = (second.meta or {}).get(REQUEST_META) or {}
    assert (
        paid.get("request_id") and "was not delivered" in text
    ), f"session 2: {seen['second_sent']} transactions in all ({text[:300]})"
    assert request_info(devnet, paid["request_id"])["priorityMech"].lower() != (
        chosen.lower()
    )
    assert seen["second_sent"] == 2 and market_nonce(devnet) == nonce + 1, text
