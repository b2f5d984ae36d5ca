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

"""``GET /tools`` searches and ``GET /mechs`` pages, through the real router.

The catalogue is the search corpus (realistic tool descriptions); nothing is mocked.
"""

import json
from dataclasses import replace
from typing import Any, Dict, List, Optional, Tuple

import pytest
from mech_catalogue_core.catalogue.exposure import ExposedCatalogue
from mech_catalogue_core.exporters.names import MCP_TOOL_RULE, sanitise_name
from mech_catalogue_core.http_api.request import (
    SEARCH_PARAMETERS,
    Request,
    parse_request,
)
from mech_catalogue_core.http_api.routes import (
    PAGE_MAX_BYTES,
    CatalogueView,
    route,
)
from mech_catalogue_core.model.catalogue import Catalogue, Manifest, Mech
from mech_catalogue_core.model.tool import Argument, Tool
from mech_catalogue_core.tests.search.corpus import MARKET, TOOLS, corpus, mechs, ref

CATALOGUE = corpus()


def view_of(catalogue: Catalogue) -> CatalogueView:
    """Return the HTTP view of a catalogue.

    :param catalogue: the catalogue.
    :return: the view.
    """
    return CatalogueView.build(
        ExposedCatalogue(catalogue, catalogue.digest(), "", 40, 0.0, 1)
    )


VIEW = view_of(CATALOGUE)


def get(
    url: str, view: Optional[CatalogueView] = VIEW, page_size: int = 3
) -> Tuple[int, Dict[str, Any]]:
    """Answer a GET.

    :param url: the URL.
    :param view: the served catalogue.
    :param page_size: items per page.
    :return: (status, decoded body).
    """
    result = route("GET", url, b"", view, 0.0, page_size, 60.0)
    return result.status_code, json.loads(result.body)


def walk(
    url: str, key: str, view: CatalogueView = VIEW, page_size: int = 3
) -> List[Any]:
    """Follow ``nextCursor`` from a URL to its last page.

    :param url: the first page's URL (with a query).
    :param key: ``tools`` or ``mechs``.
    :param view: the served catalogue.
    :param page_size: items per page.
    :return: every page's items, in order.
    :raises AssertionError: when the cursors never end.
    """
    items: List[Any] = []
    cursor = None
    for _ in range(1000):
        joiner = "&" if "?" in url else "?"
        status, body = get(
            url + (f"{joiner}cursor={cursor}" if cursor else ""), view, page_size
        )
        assert status == 200, body
        assert len(body[key]) <= page_size
        items += body[key]
        cursor = body.get("nextCursor")
        if cursor is None:
            return items
    raise AssertionError("the cursors never ended")


def names(tools: List[Dict[str, Any]]) -> List[str]:
    """Return the MCP Tools' names.

    :param tools: MCP Tools.
    :return: each one's ``_meta`` tool name (the name as published).
    """
    return [t["name"] for t in tools]


# --- searches ---------------------------------------------------------------------


def test_a_search_answers_tool_names_best_first_in_the_tools_list_shape() -> None:
    """A search ranks names, each once (its best offer), in the tools/list result shape."""
    status, body = get("/tools?q=anthropic+claude")
    assert status == 200
    assert set(names(body["tools"])) == {
        "claude-prediction-online",
        "claude-prediction-offline",
    }
    assert {"resultType", "ttlMs", "cacheScope"} <= set(body)
    everything = names(walk("/tools?q=prediction+market", "tools"))
    assert len(everything) == len(set(everything))
    assert everything[0].startswith(("prediction", "claude-prediction"))


def test_search_filters_reach_the_engine() -> None:
    """Each filter parameter narrows the names as the engine's filter does."""
    image = {_mcp(n) for n, v in TOOLS.items() if v[0] == "image"}
    assert set(names(walk("/tools?q=&kind=image", "tools"))) == image
    legacy = names(walk("/tools?registry=legacy_mech_registry", "tools"))
    assert legacy == ["prediction-offline", "resolve-market"]
    cheap = set(names(walk("/tools?max_price=4000000000000000", "tools")))
    assert cheap == {_mcp(n) for n in TOOLS} & set(_offered_by(2))
    olas = set(names(walk("/tools?payment=token_olas", "tools")))
    assert olas == set(_offered_by(3))
    by_address = set(names(walk(f"/tools?mech={MARKET[4 - 3][0].address}", "tools")))
    assert by_address == set(_offered_by(1))
    by_key = set(names(walk(f"/tools?mech={ref(4).key}", "tools")))
    assert by_key == set(_offered_by(4))
    typed = set(names(walk("/tools?typed=true", "tools")))
    assert typed == {_mcp(n) for n, v in TOOLS.items() if v[2]}
    assert set(names(walk("/tools?callable=true&delivering=true", "tools"))) == set(
        _offered_by(1) + _offered_by(3)
    )


