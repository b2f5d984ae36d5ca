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

"""Off-chain calls that prepay after a 402 (``--auto-prepay``), and contract requesters.

Real components: anvil with the real MechMarketplace bytecode, the fixture mech and
native tracker, kubo, the server started by the MCP SDK's client over stdio, the devnet
stand-in of a mech's off-chain endpoint (``scripts/devnet/offchain_responder.py``),
honest or asking for a prepayment whatever the balance (``always_402``). A requester
that is a contract is made with anvil's ``anvil_setCode`` on the paying account (what a
Safe or an EIP-7702 delegation looks like to the marketplace: code at the address).
"""

import re
from pathlib import Path

from web3 import Web3
from web3.types import RPCEndpoint

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder
from scripts.run_local.offchain import serve_offchain
from tests.devnet.mcp_helpers import market_nonce, price_of, requester, responder
from tests.devnet.test_mcp_offchain import (
    REQUEST_META,
    account_nonce,
    calls,
    declare_url,
    native_mech,
    prepaid,
)


def _options(deposit: int, cap: int, mode: str = "only") -> list:
    return [
        "--offchain",
        mode,
        "--auto-prepay",
        f"native={deposit}",
        "--max-spend",
        f"native={cap}",
    ]


def test_a_402_is_followed_by_one_deposit_and_one_retry(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Nothing prepaid: the 402, one deposit of the opted-in amount, the same request."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = price_of(devnet, mech)
    with OffchainResponder(devnet.info, [mech]) as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        nonce, count = account_nonce(devnet), market_nonce(devnet)
        first, second = calls(
            devnet,
            tmp_path,
            2,
            "--mech",
            mech,
            *_options(3 * price, 10 * price),
        )
        assert not first.is_error, first.content[0].text
        # the second call (same arguments): the journal's answer, nothing more
        meta = first.meta[REQUEST_META]
        assert meta["way"] == "offchain"
        assert meta["auto_prepay"]["amount"] == str(3 * price)
        assert meta["auto_prepay"]["tracker"] == (
            devnet.info.contracts["FixtureBalanceTracker"].lower()
        )
        assert second.meta[REQUEST_META]["request_id"] == meta["request_id"]
        # one transaction from the requester: the deposit; the request is settled by
        # the mech, charging the prepaid balance once
        assert account_nonce(devnet) == nonce + 1
        assert prepaid(devnet) == 2 * price and market_nonce(devnet) == count + 1
        # the first post got the 402, the retry the same signed request
        assert len(endpoint.posts) == 2
        assert endpoint.posts[0]["signature"] == endpoint.posts[1]["signature"]
        # another call is paid from what the deposit left: no 402, no deposit
        (third,) = calls(
            devnet,
            tmp_path,
            1,
            "--mech",
            mech,
            *_options(3 * price, 10 * price),
            prompt="another question",
        )
    assert not third.is_error, third.content[0].text
    assert "auto_prepay" not in third.meta[REQUEST_META]
    assert account_nonce(devnet) == nonce + 1 and prepaid(devnet) == price
    assert len(endpoint.posts) == 3


def test_auto_posts_first_for_an_opted_in_asset(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """``--offchain auto`` with ``--auto-prepay``: posted, not sent on chain."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = price_of(devnet, mech)
    with OffchainResponder(devnet.info, [mech]) as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        nonce = account_nonce(devnet)
        (result,) = calls(
            devnet, tmp_path, 1, "--mech", mech, *_options(price, price, "auto")
        )
    assert not result.is_error, result.content[0].text
    assert result.meta[REQUEST_META]["way"] == "offchain"
    # the deposit (exactly the price: the shortfall), no request transaction
    assert account_nonce(devnet) == nonce + 1 and prepaid(devnet) == 0
    assert len(endpoint.posts) == 2


def test_a_deposit_over_the_spend_cap_is_refused_and_nothing_is_deposited(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The journal's earlier spending, this call and the deposit: over the cap, no deposit."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = price_of(devnet, mech)
    with OffchainResponder(devnet.info, [mech]) as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        (paid,) = calls(
            devnet, tmp_path, 1, "--mech", mech, *_options(price, 3 * price)
        )
        assert not paid.is_error, paid.content[0].text
        nonce = account_nonce(devnet)
        # earlier: price; this call: price; the deposit 3 prices adds 2: 4 > 3
        (refused,) = calls(
            devnet,
            tmp_path,
            1,
            "--mech",
            mech,
            *_options(3 * price, 3 * price),
            prompt="another question",
        )
    text = refused.content[0].text
    assert refused.is_error, text
    assert "needs a prepaid balance" in text and "deposited nothing" in text, text
    assert "over the cap" in text and f"--max-spend {3 * price} wei" in text, text
    assert account_nonce(devnet) == nonce and prepaid(devnet) == 0


def test_a_second_402_deposits_nothing_more_in_this_run_or_the_next(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A mech that keeps answering 402: one deposit, then precise errors, never another."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = price_of(devnet, mech)
    options = ["--mech", mech, *_options(2 * price, 10 * price)]
    with OffchainResponder(devnet.info, [mech], behaviour="always_402") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        nonce, count = account_nonce(devnet), market_nonce(devnet)
        first, again = calls(devnet, tmp_path, 2, *options)
        (restarted,) = calls(devnet, tmp_path, 1, *options)  # a new server process
    for result in (first, again, restarted):
        text = result.content[0].text
        assert result.is_error, text
        assert f"{2 * price} wei deposited to tracker" in text, text
        assert "Nothing more is deposited for this call" in text
        assert "nothing was sent" not in text
        # the mech holds the signed request it answered 402 (adv29i): said so
        assert "may still settle it" in text
    # the deposit's transaction, made by this call's first attempt or an earlier one
    by_earlier = re.compile(
        r"\(tx 0x[0-9a-fA-F]+, by an earlier attempt of this call\)"
    )
    assert not by_earlier.search(first.content[0].text)
    assert by_earlier.search(again.content[0].text)
    assert by_earlier.search(restarted.content[0].text)
    # one deposit in all, nothing settled, the prepaid balance holds it
    assert account_nonce(devnet) == nonce + 1 and market_nonce(devnet) == count
    assert prepaid(devnet) == 2 * price
    assert len(endpoint.posts) == 6 and not endpoint.settled


def test_a_deposit_the_wallet_cannot_make_is_a_precise_error(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A deposit above the wallet is refused before anything is signed."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = price_of(devnet, mech)
    payer = Web3.to_checksum_address(requester(devnet))
    devnet.w3.provider.make_request(
        RPCEndpoint("anvil_setBalance"), [payer, hex(price)]
    )
    with OffchainResponder(devnet.info, [mech]) as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        nonce = account_nonce(devnet)
        (result,) = calls(
            devnet, tmp_path, 1, "--mech", mech, *_options(2 * price, 4 * price)
        )
    text = result.content[0].text
    assert result.is_error and "--auto-prepay deposited nothing" in text, text
    assert f"the deposit of {2 * price} wei to tracker" in text, text
    assert account_nonce(devnet) == nonce and prepaid(devnet) == 0
    assert len(endpoint.posts) == 1


def test_a_requester_with_code_never_signs_offchain_requests(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A Safe-like requester: ``only`` is a precise error, ``auto`` pays on chain."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = price_of(devnet, mech)
    payer = Web3.to_checksum_address(requester(devnet))
    # an EIP-7702 delegation designator at the paying address (it still sends
    # transactions): the marketplace would check EIP-1271 on it
    delegate = devnet.info.contracts["FixtureBalanceTracker"].lower()[2:]
    devnet.w3.provider.make_request(
        RPCEndpoint("anvil_setCode"), [payer, "0xef0100" + delegate]
    )
    with OffchainResponder(devnet.info, [mech]) as endpoint, responder(devnet):
        declare_url(devnet, service_id, endpoint.url)
        (only,) = calls(
            devnet, tmp_path, 1, "--mech", mech, *_options(price, 10 * price)
        )
        (auto,) = calls(
            devnet,
            tmp_path,
            1,
            "--mech",
            mech,
            "--offchain",
            "auto",
            prompt="another question",
        )
    text = only.content[0].text
    assert only.is_error, text
    assert f"the requester {payer} is a contract" in text, text
    assert "EIP-1271" in text and "nothing was sent" in text
    assert not auto.is_error, auto.content[0].text
    assert auto.meta[REQUEST_META]["way"] == "onchain"
    assert not endpoint.posts and prepaid(devnet) == 0


def test_make_run_s_offchain_mech_answers_an_auto_call(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """What ``make run`` serves and declares: the command it prints pays off-chain."""
    devnet = chain_snapshot
    stand_in = serve_offchain(devnet)
    try:
        option = stand_in.try_arguments().split("mcp --devnet ")[1].split()
        (result,) = calls(devnet, tmp_path, 1, *option)
        endpoint = stand_in.endpoint
        assert endpoint is not None and len(endpoint.posts) == 2
    finally:
        stand_in.stop()
    assert not result.is_error, result.content[0].text
    meta = result.meta[REQUEST_META]
    assert meta["way"] == "offchain" and meta["mech"].lower() == stand_in.mech.lower()
    assert meta["auto_prepay"]["amount"] == str(5 * 10**16)
