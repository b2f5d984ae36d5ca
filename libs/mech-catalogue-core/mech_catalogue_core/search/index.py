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

"""The search index of one catalogue: BM25 over each offer's text, filter columns, cursors.

Ranking is Okapi BM25 (:mod:`.bm25`: k1 1.5, b 0.75, Lucene's idf) over the words of
:func:`offer_text`: lowercased, split into runs of two or more letters or digits
(hyphens and underscores split names, so ``claude-prediction-offline`` is three words),
Lucene's English stop words dropped and Snowball-stemmed (``PyStemmer``, pinned exactly
with numpy in the library's pyproject), so "predictions" finds "prediction-online".
A word counts once per field of the offer (name 3, kind 2, every other field 1:
:data:`FIELD_WEIGHTS`), and a document shorter than the average is weighed as average:
a manifest repeating a query word 1,000 times, naming 300 arguments after it or
describing itself only by the query's words ranks no higher than an honest tool
mentioning the word once (keyword stuffing, issue 33). Offers with the same text
(registrations sharing a manifest) are one BM25 document: a manifest registered many
times neither raises nor lowers how rare its words are.

Determinism: the index lays offers out by (tool name, mech ref); a score is rounded to
:data:`SCORE_DECIMALS` decimals before it is compared (BM25 sums float32 weights); every
order ends with the offer's place in that layout, so no two offers ever tie and the same
catalogue and query give the same page on every agent.
"""

import gc
import hashlib
import itertools
import operator
import re
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
from mech_catalogue_core.model.catalogue import Catalogue, Mech
from mech_catalogue_core.model.tool import Tool
from mech_catalogue_core.model.vocabulary import SearchSort
from mech_catalogue_core.search.bm25 import FIELD_SEPARATOR, Bm25Index
from mech_catalogue_core.search.query import (
    MAX_BLOCK,
    MAX_KARMA,
    InvalidQuery,
    SearchQuery,
    callable_contracts,
    highest_karma,
    is_delivering,
    latest_delivery,
    lowest_price,
)

__all__ = [
    "InvalidCursor",
    "SCORE_DECIMALS",
    "SearchHit",
    "SearchIndex",
    "SearchPage",
    "offer_text",
]

#: the weight of each field of :func:`offer_text` (name, kind, description, input and
#: output descriptions, argument identifiers, argument descriptions): a word counts once
#: per field holding it, times the field's weight, so a name or kind weighs more than a
#: description and repeating a word in a field buys nothing (keyword stuffing)
FIELD_WEIGHTS = (3, 2, 1, 1, 1, 1, 1)
#: the fields of :func:`offer_text`
_FIELDS = len(FIELD_WEIGHTS)
#: decimals of a BM25 score kept for ranking (and reported)
SCORE_DECIMALS = 4
#: the price of an offer with no callable contract, above every accepted ``max_price``
NO_PRICE = np.iinfo(np.int64).max
#: the rank key of an offer a query drops (above every kept offer's)
DROPPED = np.iinfo(np.int64).max
_PROVENANCE_MECH = operator.attrgetter("provenance.mech")
_NAME = operator.attrgetter("name")
_KIND = operator.attrgetter("kind")
_IS_TYPED = operator.attrgetter("is_typed")
_TEXT_FIELDS = operator.attrgetter(
    "name",
    "kind",
    "description",
    "input_description",
    "output_description",
    "arguments",
)
#: texts handed to BM25 (and let go) at a time
_READ_BLOCK = 1024
_CURSOR = re.compile(r"([0-9]{1,9})\.([0-9a-f]{16})")


class InvalidCursor(InvalidQuery):
    """A cursor not issued for this query on this catalogue (or past its last match)."""


