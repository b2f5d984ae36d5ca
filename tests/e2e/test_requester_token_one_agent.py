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

"""The requester service pays a USDC and an OLAS mech through mech-interact's rounds.

Real components as in ``test_requester_task_one_agent.py`` (anvil with the
MechMarketplace fixtures and the stand-in OLAS and USDC tokens (6 decimals) with their
balance trackers, kubo, the agent process with mech-interact v0.32.3 unchanged,
transaction settlement; mocked: Tendermint, by the abci connection's ``use_mock`` mode;
the mech operator is the devnet responder, a STAND-IN that runs no tool).

The deployed devnet service offers ``prediction-online`` through four mech contracts,
one per payment way (native, OLAS, USDC, Nevermined subscription). In one agent start-up:

1. the task file caps USDC only: the USDC mech is paid, through the Safe, exactly its
   price (the Safe's USDC down by it, the tracker's up by it, no allowance left), the
   answer is read; the log says why every other offer was skipped, the subscription
   mech's reason naming mech-interact's per-chain Nevermined contracts;
2. the file is rewritten to cap OLAS only: the OLAS mech is paid the same way;
3. the Safe's USDC is set one unit short of the USDC mech's price (anvil's storage
   write: no Safe transaction can take it out here) and the file caps USDC again: the
   chosen payment is refused before anything is built, the log says how much the Safe
   holds and what the mech asks, no request is sent, and the next period starts.
"""

from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest
from eth_abi import encode
from web3 import Web3
from web3.types import RPCEndpoint

from scripts.devnet import Devnet
from scripts.run_local.runner import LocalRun
from tests.e2e.conftest import E2E_DIR, log_tail, wait_for
from tests.e2e.test_requester_one_agent import (
    ANSWER_TIMEOUT,
    PERIOD_START,
    requests_from,
    synchronized_data,
    task_file_run,
)

TOOL = "prediction-online"
#: ``FixtureToken``'s storage slot of ``balanceOf`` (after name, symbol, totalSupply;
#: decimals and minter are immutable: scripts/devnet/contracts/TokenPayments.sol)
BALANCE_OF_SLOT = 3
TASK = (
    f"prompt: Will it rain in Lisbon tomorrow?\ntool: {TOOL}\n"
    "arguments:\n  max_tokens: 120\n  temperature: 0.25\n"
)


def task_file() -> Path:
    """The run's task file, outside the run's work folder (which the run owns).

    :return: its path.
    """
    return E2E_DIR / "requester_token_task.yaml"


def seeded_mech(devnet: Devnet, asset: str) -> Dict[str, Any]:
    """The seeded marketplace mech of the deployed service paid in ``asset``.

    :param devnet: the devnet.
    :param asset: ``olas``, ``usdc`` or ``subscription``.
    :return: its ``devnet.json`` record (``address``, ``rate``).
    """
    (mech,) = [m for m in devnet.info.mechs if m.get("asset") == asset]
    return mech


@pytest.fixture(scope="module")
def token_run() -> Iterator[LocalRun]:
    """One requester agent whose task caps USDC only.

    :yield: the run; its task file is :func:`task_file`.
    """
    with task_file_run(
        "requester_token_one_agent", task_file(), TASK + "max_price:\n  usdc: 1500000\n"
    ) as run:
        yield run


def requests_to(run: LocalRun, mech: str) -> List[Any]:
    """The Safe's MarketplaceRequest events to one mech.

    :param run: the run.
    :param mech: the mech address.
    :return: the events, oldest first.
    """
    assert run.requester is not None
    return [
        event
        for event in requests_from(run, run.requester.safe)
        if Web3.to_checksum_address(event["args"]["priorityMech"])
        == Web3.to_checksum_address(mech)
    ]


def assert_exactly_the_price_moved(run: LocalRun, asset: str, event: Any) -> None:
    """The request's transaction moved exactly the mech's price from the Safe.

    Read at the block before the request's and at its block: the Safe's balance of
    the asset's token fell by the price, the tracker's rose by it, and the Safe's
    allowance to the tracker is 0 after (approved the price, pulled the price). No
    native value left the Safe with it.

    :param run: the run.
    :param asset: ``olas`` or ``usdc``.
    :param event: the MarketplaceRequest event.
    """
    devnet = run.devnet
    assert devnet is not None and run.requester is not None
    safe = run.requester.safe
    price = int(seeded_mech(devnet, asset)["rate"])
    token, tracker = devnet.token(asset), devnet.tracker(asset)
    block = event["blockNumber"]

    def state(at: int) -> Dict[str, int]:
        return {
            "safe": token.functions.balanceOf(safe).call(block_identifier=at),
            "tracker": token.functions.balanceOf(tracker.address).call(
                block_identifier=at
            ),
            "allowance": token.functions.allowance(safe, tracker.address).call(
                block_identifier=at
            ),
            "native": devnet.w3.eth.get_balance(
                Web3.to_checksum_address(safe), block_identifier=at
            ),
        }

    before, after = state(block - 1), state(block)
    assert before["allowance"] == 0
    assert before["safe"] - after["safe"] == price
    assert after["tracker"] - before["tracker"] == price
    assert after["allowance"] == 0
    assert after["native"] == before["native"]


