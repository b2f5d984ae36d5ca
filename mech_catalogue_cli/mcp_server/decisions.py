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

# pylint: disable=too-many-lines  # to split by concern: offers, arguments, spending
"""The MCP server's decisions, as plain functions (no network, no chain, no SDK).

- :func:`argument_errors`: a ``tools/call``'s arguments against the tool's MCP
  ``inputSchema`` (jsonschema Draft 2020-12); each error names the argument;
- :func:`rank_offers` / :func:`choose_offer`: which mech contracts may serve a call
  (native payment, price cap, pinned or allow-listed mechs) and in which order: the
  incumbent (the earliest first delivery since its manifest declared the tool,
  :func:`seniority`) first, never on counters a mech can raise by paying itself nor on
  a creation block bought with an old mech; :func:`choice_reason` says why in words;
- :func:`send_time_refusal`: the price read right before sending, against the listed
  one and ``--max-price``;
- :class:`SpendLedger`: the spending cap over ``--spend-window``, across restarts (the
  journal's requests of earlier runs count);
- :func:`normalised_arguments` / :func:`call_key` / :func:`payload_nonce`: the
  deterministic identity of a call, so a retry of the same call (``1`` or ``1.0``, keys
  in any order, a string in either Unicode form) finds the request it already paid for;
- :func:`secret_refusal`: why a tool whose arguments ask for a secret is refused;
- :func:`definition_changes`: what changed in a tool since its definition was approved;
- :func:`request_payload`: the JSON a mech tool reads (``prompt``, ``tool``, ``nonce``
  and the typed arguments at top level, as mech-interact's request round builds it);
- :func:`decode_response` / :func:`structured_content`: a delivered response read as
  bounded JSON (depth, finite numbers, integers of at most a uint256's digits) and checked
  against the tool's ``outputSchema``; anything else is returned as text;
- :func:`check_delivery`: whether the mech that delivered is the one paid, or one that
  offers the same tool with the same schema (else its answer is untrusted).
"""

import hashlib
import json
import math
import unicodedata
import uuid
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from mech_catalogue_core.catalogue.offer_rank import (
    SeniorityKey,
    delivered_once,
    rank_key,
    seniority_key,
)
from mech_catalogue_core.exporters.js_integers import (
    integers_as_text,
    schema_with_integer_text,
)
from mech_catalogue_core.manifest.validation import nesting_depth
from mech_catalogue_core.model.limits import DEFAULT_LIMITS
from mech_catalogue_core.model.market import (
    MechFacts,
)
from mech_catalogue_core.model.payment import ASSET_NATIVE, plan_payment
from mech_catalogue_core.model.problems import (
    INVISIBLE_TEXT,
    SECRET_ARGUMENT,
)
from mech_catalogue_core.model.untrusted_text import (
    hidden_in,
    secret_arguments,
)
from mech_catalogue_core.model.vocabulary import PaymentStatus

#: ``paymentType()`` of native fixed-price mechs (MechFixedPriceNative.PAYMENT_TYPE):
#: value sent with the request transaction (token types: ``model.payment``).
NATIVE_PAYMENT_TYPE = (
    "0xba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1"
)
#: keys of the request payload that arguments may not replace
RESERVED_PAYLOAD_KEYS = ("prompt", "tool", "nonce")
#: the ``_meta`` key a client may set on ``tools/call`` to ask for a new request for the
#: same arguments (any string; the same value again means the same call)
IDEMPOTENCY_META_KEY = "io.olas/idempotency-key"
#: deepest array/object nesting of a delivered response read as structured content: the
#: manifest cap (``Limits.max_depth``, 64). pydantic-core, which the SDK serialises
#: results with, refuses a few hundred levels ("Maximum serialization depth exceeded")
#: and ``json.loads`` a few thousand (``RecursionError``)
MAX_RESPONSE_DEPTH = DEFAULT_LIMITS.max_depth
#: most decimal digits of an integer in structured content: a uint256 (a wei amount, a
#: marketplace request id) has at most 78; longer ones are no chain quantity
MAX_INTEGER_DIGITS = 78