@dataclass(frozen=True, slots=True)
class SearchHit:  # pylint: disable=too-many-instance-attributes
    """One matching offer.

    :param tool: the mech's tool.
    :param mech: the offering mech's catalogue entry.
    :param score: its BM25 score, rounded to :data:`SCORE_DECIMALS` (0.0 without text).
    :param price: the lowest ``maxDeliveryRate`` among its callable contracts of the
        payment type asked, or with none asked of its first payment type
        (``payments[0]``): smallest unit of that asset (None: none is callable).
    :param payments: the payment type names of its callable contracts, sorted.
    :param delivering: whether one of its contracts has delivered a request.
    :param karma: the mech's karma (:func:`.query.highest_karma`; None: none read).
    :param last_delivery_block: the block of the mech's latest delivery known
        (:func:`.query.latest_delivery`; None: none known).
    """

    tool: Tool
    mech: Mech
    score: float
    price: Optional[int]
    payments: Tuple[str, ...]
    delivering: bool
    karma: Optional[int] = None
    last_delivery_block: Optional[int] = None

    @property
    def callable_now(self) -> bool:
        """Return whether some contract of the mech can be paid now.

        :return: True when :attr:`payments` is not empty.
        """
        return bool(self.payments)


@dataclass(frozen=True, slots=True)
class SearchPage:
    """One page of matches.

    :param hits: the matches of the page, in order.
    :param total: matches of the whole query (offers, or tool names when distinct).
    :param next_cursor: pass it back for the next page (None on the last page).
    :param offset: the place of the page's first match in the whole answer.
    """

    hits: Tuple[SearchHit, ...]
    total: int
    next_cursor: Optional[str]
    offset: int = 0


def offer_text(tool: Tool) -> str:
    """Return the text an offer is found by: its fields, as :data:`FIELD_WEIGHTS` says.

    :param tool: the tool.
    :return: its name, kind, description, input and output descriptions, argument
        identifiers and argument descriptions, joined by ``bm25.FIELD_SEPARATOR`` (taken
        out of the texts themselves). Names need no splitting: ``-_./:`` are not word
        characters, so the words of ``claude-prediction`` are ``claude`` and
        ``prediction`` (:func:`.bm25.words_of`).
    """
    return _offer_texts((tool,))[0]


def _offer_texts(tools: Iterable[Tool]) -> List[str]:
    """Return :func:`offer_text` of each tool, in one loop (a call a tool cost a fifth more).

    :param tools: the tools.
    :return: their texts, in order.
    """
    texts: List[str] = []
    append = texts.append
    cut = FIELD_SEPARATOR
    for name, kind, description, given, answer, arguments in map(_TEXT_FIELDS, tools):
        identifiers = descriptions = ""
        if arguments:
            identifiers = " ".join([argument.identifier for argument in arguments])
            descriptions = " ".join([argument.description for argument in arguments])
        # one f-string: a list and a join cost twice as much, per offer
        text = (
            f"{name}{cut}{kind}{cut}{description}{cut}{given}{cut}{answer}{cut}"
            f"{identifiers}{cut}{descriptions}"
        )
        if text.count(cut) != _FIELDS - 1:  # a manifest wrote one
            fields = [name, kind, description, given, answer, identifiers, descriptions]
            text = cut.join(field.replace(cut, " ") for field in fields)
        append(text)
    return texts


def _documents(
    texts: List[str], groups: np.ndarray
) -> Tuple[np.ndarray, Iterator[str]]:
    """Number the distinct texts in order of their first offer, as BM25 documents.

    Offers with the same text (registrations sharing a manifest) are one BM25 document.

    :param texts: the distinct texts (emptied here; each is let go once read, a
        block of :data:`_READ_BLOCK` at a time, so the texts alive shrink as the
        index grows).
    :param groups: each offer's text (an index into ``texts``), layout order.
    :return: each offer's document id (int32), and the texts of the documents in
        document id order.
    """
    distinct, first = np.unique(groups, return_index=True)
    text_of_document = distinct[np.argsort(first)]  # texts by their first offer
    document_of_text = np.empty(len(texts), dtype=np.int32)
    document_of_text[text_of_document] = np.arange(len(distinct), dtype=np.int32)

    ordered = list(map(texts.__getitem__, text_of_document.tolist()))
    texts.clear()

    def read() -> Iterator[str]:
        for start in range(0, len(ordered), _READ_BLOCK):
            block = ordered[start : start + _READ_BLOCK]
            ordered[start : start + _READ_BLOCK] = [""] * len(block)
            yield from block

    return document_of_text[groups], read()


