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

"""The query engine: relevance, filters, sorting, cursors and agreement between agents.

Real components only: the corpus (:mod:`.corpus`) is a catalogue of realistic tool
descriptions, searched through the real index (numpy, ``PyStemmer``).
"""

import json
import random
from dataclasses import replace
from typing import List, Optional, Tuple

import pytest
from mech_catalogue_core.model.catalogue import Catalogue, Manifest, Mech
from mech_catalogue_core.model.tool import Argument, Tool
from mech_catalogue_core.model.vocabulary import RegistryKind, SearchSort
from mech_catalogue_core.search import index as index_module
from mech_catalogue_core.search.index import (
    InvalidCursor,
    SearchHit,
    SearchIndex,
    SearchPage,
)
from mech_catalogue_core.search.query import MAX_QUERY_CHARS, InvalidQuery, SearchQuery
from mech_catalogue_core.tests.search.corpus import (
    MARKET,
    TOOLS,
    corpus,
    mechs,
    ref,
    tool,
)

INDEX = SearchIndex.build(corpus())


def names(page: SearchPage) -> List[str]:
    """Return the tool names of a page, in order.

    :param page: the page.
    :return: the names.
    """
    return [hit.tool.name for hit in page.hits]


def offers(page: SearchPage) -> List[Tuple[str, int]]:
    """Return (tool name, mech id) of each hit.

    :param page: the page.
    :return: the pairs.
    """
    return [(hit.tool.name, hit.mech.ref.mech_id) for hit in page.hits]


def everything(
    index: SearchIndex, query: SearchQuery, distinct: bool = False
) -> List[SearchHit]:
    """Walk every page of a query by its cursors.

    :param index: the index.
    :param query: the query.
    :param distinct: one hit per tool name.
    :return: every hit, in order.
    """
    hits: List[SearchHit] = []
    cursor: Optional[str] = None
    while True:
        page = index.search(query, cursor, distinct)
        hits += page.hits
        cursor = page.next_cursor
        if cursor is None:
            assert len(hits) == page.total
            return hits


# --- relevance --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, best",
    [
        ("anthropic claude", {"claude-prediction-online", "claude-prediction-offline"}),
        ("subject matter expert persona", {"sme-generation-request"}),
        ("will it rain tomorrow in a city", {"weather-forecast"}),
        ("translate into another language", {"translate-text"}),
        ("ERC-20 token value in USD", {"token-price-oracle"}),
        ("settle a closed market: did the event happen", {"resolve-market"}),
        ("draw an illustration", {"dall-e-3"}),
        ("stable diffusion XL", {"stabilityai-stable-diffusion-xl-beta-v2-2-2"}),
        ("retrieval augmented", {"prediction-request-rag"}),
        ("write market questions from headlines", {"question-generation"}),
    ],
)
def test_the_tool_a_query_describes_ranks_first(text: str, best: set) -> None:
    """Each query written here in other words than the tool's finds that tool first."""
    page = INDEX.search(SearchQuery(text=text, page_size=len(best)), distinct=True)
    assert set(names(page)) == best


def test_image_queries_rank_image_tools_above_the_rest() -> None:
    """A query about pictures puts the image tools (of any model) before anything else."""
    page = INDEX.search(SearchQuery(text="generate an image picture", page_size=3))
    assert [TOOLS[n][0] for n in names(page)] == ["image"] * 3


def test_stemming_finds_other_forms_of_a_word() -> None:
    """'predictions' and 'predicting' find the prediction tools; online ones first for 'web'."""
    for text in ("predictions", "predicting"):
        found = set(names(INDEX.search(SearchQuery(text=text, page_size=50))))
        assert {"prediction-online", "claude-prediction-offline"} <= found
    top = names(
        INDEX.search(
            SearchQuery(text="predicting with web search", page_size=2), distinct=True
        )
    )
    assert set(top) == {"prediction-online", "claude-prediction-online"}


def test_argument_names_and_descriptions_are_searched() -> None:
    """A word only an argument carries (identifier or description) finds its tool."""
    assert names(INDEX.search(SearchQuery(text="pixels"), distinct=True))[:1] == [
        "stabilityai-stable-diffusion-v1-5"
    ]
    assert names(INDEX.search(SearchQuery(text="cfg scale"), distinct=True))[:1] == [
        "stabilityai-stable-diffusion-xl-beta-v2-2-2"
    ]


