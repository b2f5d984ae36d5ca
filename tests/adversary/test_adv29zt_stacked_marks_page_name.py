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

"""adv29zt Z2: a tool name's stacked combining marks are drawn over the page's facts.

Severity: LOW-MEDIUM (the catalogue page, for people: a stranger paints over the page's
own facts of its tool, "kind", the offer count and the MCP name, and the offers table's
headings; in a phone's width (cards) over the mech and price lines below the name; the
model's surfaces carry the marks as written in ``_meta`` ``mechToolName``, GET /tools
and ``search --json``).

fix29yc/adv29z K9 refuse invisible characters and hiding markup in a tool name
(``hidden_characters.name_hiding``), but not combining marks: ``tides`` followed by
four ``_`` each carrying 26 marks drawn below (U+0316-033C, 113 characters, within the
name's 128) parses with no problem. The page shows the name as the tool view's ``h2``
(``.text``, not a ``.stranger`` box, so nothing clips it, unlike the description's
``overflow: hidden``) and as the search table's first cell; chromium draws the marks
about 150 px below the line, over the lines under it (screenshots at 1280 and 400 px
wide: the "kind: none given · 1 offer(s) · MCP name" line, the MCP name and the
"Offers" heading are covered; at 400 px the next card's kind and mech lines).

Observed on main: the screenshot of ``#tool-kind`` ("none given") differs between the
tool view of ``tides`` + marks and of a plain ``tides-plain`` (two plain names give the
same pixels).

Expected: a name carrying more combining marks than a script writes on one letter is
refused at parse (``invalid_tool_name``, as invisible characters are), or the page
clips names to their line (``overflow: hidden`` as ``.stranger``), so no stranger's
name paints over the page's facts.
"""

import json
import re
from dataclasses import replace
from typing import Iterator, List
from urllib.parse import quote

import pytest
from mech_catalogue_core.manifest.parsing import parse_manifest
from mech_catalogue_core.tests.search.corpus import ref

from tests.browser import Page, missing_browser, priced_catalogue, served_page

REASON = "adv29zt: a tool name's stacked combining marks paint over the page's facts"
#: 26 combining marks drawn below their base
BELOW = "".join(
    chr(c)
    for c in (0x316, 0x317, 0x318, 0x319, 0x31C, 0x31D, 0x31E, 0x31F, 0x320, 0x323)
    + (0x324, 0x325, 0x326, 0x329, 0x32A, 0x32B, 0x32C, 0x32D, 0x32E, 0x32F)
    + (0x330, 0x331, 0x332, 0x333, 0x339, 0x33A)
)
STACKED = "tides" + ("_" + BELOW) * 4
PLAIN = ("tides-plain", "tides-other")
#: a run of combining marks longer than any script writes on one letter
LONG_RUN = re.compile("[\u0300-\u036f]{5,}")

pytestmark = pytest.mark.skipif(
    missing_browser() is not None, reason=str(missing_browser())
)


def _manifest(names: List[str]) -> bytes:
    metadata = {
        name: {
            "name": name,
            "description": "Tide tables.",
            "arguments": [{"identifier": "port", "type": "str", "description": "p"}],
        }
        for name in names
    }
    manifest = {
        "name": "Tides",
        "description": "Tide tables.",
        "tools": names,
        "toolMetadata": metadata,
    }
    return json.dumps(manifest).encode()


def test_the_stacked_name_is_refused_at_parse() -> None:
    """fix29zf: the name is refused (``invalid_tool_name``), its marks escaped."""
    parsed = parse_manifest(_manifest([*PLAIN, STACKED]))
    (problem,) = parsed.problems
    assert problem.code == "invalid_tool_name"
    assert "26 combining marks on one character" in problem.message
    assert not LONG_RUN.search(problem.message)
    assert parsed.manifest is not None
    assert [t.name for t in parsed.manifest.tools] == list(PLAIN)


def _catalogue() -> str:
    """A catalogue holding the stacked name, as an agent before the parser's rule wrote.

    The page still clips a name to its box (fix29zf), whatever catalogue it is given.

    :return: the catalogue's JSON.
    """
    parsed = parse_manifest(_manifest([*PLAIN, "tides-stacked"]))
    assert parsed.manifest is not None and not parsed.problems
    tools = tuple(
        replace(t, name=STACKED) if t.name == "tides-stacked" else t
        for t in parsed.manifest.tools
    )
    return priced_catalogue(
        ref(1), replace(parsed.manifest, tools=tools), parsed.problems
    )


@pytest.fixture(name="page", scope="module")
def page_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    """The catalogue page of one mech with the three tools, in chromium.

    :param tmp_path_factory: pytest's folders.
    :yield: the page.
    """
    with served_page(_catalogue(), tmp_path_factory.mktemp("marks")) as page:
        yield page


def _kind_pixels(page: Page, name: str) -> bytes:
    """The tool view's "kind" fact as drawn (a PNG of its box)."""
    page.open("/tool/" + quote(name, safe=""))
    # the same layout width for both views: the stacked name's view is longer (its
    # invisible_text warning), and a vertical scrollbar moves the centred page
    page.driver.execute_script("document.documentElement.style.overflowY = 'scroll'")
    (kind,) = page.css("#tool-kind")
    assert kind.text == "none given"
    return bytes(kind.screenshot_as_png)


def test_control_two_plain_names_draw_the_same_fact(page: Page) -> None:
    """The control: the fact's pixels do not depend on a plain name."""
    assert _kind_pixels(page, PLAIN[0]) == _kind_pixels(page, PLAIN[1])


def test_a_stacked_name_leaves_the_fact_as_drawn(page: Page) -> None:
    """The stacked name's marks are drawn over the "kind" fact below it."""
    # observed on main: the PNGs differ (the marks cross "none given")
    assert _kind_pixels(page, STACKED) == _kind_pixels(page, PLAIN[0])
