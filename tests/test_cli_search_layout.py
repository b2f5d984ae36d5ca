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


"""``search``'s terminal layout: a mech key or a price is never cut, whatever the width.

rich is the oracle of what a terminal shows: each page is drawn on a console of the
given width (as a terminal gets it) and each hit's key and price must be found whole on
one line of what it prints.
"""

import io
from typing import List

import pytest
from mech_catalogue_core.model.catalogue import Catalogue
from mech_catalogue_core.model.untrusted_text import for_person
from mech_catalogue_core.search.index import SearchPage
from mech_catalogue_core.search.query import SearchQuery
from mech_catalogue_core.tests.search.corpus import mechs
from rich.console import Console

from mech_catalogue_cli.commands.search_cmd import TABLE_DESCRIPTION_CHARS as CUT_AT
from mech_catalogue_cli.commands.search_cmd import render_page, run_search
from mech_catalogue_cli.output import PIPE_WIDTH

#: terminal widths from a phone's to a wide screen's (columns)
WIDTHS = [30, 40, 60, 80, 100, 120, 160, 200, 300, PIPE_WIDTH]


def _page(text: str) -> SearchPage:
    """A page of the search corpus (mech keys of 84 characters, prices of up to 19 digits).

    :param text: the query.
    :return: the page.
    """
    return run_search(Catalogue.build(mechs()), SearchQuery(text=text), None, False)


def _drawn(page: SearchPage, width: int) -> List[str]:
    """The lines a terminal of ``width`` columns shows for a page.

    :param page: the page.
    :param width: the terminal's columns.
    :return: the printed lines.
    """
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=True, color_system=None)
    render_page(page, console)
    return out.getvalue().splitlines()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("query", ["prediction", "draw an illustration", "weather"])
def test_each_key_and_price_is_whole_on_one_line(query: str, width: int) -> None:
    """Every hit's mech key and price appear unbroken within one printed line.

    :param query: a query with several hits.
    :param width: the terminal's columns.
    """
    page = _page(query)
    assert page.hits
    lines = _drawn(page, width)
    for hit in page.hits:
        assert any(hit.mech.ref.key in line for line in lines), (hit.mech.ref, lines)
        if hit.price is not None:
            assert any(str(hit.price) in line for line in lines), (hit.price, lines)
    cut = [hit for hit in page.hits if len(for_person(hit.tool.description)) > CUT_AT]
    assert "".join(lines).count("…") == len(cut), lines  # only descriptions are cut


def test_a_wide_terminal_gets_the_table_and_a_narrow_one_a_fact_a_line() -> None:
    """The table when it fits; else each fact on its own line, named."""
    page = _page("prediction")
    wide, narrow = _drawn(page, 300), _drawn(page, 80)
    assert wide[1].startswith("┏") and "mech" in wide[2]
    assert not any(line.startswith(("┏", "│")) for line in narrow)
    for hit in page.hits:
        assert f"  mech: {hit.mech.ref.key}" in narrow
    prices = [line for line in narrow if line.startswith("  price: ")]
    assert len(prices) == len(page.hits)