def _mcp(name: str) -> str:
    """A tool's MCP name, as ``/tools`` gives it (no dot: adv29zu C4)."""
    return sanitise_name(name, MCP_TOOL_RULE)


def _offered_by(mech_id: int) -> List[str]:
    return [_mcp(t.name) for t in CATALOGUE.tools_of(ref(mech_id))]


def test_price_sort_puts_the_cheapest_mechs_tools_first() -> None:
    """sort=price: names of the cheapest mech (id 2) first, unpriced mechs' last."""
    ordered = names(walk("/tools?sort=price", "tools"))
    assert set(ordered[:4]) == set(_offered_by(2))
    assert set(ordered[-3:]) == set(_offered_by(4))


def test_min_karma_and_karma_sort_reach_the_engine() -> None:
    """min_karma keeps mechs whose karma reaches it; sort=karma is highest first.

    Karma: mech 1 3, mech 3 2, mech 2 0; mechs with none read come last.
    """
    assert set(names(walk("/tools?min_karma=2", "tools"))) == set(
        _offered_by(1) + _offered_by(3)
    )
    assert set(names(walk("/tools?min_karma=-1", "tools"))) == set(
        _offered_by(1) + _offered_by(2) + _offered_by(3)
    )
    assert names(walk("/tools?min_karma=4", "tools")) == []
    ordered = names(walk("/tools?sort=karma", "tools"))
    assert set(ordered[:7]) == set(_offered_by(1))
    assert set(ordered[-3:]) == set(_offered_by(4))
    parsed = parse_request("GET", "/tools?min_karma=-3&sort=karma")
    assert isinstance(parsed, Request) and parsed.search is not None
    assert (parsed.search.min_karma, parsed.search.sort) == (-3, "karma")


@pytest.mark.parametrize("page_size", [1, 2, 5, 50])
def test_search_pages_by_cursor_hold_each_name_once(page_size: int) -> None:
    """Walking a search's cursors gives exactly its one-page answer."""
    whole = names(walk("/tools?q=model", "tools", page_size=200))
    assert names(walk("/tools?q=model", "tools", page_size=page_size)) == whole


def test_a_search_page_is_bounded_in_bytes_and_its_cursor_goes_on() -> None:
    """Tools of ~100 KB each: a page is cut by bytes, its cursor resumes where it was cut."""
    long_text = "weather " + "x" * 4000
    tools = tuple(
        Tool(
            name=f"forecast-{i}",
            description="weather forecast",
            arguments=tuple(
                Argument(f"a{j}", "str", '{"type":"string"}', True, None, long_text)
                for j in range(100)
            ),
        )
        for i in range(30)
    )
    big = Catalogue.build(
        [Mech.from_manifest(ref(1), Manifest(tools=tools), digest="0x" + "01" * 32)]
    )
    view = view_of(big)
    assert view.mcp_tool_size("forecast-0") * 30 > 2 * PAGE_MAX_BYTES
    status, first = get("/tools?q=weather", view, page_size=30)
    assert status == 200 and 1 <= len(first["tools"]) < 30
    assert len(json.dumps(first["tools"])) <= PAGE_MAX_BYTES + 200_000
    walked = names(walk("/tools?q=weather", "tools", view, page_size=30))
    assert sorted(walked) == sorted(t.name for t in tools)


@pytest.mark.parametrize(
    "query, parameter",
    [
        ("q=%ZZ", "q"),
        ("q=%C3%28", "q"),
        ("q=" + "a" * 257, "q"),
        ("max_price=-1", "max_price"),
        ("max_price=1e18", "max_price"),
        ("max_price=" + "9" * 19, "max_price"),
        ("sort=popularity", "sort"),
        ("min_karma=", "min_karma"),
        ("min_karma=1.5", "min_karma"),
        ("min_karma=--1", "min_karma"),
        ("min_karma=" + "9" * 19, "min_karma"),
        ("sort=PRICE", "sort"),
        ("payment=dollars", "payment"),
        ("mech=0x1234", "mech"),
        ("mech=1:legacy:0xab:2", "mech"),
        ("registry=ethereum", "registry"),
        ("typed=yes", "typed"),
        ("callable=false", "callable"),
        ("delivering=1", "delivering"),
    ],
)
def test_an_invalid_search_parameter_is_refused_by_name(
    query: str, parameter: str
) -> None:
    """400 invalid_search_parameter, the message naming the parameter and what it takes."""
    status, body = get(f"/tools?{query}")
    assert status == 400
    assert body["error"]["code"] == "invalid_search_parameter"
    assert body["error"]["message"].startswith(parameter + " ")
    assert "takes" in body["error"]["message"]


