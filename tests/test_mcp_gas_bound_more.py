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

"""The gas bounds on a cancellation and on the gas estimate itself (adv29zp F1, item 5).

Without a chain, with the node stand-in of ``tests/test_mcp_gas_bound``: a
cancellation is signed within ``--max-fee-per-gas`` or not at all; the node is asked
its estimate within ``--max-gas`` (``eth_estimateGas``'s ``gas``), and its answer that
the transaction runs out of gas there is the refusal over ``--max-gas``. The estimate's
time with a burning mech on the devnet: ``tests/test_mcp_gas_bound_devnet.py``.
"""

import time
from typing import Any, Dict, List, Optional, Tuple

import pytest
from eth_account.typed_transactions import TypedTransaction
from hexbytes import HexBytes
from web3.exceptions import ContractLogicError, Web3RPCError

from mech_catalogue_cli.mcp_server.gas_skips import GasSkip
from mech_catalogue_cli.mcp_server.market import (
    DEFAULT_MAX_GAS,
    EstimateReverted,
    GasOverBound,
    MarketError,
    Marketplace,
    SignedRequest,
)
from mech_catalogue_cli.mcp_server.market_errors import FeeOverCap
from mech_catalogue_cli.mcp_server.refused_offers import RevertingMechs, gas_refusal
from tests.test_mcp_gas_bound import GWEI, MARKET, _market


def _fees(raw_tx: str) -> Dict[str, Any]:
    return dict(TypedTransaction.from_bytes(HexBytes(raw_tx)).as_dict())


def _request(market: Marketplace) -> SignedRequest:
    transaction = {"from": market.requester, "to": MARKET, "value": 0, "data": "0x"}
    return market.sign({**transaction, "chainId": 31337})


