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


"""The routes the catalogue page adds: its files, ``GET /offers`` and ``GET /mechs/<key>``.

Through the real router over the search corpus; the browser test of the page itself is
``tests/test_catalogue_page_browser.py``.
"""

import json
import re
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import quote

import pytest
from mech_catalogue_core.catalogue.exposure import ExposedCatalogue
from mech_catalogue_core.http_api import page_files as pages
from mech_catalogue_core.http_api.offers import SUMMARY_CHARS
from mech_catalogue_core.http_api.routes import CatalogueView, HttpResult, route
from mech_catalogue_core.model.catalogue import Catalogue, Manifest, Mech
from mech_catalogue_core.model.tool import Tool
from mech_catalogue_core.model.vocabulary import MechLiveness
from mech_catalogue_core.tests.search.corpus import corpus, mechs, ref

CATALOGUE = corpus()
VIEW = CatalogueView.build(
    ExposedCatalogue(CATALOGUE, CATALOGUE.digest(), "", 40, 0.0, 1)
)


def answer(url: str, view: Optional[CatalogueView] = VIEW, size: int = 4) -> HttpResult:
    """Answer a GET through the router.

    :param url: the request target.
    :param view: the served catalogue (None: none agreed yet).
    :param size: items per page.
    :return: the response.
    """
    return route("GET", url, b"", view, 0.0, size, 60.0)


def get(url: str, size: int = 4) -> Tuple[int, Dict[str, Any]]:
    """Answer a GET with a JSON body.

    :param url: the request target.
    :param size: items per page.
    :return: (status, decoded body).
    """
    result = answer(url, size=size)
    return result.status_code, json.loads(result.body)


def headers(result: HttpResult) -> Dict[str, str]:
    """Read a response's header lines.

    :param result: the response.
    :return: lowercase name -> value.
    """
    lines = (line.partition(":") for line in result.headers.splitlines())
    return {name.strip().lower(): value.strip() for name, _, value in lines}