@pytest.mark.parametrize(
    "query, code",
    [
        ("q=a&q=b", "duplicate_parameter"),
        ("q=a&limit=3", "unknown_parameter"),
        ("q=a&kind=Image", "invalid_kind"),
        ("q=a&cursor=3", "invalid_cursor"),
        ("cursor=3.0123456789abcdef", "invalid_cursor"),
        ("q=a&cursor=3.0123456789abcdef", "invalid_cursor"),
    ],
)
def test_search_requests_keep_the_strict_query_rules(query: str, code: str) -> None:
    """Repeated, unknown and malformed parameters, and cursors of the other kind, are 400."""
    status, body = get(f"/tools?{query}")
    assert (status, body["error"]["code"]) == (400, code)


def test_a_search_cursor_is_refused_once_the_catalogue_changed() -> None:
    """A cursor of one agreed catalogue is refused by the next one: start over."""
    _, body = get("/tools?q=prediction")
    cursor = body["nextCursor"]
    changed = mechs()
    changed[3] = replace(changed[3], observed_block=41)
    status, refused = get(
        f"/tools?q=prediction&cursor={cursor}", view_of(Catalogue.build(changed))
    )
    assert (status, refused["error"]["code"]) == (400, "invalid_cursor")
    assert "omit it to start over" in refused["error"]["message"]


def test_every_search_parameter_is_parsed_into_the_query() -> None:
    """Each search parameter given alone makes the request a search with that field."""
    values = {
        "q": "claude+prediction",
        "max_price": "7",
        "sort": "price",
        "payment": "native",
        "mech": ref(1).key,
        "registry": "olas_agent_registry",
        "typed": "false",
        "callable": "true",
        "delivering": "true",
        "min_karma": "-3",
        "delivered_within": "7200",
    }
    assert set(values) == set(SEARCH_PARAMETERS)
    for key, value in values.items():
        parsed = parse_request("GET", f"/tools?{key}={value}")
        assert isinstance(parsed, Request) and parsed.search is not None, key
    both = parse_request("GET", "/tools?q=claude+prediction&typed=false")
    assert isinstance(both, Request)
    query = both.search
    assert query is not None and (query.text, query.typed) == (
        "claude prediction",
        False,
    )


def test_a_search_before_the_first_agreement_is_not_ready() -> None:
    """503 no_catalogue, as every catalogue route."""
    status, body = get("/tools?q=prediction", None)
    assert (status, body["error"]["code"]) == (503, "no_catalogue")


# --- /mechs pages -------------------------------------------------------------------


@pytest.mark.parametrize("page_size", [1, 2, 4, 50])
def test_mechs_pages_hold_every_mech_once_in_ref_order(page_size: int) -> None:
    """Walking /mechs' cursors lists each mech once, in ref order."""
    listed = walk("/mechs", "mechs", page_size=page_size)
    assert [m["key"] for m in listed] == [m.ref.key for m in CATALOGUE.mechs]


def test_a_mechs_page_is_bounded_in_bytes() -> None:
    """Mechs with ~600 KB entries: one or two a page, never more than the bound allows."""
    heavy = [
        replace(m, withheld=tuple(f"{'w' * 1000}-{i}" for i in range(600)))
        for m in mechs()
    ]
    view = view_of(Catalogue.build(heavy))
    result = route("GET", "/mechs", b"", view, 0.0, 50, 60.0)
    assert result.status_code == 200
    assert len(result.body) <= PAGE_MAX_BYTES + 700_000
    body = json.loads(result.body)
    assert 1 <= len(body["mechs"]) < len(heavy) and "nextCursor" in body
    assert len(walk("/mechs", "mechs", view, page_size=50)) == len(heavy)


@pytest.mark.parametrize("cursor", ["5", "999999999", "x", "-1", "1.0123456789abcdef"])
def test_a_mechs_cursor_past_the_end_or_malformed_is_refused(cursor: str) -> None:
    """400 invalid_cursor, saying to start over."""
    status, body = get(f"/mechs?cursor={cursor}")
    assert (status, body["error"]["code"]) == (400, "invalid_cursor")


# --- /mechs searches ------------------------------------------------------------------


def _first_mechs(query: str) -> List[str]:
    """The mechs in the order the offers of a search name them first.

    :param query: the search parameters.
    :return: mech keys.
    """
    index = VIEW.search_index()
    hits: List[Any] = []
    cursor = None
    while True:
        parsed = parse_request("GET", f"/offers?{query}")
        assert isinstance(parsed, Request) and parsed.search is not None
        page = index.search(parsed.search, cursor)
        hits += page.hits
        cursor = page.next_cursor
        if cursor is None:
            return list(dict.fromkeys(hit.mech.ref.key for hit in hits))


