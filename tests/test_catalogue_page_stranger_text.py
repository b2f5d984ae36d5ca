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

"""A stranger's text on the catalogue page comes after the page's facts, bounded (adv29w).

The kind: a text a manifest writes (a tool's description, an argument's description, a
problem message quoting the manifest) decided where the page's own facts (an offer's
mech, price and payment) were drawn, so a mech could push them out of sight under its
own words. Each view (tool, mech, search results) is opened in headless chromium over
``mech-catalogue serve`` for texts of every shape that grows a page: 900 line breaks,
1,000 characters of prose, a 1,000-letter word, right-to-left letters behind a
right-to-left override. Each time: the facts are on the first screen and before the
text, the text is at most its lines high (``catalogue.css``: ``.stranger``), the page
is no wider than the window, and any cut or left-out blank line is said, with a button
that shows the whole text.
"""

import json
from typing import Any, Dict, Iterator
from urllib.parse import quote

import pytest
from mech_catalogue_core.manifest.parsing import parse_manifest
from mech_catalogue_core.tests.search.corpus import ref

from tests.browser import Page, missing_browser, priced_catalogue, served_page

FORGED = "Offer checked by this catalogue: mech Tides, price 0 native (free)."
HEBREW = "גאות ושפל לנמל "
#: each tool's description, one shape of text that grows a page each
DESCRIPTIONS = {
    "many-breaks": "Tide times for a port." + "\n" * 900 + FORGED,
    "blank-runs": "Tides.\n \n\t\n\nHigh water.\n\n\n\n\nLow water.\n\n",
    "long-prose": ("High and low water for a port, by the hour. " * 23)[:1000],
    "huge-word": "W" * 1000,
    "right-to-left": "\u202e" + HEBREW * 60 + FORGED,
    "short": "Tide tables for a port.",
    "medium-prose": ("Tide tables for a port. " * 13).strip(),
}
#: lines a stranger's text shows until expanded (catalogue.css)
LINES = {"p": 6, "span": 6, "code": 6, "div": 4}
LINE_HEIGHT = 1.35
MECH = ref(1)

pytestmark = pytest.mark.skipif(
    missing_browser() is not None, reason=str(missing_browser())
)


def _tool(name: str, description: str) -> Dict[str, Any]:
    argument: Dict[str, Any] = {
        "identifier": "port",
        "type": "str",
        "description": "a port",
    }
    if name == "many-breaks":
        argument["description"] = "The port." + "\n" * 300 + FORGED
        argument["schema"] = {
            "type": "string",
            "title": "Port" + "\n" * 300 + FORGED,
            "examples": ["Brest" + "\n" * 300 + FORGED, "Z" * 1000],
        }
    return {"name": name, "description": description, "arguments": [argument]}


def _catalogue() -> str:
    names = [*DESCRIPTIONS, "גאות"]
    metadata = {name: _tool(name, text) for name, text in DESCRIPTIONS.items()}
    # a problem whose pointer and quote are right-to-left (unknown_argument_type)
    metadata["גאות"] = {
        "name": "גאות",
        "description": HEBREW,
        "arguments": [{"identifier": "port", "type": HEBREW * 3}],
    }
    manifest = {
        "name": "Tides",
        "description": "Tide tables.",
        "tools": names,
        "toolMetadata": metadata,
    }
    parsed = parse_manifest(json.dumps(manifest).encode())
    assert parsed.manifest is not None
    return priced_catalogue(MECH, parsed.manifest, parsed.problems)


@pytest.fixture(name="page", scope="module")
def page_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    """``mech-catalogue serve`` of the one-mech catalogue, its page in chromium.

    :param tmp_path_factory: pytest's folders.
    :yield: the page.
    """
    with served_page(_catalogue(), tmp_path_factory.mktemp("stranger")) as page:
        yield page


def _boxes(page: Page, selector: str) -> Any:
    """Measure the elements a selector finds, and the window.

    :param page: the page, a view rendered.
    :param selector: a CSS selector.
    :return: ``{"window": [width, height, page width], "boxes": [...]}``, per element
        its ``top``, ``height`` (px), ``lines`` (its height in lines of its font),
        ``tag`` and ``before`` (whether it comes before ``#offers``/``#contracts``).
    """
    return page.driver.execute_script(
        "const facts = document.querySelector('#offers, #contracts, #results');"
        "return {window: [window.innerWidth, window.innerHeight,"
        "  document.documentElement.scrollWidth],"
        " boxes: [...document.querySelectorAll(arguments[0])].map(e => {"
        "  const r = e.getBoundingClientRect();"
        "  const size = parseFloat(getComputedStyle(e).fontSize);"
        "  return {top: r.top, height: r.height, lines: r.height / (size * arguments[1]),"
        "   tag: e.tagName.toLowerCase(), bidi: getComputedStyle(e).unicodeBidi,"
        "   before: Boolean(facts &&"
        "    (e.compareDocumentPosition(facts) & Node.DOCUMENT_POSITION_FOLLOWING))};"
        " })};",
        selector,
        LINE_HEIGHT,
    )


