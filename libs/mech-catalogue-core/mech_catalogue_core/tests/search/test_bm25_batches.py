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

"""The batched (numpy) build gives the index of the per-document build, bit for bit.

The per-document way (``vectorised=False``: a regular expression and a ``Counter`` per
text) is the reference; the batches must give the same term ids, postings and weights,
and so the same pages, over a generated catalogue of realistic descriptions (the
corpus's, recombined), with non-ASCII texts, long words, stop words and empty texts mixed
in, across many batch boundaries.
"""

import random
from dataclasses import replace
from typing import List

import numpy as np
import pytest
from mech_catalogue_core.model.catalogue import Catalogue, Manifest, Mech
from mech_catalogue_core.model.tool import Argument, Tool
from mech_catalogue_core.model.vocabulary import SearchSort
from mech_catalogue_core.search import bm25, index
from mech_catalogue_core.search.bm25 import Bm25Index
from mech_catalogue_core.search.index import SearchIndex
from mech_catalogue_core.search.query import SearchQuery
from mech_catalogue_core.tests.search.corpus import MARKET, TOOLS, ref

#: texts the byte splitter must treat as the regular expression does
ODD_TEXTS = (
    "",
    "a an the of",
    "x y z 1 2",
    "Ünïcode wörds: straße, ΑΣ, 東京の天気, naïve café",
    "supercalifragilisticexpialidocious abcdefghijklmnop abcdefghijklmnopq "
    "abcdefgh abcdefghi 12345678901234567890",
    "snake_case_words kebab-case-words dotted.words PREDICTIONS Predicting",
    "tabs\tand\nnew\nlines\r\n  spaces",
)


def catalogue(tools: int, seed: int) -> Catalogue:
    """Recombine the corpus's descriptions and argument texts into many tools.

    :param tools: how many tools (10 a mech).
    :param seed: the generator's seed.
    :return: the catalogue.
    """
    rng = random.Random(seed)
    words = " ".join(text for _, text, _ in TOOLS.values()).split()
    arguments = [a for _, _, args in TOOLS.values() for a in args]
    mechs = []
    for mech_id in range(1, tools // 10 + 1):
        built = []
        for at in range(10):
            text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 40)))
            if rng.random() < 0.05:
                text += " " + rng.choice(ODD_TEXTS)
            if rng.random() < 0.1:  # a shared manifest text: one BM25 document
                text = words[0]
            chosen = rng.sample(arguments, rng.randint(0, 3))
            built.append(
                Tool(
                    name=f"{rng.choice(list(TOOLS))}-{at}",
                    kind=TOOLS[rng.choice(list(TOOLS))][0],
                    description=text,
                    arguments=tuple(
                        Argument(identifier=i, type="str", description=d)
                        for i, d in chosen
                    ),
                )
            )
        mech = Mech.from_manifest(
            ref(mech_id),
            Manifest(name=f"mech {mech_id}", tools=tuple(built)),
            digest="0x" + f"{mech_id:064x}",
        )
        market = MARKET.get(1 + mech_id % 4, ())
        mechs.append(replace(mech, marketplace=market))
    return Catalogue.build(mechs)


def assert_same_index(batched: Bm25Index, reference: Bm25Index) -> None:
    """Term ids, postings and weights equal, byte for byte.

    :param batched: built in batches.
    :param reference: built a document at a time.
    """
    assert batched.documents == reference.documents
    for name in ("_indptr", "_indices", "_weights", "_terms"):
        got, want = getattr(batched, name), getattr(reference, name)
        if name == "_terms":  # raw word -> term id, and stem -> term id
            assert (got, got.ids) == (want, want.ids)
            continue
        assert got.dtype == want.dtype, name
        assert got.tobytes() == want.tobytes(), name


