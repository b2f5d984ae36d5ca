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


"""The catalogue web page in a real headless browser (Debian's chromium, selenium).

Against ``mech-catalogue serve`` (a real process, uvicorn, the library's routes) over a
catalogue built here: the search corpus's realistic tools, a typed mech (the manifest
specification's swap example), a mech of filler tools (so results have pages), and a
hostile mech whose manifest was parsed from bytes like any fetched one: its tool names,
descriptions, enum values, titles, examples and the problems they cause try ``<script>``,
``<img onerror>``, ``javascript:`` URLs, ``</title>`` and quote-breaking attributes.
Nothing is mocked. The agent's own page (same route code) is loaded in
``tests/e2e/test_one_agent.py``.

Every payload sets ``window.__pwned`` (or calls ``alert``) if it ever runs: the tests
assert it stays unset, no dialog opens, no element the page does not build appears, no
Content-Security-Policy violation is logged, and each text is shown as the API serves it
(the references it writes for markup read as their characters: ``html.unescape``).
"""

import html
import io
import json
import socket
import subprocess  # nosec B404: the CLI under test, started with a fixed command line
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, Iterator
from urllib.parse import quote

import pytest
from mech_catalogue_core.manifest.parsing import parse_manifest
from mech_catalogue_core.model.catalogue import Catalogue, Manifest, Mech
from mech_catalogue_core.model.market import MECH_KIND_LEGACY, MechFacts
from mech_catalogue_core.model.tool import Tool
from mech_catalogue_core.tests.search.corpus import mechs, ref
from rich.console import Console

from mech_catalogue_cli.commands.list_render import render_market
from scripts.devnet.processes import free_port, wait_until
from tests.browser import Page, chromium, missing_browser

pytestmark = pytest.mark.skipif(
    missing_browser() is not None, reason=str(missing_browser())
)

ROOT = Path(__file__).resolve().parent.parent
#: offers per page of the served API (small, so the corpus has several pages)
PAGE_SIZE = 5
#: what any payload sets when it runs
MARK = "window.__pwned"
SCRIPT = "<script>window.__pwned='script'</script>"
IMAGE = "<img src=x onerror=\"window.__pwned='img'\">"
QUOTES = "\"'><svg onload=\"window.__pwned='svg'\">"
TITLE = "</title><script>alert('title')</script>"
JS_URL = "javascript:window.__pwned='href'"
HOSTILE_NAMES = (f"{JS_URL}", f"{IMAGE}tool", f"x{TITLE}")
#: the names served: one holding markup is refused at parse (``invalid_tool_name``,
#: fix29yc), shown among the mech's problems as text
SERVED_NAMES = (JS_URL,)
HOSTILE_MANIFEST: Dict[str, Any] = {
    "specVersion": "1",
    "name": f"{SCRIPT} mech",
    "description": f"{TITLE} {QUOTES}",
    "tools": [*HOSTILE_NAMES, f"{JS_URL}withheld"],
    "toolMetadata": {
        HOSTILE_NAMES[0]: {
            "name": HOSTILE_NAMES[0],
            "kind": "chat",
            "description": f"Plain words {SCRIPT} then {QUOTES} and {JS_URL}",
            "arguments": [
                {
                    "identifier": "side",
                    "type": "enum",
                    "enum": [SCRIPT, JS_URL, QUOTES, "plain"],
                    "description": f"{IMAGE} choose {TITLE}",
                },
                {
                    "identifier": "count",
                    "type": "int",
                    "schema": {
                        "type": "integer",
                        "title": f"{QUOTES}title",
                        "examples": [JS_URL, SCRIPT],
                    },
                },
            ],
            "examples": [{"side": SCRIPT}],
        },
        HOSTILE_NAMES[1]: {"description": QUOTES, "kind": "chat"},
        HOSTILE_NAMES[2]: {"description": JS_URL, "kind": "chat"},
        f"{JS_URL}withheld": {
            "arguments": [
                {"identifier": "a", "type": "int"},
                {"identifier": "a", "type": "str", "description": SCRIPT},
            ]
        },
    },
}
#: markup characters a description uses as words (the last line a table's delimiter row
#: to Markdown, under a line with a pipe: the API writes its hyphen as ``&#45;``)
ROUTE_DESCRIPTION = "Hops as list[bytes32]; <none> | `direct` ~ 1 & 2 in [order]\n:--"
#: the specification's typed example (docs/manifest-spec.md, section 7) and a flag
TYPED_MANIFEST: Dict[str, Any] = {
    "specVersion": "1",
    "name": "Example Swap Mech",
    "tools": ["build-swap"],
    "toolMetadata": {
        "build-swap": {
            "name": "build-swap",
            "kind": "chat",
            "description": "Builds an unsigned swap transaction.",
            "arguments": [
                {"identifier": "sell_token", "type": "hexAddress"},
                {"identifier": "amount", "type": "uint256"},
                {
                    "identifier": "route",
                    "type": "list[bytes32]",
                    "required": False,
                    "description": ROUTE_DESCRIPTION,
                },
                {
                    "identifier": "side",
                    "type": "enum",
                    "enum": ["exact_in", "exact_out"],
                    "default": "exact_in",
                },
                {
                    "identifier": "slippage_bps",
                    "type": "int",
                    "default": 50,
                    "schema": {"type": "integer", "minimum": 0, "maximum": 10000},
                },
                {"identifier": "simulate", "type": "bool", "required": False},
                {"identifier": "dry", "type": "bool"},
            ],
        }
    },
}
#: the corpus's legacy mech (agent 5 of the legacy registry) as the legacy factory made it
LEGACY_REF = ref(5)
LEGACY_FACTS = MechFacts(
    address="0x" + "05" * 20, kind=MECH_KIND_LEGACY, max_delivery_rate=10**16, block=50
)
HOSTILE_REF = ref(7)
TYPED_REF = ref(8)
FILLER_REF = ref(9)


