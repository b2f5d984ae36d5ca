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

"""How one marketplace offer is paid, and whether this requester can pay it now (pure).

Source of every rule: valory-xyz/ai-registry-mech ``contracts/`` (solc 0.8.28 builds).
A mech declares ``PAYMENT_TYPE`` (a keccak256 hash); ``MechMarketplace.request`` finds the
balance tracker of that type in ``mapPaymentTypeBalanceTrackers(paymentType)`` and calls
its ``checkAndRecordDeliveryRates(requester, n, rate, paymentData)``:

- native (``MechFixedPriceNative``, ``BalanceTrackerFixedPriceNative``): the tracker adds
  ``msg.value`` to the requester's prepaid balance (``mapRequesterBalances``) and debits
  the price, so a request sends only what the prepaid balance lacks; prepaying is
  ``depositFor(account)`` with value (or a plain transfer, its ``receive``);
- OLAS or USDC token (``MechFixedPriceToken``, ``MechFixedPriceTokenUSDC``,
  ``BalanceTrackerFixedPriceToken``): any ``msg.value`` reverts (``NoDepositAllowed``);
  when the prepaid balance is short, the tracker pulls the difference from the requester
  with ``token.transferFrom(requester, tracker, difference)``, so the requester must have
  approved the tracker for at least that difference and hold it; prepaying is
  ``approve(tracker, amount)`` then ``deposit(amount)``;
- Nevermined subscriptions (``MechNvmSubscriptionNative``,
  ``MechNvmSubscriptionTokenUSDC``, ``BalanceTrackerNvmSubscription{Native,Token}``):
  the price is in credits of the tracker's plan, the ERC-1155 ``subscriptionNFT()`` token
  ``subscriptionTokenId()``; ``request`` carries no value (any reverts,
  ``NoDepositAllowed``) and the tracker burns ``price - prepaid`` credits of the
  requester (``_adjustInitialBalance``); deposits revert. Credits are bought from
  Nevermined, never by this software: a requester holding too few gets the error
  "needs a Nevermined subscription to plan <id>; you hold N credits".

:func:`payment_terms` says how an offer is paid (no requester; what ``/mechs``,
``/tools/<name>`` and ``list`` show); :func:`plan_payment` adds the requester's
:class:`Funds` and says whether it can pay now, what to approve and what value to send,
or why not in words; :func:`plan_prepay` decides a deposit (``prepay``). Amounts are
integers in the asset's smallest unit (wei for native and OLAS, 1e-6 USDC for USDC,
whole credits for subscriptions); :func:`format_amount` writes them in whole units and
:func:`parse_units` reads them.
"""

import re
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal, InvalidOperation
from typing import Any, Dict, Iterable, Mapping, Optional, Tuple, Union

from mech_catalogue_core.model.vocabulary import PaymentStatus, PaymentWay

#: the asset keys of ``--max-price`` / ``--max-spend`` (``olas=5e18``) and of ``asset``
ASSET_NATIVE = "native"
ASSET_OLAS = "olas"
ASSET_USDC = "usdc"
#: subscription mechs are priced in credits of their tracker's plan, not in money: their
#: own cap (``--max-price credits=10``), 0 (never paid) unless given off the devnet
ASSET_CREDITS = "credits"
ASSETS = (ASSET_NATIVE, ASSET_OLAS, ASSET_USDC, ASSET_CREDITS)


@dataclass(frozen=True, slots=True)
class PaymentTerms:
    """How one payment type is paid, before any requester is looked at.

    :param payment_type: ``paymentType()``, 0x + 64 lowercase hex ("" when unread).
    :param name: mech-interact's name of the type (``token_usdc``...), "" when unknown.
    :param way: :class:`PaymentWay`.
    :param asset: :data:`ASSET_NATIVE`, :data:`ASSET_OLAS`, :data:`ASSET_USDC` or, for
        subscriptions, :data:`ASSET_CREDITS` ("" when unknown).
    :param symbol: the asset's display symbol (``OLAS``, ``USDC``, ``native``,
        ``credits``).
    :param decimals: the asset's decimals (native and OLAS 18; USDC 6, as Circle's USDC;
        credits 0).
    """

    payment_type: str
    name: str
    way: PaymentWay
    asset: str
    symbol: str
    decimals: int


