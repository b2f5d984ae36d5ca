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

"""Which mech serves a call, and why: offers ranked by tenure, never by counters.

- :func:`rank_offers` / :func:`choose_offer`: which mech contracts may serve a call
  (payable, price cap, pinned or allow-listed mechs) and in which order: the
  incumbent (the earliest first delivery since its service's manifests have declared
  the tool as it is now, :func:`seniority`) first, never on counters a mech can raise by paying itself nor on
  a creation block bought with an old mech; :func:`choice_reason` says why in words;
- :func:`schema_owners_first`: which declaration a tool name's served schema is;
- :func:`send_time_refusal`: the price read right before sending, against the listed
  one and ``--max-price``;
- :func:`check_delivery`: whether the mech that delivered is the one paid, or one that
  offers the same tool with the same schema (else its answer is untrusted).

Plain functions: no network, no chain, no SDK.
"""

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar

from mech_catalogue_core.catalogue.offer_rank import (
    SeniorityKey,
    delivered_once,
    rank_key,
    seniority_key,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)
from mech_catalogue_core.model.payment import (
    ASSET_NATIVE,
    format_amount,
    plan_payment,
    say_amount,
)
from mech_catalogue_core.model.vocabulary import PaymentStatus

#: ``paymentType()`` of native fixed-price mechs (MechFixedPriceNative.PAYMENT_TYPE):
#: value sent with the request transaction (token types: ``model.payment``).
NATIVE_PAYMENT_TYPE = (
    "0xba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1"
)


@dataclass(frozen=True)
class Tenure:
    """Since when a mech offers one tool as its service's current manifest declares it.

    :param declared_block: the block since which the service's manifests have declared
        the tool with its current definition: the earliest of its
        ``ComplementaryMetadataUpdated`` events from which on no manifest changed the
        tool (``tenure.unchanged_since``; None: unknown).
    :param first_delivery_block: the block of the mech's first ``Deliver`` event at or
        after ``declared_block`` (None: none yet, or unknown).
    """

    declared_block: Optional[int] = None
    first_delivery_block: Optional[int] = None


