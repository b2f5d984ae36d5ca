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

"""No manifest text starts a line the CLI prints outside a table's cells.

The adversarial review adv29f forged a price and a match in ``search``'s one-fact-a-line
layout with a description's line breaks. The kind is wider: any manifest text printed
on a line of its own (a description under a fact's name, a mech's name and description
above ``show``'s table, a table's title, a problem's path) could start a line, by its
own line breaks or by being long enough for the terminal to wrap it where the writer
chose. Each is checked here with texts written for it, at many widths; rich draws what
a terminal shows.
"""

import functools
import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Callable, List

import pytest
from click.testing import CliRunner
from mech_catalogue_core.model.catalogue import Catalogue, Manifest, Mech
from mech_catalogue_core.model.problems import SEVERITY_WARNING, Problem
from mech_catalogue_core.model.tool import Tool
from mech_catalogue_core.search.query import SearchQuery
from mech_catalogue_core.tests.search.corpus import mechs, ref
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from mech_catalogue_cli import EXIT_OK
from mech_catalogue_cli.app import cli
from mech_catalogue_cli.commands.list_render import render_catalogue
from mech_catalogue_cli.commands.search_cmd import render_page, run_search
from mech_catalogue_cli.output import (
    CONTINUATION,
    LINE_BREAK,
    print_problem,
    print_wrapped,
    untrusted,
)

WIDTHS = (24, 31, 40, 57, 80, 99, 120, 200)
#: a fact of ours, as a forged line would spell it
FORGED_FACT = "price: 1"


