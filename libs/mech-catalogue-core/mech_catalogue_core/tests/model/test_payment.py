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

"""How an offer is paid: per payment type, per requester's funds (model.payment)."""

from typing import Optional

import pytest
from mech_catalogue_core.model.payment import (
    ASSET_CREDITS,
    ASSET_NATIVE,
    ASSET_OLAS,
    ASSET_USDC,
    UINT256_MAX,
    AssetAmountError,
    Funds,
    asset_terms,
    format_amount,
    parse_asset_amounts,
    parse_price_limit,
    parse_units,
    payment_terms,
    plan_payment,
    plan_prepay,
    say_amount,
)
from mech_catalogue_core.model.vocabulary import PaymentStatus, PaymentWay

NATIVE = "0xba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1"
OLAS = "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9"
USDC = "0x6406bb5f31a732f898e1ce9fdd988a80a808d36ab5d9a4a4805a8be8d197d5e3"
NVM_USDC = "0x0d6fd99afa9c4c580fab5e341922c2a5c4b61d880da60506193d7bf88944dd14"
TRACKER = "0x" + "7a" * 20
TOKEN = "0x" + "70" * 20


def usdc_funds(wallet: int, allowance: int = 0, prepaid: int = 0) -> Funds:
    """A requester's USDC funds (6 decimals).

    :param wallet: balanceOf, 1e-6 USDC.
    :param allowance: allowance to the tracker.
    :param prepaid: the tracker's mapRequesterBalances.
    :return: the funds.
    """
    return Funds(TRACKER, TOKEN, 6, wallet, allowance, prepaid)


def test_each_ai_registry_mech_type_has_its_way_and_asset() -> None:
    """The PAYMENT_TYPE constants of the mech contracts map to way, asset and decimals."""
    got = {
        kind: (payment_terms(kind).way, payment_terms(kind).asset)
        for kind in (NATIVE, OLAS, USDC, NVM_USDC)
    }
    assert got == {
        NATIVE: (PaymentWay.NATIVE, ASSET_NATIVE),
        OLAS: (PaymentWay.TOKEN, ASSET_OLAS),
        USDC: (PaymentWay.TOKEN, ASSET_USDC),
        NVM_USDC: (PaymentWay.SUBSCRIPTION, ASSET_CREDITS),
    }
    assert payment_terms(USDC.upper().replace("0X", "0x")).decimals == 6
    assert payment_terms("0x" + "00" * 32).way is PaymentWay.UNKNOWN


def test_short_usdc_balance_is_said_in_usdc_not_in_smallest_units() -> None:
    """Allowance 0 and 2.75 USDC held for a 4 USDC price: short, in words, nothing approved."""
    plan = plan_payment(USDC, 4_000_000, usdc_funds(2_750_000))
    assert plan.status is PaymentStatus.SHORT_BALANCE
    assert "allowance 0 USDC and balance 2.75 USDC < 4 USDC" in plan.reason
    assert plan.reason.endswith("send 1.25 USDC to the paying account")
    assert plan.approve == 0 and plan.value == 0


def test_missing_allowance_approves_exactly_the_shortfall() -> None:
    """Prepaid 0.5 USDC covers part: approve exactly price - prepaid, no value ever."""
    plan = plan_payment(USDC, 3_000_000, usdc_funds(10**9, 100, 500_000))
    assert plan.status is PaymentStatus.NEEDS_APPROVAL
    assert plan.approve == 2_500_000
    assert plan.value == 0
    assert TRACKER in plan.reason


@pytest.mark.parametrize(
    "allowance, prepaid", [(7 * 10**17, 0), (0, 7 * 10**17), (10**17, 6 * 10**17)]
)
def test_allowance_or_prepaid_balance_covering_the_price_is_payable(
    allowance: int, prepaid: int
) -> None:
    """OLAS: the allowance, the prepaid balance or both together cover 0.7 OLAS."""
    funds = Funds(TRACKER, TOKEN, 18, 10**18, allowance, prepaid)
    plan = plan_payment(OLAS, 7 * 10**17, funds)
    assert plan.status is PaymentStatus.PAYABLE, plan.reason
    assert (plan.approve, plan.value) == (0, 0)


def test_native_sends_the_price_as_value_or_says_the_balance_is_short() -> None:
    """Native: value = price while the wallet holds it; else short with both amounts."""
    rich = Funds(TRACKER, "", 18, 10**18, 0, 0)
    assert plan_payment(NATIVE, 3 * 10**16, rich).value == 3 * 10**16
    poor = Funds(TRACKER, "", 18, 10**16, 0, 0)
    plan = plan_payment(NATIVE, 3 * 10**16, poor)
    assert plan.status is PaymentStatus.SHORT_BALANCE
    assert "0.03 native" in plan.reason and "0.01 native" in plan.reason


