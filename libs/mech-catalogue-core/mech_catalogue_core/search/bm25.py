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

"""Okapi BM25 over a fixed set of documents: an inverted index of precomputed weights.

Score of document d for query terms T (Robertson and Zaragoza, "The Probabilistic
Relevance Framework: BM25 and Beyond", 2009, with Lucene's non-negative idf)::

    sum over t in T of idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))
    idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))

Words: the text lowercased, runs of two or more letters or digits (as scikit-learn's and
bm25s's default tokenisers, but underscores split words as hyphens do), the stop words of
Lucene's ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`` dropped, the rest
stemmed with Snowball's English stemmer (``PyStemmer``).

Written here rather than taken from ``bm25s``: at 200,000 tools ``bm25s`` took 15 s of
CPU and 280 MiB to index (it keeps each document's token ids as Python lists), against
the issue's 2 s and 150 MiB; this index keeps one int32 and one float32 per (term,
document) pair and does the per-word work once per distinct word.

How it is built: ASCII texts (nearly all of a catalogue) are split in batches of about
:data:`BATCH_CHARS` characters by numpy over their bytes: word boundaries from two
range checks a byte, each word of up to 16 bytes packed exactly into two 64-bit keys
and looked up, all words of a batch at once, in a hash table of the words already
seen (numpy arrays, linear probing, salted per index so no manifest can aim its words
at one slot: a word not found within :data:`_PROBES` slots is looked up as text, as
longer words are); only a batch's new words are grouped (by sorting them) and go
through the stop list and the stemmer (``stemWords``, once per new word). Tokens come
in document and field order, so a stable radix sort of their term ids (numpy's, 16
bits a pass) puts the pairs in the order of the index's columns. A text with other
characters goes the per-document way (the regular expression, then a dict of
counts), which is also the reference the tests compare the batches with
(``vectorised=False``). Both give the same term ids (by first appearance), the same
pairs and so the same weights, bit for bit.
"""

import itertools
import re
import secrets
from array import array
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np
import Stemmer  # type: ignore[import-not-found]

__all__ = ["B", "BATCH_CHARS", "FIELD_SEPARATOR", "K1", "STOP_WORDS", "Bm25Index"]

#: term-frequency saturation
K1 = 1.5
#: length normalisation
B = 0.75
#: Lucene's ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``
STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the "
    "their then there these they this to was will with".split()
)
#: the stemmer language of ``PyStemmer`` (Snowball)
STEMMER_LANGUAGE = "english"
_WORD = re.compile(r"[^\W_]{2,}")
#: splits a text into fields when the index counts by field (ASCII unit separator)
FIELD_SEPARATOR = "\x1f"
#: term id of a stop word (never indexed)
_STOP = -1
#: characters of ASCII text split at once: bounds a batch's arrays (a few tens of bytes
#: a character) while keeping numpy's per-call cost small against the work
BATCH_CHARS = 1 << 20
#: texts read at a time (:meth:`Bm25Index._chunks`)
_BLOCK = 256
#: bytes of a word packed exactly into its two 64-bit keys (longer: looked up as text)
_PACKED = 16

#: the mask keeping the first n bytes (in memory order) of a little-endian 64-bit word
_KEEP_BYTES = np.array([2 ** (8 * n) - 1 for n in range(9)], dtype=np.uint64)
#: an odd multiplier mixing a word's second key into its first (64-bit golden ratio)
_MIX = np.uint64(0x9E3779B97F4A7C15)

#: a run of documents' pairs: the documents' count, then each pair's document (from 0
#: in the run), term id and frequency, by term then document
_Pairs = Tuple[int, np.ndarray, np.ndarray, np.ndarray]