#: ``PAYMENT_TYPE`` constant of each ai-registry-mech mech (keccak256 of the comment's
#: text in each contract) -> its terms; names as mech-interact v0.32.3 ``PaymentType``.
_TERMS: Mapping[str, PaymentTerms] = {
    terms.payment_type: terms
    for terms in (
        PaymentTerms(  # MechFixedPriceNative: keccak256(FixedPriceNative)
            "0xba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1",
            "native",
            PaymentWay.NATIVE,
            ASSET_NATIVE,
            "native",
            18,
        ),
        PaymentTerms(  # MechFixedPriceToken: keccak256(FixedPriceToken)
            "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9",
            "token_olas",
            PaymentWay.TOKEN,
            ASSET_OLAS,
            "OLAS",
            18,
        ),
        PaymentTerms(  # MechFixedPriceTokenUSDC: keccak256(FixedPriceTokenUSDC)
            "0x6406bb5f31a732f898e1ce9fdd988a80a808d36ab5d9a4a4805a8be8d197d5e3",
            "token_usdc",
            PaymentWay.TOKEN,
            ASSET_USDC,
            "USDC",
            6,
        ),
        PaymentTerms(  # MechNvmSubscriptionNative: keccak256(NvmSubscriptionNative)
            "0x803dd08fe79d91027fc9024e254a0942372b92f3ccabc1bd19f4a5c2b251c316",
            "native_nvm",
            PaymentWay.SUBSCRIPTION,
            ASSET_CREDITS,
            "credits",
            0,
        ),
        PaymentTerms(  # MechNvmSubscriptionTokenUSDC: keccak256(NvmSubscriptionTokenUSDC)
            "0x0d6fd99afa9c4c580fab5e341922c2a5c4b61d880da60506193d7bf88944dd14",
            "token_nvm_usdc",
            PaymentWay.SUBSCRIPTION,
            ASSET_CREDITS,
            "credits",
            0,
        ),
    )
}


def payment_terms(payment_type: str) -> PaymentTerms:
    """Return how a payment type is paid.

    :param payment_type: ``paymentType()``, 0x + 64 hex, any case ("" when unread).
    :return: its terms; an unread or unknown type has way :attr:`PaymentWay.UNKNOWN`,
        asset "" and 0 decimals.
    """
    key = payment_type.lower()
    return _TERMS.get(key) or PaymentTerms(key, "", PaymentWay.UNKNOWN, "", "", 0)


def asset_terms(asset: str) -> Optional[PaymentTerms]:
    """Return the fixed-price terms of an asset: its symbol and decimals.

    :param asset: one of :data:`ASSETS` (any case).
    :return: the terms of the asset's fixed-price type, or None for an unknown asset.
    """
    wanted = asset.strip().lower()
    return next(
        (
            terms
            for terms in _TERMS.values()
            if terms.asset == wanted and terms.way is not PaymentWay.SUBSCRIPTION
        ),
        None,
    )


def say_amount(amount: int, asset: str) -> str:
    """Say an amount of an asset for a person: wei for native, whole units for tokens.

    :param amount: smallest units.
    :param asset: one of :data:`ASSETS`.
    :return: e.g. ``"5000 wei"``, ``"1.5 USDC (1500000 smallest units)"``; an unknown
        asset is said as ``"<amount> smallest units of <asset>"``.
    """
    terms = asset_terms(asset)
    if terms is None:
        return f"{amount} smallest units of {asset or 'an unknown asset'}"
    if terms.asset == ASSET_NATIVE:
        return f"{amount} wei"
    return (
        f"{format_amount(amount, terms.decimals, terms.symbol)} "
        f"({amount} smallest units)"
    )