@pytest.mark.parametrize(
    "kind, price, status",
    [
        ("0x" + "ee" * 32, 10, PaymentStatus.UNSUPPORTED),
        ("", 10, PaymentStatus.UNSUPPORTED),
        (OLAS, None, PaymentStatus.PRICE_UNREAD),
        (OLAS, 0, PaymentStatus.PRICE_UNREAD),
        (OLAS, 10, PaymentStatus.UNCHECKED),
    ],
)
def test_types_and_prices_that_rule_a_payment_out(
    kind: str, price: Optional[int], status: PaymentStatus
) -> None:
    """Unknown or unread types and unread prices are never payable."""
    plan = plan_payment(kind, price, usdc_funds(10**12, 10**12))
    if status is not PaymentStatus.UNCHECKED:
        assert plan.status is status and plan.reason
    assert plan_payment(kind, price).status is status


def test_to_dict_writes_integers_as_text_and_funds_once_read() -> None:
    """A uint256 amount survives JSON; the tracker shows only once funds were read."""
    assert "tracker" not in plan_payment(OLAS, 2**255).to_dict()
    out = plan_payment(OLAS, 2**255, Funds(TRACKER, TOKEN, 18, 0, 0, 0)).to_dict()
    assert out["price"] == str(2**255) and out["tracker"] == TRACKER


@pytest.mark.parametrize(
    "amount, decimals, text",
    [
        (3_200_000, 6, "3.2 USDC"),
        (0, 6, "0 USDC"),
        (1, 18, "0.000000000000000001 USDC"),
    ],
)
def test_amounts_are_written_exactly(amount: int, decimals: int, text: str) -> None:
    """No float rounding: one wei is written as it is."""
    assert format_amount(amount, decimals, "USDC") == text


def test_caps_per_asset_and_a_bare_value_is_native() -> None:
    """``--max-spend 1e17 --max-spend olas=5e18 --max-spend usdc=2000000``."""
    caps = parse_asset_amounts(["1e17", "olas=5e18", "USDC=2000000"])
    assert caps == {ASSET_NATIVE: 10**17, ASSET_OLAS: 5 * 10**18, ASSET_USDC: 2 * 10**6}


@pytest.mark.parametrize(
    "value", ["dai=5", "olas=", "usdc=1.5", "native=-1", "olas=inf", "usdc=1e-3"]
)
def test_caps_that_are_no_whole_amount_of_a_known_asset_are_refused(
    value: str,
) -> None:
    """Unknown assets, fractions of a smallest unit, negatives and infinities."""
    with pytest.raises(AssetAmountError, match="'"):
        parse_asset_amounts([value])


def test_a_prepaid_native_balance_is_spent_first() -> None:
    """Prepaid covers the price: value 0; covers part: value = price - prepaid."""
    covered = plan_payment(NATIVE, 3 * 10**16, Funds(TRACKER, "", 18, 0, 0, 3 * 10**16))
    assert covered.status is PaymentStatus.PAYABLE and covered.value == 0
    part = plan_payment(NATIVE, 3 * 10**16, Funds(TRACKER, "", 18, 10**18, 0, 10**16))
    assert part.status is PaymentStatus.PAYABLE and part.value == 2 * 10**16
    short = plan_payment(NATIVE, 3 * 10**16, Funds(TRACKER, "", 18, 10**15, 0, 10**16))
    assert short.status is PaymentStatus.SHORT_BALANCE
    assert "prepaid 0.01 native and balance 0.001 native < 0.02 native" in short.reason


def test_a_prepaid_token_balance_covering_the_price_needs_no_approval() -> None:
    """1.5 USDC prepaid for a 1.5 USDC call: payable with allowance 0 and no approval."""
    plan = plan_payment(USDC, 1_500_000, usdc_funds(0, 0, 1_500_000))
    assert plan.status is PaymentStatus.PAYABLE
    assert (plan.approve, plan.value) == (0, 0)


def nvm_funds(held: int, prepaid: int = 0) -> Funds:
    """A requester's standing with a subscription tracker of plan 0xnft/7.

    :param held: ERC-1155 balance of the plan's token (credits).
    :param prepaid: the tracker's mapRequesterBalances (credits).
    :return: the funds.
    """
    return Funds(TRACKER, "", 0, 0, 0, prepaid, held, f"{TOKEN}/7")


def test_a_subscription_is_paid_with_credits_or_says_which_plan_it_needs() -> None:
    """Enough credits: payable, no value; none: the plan named, the credits held."""
    assert plan_payment(NVM_USDC, 10).status is PaymentStatus.UNCHECKED
    paid = plan_payment(NVM_USDC, 10, nvm_funds(10))
    assert paid.status is PaymentStatus.PAYABLE and (paid.value, paid.approve) == (0, 0)
    assert plan_payment(NVM_USDC, 10, nvm_funds(4, 6)).status is PaymentStatus.PAYABLE
    short = plan_payment(NVM_USDC, 10, nvm_funds(0))
    assert short.status is PaymentStatus.SHORT_BALANCE
    assert short.reason.startswith(
        f"needs a Nevermined subscription to plan {TOKEN}/7; you hold 0 credits"
    )
    out = short.to_dict()
    assert (out["credits"], out["plan"], out["asset"]) == ("0", f"{TOKEN}/7", "credits")