class _Terms(dict):  # type: ignore[type-arg]
    """Raw word -> term id (``_STOP`` for a stop word), filled on first sight."""

    def __init__(self, stemmer: "Stemmer.Stemmer") -> None:
        super().__init__()
        self.stemmer = stemmer
        self.ids: Dict[str, int] = {}  # stem -> term id

    def __missing__(self, word: str) -> int:
        self.add([word])
        return int(self[word])

    def add(self, words: Sequence[str]) -> None:
        """Give the new words their term ids, in the order given (stems in one call).

        :param words: distinct raw words, in order of first appearance.
        """
        new = [w for w in words if w not in self]
        kept = [w for w in new if w not in STOP_WORDS]
        stems = dict(zip(kept, self.stemmer.stemWords(kept)))
        ids = self.ids
        for word in new:
            stem = stems.get(word)
            self[word] = _STOP if stem is None else ids.setdefault(stem, len(ids))


def words_of(text: str) -> List[str]:
    """Return a text's words before stop words and stems.

    :param text: any text.
    :return: its lowercased runs of two or more letters or digits.
    """
    return _WORD.findall(text.lower())


def _packed_words(
    high: np.ndarray, low: np.ndarray
) -> Tuple[np.ndarray, np.ndarray, List[str]]:
    """Group equal words of up to :data:`_PACKED` bytes by their exact packed bytes.

    :param high: each word's first 8 bytes (little-endian, zero-padded).
    :param low: its next 8 bytes.
    :return: each word's group, each group's first word (an index into ``high``), and
        each group's word; groups in the order of their keys.
    """
    # sort one mixed key; equal keys are then checked to be equal words (a sort of
    # both keys only when two words mixed alike, which only chosen words do)
    order = np.argsort(high ^ (low * _MIX), kind="stable")
    first = np.ones(len(order), dtype=bool)
    first[1:] = np.diff(high[order] ^ (low[order] * _MIX)) != 0
    heads = np.cumsum(first) - 1
    by_group = order[first][heads]  # each word's group's first word
    if np.any(high[order] != high[by_group]) or np.any(low[order] != low[by_group]):
        order = np.lexsort((low, high))  # stable: a group's first word comes first
        first[1:] = (np.diff(high[order]) != 0) | (np.diff(low[order]) != 0)
        heads = np.cumsum(first) - 1
    high, low = high[order], low[order]
    groups = np.empty(len(order), dtype=np.int64)
    groups[order] = heads
    packed = np.stack([high[first], low[first]], axis=1).astype("<u8")
    texts = [word.decode("ascii") for word in packed.view("S16").ravel().tolist()]
    return groups, order[first], texts


def _word_bytes(codes: np.ndarray) -> np.ndarray:
    """Return whether each byte of lowercased ASCII text is a word character.

    Two range checks (a byte minus the range's first wraps below 0 to above 255):
    five times faster than a table lookup per byte.

    :param codes: the bytes (uint8).
    :return: True for a-z and 0-9 (the word characters of lowercased ASCII).
    """
    letters = np.subtract(codes, np.uint8(ord("a"))) < 26
    digits = np.subtract(codes, np.uint8(ord("0"))) < 10
    return letters | digits


def _term_order(terms: np.ndarray) -> np.ndarray:
    """Return the stable order of tokens by term id.

    numpy sorts 16-bit keys stably by radix (linear time): one pass per 16 bits of
    the largest id, low bits first, each stable, so equal ids keep their order. Five
    times faster than sorting the batch's full (term, document, field) keys, which the
    tokens already follow within each term (:meth:`Bm25Index._batch_pairs`).

    :param terms: non-negative term ids (int64).
    :return: the places of the tokens, by term then place.
    """
    order = np.argsort((terms & 0xFFFF).astype(np.uint16), kind="stable")
    shift = 16
    while len(terms) and int(terms.max()) >> shift:
        high = ((terms[order] >> shift) & 0xFFFF).astype(np.uint16)
        order = order[np.argsort(high, kind="stable")]
        shift += 16
    return order