@dataclass(frozen=True, slots=True)
class Funds:
    """What the requester holds for one offer's asset, read at one block.

    :param tracker: the balance tracker of the offer's payment type
        (``MechMarketplace.mapPaymentTypeBalanceTrackers``), lowercase 0x hex.
    :param token: the ERC-20 the tracker pulls (its ``token()``), "" for native.
    :param decimals: the token's ``decimals()`` (18 for native).
    :param wallet: the requester's balance of the asset (``balanceOf`` or the account's
        native balance), smallest unit.
    :param allowance: ``token.allowance(requester, tracker)`` (0 for native).
    :param prepaid: ``tracker.mapRequesterBalances(requester)``, smallest unit.
    :param credits: subscriptions only: the requester's credits,
        ``IERC1155(subscriptionNFT()).balanceOf(requester, subscriptionTokenId())``.
    :param plan: subscriptions only: ``<subscriptionNFT>/<subscriptionTokenId>``, the plan
        whose credits the tracker burns ("" otherwise).
    """

    tracker: str
    token: str
    decimals: int
    wallet: int
    allowance: int
    prepaid: int
    credits: int = 0
    plan: str = ""


@dataclass(frozen=True, slots=True)
class Payment:  # pylint: disable=too-many-instance-attributes
    """How one offer is paid and whether this requester can pay it now.

    :param terms: the payment type's :class:`PaymentTerms`.
    :param price: ``maxDeliveryRate()`` in the asset's smallest unit (None: unread).
    :param status: :class:`PaymentStatus`.
    :param reason: why it cannot be paid as is, in words ("" when payable).
    :param funds: the requester's :class:`Funds` (None: not read).
    :param approve: the token amount to ``approve(tracker, approve)`` before the request
        (0: none); exactly what the prepaid balance lacks, never more.
    :param value: the native value to send with ``request``: what the prepaid balance
        lacks for native (0 when it covers the price), always 0 for tokens and
        subscriptions (their trackers revert on any value).
    """

    terms: PaymentTerms
    price: Optional[int]
    status: PaymentStatus
    reason: str = ""
    funds: Optional[Funds] = None
    approve: int = 0
    value: int = 0

    @property
    def decimals(self) -> int:
        """Return the asset's decimals: the token's own once read, else the type's.

        :return: the decimals.
        """
        return self.funds.decimals if self.funds is not None else self.terms.decimals

    def to_dict(self) -> Dict[str, Any]:
        """Return the payment as JSON (integers as decimal strings, null = unread).

        :return: ``{"payment_type", "type_name", "way", "asset", "symbol", "decimals",
            "price", "price_units", "status", "reason", "approve", "value"}`` and, once
            the requester's funds were read, ``"tracker", "token", "wallet",
            "allowance", "prepaid"`` (subscriptions also ``"credits", "plan"``).
        """
        terms = self.terms
        out: Dict[str, Any] = {
            "payment_type": terms.payment_type,
            "type_name": terms.name,
            "way": terms.way,
            "asset": terms.asset,
            "symbol": terms.symbol,
            "decimals": self.decimals,
            "price": None if self.price is None else str(self.price),
            "price_units": (
                None
                if self.price is None or not terms.asset
                else format_amount(self.price, self.decimals, terms.symbol)
            ),
            "status": self.status,
            "reason": self.reason,
            "approve": str(self.approve),
            "value": str(self.value),
        }
        if self.funds is not None:
            funds = self.funds
            out.update(
                tracker=funds.tracker,
                token=funds.token,
                wallet=str(funds.wallet),
                allowance=str(funds.allowance),
                prepaid=str(funds.prepaid),
            )
            if terms.way is PaymentWay.SUBSCRIPTION:
                out.update(credits=str(funds.credits), plan=funds.plan)
        return out