@pytest.mark.parametrize(
    "text, decimals, amount",
    [("1.5", 6, 1_500_000), ("2", 18, 2 * 10**18), ("0.000001", 6, 1), ("0", 6, 0)],
)
def test_amounts_in_whole_units(text: str, decimals: int, amount: int) -> None:
    """``prepay --amount 1.5`` with the token's decimals."""
    assert parse_units(text, decimals) == amount


@pytest.mark.parametrize("text", ["0.0000001", "-1", "one", "inf", "nan"])
def test_amounts_finer_than_the_decimals_or_no_number_are_refused(text: str) -> None:
    """A seventh USDC decimal, a negative, a word, an infinity."""
    with pytest.raises(AssetAmountError):
        parse_units(text, 6)


def test_a_native_deposit_is_deposit_for_with_value() -> None:
    """Native: depositFor(requester) with value = amount; no approval."""
    deposit = plan_prepay(NATIVE, 10**17, Funds(TRACKER, "", 18, 10**18, 0, 5))
    assert deposit.status is PaymentStatus.PAYABLE
    assert (deposit.function, deposit.value, deposit.approve) == (
        "depositFor",
        10**17,
        0,
    )
    assert deposit.to_dict()["prepaid_after"] == str(10**17 + 5)


def test_a_token_deposit_approves_exactly_the_amount_unless_allowed() -> None:
    """USDC: approve exactly 2 USDC (never more), deposit(2 USDC), no value."""
    deposit = plan_prepay(USDC, 2_000_000, usdc_funds(10**9, 1))
    assert deposit.status is PaymentStatus.NEEDS_APPROVAL
    assert (deposit.function, deposit.approve, deposit.value) == (
        "deposit",
        2_000_000,
        0,
    )
    allowed = plan_prepay(USDC, 2_000_000, usdc_funds(10**9, 2_000_000))
    assert allowed.status is PaymentStatus.PAYABLE and allowed.approve == 0


@pytest.mark.parametrize(
    "kind, amount, funds, cap, status, words",
    [
        (
            USDC,
            2_000_000,
            usdc_funds(10**9),
            1_999_999,
            PaymentStatus.OVER_CAP,
            "2 USDC is over the cap of 1.999999 USDC",
        ),
        (
            USDC,
            2_000_000,
            usdc_funds(500_000),
            None,
            PaymentStatus.SHORT_BALANCE,
            "balance 0.5 USDC < 2 USDC to deposit: send 1.5 USDC",
        ),
        (
            NVM_USDC,
            5,
            nvm_funds(0),
            None,
            PaymentStatus.UNSUPPORTED,
            "takes no deposit",
        ),
        (
            "0x" + "ee" * 32,
            5,
            usdc_funds(10),
            None,
            PaymentStatus.UNSUPPORTED,
            "none this software knows",
        ),
        (USDC, 0, usdc_funds(10), None, PaymentStatus.PRICE_UNREAD, "more than 0"),
    ],
)
def test_deposits_refused_with_why(
    kind: str,
    amount: int,
    funds: Funds,
    cap: Optional[int],
    status: PaymentStatus,
    words: str,
) -> None:
    """Over the cap, short, a subscription or unknown tracker, nothing: no function."""
    deposit = plan_prepay(kind, amount, funds, cap)
    assert deposit.status is status and words in deposit.reason
    assert (deposit.function, deposit.approve, deposit.value) == ("", 0, 0)


def test_price_limits_are_said_with_their_asset_in_whole_units() -> None:
    """``"1.5 usdc"`` is 1,500,000 smallest units; wei are native; past uint256, its top."""
    assert parse_price_limit("1.5 usdc") == ("usdc", 1_500_000)
    assert parse_price_limit("1.2345678 USDC") == ("usdc", 1_234_567)  # floored
    assert parse_price_limit(" 2 OLAS ") == ("olas", 2 * 10**18)
    assert parse_price_limit("0.01 native") == ("native", 10**16)
    assert parse_price_limit("5000 wei") == ("native", 5000)
    assert parse_price_limit(7) == ("native", 7)
    assert parse_price_limit("1e999999 usdc") == ("usdc", UINT256_MAX)
    for bad in (True, -1, "1e3", "", "1.5 wei", "1 eth", "-1 usdc"):
        with pytest.raises(AssetAmountError):
            parse_price_limit(bad)


def test_amounts_are_said_in_wei_for_native_and_whole_units_for_tokens() -> None:
    """Native in wei; a token in its units with the smallest units beside them."""
    assert say_amount(5000, "native") == "5000 wei"
    assert say_amount(1_500_000, "usdc") == "1.5 USDC (1500000 smallest units)"
    assert say_amount(10**18, "olas") == "1 OLAS (1000000000000000000 smallest units)"
    assert say_amount(3, "") == "3 smallest units of an unknown asset"
    terms = asset_terms("USDC")
    assert terms is not None and terms.decimals == 6 and terms.way == "token"
    assert asset_terms("eth") is None