@pytest.mark.parametrize("text", ["zzyzx", "the of and", "  ", "-- !!"])
def test_text_with_no_known_word_matches_nothing_or_everything(text: str) -> None:
    """Unknown words and stop words match nothing; blank text keeps every offer."""
    page = INDEX.search(SearchQuery(text=text))
    expected = INDEX.offer_count if not text.strip() else 0
    assert page.total == expected


def test_scores_descend_and_equal_scores_fall_back_to_name_then_mech() -> None:
    """Relevance order is score, then tool name, then mech ref: nothing is left to chance."""
    hits = everything(
        INDEX, SearchQuery(text="market question probability", page_size=3)
    )
    keys = [(-h.score, h.tool.name, h.mech.ref) for h in hits]
    assert keys == sorted(keys)
    assert len({(h.tool.name, h.mech.ref) for h in hits}) == len(hits)


# --- keyword stuffing -------------------------------------------------------------


def _stuffed(how: str) -> Mech:
    """A hostile mech whose one tool repeats query words instead of describing itself.

    :param how: ``description`` (the words 1,000 times) or ``arguments`` (300 arguments
        named after them, each described by them).
    :return: the mech (id 9).
    """
    words = "prediction market probability question"
    if how == "description":
        stuffed = Tool(name="best-tool", kind="chat", description=f"{words} " * 1000)
    else:
        stuffed = Tool(
            name="best-tool",
            kind="chat",
            description="A tool.",
            arguments=tuple(
                Argument(f"prediction_market_{i}", "str", description=words)
                for i in range(300)
            ),
        )
    return Mech.from_manifest(
        ref(9), Manifest(name="stuffed", tools=(stuffed,)), digest="0x" + "09" * 32
    )


@pytest.mark.parametrize("how", ["description", "arguments"])
@pytest.mark.parametrize(
    "text",
    [
        "prediction",
        "prediction market",
        "prediction market probability",
        "market question probability",
    ],
)
def test_a_stuffed_manifest_does_not_outrank_honest_tools_by_much(
    how: str, text: str
) -> None:
    """Repeating query words buys at most a tenth over the best honest tool's score.

    A word counts once per field (name, kind, description, input, output, argument
    names, argument descriptions): 1,000 repetitions or 300 arguments weigh what one
    mention does; and a document shorter than the average is weighed as average, so a
    bare list of the query's words gains nothing from being short. Before, the stuffed
    tool was first for every query, by 1.3 to 1.65x.

    :param how: how the manifest stuffs its words.
    :param text: the query.
    """
    index = SearchIndex.build(Catalogue.build([*mechs(), _stuffed(how)]))
    hits = index.search(SearchQuery(text=text, page_size=50), distinct=True).hits
    stuffed = next(h for h in hits if h.tool.name == "best-tool")
    honest = max(h.score for h in hits if h.tool.name != "best-tool")
    assert stuffed.score <= 1.1 * honest, (stuffed.score, honest)
    if len(text.split()) < 3:  # a tool about a word beats one that only repeats it
        assert hits[0].tool.name != "best-tool"


# --- filters ----------------------------------------------------------------------


def test_kind_filter_keeps_that_kind_only() -> None:
    """kind=image keeps the three image tools' offers, and an unknown kind keeps none."""
    page = INDEX.search(SearchQuery(kind="image", page_size=50))
    assert sorted(names(page)) == sorted(n for n, v in TOOLS.items() if v[0] == "image")
    assert INDEX.search(SearchQuery(kind="telepathy")).total == 0


def test_max_price_keeps_priced_offers_at_or_under_it() -> None:
    """A cap keeps offers whose mech's lowest rate is at most it; unpriced ones never pass."""
    at_cap = INDEX.search(SearchQuery(max_price=10**16, page_size=50))
    assert {h.mech.ref.mech_id for h in at_cap.hits} == {1, 2}
    assert all(h.price is not None and h.price <= 10**16 for h in at_cap.hits)
    below = INDEX.search(SearchQuery(max_price=10**16 - 1, page_size=50))
    assert {h.mech.ref.mech_id for h in below.hits} == {2}
    assert INDEX.search(SearchQuery(max_price=0)).total == 0