def format_amount(amount: int, decimals: int, symbol: str) -> str:
    """Write an amount of smallest units in whole units, exactly (no rounding).

    :param amount: smallest units (e.g. 3200000 with 6 decimals).
    :param decimals: the asset's decimals.
    :param symbol: appended after a space ("" for none).
    :return: e.g. ``"3.2 USDC"``, ``"0 OLAS"``, ``"0.000000000000000001 native"``.
    """
    whole = Decimal(amount).scaleb(-decimals) if decimals else Decimal(amount)
    text = f"{whole:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"{text} {symbol}".strip()


def _refusal(terms: PaymentTerms, price: Optional[int]) -> Optional[Payment]:
    """The payment when the type or the price alone rule it out (None otherwise)."""
    if terms.way is PaymentWay.UNKNOWN:
        what = (
            f"payment type {terms.payment_type} is none of the ai-registry-mech mechs'"
            if terms.payment_type
            else "its paymentType() could not be read (a legacy mech, or the call failed)"
        )
        return Payment(
            terms,
            price,
            PaymentStatus.UNSUPPORTED,
            f"{what}; this server pays native, OLAS and USDC fixed-price mechs and "
            "Nevermined subscription mechs",
        )
    if price is None or price < 1:
        return Payment(terms, price, PaymentStatus.PRICE_UNREAD, "price unread")
    return None


def _token_plan(terms: PaymentTerms, price: int, funds: Funds) -> Payment:
    """An ERC-20 offer: approve what the prepaid balance lacks, if the wallet holds it."""
    shortfall = max(0, price - funds.prepaid)

    def units(amount: int) -> str:
        return format_amount(amount, funds.decimals, terms.symbol)

    if shortfall == 0:
        return Payment(terms, price, PaymentStatus.PAYABLE, "", funds)
    if funds.wallet < shortfall:
        return Payment(
            terms,
            price,
            PaymentStatus.SHORT_BALANCE,
            f"priced in {terms.symbol} at {units(price)}; prepaid {units(funds.prepaid)}"
            f", allowance {units(funds.allowance)} and balance {units(funds.wallet)} < "
            f"{units(shortfall)} needed: send {units(shortfall - funds.wallet)} "
            "to the paying account",
            funds,
        )
    if funds.allowance >= shortfall:
        return Payment(terms, price, PaymentStatus.PAYABLE, "", funds)
    return Payment(
        terms,
        price,
        PaymentStatus.NEEDS_APPROVAL,
        f"allowance {units(funds.allowance)} < {units(shortfall)} needed: approve "
        f"{funds.tracker} for exactly {units(shortfall)} first",
        funds,
        approve=shortfall,
    )


def _subscription_plan(terms: PaymentTerms, price: int, funds: Funds) -> Payment:
    """A subscription offer: the tracker burns ``price - prepaid`` credits, no value."""
    needed = max(0, price - funds.prepaid)
    if funds.credits >= needed:
        return Payment(terms, price, PaymentStatus.PAYABLE, "", funds)
    return Payment(
        terms,
        price,
        PaymentStatus.SHORT_BALANCE,
        f"needs a Nevermined subscription to plan {funds.plan or '(unread)'}; you hold "
        f"{funds.credits} credits and a call costs {needed} (priced at {price} credits, "
        f"{funds.prepaid} prepaid): buy credits of that plan from Nevermined",
        funds,
    )


def _native_plan(terms: PaymentTerms, price: int, funds: Funds) -> Payment:
    """A native offer: send what the prepaid balance lacks, if the wallet holds it."""
    value = max(0, price - funds.prepaid)
    if funds.wallet < value:

        def units(amount: int) -> str:
            return format_amount(amount, funds.decimals, terms.symbol)

        return Payment(
            terms,
            price,
            PaymentStatus.SHORT_BALANCE,
            f"priced at {units(price)}; prepaid {units(funds.prepaid)} and balance "
            f"{units(funds.wallet)} < {units(value)} needed",
            funds,
        )
    return Payment(terms, price, PaymentStatus.PAYABLE, "", funds, value=value)


