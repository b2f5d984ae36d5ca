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

"""The BM25 index: its scores against the formula computed by hand, words, stems, stops."""

import math
from typing import Dict, List

import pytest
import Stemmer  # type: ignore[import-not-found]
from mech_catalogue_core.search.bm25 import K1, STOP_WORDS, B, Bm25Index, words_of

STEMMER = Stemmer.Stemmer("english")  # pylint: disable=c-extension-no-member
TEXTS = [
    "Forecast the weather of a city",
    "weather weather forecast forecasting",
    "translate a passage into another language",
    "",
]


def expected(
    texts: List[str], stems: Dict[int, List[str]], query: List[str]
) -> List[float]:
    """Score each document by the formula, from counts written out by hand.

    :param texts: the documents.
    :param stems: document index -> its stems (stop words left out), as the test says.
    :param query: the query's stems.
    :return: the scores.
    """
    lengths = [len(stems.get(i, [])) for i in range(len(texts))]
    average = sum(lengths) / len(texts)
    scores = []
    for doc in range(len(texts)):
        total = 0.0
        for term in query:
            df = sum(1 for i in range(len(texts)) if term in stems.get(i, []))
            idf = math.log1p((len(texts) - df + 0.5) / (df + 0.5))
            tf = stems.get(doc, []).count(term)
            norm = K1 * (1 - B + B * lengths[doc] / average)
            total += idf * tf * (K1 + 1) / (tf + norm)
        scores.append(total)
    return scores


def test_scores_are_the_formulas() -> None:
    """Scores match BM25 computed by hand from the stems of each text (float32 close)."""
    index = Bm25Index(TEXTS)
    stems = {
        0: ["forecast", "weather", "citi"],
        1: ["weather", "weather", "forecast", "forecast"],
        2: ["translat", "passag", "anoth", "languag"],
    }
    for query in ("weather forecast", "forecasts", "language", "city weather"):
        terms = index.term_ids(query)
        query_stems = sorted({STEMMER.stemWord(w) for w in words_of(query)})
        got = index.scores(terms)
        want = expected(TEXTS, stems, query_stems)
        assert got.tolist() == pytest.approx(want, rel=1e-5), query


def test_stop_words_and_unknown_words_are_not_terms() -> None:
    """Stop words are never indexed; words no document holds give no term."""
    index = Bm25Index(["the cat and the hat", "a dog"])
    assert index.term_ids("the and a") == []
    assert index.term_ids("zebra") == []
    assert index.term_ids("Cats") == index.term_ids("cat")
    assert {"the", "and", "a"} <= STOP_WORDS


def test_words_split_on_hyphens_and_underscores_and_keep_two_characters() -> None:
    """Names split into their words; single characters are not words."""
    assert words_of("claude-prediction_offline x GPT-4o") == [
        "claude",
        "prediction",
        "offline",
        "gpt",
        "4o",
    ]


def test_two_indexes_of_the_same_texts_are_identical() -> None:
    """Term ids, postings and weights do not depend on anything but the texts."""
    first, second = Bm25Index(TEXTS), Bm25Index(list(TEXTS))
    for query in ("weather", "forecast language", "city"):
        assert first.term_ids(query) == second.term_ids(query)
        assert (
            first.scores(first.term_ids(query)).tobytes()
            == second.scores(second.term_ids(query)).tobytes()
        )


@pytest.mark.parametrize("texts", [[], [""], ["", "   ", "the of"]])
def test_documents_without_words_score_zero(texts: List[str]) -> None:
    """No words (or only stop words): every score is 0, nothing raises."""
    index = Bm25Index(texts)
    assert index.scores(index.term_ids("anything")).tolist() == [0.0] * len(texts)