def test_payment_filter_prices_in_that_asset_only() -> None:
    """payment=token_olas keeps the OLAS-paid mech, priced in OLAS; native keeps 1 and 2."""
    olas = INDEX.search(SearchQuery(payment="token_olas", page_size=50))
    assert {h.mech.ref.mech_id for h in olas.hits} == {3}
    assert {h.price for h in olas.hits} == {5 * 10**18}
    native = INDEX.search(SearchQuery(payment="native", max_price=10**17, page_size=50))
    assert {h.mech.ref.mech_id for h in native.hits} == {1, 2}
    assert INDEX.search(SearchQuery(payment="token_usdc")).total == 0


def test_mech_filter_takes_an_entry_key_or_a_contract_address() -> None:
    """mech= matches the catalogue key or a mech contract address, any case."""
    by_key = INDEX.search(SearchQuery(mech=ref(4).key.upper(), page_size=50))
    assert {h.mech.ref for h in by_key.hits} == {ref(4)}
    address = MARKET[2][0].address.upper().replace("0X", "0x")
    by_address = INDEX.search(SearchQuery(mech=address, page_size=50))
    assert {h.mech.ref for h in by_address.hits} == {ref(2)}
    assert INDEX.search(SearchQuery(mech="0x" + "ee" * 20)).total == 0


def test_registry_typed_callable_and_delivering_filters() -> None:
    """Each flag keeps exactly the offers the corpus gives it."""
    legacy = INDEX.search(SearchQuery(registry=RegistryKind.LEGACY_MECH, page_size=50))
    assert offers(legacy) == [("prediction-offline", 5), ("resolve-market", 5)]
    typed = INDEX.search(SearchQuery(typed=True, page_size=50))
    assert set(names(typed)) == {n for n, v in TOOLS.items() if v[2]}
    untyped = INDEX.search(SearchQuery(typed=False, page_size=50))
    assert typed.total + untyped.total == INDEX.offer_count
    callable_now = INDEX.search(SearchQuery(callable_now=True, page_size=50))
    assert {h.mech.ref.mech_id for h in callable_now.hits} == {1, 2, 3}
    assert all(h.callable_now for h in callable_now.hits)
    delivering = INDEX.search(SearchQuery(delivering=True, page_size=50))
    assert {h.mech.ref.mech_id for h in delivering.hits} == {1, 3}


def test_filters_combine_with_text() -> None:
    """Text and filters together: prediction tools of mech 2, paid natively under a cap."""
    page = INDEX.search(
        SearchQuery(
            text="prediction", mech=ref(2).key, payment="native", max_price=10**16
        )
    )
    assert offers(page) == [("prediction-online", 2)]


# --- sorting ----------------------------------------------------------------------


def test_price_sort_is_cheapest_first_unpriced_last_then_relevance() -> None:
    """Price order: ascending rate, offers with no callable contract last."""
    hits = everything(
        INDEX, SearchQuery(text="prediction", sort=SearchSort.PRICE, page_size=4)
    )
    prices = [h.price for h in hits]
    priced = [p for p in prices if p is not None]
    assert priced == sorted(priced)
    assert prices[len(priced) :] == [None] * (len(prices) - len(priced))
    assert hits[0].mech.ref.mech_id == 2  # the cheapest mech offers prediction-online


#: ``paymentType()`` of USDC fixed-price mechs (``model.market.PAYMENT_TYPE_NAMES``)
TOKEN_USDC = "0x6406bb5f31a732f898e1ce9fdd988a80a808d36ab5d9a4a4805a8be8d197d5e3"


def test_a_price_sort_without_a_payment_groups_offers_by_payment_type() -> None:
    """1 USDC (10**6) never ranks before 0.004 native (4 * 10**15) as a bare number.

    Offers are grouped by their price's payment type (names in order: native,
    token_olas, token_usdc), cheapest first within each, unpriced last; each hit's price
    is in its first payment type (``payments[0]``).
    """
    usdc = replace(
        mechs()[3],  # mech 4: no marketplace contract in the corpus
        marketplace=(
            replace(
                MARKET[1][0],
                address="0x" + "04" * 20,
                payment_type=TOKEN_USDC,
                max_delivery_rate=10**6,
            ),
        ),
    )
    index = SearchIndex.build(Catalogue.build([*mechs()[:3], usdc, mechs()[4]]))
    hits = everything(index, SearchQuery(sort=SearchSort.PRICE, page_size=7))
    groups = [h.payments[0] if h.payments else "" for h in hits]
    priced = [g for g in groups if g]
    assert priced == sorted(priced) and set(priced) == {
        "native",
        "token_olas",
        "token_usdc",
    }
    assert groups[len(priced) :] == [""] * (len(groups) - len(priced))
    for group in set(priced):
        prices = [h.price or 0 for h in hits if h.payments and h.payments[0] == group]
        assert prices == sorted(prices) and all(prices)
    assert [h.price for h in hits if h.mech.ref.mech_id == 4] == [10**6] * len(
        usdc.tools
    )
    # asked for one payment type: only its offers, by its price
    only = everything(index, SearchQuery(sort=SearchSort.PRICE, payment="token_usdc"))
    assert {h.mech.ref.mech_id for h in only} == {4}