@pytest.mark.parametrize(
    "query",
    [
        "kind=image",
        "q=prediction",
        "q=prediction&sort=price",
        "payment=token_olas",
        "q=market+question&sort=karma",
        "callable=true&max_price=5000000000000000",
    ],
)
@pytest.mark.parametrize("page_size", [1, 2, 50])
def test_mechs_take_the_tools_filters_in_the_offers_order(
    query: str, page_size: int
) -> None:
    """Each mech offering a match once, in its best offer's order, pages by cursor."""
    listed = walk(f"/mechs?{query}", "mechs", page_size=page_size)
    assert [m["key"] for m in listed] == _first_mechs(query)
    status, body = get(f"/mechs?{query}", page_size=page_size)
    assert status == 200 and body["total"] == len(listed) >= 1


def test_a_mechs_search_names_only_the_matching_mechs() -> None:
    """payment=token_olas: mech 3 alone; kind=image: the mechs offering image tools."""
    assert [m["key"] for m in walk("/mechs?payment=token_olas", "mechs")] == [
        ref(3).key
    ]
    image = {
        m.ref.key for m in CATALOGUE.mechs if any(t.kind == "image" for t in m.tools)
    }
    assert {m["key"] for m in walk("/mechs?kind=image", "mechs")} == image
    status, body = get("/mechs?q=zzyzx+quux")
    assert (status, body["mechs"], body["total"]) == (200, [], 0)
    assert "nextCursor" not in body


@pytest.mark.parametrize(
    "query, code",
    [
        ("sort=popularity", "invalid_search_parameter"),
        ("max_price=lots", "invalid_search_parameter"),
        ("kind=Not+A+Kind", "invalid_kind"),
        ("q=prediction&cursor=1.0123456789abcdef", "invalid_cursor"),
        ("q=prediction&colour=red", "unknown_parameter"),
    ],
)
def test_a_bad_mechs_search_is_refused_by_name(query: str, code: str) -> None:
    """400 naming the parameter; nothing is searched."""
    status, body = get(f"/mechs?{query}")
    assert (status, body["error"]["code"]) == (400, code), body


def test_a_tools_cursor_is_refused_on_mechs_and_back() -> None:
    """A cursor is bound to what it pages: /tools' to tools, /mechs' to mechs."""
    _, tools = get("/tools?q=prediction", page_size=1)
    status, body = get(f"/mechs?q=prediction&cursor={tools['nextCursor']}", page_size=1)
    assert (status, body["error"]["code"]) == (400, "invalid_cursor")
    _, found = get("/mechs?q=prediction", page_size=1)
    status, body = get(f"/tools?q=prediction&cursor={found['nextCursor']}", page_size=1)
    assert (status, body["error"]["code"]) == (400, "invalid_cursor")


def test_a_mechs_search_before_the_first_agreement_is_not_ready() -> None:
    """503 no_catalogue."""
    status, body = get("/mechs?kind=image", None)
    assert (status, body["error"]["code"]) == (503, "no_catalogue")


def test_delivered_within_and_recent_reach_the_engine() -> None:
    """delivered_within keeps mechs that delivered in the window; recent sorts by it."""
    last = {1: 45, 3: 20}  # facts read at block 50 (the corpus)
    view = view_of(
        Catalogue.build(
            replace(
                m,
                marketplace=tuple(
                    replace(f, last_delivery_block=last.get(m.ref.mech_id))
                    for f in m.marketplace
                ),
            )
            for m in mechs()
        )
    )
    window = walk("/mechs?delivered_within=10", "mechs", view)
    assert [m["key"] for m in window] == [ref(1).key]
    assert [m["key"] for m in walk("/mechs?sort=recent", "mechs", view)][:2] == [
        ref(1).key,
        ref(3).key,
    ]
    status, body = get("/offers?sort=recent&delivered_within=30", view, page_size=50)
    assert status == 200 and {o["last_delivery_block"] for o in body["offers"]} == {
        "45",
        "20",
    }
    assert "recent" in body["choices"]["sort"]
    status, body = get("/tools/prediction-online", view, page_size=50)
    shown = {
        o["mech"]["mech_id"]: [f["last_delivery_block"] for f in o["marketplace"]]
        for o in body["offers"]
    }
    assert status == 200 and shown[1] == ["45"] and shown[3] == ["20"]
    assert shown[2] == [None]  # a contract with no delivery known says so: null
    for bad in ("-1", "soon", "1" * 19):
        status, body = get(f"/tools?delivered_within={bad}", view)
        assert (status, body["error"]["code"]) == (400, "invalid_search_parameter")
        assert "delivered_within" in body["error"]["message"]