def hostile_texts(width: int) -> List[str]:
    """Texts that would start a line with :data:`FORGED_FACT` at ``width`` columns.

    :param width: the terminal's columns the text is written for.
    :return: line breaks of each kind ``str.splitlines`` knows; padding that ends a row
        just before the fact (with and without a space, in narrow and wide characters);
        a tab; a word longer than a row.
    """
    lead = len("  description: ")
    return [
        f"Draws.\n{FORGED_FACT}",
        f"Draws.\r\n  {FORGED_FACT}\n\ndall-e-3-pro",
        f"Draws.\u2028{FORGED_FACT}\u2029{FORGED_FACT}",
        "x" * (width - lead) + FORGED_FACT,
        "x" * (width - lead - 1) + " " + FORGED_FACT,
        " " * (width - lead) + FORGED_FACT,
        "\u6f22" * ((width - lead) // 2) + " " + FORGED_FACT,
        "Draws.\t\t\t\t\t\t\t\t\t\t" + FORGED_FACT,
        "y" * (3 * width) + " " + FORGED_FACT,
    ]


def printed(width: int, draw: Callable[[Console], None]) -> List[str]:
    """What a terminal ``width`` columns wide shows of ``draw(console)``, row by row.

    :param width: the columns.
    :param draw: prints on the console it is given.
    :return: the rows; a printed line longer than ``width`` is split where the terminal
        wraps it (at ``width`` cells).
    """
    out = io.StringIO()
    draw(Console(file=out, width=width, force_terminal=True, color_system=None))
    rows: List[str] = []
    for line in out.getvalue().splitlines():
        while cell_len(line) > width:  # the terminal's own wrap
            cut = 0
            while cell_len(line[: cut + 1]) <= width:
                cut += 1
            rows.append(line[:cut])
            line = line[cut:]
        rows.append(line)
    return rows


def _described(console: Console, text: str) -> None:
    """Print ``text`` as search's description fact.

    :param console: where.
    :param text: the manifest's text.
    """
    print_wrapped(console, "  description: ", untrusted(text), "  ")


@pytest.mark.parametrize("width", WIDTHS)
def test_each_row_after_the_first_is_marked_and_fits(width: int) -> None:
    """``print_wrapped``: the lead's row, then rows that begin with the marker, none wider."""
    for text in hostile_texts(width):
        rows = printed(width, functools.partial(_described, text=text))
        assert rows[0].startswith("  description: "), rows
        for row in rows[1:]:
            assert row.startswith("  " + CONTINUATION), (text, rows)
        assert all(cell_len(row) <= max(width, 22) for row in rows), rows
        assert not any(row.lstrip().startswith(FORGED_FACT) for row in rows), rows


def test_a_short_text_stays_on_its_lead_row() -> None:
    """The control: a one-line text that fits is printed as one row, unmarked."""
    rows = printed(80, lambda c: print_wrapped(c, "name ", untrusted("Rolls dice.")))
    assert rows == ["name Rolls dice."]


def _search_rows(width: int, tool: Tool) -> List[str]:
    """``search``'s rows for "draw an illustration" with ``tool`` offered by mech 77."""
    hostile = Mech.from_manifest(
        ref(77), Manifest(name="m", tools=(tool,)), digest="0x" + "77" * 32
    )
    catalogue = Catalogue.build([*mechs(), hostile])
    page = run_search(catalogue, SearchQuery(text="draw an illustration"), None, False)
    assert any(hit.mech.ref.mech_id == 77 for hit in page.hits)
    return printed(width, lambda console: render_page(page, console))


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("where", ["name", "kind", "description"])
def test_search_facts_are_one_each_whatever_a_manifest_writes(
    width: int, where: str
) -> None:
    """One ``price:`` and one ``mech:`` row a match; no row starts with a forged one.

    :param width: the terminal's columns.
    :param where: the tool's text that holds the hostile text.
    """
    for text in hostile_texts(width):
        fields = {"name": "draw-illustration", "kind": "image"}
        fields["description"] = "Draw an illustration."
        fields[where] = fields[where] + text if where != "description" else text
        tool = Tool(
            name=fields["name"],
            kind=fields["kind"],
            description=f"draw an illustration. {fields['description']}",
        )
        rows = _search_rows(width, tool)
        matches = int(rows[0].split()[0])
        for fact in ("price", "mech"):
            found = [row for row in rows if row.startswith(f"  {fact}: ")]
            assert len(found) in (0, matches), rows  # 0: the table fits
        assert not any(row.lstrip().startswith(FORGED_FACT) for row in rows), rows
        assert not any(row.startswith("dall-e-3-pro") for row in rows), rows


def test_show_marks_each_row_of_a_mechs_description(tmp_path: Path) -> None:
    """``show``: the mech's name and description, its other lines marked, then the table.

    :param tmp_path: pytest's temporary folder.
    """
    manifest = {
        "name": "Dice\nprice: 1",
        "description": "Rolls dice.\nwire-tool  send funds\n\ndice  Rolls dice.",
        "tools": ["dice"],
        "toolMetadata": {"dice": {"name": "dice", "description": "Rolls dice."}},
    }
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    result = CliRunner(env={"COLUMNS": "60"}).invoke(
        cli, ["show", str(path)], catch_exceptions=False
    )
    assert result.exit_code == EXIT_OK, result.output
    rows = result.stdout.splitlines()
    table = next(i for i, row in enumerate(rows) if row.startswith("\u250f"))
    assert rows[0] == f"Dice{LINE_BREAK}price: 1 Rolls dice.", rows
    assert table == 4 and all(r.startswith(CONTINUATION) for r in rows[1:table]), rows


def test_list_titles_and_problem_lines_hold_one_line() -> None:
    """A mech's name in its tools table's title, and a problem's path, show no break."""
    mech = Mech.from_manifest(
        ref(9),
        Manifest(name="Dice\nprice: 1", tools=(Tool(name="dice", kind="k"),)),
        digest="0x" + "09" * 32,
    )
    problem = Problem(
        "instruction_like_text", "x\ny", "/toolMetadata/a\nprice: 1", SEVERITY_WARNING
    )
    mech = replace(mech, problems=(problem,))
    rows = printed(200, lambda c: render_catalogue(Catalogue.build([mech]), True, c))
    assert not any(row.strip().startswith(FORGED_FACT) for row in rows), rows
    assert any(f"Dice{LINE_BREAK}price: 1" in row for row in rows), rows
    rows = printed(200, lambda c: print_problem(c, problem))
    assert len(rows) == 1 and f"a{LINE_BREAK}price: 1" in rows[0], rows


def test_a_label_is_one_line_and_a_text_keeps_its_breaks() -> None:
    """``untrusted``: labels on one line (each break shown), texts as written."""
    assert untrusted("a\nb\r\nc", label=True) == Text(f"a{LINE_BREAK}b{LINE_BREAK}c")
    assert untrusted("a\nb").plain == "a\nb"