def set_token_balance(devnet: Devnet, asset: str, account: str, amount: int) -> None:
    """Write an account's balance of a stand-in token (anvil ``anvil_setStorageAt``).

    :param devnet: the devnet.
    :param asset: ``olas`` or ``usdc``.
    :param account: the holder.
    :param amount: its new balance, smallest units.
    """
    token = devnet.token(asset)
    slot = Web3.keccak(encode(["address", "uint256"], [account, BALANCE_OF_SLOT]))
    devnet.w3.provider.make_request(
        RPCEndpoint("anvil_setStorageAt"),
        [token.address, "0x" + slot.hex().removeprefix("0x"), "0x" + f"{amount:064x}"],
    )
    assert token.functions.balanceOf(account).call() == amount


def answer_from(run: LocalRun, mech: str) -> Any:
    """The agent's answer to one of its on-chain requests to ``mech``.

    ``GET /synchronized_data`` names the mech mech-interact called last as soon as it
    chose it, while its responses stay the previous request's until the new one is
    read: an answer counts only when its request id is one of the Safe's
    ``MarketplaceRequest`` ids to ``mech`` (a stale answer from another mech passed
    for this one's on a loaded machine).

    :param run: the run.
    :param mech: the mech address.
    :return: the answer's first line, or None.
    """
    request = synchronized_data(run).get("request") or {}
    if str(request.get("mech", "")).lower() != mech.lower():
        return None
    ids = {
        int.from_bytes(request_id, "big")
        for event in requests_to(run, mech)
        for request_id in event["args"]["requestIds"]
    }
    done = [
        r
        for r in request.get("responses", [])
        if r.get("answer") is not None and _request_id(r) in ids
    ]
    return done[0]["answer"] if done else None


def _request_id(response: Dict[str, Any]) -> Optional[int]:
    """A response's request id (``0x`` + hex, as mech-interact keeps it), or None."""
    try:
        return int(str(response.get("request_id")), 0)
    except ValueError:
        return None


def test_a_usdc_then_an_olas_mech_is_paid_exactly_its_price(
    token_run: LocalRun,
) -> None:
    """USDC under its cap, the others skipped with reasons; then OLAS after the edit."""
    run = token_run
    devnet = run.devnet
    assert devnet is not None
    log: Path = run.processes[0].log_path

    def text() -> str:
        assert run.processes[0].alive(), log_tail(log)
        return log.read_text(errors="replace")

    usdc, olas = seeded_mech(devnet, "usdc"), seeded_mech(devnet, "olas")
    subscription = seeded_mech(devnet, "subscription")
    wait_for(
        lambda: answer_from(run, usdc["address"]) is not None,
        ANSWER_TIMEOUT,
        "an answer from the USDC mech",
    )
    first, *_ = requests_to(run, usdc["address"])
    assert_exactly_the_price_moved(run, "usdc", first)
    said = text()
    assert f"from mech {usdc['address'].lower()}, paid in usdc" in said
    assert (
        f"skipped mech {subscription['address'].lower()}: paid by Nevermined "
        "subscription (native_nvm): mech-interact v0.32.3 buys and reads credits only "
        "through the Nevermined contracts it fixes per chain" in said
    )
    assert (
        f"skipped mech {olas['address'].lower()}: paid in OLAS, an asset the task's "
        "max_price does not name" in said
    )
    assert not requests_to(run, olas["address"]), "paid OLAS without its cap"

    task_file().write_text(TASK + f"max_price:\n  olas: {olas['rate']}\n")
    wait_for(
        lambda: answer_from(run, olas["address"]) is not None,
        ANSWER_TIMEOUT,
        "an answer from the OLAS mech after the edit",
    )
    first, *_ = requests_to(run, olas["address"])
    assert_exactly_the_price_moved(run, "olas", first)
    assert not requests_to(run, subscription["address"])

    # 3. one unit short: refused before anything is built, said why, the periods go on
    safe = run.requester.safe if run.requester is not None else ""
    paid_usdc = len(requests_to(run, usdc["address"]))
    set_token_balance(devnet, "usdc", safe, int(usdc["rate"]) - 1)
    shown = len(text())
    task_file().write_text(TASK + "max_price:\n  usdc: 1500000\n")
    short = (
        "requester: the Safe holds 1.499999 USDC (1499999 smallest units) of token "
        f"{devnet.token('usdc').address.lower()}, mech {usdc['address'].lower()} asks "
        "1.5 USDC (1500000 smallest units): send the Safe the difference"
    )
    wait_for(lambda: short in text()[shown:], ANSWER_TIMEOUT, "the short-balance line")
    said_at = shown + text()[shown:].index(short)
    period = max(int(p) for p in PERIOD_START.findall(text()[:said_at]))
    wait_for(
        lambda: any(int(p) > period for p in PERIOD_START.findall(text()[said_at:])),
        90.0,
        "the period after the refused payment",
    )
    assert len(requests_to(run, usdc["address"])) == paid_usdc, "paid while short"
    assert (
        devnet.token("usdc").functions.balanceOf(safe).call() == int(usdc["rate"]) - 1
    )