def test_min_karma_keeps_mechs_whose_karma_was_read_and_reaches_it() -> None:
    """Karma 3 (mech 1), 2 (mech 3), 0 (mech 2); no karma read (4, 5) never passes."""
    for floor, kept in ((None, {1, 2, 3, 4, 5}), (0, {1, 2, 3}), (2, {1, 3}), (3, {1})):
        page = INDEX.search(SearchQuery(min_karma=floor, page_size=50))
        assert {h.mech.ref.mech_id for h in page.hits} == kept, floor
    assert INDEX.search(SearchQuery(min_karma=4)).total == 0
    karma_read = sum(len(m.tools) for m in mechs() if m.ref.mech_id in (1, 2, 3))
    assert INDEX.search(SearchQuery(min_karma=-5, page_size=50)).total == karma_read


def test_karma_sort_is_highest_first_unread_last_then_relevance() -> None:
    """Karma order: mech 1 (3), mech 3 (2), mech 2 (0), then mechs with none read."""
    hits = everything(
        INDEX, SearchQuery(text="prediction", sort=SearchSort.KARMA, page_size=3)
    )
    order = [h.mech.ref.mech_id for h in hits]
    read = [m for m in order if m in (1, 3, 2)]
    assert order[: len(read)] == sorted(read, key=[1, 3, 2].index)
    assert set(order[len(read) :]) == {4, 5}
    # within one karma (mech 1's tools; the unread ones), relevance decides
    for group in ({1}, {4, 5}):
        scores = [h.score for h in hits if h.mech.ref.mech_id in group]
        assert scores == sorted(scores, reverse=True)


def test_the_default_order_does_not_use_karma() -> None:
    """Raising one mech's karma changes no relevance page (karma is buyable, issue 29)."""
    rich = [
        (
            replace(
                m, marketplace=tuple(replace(f, karma=10**9) for f in m.marketplace)
            )
            if m.ref.mech_id == 2
            else m
        )
        for m in mechs()
    ]
    bought = SearchIndex.build(Catalogue.build(rich))
    for text in ("prediction", "image", "market", ""):
        query = SearchQuery(text=text, page_size=50)
        assert offers(bought.search(query)) == offers(INDEX.search(query))
    top = bought.search(SearchQuery(sort=SearchSort.KARMA, page_size=1))
    assert top.hits[0].mech.ref.mech_id == 2  # only the karma order follows it


# --- cursors ----------------------------------------------------------------------


@pytest.mark.parametrize("page_size", [1, 2, 3, 7, 200])
def test_pages_by_cursor_are_the_whole_answer_once(page_size: int) -> None:
    """Walking the cursors gives exactly the one-page answer, none twice, none lost."""
    for distinct in (False, True):
        whole = INDEX.search(
            SearchQuery(text="market", page_size=200), distinct=distinct
        )
        walked = everything(
            INDEX, SearchQuery(text="market", page_size=page_size), distinct
        )
        assert [(h.tool, h.mech.ref) for h in walked] == [
            (h.tool, h.mech.ref) for h in whole.hits
        ]


def test_a_cursor_is_the_same_when_asked_again() -> None:
    """The same query on the same catalogue issues the same cursor (stable)."""
    first = INDEX.search(SearchQuery(page_size=2)).next_cursor
    assert first is not None
    assert INDEX.search(SearchQuery(page_size=2)).next_cursor == first
    assert names(INDEX.search(SearchQuery(page_size=2), first)) == names(
        INDEX.search(SearchQuery(page_size=2), first)
    )


