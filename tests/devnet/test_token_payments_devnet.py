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

"""Token-priced mechs on the devnet: the real MechMarketplace routing to a token tracker.

Real components: anvil with the real MechMarketplace bytecode; our stand-ins for OLAS
(18 decimals), USDC (6 decimals), their balance tracker and mech factories
(``scripts/devnet/contracts/TokenPayments.sol``) follow ai-registry-mech's interfaces.
Every amount is read from the contracts before and after, never taken from the seed.
"""

from typing import Any, Dict

import pytest
from web3 import Web3
from web3.exceptions import ContractLogicError
from web3.types import RPCEndpoint, TxParams, Wei

from scripts.devnet import Devnet
from scripts.devnet.marketplace import (
    MAX_RESPONSE_TIMEOUT,
    TOKEN_ASSETS,
    tracker_key,
)
from scripts.devnet.responder import Responder

ASSETS = tuple(TOKEN_ASSETS)


def token_mech(devnet: Devnet, asset: str) -> str:
    """Return the seeded mech priced in ``asset``.

    :param devnet: the devnet.
    :param asset: ``olas`` or ``usdc``.
    :return: its checksummed address.
    """
    return next(m["address"] for m in devnet.info.mechs if m.get("asset") == asset)


def holdings(devnet: Devnet, asset: str, account: str) -> Dict[str, int]:
    """Read an account's token balance, allowance and prepaid balance, and the tracker's.

    :param devnet: the devnet.
    :param asset: the token asset.
    :param account: the requester.
    :return: ``{"wallet", "allowance", "prepaid", "tracker"}`` in smallest units.
    """
    token = devnet.token(asset)
    tracker = devnet.info.contracts[tracker_key(asset)]
    return {
        "wallet": token.functions.balanceOf(account).call(),
        "allowance": token.functions.allowance(account, tracker).call(),
        "prepaid": devnet.tracker(asset).functions.mapRequesterBalances(account).call(),
        "tracker": token.functions.balanceOf(tracker).call(),
    }


@pytest.mark.parametrize("asset", ASSETS)
def test_the_marketplace_routes_each_token_type_to_its_tracker(
    devnet: Devnet, asset: str
) -> None:
    """mapPaymentTypeBalanceTrackers(type) is the token tracker; decimals as the real token."""
    payment_type, symbol, decimals = TOKEN_ASSETS[asset]
    market = devnet.contract("MechMarketplace")
    tracker = market.functions.mapPaymentTypeBalanceTrackers(payment_type).call()
    assert tracker == devnet.info.contracts[tracker_key(asset)]
    assert devnet.tracker(asset).functions.token().call() == devnet.token(asset).address
    assert devnet.token(asset).functions.decimals().call() == decimals
    assert devnet.token(asset).functions.symbol().call() == symbol
    mech = devnet.mech(token_mech(devnet, asset))
    assert mech.functions.paymentType().call() == payment_type


@pytest.mark.parametrize("asset", ASSETS)
def test_a_token_request_moves_exactly_the_price_and_is_delivered(
    chain_snapshot: Devnet, asset: str
) -> None:
    """approve(price) + request with no value: the price leaves the wallet, nothing else."""
    devnet = chain_snapshot
    requester = devnet.address("stranger")
    mech = token_mech(devnet, asset)
    price = devnet.mech(mech).functions.maxDeliveryRate().call()
    before = holdings(devnet, asset, requester)
    start = devnet.w3.eth.block_number
    with Responder(devnet.info, [mech], from_block=start, interval=0.3) as answering:
        request_id = devnet.request_token_mech(mech, b"token call", requester, asset)
        answering.wait_for(request_id, timeout=60)
    after = holdings(devnet, asset, requester)
    assert before["wallet"] - after["wallet"] == price
    assert after["tracker"] - before["tracker"] == price
    assert after["allowance"] == before["allowance"] == 0
    assert after["prepaid"] == before["prepaid"]
    status = devnet.contract("MechMarketplace").functions.getRequestStatus(request_id)
    assert status.call() == 3  # Delivered
    mech_balance = devnet.tracker(asset).functions.mapMechBalances(mech).call()
    assert mech_balance == price


def _request(devnet: Devnet, asset: str, requester: str, value: int) -> Any:
    """Call MechMarketplace.request for the asset's mech (eth_call: reverts raise)."""
    mech = token_mech(devnet, asset)
    price = devnet.mech(mech).functions.maxDeliveryRate().call()
    call = devnet.contract("MechMarketplace").functions.request(
        b"x", price, TOKEN_ASSETS[asset][0], mech, MAX_RESPONSE_TIMEOUT, b""
    )
    params: TxParams = {"from": requester, "value": Wei(value)}
    return call.call(params)


@pytest.mark.parametrize("asset", ASSETS)
def test_a_token_request_reverts_on_value_short_allowance_or_short_balance(
    chain_snapshot: Devnet, asset: str
) -> None:
    """Value sent, allowance one unit short, balance short: each reverts, nothing moves."""
    devnet = chain_snapshot
    requester = devnet.address("stranger")
    mech = token_mech(devnet, asset)
    price = devnet.mech(mech).functions.maxDeliveryRate().call()
    tracker = devnet.info.contracts[tracker_key(asset)]
    token = devnet.token(asset)
    devnet.transact(token.functions.approve(tracker, price), requester)
    with pytest.raises(ContractLogicError):  # NoDepositAllowed
        _request(devnet, asset, requester, 1)
    devnet.transact(token.functions.approve(tracker, price - 1), requester)
    with pytest.raises(ContractLogicError):  # the pull exceeds the allowance
        _request(devnet, asset, requester, 0)
    poor = Web3.to_checksum_address("0x" + "5a" * 20)
    devnet.w3.provider.make_request(
        RPCEndpoint("anvil_setBalance"), [poor, hex(10**18)]
    )
    devnet.w3.provider.make_request(RPCEndpoint("anvil_impersonateAccount"), [poor])
    devnet.mint(asset, poor, price - 1)
    devnet.transact(token.functions.approve(tracker, price), poor)
    with pytest.raises(ContractLogicError):  # the wallet holds one unit less
        _request(devnet, asset, poor, 0)
    assert token.functions.balanceOf(poor).call() == price - 1
