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

"""Mechs whose requests revert only when mined take gas at every call (adv29t).

Severity: LOW-MEDIUM (the requester's native balance drained by gas no cap counts, at
every call, times the tool's offers; nothing is paid to a mech).

Since the skipped-offers fix (adv29r), a request mined and reverted ("only gas was
spent") no longer ends the call: the next offer is tried, then the next, each one a
mined transaction. A mech so reverting is remembered (``RevertingMechs``) only to be
tried *last*: every later call sends it a request again and spends gas again.
``--max-spend`` refunds the price of a reverted request and counts no gas. Whoever
publishes a tool through several mechs whose code reverts for the marketplace only in
a mined transaction (``tx.gasprice > 0``; the estimate runs at gas price 0) makes each
call of it spend one request's gas per mech, and each repeated call (an agent retrying
"no offer could be paid now") the same again; each mined revert also waits for its
receipt, so a call's time grows with the offers too.

Observed on main (devnet, the MCP SDK's client over stdio, ``--allow-mech`` the two
offers of the tool, both reverting when mined, two calls): four mined transactions
from the requester account, two per call (7.2e9 wei of gas on anvil), both calls
ending "no offer could be paid now: ... nothing was sent" (the error says nothing was
sent although each skipped offer's request was mined). With the tool's other offers
allowed, the memory holds: the second call goes straight to an honest offer.

Expected: a mech whose request was mined and reverted is not sent another request
(nor gas spent on it) while it is remembered: the second call sends nothing, so the
account sends at most one transaction per reverting mech over both calls. (Since
adv29u F6 the first call tries its second offer only once the first revert is final:
``FINAL_DEPTH`` blocks are mined here while it waits.)
"""

import time
from pathlib import Path
from typing import Any, List, Tuple

import anyio
from web3 import Web3

from scripts.devnet import Devnet
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.devnet.mcp_helpers import (
    final_once_sent,
    market_nonce,
    requester,
    stdio_client,
)
from tests.devnet.reverting_mech import reverting_when_mined
from tests.devnet.test_mcp_server import TOOL


def _account(devnet: Devnet) -> Tuple[int, int]:
    """The requester account's mined transaction count and native balance (wei)."""
    address = Web3.to_checksum_address(requester(devnet))
    return (
        devnet.w3.eth.get_transaction_count(address),
        devnet.w3.eth.get_balance(address),
    )


def test_mechs_reverting_when_mined_take_gas_once(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Both offers revert only when mined; two calls: at most one request to each.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    chosen, same, _ = _paid_mechs(devnet)
    nonce = reverting_when_mined(devnet, chosen, same).market_nonce
    before = _account(devnet)

    async def main() -> Any:
        # only the two reverting mechs may be paid: as a tool only they offer
        allowed = ("--allow-mech", chosen, "--allow-mech", same)
        async with stdio_client(
            devnet, tmp_path, "--timeout", "10", *allowed
        ) as client:
            calls: List[Any] = []
            for prompt in ("tides at Brest, adv29t", "tides at Brest, adv29t, again"):
                started = time.monotonic()
                async with anyio.create_task_group() as group:
                    if not calls:  # the first revert made final: the next offer tried
                        group.start_soon(final_once_sent, devnet, before[0])
                    result = await client.call_tool(TOOL, {"prompt": prompt})
                calls.append((result, time.monotonic() - started, _account(devnet)))
            return calls

    (first, first_s, after_first), (second, second_s, after_second) = anyio.run(main)
    print(  # the figures measured, shown with -s
        f"transactions: first call {after_first[0] - before[0]} "
        f"({first_s:.2f} s), second {after_second[0] - after_first[0]} "
        f"({second_s:.2f} s); gas spent {before[1] - after_second[1]} wei"
    )
    assert market_nonce(devnet) == nonce  # nothing reached a mech: no request counted
    assert first.is_error and second.is_error
    assert after_first[0] - before[0] <= 2  # one mined revert per mech, at most
    # the second call sends nothing to mechs already seen reverting when mined
    assert (
        after_second[0] == after_first[0]
    ), f"second call sent {after_second[0] - after_first[0]} transactions"