def test_the_page_is_served_with_a_strict_policy_before_any_catalogue() -> None:
    """/catalogue/ is index.html, no inline script allowed, nosniff, even with no catalogue."""
    result = answer("/catalogue/", view=None)
    assert result.status_code == 200
    found = headers(result)
    assert found["content-type"] == "text/html; charset=utf-8"
    assert found["x-content-type-options"] == "nosniff"
    policy = found["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert "frame-ancestors 'none'" in policy
    assert b'<script type="module" src="app.js"></script>' in result.body


def test_every_file_the_page_names_is_served_with_its_type() -> None:
    """Each stylesheet, script and module import of the page is a served file, typed."""
    index = answer("/catalogue/").body.decode()
    named = set(re.findall(r'(?:href|src)="([a-z_]+\.(?:css|js))"', index))
    for name in pages.page_files():
        if name.endswith(".js"):
            text = answer(f"/catalogue/{name}").body.decode()
            named |= set(re.findall(r'from "\./([a-z_]+\.js)"', text))
    assert {"app.js", "catalogue.css", "dom.js", "schema_form.js"} <= named
    for name in named:
        result = answer(f"/catalogue/{name}")
        assert result.status_code == 200, name
        wanted = "text/javascript" if name.endswith(".js") else "text/css"
        assert headers(result)["content-type"].startswith(wanted), name
        assert "content-security-policy" in headers(result)


def test_no_page_script_writes_html() -> None:
    """No page module parses text as HTML or code: texts go through textContent only."""
    sinks = re.compile(
        r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|"
        r"setAttribute\(\s*[\"']on|createContextualFragment|DOMParser"
    )
    for name, (_, data) in pages.page_files().items():
        if name.endswith(".js"):
            assert not sinks.search(data.decode()), name
    index = pages.page_files()["index.html"][1].decode()
    assert "<script>" not in index
    assert not re.search(r"\son[a-z]+\s*=", index, re.IGNORECASE)


@pytest.mark.parametrize(
    "target",
    [
        "/catalogue/../routes.py",
        "/catalogue/%2e%2e/routes.py",
        "/catalogue/..%2Froutes.py",
        "/catalogue/page_files.py",
        "/catalogue/routes.js",
        "/catalogue/.app.js",
        "/catalogue/page/app.js",
        "/catalogue/APP.JS",
        "/catalogue/app.js/",
        "/catalogue/app.js%00.html",
        "/catalogue//app.js",
        "/catalogues",
        "//",
        "/catalogue/app",
    ],
)
def test_no_path_reaches_another_file(target: str) -> None:
    """Traversal, encoded names, folders and unknown files are all 404 unknown_path."""
    result = answer(target)
    assert result.status_code == 404, target
    assert json.loads(result.body)["error"]["code"] == "unknown_path"


@pytest.mark.parametrize("target", ["/", "/catalogue", "http://127.0.0.1:8000"])
def test_the_root_and_the_page_without_its_slash_lead_to_the_page(target: str) -> None:
    """What a person types (issue 33) is 302 to /catalogue/ on this server, catalogue or not."""
    for view in (VIEW, None):
        result = answer(target, view=view)
        assert result.status_code == 302, target
        assert headers(result)["location"] == "/catalogue/"
        assert json.loads(result.body) == {"location": "/catalogue/"}


def test_the_page_s_aliases_are_parsed_as_strictly_as_the_page() -> None:
    """A query, a body or another method on / is refused as on every route, never redirected."""
    status, body = get("/?next=//evil.example")
    assert status == 400 and body["error"]["code"] == "unknown_parameter"
    posted = route("POST", "/catalogue", b"", VIEW, 0.0, 4, 60.0)
    assert posted.status_code == 405 and "location" not in headers(posted)
    with_body = route("GET", "/", b"x", VIEW, 0.0, 4, 60.0)
    assert with_body.status_code == 400


def test_the_page_files_are_read_once_and_bounded() -> None:
    """Only the page's own files, each under the cap, are kept; a second read is the same map."""
    files = pages.page_files()
    assert files is pages.page_files()
    assert set(files) >= {"index.html", "app.js", "catalogue.css"}
    assert all(len(data) <= pages.MAX_PAGE_FILE_BYTES for _, data in files.values())
    assert sum(len(data) for _, data in files.values()) <= pages.MAX_PAGE_BYTES


def test_a_page_query_is_refused() -> None:
    """The page's files take no query parameters (strict parsing, as every route)."""
    status, body = get("/catalogue/app.js?x=1")
    assert status == 400 and body["error"]["code"] == "unknown_parameter"


def test_offers_carry_the_chain_facts_of_the_priced_contract() -> None:
    """Each offer: price, payment way, karma and liveness of the contract that set its price."""
    status, body = get("/offers?q=draw+an+illustration", size=3)
    assert status == 200
    first = body["offers"][0]
    assert (first["tool"], first["mech"]) == ("dall-e-3", ref(2).key)
    assert first["price"] == "4000000000000000" and first["payments"] == ["native"]
    contract = first["contract"]
    assert contract["address"] == "0x" + "02" * 20
    assert contract["payment"]["price_units"] == "0.004 native"
    assert contract["karma"] == "0"
    assert contract["liveness"] == MechLiveness.NEVER_DELIVERED
    assert body["choices"]["sort"] == ["relevance", "price", "karma", "recent"]
    assert "native" in body["choices"]["payment"]


def test_an_offer_without_marketplace_facts_says_so() -> None:
    """The legacy mech's offers have no price, no contract, and are not callable."""
    status, body = get(f"/offers?mech={quote(ref(5).key, safe='')}", size=10)
    assert status == 200 and body["total"] == 2
    for offer in body["offers"]:
        assert offer["price"] is None and offer["contract"] is None
        assert offer["callable"] is False and offer["payments"] == []


def _walk_offers(url: str, size: int) -> List[Tuple[str, str]]:
    seen: List[Tuple[str, str]] = []
    while True:
        status, body = get(url, size=size)
        assert status == 200, body
        seen += [(o["tool"], o["mech"]) for o in body["offers"]]
        if "nextCursor" not in body:
            return seen
        url = url.split("&cursor=")[0] + "&cursor=" + body["nextCursor"]


def test_offer_pages_follow_cursors_to_every_match_once() -> None:
    """Paging /offers by its cursor lists every offer of the query once, in order."""
    every = _walk_offers("/offers?kind=prediction", size=3)
    status, whole = get("/offers?kind=prediction", size=200)
    assert status == 200
    assert every == [(o["tool"], o["mech"]) for o in whole["offers"]]
    assert len(every) == whole["total"] == len(set(every))


def test_offers_filter_and_refuse_as_tools_searches_do() -> None:
    """Filters narrow; a bad value or a foreign cursor is the search's 400."""
    status, body = get("/offers?payment=token_olas", size=50)
    assert status == 200 and {o["mech"] for o in body["offers"]} == {ref(3).key}
    status, body = get("/offers?max_price=abc")
    assert status == 400 and body["error"]["code"] == "invalid_search_parameter"
    status, body = get("/offers?q=image&cursor=3.0123456789abcdef")
    assert status == 400 and body["error"]["code"] == "invalid_cursor"
    assert answer("/offers", view=None).status_code == 503


def test_an_offer_description_is_cleaned_and_cut() -> None:
    """A long description with hidden text is cleaned and cut to the summary's length."""
    long_tool = Tool(
        name="long-text", kind="chat", description="visible\u200b " + "word " * 2000
    )
    mech = Mech.from_manifest(
        ref(6), Manifest(tools=(long_tool,)), digest="0x" + "06" * 32
    )
    catalogue = Catalogue.build([*mechs(), mech])
    view = CatalogueView.build(
        ExposedCatalogue(catalogue, catalogue.digest(), "", 40, 0.0, 1)
    )
    body = json.loads(answer("/offers?q=long", view=view).body)
    description = body["offers"][0]["description"]
    assert len(description) <= SUMMARY_CHARS and "\u200b" not in description


def test_one_mech_by_key_is_its_mechs_entry() -> None:
    """/mechs/<key> answers exactly the mech's /mechs entry; unknown keys are 404."""
    _, listed = get("/mechs", size=50)
    for entry in listed["mechs"]:
        status, body = get("/mechs/" + quote(entry["key"], safe=""))
        assert status == 200 and body == entry
    status, body = get("/mechs/" + quote(ref(9).key, safe=""))
    assert status == 404 and body["error"]["code"] == "unknown_mech"
    status, body = get("/mechs/%zz")
    assert status == 400 and body["error"]["code"] == "invalid_path"
    assert answer("/mechs/x", view=None).status_code == 503


def test_mech_contracts_say_their_liveness() -> None:
    """Every contract in /mechs and /tools/<name> carries its liveness (from its counters)."""
    _, body = get("/mechs/" + quote(ref(1).key, safe=""))
    assert body["marketplace"][0]["liveness"] == MechLiveness.DELIVERING
    _, tool = get("/tools/dall-e-3")
    assert tool["offers"][0]["marketplace"][0]["liveness"] == "never_delivered"