def plan_payment(
    payment_type: str, price: Optional[int], funds: Optional[Funds] = None
) -> Payment:
    """Decide how to pay one offer and whether this requester can now.

    Native: ``request`` carries ``value = price - prepaid`` (0 when the prepaid balance
    covers the price: the tracker debits it); payable while the wallet holds that value
    (gas aside). Token: no value; the tracker pulls ``price - prepaid`` with
    ``transferFrom``, so that shortfall must be both held and approved; when only the
    approval is missing the plan approves exactly the shortfall. Subscription: no value;
    the account must hold ``price - prepaid`` credits of the tracker's plan.

    :param payment_type: ``paymentType()``, 0x + 64 hex ("" when unread).
    :param price: ``maxDeliveryRate()`` in the asset's smallest unit (None: unread).
    :param funds: the requester's :class:`Funds` for this asset (None: not read, e.g.
        in the catalogue's views).
    :return: the :class:`Payment`; never raises.
    """
    terms = payment_terms(payment_type)
    refused = _refusal(terms, price)
    if refused is not None or price is None:  # _refusal answers an unread price
        return refused or Payment(terms, price, PaymentStatus.PRICE_UNREAD)
    if funds is None:
        if terms.way is PaymentWay.SUBSCRIPTION:
            return Payment(
                terms,
                price,
                PaymentStatus.UNCHECKED,
                f"paid with {price} credits of its tracker's Nevermined subscription plan "
                f"({terms.name}), burnt per request; a requester holding none cannot pay",
            )
        return Payment(terms, price, PaymentStatus.UNCHECKED)
    if terms.way is PaymentWay.TOKEN:
        return _token_plan(terms, price, funds)
    if terms.way is PaymentWay.SUBSCRIPTION:
        return _subscription_plan(terms, price, funds)
    return _native_plan(terms, price, funds)


class AssetAmountError(ValueError):
    """A ``--max-price`` / ``--max-spend`` value that is no ``[asset=]amount``."""


def parse_asset_amounts(values: Iterable[str]) -> Dict[str, int]:
    """Read ``--max-price`` / ``--max-spend`` values: ``[asset=]amount`` in smallest units.

    ``amount`` is an integer or a decimal/scientific number that is a whole number of
    smallest units (``1e17``, ``5e18``, ``2000000``); ``asset`` is one of
    :data:`ASSETS`; a bare amount means native (the option's meaning before tokens).

    :param values: the option's values, in order (a later one replaces an earlier one of
        the same asset).
    :return: asset -> amount.
    :raises AssetAmountError: naming the value and what is expected.
    """
    caps: Dict[str, int] = {}
    for value in values:
        asset, _, amount = value.rpartition("=")
        asset = asset.strip().lower() or ASSET_NATIVE
        if asset not in ASSETS:
            raise AssetAmountError(
                f"{value!r}: unknown asset {asset!r}; use one of {', '.join(ASSETS)}"
            )
        try:
            number = Decimal(amount.strip())
        except InvalidOperation as exc:
            raise AssetAmountError(
                f"{value!r}: {amount!r} is not a number of smallest units"
            ) from exc
        if not number.is_finite() or number < 0 or number != number.to_integral():
            raise AssetAmountError(
                f"{value!r}: the amount must be a whole, non-negative number of the "
                "asset's smallest units (e.g. 5e18 for 5 OLAS, 2e6 for 2 USDC)"
            )
        caps[asset] = int(number)
    return caps


def parse_units(text: str, decimals: int) -> int:
    """Read an amount written in whole units (``1.5``, ``0.25``, ``2``) as smallest units.

    :param text: a non-negative decimal number, with at most ``decimals`` fraction digits
        (``1.5`` USDC is 1500000; ``0.0000001`` USDC is refused: USDC has 6 decimals).
    :param decimals: the asset's decimals (the token's ``decimals()``).
    :return: the amount in smallest units.
    :raises AssetAmountError: naming the value and what is expected.
    """
    try:
        number = Decimal(text.strip())
    except InvalidOperation as exc:
        raise AssetAmountError(
            f"{text!r} is not an amount in whole units (e.g. 1.5)"
        ) from exc
    if not number.is_finite() or number < 0:
        raise AssetAmountError(f"{text!r}: the amount must be a non-negative number")
    smallest = number.scaleb(decimals)
    if smallest != smallest.to_integral():
        raise AssetAmountError(
            f"{text!r} has more than {decimals} decimals, the most this asset has"
        )
    return int(smallest)


