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

"""``search``'s table on an 80-column terminal crops prices and mechs alike (adv29e).

``mech-catalogue search`` draws its matches as a rich table on the terminal's width
(``output.console_on``: ``width=None`` on a terminal). Rich's columns crop a word that
does not fit with an ellipsis (``overflow="ellipsis"``, the default), and the table has
eight columns: on the 80 columns of a default terminal every price and every mech is
cut to its first few characters. Two offers whose prices differ tenfold
(``5000000000000000`` and ``50000000000000000`` wei) both read ``5000000…``, and two
mechs whose keys share their first characters read the same: a person choosing whom
to pay cannot tell them apart, while a model (``--json``, ``search_tools``) reads the
whole values. The repository's own CLI tests set ``COLUMNS=300`` "so cells are not
cut" (``tests/test_cli_search.py``). rich is the oracle of what a terminal shows.

Expected: on any terminal width, each match's price and mech are shown whole (folded
over lines, or laid out otherwise), or the command says they were cut and how to see
them (the description's own cut, ``…`` at 80 characters, is said where it is).
"""

import io

import pytest
from mech_catalogue_core.model.catalogue import Catalogue
from mech_catalogue_core.search.query import SearchQuery
from mech_catalogue_core.tests.search.corpus import mechs
from rich.console import Console

from mech_catalogue_cli.commands.search_cmd import render_page, run_search


@pytest.mark.parametrize("width", [80, 100])
def test_every_price_and_mech_is_shown_whole(width: int) -> None:
    """Rendered on a terminal of ``width`` columns, each hit's price and mech key appear.

    :param width: the terminal's columns.
    """
    page = run_search(
        Catalogue.build(mechs()), SearchQuery(text="draw an illustration"), None, False
    )
    assert page.hits
    out = io.StringIO()
    render_page(
        page, Console(file=out, width=width, force_terminal=True, color_system=None)
    )
    shown = out.getvalue()
    joined = "".join(shown.split())  # a value folded over lines still counts
    missing = [
        (hit.mech.ref.key, hit.price)
        for hit in page.hits
        if hit.mech.ref.key not in joined
        or (hit.price is not None and str(hit.price) not in joined)
    ]
    # observed on main: at 80 columns "100:com…" and "4000000…", at 100 columns
    # "100:complement…" and "4000000000000…"
    assert not missing, shown


def test_a_wide_terminal_shows_them_whole() -> None:
    """The control: at 400 columns (what a pipe gets) nothing is cut."""
    page = run_search(
        Catalogue.build(mechs()), SearchQuery(text="draw an illustration"), None, False
    )
    out = io.StringIO()
    render_page(
        page, Console(file=out, width=400, force_terminal=True, color_system=None)
    )
    assert all(hit.mech.ref.key in out.getvalue() for hit in page.hits)
