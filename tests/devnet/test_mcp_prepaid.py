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

"""Prepaid balances, subscriptions and funds that change under a call (issue 31).

Real components: anvil with the real MechMarketplace bytecode and the devnet's trackers
(native, token, Nevermined subscription stand-ins following ai-registry-mech's
interfaces), kubo, ``mech-catalogue prepay`` run by click's runner, the MCP server started
by the SDK's own client over stdio, the stand-in responder delivering. Every amount is
read from the contracts before and after. The revoked allowance is a real transaction
mined in the same block as the server's approval (anvil's automine paused for that one
block), so the server reads the allowance after both.
"""

import json
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List

import anyio
import pytest
from click.testing import CliRunner, Result
from web3 import Web3
from web3.types import RPCEndpoint

from mech_catalogue_cli.app import cli
from mech_catalogue_cli.commands.mcp_cmd import DEVNET_REQUESTER_ROLE
from mech_catalogue_cli.mcp_server.journal import Journal
from scripts.devnet import Devnet
from scripts.devnet.marketplace import tracker_key
from tests.devnet.mcp_helpers import (
    call_once,
    market_nonce,
    marketplace_mech_of,
    price_of,
    request_info,
    requester,
    responder,
    stdio_client,
)

TOOL = "prediction-online"  # offered by the deployed service's mechs
REQUEST_META = "io.olas/mech-request"
ARGUMENTS = {"prompt": "Will the bridge open on time?", "temperature": 0.5}


def tracker_of(devnet: Devnet, asset: str) -> Any:
    """The tracker contract of an asset's fixed-price type, or the subscription's."""
    name = {
        "native": "FixtureBalanceTracker",
        "subscription": "FixtureNvmBalanceTracker",
    }.get(asset)
    key = name or tracker_key(asset)
    return devnet.w3.eth.contract(
        address=Web3.to_checksum_address(devnet.info.contracts[key]),
        abi=[
            {
                "type": "function",
                "name": "mapRequesterBalances",
                "stateMutability": "view",
                "inputs": [{"type": "address", "name": "a"}],
                "outputs": [{"type": "uint256", "name": ""}],
            }
        ],
    )


def holdings(devnet: Devnet, asset: str) -> Dict[str, int]:
    """The requester's wallet, allowance, prepaid balance, credits and account nonce.

    :param devnet: the devnet.
    :param asset: ``native``, ``olas``, ``usdc`` or ``subscription``.
    :return: ``{"wallet", "allowance", "prepaid", "credits", "account_nonce"}``.
    """
    account = Web3.to_checksum_address(requester(devnet))
    eth = devnet.w3.eth
    out = {
        "wallet": eth.get_balance(account),
        "allowance": 0,
        "prepaid": tracker_of(devnet, asset)
        .functions.mapRequesterBalances(account)
        .call(),
        "credits": devnet.credits_of(account),
        "account_nonce": eth.get_transaction_count(account),
    }
    if asset in ("olas", "usdc"):
        token = devnet.token(asset)
        tracker = Web3.to_checksum_address(devnet.info.contracts[tracker_key(asset)])
        out["wallet"] = token.functions.balanceOf(account).call()
        out["allowance"] = token.functions.allowance(account, tracker).call()
    return out


def prepay(devnet: Devnet, state: Path, *args: str) -> Result:
    """Run ``mech-catalogue prepay --devnet-dir ... --json`` in process.

    :param devnet: the devnet.
    :param state: the state folder (its prepay/ journal).
    :param args: more options.
    :return: the result.
    """
    return CliRunner().invoke(
        cli,
        [
            "prepay",
            "--devnet-dir",
            str(devnet.info.state_dir),
            "--state-dir",
            str(state),
            "--json",
            *args,
        ],
        catch_exceptions=False,
    )