def _delivered_at(mech: Mech, block: int) -> Mech:
    """The mech with its contracts' latest delivery known at ``block``.

    :param mech: a mech of the corpus.
    :param block: the block of its latest delivery.
    :return: the mech.
    """
    return replace(
        mech,
        marketplace=tuple(
            replace(f, last_delivery_block=block) for f in mech.marketplace
        ),
    )


def can_connect(port: int) -> bool:
    """Say whether a server accepts connections on a loopback port.

    :param port: the port.
    :return: True when a connection was accepted.
    """
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def parsed_mech(document: Dict[str, Any], mech_id: int) -> Mech:
    """Parse a manifest from its bytes, as a fetched one is, into a catalogue entry.

    :param document: the manifest.
    :param mech_id: the service id of its mech.
    :return: the mech, with the parse's problems and withheld tools.
    """
    result = parse_manifest(json.dumps(document).encode())
    return Mech.from_manifest(
        ref(mech_id), result.manifest, result.problems, digest="0x" + "77" * 32
    )


@pytest.fixture(name="page", scope="module")
def page_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    """Serve the catalogue with ``mech-catalogue serve`` and open its page in chromium.

    :param tmp_path_factory: pytest's folders.
    :yield: the page.
    """
    folder = tmp_path_factory.mktemp("page")
    filler = Mech.from_manifest(
        FILLER_REF,
        Manifest(
            tools=tuple(
                Tool(name=f"filler-{n:02d}", kind="filler", description="filler")
                for n in range(12)
            )
        ),
        digest="0x" + "99" * 32,
    )
    catalogue = Catalogue.build(
        [
            *(
                (
                    replace(m, marketplace=(LEGACY_FACTS,))
                    if m.ref == LEGACY_REF
                    else _delivered_at(m, 48) if m.ref.mech_id == 1 else m
                )
                for m in mechs()
            ),
            parsed_mech(HOSTILE_MANIFEST, 7),
            parsed_mech(TYPED_MANIFEST, 8),
            filler,
        ]
    )
    source = folder / "catalogue.json"
    source.write_text(catalogue.to_json(), encoding="utf-8")
    port = free_port("127.0.0.1")
    command = [
        sys.executable,
        "-m",
        "mech_catalogue_cli",
        "serve",
        "--from",
        str(source),
    ]
    command += ["--port", str(port), "--page-size", str(PAGE_SIZE)]
    log_path = folder / "serve.log"
    with (
        open(log_path, "wb") as log,
        subprocess.Popen(  # nosec B603
            command, cwd=ROOT, stdout=log, stderr=log
        ) as server,
    ):
        try:
            wait_until(
                lambda: can_connect(port),
                60,
                "mech-catalogue serve",
                server.pid,
                log_path,
            )
            with chromium() as driver:
                page = Page(driver, f"http://127.0.0.1:{port}/catalogue/")
                page.open()
                yield page
        finally:
            server.terminate()
            server.wait(timeout=10)


