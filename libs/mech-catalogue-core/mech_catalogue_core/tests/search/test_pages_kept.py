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

"""The pages of a fixed query set are those the engine gave before its build was sped up.

Agents agree on pages only while every version of the engine ranks alike: a faster
build must not move one hit. :data:`PAGES_DIGEST` is the SHA-256 of the pages below as
the engine of commit c24228b (before the hash-table build) answered them; a change of
ranking, scores, totals or cursors changes it. When the ranking is changed on purpose,
record the new digest in the same commit and say why.
"""

import hashlib
import json
import random
from typing import Any, List

import pytest
from mech_catalogue_core.model.vocabulary import SearchSort
from mech_catalogue_core.search import bm25
from mech_catalogue_core.search.index import SearchIndex, SearchPage
from mech_catalogue_core.search.query import SearchQuery
from mech_catalogue_core.tests.search.corpus import TOOLS
from mech_catalogue_core.tests.search.test_bm25_batches import catalogue

#: SHA-256 of :func:`pages`' JSON, answered by the engine of commit c24228b
PAGES_DIGEST = "937ab57fdc6ca254bd020665d62a1b5a25426f7dc7463b7b2fbdfe8e8ca7fc46"

pytestmark = pytest.mark.unit


def _page(page: SearchPage) -> List[Any]:
    return [
        page.total,
        page.offset,
        page.next_cursor,
        [
            [h.tool.name, h.mech.ref.key, h.score, h.price, list(h.payments)]
            for h in page.hits
        ],
    ]


def pages(index: SearchIndex) -> List[Any]:
    """Answer the fixed query set: 90 queries, two pages each, offers and names.

    :param index: the index asked.
    :return: every page, as JSON-ready lists.
    """
    rng = random.Random(17)
    words = " ".join(text for _, text, _ in TOOLS.values()).split()
    answered = []
    for at in range(90):
        query = SearchQuery(
            text=" ".join(rng.sample(words, 1 + at % 4)),
            kind=("", "prediction", "")[at % 3],
            sort=(SearchSort.RELEVANCE, SearchSort.PRICE, SearchSort.KARMA)[at % 3],
            callable_now=at % 5 == 0,
            page_size=15,
        )
        for distinct in (False, True):
            first = index.search(query, None, distinct)
            answered.append(_page(first))
            if first.next_cursor is not None:
                answered.append(_page(index.search(query, first.next_cursor, distinct)))
    return answered


@pytest.mark.parametrize("batch_chars", [64, bm25.BATCH_CHARS])
def test_pages_are_those_of_the_engine_before_the_faster_build(
    batch_chars: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3,000 offers (odd texts, shared texts, four marketplaces): the same pages.

    :param batch_chars: the build's batch size tried.
    :param monkeypatch: pytest's.
    """
    monkeypatch.setattr(bm25, "BATCH_CHARS", batch_chars)
    answered = pages(SearchIndex.build(catalogue(3000, seed=23)))
    text = json.dumps(answered, separators=(",", ":"), sort_keys=True)
    assert sum(len(p[3]) for p in answered) > 1000  # the set does match many offers
    assert hashlib.sha256(text.encode()).hexdigest() == PAGES_DIGEST
