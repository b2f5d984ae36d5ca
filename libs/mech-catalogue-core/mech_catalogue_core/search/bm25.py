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
:data:`BATCH_CHARS` characters by numpy over their bytes: word boundaries from a byte
table, each word of up to 16 bytes packed exactly into two 64-bit keys, the distinct
words of a batch found by sorting one mix of the keys (equal mixes are checked to be
equal words; longer words are looked up as strings), and only those distinct words go
through the stop list and the stemmer (``stemWords``, once per new word). A text with
other characters goes the per-document way (the regular expression, then a dict of
counts), which is also the reference the tests compare the batches with
(``vectorised=False``). Both give the same term ids (by first appearance), the same
pairs and so the same weights, bit for bit.
"""

import re
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
#: whether a byte of lowercased ASCII text is a word character (``[^\W_]``: a-z, 0-9)
_WORD_BYTE = np.zeros(256, dtype=bool)
_WORD_BYTE[np.frombuffer(b"abcdefghijklmnopqrstuvwxyz0123456789", np.uint8)] = True
#: bytes of a word packed exactly into its two 64-bit keys (longer: looked up as text)
_PACKED = 16

#: the mask keeping the first n bytes (in memory order) of a little-endian 64-bit word
_KEEP_BYTES = np.array([2 ** (8 * n) - 1 for n in range(9)], dtype=np.uint64)
#: an odd multiplier mixing a word's second key into its first (64-bit golden ratio)
_MIX = np.uint64(0x9E3779B97F4A7C15)

#: some documents' pairs: each document's pair count, each pair's term id and count
_Pairs = Tuple[np.ndarray, np.ndarray, np.ndarray]


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
    joined: bytes, starts: np.ndarray, lengths: np.ndarray
) -> Tuple[np.ndarray, np.ndarray, List[str]]:
    """Group equal words of up to :data:`_PACKED` bytes by their exact packed bytes.

    :param joined: the batch's bytes, followed by :data:`_PACKED` zero bytes.
    :param starts: where each word starts (every length at most :data:`_PACKED`).
    :param lengths: each word's length.
    :return: each word's group, each group's first word (an index into ``starts``), and
        each group's word.
    """
    # every 8 bytes from every offset, in memory order: a word's first 8 bytes in one read
    eights = np.ndarray(
        (len(joined) - 7,), dtype="<u8", buffer=joined, offset=0, strides=(1,)
    )
    high = eights[starts] & _KEEP_BYTES[np.minimum(lengths, 8)]
    low = eights[starts + 8] & _KEEP_BYTES[np.clip(lengths - 8, 0, 8)]
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
        self._weights_of_fields = tuple(field_weights or ())
        chunks = list(self._chunks(texts, vectorised))
        self.documents = sum(len(sizes) for sizes, _, _ in chunks)
        self._indptr, self._indices, self._weights = self._columns(chunks)

    def _chunks(self, texts: Iterable[str], vectorised: bool) -> Iterator[_Pairs]:
        """The pairs of runs of documents, in document order."""
        batch: List[str] = []
        characters = 0
        sizes, terms, counts = array("i"), array("i"), array("i")
        for text in texts:
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
        return (
            np.frombuffer(sizes, dtype=np.int32),
            np.frombuffer(terms, dtype=np.int32),
            np.frombuffer(counts, dtype=np.int32),
        )

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

    def _batch_pairs(  # pylint: disable=too-many-locals
        self, batch: List[str]
    ) -> _Pairs:
        """The (term, count) pairs of ASCII documents, split by numpy over their bytes.

        :param batch: the documents' texts, each ASCII.
        :return: each document's pair count, and the pairs by document then term.
        """
        joined = "\n".join(batch).lower().encode("ascii")  # "\n" ends every word
        is_word = _WORD_BYTE[np.frombuffer(joined, dtype=np.uint8)]
        edges = np.flatnonzero(np.diff(is_word, prepend=False, append=False))
        starts, lengths = edges[0::2], edges[1::2] - edges[0::2]
        starts, lengths = starts[lengths >= 2], lengths[lengths >= 2]
        ends = np.cumsum([len(text) + 1 for text in batch])
        documents = np.searchsorted(ends, starts, side="right")
        packed = lengths <= _PACKED
        groups, firsts, words = _packed_words(
            joined + bytes(_PACKED), starts[packed], lengths[packed]
        )
        word_of = np.empty(len(starts), dtype=np.int64)
        word_of[packed] = groups
        first_at = list(np.flatnonzero(packed)[firsts].tolist())
        long_words: Dict[str, int] = {}
        for at in np.flatnonzero(~packed).tolist():
            word = joined[starts[at] : starts[at] + lengths[at]].decode("ascii")
            if word not in long_words:
                long_words[word] = len(words)
                words.append(word)
                first_at.append(at)
            word_of[at] = long_words[word]
        in_order = [words[w] for w in np.argsort(first_at, kind="stable").tolist()]
        self._terms.add(in_order)  # new words take ids in order of first appearance
        term_of = np.fromiter((self._terms[w] for w in words), np.int64, len(words))
        token_terms = term_of[word_of]
        kept = token_terms != _STOP
        vocabulary = max(1, len(self._terms.ids))
        if self._weights_of_fields:
            fields = self._fields_of(joined, starts, ends, documents)[kept]
            pairs, counts = self._field_counts(
                documents[kept], fields, token_terms[kept], vocabulary
            )
        else:
            pairs, counts = np.unique(
                documents[kept] * vocabulary + token_terms[kept], return_counts=True
            )
        sizes = np.bincount(pairs // vocabulary, minlength=len(batch))
        return (
            sizes.astype(np.int32),
            (pairs % vocabulary).astype(np.int32),
            counts.astype(np.int32),
        )

    def _fields_of(
        self, joined: bytes, starts: np.ndarray, ends: np.ndarray, documents: np.ndarray
    ) -> np.ndarray:
        """Each word's field in its document (fields past the weights: the last)."""
        separators = np.flatnonzero(
            np.frombuffer(joined, dtype=np.uint8) == ord(FIELD_SEPARATOR)
        )
        document_starts = np.concatenate([np.zeros(1, np.int64), ends[:-1]])
        fields = (
            np.searchsorted(separators, starts)
            - np.searchsorted(separators, document_starts)[documents]
        )
        return np.minimum(fields, len(self._weights_of_fields) - 1)

    def _field_counts(
        self,
        documents: np.ndarray,
        fields: np.ndarray,
        terms: np.ndarray,
        vocabulary: int,
    ) -> Tuple[np.ndarray, np.ndarray]:
        """Each (document, term)'s summed weight of the fields holding the term.

        One sort of (document, term, field) keys: a repeated word in a field is one
        key, and a (document, term)'s fields are then adjacent (no second sort).

        :param documents: each word's document (in the batch).
        :param fields: each word's field.
        :param terms: each word's term id.
        :param vocabulary: more than every term id.
        :return: the distinct ``document * vocabulary + term`` keys, sorted, and each
            one's summed field weight.
        """
        width = len(self._weights_of_fields)
        held = np.sort((documents * vocabulary + terms) * width + fields)
        distinct = np.ones(len(held), dtype=bool)
        distinct[1:] = held[1:] != held[:-1]
        held = held[distinct]
        weights = np.asarray(self._weights_of_fields, dtype=np.int64)
        weight = weights[held % width]
        held //= width
        starts = np.ones(len(held), dtype=bool)
        starts[1:] = held[1:] != held[:-1]
        firsts = np.flatnonzero(starts)
        if firsts.size == 0:
            return held, weight
        return held[firsts], np.add.reduceat(weight, firsts)

    def _columns(  # pylint: disable=too-many-locals
        self, chunks: List[_Pairs]
    ) -> "tuple[np.ndarray, np.ndarray, np.ndarray]":
        """The pairs' weights, grouped by term (index pointer, documents, weights).

        Each chunk is weighed and laid into its terms' columns in turn (then let go),
        so a term's documents stay in ascending order without sorting every pair.

        :param chunks: :meth:`_chunks`' pairs, document order (emptied here).
        :return: the index pointer (int64, one more than terms), each pair's document
            (int32) and weight (float32), by term then document.
        """
        vocabulary = len(self._terms.ids)
        lengths = np.concatenate(
            [np.zeros(0)]
            + [
                np.bincount(
                    np.repeat(np.arange(len(sizes)), sizes),
                    weights=counts,
                    minlength=len(sizes),
                )
                for sizes, _, counts in chunks
            ]
        )
        average = float(lengths.mean()) if self.documents else 0.0
        frequency = np.zeros(vocabulary, dtype=np.int64)
        for _, terms, _ in chunks:
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
            sizes, terms, counts = chunks.pop()
            docs = np.repeat(
                np.arange(first_document, first_document + len(sizes), dtype=np.int32),
                sizes,
            )
            first_document += len(sizes)
            tf = counts.astype(np.float32)
            weight = tf * np.float32(K1 + 1)
            tf += norms[docs]
            weight /= tf
            weight *= idf32[terms]
            # by term, then document: one unstable sort of distinct keys (faster than
            # numpy's stable sort of the terms alone)
            pairs = len(terms)
            order = np.sort(terms.astype(np.int64) * pairs + np.arange(pairs)) % max(
                1, pairs
            )
            placed = terms[order]
            first = np.flatnonzero(np.diff(placed, prepend=-1))  # sorted: no np.unique
            term = placed[first]
            count = np.diff(first, append=len(placed))
            places = free[placed] + (np.arange(len(placed)) - np.repeat(first, count))
            indices[places] = docs[order]
            weights[places] = weight[order]
            free[term] += count
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
