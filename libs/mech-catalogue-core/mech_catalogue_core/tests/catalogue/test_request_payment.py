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

"""How the requester service pays an offer through mech-interact: reasons, reads, checks."""

from dataclasses import replace
from typing import Any, Optional

import pytest
from eth_abi import encode
from eth_utils import keccak
from mech_catalogue_core.catalogue.request_payment import (
    PaymentReadError,
    RequestPayment,
    check_decimals,
    decimals_call,
    decode_address,
    decode_uint,
    payment_of,
    token_call,
    tracker_lookup_call,
    unpayable_reason,
)
from mech_catalogue_core.model.market import MechFacts

NATIVE, OLAS, USDC, NVM, NVM_USDC = (
    "0xba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1",
    "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9",
    "0x6406bb5f31a732f898e1ce9fdd988a80a808d36ab5d9a4a4805a8be8d197d5e3",
    "0x803dd08fe79d91027fc9024e254a0942372b92f3ccabc1bd19f4a5c2b251c316",
    "0x0d6fd99afa9c4c580fab5e341922c2a5c4b61d880da60506193d7bf88944dd14",
)
MECH, TRACKER, TOKEN = ("0x" + "aa" * 20, "0x" + "bb" * 20, "0x" + "cc" * 20)


def facts(payment_type: str, rate: int = 1_500_000) -> MechFacts:
    """Confirmed facts of one mech.

    :param payment_type: its paymentType() ("" unread).
    :param rate: its maxDeliveryRate.
    :return: the facts.
    """
    return MechFacts(
        address=MECH, confirmed=True, max_delivery_rate=rate, payment_type=payment_type
    )


@pytest.mark.parametrize(
    "payment_type, max_price, reason",
    [
        (NATIVE, None, None),
        ("", None, None),  # unread (legacy): paid as native value, as before
        (NATIVE, {"native": 1_500_000}, None),
        (NATIVE, {"native": 1_499_999}, "asks 1500000 wei, over the task's max_price"),
        (USDC, {"usdc": 1_500_000}, None),
        (USDC, None, "the task sets no max_price, so only the native token is paid"),
        (
            USDC,
            {"olas": 10**18},
            "paid in USDC, an asset the task's max_price does not",
        ),
        (USDC, {"usdc": 1_000_000}, "asks 1.5 USDC (1500000 smallest units), over"),
        (OLAS, {"olas": 1_500_000}, None),
        (NVM, {"native": 10**18}, "Nevermined subscription (native_nvm)"),
        (NVM_USDC, {"usdc": 10**9}, "CHAIN_TO_NVM_CONFIG"),
        ("0x" + "11" * 32, None, "not one mech-interact v0.32.3 pays"),
    ],
)
def test_each_offer_is_payable_or_says_why_not(
    payment_type: str, max_price: Any, reason: Optional[str]
) -> None:
    """Native and tokens under their caps are paid; everything else has a reason.

    :param payment_type: the mech's paymentType().
    :param max_price: the task's caps.
    :param reason: part of the expected reason (None: payable).
    """
    said = unpayable_reason(facts(payment_type), max_price)
    if reason is None:
        assert said is None
    else:
        assert said is not None and reason in said


def test_the_payment_round_trips_and_a_forged_one_is_none() -> None:
    """Only what to_json wrote is read back; a token payment needs its tracker and token."""
    chosen = payment_of(facts(USDC), {"usdc": 2_000_000})
    assert (chosen.asset, chosen.price, chosen.cap, chosen.by_token) == (
        "usdc",
        1_500_000,
        2_000_000,
        True,
    )
    assert RequestPayment.from_json(chosen.to_json()) is None  # no tracker yet
    assert RequestPayment.from_json(chosen.to_json(), completed=False) == chosen
    paid = chosen.with_token(TRACKER.upper().replace("0X", "0x"), TOKEN)
    assert RequestPayment.from_json(paid.to_json()) == paid
    assert paid.tracker == TRACKER and paid.token_checksum.lower() == TOKEN
    for forged in (
        None,
        "",
        "[]",
        "{",
        paid.to_json().replace(MECH, "0xnot"),
        paid.to_json().replace('"price": 1500000', '"price": "1500000"'),
        paid.to_json().replace(TOKEN, "0x12"),
        paid.to_json()[:-1] + ', "extra": 1}',
    ):
        assert RequestPayment.from_json(forged) is None, forged


def test_the_chain_at_request_time_can_refuse_the_payment() -> None:
    """Another type, a rate over the cap or too few tokens: a reason, nothing paid."""
    paid = payment_of(facts(USDC), {"usdc": 2_000_000}).with_token(TRACKER, TOKEN)
    assert paid.refusal(USDC, 1_500_000, 1_500_000) is None
    assert paid.refusal(USDC.upper().replace("0X", "0x"), 2_000_000, 10**9) is None
    assert "now declares payment type" in str(paid.refusal(OLAS, 1_500_000, 10**9))
    assert "now asks 2.000001 USDC" in str(paid.refusal(USDC, 2_000_001, 10**9))
    short = str(paid.refusal(USDC, 1_500_000, 1_499_999))
    assert "the Safe holds 1.499999 USDC" in short and "send the Safe" in short
    # without a cap (native), the agreed price is the bound
    native = payment_of(facts(NATIVE, 10**15), None)
    assert native.refusal(NATIVE, 10**15, 0) is None
    assert "now asks" in str(native.refusal(NATIVE, 10**15 + 1, 0))


def test_the_three_reads_encode_and_decode_as_the_contracts_do() -> None:
    """Selectors are the functions'; a zero or malformed answer is refused."""
    lookup = tracker_lookup_call(USDC)
    assert lookup[:4] == keccak(text="mapPaymentTypeBalanceTrackers(bytes32)")[:4]
    assert lookup[4:] == bytes.fromhex(USDC[2:])
    assert token_call() == keccak(text="token()")[:4]
    assert decimals_call() == keccak(text="decimals()")[:4]
    assert decode_address(encode(["address"], [TRACKER]), "t") == TRACKER
    assert decode_uint(encode(["uint256"], [6]), "d") == 6
    with pytest.raises(PaymentReadError, match="zero address"):
        decode_address(bytes(32), "MechMarketplace lookup")
    with pytest.raises(PaymentReadError, match="not an address"):
        decode_address(b"\x01" * 32, "t")
    with pytest.raises(PaymentReadError, match="not an address"):
        decode_address(b"", "t")
    with pytest.raises(PaymentReadError, match="not a uint256"):
        decode_uint(b"\x00" * 31, "d")


def test_a_token_whose_decimals_are_not_the_asset_s_is_refused() -> None:
    """A USDC tracker naming an 18-decimal token would misread the task's caps."""
    paid = payment_of(facts(USDC), {"usdc": 2_000_000}).with_token(TRACKER, TOKEN)
    check_decimals(paid, 6)
    with pytest.raises(PaymentReadError, match="18 decimals, not the 6 of usdc"):
        check_decimals(paid, 18)
    check_decimals(replace(paid, payment_type=OLAS, asset="olas"), 18)