@pytest.mark.parametrize("batch_chars", [1, 50, 4096, bm25.BATCH_CHARS])
def test_batches_give_the_per_document_index(
    batch_chars: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any batch size (one text a batch up to the default) gives the reference index.

    :param batch_chars: the batch size tried.
    :param monkeypatch: pytest's.
    """
    monkeypatch.setattr(bm25, "BATCH_CHARS", batch_chars)
    rng = random.Random(batch_chars)
    texts: List[str] = [
        index.offer_text(tool) for tool in catalogue(600, seed=3).tools()
    ]
    texts += list(ODD_TEXTS) * 3
    rng.shuffle(texts)
    assert_same_index(Bm25Index(texts), Bm25Index(texts, vectorised=False))
    weights = index.FIELD_WEIGHTS
    assert_same_index(
        Bm25Index(texts, field_weights=weights),
        Bm25Index(texts, vectorised=False, field_weights=weights),
    )


def test_search_pages_of_both_builds_are_identical(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every page of a set of queries is the same from either build.

    :param monkeypatch: pytest's.
    """
    monkeypatch.setattr(bm25, "BATCH_CHARS", 2048)
    generated = catalogue(2000, seed=5)
    batched = SearchIndex.build(generated)
    monkeypatch.setattr(
        index,
        "Bm25Index",
        lambda texts, **options: Bm25Index(texts, vectorised=False, **options),
    )
    reference = SearchIndex.build(generated)
    rng = random.Random(9)
    words = " ".join(text for _, text, _ in TOOLS.values()).split()
    for at in range(60):
        query = SearchQuery(
            text=" ".join(rng.sample(words, 1 + at % 3)),
            sort=(SearchSort.RELEVANCE, SearchSort.PRICE, SearchSort.KARMA)[at % 3],
            page_size=25,
        )
        for distinct in (False, True):
            got = batched.search(query, None, distinct)
            want = reference.search(query, None, distinct)
            assert got == want, query


def test_words_whose_mixed_keys_collide_are_still_told_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Words whose mixed keys collide are grouped by both keys: still the reference.

    With a mixer that ignores the second key, words sharing their first 8 bytes collide.

    :param monkeypatch: pytest's.
    """
    monkeypatch.setattr(bm25, "_MIX", np.uint64(0))
    texts = [
        "predictionmarket predictionmodel predictions prediction",
        "abcdefghijklmnop abcdefghijklmnoq abcdefghij abcdefghik",
        "predictionmodel weather",
    ] * 5
    assert_same_index(Bm25Index(texts), Bm25Index(texts, vectorised=False))
    assert Bm25Index(texts).term_ids("abcdefghijklmnoq") != Bm25Index(texts).term_ids(
        "abcdefghijklmnop"
    )


@pytest.mark.parametrize(
    "probes", [1, 4, bm25._PROBES]  # pylint: disable=protected-access
)
def test_words_crowding_one_slot_of_the_word_table_are_still_the_reference(
    probes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every word given the same slot: words past the probes are looked up as text.

    With salts of 0 every word starts at slot 0 (what words aimed at one slot would
    do, were the salts known): the table fills one run of slots, words found within
    ``probes`` slots come from it, the others from the text lookup, the index is the
    reference's, and the table never holds a word twice.

    :param probes: the slots probed at most.
    :param monkeypatch: pytest's.
    """
    monkeypatch.setattr(bm25, "_salt", lambda: np.uint64(0))
    monkeypatch.setattr(bm25, "_PROBES", probes)
    monkeypatch.setattr(bm25, "BATCH_CHARS", 4096)
    texts = [index.offer_text(tool) for tool in catalogue(300, seed=4).tools()]
    batched = Bm25Index(texts, field_weights=index.FIELD_WEIGHTS)
    assert_same_index(
        batched,
        Bm25Index(texts, vectorised=False, field_weights=index.FIELD_WEIGHTS),
    )
    # pylint: disable=protected-access
    table = batched._table
    held = table._high != 0
    assert 0 < table.size == held.sum() <= probes
    pairs = set(zip(table._high[held].tolist(), table._low[held].tolist()))
    assert len(pairs) == table.size


@pytest.mark.parametrize("block", [1, 7, 64])
def test_any_block_of_texts_read_at_once_gives_the_reference_index(
    block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Texts read a block at a time (ASCII blocks joining a batch whole) change nothing.

    :param block: the texts read at a time.
    :param monkeypatch: pytest's.
    """
    monkeypatch.setattr(bm25, "_BLOCK", block)
    monkeypatch.setattr(bm25, "BATCH_CHARS", 4096)
    texts = [index.offer_text(tool) for tool in catalogue(300, seed=5).tools()]
    texts += list(ODD_TEXTS) * 2 + ["long " * 2000]  # a block longer than a batch
    random.Random(block).shuffle(texts)
    weights = index.FIELD_WEIGHTS
    assert_same_index(
        Bm25Index(texts, field_weights=weights),
        Bm25Index(texts, vectorised=False, field_weights=weights),
    )


def test_term_order_is_a_stable_sort_of_any_term_ids() -> None:
    """Ids past 16 and 32 bits, ties and no ids at all sort as numpy's stable sort."""
    # pylint: disable=protected-access
    rng = np.random.default_rng(3)
    for top in (1, 300, 1 << 16, (1 << 16) + 5, 1 << 40):
        terms = rng.integers(0, top, size=5000, dtype=np.int64)
        want = np.argsort(terms, kind="stable")
        assert bm25._term_order(terms).tolist() == want.tolist(), top
    assert bm25._term_order(np.zeros(0, np.int64)).tolist() == []


def test_more_terms_than_sixteen_bits_give_the_reference_index() -> None:
    """Past 65,536 term ids the radix sort takes a second pass: still the reference."""
    # pylint: disable=protected-access
    letters = "bcdfghjklmnpqrstvwxz"
    words = [
        "q" + "".join(letters[(n // 20**d) % 20] for d in range(4))
        for n in range(70_000)
    ]
    texts = [" ".join(words[at : at + 50]) for at in range(0, len(words), 25)]
    texts.append(" ".join(words))  # every word again, far from its first documents
    batched = Bm25Index(texts, field_weights=index.FIELD_WEIGHTS)
    assert len(batched._terms.ids) > 1 << 16  # the stems stay distinct
    reference = Bm25Index(texts, vectorised=False, field_weights=index.FIELD_WEIGHTS)
    assert_same_index(batched, reference)
