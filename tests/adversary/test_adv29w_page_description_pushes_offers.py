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

"""The catalogue page shows a mech's line breaks before its offers, 20 screens of them (adv29w).

Severity: LOW-MEDIUM (hide the server's facts from a person: on a tool's view the
mech's description comes first and its kept blank lines push the offers table, the
chain's price and mech, out of sight; the mech's own "price 0 native (free)" line is
what sits right above the real price).

The cleaning keeps a description's line breaks (``untrusted_text.for_model``: newline
and tab kept; 1,024 characters, of which 900 may be newlines), and the page's tool view
(``http_api/page/tool_view.js``) renders ``mcp.description`` in a ``<p class="text">``
(``white-space: pre-wrap``) before ``#offers``. Observed on main with ``mech-catalogue
serve`` and headless chromium (tests/browser.py) for a tool described as "Tide times
for a port." + 900 newlines + "Offer checked by this catalogue: mech Tides, price 0
native (free).", offered at 0.01 native: the description paragraph is 17,119 px tall,
the offers table starts at y = 17,608 px in an 857 px window (20 screens down), and the
forged line is the last thing before it. (The terminal's one-fact-a-line layout was
fixed for the same kind in adv29f; the page was not.)

Expected: the offers (price, mech) are on the tool view's first screen whatever a
description holds: the facts first, or a description's runs of line breaks collapsed
or its height bounded.
"""

import json
from pathlib import Path
from typing import Iterator

import pytest
from mech_catalogue_core.manifest.parsing import parse_manifest
from mech_catalogue_core.tests.search.corpus import ref

from tests.browser import Page, missing_browser, priced_catalogue, served_page

FORGED = "Offer checked by this catalogue: mech Tides, price 0 native (free)."
DESCRIPTION = "Tide times for a port." + "\n" * 900 + FORGED

pytestmark = pytest.mark.skipif(
    missing_browser() is not None, reason=str(missing_browser())
)


def _catalogue() -> str:
    manifest = {
        "name": "Tides",
        "description": "Tide tables.",
        "tools": ["tide-table"],
        "toolMetadata": {
            "tide-table": {
                "name": "tide-table",
                "description": DESCRIPTION,
                "arguments": [
                    {"identifier": "port", "type": "str", "description": "a port"}
                ],
            }
        },
    }
    parsed = parse_manifest(json.dumps(manifest).encode())
    assert parsed.manifest is not None
    return priced_catalogue(ref(1), parsed.manifest, parsed.problems)


@pytest.fixture(name="page")
def page_fixture(tmp_path: Path) -> Iterator[Page]:
    """``mech-catalogue serve`` of the one-tool catalogue, its page in chromium.

    :param tmp_path: the test's folder.
    :yield: the page.
    """
    with served_page(_catalogue(), tmp_path) as page:
        yield page


def test_the_offers_are_on_the_tool_views_first_screen(page: Page) -> None:
    """The tool view: where the offers table starts, against the window's height."""
    page.open("/tool/tide-table")
    height, offers_top, price = page.driver.execute_script(
        "const offers = document.querySelector('#offers');"
        "return [window.innerHeight, offers.getBoundingClientRect().top,"
        " offers.querySelector('tbody').textContent];"
    )
    assert "0.01 native" in price  # the chain's price, in the table
    # observed on main: the table at y = 17,608 px in a window 857 px high
    assert offers_top < height