def assert_inert(page: Page) -> None:
    """Assert no payload ran and nothing but the page's own elements exists.

    :param page: the page, a view rendered.
    """
    # pylint: disable=import-outside-toplevel
    from selenium.common.exceptions import NoAlertPresentException

    driver = page.driver
    assert driver.execute_script(f"return typeof {MARK}") == "undefined"
    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.accept()  # raises: no dialog is open
    assert driver.title == "Mech catalogue"
    foreign = "img, svg, iframe, object, embed, video, audio, base, frame, math"
    assert page.css(foreign) == []
    assert len(page.css("script")) == 1  # the page's own module
    handlers = driver.execute_script(
        "return [...document.querySelectorAll('*')].flatMap(e => [...e.attributes]"
        ".filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name))"
    )
    assert handlers == []
    hrefs = driver.execute_script(
        "return [...document.querySelectorAll('[href]')].map(e => e.getAttribute('href'))"
    )
    assert all(h.startswith("#/") or h == "catalogue.css" for h in hrefs), hrefs
    # network entries are the API's 4xx answers the page shows, and the favicon it has not
    problems = [
        entry["message"]
        for entry in page.log()
        if "Content Security Policy" in entry["message"]
        or (entry["level"] == "SEVERE" and entry.get("source") != "network")
    ]
    assert problems == []


def submit_search(page: Page, **fields: str) -> None:
    """Fill the search form and submit it, as a person would.

    :param page: the page, the search rendered.
    :param fields: form field name -> value (a select's option value, or "on" for a
        checkbox to tick).
    """
    # pylint: disable=import-outside-toplevel
    from selenium.webdriver.support.ui import Select

    for name, value in fields.items():
        (field,) = page.css(f"#search-form [name='{name}']")
        if field.tag_name == "select":
            Select(field).select_by_value(value)
        elif field.get_attribute("type") == "checkbox":
            if not field.is_selected():
                field.click()
        else:
            field.clear()
            field.send_keys(value)
    before = page.current()
    page.css("#search-form button[type='submit']")[0].click()
    page.wait_rendered(previous=before)


def test_the_page_loads_with_the_catalogue_status_and_pages(page: Page) -> None:
    """The first view: status from /healthcheck, one page of offers, the next by cursor."""
    page.open()
    status = page.texts("#status")[0]
    assert "tools from 8 mechs" in status and "fresh" in status
    first = page.offer_rows()
    assert len(first) == PAGE_SIZE
    page.click(page.css("#next-page")[0])
    assert "cursor=" in page.current()
    second = page.offer_rows()
    assert len(second) == PAGE_SIZE and not {r["tool"] for r in first} & {
        r["tool"] for r in second
    }
    total = page.fetch_json("/offers")["total"]
    assert page.texts("#result-count")[0].startswith(f"{total} matching offers")
    assert_inert(page)


def test_a_search_ranks_by_words_from_the_search_box(page: Page) -> None:
    """Typing words and submitting ranks the best match first and keeps the query in the URL."""
    page.open()
    submit_search(page, q="draw an illustration")
    assert "q=draw" in page.current()
    assert page.offer_rows()[0]["tool"] == "dall-e-3"
    assert_inert(page)


def test_the_sort_menu_names_each_order_once(page: Page) -> None:
    """The sort menu offers each order once, relevance chosen (no "any" row named alike)."""
    page.open()
    assert page.texts("select[name=sort] option") == [
        "relevance",
        "price",
        "karma",
        "recent",
    ]
    (chosen,) = [o for o in page.css("select[name=sort] option") if o.is_selected()]
    assert chosen.get_attribute("value") == "relevance"


def test_the_delivery_window_and_recent_order_reach_the_search(page: Page) -> None:
    """The form's delivery window and the recent order go into the URL and the answer."""
    page.open()
    submit_search(page, delivered_within="7200", sort="recent")
    assert "delivered_within=7200" in page.current() and "sort=recent" in page.current()
    total = page.fetch_json("/offers?delivered_within=7200&sort=recent")["total"]
    assert page.texts("#result-count")[0].startswith(f"{total} matching offers")
    assert_inert(page)


def test_filters_narrow_the_results(page: Page) -> None:
    """Kind, payment, max price and sort from the form narrow and order the offers."""
    page.open()
    submit_search(page, kind="image", sort="price")
    rows = page.offer_rows()
    assert rows and {r["kind"] for r in rows} == {"image"}
    assert rows[0]["tool"] == "dall-e-3"  # 0.004 native, the cheapest image tool
    page.open()
    submit_search(page, payment="token_olas")
    assert {r["mech"] for r in page.offer_rows()} == {ref(3).key}
    page.open()
    submit_search(page, max_price=str(5 * 10**15), callable="on")
    rows = page.offer_rows()
    assert rows and {r["mech"] for r in rows} == {ref(2).key}
    assert all(r["price"] == "0.004 native" for r in rows)
    assert_inert(page)