@dataclass(frozen=True)
class Offer:  # pylint: disable=too-many-instance-attributes
    """One mech contract offering a tool, with what the chain says about it.

    :param mech_key: the catalogue entry's key (``MechRef.key``) of the offering service.
    :param address: the mech contract, lowercase 0x hex.
    :param price: ``maxDeliveryRate()``, wei per request (None: unread).
    :param payment_type: ``paymentType()``, 0x + 64 hex ("" when unread).
    :param requests: requests routed to this mech (None: unread).
    :param deliveries: deliveries this mech made (None: unread).
    :param karma: ``Karma.mapMechKarma`` (None: unread).
    :param confirmed: the marketplace confirmed the mech's creation.
    :param block: the block the facts were read at.
    :param created_block: the block of the mech's ``CreateMech`` event (None: unknown).
    :param declared_block: the block since which its service's manifests have declared
        this tool as it is now (:class:`Tenure`; None: unknown, e.g. another registry
        kind or an agent source).
    :param first_delivery_block: the block of the mech's first ``Deliver`` at or after
        ``declared_block``: since when it has delivered while offering this tool
        (None: not since, or unknown).
    :param last_delivery_block: the block of the mech's latest marketplace delivery
        event known (``MechFacts.last_delivery_block``; None: none known).
    :param endpoint: the off-chain endpoint its manifest declares (``url``, validated by
        ``mech_catalogue_core.chain.offchain.offchain_endpoint``; "" for none or invalid).
    """

    mech_key: str
    address: str
    price: Optional[int]
    payment_type: str
    requests: Optional[int]
    deliveries: Optional[int]
    karma: Optional[int]
    confirmed: bool
    block: Optional[int] = None
    created_block: Optional[int] = None
    declared_block: Optional[int] = None
    first_delivery_block: Optional[int] = None
    endpoint: str = ""
    last_delivery_block: Optional[int] = None

    @classmethod
    def from_facts(
        cls,
        mech_key: str,
        facts: MechFacts,
        tenure: Optional[Tenure] = None,
        endpoint: str = "",
    ) -> "Offer":
        """Build an offer from a catalogue entry's marketplace facts.

        :param mech_key: the entry's ``MechRef.key``.
        :param facts: one of its ``Mech.marketplace``.
        :param tenure: since when the mech offers this tool as it is (None: unknown).
        :param endpoint: the validated off-chain endpoint of its manifest ("" for none).
        :return: the offer.
        """
        tenure = tenure or Tenure()
        return cls(
            mech_key=mech_key,
            address=facts.address.lower(),
            price=facts.max_delivery_rate,
            payment_type=facts.payment_type.lower(),
            requests=facts.requests,
            deliveries=facts.deliveries,
            karma=facts.karma,
            confirmed=facts.confirmed,
            block=facts.block,
            created_block=facts.created_block,
            declared_block=tenure.declared_block,
            first_delivery_block=tenure.first_delivery_block,
            endpoint=endpoint,
            last_delivery_block=facts.last_delivery_block,
        )

    def to_meta(self) -> Dict[str, Any]:
        """Return the offer as ``_meta`` JSON (integers as decimal strings, null = unread).

        :return: ``{"mech", "address", "price_wei", "payment_type", "requests",
            "deliveries", "karma", "confirmed", "block", "created_block",
            "declared_block", "first_delivery_block", "last_delivery_block", "payment",
            "offchain_endpoint"}``; ``last_delivery_block`` is the agreed block of the
            mech's latest marketplace delivery that ``delivered_within`` and ``recent``
            read (null: none known);
            ``price_wei`` is the rate in the payment asset's smallest unit (wei only for
            native and OLAS), ``payment`` says in which asset and units
            (``model.payment.Payment.to_dict``, no requester balance read).
        """

        def text(value: Optional[int]) -> Optional[str]:
            return None if value is None else str(value)

        return {
            "mech": self.mech_key,
            "address": self.address,
            "price_wei": text(self.price),
            "payment_type": self.payment_type,
            "requests": text(self.requests),
            "deliveries": text(self.deliveries),
            "karma": text(self.karma),
            "confirmed": self.confirmed,
            "block": text(self.block),
            "created_block": text(self.created_block),
            "declared_block": text(self.declared_block),
            "first_delivery_block": text(self.first_delivery_block),
            "last_delivery_block": text(self.last_delivery_block),
            "payment": plan_payment(self.payment_type, self.price).to_dict(),
            "offchain_endpoint": self.endpoint or None,
        }


class NoOffer(ValueError):
    """No mech contract can serve the call; the message says why for each offer."""


def seniority(offer: Offer) -> SeniorityKey:
    """The part of an offer's rank a newcomer cannot buy: since when it serves the tool.

    First the block of the mech's first delivery since its service's manifests have
    declared the tool as it is now (``first_delivery_block``); then, among mechs that
    have not delivered since, that declaration's block (``declared_block``); a manifest
    change that leaves the tool's definition as it was does not move either; unknown
    values go last in each tier. Only then the older rule (for sources without these facts, e.g. an
    agent): delivered at all, then the ``CreateMech`` block.

    Why: both blocks are times, and time is not for sale. Sending requests to one's own
    mech and delivering them (wash trading) raises karma and the counters but cannot
    move a first delivery into the past; an old mech bought (or long idle) that starts
    offering the tool re-declares its manifest now, so its tenure for this tool starts
    now, whatever its creation block. Taking the top rank from an incumbent therefore
    costs having declared and delivered the tool before it did (``docs/mcp.md``).

    The rule is the library's (``catalogue.offer_rank``), shared with the requester
    service's tool choice.

    :param offer: an offer.
    :return: its seniority key (smaller first).
    """
    return seniority_key(
        offer.first_delivery_block,
        offer.declared_block,
        delivered_once(offer.requests, offer.deliveries),
        offer.created_block,
    )


