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

"""A retry that cannot connect stops counting the call's held request (adv29i).

Severity: HIGH (paid past ``--max-spend``: with ``--spend-window run`` three prices
are paid under a cap of two; the call also says "nothing was sent" while its earlier
request is held by the mech).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
endpoint of :mod:`scripts.devnet.offchain_responder` and the devnet's on-chain
stand-in operator) with the MCP SDK's client launching ``mech-catalogue mcp --mech M
--offchain auto --max-spend 2P+1 --spend-window run`` over stdio: one server process,
one session, one agent. The requester prepaid one price P.

The mech M (its endpoint, its price, its Safe) does, in order:

1. call A is posted off-chain: M's endpoint receives the signed request X (nonce N,
   rate P) and answers 200 naming another id: refused, held, counted (P);
2. M raises its price to P+1 and stops listening;
3. the user calls A again (what the refusal advises): the retry signs Y at nonce N
   (rate P+1, so another id) and its post cannot connect: ``_send_offchain`` marks Y
   ``unsent`` and calls ``ledger.release(Y)``. But ``ledger.replace`` had folded the
   call's count (its held X, P) under Y's id: the release drops the whole call from this
   run's ledger although X is still held by M and settleable. The journal's entry
   still counts X (``counted_price``), but with ``--spend-window run``
   ``count_journal`` reads no journal, so nothing counts it. The call says "the
   endpoint could not be reached, nothing was sent";
4. M sets its price back to P and settles X: the prepaid balance is charged P;
5. calls B and C (other arguments) each pay P on chain: the run's ledger counts 0 + P,
   then P + P, both within 2P+1. Three prices paid under a cap of 2P+1.

(With a spending window the journal record counts X, so the cap holds: the fault is the
release in step 3, which ``--spend-window run`` leaves as the only count.)

Expected: a retry whose post never connected stops counting only its own request: the
call keeps counting what its earlier requests may still be charged (here P), so C is
refused by ``--max-spend``; and its refusal does not say "nothing was sent" while an
earlier request of the call is held.
"""

import socket
import time
from pathlib import Path
from typing import Any, Dict, List

import anyio
import pytest
from web3 import Web3

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from tests.devnet.mcp_helpers import market_nonce, price_of, responder, stdio_client
from tests.devnet.test_mcp_offchain import (
    ARGUMENTS,
    TOOL,
    declare_url,
    native_mech,
    prepaid,
    prepay,
)


def _text(result: Any) -> str:
    return str(result.content[0].text)