def _assert_bounded(page: Page, selector: str) -> None:
    """Assert each stranger's text of a selector is within its lines, after the facts.

    :param page: the page, a view rendered.
    :param selector: a CSS selector of stranger's texts.
    """
    measured = _boxes(page, selector)
    width, _, page_width = measured["window"]
    assert page_width <= width  # no word makes the page wider than the window
    assert measured["boxes"], selector
    for box in measured["boxes"]:
        assert box["lines"] <= LINES[box["tag"]] + 0.05, box
        assert not box["before"], box  # the facts come first
        assert box["bidi"] == "isolate", box


@pytest.mark.parametrize("tool", sorted(DESCRIPTIONS))
def test_each_tool_view_shows_its_offers_first_and_its_text_bounded(
    page: Page, tool: str
) -> None:
    """The tool view: the offers table on the first screen, the texts after it, bounded."""
    page.open("/tool/" + quote(tool, safe=""))
    _, height, _ = _boxes(page, "#offers")["window"]
    (offers,) = _boxes(page, "#offers")["boxes"]
    assert offers["top"] < height
    price = page.texts("#offers tbody .price")
    assert price == ["0.01 native"]
    _assert_bounded(page, "#tool-description")
    _assert_bounded(page, ".argument .description")


def test_blank_line_runs_are_one_blank_line_and_said(page: Page) -> None:
    """Runs of blank lines (spaces and tabs on them too) show as one, and the count is said."""
    page.open("/tool/blank-runs")
    served = page.fetch_json("/tools/blank-runs")["mcp"]["description"]
    assert "\n\n\n" in served  # the API keeps them: only the page collapses
    assert page.texts("#tool-description") == ["Tides.\n\nHigh water.\n\nLow water."]
    left_out = served.count("\n") - 4
    assert page.texts("#tool-description + .cut") == [
        f"({left_out} blank line(s) left out)"
    ]
    assert page.css("#tool-description + .cut button") == []  # nothing cut: no expander


def test_a_short_text_is_shown_whole_without_a_note(page: Page) -> None:
    """A text that fits says nothing more and has no button."""
    page.open("/tool/short")
    assert page.texts("#tool-description") == [DESCRIPTIONS["short"]]
    assert page.css(".cut") == []


def test_900_line_breaks_are_one_blank_line_and_said(page: Page) -> None:
    """The reproduction's text: the forged line right under the first, the 898 said."""
    page.open("/tool/many-breaks")
    expected = "Tide times for a port.\n\n" + FORGED
    assert page.texts("#tool-description") == [expected]
    assert page.texts("#tool-description + .cut") == ["(898 blank line(s) left out)"]


@pytest.mark.parametrize("tool", ["long-prose", "huge-word", "right-to-left"])
def test_a_cut_text_says_so_and_shows_all_on_demand(page: Page, tool: str) -> None:
    """A text over its lines: the cut said under it, "show all" shows it, "show less" not."""
    page.open("/tool/" + quote(tool, safe=""))
    (note,) = page.texts("#tool-description + .cut")
    assert note.startswith("(cut here: about ") and "more line(s) of this text" in note
    (button,) = page.css("#tool-description + .cut button")
    assert button.get_attribute("aria-expanded") == "false"
    button.click()
    (box,) = _boxes(page, "#tool-description")["boxes"]
    scroll, client = page.driver.execute_script(
        "const e = document.querySelector('#tool-description');"
        "return [e.scrollHeight, e.clientHeight];"
    )
    assert scroll == client and box["lines"] > LINES["p"]  # all of it shown
    assert (button.text, button.get_attribute("aria-expanded")) == ("show less", "true")
    button.click()
    (box,) = _boxes(page, "#tool-description")["boxes"]
    assert box["lines"] <= LINES["p"] + 0.05
    assert button.text == "show all"


def test_an_argument_s_texts_are_bounded_and_their_cut_said(page: Page) -> None:
    """The form's argument description and examples: line breaks collapsed, bounded."""
    page.open("/tool/many-breaks")
    assert page.texts(".argument .description") == ["The port.\n\n" + FORGED]
    (note,) = page.texts(".argument .description + .cut")
    assert note == "(298 blank line(s) left out)"
    assert page.texts(".argument .title + .cut") == ["(298 blank line(s) left out)"]
    _assert_bounded(page, ".argument .title")
    _assert_bounded(page, ".argument .examples code")
    (note,) = page.texts(".argument .examples code + .cut")
    assert note.startswith("(cut here: about ") and "298 blank line(s) left out" in note