def _rank(offer: Offer) -> Tuple[Any, ...]:
    """:func:`seniority`, then the cheaper, then the lower address (deterministic).

    Karma and the counts themselves are left out on purpose: a mech raises them by
    sending requests to itself and delivering them (wash trading), for the price of a
    few requests.

    :param offer: an eligible offer.
    :return: its sort key.
    """
    return rank_key(seniority(offer), offer.price, offer.address)


def best_offers(offers: Sequence[Offer], count: int) -> List[Offer]:
    """The ``count`` offers of the server's own ranking (:func:`_rank`), in given order.

    What ``_meta`` lists of a tool's offers: a tool copied onto hundreds of mechs keeps
    a bounded listing, and the copies (newcomers: no tenure) are the ones left out.

    :param offers: a tool's offers, in served order.
    :param count: how many to keep (>= 0).
    :return: the kept offers, in their served order.
    """
    kept = {id(offer) for offer in sorted(offers, key=_rank)[:count]}
    return [offer for offer in offers if id(offer) in kept]


#: one declaration of a tool name, for :func:`schema_owners_first`: the tool (any
#: object), its mech (None: unknown) and that mech's offers
Declaration = TypeVar("Declaration", bound=Tuple[Any, Any, Tuple[Offer, ...]])


def schema_owners_first(declarations: Sequence[Declaration]) -> List[Declaration]:
    """Order a tool name's declarations so that the first one owns the served schema.

    The schema a model sees for a name is its first verified offer's: the declaration
    whose best offer has the smallest :func:`seniority` (the earliest first delivery
    since its manifests have declared the tool as it is now) comes first; declarations without offers go
    last; ties keep the given order (the catalogue's ref order). A stranger registering
    a lower registry id, or re-declaring the name with other arguments, therefore does
    not take the name: its arguments are another schema, its mechs are listed apart as
    ``conflicting_mechs`` and never paid (``docs/mcp.md``).

    :param declarations: ``(tool, mech, offers)`` per declaration, ref order.
    :return: the same declarations, the schema owner first.
    """

    def key(declaration: Declaration) -> Tuple[bool, Tuple[Any, ...]]:
        offers = declaration[2]
        if not offers:
            return True, ()
        return False, min(seniority(offer) for offer in offers)

    if not any(
        offer.declared_block is not None
        for declaration in declarations
        for offer in declaration[2]
    ):
        return list(declarations)  # no tenure known: the catalogue's (agent's) order
    return sorted(declarations, key=key)


def _matches(offer: Offer, wanted: str) -> bool:
    return wanted.lower() in (offer.address.lower(), offer.mech_key.lower())


def _refusal(
    offer: Offer,
    max_price: Optional[int],
    pinned: str,
    allowed: Sequence[str],
    token_max_price: Mapping[str, int],
) -> str:
    """Why this offer cannot serve the call ("" when it can): the first check failed."""
    price = offer.price
    payment = plan_payment(offer.payment_type, price)
    asset = payment.terms.asset
    token_cap = token_max_price.get(asset) if asset != ASSET_NATIVE else None
    checks = (
        (bool(pinned) and not _matches(offer, pinned), f"not the pinned mech {pinned}"),
        (
            bool(allowed) and not any(_matches(offer, m) for m in allowed),
            "not in --allow-mech",
        ),
        (not offer.confirmed, "creation not confirmed by the marketplace"),
        # an unread price is read alone right before sending (send_time_refusal)
        (price is not None and price < 1, "price 0 (a request pays at least 1)"),
        (payment.status is PaymentStatus.UNSUPPORTED, payment.reason),
        (
            asset == ASSET_NATIVE
            and max_price is not None
            and price is not None
            and price > max_price,
            f"price {price} wei is over --max-price {max_price} wei",
        ),
        (
            token_cap is not None and price is not None and price > token_cap,
            f"price {payment.to_dict()['price_units']} is over --max-price "
            f"{asset}={token_cap}",
        ),
    )
    return next((reason for failed, reason in checks if failed), "")