@pytest.mark.parametrize(
    "signed_at, cap, price_then",
    [
        (2 * GWEI, 10 * GWEI, 1 * GWEI),  # twice the price: far under the cap
        (2 * GWEI, 10 * GWEI, 5 * GWEI),  # the price up since: cut to the cap
        (4 * GWEI, 5 * GWEI, 2 * GWEI),  # 10 % over 4 gwei fits under 5
    ],
)
def test_a_cancellation_under_the_cap_is_signed_within_it(
    signed_at: int, cap: int, price_then: int
) -> None:
    """It outbids the request by 10 % at least, and never passes the cap."""
    market = _market(300_000, base_fee=signed_at // 2, fee_cap=cap)
    request = _request(market)
    assert _fees(request.raw_tx)["maxFeePerGas"] == signed_at
    node: Any = market.w3.eth  # the node stand-in of tests/test_mcp_gas_bound
    node.base_fee = price_then
    fees = _fees(market.sign_cancel(request).raw_tx)
    assert signed_at * 11 // 10 <= fees["maxFeePerGas"] <= cap
    assert fees["maxPriorityFeePerGas"] <= fees["maxFeePerGas"]
    assert fees["nonce"] == request.account_nonce and fees["value"] == 0


@pytest.mark.parametrize(
    "gas_price, cap, price_then, least",
    [
        (10 * GWEI, 10 * GWEI, 10 * GWEI, 11 * GWEI),  # signed at the cap
        (5 * GWEI, 10 * GWEI, 11 * GWEI, 11 * GWEI),  # the price now over the cap
        (int(4.6 * GWEI), 10 * GWEI, GWEI, int(10.12 * GWEI)),  # 9.2 signed: 10.12
    ],
)
def test_a_cancellation_over_the_cap_is_not_signed_and_says_what_to_do(
    gas_price: int, cap: int, price_then: int, least: int
) -> None:
    """Refused as a request over the cap is, with the fee it would need."""
    market = _market(300_000, base_fee=gas_price, fee_cap=cap)
    request = _request(market)
    node: Any = market.w3.eth  # the node stand-in of tests/test_mcp_gas_bound
    node.base_fee = price_then
    with pytest.raises(FeeOverCap) as raised:
        market.sign_cancel(request)
    said = str(raised.value)
    assert f"at least {least:,} wei per gas" in said
    assert f"--max-fee-per-gas {cap:,} wei: the cancellation was not signed" in said
    assert f"give --max-fee-per-gas {least:,} or more" in said
    assert request.tx_hash in said and "may still be mined" in said


def test_under_the_default_cap_the_cancellation_outbids_twice_as_before() -> None:
    """The default cap (100 gwei): twice the request's fee or the base fee, plus a tip."""
    market = _market(300_000, base_fee=10 * GWEI)
    request = _request(market)
    fees = _fees(market.sign_cancel(request).raw_tx)
    assert fees["maxFeePerGas"] == 40 * GWEI + GWEI
    assert fees["maxPriorityFeePerGas"] == GWEI


class _BoundedNode:
    """A node that remembers what it was asked to estimate, and answers as told."""

    chain_id = 31337
    gas_price = 1000 * GWEI  # a lie the signer never reads

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.asked: List[Dict[str, Any]] = []

    def get_transaction_count(self, *_args: Any) -> int:
        """The pending nonce."""
        return 4

    def get_block(self, _tag: str) -> Dict[str, Any]:
        """The latest block, at a base fee of 1 gwei."""
        return {"number": 77, "baseFeePerGas": GWEI}

    def estimate_gas(self, tx: Dict[str, Any]) -> int:
        """The estimate told, or the error told."""
        self.asked.append(dict(tx))
        if isinstance(self.answer, Exception):
            raise self.answer
        return int(self.answer)


def _node(
    answer: Any, max_gas: Optional[int] = None
) -> Tuple[Marketplace, _BoundedNode]:
    market = _market(0)
    if max_gas is not None:
        market.max_gas = max_gas
    node = _BoundedNode(answer)
    # setattr: an assignment would make pylint infer every Web3's eth as this stub
    setattr(market.w3, "eth", node)
    return market, node


@pytest.mark.parametrize("max_gas", [DEFAULT_MAX_GAS, 50_000, 30_000_000])
def test_the_estimate_is_asked_within_the_bound(max_gas: int) -> None:
    """``eth_estimateGas`` gets ``gas = --max-gas``; the signed gas stays as before."""
    market, node = _node(40_000, max_gas)
    signed = _request(market)
    assert [asked["gas"] for asked in node.asked] == [max_gas]
    assert _fees(signed.raw_tx)["gas"] == min(48_000, max_gas)


@pytest.mark.parametrize(
    "message",
    [
        "Out of gas: gas required exceeds allowance: 1000000",  # anvil
        "gas required exceeds allowance (1000000)",  # geth
        "out of gas",
    ],
)
def test_a_node_out_of_gas_within_the_bound_is_over_max_gas(message: str) -> None:
    """The node's words for a burner: the refusal over ``--max-gas``, nothing signed."""
    market, _ = _node(Web3RPCError(message))
    with pytest.raises(GasOverBound) as raised:
        _request(market)
    assert raised.value.estimate is None and raised.value.bound == DEFAULT_MAX_GAS
    assert f"more than {DEFAULT_MAX_GAS:,} gas" in str(raised.value)
    refusal = gas_refusal(MARKET, raised.value.estimate, raised.value.bound)
    assert f"would take more than {DEFAULT_MAX_GAS:,} gas" in refusal


@pytest.mark.parametrize(
    "error, kind",
    [
        (Web3RPCError("insufficient funds for transfer"), MarketError),
        (ContractLogicError("execution reverted", data="0x"), EstimateReverted),
    ],
)
def test_other_estimate_failures_are_not_taken_for_gas(
    error: Exception, kind: type
) -> None:
    """A node's other refusal, or a revert, is not said to be over ``--max-gas``."""
    market, _ = _node(error)
    with pytest.raises(kind) as raised:
        _request(market)
    assert not isinstance(raised.value, GasOverBound)


@pytest.mark.parametrize(
    "bound_now, skipped", [(DEFAULT_MAX_GAS, True), (2 * 10**6, False)]
)
def test_a_skip_the_node_stopped_at_the_bound_is_kept_and_said_as_such(
    bound_now: int, skipped: bool
) -> None:
    """Kept as the bound plus one: skipped under that bound, tried under a higher one."""
    refusal = gas_refusal(MARKET, None, DEFAULT_MAX_GAS)
    assert refusal.estimate == DEFAULT_MAX_GAS + 1 and refusal.bound == DEFAULT_MAX_GAS
    mechs = RevertingMechs(3600.0)
    skip = GasSkip(MARKET, time.time(), refusal.estimate, refusal.bound)
    mechs.learn_gas([skip], bound_now)
    why = mechs.why(MARKET)
    assert (why is not None) == skipped
    if why is not None:
        assert f"more than {DEFAULT_MAX_GAS:,} gas" in why and "1,000,001" not in why
