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

"""Off-chain requests to a mech that serves a ``url`` (issue 31, item 3), on the devnet.

Real components: anvil with the real MechMarketplace bytecode (its ``getRequestId`` and
``deliverMarketplaceWithSignatures``), the fixture mech and native tracker, kubo, the
server started by the MCP SDK's client over stdio. The mech's endpoint is the devnet
stand-in (``scripts/devnet/offchain_responder.py``, following the real mech's routes),
honest or hostile; the deployed service's manifest is set to declare its URL.
"""

import os
import socket
import subprocess  # nosec: runs this checkout's own module
import sys
from pathlib import Path
from typing import Any, Tuple

import anyio
import pytest
from mech_catalogue_core.chain.offchain import request_id
from web3 import Web3

from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import (
    OffchainResponder,
    declare_endpoint,
    prepay_native,
)
from tests.devnet.mcp_helpers import (
    ROOT,
    market_nonce,
    requester,
    responder,
    stdio_client,
)


def _env() -> dict:
    """This checkout's packages first on the path of a child process.

    :return: the environment.
    """
    paths = (str(ROOT), str(ROOT / "libs" / "mech-catalogue-core"))
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


TOOL = "prediction-online"  # offered by the deployed service's mechs
REQUEST_META = "io.olas/mech-request"
ARGUMENTS = {"prompt": "Will the ferry sail on Sunday?", "temperature": 0.5}


def native_mech(devnet: Devnet) -> Tuple[str, int]:
    """The deployed service's native mech (its Safe settles) and its service id.

    :param devnet: the devnet.
    :return: ``(address, service id)``.
    """
    deployed = [m for m in devnet.info.mechs if m.get("asset") == "olas"][0]
    mech = next(
        m
        for m in devnet.info.mechs
        if m["kind"] == "marketplace"
        and m.get("asset", "native") == "native"
        and m["service_id"] == deployed["service_id"]
    )
    return mech["address"], int(mech["service_id"])


def declare_url(devnet: Devnet, service_id: int, url: str) -> None:
    """Set the service's manifest to the seeded one plus a top-level ``url``.

    :param devnet: the devnet.
    :param service_id: the service.
    :param url: the endpoint declared.
    """
    declare_endpoint(devnet, service_id, url)


def prepay(devnet: Devnet, amount: int) -> None:
    """Deposit ``amount`` wei on the native tracker for the requester.

    :param devnet: the devnet.
    :param amount: wei.
    """
    prepay_native(devnet, requester(devnet), amount)


def prepaid(devnet: Devnet) -> int:
    """The requester's prepaid native balance.

    :param devnet: the devnet.
    :return: wei.
    """
    tracker = devnet.contract("FixtureBalanceTracker")
    return int(
        tracker.functions.mapRequesterBalances(
            Web3.to_checksum_address(requester(devnet))
        ).call()
    )


def account_nonce(devnet: Devnet) -> int:
    """The requester account's transaction count.

    :param devnet: the devnet.
    :return: it.
    """
    return int(
        devnet.w3.eth.get_transaction_count(Web3.to_checksum_address(requester(devnet)))
    )


def calls(
    devnet: Devnet, state: Path, times: int, *extra: str, prompt: str = ""
) -> Any:
    """``times`` tools/call of TOOL through one SDK client over stdio.

    :param devnet: the devnet.
    :param state: the server's state folder.
    :param times: how many calls (same arguments).
    :param extra: server options.
    :param prompt: another prompt than ARGUMENTS' (another call).
    :return: the results.
    """
    arguments = dict(ARGUMENTS, prompt=prompt) if prompt else ARGUMENTS

    async def main() -> Any:
        async with stdio_client(devnet, state, "--timeout", "60", *extra) as client:
            return [await client.call_tool(TOOL, arguments) for _ in range(times)]

    return anyio.run(main)


def test_request_id_is_the_marketplace_s(chain_snapshot: Devnet) -> None:
    """The id computed locally equals ``getRequestId`` on the real bytecode."""
    devnet = chain_snapshot
    mech, _ = native_mech(devnet)
    market = devnet.contract("MechMarketplace")
    sender = Web3.to_checksum_address(requester(devnet))
    data = bytes(range(32))
    payment_type = devnet.mech(mech).functions.paymentType().call()
    for rate, nonce in ((1, 0), (10**16, 7), (2**255, 2**64)):
        expected = market.functions.getRequestId(
            mech, sender, data, rate, payment_type, nonce
        ).call()
        local = request_id(
            devnet.w3.eth.chain_id,
            market.address,
            mech,
            sender,
            data,
            rate,
            bytes(payment_type),
            nonce,
        )
        assert local == bytes(expected)
    other = request_id(
        devnet.w3.eth.chain_id + 1,
        market.address,
        mech,
        sender,
        data,
        1,
        bytes(payment_type),
        0,
    )
    assert other != bytes(
        market.functions.getRequestId(mech, sender, data, 1, payment_type, 0).call()
    )


