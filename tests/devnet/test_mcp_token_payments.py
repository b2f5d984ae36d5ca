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

"""The MCP server pays native, OLAS and USDC mechs on the devnet (issue 31).

Real components: anvil with the real MechMarketplace bytecode, the stand-in tokens and
token tracker (``scripts/devnet/contracts/TokenPayments.sol``), kubo, the server started
by the MCP SDK's own client over stdio, the stand-in responder delivering. Every amount
is read from the contracts before and after the call.
"""

import json
from pathlib import Path
from typing import Any, Dict, Tuple

import anyio
import pytest
from web3 import Web3

from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry, JournalError
from mech_catalogue_cli.mcp_server.market import Marketplace
from mech_catalogue_cli.mcp_server.payment import TokenPayer
from scripts.devnet import Devnet
from scripts.devnet.marketplace import tracker_key
from tests.devnet.mcp_helpers import (
    call_once,
    framed_answer,
    market_nonce,
    marketplace_mech_of,
    price_of,
    request_info,
    requester,
    responder,
    stdio_client,
)

TOOL = "prediction-online"  # offered by the deployed service's three mechs
REQUEST_META = "io.olas/mech-request"
ARGUMENTS = {"prompt": "Will the bridge open on time?", "temperature": 0.5}


def holdings(devnet: Devnet, asset: str) -> Dict[str, int]:
    """What the requester holds of ``asset`` and what the tracker holds.

    :param devnet: the devnet.
    :param asset: ``native``, ``olas`` or ``usdc``.
    :return: ``{"wallet", "allowance", "prepaid", "tracker", "account_nonce"}``.
    """
    account = Web3.to_checksum_address(requester(devnet))
    eth = devnet.w3.eth
    if asset == "native":
        tracker = Web3.to_checksum_address(
            devnet.info.contracts["FixtureBalanceTracker"]
        )
        return {
            "wallet": eth.get_balance(account),
            "allowance": 0,
            "prepaid": 0,
            "tracker": eth.get_balance(tracker),
            "account_nonce": eth.get_transaction_count(account),
        }
    token = devnet.token(asset)
    tracked = Web3.to_checksum_address(devnet.info.contracts[tracker_key(asset)])
    return {
        "wallet": token.functions.balanceOf(account).call(),
        "allowance": token.functions.allowance(account, tracked).call(),
        "prepaid": devnet.tracker(asset).functions.mapRequesterBalances(account).call(),
        "tracker": token.functions.balanceOf(tracked).call(),
        "account_nonce": eth.get_transaction_count(account),
    }


def call(devnet: Devnet, state: Path, *extra: str) -> Any:
    """One tools/call of TOOL through the SDK's client over stdio.

    :param devnet: the devnet.
    :param state: the server's state folder (its journal).
    :param extra: server options.
    :return: the result.
    """
    return call_once(devnet, state, TOOL, ARGUMENTS, "--timeout", "60", *extra)


@pytest.mark.parametrize("asset", ["native", "olas", "usdc"])
def test_each_asset_is_paid_exactly_its_price_and_a_retry_pays_nothing(
    chain_snapshot: Devnet, tmp_path: Path, asset: str
) -> None:
    """Native: value = price; tokens: approve exactly the price, no value; a retry: no tx."""
    devnet = chain_snapshot
    mech = marketplace_mech_of(devnet, asset)
    price = price_of(devnet, mech)
    before = holdings(devnet, asset)
    nonce = market_nonce(devnet)
    with responder(devnet):
        result = call(devnet, tmp_path, "--mech", mech)
    assert not result.is_error, result.content[0].text
    meta = result.meta[REQUEST_META]
    after = holdings(devnet, asset)
    info = request_info(devnet, meta["request_id"])
    assert info["deliveryRate"] == price and market_nonce(devnet) == nonce + 1
    assert after["tracker"] - before["tracker"] == price
    if asset == "native":
        assert before["wallet"] - after["wallet"] > price  # the price and gas
        assert after["account_nonce"] == before["account_nonce"] + 1
    else:
        assert before["wallet"] - after["wallet"] == price
        assert after["allowance"] == before["allowance"] == 0
        assert after["account_nonce"] == before["account_nonce"] + 2  # approve, request
        (path,) = (tmp_path / "calls").glob("*.json")  # the one call's entry
        entry = Journal(tmp_path).load(path.stem)
        assert entry is not None and entry.extra["approval"]["amount"] == price
        transaction = devnet.w3.eth.get_transaction(meta["tx_hash"])
        assert transaction["value"] == 0
    again = call(devnet, tmp_path, "--mech", mech)
    assert not again.is_error and json.loads(
        framed_answer(again.content[0].text)
    ) == json.loads(framed_answer(result.content[0].text))
    assert holdings(devnet, asset) == after and market_nonce(devnet) == nonce + 1


def _drain(devnet: Devnet, asset: str, keep: int) -> None:
    """Move the requester's token away, all but ``keep`` smallest units."""
    account = requester(devnet)
    token = devnet.token(asset)
    held = token.functions.balanceOf(account).call()
    sink = devnet.address("deployer")
    devnet.transact(token.functions.transfer(sink, held - keep), account)