def test_search_results_rows_stay_bounded_with_the_facts_first(page: Page) -> None:
    """The search view: each result's description at most 4 lines, after its price."""
    page.open("/search?mech=" + quote(MECH.key, safe=""))
    rows = page.offer_rows()
    assert sorted(r["tool"] for r in rows) == sorted([*DESCRIPTIONS, "גאות"])
    assert {r["price"] for r in rows} == {"0.01 native"}
    measured = _boxes(page, "#results td .description")
    width, _, page_width = measured["window"]
    assert page_width <= width
    assert len(measured["boxes"]) == len(rows)
    # the API gives 280 characters: in a table cell the prose and the word are cut
    notes = page.texts("#results td .description + .cut")
    assert len([n for n in notes if n.startswith("(cut here: about ")]) >= 2
    assert any(n.endswith(" blank line(s) left out)") for n in notes)
    for box in measured["boxes"]:
        assert box["lines"] <= LINES["div"] + 0.05, box
        assert box["bidi"] == "isolate", box
    # the description is the row's last cell: its facts come before it
    order = page.driver.execute_script(
        "return [...document.querySelectorAll('#results tbody tr')].map(r =>"
        " Boolean(r.querySelector('.price').compareDocumentPosition("
        "  r.querySelector('.description')) & Node.DOCUMENT_POSITION_FOLLOWING));"
    )
    assert order and all(order)


def test_the_mech_view_shows_its_contracts_before_its_problems(page: Page) -> None:
    """The mech view: its contracts on the first screen, problems after, bounded."""
    page.open("/mech/" + quote(MECH.key, safe=""))
    _, height, _ = _boxes(page, "#contracts")["window"]
    (contracts,) = _boxes(page, "#contracts")["boxes"]
    assert contracts["top"] < height
    assert page.texts("#contracts tbody .price") == ["0.01 native"]
    _assert_bounded(page, "#problems .problem-message")
    # a right-to-left pointer and quote keep the line's order: code, pointer, message
    order = page.driver.execute_script(
        "const li = [...document.querySelectorAll('#problems li')]"
        " .find(e => e.textContent.includes('unknown_argument_type'));"
        "const [code, path] = li.querySelectorAll('code');"
        "const message = li.querySelector('.problem-message');"
        "return [code, path, message].map(e => e.getBoundingClientRect())"
        " .map(r => [r.left, r.top]);"
    )
    (code_left, code_top), (path_left, path_top), (_, message_top) = order
    assert code_left < path_left and code_top <= path_top <= message_top


def test_a_narrower_window_says_the_cut_it_makes(page: Page) -> None:
    """A text that fits a wide window is cut in a narrow one: said then, gone when wide."""
    # pylint: disable=import-outside-toplevel
    from selenium.webdriver.support.ui import WebDriverWait

    driver = page.driver
    wide = driver.get_window_size()
    try:
        driver.set_window_size(1400, wide["height"])
        page.open("/tool/medium-prose")
        assert page.texts("#tool-description + .cut") == []
        driver.set_window_size(360, wide["height"])
        WebDriverWait(driver, 10).until(
            lambda _: page.texts("#tool-description + .cut")
            and page.texts("#tool-description + .cut")[0].startswith("(cut here")
        )
        (box,) = _boxes(page, "#tool-description")["boxes"]
        assert box["lines"] <= LINES["p"] + 0.05
        driver.set_window_size(1400, wide["height"])
        WebDriverWait(driver, 10).until(
            lambda _: page.texts("#tool-description + .cut") == []
        )
    finally:
        driver.set_window_size(wide["width"], wide["height"])


@pytest.mark.parametrize(
    "view",
    [
        "/tool/medium-prose",
        "/tool/huge-word",
        "/mech/" + quote(MECH.key, safe=""),
        "/search?q=tide",
    ],
)
def test_a_phone_window_shows_each_table_row_as_a_card(page: Page, view: str) -> None:
    """At 360 px no view is wider than the window; each cell says its column's heading."""
    driver = page.driver
    wide = driver.get_window_size()
    try:
        driver.set_window_size(360, wide["height"])
        page.open(view)
        width, _, page_width = _boxes(page, "table")["window"]
        assert page_width <= width
        headed = page.driver.execute_script(
            "return [...document.querySelectorAll('tbody td')].map(td =>"
            " [td.dataset.heading, getComputedStyle(td, '::before').content,"
            "  document.querySelector('table th').offsetParent !== null &&"
            "  getComputedStyle(td).display]);"
        )
        assert headed, view
        for heading, before, shown_as in headed:
            assert heading, view  # every cell knows its column
            assert before == f'"{heading}: "', (view, heading, before)
            assert shown_as in (False, "block"), shown_as
        driver.set_window_size(1400, wide["height"])
        page.open(view)
        assert (
            page.driver.execute_script(
                "return getComputedStyle(document.querySelector('tbody td')).display"
            )
            == "table-cell"
        )
    finally:
        driver.set_window_size(wide["width"], wide["height"])
