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
"""

import re
from array import array
from collections import Counter
from typing import Dict, Iterable, List, Sequence

import numpy as np
import Stemmer  # type: ignore[import-not-found]

__all__ = ["B", "K1", "STOP_WORDS", "Bm25Index"]

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
#: term id of a stop word (never indexed)
_STOP = -1


class _Terms(dict):  # type: ignore[type-arg]
    """Raw word -> term id (``_STOP`` for a stop word), filled on first sight."""

    def __init__(self, stemmer: "Stemmer.Stemmer") -> None:
        super().__init__()
        self.stemmer = stemmer
        self.ids: Dict[str, int] = {}  # stem -> term id

    def __missing__(self, word: str) -> int:
        if word in STOP_WORDS:
            term = _STOP
        else:
            stem = self.stemmer.stemWord(word)
            term = self.ids.setdefault(stem, len(self.ids))
        self[word] = term
        return term


def words_of(text: str) -> List[str]:
    """Return a text's words before stop words and stems.

    :param text: any text.
    :return: its lowercased runs of two or more letters or digits.
    """
    return _WORD.findall(text.lower())


class Bm25Index:
    """The BM25 weights of every (term, document) pair, by term (compressed columns).

    Deterministic: term ids are given in order of first appearance, weights computed
    elementwise in float32 (idf and document lengths in float64 first); a query adds
    them term by term in term-id order.
    """

    def __init__(self, texts: Iterable[str]) -> None:
        """Index the documents (O(total words), the per-word work once per distinct word).

        :param texts: one text per document, read once (a generator keeps only one alive);
            a document's id is its position.
        """
        self._stemmer = Stemmer.Stemmer(  # pylint: disable=c-extension-no-member
            STEMMER_LANGUAGE
        )
        self._terms = _Terms(self._stemmer)
        self.documents = 0
        docs, terms, counts = self._pairs(texts)
        self._indptr, self._indices, self._weights = self._columns(docs, terms, counts)

    def _pairs(
        self, texts: Iterable[str]
    ) -> "tuple[np.ndarray, np.ndarray, np.ndarray]":
        """Each document's (document, term, count) pairs, stop words dropped."""
        terms_of = self._terms
        sizes, terms, counts = array("i"), array("i"), array("i")
        for text in texts:
            counted = Counter(_WORD.findall(text.lower()))
            ids = [terms_of[word] for word in counted]
            if _STOP in ids or len(set(ids)) < len(ids):  # stop words, or alike stems
                merged: Dict[int, int] = {}
                for term, count in zip(ids, counted.values()):
                    if term != _STOP:
                        merged[term] = merged.get(term, 0) + count
                ids, tally = list(merged), list(merged.values())
            else:
                tally = list(counted.values())
            terms.extend(ids)
            counts.extend(tally)
            sizes.append(len(ids))
        self.documents = len(sizes)
        docs_np = np.repeat(
            np.arange(len(sizes), dtype=np.int32), np.frombuffer(sizes, dtype=np.int32)
        )
        return (
            docs_np,
            np.frombuffer(terms, dtype=np.int32),
            np.frombuffer(counts, dtype=np.int32),
        )

    def _columns(
        self, docs: np.ndarray, terms: np.ndarray, counts: np.ndarray
    ) -> "tuple[np.ndarray, np.ndarray, np.ndarray]":
        """The pairs' weights, grouped by term (index pointer, documents, weights)."""
        vocabulary = len(self._terms.ids)
        lengths = np.bincount(docs, weights=counts, minlength=self.documents)
        average = float(lengths.mean()) if self.documents else 0.0
        frequency = np.bincount(terms, minlength=vocabulary)
        idf = np.log1p((self.documents - frequency + 0.5) / (frequency + 0.5))
        # per document: k1 (1 - b + b |d| / avgdl), float32 like the weights
        norms = (
            K1 * (1 - B + B * lengths / average) if average else lengths + K1
        ).astype(np.float32)
        tf = counts.astype(np.float32)  # in place from here: one pair array at a time
        weights = tf * np.float32(K1 + 1)
        tf += norms[docs]
        weights /= tf
        del tf
        weights *= idf.astype(np.float32)[terms]
        order = np.argsort(terms, kind="stable")  # by term, documents ascending
        indptr = np.zeros(vocabulary + 1, dtype=np.int64)
        np.cumsum(frequency, out=indptr[1:])
        weights = weights[order]
        return indptr, docs[order], weights

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