def call(devnet: Devnet, state: Path, *extra: str) -> Any:
    """One tools/call of TOOL through the SDK's client over stdio.

    :param devnet: the devnet.
    :param state: the server's state folder (its journal).
    :param extra: server options.
    :return: the result.
    """
    return call_once(devnet, state, TOOL, ARGUMENTS, "--timeout", "60", *extra)


@pytest.mark.parametrize("asset, amount", [("usdc", "1.5"), ("native", "0.005")])
def test_prepay_is_a_dry_run_until_yes_and_a_rerun_never_deposits_twice(
    chain_snapshot: Devnet, tmp_path: Path, asset: str, amount: str
) -> None:
    """Dry run: nothing sent; --yes: exactly the amount moved once; again: nothing."""
    devnet = chain_snapshot
    before = holdings(devnet, asset)
    planned = prepay(devnet, tmp_path, "--asset", asset, "--amount", amount)
    assert planned.exit_code == 0, planned.output
    assert holdings(devnet, asset) == before
    body = json.loads(planned.output)
    units = int(body["deposit"]["amount"])
    assert [t["what"] for t in body["transactions"]] == (
        ["approve", "deposit"] if asset == "usdc" else ["depositFor"]
    )
    done = prepay(devnet, tmp_path, "--asset", asset, "--amount", amount, "--yes")
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["status"] == "deposited"
    after = holdings(devnet, asset)
    assert after["prepaid"] - before["prepaid"] == units
    if asset == "usdc":
        assert before["wallet"] - after["wallet"] == units
        assert after["allowance"] == 0  # approved exactly the amount, all pulled
        assert after["account_nonce"] == before["account_nonce"] + 2
    else:
        assert before["wallet"] - after["wallet"] > units  # and gas
        assert after["account_nonce"] == before["account_nonce"] + 1
    again = prepay(devnet, tmp_path, "--asset", asset, "--amount", amount, "--yes")
    assert json.loads(again.output)["status"] == "already_deposited"
    assert holdings(devnet, asset) == after