def test_a_tool_page_renders_its_schema_as_a_form(page: Page) -> None:
    """Opening a tool from the results shows one field per argument, typed as the schema says."""
    page.open("/search?q=swap")
    (link,) = [a for a in page.css("#results a.tool-link") if a.text == "build-swap"]
    page.click(link)
    assert page.current() == "/tool/build-swap"
    schema = page.fetch_json("/tools/build-swap")["mcp"]["inputSchema"]
    kinds = page.driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('[data-argument]')]"
        ".map(e => [e.getAttribute('data-argument'), e.getAttribute('data-kind')]))"
    )
    assert set(kinds) == set(schema["properties"])
    assert kinds == {
        "sell_token": "string",
        "amount": "string",
        "route": "json",
        "side": "enum",
        "slippage_bps": "integer",
        "simulate": "boolean",
        "dry": "boolean",
    }
    # optional (it has a default): "(not given)" first, the default chosen
    assert page.texts("[data-argument='side'] option") == [
        "(not given)",
        "exact_in",
        "exact_out",
    ]
    assert json.loads(page.texts("#arguments-json")[0]) == {
        "side": "exact_in",
        "slippage_bps": 50,
        "dry": False,
    }
    slippage = page.css("[data-argument='slippage_bps']")[0]
    assert slippage.get_attribute("type") == "number"
    assert slippage.get_attribute("max") == "10000"
    assert page.css("[data-argument='dry']")[0].get_attribute("type") == "checkbox"
    assert "sell_token is required" in page.texts("#arguments-problems")[0]
    _fill_swap(page)
    assert json.loads(page.texts("#arguments-json")[0]) == {
        "sell_token": "0x" + "11" * 20,
        "amount": "1000",
        "route": ["0x" + "22" * 32],
        "side": "exact_out",
        "slippage_bps": 75,
        "simulate": False,
        "dry": True,
    }
    assert page.texts("#arguments-problems") == [""]
    offers = page.texts("#offers tbody tr")
    assert len(offers) == 1 and "no marketplace contract" in offers[0]
    assert_inert(page)


def _fill_swap(page: Page) -> None:
    # pylint: disable=import-outside-toplevel
    from selenium.webdriver.support.ui import Select

    page.css("[data-argument='sell_token']")[0].send_keys("0x" + "11" * 20)
    page.css("[data-argument='amount']")[0].send_keys("1000")
    page.css("[data-argument='route']")[0].send_keys(json.dumps(["0x" + "22" * 32]))
    Select(page.css("[data-argument='side']")[0]).select_by_visible_text("exact_out")
    slippage = page.css("[data-argument='slippage_bps']")[0]
    slippage.clear()
    slippage.send_keys("75")
    Select(page.css("[data-argument='simulate']")[0]).select_by_value("false")
    page.css("[data-argument='dry']")[0].click()


def test_markup_characters_in_a_description_read_as_written(page: Page) -> None:
    """The API writes ``[`` and ``<`` of manifest text as references; the page shows them.

    A text node renders no markup, so ``list&#91;bytes32]`` there would only garble the
    words: the page turns the API's references back into their characters.

    :param page: the page, opened on the catalogue.
    """
    page.open("/tool/build-swap")
    served = page.fetch_json("/tools/build-swap")["mcp"]["inputSchema"]["properties"]
    assert "&#91;" in served["route"]["description"]  # the API's inert form
    assert "&#45;" in served["route"]["description"]
    assert page.texts(".argument .description") == [ROUTE_DESCRIPTION]
    assert_inert(page)


def test_a_tool_page_lists_each_offer_with_its_facts(page: Page) -> None:
    """A tool several mechs offer: one row a contract, price with asset, karma, liveness."""
    page.open("/tool/prediction-online")
    rows = page.driver.execute_script(
        "return [...document.querySelectorAll('#offers tbody tr')]"
        ".map(r => [...r.cells].map(c => c.textContent))"
    )
    assert len(rows) == 3
    by_price = {row[2]: row for row in rows}
    assert by_price["0.01 native"][4] == "3"
    assert by_price["0.01 native"][5] == "delivering (3 of 3 delivered)"
    assert by_price["0.01 native"][6] == "block 48"  # the agreed latest delivery
    assert by_price["0.004 native"][6] == "—"  # none known
    assert by_price["5 OLAS"][3].startswith("token_olas")
    assert by_price["0.004 native"][5].startswith("never delivered")
    page.click(page.css("#offers a.mech-link")[0])
    assert page.current().startswith("/mech/")
    assert_inert(page)