def _first_seen(values: Iterable[str], count: int) -> Tuple[np.ndarray, Dict[str, int]]:
    """Number equal values by first appearance, in one pass of C-level calls.

    :param values: the values.
    :param count: how many.
    :return: each value's number (int32), and the distinct values (in order) -> a
        number that is not theirs (use only the keys and their order).
    """
    table: Dict[str, int] = {}
    seen = np.fromiter(
        map(table.setdefault, values, itertools.count()), np.int64, count
    )
    _, numbers = np.unique(seen, return_inverse=True)  # first appearance order
    return numbers.astype(np.int32), table


def _codes(values: Sequence[str]) -> Tuple[np.ndarray, Dict[str, int]]:
    """Number the distinct values: (code of each value, value -> code)."""
    table: Dict[str, int] = {}
    codes = np.fromiter(
        (table.setdefault(v, len(table)) for v in values),
        dtype=np.int32,
        count=len(values),
    )
    return codes, table


class _Layout(NamedTuple):
    """The offers in the index's order, and their columns (one row an offer).

    :param tools: the offers' tools in catalogue order (entries missing left out).
    :param order: the index's order, (tool name, mech ref): each offer's place in
        ``tools`` (int32).
    :param mechs: each offer's mech, its place in ``catalogue.mechs`` (int32).
    :param name_starts: where each tool name's offers start.
    :param kinds: each offer's kind, a code of ``kind_table`` (int32).
    :param kind_table: kind -> code.
    :param typed: whether each offer's tool has typed arguments.
    :param texts: the distinct :func:`offer_text` s, in catalogue order.
    :param text_groups: each offer's text, an index into ``texts`` (int32).
    """

    tools: List[Tool]
    order: np.ndarray
    mechs: np.ndarray
    name_starts: np.ndarray
    kinds: np.ndarray
    kind_table: Dict[str, int]
    typed: np.ndarray
    texts: List[str]
    text_groups: np.ndarray