@dataclass(frozen=True, slots=True)
class Deposit:  # pylint: disable=too-many-instance-attributes
    """A prepayment into one balance tracker, decided (``prepay``).

    :param terms: the payment type's :class:`PaymentTerms`.
    :param amount: what to deposit, the asset's smallest units.
    :param status: :attr:`PaymentStatus.PAYABLE` (deposit now),
        :attr:`PaymentStatus.NEEDS_APPROVAL` (approve ``approve`` first),
        :attr:`PaymentStatus.SHORT_BALANCE`, :attr:`PaymentStatus.OVER_CAP` or
        :attr:`PaymentStatus.UNSUPPORTED` (a subscription or unknown type: its tracker
        takes no deposit).
    :param reason: why not, in words with amounts in whole units ("" when it can).
    :param funds: the requester's :class:`Funds` read before.
    :param approve: token only: ``approve(tracker, approve)`` first, exactly ``amount``
        when the allowance is short of it (``approve`` sets, it does not add), else 0.
    :param value: native only: the value of ``depositFor(requester)``, the amount.
    :param function: the tracker function: ``depositFor`` (native, payable, the
        requester as account) or ``deposit`` (token, the amount); "" when refused.
    """

    terms: PaymentTerms
    amount: int
    status: PaymentStatus
    reason: str
    funds: Funds
    approve: int = 0
    value: int = 0
    function: str = ""

    def to_dict(self) -> Dict[str, Any]:
        """Return the deposit as JSON (integers as decimal strings).

        :return: ``{"payment_type", "type_name", "asset", "symbol", "tracker", "token",
            "amount", "amount_units", "status", "reason", "approve", "value",
            "function", "prepaid", "prepaid_after", "wallet", "allowance"}``.
        """
        funds, terms = self.funds, self.terms
        return {
            "payment_type": terms.payment_type,
            "type_name": terms.name,
            "asset": terms.asset,
            "symbol": terms.symbol,
            "tracker": funds.tracker,
            "token": funds.token,
            "amount": str(self.amount),
            "amount_units": format_amount(self.amount, funds.decimals, terms.symbol),
            "status": self.status,
            "reason": self.reason,
            "approve": str(self.approve),
            "value": str(self.value),
            "function": self.function,
            "prepaid": str(funds.prepaid),
            "prepaid_after": str(funds.prepaid + (self.amount if self.function else 0)),
            "wallet": str(funds.wallet),
            "allowance": str(funds.allowance),
        }