def _runs_of(places: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """Return how many cuts are at or before each place (both sorted).

    The same as ``np.searchsorted(cuts, places, side="right")``, but searches the few
    cuts (documents, fields) among the many places (words) and repeats: a third of
    the time for a batch's words.

    :param places: ascending places (words' starts).
    :param cuts: ascending places where a run starts (the first run starts at 0).
    :return: each place's run (int64).
    """
    firsts = np.searchsorted(places, cuts)  # each run's first place
    sizes = np.diff(firsts, prepend=0, append=len(places))
    return np.repeat(np.arange(len(cuts) + 1), sizes)


def _run_starts(keys: np.ndarray) -> np.ndarray:
    """Return where each run of equal sorted keys starts.

    :param keys: sorted keys.
    :return: the places of each run's first key.
    """
    heads = np.ones(len(keys), dtype=bool)
    heads[1:] = keys[1:] != keys[:-1]
    return np.flatnonzero(heads)


#: a word not in the table (:meth:`_WordTable.find`)
_MISSING = -2
#: a word whose slot was not found within :data:`_PROBES` slots: looked up as text
_UNRESOLVED = -3
#: slots probed at most before a word is looked up as text instead (a bound on the work
#: words that crowd one part of the table can cause)
_PROBES = 32


def _salt() -> np.uint64:
    """An odd 64-bit multiplier drawn per table: no manifest can aim words at one slot."""
    return np.uint64(secrets.randbits(64) | 1)


class _WordTable:
    """Packed words (both 64-bit keys, exact) -> term id: open addressing in numpy arrays.

    Every token of a batch is looked up at once (a few gathers per probed slot, linear
    probing, at most half the slots taken), so only the batch's new words are sorted and
    grouped. A slot is chosen by multiplying both keys by salts drawn for this table:
    which slot a word takes never changes a term id (ids come from :class:`_Terms`), only
    how many slots are probed. A slot's first key is 0 only when it is empty (a word has
    at least two bytes).
    """

    def __init__(self) -> None:
        """An empty table of 2^10 slots (it doubles as words come)."""
        self._salts = (_salt(), _salt())
        self._high = np.zeros(1 << 10, dtype=np.uint64)
        self._low = np.zeros(1 << 10, dtype=np.uint64)
        self._term = np.zeros(1 << 10, dtype=np.int64)
        self.size = 0

    def _starts(self, high: np.ndarray, low: np.ndarray) -> np.ndarray:
        bits = np.uint64(64 - (len(self._high).bit_length() - 1))
        mixed: np.ndarray = high * self._salts[0] + low * self._salts[1]  # mod 2^64
        return np.right_shift(mixed, bits).astype(np.int64)

    def find(self, high: np.ndarray, low: np.ndarray) -> np.ndarray:
        """Return each word's term id (:data:`_MISSING`, :data:`_UNRESOLVED`).

        :param high: each word's first key.
        :param low: each word's second key.
        :return: the term ids (int64), a stop word's :data:`_STOP`.
        """
        slot, mask = self._starts(high, low), len(self._high) - 1
        # the first probe over every word at once (most words end there) ...
        held = self._high[slot]
        same = (held == high) & (self._low[slot] == low)
        empty = held == 0
        found = np.where(same, self._term[slot], _UNRESOLVED)
        found[empty] = _MISSING
        left = np.flatnonzero(~(same | empty))
        slot = (slot[left] + 1) & mask
        for _ in range(_PROBES - 1):  # ... then the next slots of the others
            if left.size == 0:
                break
            held = self._high[slot]
            same = (held == high[left]) & (self._low[slot] == low[left])
            empty = held == 0
            found[left[same]] = self._term[slot[same]]
            found[left[empty]] = _MISSING
            going = ~(same | empty)
            left, slot = left[going], (slot[going] + 1) & mask
        return found

    def add(self, high: np.ndarray, low: np.ndarray, terms: np.ndarray) -> None:
        """Add distinct words that :meth:`find` gave as :data:`_MISSING`.

        A word not placed within :data:`_PROBES` slots is left out (it stays a text
        lookup). The table doubles while more than half its slots would be taken.

        :param high: each word's first key.
        :param low: each word's second key.
        :param terms: each word's term id.
        """
        if 2 * (self.size + len(high)) > len(self._high):
            taken = np.flatnonzero(self._high)
            kept = (self._high[taken], self._low[taken], self._term[taken])
            slots = len(self._high)
            while 2 * (self.size + len(high)) > slots:
                slots *= 2
            self._high = np.zeros(slots, dtype=np.uint64)
            self._low = np.zeros(slots, dtype=np.uint64)
            self._term = np.zeros(slots, dtype=np.int64)
            self.size = 0
            self.add(*kept)
        left = np.arange(len(high))
        slot, mask = self._starts(high, low), len(self._high) - 1
        for _ in range(_PROBES):
            if left.size == 0:
                break
            free = self._high[slot] == 0
            # each free slot goes to the first word wanting it; the others probe on
            _, first = np.unique(slot[free], return_index=True)
            placed = np.zeros(len(left), dtype=bool)
            placed[np.flatnonzero(free)[first]] = True
            words, into = left[placed], slot[placed]
            self._high[into], self._low[into] = high[words], low[words]
            self._term[into] = terms[words]
            self.size += len(words)
            left, slot = left[~placed], (slot[~placed] + 1) & mask


class Bm25Index:
    """The BM25 weights of every (term, document) pair, by term (compressed columns).

    Deterministic: term ids are given in order of first appearance, weights computed
    elementwise in float32 (idf and document lengths in float64 first); a query adds
    them term by term in term-id order.
    """

    def __init__(
        self,
        texts: Iterable[str],
        vectorised: bool = True,
        field_weights: Optional[Sequence[int]] = None,
    ) -> None:
        """Index the documents (O(total words); the per-word work is numpy's for ASCII).

        :param texts: one text per document, read once (a generator keeps only a
            batch alive); a document's id is its position.
        :param vectorised: False: every text the per-document way (the reference the
            tests compare the batches with; same index, slower).
        :param field_weights: None: a term's frequency is how often the text holds it.
            Else each text is fields split by :data:`FIELD_SEPARATOR` (a field past
            the weights counts as the last), and a term's frequency is the sum of the
            weights of the fields holding it: repeating a word within a field adds
            nothing (keyword stuffing); a document's length is that sum over its
            terms, and one shorter than the average counts as average (a short list
            of keywords gains nothing from being short).
        """
        self._stemmer = Stemmer.Stemmer(  # pylint: disable=c-extension-no-member
            STEMMER_LANGUAGE
        )
        self._terms = _Terms(self._stemmer)
        self._table = _WordTable()
        self._weights_of_fields = tuple(field_weights or ())
        chunks = list(self._chunks(texts, vectorised))
        self.documents = sum(documents for documents, _, _, _ in chunks)
        self._indptr, self._indices, self._weights = self._columns(chunks)

    def _chunks(self, texts: Iterable[str], vectorised: bool) -> Iterator[_Pairs]:
        """The pairs of runs of documents, in document order.

        Texts are read :data:`_BLOCK` at a time: a block of short ASCII texts joins
        the batch at once (C-level calls, no loop a text); any other block goes text
        by text.

        :param texts: the documents' texts.
        :param vectorised: whether ASCII texts go in numpy batches.
        :yields: each run's pairs.
        """
        batch: List[str] = []
        characters = 0
        sizes, terms, counts = array("i"), array("i"), array("i")
        stream = iter(texts)
        while block := list(itertools.islice(stream, _BLOCK)):
            length = sum(map(len, block)) + len(block)
            if vectorised and length < BATCH_CHARS and all(map(str.isascii, block)):
                if sizes:
                    yield self._as_pairs(sizes, terms, counts)
                    sizes, terms, counts = array("i"), array("i"), array("i")
                batch += block
                characters += length
                if characters >= BATCH_CHARS:
                    yield self._batch_pairs(batch)
                    batch, characters = [], 0
                continue
            for text in block:
                if vectorised and text.isascii():
                    if sizes:
                        yield self._as_pairs(sizes, terms, counts)
                        sizes, terms, counts = array("i"), array("i"), array("i")
                    batch.append(text)
                    characters += len(text) + 1
                    if characters >= BATCH_CHARS:
                        yield self._batch_pairs(batch)
                        batch, characters = [], 0
                    continue
                if batch:
                    yield self._batch_pairs(batch)
                    batch, characters = [], 0
                self._document_pairs(text, sizes, terms, counts)
        if batch:
            yield self._batch_pairs(batch)
        if sizes:
            yield self._as_pairs(sizes, terms, counts)

    @staticmethod
    def _as_pairs(
        sizes: "array[int]", terms: "array[int]", counts: "array[int]"
    ) -> _Pairs:
        """Documents' pairs given document by document, put in term then document order."""
        by_document = np.frombuffer(terms, dtype=np.int32)
        documents = np.repeat(
            np.arange(len(sizes), dtype=np.int32), np.frombuffer(sizes, dtype=np.int32)
        )
        order = np.argsort(by_document, kind="stable")
        counted = np.frombuffer(counts, dtype=np.int32)
        return len(sizes), documents[order], by_document[order], counted[order]

    def _document_pairs(
        self,
        text: str,
        sizes: "array[int]",
        terms: "array[int]",
        counts: "array[int]",
    ) -> None:
        """Append one document's (term, count) pairs, stop words dropped."""
        terms_of = self._terms
        merged: Dict[int, int] = {}
        if self._weights_of_fields:
            fields = text.lower().split(FIELD_SEPARATOR)
            last = len(self._weights_of_fields) - 1
            held: List[set] = [set() for _ in range(min(len(fields), last + 1))]
            for at, field in enumerate(fields):
                ids = held[min(at, last)]
                for word in _WORD.findall(field):  # ids in order of first appearance
                    ids.add(terms_of[word])
            for at, ids in enumerate(held):
                for term in ids - {_STOP}:
                    merged[term] = merged.get(term, 0) + self._weights_of_fields[at]
        else:
            for word in _WORD.findall(text.lower()):
                term = terms_of[word]
                if term != _STOP:
                    merged[term] = merged.get(term, 0) + 1
        terms.extend(merged)
        counts.extend(merged.values())
        sizes.append(len(merged))

    def _batch_pairs(self, batch: List[str]) -> _Pairs:
        """The (term, document, frequency) triples of ASCII documents, by numpy.

        :param batch: the documents' texts, each ASCII.
        :return: the documents' count, and their triples by term then document.
        """
        joined = "\n".join(batch).lower().encode("ascii")  # "\n" ends every word
        codes = np.frombuffer(joined, dtype=np.uint8)
        edges = np.flatnonzero(np.diff(_word_bytes(codes), prepend=False, append=False))
        starts, lengths = edges[0::2], edges[1::2] - edges[0::2]
        starts, lengths = starts[lengths >= 2], lengths[lengths >= 2]
        # where each text starts: texts may hold "\n" themselves
        document_starts = np.zeros(len(batch), dtype=np.int64)
        lengths_of = np.fromiter(map(len, batch), np.int64, len(batch))
        np.cumsum(lengths_of[:-1] + 1, out=document_starts[1:])
        documents = _runs_of(starts, document_starts[1:])
        terms = self._token_terms(joined, starts, lengths)
        kept = np.flatnonzero(terms != _STOP)
        # tokens come in (document, field) order: ordered by term, the keys are sorted
        kept = kept[_term_order(terms[kept])]
        width = max(1, len(self._weights_of_fields))
        keys = terms[kept] * len(batch) + documents[kept]
        if self._weights_of_fields:
            fields = self._fields_of(codes, starts, documents, document_starts)
            keys = keys * width + fields[kept]
        return (len(batch),) + self._triples(keys, len(batch), width)

    def _token_terms(  # pylint: disable=too-many-locals
        self, joined: bytes, starts: np.ndarray, lengths: np.ndarray
    ) -> np.ndarray:
        """Each word's term id: known words from the table, new ones stemmed once.

        :param joined: the batch's lowercased bytes.
        :param starts: where each word starts.
        :param lengths: each word's length.
        :return: the term ids (int64; :data:`_STOP` for a stop word).
        """
        terms = np.empty(len(starts), dtype=np.int64)
        packed = np.flatnonzero(lengths <= _PACKED)
        padded = joined + bytes(_PACKED)
        # every 8 bytes from every offset, in memory order: a word's first 8 bytes in one read
        eights = np.ndarray(
            (len(padded) - 7,), dtype="<u8", buffer=padded, offset=0, strides=(1,)
        )
        at, length = starts[packed], lengths[packed]
        high = eights[at] & _KEEP_BYTES[np.minimum(length, 8)]
        low = eights[at + 8] & _KEEP_BYTES[np.clip(length - 8, 0, 8)]
        found = self._table.find(high, low)
        terms[packed] = found
        missing = np.flatnonzero(found == _MISSING)
        groups, firsts, words = _packed_words(high[missing], low[missing])
        # words read as text: longer than the keys, or not found within the probes
        as_text = np.union1d(
            np.flatnonzero(lengths > _PACKED), packed[found == _UNRESOLVED]
        ).tolist()
        texts = [
            joined[s : s + n].decode("ascii")
            for s, n in zip(starts[as_text].tolist(), lengths[as_text].tolist())
        ]
        firsts_of_text: Dict[str, int] = {}
        for place, word in zip(as_text, texts):
            firsts_of_text.setdefault(word, place)
        new = sorted(
            list(zip(packed[missing[firsts]].tolist(), words))
            + [(place, word) for word, place in firsts_of_text.items()]
        )
        self._terms.add([word for _, word in new])  # ids in order of first appearance
        term_of = np.fromiter((self._terms[w] for w in words), np.int64, len(words))
        terms[packed[missing]] = term_of[groups]
        terms[as_text] = [self._terms[word] for word in texts]
        self._table.add(high[missing][firsts], low[missing][firsts], term_of)
        return terms

    def _fields_of(
        self,
        codes: np.ndarray,
        starts: np.ndarray,
        documents: np.ndarray,
        document_starts: np.ndarray,
    ) -> np.ndarray:
        """Each word's field in its document (fields past the weights: the last).

        :param codes: the batch's bytes.
        :param starts: where each word starts.
        :param documents: each word's document.
        :param document_starts: where each document starts.
        :return: the fields.
        """
        separators = np.flatnonzero(codes == ord(FIELD_SEPARATOR))
        fields = (
            _runs_of(starts, separators + 1)  # separators before each word
            - np.searchsorted(separators, document_starts)[documents]
        )
        return np.minimum(fields, len(self._weights_of_fields) - 1)

    def _triples(
        self, keys: np.ndarray, documents: int, width: int
    ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Group sorted ``(term * documents + document) * width + field`` keys into triples.

        Sorted, the pairs are in the order of the index's columns (term, then
        document), so laying them in place needs no other sort; with field weights a
        word repeated in a field is one key, and a pair's fields are adjacent.

        :param keys: one per word kept (``width`` 1 and no field: counts), sorted.
        :param documents: the batch's documents.
        :param width: the fields (1 without field weights).
        :return: each pair's document, term and frequency (int32), by term then
            document.
        """
        if self._weights_of_fields:
            keys = keys[_run_starts(keys)]  # a word repeated in a field: once
            weight = np.asarray(self._weights_of_fields, dtype=np.int64)[keys % width]
            keys = keys // width
            firsts = _run_starts(keys)
            frequency = (
                np.add.reduceat(weight, firsts)
                if len(firsts)
                else np.zeros(0, np.int64)
            )
        else:
            firsts = _run_starts(keys)
            frequency = np.diff(firsts, append=len(keys))
        pairs = keys[firsts].astype(np.int64)
        return (
            (pairs % documents).astype(np.int32),
            (pairs // documents).astype(np.int32),
            frequency.astype(np.int32),
        )

    def _columns(  # pylint: disable=too-many-locals
        self, chunks: List[_Pairs]
    ) -> "tuple[np.ndarray, np.ndarray, np.ndarray]":
        """The pairs' weights, grouped by term (index pointer, documents, weights).

        Each chunk (its triples already by term, then document) is weighed and laid
        into its terms' columns in turn (then let go), so a term's documents stay in
        ascending order without sorting.

        :param chunks: :meth:`_chunks`' triples, document order (emptied here).
        :return: the index pointer (int64, one more than terms), each pair's document
            (int32) and weight (float32), by term then document.
        """
        vocabulary = len(self._terms.ids)
        lengths = np.concatenate(
            [np.zeros(0)]
            + [
                np.bincount(documents, weights=frequency, minlength=count)
                for count, documents, _, frequency in chunks
            ]
        )
        average = float(lengths.mean()) if self.documents else 0.0
        frequency = np.zeros(vocabulary, dtype=np.int64)
        for _, _, terms, _ in chunks:
            frequency += np.bincount(terms, minlength=vocabulary)
        idf = np.log1p((self.documents - frequency + 0.5) / (frequency + 0.5))
        idf32 = idf.astype(np.float32)
        # per document: k1 (1 - b + b |d| / avgdl), float32 like the weights
        if self._weights_of_fields and average:  # shorter than average: as average
            lengths = np.maximum(lengths, average)
        norms = (
            K1 * (1 - B + B * lengths / average) if average else lengths + K1
        ).astype(np.float32)
        indptr = np.zeros(vocabulary + 1, dtype=np.int64)
        np.cumsum(frequency, out=indptr[1:])
        indices = np.empty(int(indptr[-1]), dtype=np.int32)
        weights = np.empty(int(indptr[-1]), dtype=np.float32)
        free = indptr[:-1].copy()  # each term's next place
        first_document = 0
        chunks.reverse()
        while chunks:
            count, documents, terms, counts = chunks.pop()
            documents = documents + np.int32(first_document)
            first_document += count
            tf = counts.astype(np.float32)
            weight = tf * np.float32(K1 + 1)
            tf += norms[documents]
            weight /= tf
            weight *= idf32[terms]
            first = np.flatnonzero(np.diff(terms, prepend=-1))  # each term's first pair
            run = np.diff(first, append=len(terms))
            places = np.repeat(free[terms[first]] - first, run) + np.arange(len(terms))
            indices[places] = documents
            weights[places] = weight
            free[terms[first]] += run
        return indptr, indices, weights

    def term_ids(self, text: str) -> List[int]:
        """Return the indexed term ids of a query's words, sorted and distinct.

        :param text: the query.
        :return: the ids (stop words and words no document holds dropped).
        """
        ids = set()
        for word in _WORD.findall(text.lower()):
            if word in STOP_WORDS:
                continue
            term = self._terms.ids.get(self._stemmer.stemWord(word))
            if term is not None:
                ids.add(term)
        return sorted(ids)

    def scores(self, term_ids: Sequence[int]) -> np.ndarray:
        """Return every document's BM25 score for the terms.

        :param term_ids: from :meth:`term_ids`.
        :return: float32 scores, one per document (0 when it holds none of the terms).
        """
        summed = np.zeros(self.documents, dtype=np.float32)
        for term in term_ids:  # a term's documents are distinct: a fancy add is exact
            start, end = self._indptr[term], self._indptr[term + 1]
            summed[self._indices[start:end]] += self._weights[start:end]
        return summed