@pytest.mark.parametrize("window", ["run", "1h"])
def test_an_unreached_retry_keeps_counting_the_call_s_held_request(  # pylint: disable=too-many-locals
    chain_snapshot: Devnet, tmp_path: Path, window: str
) -> None:
    """Refused, price moved, retry unreached, settled: a third price within the run cap.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    :param window: ``--spend-window``: ``run`` (the fault) or ``1h`` (the control: the
        journal's record of the call counts X; passes on main).
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = price_of(devnet, mech)
    cap = 2 * price + 1
    options = (
        "--mech",
        mech,
        "--offchain",
        "auto",
        "--max-spend",
        str(cap),
        "--spend-window",
        window,
        "--timeout",
        "20",
    )
    seen: Dict[str, Any] = {}
    steps: List[str] = []
    with OffchainResponder(devnet.info, [mech], behaviour="wrong_id") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, price)

        def move_price_and_leave() -> None:
            devnet.change_max_delivery_rate(mech, price + 1)
            endpoint.server.socket.shutdown(socket.SHUT_RDWR)  # connections refused
            endpoint.server.shutdown()

        def settle_the_held_request() -> None:
            devnet.change_max_delivery_rate(mech, price)
            form = endpoint.posts[0]
            # pylint: disable-next=protected-access
            endpoint._settle(
                Web3.to_checksum_address(mech),
                Web3.to_checksum_address(form["sender"]),
                int(form["request_id"]).to_bytes(32, "big"),
                form,
            )

        async def main() -> None:
            async with stdio_client(devnet, tmp_path, *options) as client:
                seen["a"] = await client.call_tool(TOOL, ARGUMENTS)
                await anyio.to_thread.run_sync(move_price_and_leave)
                seen["a_again"] = await client.call_tool(TOOL, ARGUMENTS)
                seen["prepaid"] = await anyio.to_thread.run_sync(prepaid, devnet)
                await anyio.to_thread.run_sync(settle_the_held_request)
                seen["charged"] = seen["prepaid"] - prepaid(devnet)
                seen["nonce"] = market_nonce(devnet)
                for name in ("b", "c"):
                    arguments = dict(ARGUMENTS, prompt=f"call {name}")
                    seen[name] = await client.call_tool(TOOL, arguments)
                    steps.append(f"{name}: {_text(seen[name])[:140]!r}")

        started = time.monotonic()
        with responder(devnet):
            anyio.run(main)
        seconds = time.monotonic() - started
    a, again, b, c = seen["a"], seen["a_again"], seen["b"], seen["c"]
    on_chain = market_nonce(devnet) - seen["nonce"]
    paid = seen["charged"] + on_chain * price
    observed = (
        f"A: {_text(a)[:120]!r}; A again: {_text(again)[:240]!r}; {steps}; X charged "
        f"{seen['charged']}, {on_chain} on-chain request(s) at {price}: {paid} paid "
        f"under --max-spend {cap} ({seconds:.0f} s)"
    )
    print(observed)
    assert a.is_error and len(endpoint.posts) == 1, observed  # X received, refused
    assert again.is_error and "could not be reached" in _text(again), observed
    assert seen["charged"] == price and not endpoint.errors, observed  # X settled
    assert not b.is_error, observed  # P (X) + P (B): within the cap
    # observed on main with ``run``: C paid too (3P under a cap of 2P+1), and A again
    # said "... the endpoint could not be reached, nothing was sent"
    assert paid <= cap, observed
    assert c.is_error and "--max-spend" in _text(c), observed


def test_a_retry_unreached_while_an_earlier_request_is_held_is_not_said_unsent(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Steps 1-3 with a spending window: the retry's refusal says "nothing was sent".

    Severity: MEDIUM (a wrong statement about money: the mech holds the call's first
    signed request, X, and may settle it, which charges the prepaid balance; the
    journal, rightly, keeps counting it). ``_send_offchain`` ends an unsent retry with
    ``refused.said(held=False)``, whatever the call's earlier requests: the person and
    the model read that nothing was sent, and may pay another mech for the same
    question while M can still charge X.

    Expected: the refusal says the call's earlier signed request is held by its mech
    and may still be settled (``HELD_REFUSAL``), never "nothing was sent" alone.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = price_of(devnet, mech)
    options = ("--mech", mech, "--offchain", "only", "--timeout", "10")
    seen: Dict[str, Any] = {}
    with OffchainResponder(devnet.info, [mech], behaviour="wrong_id") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, 2 * price)

        def move_price_and_leave() -> None:
            devnet.change_max_delivery_rate(mech, price + 1)
            endpoint.server.socket.shutdown(socket.SHUT_RDWR)  # connections refused
            endpoint.server.shutdown()

        async def main() -> None:
            async with stdio_client(devnet, tmp_path, *options) as client:
                seen["a"] = await client.call_tool(TOOL, ARGUMENTS)
                await anyio.to_thread.run_sync(move_price_and_leave)
                seen["a_again"] = await client.call_tool(TOOL, ARGUMENTS)

        anyio.run(main)
    again = _text(seen["a_again"])
    observed = f"A: {_text(seen['a'])[:120]!r}; A again: {again[:300]!r}"
    assert len(endpoint.posts) == 1 and "could not be reached" in again, observed
    # observed on main: "... could not be reached (ConnectionError: no address accepted
    # a connection): the endpoint could not be reached, nothing was sent"
    assert "may still settle it" in again, observed