def _label(offer: Offer) -> str:
    return f"{offer.address or '(no contract)'} ({offer.mech_key})"


def rank_offers(
    offers: Sequence[Offer],
    max_price: Optional[int] = None,
    pinned: str = "",
    allowed: Sequence[str] = (),
    token_max_price: Mapping[str, int] = MappingProxyType({}),
) -> List[Offer]:
    """The offers that may serve a call, in the order they are tried.

    Eligible: confirmed, price at least 1 smallest unit or unread (the facts read left
    it unread: a stranger's failing getters beside it can; every offer's price is read
    alone right before sending, :func:`send_time_refusal`, and only one unread then is
    refused), a payment way this server pays (native, OLAS or USDC fixed price:
    ``model.payment.plan_payment``; not subscriptions nor unknown types), price at most
    ``max_price`` (native, wei) or its asset's ``token_max_price``, the pinned mech when
    one is given and an allow-listed one when ``allowed`` is not empty (each matched
    against the contract address or the catalogue entry key, as mech-interact's
    ``valid_mechs``). Order: :func:`seniority` (the earliest first delivery since the
    manifests have declared the tool as it is now: the incumbent), then the cheaper (an
    unread price after every read one), then the lowest address, so the order is
    deterministic and no counter a mech can raise by paying itself (karma, requests,
    deliveries), nor an old creation block bought with a mech, moves it
    (``docs/mcp.md``).

    :param offers: the tool's offers (from every mech offering it).
    :param max_price: the per-call cap in wei (None: no cap).
    :param pinned: ``--mech``: a mech contract address or a catalogue entry key ("": any).
    :param allowed: ``--allow-mech``: addresses or entry keys (empty: any).
    :param token_max_price: per-call caps of token-priced offers, asset -> smallest
        units (``--max-price olas=...``; an asset missing: no cap).
    :return: the eligible offers, first the one to pay.
    :raises NoOffer: when none is eligible, naming each offer's reason.
    """
    reasons: List[str] = []
    eligible: List[Offer] = []
    for offer in offers:
        reason = _refusal(offer, max_price, pinned, allowed, token_max_price)
        if reason:
            reasons.append(f"{_label(offer)}: {reason}")
        else:
            eligible.append(offer)
    if not eligible:
        detail = "; ".join(reasons) or "no mech contract is known for it"
        raise NoOffer(f"no mech can serve this call: {detail}")
    return sorted(eligible, key=_rank)


def choose_offer(
    offers: Sequence[Offer],
    max_price: Optional[int] = None,
    pinned: str = "",
    allowed: Sequence[str] = (),
    token_max_price: Mapping[str, int] = MappingProxyType({}),
) -> Offer:
    """Choose the mech contract to pay for one call: the first of :func:`rank_offers`.

    :param offers: the tool's offers (from every mech offering it).
    :param max_price: the per-call cap in wei (None: no cap).
    :param pinned: ``--mech``: a mech contract address or a catalogue entry key ("": any).
    :param allowed: ``--allow-mech``: addresses or entry keys (empty: any).
    :param token_max_price: ``--max-price`` of token assets (asset -> smallest units).
    :return: the chosen offer (:func:`rank_offers` raises ``NoOffer`` when none is
        eligible, naming each offer's reason).
    """
    return rank_offers(offers, max_price, pinned, allowed, token_max_price)[0]