def test_prepay_refuses_over_its_cap_a_short_wallet_and_subscriptions(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Each refusal says why in units; nothing is sent."""
    devnet = chain_snapshot
    before = holdings(devnet, "usdc")
    capped = prepay(
        devnet,
        tmp_path,
        "--asset",
        "usdc",
        "--amount",
        "2",
        "--max-amount",
        "1.5",
        "--yes",
    )
    assert (
        capped.exit_code == 1 and "2 USDC is over the cap of 1.5 USDC" in capped.output
    )
    short = prepay(devnet, tmp_path, "--asset", "usdc", "--amount", "5000", "--yes")
    assert "balance 1000 USDC < 5000 USDC to deposit" in short.output
    nvm = prepay(
        devnet,
        tmp_path,
        "--mech",
        marketplace_mech_of(devnet, "subscription"),
        "--amount",
        "1",
    )
    assert nvm.exit_code == 1 and "takes no deposit" in nvm.output
    fine = prepay(devnet, tmp_path, "--asset", "usdc", "--amount", "0.0000001")
    assert fine.exit_code == 2 and "more than 6 decimals" in fine.output
    assert "'--amount'" in fine.output  # the usage error names its option
    words = prepay(devnet, tmp_path, "--asset", "usdc", "--amount", "abc")
    assert words.exit_code == 2 and "'--amount'" in words.output
    ceiling = prepay(
        devnet, tmp_path, "--asset", "usdc", "--amount", "1", "--max-amount", "1e"
    )
    assert ceiling.exit_code == 2 and "'--max-amount'" in ceiling.output
    assert holdings(devnet, "usdc") == before


def test_show_lists_each_tracker_with_prepaid_balance_and_allowance(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """--show: native, OLAS, USDC and the subscription plan, with what was deposited."""
    devnet = chain_snapshot
    prepay(devnet, tmp_path, "--asset", "olas", "--amount", "2", "--yes")
    shown = json.loads(prepay(devnet, tmp_path, "--show").output)
    rows = {row["type_name"]: row for row in shown["trackers"]}
    assert set(rows) == {"native", "token_olas", "token_usdc", "native_nvm"}
    assert rows["token_olas"]["prepaid_units"] == "2 OLAS"
    assert rows["token_olas"]["allowance"] == "0"
    assert rows["native_nvm"]["credits"] == "0"
    assert rows["native_nvm"]["plan"].endswith("/1")


def test_show_and_a_dry_run_name_the_account_they_are_about(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Issue 33: the text said balances but not whose; it names the paying account."""
    devnet = chain_snapshot
    account = devnet.info.accounts[DEVNET_REQUESTER_ROLE]["address"]
    marketplace = devnet.info.contracts["MechMarketplace"]
    common = ["prepay", "--devnet-dir", str(devnet.info.state_dir)]
    common += ["--state-dir", str(tmp_path)]
    shown = CliRunner().invoke(cli, [*common, "--show"], catch_exceptions=False)
    assert shown.exit_code == 0, shown.output
    first = shown.stdout.splitlines()[0].lower()
    assert first.startswith(f"prepaid balances of account {account.lower()}")
    assert marketplace.lower() in first
    dry = CliRunner().invoke(
        cli, [*common, "--asset", "olas", "--amount", "1"], catch_exceptions=False
    )
    assert (
        dry.exit_code == 0 and f"from account {account}".lower() in dry.stdout.lower()
    )


@pytest.mark.parametrize(
    "asset, amount", [("native", "0.01"), ("usdc", "3"), ("olas", "1")]
)
def test_a_prepaid_call_is_one_transaction_paid_from_the_prepaid_balance(
    chain_snapshot: Devnet, tmp_path: Path, asset: str, amount: str
) -> None:
    """Exactly the price leaves the prepaid balance; no value, no approval, one tx."""
    devnet = chain_snapshot
    assert (
        prepay(
            devnet, tmp_path, "--asset", asset, "--amount", amount, "--yes"
        ).exit_code
        == 0
    )
    mech = marketplace_mech_of(devnet, asset)
    price = price_of(devnet, mech)
    before = holdings(devnet, asset)
    assert before["prepaid"] >= price
    nonce = market_nonce(devnet)
    with responder(devnet):
        result = call(devnet, tmp_path, "--mech", mech)
    assert not result.is_error, result.content[0].text
    meta = result.meta[REQUEST_META]
    after = holdings(devnet, asset)
    assert before["prepaid"] - after["prepaid"] == price
    assert after["account_nonce"] == before["account_nonce"] + 1  # the request only
    assert devnet.w3.eth.get_transaction(meta["tx_hash"])["value"] == 0
    assert request_info(devnet, meta["request_id"])["deliveryRate"] == price
    assert market_nonce(devnet) == nonce + 1
    if asset == "native":
        assert 0 < before["wallet"] - after["wallet"] < price  # gas only
    else:
        assert after["wallet"] == before["wallet"]
        assert after["allowance"] == before["allowance"] == 0


def test_a_prepaid_balance_short_with_a_short_wallet_is_said_in_units(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """1 USDC prepaid, 0.4 held, a 1.5 USDC call: what is missing, nothing sent."""
    devnet = chain_snapshot
    prepay(devnet, tmp_path, "--asset", "usdc", "--amount", "1", "--yes")
    account = requester(devnet)
    token = devnet.token("usdc")
    held = token.functions.balanceOf(account).call()
    devnet.transact(
        token.functions.transfer(devnet.address("deployer"), held - 400_000), account
    )
    before = holdings(devnet, "usdc")
    nonce = market_nonce(devnet)
    result = call(devnet, tmp_path, "--mech", marketplace_mech_of(devnet, "usdc"))
    assert result.is_error
    text = result.content[0].text
    assert (
        "prepaid 1 USDC, allowance 0 USDC and balance 0.4 USDC < 0.5 USDC needed"
        in text
    )
    assert "send 0.1 USDC" in text and "nothing was sent" in text
    assert holdings(devnet, "usdc") == before and market_nonce(devnet) == nonce


def test_a_subscription_mech_burns_exactly_its_price_in_credits(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Credits held: the request carries no value and burns the price in credits."""
    devnet = chain_snapshot
    mech = marketplace_mech_of(devnet, "subscription")
    price = price_of(devnet, mech)
    devnet.mint_credits(requester(devnet), price + 3)
    before = holdings(devnet, "subscription")
    with responder(devnet):
        result = call(devnet, tmp_path, "--mech", mech)
    assert not result.is_error, result.content[0].text
    meta = result.meta[REQUEST_META]
    after = holdings(devnet, "subscription")
    assert before["credits"] - after["credits"] == price and after["credits"] == 3
    assert devnet.w3.eth.get_transaction(meta["tx_hash"])["value"] == 0
    assert after["account_nonce"] == before["account_nonce"] + 1
    assert before["wallet"] - after["wallet"] < 10**15  # gas only


def test_no_credits_is_a_precise_error_naming_the_plan_and_nothing_is_sent(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """No credits: the error and _meta name the plan and the credits held."""
    devnet = chain_snapshot
    before = holdings(devnet, "subscription")
    nonce = market_nonce(devnet)
    result = call(
        devnet, tmp_path, "--mech", marketplace_mech_of(devnet, "subscription")
    )
    assert result.is_error
    plan = devnet.info.contracts["FixtureSubscriptionCredits"].lower() + "/1"
    assert f"needs a Nevermined subscription to plan {plan}; you hold 0 credits" in (
        result.content[0].text
    )
    (refused,) = result.meta[REQUEST_META]["refused"]
    assert refused["payment"]["status"] == "short_balance"
    assert refused["payment"]["credits"] == "0" and refused["payment"]["plan"] == plan
    assert holdings(devnet, "subscription") == before and market_nonce(devnet) == nonce


def _rpc(devnet: Devnet, method: str, params: List[Any]) -> Any:
    return devnet.w3.provider.make_request(RPCEndpoint(method), params).get("result")


def _revoke_with_the_next_approval(devnet: Devnet, asset: str) -> threading.Thread:
    """Pause automine; when the requester's approval is pending, revoke it in its block.

    The revocation is the requester's own ``approve(tracker, 0)`` at the next nonce, so
    both are mined by one ``evm_mine``: the server's receipt wait ends only after the
    allowance is already 0 again.

    :param devnet: the devnet.
    :param asset: the token asset.
    :return: the watcher thread (started).
    """
    account = devnet.info.accounts["stranger"]
    token = devnet.token(asset)
    tracker = Web3.to_checksum_address(devnet.info.contracts[tracker_key(asset)])
    _rpc(devnet, "evm_setAutomine", [False])

    def watch() -> None:
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                pool = _rpc(devnet, "txpool_content", []) or {}
                pending = {
                    k.lower(): v for k, v in (pool.get("pending") or {}).items()
                }.get(str(account["address"]).lower(), {})
                approvals = [
                    tx
                    for tx in pending.values()
                    if str(tx.get("to", "")).lower() == token.address.lower()
                ]
                if approvals:
                    nonce = int(str(approvals[0]["nonce"]), 0) + 1
                    revoke = token.functions.approve(tracker, 0).build_transaction(
                        {
                            "from": Web3.to_checksum_address(account["address"]),
                            "nonce": nonce,
                            "gas": 100_000,
                            "maxFeePerGas": devnet.w3.eth.gas_price * 2,
                            "maxPriorityFeePerGas": 0,
                            "chainId": devnet.w3.eth.chain_id,
                        }
                    )
                    signed = devnet.w3.eth.account.sign_transaction(
                        revoke, account["private_key"]
                    )
                    devnet.w3.eth.send_raw_transaction(signed.raw_transaction)
                    _rpc(devnet, "evm_mine", [])
                    return
                time.sleep(0.05)
        finally:
            _rpc(devnet, "evm_setAutomine", [True])

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def automine_restored(chain_snapshot: Devnet) -> Iterator[Devnet]:
    """The devnet, automine back on after the test whatever happened."""
    try:
        yield chain_snapshot
    finally:
        _rpc(chain_snapshot, "evm_setAutomine", [True])


def test_an_allowance_revoked_after_the_approval_is_said_and_the_retry_approves_again(
    automine_restored: Devnet, tmp_path: Path
) -> None:
    """Revoked in the approval's block: a worded error, no request; the retry pays once."""
    devnet = automine_restored
    mech = marketplace_mech_of(devnet, "usdc")
    price = price_of(devnet, mech)
    before = holdings(devnet, "usdc")
    nonce = market_nonce(devnet)
    watcher = _revoke_with_the_next_approval(devnet, "usdc")
    first = call(devnet, tmp_path, "--mech", mech)
    watcher.join(timeout=60)
    assert first.is_error
    text = first.content[0].text
    assert "the approval of exactly 1.5 USDC" in text
    assert "the allowance is now 0 USDC (revoked" in text
    # what was signed, said once (fix29zzd): the approval, not the request
    assert "the request itself was not signed" in text and "approval (tx 0x" in text
    assert "nothing was sent" not in text
    assert "0x08c379a0" not in text and "execution reverted" not in text
    revoked = holdings(devnet, "usdc")
    assert revoked["wallet"] == before["wallet"] and revoked["allowance"] == 0
    assert market_nonce(devnet) == nonce  # no request
    with responder(devnet):
        again = call(devnet, tmp_path, "--mech", mech)
    assert not again.is_error, again.content[0].text
    after = holdings(devnet, "usdc")
    assert before["wallet"] - after["wallet"] == price  # paid once
    assert after["allowance"] == 0 and market_nonce(devnet) == nonce + 1
    (path,) = (tmp_path / "calls").glob("*.json")
    entry = Journal(tmp_path).load(path.stem)
    assert entry is not None and entry.extra["approval"]["amount"] == price


def test_a_prepay_journal_entry_it_did_not_write_stops_the_deposit(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """An altered entry: exit 1 naming the file; nothing sent, nothing deposited."""
    devnet = chain_snapshot
    done = prepay(devnet, tmp_path, "--asset", "olas", "--amount", "1", "--yes")
    assert done.exit_code == 0, done.output
    journal = Path(json.loads(done.output)["journal"])
    entry = json.loads(journal.read_text(encoding="utf-8"))
    entry["deposit"]["account_nonce"] = "7"  # a type this software never writes
    journal.write_text(json.dumps(entry), encoding="utf-8")
    before = holdings(devnet, "olas")
    again = prepay(devnet, tmp_path, "--asset", "olas", "--amount", "1", "--yes")
    assert again.exit_code == 1 and "not one this software wrote" in again.output
    assert str(journal) in again.output.replace("\n", "")
    assert holdings(devnet, "olas") == before


def test_a_price_raised_after_listing_leaves_the_prepaid_balance_alone(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Prepaid native, the price raised past --max-price: refused in words, nothing moves."""
    devnet = chain_snapshot
    prepay(devnet, tmp_path, "--asset", "native", "--amount", "0.05", "--yes")
    mech = marketplace_mech_of(devnet, "native")
    price = price_of(devnet, mech)
    before = holdings(devnet, "native")
    nonce = market_nonce(devnet)

    async def main() -> Any:
        extra = ("--mech", mech, "--max-price", str(price), "--timeout", "60")
        async with stdio_client(devnet, tmp_path, *extra) as client:
            await client.list_tools()
            devnet.change_max_delivery_rate(mech, price * 3)
            return await client.call_tool(TOOL, ARGUMENTS)

    result = anyio.run(main)
    assert result.is_error and str(price * 3) in result.content[0].text
    assert holdings(devnet, "native") == before and market_nonce(devnet) == nonce