def plan_prepay(  # pylint: disable=too-many-return-statements
    payment_type: str, amount: int, funds: Funds, cap: Optional[int] = None
) -> Deposit:
    """Decide a deposit of ``amount`` into a payment type's tracker, from ``funds``.

    Native: ``depositFor(requester)`` with value ``amount`` (ai-registry-mech
    ``BalanceTrackerFixedPriceNative``; mech-client's ``mechx deposit native`` sends a
    plain transfer, which its ``receive`` books the same). Token: ``approve(tracker,
    amount)`` when the allowance is short of it, then ``deposit(amount)``
    (``BalanceTrackerFixedPriceToken``). Subscriptions: refused (their trackers revert
    on deposits: ``NoDepositAllowed``).

    :param payment_type: the tracker's payment type, 0x + 64 hex.
    :param amount: smallest units, at least 1.
    :param funds: the requester's :class:`Funds` for that tracker.
    :param cap: the most one deposit may be, smallest units (None: no cap).
    :return: the :class:`Deposit`; never raises.
    """
    terms = payment_terms(payment_type)

    def units(value: int) -> str:
        return format_amount(value, funds.decimals, terms.symbol)

    def refused(status: PaymentStatus, reason: str) -> Deposit:
        return Deposit(terms, amount, status, reason, funds)

    if terms.way not in (PaymentWay.NATIVE, PaymentWay.TOKEN):
        what = (
            f"a Nevermined subscription tracker ({terms.name}) takes no deposit "
            "(NoDepositAllowed): buy credits of its plan from Nevermined instead"
            if terms.way is PaymentWay.SUBSCRIPTION
            else f"payment type {terms.payment_type} is none this software knows"
        )
        return refused(PaymentStatus.UNSUPPORTED, what)
    if amount < 1:
        return refused(PaymentStatus.PRICE_UNREAD, "the amount must be more than 0")
    if cap is not None and amount > cap:
        return refused(
            PaymentStatus.OVER_CAP,
            f"{units(amount)} is over the cap of {units(cap)} (--max-amount)",
        )
    if funds.wallet < amount:
        return refused(
            PaymentStatus.SHORT_BALANCE,
            f"balance {units(funds.wallet)} < {units(amount)} to deposit: send "
            f"{units(amount - funds.wallet)} to the paying account",
        )
    if terms.way is PaymentWay.NATIVE:
        return Deposit(
            terms, amount, PaymentStatus.PAYABLE, "", funds, 0, amount, "depositFor"
        )
    if funds.allowance < amount:
        return Deposit(
            terms,
            amount,
            PaymentStatus.NEEDS_APPROVAL,
            f"allowance {units(funds.allowance)} < {units(amount)}: approve "
            f"{funds.tracker} for exactly {units(amount)} first",
            funds,
            approve=amount,
            function="deposit",
        )
    return Deposit(terms, amount, PaymentStatus.PAYABLE, "", funds, function="deposit")


#: every payment type this software knows, in a fixed order (``prepay --show`` reads
#: each one's tracker)
KNOWN_TERMS: Tuple[PaymentTerms, ...] = tuple(_TERMS.values())


#: the largest price a mech can declare (``maxDeliveryRate`` is a uint256)
UINT256_MAX = 2**256 - 1
_PRICE_LIMIT = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?)\s*([a-z]+)\s*")


def parse_price_limit(value: Union[int, str]) -> Tuple[str, int]:
    """Read a price limit said with its asset: ``"1.5 usdc"``, ``"0.01 native"``, ``"5 wei"``.

    An amount followed by an asset of :data:`ASSETS` (or its symbol) is in whole units of
    that asset (``"1.5 usdc"`` is 1,500,000 smallest units, USDC having 6 decimals); a
    fraction of a smallest unit is dropped (the limit only keeps prices at or below
    it). ``wei`` means native smallest units. A bare integer is native wei (as the
    limit read before tokens).

    :param value: the limit, an integer (wei) or a text.
    :return: ``(asset, smallest units)``, at most :data:`UINT256_MAX`.
    :raises AssetAmountError: naming the value and the expected form.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise AssetAmountError(f"{value!r}: a price limit cannot be negative")
        return ASSET_NATIVE, value
    found = _PRICE_LIMIT.fullmatch(str(value).lower())
    unit = found.group(2) if found else ""
    terms = asset_terms(ASSET_NATIVE if unit == "wei" else unit)
    if found is None or terms is None:
        raise AssetAmountError(
            f"{str(value)[:40]!r}: say a price limit as an amount and an asset, e.g. "
            f"'1.5 usdc', '2 olas', '0.01 native' or '5000 wei' (assets: "
            f"{', '.join(ASSETS)})"
        )
    amount = Decimal(found.group(1))
    scale = 0 if unit == "wei" else terms.decimals
    if amount.adjusted() + scale >= 78:  # past uint256 (78 digits): no price above it
        return terms.asset, UINT256_MAX
    if unit == "wei" and amount != amount.to_integral():
        raise AssetAmountError(f"{str(value)[:40]!r}: wei are whole numbers")
    return terms.asset, int(amount.scaleb(scale).to_integral(rounding=ROUND_FLOOR))
