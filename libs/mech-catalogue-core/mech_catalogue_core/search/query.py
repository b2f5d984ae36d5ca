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

"""What a catalogue search asks for, and the offer facts its filters read.

A search matches *offers*: one mech's tool (``Catalogue.tools()``). The facts a filter
reads about an offer come from its mech's marketplace contracts (:class:`.MechFacts`,
read from chain); a manifest's text never decides a price or a payment way.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

from mech_catalogue_core.model.catalogue import Mech
from mech_catalogue_core.model.market import MECH_KIND_MARKETPLACE, MechFacts
from mech_catalogue_core.model.vocabulary import MechLiveness, SearchSort

#: matches per page when the caller does not say
DEFAULT_PAGE_SIZE = 20
#: matches per page at most (a page's size is bounded whatever the catalogue's)
MAX_PAGE_SIZE = 200
#: characters of query text read at most (more is refused: a query is not a document)
MAX_QUERY_CHARS = 256
#: the highest ``max_price`` accepted, wei (or the payment asset's smallest unit): prices
#: are compared as 64-bit integers, and a rate above this is above any accepted cap
MAX_PRICE_CAP = 2**63 - 2
#: karma is compared as a 64-bit integer: a read value beyond +-2**62 counts as +-2**62
#: (``Karma.mapMechKarma`` is an int256), and ``min_karma`` lies within those bounds
MAX_KARMA = 2**62
#: block numbers are compared as 64-bit integers: a window beyond this is refused
MAX_BLOCK = 2**62


class InvalidQuery(ValueError):
    """A query the engine cannot answer; the message says what to change."""


@dataclass(frozen=True, slots=True)
class SearchQuery:  # pylint: disable=too-many-instance-attributes
    """One search: text, filters, order and page size.

    Every filter left at its default keeps every offer.

    :param text: words to rank by (BM25 over tool names, kinds, descriptions, input and
        output descriptions, argument names and descriptions); "" ranks nothing and keeps
        every offer the filters keep, in catalogue order (name, then mech).
    :param kind: only tools of this ``Tool.kind`` ("": any).
    :param payment: only offers with a callable contract of this payment type name
        (``model.market.PAYMENT_TYPE_NAMES`` values, e.g. ``native``; "": any).
    :param max_price: only offers whose price (the lowest ``maxDeliveryRate`` among the
        mech's callable contracts of the payment type asked, in its smallest unit, wei
        for native; with no payment asked, its first payment type by name) is at most
        this; an offer with no price is dropped (None: no cap).
    :param mech: only offers of this mech, by catalogue entry key (``MechRef.key``) or a
        mech contract address, case-insensitive ("": any).
    :param registry: only offers of mechs read from this registry kind
        (``vocabulary.RegistryKind`` values; "": any).
    :param typed: True: only tools with typed arguments; False: only untyped ones;
        None: both.
    :param callable_now: only offers someone can pay now (see :func:`callable_contracts`).
    :param delivering: only offers whose mech has delivered (``MechLiveness.DELIVERING``).
    :param min_karma: only offers whose mech's karma (:func:`highest_karma`) was read
        and is at least this (None: no floor). Karma counts deliveries and is bought
        by wash trading (paying one's own mech): a filter on a buyable signal, never
        used by the default relevance order.
    :param delivered_within: only offers whose mech delivered within this many blocks
        before the block its facts were read at (:func:`latest_delivery`: the agreed
        snapshot block on an agent; 0: a delivery in that very block); a mech with no
        delivery known is dropped (None: no window). Blocks, not seconds: every agent
        reads the same blocks, whereas a time would need each block's timestamp.
    :param sort: :class:`SearchSort`. ``price`` with no ``payment`` groups offers by
        the payment type of their price (names in order), cheapest first within each:
        amounts of two assets are never compared.
    :param page_size: matches per page, 1 to :data:`MAX_PAGE_SIZE`.
    """

    text: str = ""
    kind: str = ""
    payment: str = ""
    max_price: Optional[int] = None
    mech: str = ""
    registry: str = ""
    typed: Optional[bool] = None
    callable_now: bool = False
    delivering: bool = False
    min_karma: Optional[int] = None
    delivered_within: Optional[int] = None
    sort: SearchSort = SearchSort.RELEVANCE
    page_size: int = DEFAULT_PAGE_SIZE

    def __post_init__(self) -> None:
        """Refuse what cannot be answered.

        :raises InvalidQuery: on a text over :data:`MAX_QUERY_CHARS`, a page size out of
            range, a negative or too large ``max_price``, a ``min_karma`` beyond
            :data:`MAX_KARMA`, a ``delivered_within`` out of 0 to :data:`MAX_BLOCK`, or
            an unknown sort.
        """
        if len(self.text) > MAX_QUERY_CHARS:
            raise InvalidQuery(
                f"the query text has {len(self.text)} characters, more than the "
                f"{MAX_QUERY_CHARS} read; use fewer words"
            )
        if not 1 <= self.page_size <= MAX_PAGE_SIZE:
            raise InvalidQuery(
                f"page size {self.page_size} is not between 1 and {MAX_PAGE_SIZE}"
            )
        if self.max_price is not None and not 0 <= self.max_price <= MAX_PRICE_CAP:
            raise InvalidQuery(
                f"max price {self.max_price} is not between 0 and {MAX_PRICE_CAP}"
            )
        if self.min_karma is not None and not -MAX_KARMA <= self.min_karma <= MAX_KARMA:
            raise InvalidQuery(
                f"min karma {self.min_karma} is not between {-MAX_KARMA} and {MAX_KARMA}"
            )
        if self.delivered_within is not None and not (
            0 <= self.delivered_within <= MAX_BLOCK
        ):
            raise InvalidQuery(
                f"delivered within {self.delivered_within} blocks is not between 0 and "
                f"{MAX_BLOCK}"
            )
        if self.sort not in tuple(SearchSort):
            raise InvalidQuery(
                f"sort {self.sort!r} is not one of {', '.join(SearchSort)}"
            )

    def fingerprint(self) -> str:
        """Return the query's identity, for binding a cursor to it (page size included).

        :return: a text that differs whenever any field does.
        """
        return repr(
            (
                self.text,
                self.kind,
                self.payment,
                self.max_price,
                self.mech.lower(),
                self.registry,
                self.typed,
                self.callable_now,
                self.delivering,
                self.min_karma,
                self.delivered_within,
                str(self.sort),
                self.page_size,
            )
        )


def callable_contracts(mech: Mech, payment: str = "") -> Tuple[MechFacts, ...]:
    """Return the mech's contracts someone can pay now, as the catalogue knows it.

    Callable: a MechMarketplace mech whose creation the marketplace confirmed, whose
    ``maxDeliveryRate()`` was read and is at least 1, and whose ``paymentType()`` is one
    mech-interact names (``PAYMENT_TYPE_NAMES``); a mech that never delivered is still
    callable (ask ``delivering`` for liveness).

    :param mech: the catalogue entry.
    :param payment: only contracts of this payment type name ("": any).
    :return: those contracts, in the mech's order.
    """
    return tuple(
        facts
        for facts in mech.marketplace
        if facts.kind == MECH_KIND_MARKETPLACE
        and facts.confirmed
        and facts.max_delivery_rate is not None
        and facts.max_delivery_rate >= 1
        and facts.payment_type_name
        and (not payment or facts.payment_type_name == payment)
    )


def is_delivering(mech: Mech) -> bool:
    """Return whether one of the mech's contracts has delivered a request.

    :param mech: the catalogue entry.
    :return: True when a contract's liveness is ``delivering``.
    """
    return any(f.liveness == MechLiveness.DELIVERING for f in mech.marketplace)


def highest_karma(mech: Mech) -> Optional[int]:
    """Return the mech's karma: the highest read among its confirmed marketplace contracts.

    Karma is ``Karma.mapMechKarma(mech)`` (docs/marketplace.md): it grows with deliveries
    and can be bought by requesting from one's own mech.

    :param mech: the catalogue entry.
    :return: the karma (signed), None when no confirmed contract's karma was read.
    """
    read = [
        f.karma
        for f in mech.marketplace
        if f.kind == MECH_KIND_MARKETPLACE and f.confirmed and f.karma is not None
    ]
    return max(read) if read else None


def lowest_price(mech: Mech, payment: str = "") -> Optional[int]:
    """Return the mech's price: the lowest rate among its callable contracts.

    :param mech: the catalogue entry.
    :param payment: only contracts of this payment type name ("": any; rates of
        different assets are then compared as bare numbers).
    :return: the rate in the asset's smallest unit, None when no contract is callable.
    """
    rates = [
        f.max_delivery_rate
        for f in callable_contracts(mech, payment)
        if f.max_delivery_rate is not None
    ]
    return min(rates) if rates else None


def latest_delivery(mech: Mech) -> Optional[Tuple[int, int]]:
    """Return the mech's latest delivery known and the block that was known at.

    From its marketplace contracts' ``last_delivery_block`` (the latest
    ``MarketplaceDelivery`` / ``MarketplaceDeliveryWithSignatures`` event naming the
    contract, read by discovery up to the agreed block's confirmed blocks) and
    ``block`` (the block the facts were read at).

    :param mech: the catalogue entry.
    :return: ``(latest delivery block, its facts' block)`` of the contract that
        delivered last (ties: the later facts' block), None when none is known.
    """
    known = [
        (
            f.last_delivery_block,
            f.block if f.block is not None else f.last_delivery_block,
        )
        for f in mech.marketplace
        if f.kind == MECH_KIND_MARKETPLACE and f.last_delivery_block is not None
    ]
    return max(known) if known else None