def test_a_cursor_of_another_query_or_catalogue_is_refused() -> None:
    """A cursor binds its query, page size, distinctness and catalogue: else it is refused."""
    cursor = INDEX.search(SearchQuery(text="market", page_size=2)).next_cursor
    assert cursor is not None
    for other, distinct in (
        (SearchQuery(text="markets", page_size=2), False),
        (SearchQuery(text="market", page_size=3), False),
        (SearchQuery(text="market", page_size=2, kind="prediction"), False),
        (SearchQuery(text="market", page_size=2), True),
    ):
        with pytest.raises(InvalidCursor, match="start over"):
            INDEX.search(other, cursor, distinct)
    changed = mechs()
    changed[0] = replace(
        changed[0], tools=(tool("prediction-online", "changed"),) + changed[0].tools[1:]
    )
    with pytest.raises(InvalidCursor, match="catalogue may have changed"):
        SearchIndex.build(Catalogue.build(changed)).search(
            SearchQuery(text="market", page_size=2), cursor
        )


@pytest.mark.parametrize(
    "cursor",
    [
        "",
        "2",
        "2.",
        "x.0123456789abcdef",
        "-1.0123456789abcdef",
        "2.0123456789ABCDEF",
        "9" * 10 + ".0123456789abcdef",
    ],
)
def test_malformed_cursors_are_refused(cursor: str) -> None:
    """Anything not issued by the engine is refused with what to do."""
    with pytest.raises(InvalidCursor, match="omit it to start over"):
        INDEX.search(SearchQuery(page_size=2), cursor)


def test_a_cursor_past_the_matches_is_refused() -> None:
    """A well-formed cursor whose offset is past the last match is refused."""
    cursor = INDEX.search(SearchQuery(page_size=2)).next_cursor
    assert cursor is not None
    forged = "999" + cursor[cursor.index(".") :]
    with pytest.raises(InvalidCursor, match="past the"):
        INDEX.search(SearchQuery(page_size=2), forged)


# --- queries refused --------------------------------------------------------------


@pytest.mark.parametrize(
    "fields, says",
    [
        ({"text": "a" * (MAX_QUERY_CHARS + 1)}, "characters"),
        ({"page_size": 0}, "page size"),
        ({"page_size": 201}, "page size"),
        ({"max_price": -1}, "max price"),
        ({"max_price": 2**63}, "max price"),
        ({"sort": "popularity"}, "sort"),
        ({"min_karma": 2**62 + 1}, "min karma"),
        ({"min_karma": -(2**62) - 1}, "min karma"),
    ],
)
def test_queries_out_of_range_are_refused(fields: dict, says: str) -> None:
    """A query the engine cannot answer raises with what to change."""
    with pytest.raises(InvalidQuery, match=says):
        SearchQuery(**fields)


# --- agreement --------------------------------------------------------------------


def test_two_agents_building_their_own_index_answer_the_same_pages() -> None:
    """Another agent's index answers every page of every query as this one does.

    It is built from the catalogue read back from JSON, its mechs given in another order.
    """
    shuffled = mechs()
    random.Random(7).shuffle(shuffled)
    other = SearchIndex.build(Catalogue.from_json(Catalogue.build(shuffled).to_json()))
    for text in ("", "prediction market", "image", "openai gpt", "token"):
        for sort in SearchSort:
            for distinct in (False, True):
                query = SearchQuery(text=text, sort=sort, page_size=3)
                mine = everything(INDEX, query, distinct)
                theirs = everything(other, query, distinct)
                assert [
                    (h.tool.to_dict(), h.mech.ref, h.score, h.price) for h in mine
                ] == [(h.tool.to_dict(), h.mech.ref, h.score, h.price) for h in theirs]
    assert json.dumps(INDEX.search(SearchQuery(page_size=2)).next_cursor) == json.dumps(
        other.search(SearchQuery(page_size=2)).next_cursor
    )


def test_an_empty_catalogue_answers_empty_pages() -> None:
    """No offers: every query answers an empty last page, any cursor is refused."""
    empty = SearchIndex.build(Catalogue())
    page = empty.search(SearchQuery(text="prediction", kind="image", max_price=1))
    assert (page.hits, page.total, page.next_cursor) == ((), 0, None)
    with pytest.raises(InvalidCursor):
        empty.search(SearchQuery(), "0.0123456789abcdef")


@pytest.mark.parametrize("sort", list(SearchSort))
@pytest.mark.parametrize("text", ["", "prediction market", "image", "token address"])
def test_one_match_per_name_is_each_names_first_offer_in_the_full_order(
    sort: SearchSort, text: str
) -> None:
    """One match a name keeps, in order, each name's first offer in the full answer."""
    full = everything(INDEX, SearchQuery(text=text, sort=sort, page_size=200))
    firsts, seen = [], set()
    for hit in full:
        if hit.tool.name not in seen:
            seen.add(hit.tool.name)
            firsts.append((hit.tool.name, hit.mech.ref))
    walked = everything(INDEX, SearchQuery(text=text, sort=sort, page_size=2), True)
    assert [(h.tool.name, h.mech.ref) for h in walked] == firsts