class SearchIndex:  # pylint: disable=too-many-instance-attributes
    """Every offer of one catalogue, ready to search. Immutable after :meth:`build`.

    Build: O(offers + words). A search: O(postings of the query's words + offers
    kept × log) in numpy, then O(page) to build the page's hits.
    """

    def __init__(self, catalogue: Catalogue, fingerprint: str = "") -> None:
        """Index the catalogue (use :meth:`build`).

        :param catalogue: the agreed catalogue.
        :param fingerprint: its digest, binding cursors to it ("": computed here with
            ``Catalogue.digest()``; pass the agreed digest when it is known).
        """
        self._fingerprint = fingerprint or catalogue.digest()
        self._mechs: Tuple[Mech, ...] = tuple(catalogue.mechs)
        layout = self._layout(catalogue)
        # the tools in catalogue order, and each offer's place among them (its mech:
        # ``_mechs[_mech_codes[offer]]``): putting 200,000 tools in name order cost a
        # tenth of the build in reads of objects scattered in memory
        self._tools: Tuple[Tool, ...] = tuple(layout.tools)
        self._tool_of = layout.order
        # each offer's mech (an index into ``_mechs``): per-mech facts become columns
        self._mech_codes = layout.mechs
        # where each tool name's offers start (offers are laid out by name)
        self._name_starts = layout.name_starts
        self._kind_codes, self._kinds = layout.kinds, layout.kind_table
        registry_codes, self._registries = _codes(
            [m.ref.registry_kind for m in self._mechs]
        )
        self._registry_codes = registry_codes[self._mech_codes]
        self._typed = layout.typed
        self._by_mech = self._mech_keys(self._mechs)
        self._mech_facts = [
            (
                tuple(sorted({f.payment_type_name for f in callable_contracts(m)})),
                is_delivering(m),
            )
            for m in self._mechs
        ]
        self._prices: Dict[str, np.ndarray] = {}
        # each offer's price group when no payment is asked: its first payment type's
        # place among the names (sorted), offers with none last
        names = sorted({p for payments, _ in self._mech_facts for p in payments})
        self._payment_groups = np.array(
            [
                names.index(payments[0]) if payments else len(names)
                for payments, _ in self._mech_facts
            ],
            dtype=np.int64,
        )[self._mech_codes]
        self._delivering = np.array(
            [delivering for _, delivering in self._mech_facts], dtype=bool
        )[self._mech_codes]
        karma = [highest_karma(m) for m in self._mechs]
        self._karma_read = np.array([k is not None for k in karma], bool)[
            self._mech_codes
        ]
        self._karma = np.array(
            [0 if k is None else max(-MAX_KARMA, min(k, MAX_KARMA)) for k in karma],
            dtype=np.int64,
        )[self._mech_codes]
        # each offer's mech's latest delivery block (-1: none known) and how many blocks
        # before its facts' block it was
        deliveries = [latest_delivery(m) or (-1, -1) for m in self._mechs]
        self._last_delivery = np.array(
            [min(last, MAX_BLOCK) for last, _ in deliveries], dtype=np.int64
        )[self._mech_codes]
        self._delivery_age = np.array(
            [min(max(read - last, 0), MAX_BLOCK) for last, read in deliveries],
            dtype=np.int64,
        )[self._mech_codes]
        self._documents, texts = _documents(layout.texts, layout.text_groups)
        del layout
        self._bm25 = Bm25Index(texts, field_weights=FIELD_WEIGHTS)

    @staticmethod
    def _layout(catalogue: Catalogue) -> "_Layout":
        """The offers by (tool name, mech ref), with their columns.

        An offer's mech is the entry its provenance names (a tool whose entry is not
        in the catalogue is left out); the entry holding the tool is taken when its
        ref is the provenance's own object (nearly always: hashing every ref is
        slow). Each column is read over the tools in catalogue order, where they lie
        in memory (in name order the reads cost three times as much; the texts are
        kept until indexed, within the build's later peak), by C-level ``map`` s,
        then put in name order by one stable sort: the order of ``tool_names()``
        then ``tools_named()``.

        :param catalogue: the catalogue.
        :return: the layout.
        """
        mechs = catalogue.mechs
        tools = [tool for mech in mechs for tool in mech.tools]
        owners = np.repeat(
            np.arange(len(mechs), dtype=np.int32), [len(m.tools) for m in mechs]
        )
        holders = [mech.ref for mech in mechs for _ in mech.tools]
        refs = list(map(_PROVENANCE_MECH, tools))
        if not all(map(operator.is_, refs, holders)):
            place_of = {m.ref: i for i, m in enumerate(mechs)}
            owners = np.fromiter(
                (-1 if ref is None else place_of.get(ref, -1) for ref in refs),
                np.int32,
                len(refs),
            )
            kept = np.flatnonzero(owners >= 0)
            tools, owners = [tools[i] for i in kept.tolist()], owners[kept]
        # by name, as ``tool_names()`` sorts them (stable: each name's tools keep the
        # catalogue's order): each offer ranked by its name's place there (sorted when
        # the catalogue was built), then one stable numpy sort of the ranks
        rank = dict(zip(catalogue.tool_names(), itertools.count()))
        ranks = np.fromiter(
            map(rank.__getitem__, map(_NAME, tools)), np.int64, len(tools)
        )
        order = np.argsort(ranks, kind="stable")
        new_name = np.ones(len(tools), dtype=bool)
        new_name[1:] = np.diff(ranks[order]) != 0
        kind_codes, kind_table = _first_seen(map(_KIND, tools), len(tools))
        text_groups, text_table = _first_seen(_offer_texts(tools), len(tools))
        typed = np.fromiter(map(_IS_TYPED, tools), bool, len(tools))
        return _Layout(
            tools=tools,
            order=order.astype(np.int32),
            mechs=owners[order],
            name_starts=np.flatnonzero(new_name),
            kinds=kind_codes[order],
            kind_table={kind: code for code, kind in enumerate(kind_table)},
            typed=typed[order],
            texts=list(text_table),
            text_groups=text_groups[order],
        )

    @classmethod
    def build(cls, catalogue: Catalogue, fingerprint: str = "") -> "SearchIndex":
        """Index a catalogue, once per agreed catalogue.

        :param catalogue: the catalogue.
        :param fingerprint: its digest ("": computed with ``Catalogue.digest()``).
        :return: the index.
        """
        collecting = gc.isenabled()
        gc.disable()  # the build makes no cycles; full collections over the
        try:  # catalogue's objects took a seventh of its time at 200,000 tools
            return cls(catalogue, fingerprint)
        finally:
            if collecting:
                gc.enable()

    @property
    def offer_count(self) -> int:
        """Return the offers indexed (one per mech and tool).

        :return: the count.
        """
        return len(self._tools)

    @staticmethod
    def _mech_keys(mechs: Sequence[Mech]) -> Dict[str, np.ndarray]:
        """Map each mech's entry key and contract addresses (lowercase) to its entries."""
        found: Dict[str, List[int]] = {}
        for at, mech in enumerate(mechs):
            keys = {
                mech.ref.key.lower(),
                *(f.address.lower() for f in mech.marketplace),
            }
            for key in keys:
                found.setdefault(key, []).append(at)
        return {k: np.asarray(v, dtype=np.int32) for k, v in found.items()}

    def _priced_in(self, mech: int) -> str:
        """The payment type a mech's price is given in when no payment is asked.

        :param mech: its place in ``_mechs``.
        :return: the first (by name) payment type of its callable contracts ("": none).
        """
        payments = self._mech_facts[mech][0]
        return payments[0] if payments else ""

    def _price_column(self, payment: str) -> np.ndarray:
        """Each offer's price for a payment type name (:data:`NO_PRICE`: none), memoised."""
        column = self._prices.get(payment)
        if column is None:
            per_mech = [
                lowest_price(mech, payment or self._priced_in(at))
                for at, mech in enumerate(self._mechs)
            ]
            column = np.array(
                [NO_PRICE if p is None else min(p, NO_PRICE) for p in per_mech],
                dtype=np.int64,
            )[self._mech_codes]
            self._prices[payment] = column
        return column

    def _scores(self, text: str) -> Optional[np.ndarray]:
        """The rounded BM25 score of each offer, as integers (None: no text asked)."""
        if not text.strip():
            return None
        terms = self._bm25.term_ids(text)
        if not terms:
            return np.zeros(len(self._tools), dtype=np.int64)
        summed = self._bm25.scores(terms)[self._documents]
        return np.rint(summed.astype(np.float64) * 10**SCORE_DECIMALS).astype(np.int64)

    def _mask(self, query: SearchQuery, scores: Optional[np.ndarray]) -> np.ndarray:
        """Which offers the query keeps."""
        keep = np.ones(len(self._tools), dtype=bool) if scores is None else scores > 0
        for value, codes, table in (
            (query.kind, self._kind_codes, self._kinds),
            (query.registry, self._registry_codes, self._registries),
        ):
            if value:
                keep &= codes == table.get(value, -1)
        if query.typed is not None:
            keep &= self._typed == query.typed
        if query.mech:
            entries = self._by_mech.get(query.mech.lower(), np.zeros(0, np.int32))
            keep &= np.isin(self._mech_codes, entries)
        if query.delivering:
            keep &= self._delivering
        if query.min_karma is not None:
            keep &= self._karma_read & (self._karma >= query.min_karma)
        if query.delivered_within is not None:
            keep &= (self._last_delivery >= 0) & (
                self._delivery_age <= query.delivered_within
            )
        price = self._price_column(query.payment)
        if query.callable_now or query.payment:
            keep &= price != NO_PRICE
        if query.max_price is not None:
            keep &= price <= query.max_price
        return keep

    def _keys(
        self, query: SearchQuery, scores: Optional[np.ndarray], keep: np.ndarray
    ) -> Tuple[np.ndarray, Optional[np.ndarray]]:
        """Each offer's rank as one distinct integer (smaller first; dropped: the largest).

        Relevance: (best score - score) x offers + layout place, so no two keys tie and
        the layout place breaks equal scores. Price and karma: the place in the fully
        sorted order (price, or karma highest first with unread karma last; then
        relevance, then layout place).

        :param query: the query.
        :param scores: :meth:`_scores` of its text (None: no text).
        :param keep: :meth:`_mask` of the query.
        :return: the keys, and for price or karma order the offers in that order (None
            for relevance: the place is the key modulo the offers).
        """
        count = len(self._tools)
        if query.sort in (SearchSort.PRICE, SearchSort.KARMA, SearchSort.RECENT):
            kept = np.flatnonzero(keep)
            relevance = (
                np.zeros(len(kept), np.int64) if scores is None else -scores[kept]
            )
            group = np.zeros(len(kept), np.int64)
            if query.sort == SearchSort.PRICE:
                first = self._price_column(query.payment)[kept]
                if not query.payment:  # amounts of two assets never compare
                    group = self._payment_groups[kept]
            elif query.sort == SearchSort.KARMA:  # highest karma first, unread last
                first = np.where(
                    self._karma_read[kept], -self._karma[kept], MAX_KARMA + 1
                )
            else:  # latest delivery first, none known last
                last = self._last_delivery[kept]
                first = np.where(last >= 0, -last, 1)
            order = kept[np.lexsort((kept, relevance, first, group))]
            keys = np.full(count, DROPPED, dtype=np.int64)
            keys[order] = np.arange(len(order), dtype=np.int64)
            return keys, order
        places = np.arange(count, dtype=np.int64)
        if scores is None:
            return np.where(keep, places, DROPPED), None
        below_best = (scores.max(initial=0) - scores) * count
        return np.where(keep, below_best + places, DROPPED), None

    def _candidates(
        self, query: SearchQuery, scores: Optional[np.ndarray], distinct: bool
    ) -> Tuple[np.ndarray, Optional[np.ndarray]]:
        """The rank keys of every match, unsorted.

        :param query: the query.
        :param scores: :meth:`_scores` of its text.
        :param distinct: one match per tool name (its best offer's key).
        :return: the keys, and the price or karma order of :meth:`_keys` (None for
            relevance).
        """
        keys, order = self._keys(query, scores, self._mask(query, scores))
        if distinct and len(keys):
            keys = np.minimum.reduceat(keys, self._name_starts)
        return keys[keys != DROPPED], order

    def _places(
        self, candidates: np.ndarray, order: Optional[np.ndarray], offset: int, end: int
    ) -> np.ndarray:
        """The layout places of the matches ``offset`` to ``end`` in rank order.

        Only the matches up to ``end`` are sorted (a partition finds them first).

        :param candidates: :meth:`_candidates`' keys.
        :param order: its price or karma order (None for relevance).
        :param offset: the page's first match.
        :param end: after the page's last match.
        :return: the places.
        """
        if end < len(candidates):
            candidates = np.partition(candidates, end - 1)[:end]
        page = np.sort(candidates)[offset:end]
        if order is not None:
            return order[page]
        return page % max(1, len(self._tools))

    def _cursor_check(self, query: SearchQuery, distinct: object) -> str:
        text = f"{self._fingerprint}\n{query.fingerprint()}\n{distinct}"
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]

    def _offset(
        self, query: SearchQuery, cursor: Optional[str], distinct: object, total: int
    ) -> int:
        # the offset a cursor points at; -1: not issued for this query and catalogue
        if cursor is None:
            return 0
        match = _CURSOR.fullmatch(cursor)
        if not match or match.group(2) != self._cursor_check(query, distinct):
            return -1
        offset = int(match.group(1))
        if offset >= total:
            raise InvalidCursor(
                f"the cursor points past the {total} matches; omit it to start over"
            )
        return offset

    def search(
        self, query: SearchQuery, cursor: Optional[str] = None, distinct: bool = False
    ) -> SearchPage:
        """Answer one page of a query.

        :param query: the query.
        :param cursor: a previous page's ``next_cursor`` for this same query (None: the
            first page).
        :param distinct: keep only each tool name's best offer (the name's rank is its
            best offer's).
        :return: the page.
        :raises InvalidCursor: when the cursor was issued for another query, page size or
            catalogue, or is malformed.
        """
        scores = self._scores(query.text)
        candidates, order = self._candidates(query, scores, distinct)
        total = len(candidates)
        offset = self._offset(query, cursor, distinct, total)
        if offset < 0:
            raise InvalidCursor(
                "the cursor was not issued for this query on the catalogue served now "
                "(the catalogue may have changed, or the query or page size differs); "
                "omit it to start over"
            )
        end = min(total, offset + query.page_size)
        places = self._places(candidates, order, offset, end)
        hits = tuple(self._hit(int(at), query, scores) for at in places)
        next_cursor = self.cursor_at(query, end, distinct) if end < total else None
        return SearchPage(hits, total, next_cursor, offset)

    def search_mechs(
        self, query: SearchQuery, cursor: Optional[str] = None
    ) -> Tuple[Tuple[int, ...], int, Optional[str], int]:
        """Answer one page of the mechs offering a match of a query.

        A mech's rank is its best matching offer's (the order of :meth:`search`), so a
        mech page lists the same mechs, in the same order, as the offers' pages name
        them first.

        :param query: the query (its page size: mechs per page).
        :param cursor: a previous mech page's cursor for this same query (None: first).
        :return: ``(places in catalogue.mechs, total mechs, next cursor, offset)``.
        :raises InvalidCursor: when the cursor was issued for another query, page size,
            catalogue or an offer search, or is malformed.
        """
        scores = self._scores(query.text)
        keys, order = self._keys(query, scores, self._mask(query, scores))
        best = np.full(len(self._mechs), DROPPED, dtype=np.int64)
        np.minimum.at(best, self._mech_codes, keys)
        candidates = best[best != DROPPED]
        total = len(candidates)
        offset = self._offset(query, cursor, "mechs", total)
        if offset < 0:
            raise InvalidCursor(
                "the cursor was not issued for this mech search on the catalogue served "
                "now; omit it to start over"
            )
        end = min(total, offset + query.page_size)
        places = self._places(candidates, order, offset, end)
        mechs = tuple(int(self._mech_codes[at]) for at in places)
        next_cursor = self.cursor_at(query, end, "mechs") if end < total else None
        return mechs, total, next_cursor, offset

    def cursor_at(
        self, query: SearchQuery, offset: int, distinct: object = False
    ) -> str:
        """Return the cursor of the page starting at a place of a query's answer.

        For a caller that cuts a page shorter (by bytes, say) than ``page_size``.

        :param query: the query.
        :param offset: the place of the next page's first match.
        :param distinct: as given to :meth:`search` (``"mechs"``: a page of
            :meth:`search_mechs`).
        :return: ``<offset>.<16 hex digits>``, the check binding it to the query, the
            catalogue and what is paged.
        """
        return f"{offset}.{self._cursor_check(query, distinct)}"

    def _hit(
        self, at: int, query: SearchQuery, scores: Optional[np.ndarray]
    ) -> SearchHit:
        tool = self._tools[int(self._tool_of[at])]
        mech = self._mechs[int(self._mech_codes[at])]
        payments, delivering = self._mech_facts[int(self._mech_codes[at])]
        price = int(self._price_column(query.payment)[at])
        score = 0 if scores is None else int(scores[at])
        return SearchHit(
            tool=tool,
            mech=mech,
            score=score / 10**SCORE_DECIMALS,
            price=(
                None
                if price == NO_PRICE
                else lowest_price(mech, query.payment or payments[0])
            ),
            payments=payments,
            delivering=delivering,
            karma=highest_karma(mech),
            last_delivery_block=(latest_delivery(mech) or (None, None))[0],
        )