def choice_reason(
    chosen: Offer,
    ranked: Sequence[Offer],
    pinned: str = "",
    allowed: Sequence[str] = (),
) -> str:
    """Say in words why ``chosen`` is paid (the ``_meta`` ``choice`` of a call).

    :param chosen: the offer paid.
    :param ranked: the eligible offers in :func:`rank_offers` order (``chosen`` among
        them; those before it were refused at send time).
    :param pinned: ``--mech`` ("" when none).
    :param allowed: ``--allow-mech`` (empty when none).
    :return: a sentence.
    """
    by_user = (
        f"pinned by --mech {pinned}"
        if pinned
        else (
            "allow-listed by --allow-mech" if allowed else "no mech pinned or allowed"
        )
    )
    skipped = ranked.index(chosen) if chosen in ranked else 0
    order = (
        "the incumbent: the first eligible offer"
        if skipped == 0
        else f"offer {skipped + 1} in rank: the {skipped} before it refused at send time"
    )
    return (
        f"{by_user}; {order} ({tenure_words(chosen)}) of {len(ranked)} eligible; "
        "offers go by the block of their first delivery since their manifests have "
        "declared the tool as it is now, then by the block it was so declared (a "
        "manifest change that leaves the tool as it was keeps it), then by creation "
        "block; never by "
        "karma or request and delivery counts (a mech raises those by paying itself) "
        "nor by age alone (an old mech can be bought)"
    )


def tenure_words(offer: Offer) -> str:
    """Say an offer's seniority facts in words (unknown ones say so).

    :param offer: an offer.
    :return: e.g. ``first delivered at block 130 since the tool was declared as it is
        now at block 120, created at block 100, has delivered``.
    """
    first = (
        f"first delivered at block {offer.first_delivery_block}"
        if offer.first_delivery_block is not None
        else "no delivery known"
    )
    declared = (
        f"the tool was declared as it is now at block {offer.declared_block}"
        if offer.declared_block is not None
        else "the tool was declared as it is now (block unknown)"
    )
    created = (
        f"created at block {offer.created_block}"
        if offer.created_block is not None
        else "creation block unknown"
    )
    delivered = (
        "has delivered"
        if delivered_once(offer.requests, offer.deliveries)
        else "has never delivered"
    )
    return f"{first} since {declared}, {created}, {delivered}"


def tenure_facts(offer: Offer) -> Dict[str, Any]:
    """An offer's tenure, for a model to weigh beside text anyone can write.

    What ranks offers (:func:`seniority`), from the chain: ``search_tools`` ranks tools
    by their text (BM25), which a registrant can stuff with keywords; these facts say
    how long the mech has served the tool as it is, which it cannot buy.

    :param offer: the offer a call would pay now.
    :return: ``{"mech", "declared_block", "first_delivery_block", "created_block",
        "delivered", "says"}``: blocks as decimal strings (null: unknown), ``delivered``
        whether it has delivered at all, ``says`` :func:`tenure_words`.
    """

    def text(value: Optional[int]) -> Optional[str]:
        return None if value is None else str(value)

    return {
        "mech": offer.address,
        "declared_block": text(offer.declared_block),
        "first_delivery_block": text(offer.first_delivery_block),
        "created_block": text(offer.created_block),
        "delivered": delivered_once(offer.requests, offer.deliveries),
        "says": tenure_words(offer),
    }


def send_time_refusal(
    offer: Offer, current: Optional[int], max_price: Optional[int]
) -> str:
    """Judge the price read right before sending ("" when it may be paid).

    The amount sent is always ``current``, never the listed price: a lower price is paid
    as it is now, a higher one within ``--max-price`` too (the user's cap is the bound,
    not the listing), and one over the cap or unread is refused, naming both prices.

    :param offer: the offer as listed (its ``price`` is the listed one, in the smallest
        unit of its payment asset).
    :param current: ``maxDeliveryRate()`` at the latest block, same unit (None: unread).
    :param max_price: ``--max-price`` of the offer's asset, same unit (None: no cap).
    :return: a sentence naming the listed and current price in the asset's units
        (``model.payment.say_amount``: wei for native, whole tokens else), or "".
    """
    asset = plan_payment(offer.payment_type, offer.price).terms.asset

    def amount(value: Optional[int]) -> str:
        return "an unread price" if value is None else say_amount(value, asset)

    if current is None or current < 1:
        return (
            f"mech {offer.address}'s price could not be read right before sending "
            f"(listed at {amount(offer.price)})"
        )
    if max_price is not None and current > max_price:
        cap = (
            f"{max_price} wei"
            if asset == ASSET_NATIVE
            else f"{asset}={max_price} ({amount(max_price)})"
        )
        return (
            f"mech {offer.address} raised its price from {amount(offer.price)} "
            f"(listed) to {amount(current)} (now), over --max-price {cap}"
        )
    return ""


