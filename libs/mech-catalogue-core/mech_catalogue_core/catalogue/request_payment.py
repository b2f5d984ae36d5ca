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

"""How the requester service pays an offer through mech-interact v0.32.3's rounds (pure).

mech-interact's ``MechRequestBehaviour``
(``packages/valory/skills/mech_interact_abci/behaviours/request.py``) reads the chosen
mech's ``paymentType()`` and ``maxDeliveryRate()`` and then pays in one Safe multisend:

- native (``PaymentType.NATIVE``): the request carries ``maxDeliveryRate`` as value;
- OLAS or USDC token (``TOKEN_OLAS``, ``TOKEN_USDC``): an ERC-20
  ``approve(tracker, maxDeliveryRate)`` on ``MechParams.price_token``, the tracker read
  from ``MechMarketplace.mapPaymentTypeBalanceTrackers(paymentType)``, then the request
  with no value (the tracker pulls the price with ``transferFrom``). ``price_token`` is
  fixed per chain in its ``models.py`` (``CHAIN_TO_PRICE_TOKEN``); the requester's
  ``Params`` replaces it with :attr:`RequestPayment.token`, the ERC-20 the tracker itself
  names (``token()``), read from the chain when the offer is chosen, never from a manifest;
- Nevermined subscriptions (``NATIVE_NVM``, ``TOKEN_NVM_USDC``): credits bought and read
  only through the Nevermined contracts fixed per chain in its ``CHAIN_TO_NVM_CONFIG``
  (Gnosis and Base), not the marketplace's tracker: the requester never chooses them
  (:func:`unpayable_reason`).

:func:`unpayable_reason` says why an offer is skipped (a payment way mech-interact cannot
take here, an asset the task's ``max_price`` does not name, a price over its cap);
:class:`RequestPayment` is the agreed choice (the synchronized-data key
:data:`REQUESTER_PAYMENT`); :func:`tracker_lookup_call`, :func:`token_call`,
:func:`decimals_call` and :func:`decode_address` / :func:`decode_uint` are the three reads
that complete a token choice (ABI from ai-registry-mech ``MechMarketplace`` and
``BalanceTrackerFixedPriceToken``, EIP-20 ``decimals``).
"""

import json
import re
from dataclasses import asdict, dataclass, replace
from typing import Any, Mapping, Optional

from eth_abi import decode, encode
from eth_utils import keccak, to_checksum_address
from mech_catalogue_core.model.market import MechFacts
from mech_catalogue_core.model.payment import (
    ASSET_NATIVE,
    PaymentTerms,
    payment_terms,
    say_amount,
)
from mech_catalogue_core.model.vocabulary import PaymentWay

#: the synchronized-data key of the agreed payment (JSON of :class:`RequestPayment`)
REQUESTER_PAYMENT = "requester_payment"

_ADDRESS = re.compile(r"^0x[0-9a-f]{40}$")
_BYTES32 = re.compile(r"^0x[0-9a-f]{64}$")
_ZERO_ADDRESS = "0x" + "00" * 20
#: ``PAYMENT_TYPE`` of ai-registry-mech's MechFixedPriceNative (``model.payment``)
NATIVE_PAYMENT_TYPE = (
    "0xba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1"
)


class PaymentReadError(ValueError):
    """A read that completes a token choice returned something unusable; says what."""


def _selector(signature: str) -> bytes:
    return keccak(text=signature)[:4]