# --- deliveries ---------------------------------------------------------------------


def _delivered_corpus() -> SearchIndex:
    """The corpus with facts read at block 50: mech 1 delivered at 45, mech 3 at 20.

    :return: its index (mech 2 has facts but no delivery known; 4 and 5 no facts).
    """
    last = {1: 45, 3: 20}
    built = [
        replace(
            m,
            marketplace=tuple(
                replace(f, last_delivery_block=last.get(m.ref.mech_id))
                for f in m.marketplace
            ),
        )
        for m in mechs()
    ]
    return SearchIndex.build(Catalogue.build(built))


@pytest.mark.parametrize(
    "within, kept",
    [(0, set()), (4, set()), (5, {1}), (29, {1}), (30, {1, 3}), (10**9, {1, 3})],
)
def test_delivered_within_keeps_mechs_that_delivered_in_the_window(
    within: int, kept: set
) -> None:
    """Blocks before the facts' block; a mech with no delivery known never passes."""
    hits = everything(
        _delivered_corpus(), SearchQuery(delivered_within=within, page_size=50)
    )
    assert {h.mech.ref.mech_id for h in hits} == kept
    assert all(
        h.last_delivery_block == {1: 45, 3: 20}[h.mech.ref.mech_id] for h in hits
    )


def test_recent_sort_is_latest_delivery_first_unknown_last_then_relevance() -> None:
    """Mech 1 (45) then mech 3 (20) then the mechs with none; relevance within each."""
    index = _delivered_corpus()
    hits = everything(index, SearchQuery(text="prediction", sort=SearchSort.RECENT))
    lasts = [h.last_delivery_block for h in hits]
    known = [b for b in lasts if b is not None]
    assert known == sorted(known, reverse=True) and set(known) == {45, 20}
    assert lasts[len(known) :] == [None] * (len(lasts) - len(known))
    by_mech1 = [h.score for h in hits if h.mech.ref.mech_id == 1]
    assert by_mech1 == sorted(by_mech1, reverse=True)
    # without deliveries known anywhere, recent is the relevance order
    plain = everything(INDEX, SearchQuery(text="prediction", sort=SearchSort.RECENT))
    assert plain == everything(INDEX, SearchQuery(text="prediction"))


@pytest.mark.parametrize("within", [-1, 2**62 + 1])
def test_a_delivery_window_out_of_range_is_refused(within: int) -> None:
    """A window below 0 or past MAX_BLOCK raises InvalidQuery naming it."""
    with pytest.raises(InvalidQuery, match="delivered within"):
        SearchQuery(delivered_within=within)


def test_a_cursor_is_bound_to_the_delivery_window() -> None:
    """A page of one window does not continue another."""
    index = _delivered_corpus()
    page = index.search(SearchQuery(delivered_within=30, page_size=1))
    assert page.next_cursor is not None
    with pytest.raises(InvalidCursor):
        index.search(SearchQuery(delivered_within=5, page_size=1), page.next_cursor)


def test_texts_whose_hashes_collide_stay_apart_and_equal_texts_share_a_document(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Shared texts are told apart by their string hash, verified by the text itself.

    With every hash made equal, distinct texts still get their own documents (and the
    same pages as without collisions), and equal texts still share one.

    :param monkeypatch: pytest's, making every string hash 0 in the index module.
    """
    copies = [
        replace(m, ref=replace(m.ref, mech_id=m.ref.mech_id + 10)) for m in mechs()[:2]
    ]
    catalogue = Catalogue.build([*mechs(), *copies])
    honest = SearchIndex.build(catalogue)
    monkeypatch.setattr(index_module, "hash", lambda text: 0, raising=False)
    colliding = SearchIndex.build(catalogue)
    # pylint: disable=protected-access
    assert colliding._documents.tolist() == honest._documents.tolist()
    assert colliding._bm25.documents == honest._bm25.documents < honest.offer_count
    for text in ("prediction market", "image", ""):
        query = SearchQuery(text=text, page_size=50)
        assert colliding.search(query) == honest.search(query)