@pytest.mark.parametrize("asset", ["olas", "usdc"])
def test_a_short_token_balance_is_said_in_units_and_nothing_is_sent(
    chain_snapshot: Devnet, tmp_path: Path, asset: str
) -> None:
    """One smallest unit short: an error naming balance and need; no approval, no request."""
    devnet = chain_snapshot
    mech = marketplace_mech_of(devnet, asset)
    _drain(devnet, asset, price_of(devnet, mech) - 1)
    before = holdings(devnet, asset)
    nonce = market_nonce(devnet)
    result = call(devnet, tmp_path, "--mech", mech)
    assert result.is_error
    text = result.content[0].text
    symbol = asset.upper()
    assert f"priced in {symbol}" in text and "balance" in text and "needed" in text
    assert "nothing was sent" in text
    assert holdings(devnet, asset) == before and market_nonce(devnet) == nonce


def test_a_token_price_over_its_assets_cap_is_refused(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """--max-price usdc=<below the price>: refused by its asset's cap, nothing sent."""
    devnet = chain_snapshot
    mech = marketplace_mech_of(devnet, "usdc")
    price = price_of(devnet, mech)
    before = holdings(devnet, "usdc")
    capped = call(devnet, tmp_path, "--mech", mech, "--max-price", f"usdc={price - 1}")
    assert capped.is_error and f"--max-price usdc={price - 1}" in capped.content[0].text
    assert holdings(devnet, "usdc") == before


def test_a_price_raised_after_listing_is_refused_at_send_time(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A price raised past --max-price olas=... after listing: nothing approved or paid."""
    devnet = chain_snapshot
    mech = marketplace_mech_of(devnet, "olas")
    price = price_of(devnet, mech)
    before = holdings(devnet, "olas")
    nonce = market_nonce(devnet)

    async def main() -> Tuple[Any, Any]:
        extra = ("--mech", mech, "--max-price", f"olas={price}", "--timeout", "60")
        async with stdio_client(devnet, tmp_path, *extra) as client:
            await client.list_tools()
            devnet.change_max_delivery_rate(mech, price * 3)
            return await client.call_tool(TOOL, ARGUMENTS), None

    result, _ = anyio.run(main)
    assert result.is_error
    assert str(price * 3) in result.content[0].text
    assert holdings(devnet, "olas") == before and market_nonce(devnet) == nonce


def _payer(devnet: Devnet, tmp_path: Path) -> Tuple[TokenPayer, Journal]:
    """The server's token payer and journal over the devnet, paying as the requester."""
    market = Marketplace(
        devnet.info.rpc_url,
        devnet.info.contracts["MechMarketplace"],
        str(devnet.info.accounts["stranger"]["private_key"]),
    )
    return TokenPayer(market), Journal(tmp_path)


def _entry(devnet: Devnet, asset: str) -> JournalEntry:
    """A prepared entry for the asset's mech at its price (nothing sent yet)."""
    mech = marketplace_mech_of(devnet, asset)
    payment_type = "0x" + bytes(devnet.mech(mech).functions.paymentType().call()).hex()
    return JournalEntry(
        key="ab" * 32,
        tool=TOOL,
        mech=mech.lower(),
        price=price_of(devnet, mech),
        payment_type=payment_type,
        cid="",
        data="0x" + "00" * 32,
        market_nonce=0,
        request_id="0x" + "00" * 32,
        from_block=0,
    )


def test_a_retry_after_the_approval_never_approves_again(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The approval is journalled and mined, the request never sent: no second approval."""
    devnet = chain_snapshot
    payer, journal = _payer(devnet, tmp_path)
    first = _entry(devnet, "usdc")
    assert payer.ensure_allowance(first, None, journal.save, 30) == ""
    approved = holdings(devnet, "usdc")
    assert approved["allowance"] == first.price  # exactly the shortfall
    saved = journal.load(first.key)
    assert saved is not None and saved.extra["approval"]["amount"] == first.price
    retry = _entry(devnet, "usdc")
    assert payer.ensure_allowance(retry, saved, journal.save, 30) == ""
    assert holdings(devnet, "usdc") == approved  # no transaction at all


def test_a_tampered_approval_record_is_refused_before_anything_is_sent(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """An approval record with another amount type or an extra field: JournalError."""
    devnet = chain_snapshot
    payer, journal = _payer(devnet, tmp_path)
    first = _entry(devnet, "olas")
    payer.ensure_allowance(first, None, journal.save, 30)
    before = holdings(devnet, "olas")
    for change in ({"amount": "1"}, {"to": "0x" + "11" * 20}, {"raw_tx": "0xzz"}):
        tampered = _entry(devnet, "olas")
        tampered.extra = {"approval": {**first.extra["approval"], **change}}
        with pytest.raises(JournalError):
            payer.ensure_allowance(_entry(devnet, "olas"), tampered, journal.save, 30)
    assert holdings(devnet, "olas") == before


def test_a_dry_run_says_whether_this_requester_can_pay_and_what_it_would_approve(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """--dry-run on the USDC mech: approve exactly the price, value 0; short: why, in USDC."""
    devnet = chain_snapshot
    mech = marketplace_mech_of(devnet, "usdc")
    price = price_of(devnet, mech)
    before = holdings(devnet, "usdc")
    planned = call(devnet, tmp_path, "--mech", mech, "--dry-run")
    body = planned.meta[REQUEST_META]
    assert body["payment"]["status"] == "needs_approval"
    assert body["payment"]["approve"] == str(price) and body["payment"]["decimals"] == 6
    assert int(body["transaction"]["value"], 16) == 0
    _drain(devnet, "usdc", price // 2)
    short = call(devnet, tmp_path, "--mech", mech, "--dry-run").meta[REQUEST_META]
    assert short["payment"]["status"] == "short_balance"
    assert "balance 0.75 USDC < 1.5 USDC needed" in short["payment"]["reason"]
    assert holdings(devnet, "usdc")["account_nonce"] == before["account_nonce"] + 1