@dataclass(frozen=True)
class RequestPayment:  # pylint: disable=too-many-instance-attributes
    """The agreed way this period's request is paid.

    :param mech: the mech contract paid, lowercase 0x hex.
    :param payment_type: its ``paymentType()``, 0x + 64 lowercase hex.
    :param asset: ``native``, ``olas`` or ``usdc`` (``model.payment`` assets).
    :param price: its ``maxDeliveryRate()`` in the agreed facts, smallest unit.
    :param cap: the task's ``max_price`` for the asset (None: native, uncapped).
    :param tracker: token payments: ``mapPaymentTypeBalanceTrackers(payment_type)``,
        lowercase 0x hex ("" for native).
    :param token: token payments: the tracker's ``token()``, lowercase 0x hex ("" for
        native): what mech-interact approves and reads the Safe's balance of.
    """

    mech: str
    payment_type: str
    asset: str
    price: int
    cap: Optional[int] = None
    tracker: str = ""
    token: str = ""

    @property
    def by_token(self) -> bool:
        """Whether the request is paid in an ERC-20 (approval, no value).

        :return: True for OLAS and USDC.
        """
        return payment_terms(self.payment_type).way is PaymentWay.TOKEN

    @property
    def mech_checksum(self) -> str:
        """The mech's address in EIP-55 case (what contract calls are given).

        :return: the checksummed address.
        """
        return str(to_checksum_address(self.mech))

    @property
    def token_checksum(self) -> str:
        """The token's address in EIP-55 case (mech-interact's ``price_token`` shape).

        :return: the checksummed address ("" for native).
        """
        return str(to_checksum_address(self.token)) if self.token else ""

    def refusal(self, payment_type: str, rate: int, safe_tokens: int) -> Optional[str]:
        """Why mech-interact must not pay, from what the chain says at request time.

        :param payment_type: the mech's ``paymentType()`` now.
        :param rate: its ``maxDeliveryRate()`` now, smallest unit (what mech-interact
            would approve and pay).
        :param safe_tokens: the Safe's balance of :attr:`token`, smallest unit.
        :return: the reason in words, or None when the request may be paid.
        """
        if payment_type.lower() != self.payment_type:
            return (
                f"mech {self.mech} now declares payment type {payment_type}, not the "
                f"{self.payment_type} it was chosen for; nothing is paid this period"
            )
        cap = self.price if self.cap is None else self.cap
        if rate > cap:
            return (
                f"mech {self.mech} now asks {say_amount(rate, self.asset)}, over the "
                f"{say_amount(cap, self.asset)} it was chosen under; nothing is paid "
                "this period (the next period chooses again)"
            )
        if self.by_token and safe_tokens < rate:
            return (
                f"the Safe holds {say_amount(safe_tokens, self.asset)} of token "
                f"{self.token}, mech {self.mech} asks {say_amount(rate, self.asset)}: "
                "send the Safe the difference; nothing is paid this period"
            )
        return None

    def to_json(self) -> str:
        """Serialise for the synchronized data.

        :return: JSON with sorted keys.
        """
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: Any, completed: bool = True) -> Optional["RequestPayment"]:
        """Read the agreed payment back, strictly.

        :param text: the synchronized-data value (None when unset).
        :param completed: require a token payment's tracker and token (False: the
            choice before its chain reads).
        :return: the payment, or None when unset or not one :meth:`to_json` wrote.
        """
        try:
            raw = json.loads(text) if isinstance(text, str) else None
            payment = cls(**raw) if isinstance(raw, dict) else None
        except (ValueError, TypeError):
            return None
        if payment is None or not (
            _ADDRESS.match(payment.mech)
            and (payment.payment_type == "" or _BYTES32.match(payment.payment_type))
            and isinstance(payment.price, int)
            and (payment.cap is None or isinstance(payment.cap, int))
        ):
            return None
        if (
            completed
            and payment.by_token
            and not (_ADDRESS.match(payment.tracker) and _ADDRESS.match(payment.token))
        ):
            return None
        return payment

    def with_token(self, tracker: str, token: str) -> "RequestPayment":
        """The payment completed with the chain's tracker and token.

        :param tracker: ``mapPaymentTypeBalanceTrackers(payment_type)``.
        :param token: the tracker's ``token()``.
        :return: a copy holding both, lowercase.
        """
        return replace(self, tracker=tracker.lower(), token=token.lower())


def _way_reason(terms: PaymentTerms, payment_type: str) -> str:
    """Why mech-interact cannot pay a way other than native and token, in words."""
    if terms.way is PaymentWay.SUBSCRIPTION:
        return (
            f"paid by Nevermined subscription ({terms.name}): mech-interact v0.32.3 "
            "buys and reads credits only through the Nevermined contracts it fixes per "
            "chain (CHAIN_TO_NVM_CONFIG: Gnosis and Base), not this marketplace's "
            "tracker; the MCP server pays it with credits you hold"
        )
    return (
        f"payment type {payment_type or '(unread)'} is not one mech-interact "
        "v0.32.3 pays (native, token_olas, token_usdc)"
    )