@dataclass(frozen=True)
class Tenure:
    """Since when a mech offers what its service's current manifest declares.

    :param declared_block: the block the service's current manifest hash was set (its
        last ``ComplementaryMetadataUpdated``; None: unknown).
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
    :param declared_block: the block its service's current manifest (the one offering
        this tool) was set on chain: the last ``ComplementaryMetadataUpdated`` of the
        service (None: unknown, e.g. another registry kind or an agent source).
    :param first_delivery_block: the block of the mech's first ``Deliver`` at or after
        ``declared_block``: since when it has delivered while offering this tool
        (None: not since, or unknown).
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

    @classmethod
    def from_facts(
        cls, mech_key: str, facts: MechFacts, tenure: Optional[Tenure] = None
    ) -> "Offer":
        """Build an offer from a catalogue entry's marketplace facts.

        :param mech_key: the entry's ``MechRef.key``.
        :param facts: one of its ``Mech.marketplace``.
        :param tenure: since when the mech offers its manifest's tools (None: unknown).
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
        )

    def to_meta(self) -> Dict[str, Any]:
        """Return the offer as ``_meta`` JSON (integers as decimal strings, null = unread).

        :return: ``{"mech", "address", "price_wei", "payment_type", "requests",
            "deliveries", "karma", "confirmed", "block", "created_block",
            "declared_block", "first_delivery_block", "payment"}``;
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
            "payment": plan_payment(self.payment_type, self.price).to_dict(),
        }


class NoOffer(ValueError):
    """No mech contract can serve the call; the message says why for each offer."""


def seniority(offer: Offer) -> SeniorityKey:
    """The part of an offer's rank a newcomer cannot buy: since when it serves the tool.

    First the block of the mech's first delivery since its service's manifest declared
    the tool (``first_delivery_block``); then, among mechs that have not delivered
    since, the block the manifest was set (``declared_block``); unknown values go last
    in each tier. Only then the older rule (for sources without these facts, e.g. an
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


#: one declaration of a tool name, for :func:`schema_owners_first`: the tool (any
#: object), its mech (None: unknown) and that mech's offers
Declaration = TypeVar("Declaration", bound=Tuple[Any, Any, Tuple[Offer, ...]])


def schema_owners_first(declarations: Sequence[Declaration]) -> List[Declaration]:
    """Order a tool name's declarations so that the first one owns the served schema.

    The schema a model sees for a name is its first verified offer's: the declaration
    whose best offer has the smallest :func:`seniority` (the earliest first delivery
    since its manifest declared the tool) comes first; declarations without offers go
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
        (price is None or price < 1, "price unread"),
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

    Eligible: confirmed, price read and at least 1 smallest unit, a payment way this
    server pays (native, OLAS or USDC fixed price: ``model.payment.plan_payment``; not
    subscriptions nor unknown types), price at most ``max_price`` (native, wei) or its
    asset's ``token_max_price``, the pinned mech when one is given and
    an allow-listed one when ``allowed`` is not empty (each matched against the contract
    address or the catalogue entry key, as mech-interact's ``valid_mechs``). Order:
    :func:`seniority` (the earliest first delivery since the manifest declared the tool:
    the incumbent), then the cheaper, then the lowest address, so the order is
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
        "offers go by the block of their first delivery since their manifest declared "
        "the tool, then by the block it was declared, then by creation block; never by "
        "karma or request and delivery counts (a mech raises those by paying itself) "
        "nor by age alone (an old mech can be bought)"
    )


def tenure_words(offer: Offer) -> str:
    """Say an offer's seniority facts in words (unknown ones say so).

    :param offer: an offer.
    :return: e.g. ``first delivered at block 130 since its manifest was set at block
        120, created at block 100, has delivered``.
    """
    first = (
        f"first delivered at block {offer.first_delivery_block}"
        if offer.first_delivery_block is not None
        else "no delivery known"
    )
    declared = (
        f"its manifest was set at block {offer.declared_block}"
        if offer.declared_block is not None
        else "its manifest's block unknown"
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


def send_time_refusal(
    offer: Offer, current: Optional[int], max_price: Optional[int]
) -> str:
    """Judge the price read right before sending ("" when it may be paid).

    The amount sent is always ``current``, never the listed price: a lower price is paid
    as it is now, a higher one within ``--max-price`` too (the user's cap is the bound,
    not the listing), and one over the cap or unread is refused, naming both prices.

    :param offer: the offer as listed (its ``price`` is the listed one, wei).
    :param current: ``maxDeliveryRate()`` at the latest block, wei (None: unread).
    :param max_price: ``--max-price``, wei (None: no cap).
    :return: a sentence naming the listed and current price, or "".
    """
    if current is None or current < 1:
        return (
            f"mech {offer.address}'s price could not be read right before sending "
            f"(listed at {offer.price} wei)"
        )
    if max_price is not None and current > max_price:
        return (
            f"mech {offer.address} raised its price from {offer.price} wei (listed) to "
            f"{current} wei (now), over --max-price {max_price} wei"
        )
    return ""


#: ``--spend-window`` by default: what ``--max-spend`` caps is the spending of the last
#: 24 hours, across restarts of the server on the same ``--state-dir``
DEFAULT_SPEND_WINDOW_SECONDS = 24 * 3600.0


@dataclass(frozen=True)
class PaidRecord:
    """One journalled request, as the spending cap reads it.

    :param request_id: 0x + 64 hex ("" for an entry that could not be read).
    :param price: wei paid (0 for an unreadable entry).
    :param written_at: unix seconds the entry was last written (its file's mtime; a
        delivered entry is rewritten later, which only keeps it in the window longer).
    :param problem: why the entry could not be read ("" when it was).
    """

    request_id: str
    price: int
    written_at: float
    problem: str = ""


@dataclass
class SpendLedger:
    """What was paid within ``--spend-window``, against ``--max-spend``.

    This run's requests are counted as they are sent (:meth:`record`); requests that
    earlier or other server processes journalled in the same ``--state-dir`` are counted
    from the journal (:meth:`count_journal`), so a restart does not reset the cap.

    :param max_spend: the cap in wei (None: no cap).
    :param spent: wei paid by this run so far (requests sent, delivered or not).
    :param requests: request ids paid for by this run, in order.
    :param window: seconds of spending the cap covers (None: this run only).
    :param earlier: wei of the journal's other requests within the window.
    :param earlier_requests: how many requests those are.
    :param unreadable: why a journal entry within the window could not be read ("":
        none); nothing is paid while one stays, since its price is unknown.
    :param refunded: this run's requests that were mined and reverted (their journal
        entries stay, and are not counted; an earlier run's reverted request is, to be
        safe: the journal does not say it reverted).
    """

    max_spend: Optional[int] = None
    spent: int = 0
    requests: List[str] = field(default_factory=list)
    window: Optional[float] = DEFAULT_SPEND_WINDOW_SECONDS
    earlier: int = 0
    earlier_requests: int = 0
    unreadable: str = ""
    refunded: List[str] = field(default_factory=list)

    def count_journal(self, records: Sequence[PaidRecord], now: float) -> None:
        """Count the journal's requests written within the window, except this run's.

        :param records: every journal entry (:class:`PaidRecord`).
        :param now: unix seconds.
        """
        if self.window is None:
            return
        since = now - self.window
        mine = set(self.requests) | set(self.refunded)
        recent = [r for r in records if r.written_at >= since]
        others = [r for r in recent if not r.problem and r.request_id not in mine]
        self.earlier = sum(r.price for r in others)
        self.earlier_requests = len(others)
        self.unreadable = next((r.problem for r in recent if r.problem), "")

    def _window_words(self) -> str:
        if self.window is None:
            return "this run's spending"
        return f"the spending of the last {self.window:g} s (--spend-window)"

    def refusal(self, price: int) -> Optional[str]:
        """Say why paying ``price`` now would break the cap, or None when it fits.

        :param price: the request's price, wei.
        :return: a sentence, or None.
        """
        if self.max_spend is None:
            return None
        if self.unreadable:
            return (
                f"the spending within --spend-window cannot be counted: "
                f"{self.unreadable}; check the entry, then move it away"
            )
        total = self.earlier + self.spent + price
        if total > self.max_spend:
            return (
                f"paying {price} wei would bring {self._window_words()} to "
                f"{total} wei, over --max-spend {self.max_spend} wei "
                f"({self.spent} wei spent on {len(self.requests)} request(s) by this "
                f"run, {self.earlier} wei on {self.earlier_requests} journalled "
                "request(s) of earlier or other runs)"
            )
        return None

    def record(self, price: int, request_id: str) -> None:
        """Count a paid request.

        :param price: wei paid.
        :param request_id: the marketplace request id (0x hex).
        """
        self.spent += price
        self.requests.append(request_id)

    def refund(self, price: int, request_id: str) -> None:
        """Take back a request counted by :meth:`record` that was mined and reverted.

        :param price: wei counted for it.
        :param request_id: its request id.
        """
        if request_id in self.requests:
            self.requests.remove(request_id)
            self.spent -= price
            self.refunded.append(request_id)


def _canonical(value: Any) -> bytes:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")


def normalised_arguments(value: Any) -> Any:
    """Arguments in one form per meaning: what a call sends and its key is made of.

    JSON Schema's instance equality (Draft 2020-12 core, section 4.2.2: numbers are
    equal when their mathematical values are, object member order is irrelevant), and
    Unicode NFC for strings (UAX #15: canonically equivalent strings are the same text
    to every reader). So ``1`` and ``1.0`` (an integral float becomes an int, ``-0.0``
    becomes ``0``), ``{"a", "b"}`` in any order (the key's JSON sorts them) and ``"é"``
    composed or decomposed are one call, paid once; ``true`` and ``1``, ``"1"`` and
    ``1``, ``1.5`` and ``1``, ``null`` and a missing argument, or list orders are not.
    Object keys are kept as sent (they are the mech's argument names). Numbers that a
    JSON reader already parsed into the same double (``1.00000000000000001`` and ``1``)
    cannot be told apart.

    :param value: validated arguments (a JSON value).
    :return: a new value in normal form.
    """
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, list):
        return [normalised_arguments(item) for item in value]
    if isinstance(value, dict):
        return {key: normalised_arguments(item) for key, item in value.items()}
    return value


def call_key(
    tool: str, arguments: Mapping[str, Any], requester: str, idempotency: str = ""
) -> str:
    """Return the identity of a call (the journal's key).

    The same tool, arguments, paying account and idempotency key give the same key, so
    a retry after a crash finds its journal entry; arguments are taken in
    :func:`normalised_arguments` form, so equivalent ones give the same key.

    :param tool: the mech tool name (not the MCP name).
    :param arguments: the validated arguments.
    :param requester: the paying account address.
    :param idempotency: the client's ``_meta[IDEMPOTENCY_META_KEY]`` ("" when absent).
    :return: 64 lowercase hex characters (sha2-256 of the sorted-key JSON document).
    """
    document = {
        "tool": tool,
        "arguments": normalised_arguments(dict(arguments)),
        "requester": requester.lower(),
        "idempotency": idempotency,
    }
    return hashlib.sha256(_canonical(document)).hexdigest()


def payload_nonce(key: str) -> str:
    """The payload's ``nonce`` (mech-interact sends a UUID there), derived from the call key.

    :param key: from :func:`call_key`.
    :return: a UUID string (version 5 of the key in a fixed namespace).
    """
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"mech-catalogue:mcp:{key}"))


def prompt_of(arguments: Mapping[str, Any]) -> str:
    """The payload's ``prompt``: the ``prompt`` argument when given, else the arguments' JSON.

    :param arguments: the validated arguments.
    :return: the prompt text.
    """
    prompt = arguments.get("prompt")
    if isinstance(prompt, str):
        return prompt
    return _canonical(dict(arguments)).decode("utf-8")


def request_payload(
    tool: str, arguments: Mapping[str, Any], nonce: str
) -> Dict[str, Any]:
    """The request JSON uploaded to IPFS, as mech tools read it.

    mech-interact (``_send_metadata_to_ipfs``) sends ``{"prompt", "tool", "nonce"}`` with
    ``extra_attributes`` merged at top level; a mech passes those keys to the tool's
    ``run(**kwargs)``. Arguments named like a reserved key never replace it.

    :param tool: the mech tool name.
    :param arguments: the validated arguments.
    :param nonce: from :func:`payload_nonce`.
    :return: the payload.
    """
    payload: Dict[str, Any] = {
        key: value
        for key, value in arguments.items()
        if key not in RESERVED_PAYLOAD_KEYS
    }
    payload.update({"prompt": prompt_of(arguments), "tool": tool, "nonce": nonce})
    return payload


def hidden_text_refusal(tool: Mapping[str, Any]) -> Optional[str]:
    """Why a tool is refused when its served definition still hides text (issue 29).

    Prose is cleaned on arrival; what is the mech's contract (property names,
    ``pattern``, ``format``, ``enum`` object keys, unknown keywords) is not, so a
    definition hiding invisible characters there is not offered at all (found by an
    adversarial review: tag characters spelling instructions in those places).

    :param tool: the MCP Tool as served.
    :return: a sentence starting with the problem code ``invisible_text`` naming where,
        or None when the definition hides nothing.
    """
    where = hidden_in(dict(tool))
    if not where:
        return None
    return (
        f"refused ({INVISIBLE_TEXT}): the tool's definition hides invisible characters "
        f"where they cannot be removed without changing what a call sends "
        f"({', '.join(where)}); this tool is not offered"
    )


def secret_refusal(input_schema: Mapping[str, Any]) -> Optional[str]:
    """Why a tool is refused when an argument asks for a secret (issue 29, attack 4).

    A mech never needs its caller's private key, seed phrase, mnemonic, password, API
    key, secret or wallet key; a manifest asking for one is phishing the model (which
    may hold such a secret in its context). The rule is the library's
    (:func:`mech_catalogue_core.model.untrusted_text.secret_arguments`), on the
    ``inputSchema`` as served, so the agent's catalogue warning and this refusal agree.

    :param input_schema: the MCP ``inputSchema`` served for the tool.
    :return: a sentence starting with the problem code ``secret_argument`` that names
        the arguments and says what to do, or None when no argument asks.
    """
    asking = secret_arguments(dict(input_schema))
    if not asking:
        return None
    named = ", ".join(f"{name!r} asks for a {secret}" for name, secret in asking)
    return (
        f"refused ({SECRET_ARGUMENT}): argument {named}; a mech never needs its "
        "caller's secrets, so this tool is not offered. Use another tool; never send "
        "a secret to a mech"
    )


def _arguments(definition: Mapping[str, Any]) -> Dict[str, Any]:
    schema = definition.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return dict(properties) if isinstance(properties, dict) else {}


def definition_changes(
    approved: Mapping[str, Any], current: Mapping[str, Any]
) -> List[str]:
    """What changed between an approved tool definition and the one listed now.

    :param approved: the approved definition (``pins.definition_of``).
    :param current: the current one.
    :return: phrases such as ``argument 'wallet_note' added``, ``argument 'city' changed``,
        ``argument 'days' removed``, ``the argument rules changed`` (required, extra keys),
        ``description changed``, ``output schema changed``; arguments in name order;
        empty when equal.
    """
    before, after = _arguments(approved), _arguments(current)
    changes = [f"argument {name!r} added" for name in sorted(set(after) - set(before))]
    changes += [
        f"argument {name!r} removed" for name in sorted(set(before) - set(after))
    ]
    changes += [
        f"argument {name!r} changed"
        for name in sorted(set(before) & set(after))
        if before[name] != after[name]
    ]
    rules = ("required", "additionalProperties", "anyOf", "oneOf", "allOf")
    old_schema = approved.get("inputSchema") or {}
    new_schema = current.get("inputSchema") or {}
    if any(old_schema.get(k) != new_schema.get(k) for k in rules):
        changes.append("the argument rules changed")
    if approved.get("description") != current.get("description"):
        changes.append("description changed")
    if approved.get("outputSchema") != current.get("outputSchema"):
        changes.append("output schema changed")
    return changes


def pin_refusal(
    approved: Mapping[str, Any], current: Mapping[str, Any], pin_file: str
) -> str:
    """Why a tool whose definition changed since it was approved is not callable.

    :param approved: the approved definition.
    :param current: the current one (its digest differs).
    :param pin_file: the pin file's path, to say how to re-approve.
    :return: a sentence naming what changed and how to approve it.
    """
    changes = definition_changes(approved, current) or ["its definition changed"]
    return (
        "refused: the tool changed since its definition was approved ("
        + "; ".join(changes)
        + f"); review it, then delete its entry from {pin_file} to approve the new "
        "definition (taken at the next catalogue change or restart)"
    )


def _where(path: Sequence[Any]) -> str:
    return "/".join(str(part) for part in path)


def argument_errors(
    schema: Mapping[str, Any], arguments: Optional[Mapping[str, Any]]
) -> List[str]:
    """Check arguments against the tool's ``inputSchema``; each error names the argument.

    :param schema: the MCP ``inputSchema`` served in ``tools/list``.
    :param arguments: the call's ``arguments`` (None: none given).
    :return: sentences such as ``argument 'limit': 'x' is not of type 'integer'`` or
        ``missing required argument 'query'``, sorted by argument; empty when valid.
    """
    try:
        Draft202012Validator.check_schema(dict(schema))
        validator = Draft202012Validator(dict(schema))
    except SchemaError as exc:  # the exporter checks schemas; say so if one slips
        return [f"the tool's input schema is invalid: {exc.message}"]
    try:
        found = list(validator.iter_errors(dict(arguments or {})))
    except RecursionError:  # a deeply nested argument (its error text is a repr too)
        return ["arguments: nested too deeply to check"]
    errors: List[str] = []
    for error in found:
        path = list(error.absolute_path)
        if error.validator == "required" and not path:
            missing = [
                name for name in error.validator_value if name not in (arguments or {})
            ]
            errors.extend(f"missing required argument {name!r}" for name in missing)
        elif error.validator == "additionalProperties" and not path:
            known = set((schema.get("properties") or {}).keys())
            extra = sorted(set((arguments or {}).keys()) - known)
            errors.extend(f"argument {name!r} is not accepted" for name in extra)
        elif path:
            errors.append(f"argument {_where(path)!r}: {error.message}")
        else:
            errors.append(f"arguments: {error.message}")
    return sorted(set(errors))


class _Unstructured(ValueError):
    """A delivered JSON text that is no bounded JSON value; the message says why."""


def _no_constant(name: str) -> Any:
    raise _Unstructured(f"it holds {name}, which is not JSON (RFC 8259)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Unstructured(f"the number {text[:40]} overflows a double")
    return value


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise _Unstructured(
            f"an integer has {digits} digits, over the {MAX_INTEGER_DIGITS} of a uint256"
        )
    return int(text)


def decode_response(text: Any) -> Tuple[Any, str]:
    """Decode a delivered response (or its ``result`` text) as a bounded JSON value.

    Never raises: nesting is measured without recursion first
    (:func:`mech_catalogue_core.manifest.validation.nesting_depth`), then ``json.loads``
    refuses ``NaN``/``Infinity``, numbers that overflow a double and integers over
    :data:`MAX_INTEGER_DIGITS` digits.

    :param text: the bytes or string delivered.
    :return: ``(value, "")``, or ``(None, why it is not structured)``.
    """
    if not isinstance(text, (bytes, str)):
        return None, f"it is a {type(text).__name__}, not JSON text"
    try:
        depth = nesting_depth(text, MAX_RESPONSE_DEPTH)
        if depth > MAX_RESPONSE_DEPTH:
            return None, f"it is nested too deeply (over {MAX_RESPONSE_DEPTH} levels)"
        return (
            json.loads(
                text,
                parse_constant=_no_constant,
                parse_float=_finite_float,
                parse_int=_bounded_int,
            ),
            "",
        )
    except _Unstructured as exc:
        return None, str(exc)
    except (ValueError, RecursionError, UnicodeDecodeError):
        return None, "it is not JSON"


def structured_content(schema: Mapping[str, Any], body: bytes) -> Tuple[Any, str]:
    """The response as structured content when it validates against the output schema.

    The schema may describe the whole response document (mech-server's ``{"requestId",
    "result", "prompt", ...}``) or the tool's own result (the document's ``result``,
    decoded when it is JSON text); the first that validates is returned. Integers
    beyond +-(2**53-1) (the 77-digit ``requestId``) are given as decimal strings
    (:func:`~mech_catalogue_core.exporters.js_integers.integers_as_text`), checked against
    the schema as served, which accepts them
    (:func:`~mech_catalogue_core.exporters.js_integers.schema_with_integer_text`). Never raises:
    a response that is no bounded JSON (:func:`decode_response`) or that the validator
    cannot check (e.g. ``OverflowError`` of ``multipleOf``) is a reason, not an error.

    :param schema: the tool's ``outputSchema``.
    :param body: the verified response bytes.
    :return: ``(structured or None, why not: "" when fine)``.
    """
    document, problem = decode_response(body)
    if problem:
        return None, f"the response is not structured content: {problem}"
    candidates = [document]
    if isinstance(document, dict) and "result" in document:
        result = document["result"]
        if isinstance(result, str):
            decoded, _ = decode_response(result)
            result = result if decoded is None else decoded
        candidates.append(result)
    candidates = [integers_as_text(candidate) for candidate in candidates]
    served = schema_with_integer_text(dict(schema))
    first = None
    for candidate in candidates:
        try:
            validator = Draft202012Validator(served)
            errors = sorted(validator.iter_errors(candidate), key=str)
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # a stranger's schema meeting a mech's response: whatever it raises, the
            # answer is still returned (as text)
            return (
                None,
                f"checking it against the output schema failed ({type(exc).__name__})",
            )
        if not errors:
            return candidate, ""
        first = first or errors[0]
    assert first is not None  # nosec: candidates is never empty
    # named by the served schema's own path and keyword only: jsonschema's message and
    # the instance path quote the mech's values and keys, which may hide text, and this
    # note is read as the server's words, outside the untrusted answer
    where = "/".join(str(p) for p in first.absolute_schema_path) or "(root)"
    return (
        None,
        f"the response does not match the output schema ({first.validator!r} at "
        f"schema path {where[:200]})",
    )


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