def test_a_legacy_mech_s_payment_reads_as_list_prints_it(page: Page) -> None:
    """Issue 33: the page said "unknown" where ``list`` said "legacy (native)"; one term now."""
    page.open("/mech/" + quote(LEGACY_REF.key, safe=""))
    cells = page.driver.execute_script(
        "return [...document.querySelectorAll('td.payment')].map(c => c.textContent)"
    )
    out = io.StringIO()
    render_market([LEGACY_FACTS], Catalogue.build([]), Console(file=out, width=200))
    assert "legacy (native)" in out.getvalue()
    assert len(cells) == 1 and cells[0].startswith("legacy (native)"), cells
    assert "unknown" not in cells[0]
    assert_inert(page)


def test_a_legacy_mech_s_price_reads_in_native_units(page: Page) -> None:
    """A new user's trial: a legacy mech's price read "10000000000000000 (smallest unit)".

    A legacy AgentMech's ``price()`` is wei of the native token, so it reads as
    marketplace native prices do (``http_api.offers.legacy_price_units``).

    :param page: the page, opened on the catalogue.
    """
    page.open("/mech/" + quote(LEGACY_REF.key, safe=""))
    cells = page.driver.execute_script(
        "return [...document.querySelectorAll('#contracts td.price')]"
        ".map(c => c.textContent)"
    )
    assert LEGACY_FACTS.max_delivery_rate == 10**16 and cells == ["0.01 native"]
    assert_inert(page)


def test_the_mech_page_shows_problems_and_withheld_tools(page: Page) -> None:
    """The hostile mech's page: its problems and withheld tool exactly as the API gives them."""
    key = HOSTILE_REF.key
    page.open("/mech/" + quote(key, safe=""))
    entry = page.fetch_json("/mechs/" + quote(key, safe=""))
    assert entry["withheld"] and entry["problems"]
    assert page.texts("#mech-key") == [key]
    assert page.texts("#withheld li") == entry["withheld"]
    # messages quote manifest text made inert; the page shows it as written
    assert page.texts("#problems .problem-message") == [
        html.unescape(p["message"]) for p in entry["problems"]
    ]
    assert page.texts("#mech-tools li") == entry["tools"]
    assert_inert(page)


def test_hostile_strings_are_shown_as_text_and_never_run(page: Page) -> None:
    """Every hostile name, description, enum value, title and example stays literal text."""
    page.open("/search?mech=" + quote(HOSTILE_REF.key, safe=""))
    shown = [r["tool"] for r in page.offer_rows()]
    assert sorted(shown) == sorted(SERVED_NAMES)
    assert_inert(page)
    for name in SERVED_NAMES:
        links = [
            a
            for a in page.css("#results a.tool-link")
            if a.get_attribute("textContent") == name
        ]
        page.click(links[0])
        served = page.fetch_json("/tools/" + quote(name, safe=""))
        assert page.texts("#tool-name") == [name]
        assert page.texts("#tool-description") == [
            html.unescape(served["mcp"].get("description", ""))
        ]
        assert_inert(page)
        before = page.current()
        page.driver.back()
        page.wait_rendered(previous=before)
    served = page.fetch_json("/tools/" + quote(HOSTILE_NAMES[0], safe=""))
    page.open("/tool/" + quote(HOSTILE_NAMES[0], safe=""))
    schema = served["mcp"]["inputSchema"]["properties"]
    assert page.texts("[data-argument='side'] option") == schema["side"]["enum"]
    assert page.texts(".argument .description")[0] == html.unescape(
        schema["side"]["description"]
    )
    assert page.texts(".argument .title") == [html.unescape(schema["count"]["title"])]
    assert page.texts(".argument .examples code") == [
        ", ".join(schema["count"]["examples"])
    ]
    assert JS_URL in page.texts(".argument .examples code")[0]
    assert_inert(page)


def test_a_hostile_link_shows_the_api_error_as_text(page: Page) -> None:
    """A crafted link's filter value comes back in the API's error message, shown as text."""
    page.open("/search?mech=" + quote(SCRIPT, safe=""))
    (message,) = page.texts("p.error")
    assert "mech" in message and "script" in message
    page.open("/tool/" + quote(IMAGE, safe=""))
    assert "no mech in the catalogue offers a tool named" in page.texts("p.error")[0]
    page.open("/mech/" + quote(QUOTES, safe=""))
    assert page.texts("h2") == [QUOTES]
    assert_inert(page)