def unpayable_reason(
    facts: MechFacts, max_price: Optional[Mapping[str, int]]
) -> Optional[str]:
    """Why the requester service does not pay an offer, or None when it may.

    :param facts: the mech contract's agreed facts (``payment_type``,
        ``max_delivery_rate``).
    :param max_price: the task's caps by asset (None: native only, uncapped).
    :return: the reason in words (names the way, the asset and what to set), or None.
    """
    # an unread type (a legacy mech) is paid as native value, as before token payments
    terms = payment_terms(facts.payment_type or NATIVE_PAYMENT_TYPE)
    if terms.way not in (PaymentWay.NATIVE, PaymentWay.TOKEN):
        return _way_reason(terms, facts.payment_type)
    price = facts.max_delivery_rate or 0
    if max_price is None:
        if terms.asset == ASSET_NATIVE:
            return None
        return (
            f"paid in {terms.symbol}: the task sets no max_price, so only the native "
            f"token is paid (set max_price: {{{terms.asset}: <smallest units>}} to pay "
            f"it, e.g. {terms.asset}: {price})"
        )
    if terms.asset not in max_price:
        return (
            f"paid in {terms.symbol}, an asset the task's max_price does not name "
            f"(names: {', '.join(sorted(max_price))})"
        )
    if price > max_price[terms.asset]:
        return (
            f"asks {say_amount(price, terms.asset)}, over the task's max_price "
            f"{terms.asset} = {say_amount(max_price[terms.asset], terms.asset)}"
        )
    return None


def payment_of(
    facts: MechFacts, max_price: Optional[Mapping[str, int]]
) -> RequestPayment:
    """The payment of an offer :func:`unpayable_reason` let through (tracker, token unset).

    :param facts: the chosen mech contract's facts.
    :param max_price: the task's caps (None: native, uncapped).
    :return: the payment; a token payment still needs :meth:`RequestPayment.with_token`.
    """
    asset = payment_terms(facts.payment_type).asset or ASSET_NATIVE
    return RequestPayment(
        mech=facts.address.lower(),
        payment_type=facts.payment_type.lower(),
        asset=asset,
        price=int(facts.max_delivery_rate or 0),
        cap=None if max_price is None else max_price.get(asset),
    )


def tracker_lookup_call(payment_type: str) -> bytes:
    """``MechMarketplace.mapPaymentTypeBalanceTrackers(bytes32)`` call data.

    :param payment_type: 0x + 64 hex.
    :return: the call data.
    """
    return _selector("mapPaymentTypeBalanceTrackers(bytes32)") + encode(
        ["bytes32"], [bytes.fromhex(payment_type[2:])]
    )


def token_call() -> bytes:
    """``BalanceTrackerFixedPriceToken.token()`` call data.

    :return: the call data.
    """
    return _selector("token()")


def decimals_call() -> bytes:
    """EIP-20 ``decimals()`` call data.

    :return: the call data.
    """
    return _selector("decimals()")


def decode_address(data: bytes, what: str) -> str:
    """Decode one returned address; the zero address is no answer.

    :param data: the return data.
    :param what: what was read, for the message.
    :return: the address, lowercase 0x hex.
    :raises PaymentReadError: when it is not one ABI word or is the zero address.
    """
    if len(data) != 32 or any(data[:12]):
        raise PaymentReadError(f"{what} returned {len(data)} bytes, not an address")
    address = "0x" + data[12:].hex()
    if address == _ZERO_ADDRESS:
        raise PaymentReadError(f"{what} is the zero address (none registered)")
    return address


def decode_uint(data: bytes, what: str) -> int:
    """Decode one returned uint256.

    :param data: the return data.
    :param what: what was read, for the message.
    :return: the value.
    :raises PaymentReadError: when it is not one ABI word.
    """
    if len(data) != 32:
        raise PaymentReadError(f"{what} returned {len(data)} bytes, not a uint256")
    return int(decode(["uint256"], data)[0])


def check_decimals(payment: RequestPayment, decimals: int) -> None:
    """Refuse a token whose decimals are not the asset's (the caps would be misread).

    :param payment: the token payment.
    :param decimals: the token's ``decimals()``.
    :raises PaymentReadError: naming the token, both numbers and the mech.
    """
    expected = payment_terms(payment.payment_type).decimals
    if decimals != expected:
        raise PaymentReadError(
            f"token {payment.token} of mech {payment.mech}'s tracker has {decimals} "
            f"decimals, not the {expected} of {payment.asset}: its amounts would not be "
            "the task's units; not paid"
        )