def test_an_offchain_call_returns_the_verified_answer_with_no_transaction(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Posted, settled by the mech, verified by digest; the requester sends nothing."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    with OffchainResponder(devnet.info, [mech]) as endpoint:
        declare_url(devnet, service_id, endpoint.url + "/")
        prepay(devnet, 3 * price)
        nonce, count = account_nonce(devnet), market_nonce(devnet)
        balance = devnet.w3.eth.get_balance(Web3.to_checksum_address(requester(devnet)))
        first, again = calls(devnet, tmp_path, 2, "--mech", mech, "--offchain", "only")
    assert not first.is_error, first.content[0].text
    meta = first.meta[REQUEST_META]
    assert meta["way"] == "offchain" and meta["tx_hash"] == ""
    assert meta["delivery_mech"].lower() == mech.lower()
    assert first.structured_content is not None
    # no transaction from the requester: its account nonce and wallet did not move
    assert account_nonce(devnet) == nonce
    assert (
        devnet.w3.eth.get_balance(Web3.to_checksum_address(requester(devnet)))
        == balance
    )
    # the mech's settlement used the signed nonce and charged the prepaid balance once
    assert market_nonce(devnet) == count + 1 and prepaid(devnet) == 2 * price
    # the retry read the same answer: one post, one settlement
    assert (
        not again.is_error
        and again.meta[REQUEST_META]["request_id"] == meta["request_id"]
    )
    assert len(endpoint.posts) == 1 and not endpoint.errors
    assert endpoint.posts[0]["request_id"] == meta["request_id_decimal"]


def test_a_short_prepaid_balance_ends_in_a_402_error_and_nothing_is_paid(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The 402 challenge is believed (the tracker, our chain) and said in words."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    tracker = devnet.info.contracts["FixtureBalanceTracker"].lower()
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    with OffchainResponder(devnet.info, [mech]) as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        nonce, count = account_nonce(devnet), market_nonce(devnet)
        (result,) = calls(devnet, tmp_path, 1, "--mech", mech, "--offchain", "only")
    text = result.content[0].text
    assert result.is_error
    assert f"prepaid 0 native < {price / 10**18:g} native required" in text, text
    # the amount in whole units, as `prepay --amount` reads it (never smallest units:
    # 5e15 read as whole units would be 5e15 of the native coin)
    whole = f"{price / 10**18:f}".rstrip("0").rstrip(".")
    assert tracker in text and f"prepay --mech {mech.lower()} --amount {whole}`" in text
    assert account_nonce(devnet) == nonce and market_nonce(devnet) == count
    assert prepaid(devnet) == 0 and len(endpoint.posts) == 1


def test_auto_posts_only_when_the_prepaid_balance_covers_the_price(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """``--offchain auto``: on chain with nothing prepaid, off-chain once it covers."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    with OffchainResponder(devnet.info, [mech]) as endpoint, responder(devnet):
        declare_url(devnet, service_id, endpoint.url)
        nonce = account_nonce(devnet)
        (onchain,) = calls(
            devnet, tmp_path, 1, "--mech", mech, "--offchain", "auto", prompt="first"
        )
        assert not onchain.is_error, onchain.content[0].text
        assert onchain.meta[REQUEST_META]["way"] == "onchain"
        assert not endpoint.posts and account_nonce(devnet) == nonce + 1
        prepay(devnet, price)
        nonce = account_nonce(devnet)
        (offchain,) = calls(
            devnet, tmp_path, 1, "--mech", mech, "--offchain", "auto", prompt="second"
        )
    assert not offchain.is_error, offchain.content[0].text
    assert offchain.meta[REQUEST_META]["way"] == "offchain"
    assert len(endpoint.posts) == 1 and account_nonce(devnet) == nonce
    assert prepaid(devnet) == 0


@pytest.mark.parametrize(
    "behaviour, said",
    [
        ("redirect", "a redirect, which is not followed"),
        ("oversized", "answered more than 65536 bytes"),
        ("slow", "did not answer within 10 s"),
        ("other_pay_to", "is not the balance tracker the marketplace names"),
        ("wrong_id", "without accepting request"),
    ],
)
def test_a_hostile_endpoint_is_a_precise_error_and_nothing_is_paid(
    chain_snapshot: Devnet, tmp_path: Path, behaviour: str, said: str
) -> None:
    """Each hostile answer is refused in words; no transaction, no settlement."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    with OffchainResponder(devnet.info, [mech], behaviour=behaviour) as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, price)
        nonce, count = account_nonce(devnet), market_nonce(devnet)
        (result,) = calls(devnet, tmp_path, 1, "--mech", mech, "--offchain", "only")
    text = result.content[0].text
    assert result.is_error and said in text, text
    assert f"mech {mech.lower()}'s endpoint {endpoint.url}" in text
    assert "attacker.example" not in text
    assert account_nonce(devnet) == nonce and market_nonce(devnet) == count
    assert prepaid(devnet) == price


def test_the_endpoint_refuses_a_request_signed_by_another_key(
    chain_snapshot: Devnet,
) -> None:
    """The stand-in checks the signature as the marketplace will (400, nothing settled)."""
    devnet = chain_snapshot
    mech, _ = native_mech(devnet)
    market = devnet.contract("MechMarketplace")
    sender = Web3.to_checksum_address(requester(devnet))
    contract = devnet.mech(mech)
    rate = contract.functions.maxDeliveryRate().call()
    data = bytes(range(32))
    nonce = market.functions.mapNonces(sender).call()
    rid = market.functions.getRequestId(
        mech,
        sender,
        data,
        rate,
        contract.functions.paymentType().call(),
        nonce,
    ).call()
    stranger = devnet.info.accounts["deployer"]["private_key"]
    signature = devnet.w3.eth.account.unsafe_sign_hash(rid, stranger).signature
    import requests  # pylint: disable=import-outside-toplevel

    with OffchainResponder(devnet.info, [mech]) as endpoint:
        answer = requests.post(
            endpoint.url + "/send_signed_requests",
            data={
                "request_id": str(int.from_bytes(rid, "big")),
                "ipfs_hash": "0x" + data.hex(),
                "ipfs_data": "{}",
                "sender": sender,
                "delivery_rate": str(rate),
                "nonce": str(nonce),
                "signature": "0x" + bytes(signature).hex(),
            },
            timeout=10,
        )
    assert answer.status_code == 400
    assert "does not recover to the sender" in answer.json()["reason"]
    assert not endpoint.settled


def test_the_stand_in_endpoint_command_declares_itself_and_prepays(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """``python -m scripts.devnet.offchain_responder --declare --prepay``: a call then works."""
    devnet = chain_snapshot
    mech, _ = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "scripts.devnet.offchain_responder",
        "--mech",
        mech,
        "--devnet-dir",
        str(devnet.info.state_dir),
        "--port",
        str(port),
        "--declare",
        "--prepay",
        str(price),
    ]
    with subprocess.Popen(  # nosec: our own module, fixed arguments
        command, stdout=subprocess.PIPE, text=True, cwd=str(ROOT), env=_env()
    ) as served:
        try:
            line = served.stdout.readline() if served.stdout else ""
            assert f"http://127.0.0.1:{port}" in line, line
            assert prepaid(devnet) == price
            (result,) = calls(devnet, tmp_path, 1, "--mech", mech, "--offchain", "only")
        finally:
            served.terminate()
    assert not result.is_error, result.content[0].text
    assert result.meta[REQUEST_META]["way"] == "offchain" and prepaid(devnet) == 0


def test_an_accepted_request_never_settled_times_out_and_a_retry_posts_nothing(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The mech accepts and never settles: a timeout in words; a new process only waits."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    price = int(devnet.mech(mech).functions.maxDeliveryRate().call())
    with OffchainResponder(devnet.info, [mech], behaviour="no_settle") as endpoint:
        declare_url(devnet, service_id, endpoint.url)
        prepay(devnet, price)
        nonce = account_nonce(devnet)
        for _ in range(2):  # two server processes, one journal
            (result,) = calls(
                devnet,
                tmp_path,
                1,
                "--mech",
                mech,
                "--offchain",
                "only",
                "--timeout",
                "2",
            )
            text = result.content[0].text
            assert result.is_error and "was not delivered within 2 s" in text, text
            assert "posted to its endpoint and accepted" in text
    assert len(endpoint.posts) == 1 and account_nonce(devnet) == nonce
    assert prepaid(devnet) == price
