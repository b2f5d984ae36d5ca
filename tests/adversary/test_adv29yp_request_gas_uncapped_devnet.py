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

"""adv29yp G1: a mech's code sets the gas of the user's request: no cap, no count, no memory.

Severity: MEDIUM (the user pays, in gas, any amount a stranger's mech chooses, at every
call, past ``--max-price`` and ``--max-spend``; on Ethereum 10 M gas at 10 gwei is 0.1
ETH a call; the same mech is never remembered, since its requests succeed).

The marketplace calls the chosen mech's ``requestFromMarketplace`` inside the user's
request transaction, so the mech's code decides how much gas the request uses.
``Marketplace.request_transaction`` sets ``gas`` to the node's estimate times 1.2 and
``maxFeePerGas`` to twice the gas price, with no bound: a mech that burns gas only
when the marketplace calls it (so its price, its manifest and every read look
ordinary) and then accepts the request makes every call cost that gas. ``--max-spend``
counts prices only (the docs say gas is not counted for mined reverts, which are now
remembered; a request that succeeds is not a revert, so nothing remembers it), and the
mech's price is within ``--max-price``.

Observed on main c8221b19 (devnet, the MCP SDK's client over stdio, ``--max-spend``
four prices): the chosen mech's code burns 10 M gas for the marketplace, then runs its own
code; the call sends the request and it is mined, using 10,282,093 gas (a plain
request used 327,798 in the same set-up): 31 times the gas, the cap untouched
(and a mech burning gas in its view functions too only makes the estimate fail:
the next offer is then paid, so the burn must be in its request).

Expected: a request whose gas estimate is far above what a marketplace request takes
(a bound the user can set, e.g. ``--max-gas``, with a default near the plain request's
0.3-0.5 M) is not sent: the offer is refused before signing (nothing spent) and the
next offer tried; or gas fees count against ``--max-spend``.
"""

from pathlib import Path
from typing import Any, Dict, List

import anyio
import pytest
from web3 import Web3

from scripts.devnet import Devnet
from tests.adversary import test_adv29r_revert_reason_markup as markup_reproduction
from tests.adversary.test_adv29r_revert_reason_markup import _revert_for_marketplace
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.devnet.mcp_helpers import price_of, requester, stdio_client
from tests.devnet.test_mcp_server import TOOL

#: gas the mech burns when the marketplace calls it
BURN = 10_000_000
#: the gas a plain marketplace request takes is about 0.3 M: a generous bound
PLAIN_BOUND = 1_000_000

BURNER = """// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.0;
contract RevertingMech {
    address immutable MARKET;
    address immutable IMPL;
    constructor(address market, address impl) { MARKET = market; IMPL = impl; }
    fallback(bytes calldata data) external payable returns (bytes memory) {
        if (msg.sender == MARKET && data.length > 4) {  // its request, not its views
            uint256 start = gasleft();
            while (start - gasleft() < BURN_GAS) {}
        }
        (bool ok, bytes memory out) = IMPL.delegatecall(data);
        if (!ok) { assembly { revert(add(out, 32), mload(out)) } }
        return out;
    }
}
""".replace("BURN_GAS", str(BURN))


def _receipts_from(devnet: Devnet, account: str, start: int) -> List[Any]:
    """Receipts of ``account``'s transactions mined after block ``start``.

    :param devnet: the devnet.
    :param account: the sender (checksummed).
    :param start: the block before the call.
    :return: the receipts, in block order.
    """
    w3 = devnet.w3
    receipts: List[Any] = []
    for number in range(start + 1, w3.eth.block_number + 1):
        block: Any = w3.eth.get_block(number, full_transactions=True)
        for tx in block["transactions"]:
            if tx["from"] == account:
                receipts.append(w3.eth.get_transaction_receipt(tx["hash"]))
    return receipts


def test_a_mech_cannot_make_the_user_pay_any_gas(
    chain_snapshot: Devnet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request sent (if any) uses gas near a plain request's.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the state folder.
    :param monkeypatch: the proxy's source: burning gas, not reverting.
    """
    devnet = chain_snapshot
    w3 = devnet.w3
    chosen, _, _ = _paid_mechs(devnet)
    price = price_of(devnet, chosen)
    spend_cap = 4 * price  # one request's amount (its rate and the fee) and more
    monkeypatch.setattr(markup_reproduction, "PROXY", BURNER)
    _revert_for_marketplace(devnet, chosen, "")
    account = Web3.to_checksum_address(requester(devnet))
    start = w3.eth.block_number
    seen: Dict[str, Any] = {}

    async def main() -> None:
        async with stdio_client(
            devnet, tmp_path, "--timeout", "2", "--max-spend", str(spend_cap)
        ) as client:
            seen["result"] = await client.call_tool(TOOL, {"prompt": "adv29yp gas"})

    anyio.run(main)
    receipts = _receipts_from(devnet, account, start)
    fees = [int(r["gasUsed"]) * int(r["effectiveGasPrice"]) for r in receipts]
    used = [int(r["gasUsed"]) for r in receipts]
    assert all(gas < PLAIN_BOUND for gas in used), (
        f"requests sent: gas used {used}, fees {fees} wei, the mech's price {price} "
        f"wei, --max-spend {spend_cap}; {str(seen['result'].content[0].text)[:200]}"
    )