@dataclass(frozen=True)
class DeliveryCheck:
    """Who delivered a paid request, against who was paid.

    :param paid_mech: the mech the request was sent to (priority mech), lowercase 0x hex.
    :param delivery_mech: ``mapRequestIdInfos(id).deliveryMech``, lowercase 0x hex.
    :param same_offer: the delivering mech offers the called tool with the served schema
        and this call could have paid it (pinned/allowed, confirmed, within --max-price).
    """

    paid_mech: str
    delivery_mech: str
    same_offer: bool

    @property
    def by_another_mech(self) -> bool:
        """Whether a mech other than the one paid delivered (after the response timeout).

        :return: True when they differ.
        """
        return self.delivery_mech != self.paid_mech

    @property
    def trusted(self) -> bool:
        """Whether the answer is the tool's: the paid mech's, or a same-offer mech's.

        :return: True when it may be returned as the tool's answer.
        """
        return not self.by_another_mech or self.same_offer


def check_delivery(
    paid_mech: str,
    delivery_mech: str,
    offers: Sequence[Offer],
    max_price: Optional[int] = None,
    pinned: str = "",
    allowed: Sequence[str] = (),
    token_max_price: Mapping[str, int] = MappingProxyType({}),
) -> DeliveryCheck:
    """Compare the delivering mech with the paid one and the tool's offers.

    After a request's response timeout the MechMarketplace lets any mech deliver it (and
    pays the delivering mech). Another mech's answer is the tool's only when that mech is
    an offer this call could have paid (:func:`rank_offers`' eligibility: pinned by
    ``--mech`` or in ``--allow-mech`` when given, confirmed, price within
    ``--max-price``): else a stranger could snipe a pinned mech's request.

    :param paid_mech: the journalled mech (the request's priority mech), any case.
    :param delivery_mech: the marketplace's delivery mech, any case.
    :param offers: the called tool's offers now (every mech offering it with the served
        schema).
    :param max_price: ``--max-price``, wei (None: no cap).
    :param pinned: ``--mech`` ("": none).
    :param allowed: ``--allow-mech`` (empty: none).
    :param token_max_price: ``--max-price`` of token assets (asset -> smallest units).
    :return: the check.
    """
    delivering = delivery_mech.lower()
    return DeliveryCheck(
        paid_mech=paid_mech.lower(),
        delivery_mech=delivering,
        same_offer=any(
            offer.address.lower() == delivering
            and not _refusal(offer, max_price, pinned, allowed, token_max_price)
            for offer in offers
        ),
    )


def price_words(payment_type: str, price: Optional[int]) -> str:
    """A price in words, as the server's facts and its line before an answer say it.

    :param payment_type: the offer's ``paymentType()`` (bytes32 hex; "" when unread).
    :param price: in the asset's smallest units (None: unknown).
    :return: ``<price> wei of the chain's native token``, or a token's
        ``1.5 USDC (1500000 smallest units, ERC-20)``; an unknown price says it is read
        right before sending and paid only within ``--max-price``.
    """
    terms = plan_payment(payment_type, price).terms
    native = terms.asset == ASSET_NATIVE or not terms.asset
    if price is None:
        asset = "the chain's native token" if native else terms.symbol
        return (
            f"an amount of {asset} not read in the last facts read (read right before "
            "sending, paid only within --max-price)"
        )
    if native:
        return f"{price} wei of the chain's native token"
    return (
        f"{format_amount(price, terms.decimals, terms.symbol)} "
        f"({price} smallest units, ERC-20)"
    )
