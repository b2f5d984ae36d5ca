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

r"""A description's line breaks forge ``search``'s one-fact-a-line facts (adversary adv29f).

adv29e found prices and mechs cropped in ``search``'s table on an 80-column terminal;
the fix (``search_cmd.render_page``) draws, when the table does not fit whole, each
match's tool name on a line of its own and then its facts one a line (``  kind: ...``,
``  mech: ...``, ``  price: ...``, ``  description: ...``). The description is a
manifest's text shown by ``untrusted_text.for_person``, which keeps its newlines, and
it is printed last: every line of it after the first starts a line of the output like
any fact or any match. On the 80 columns of a default terminal a manifest whose
description is

    Draws an illustration.\n  price: 1\ndall-e-3-pro\n  mech: ...\n  price: 1

shows, under its own ``price: -``, a second ``price: 1``, and then a match that does
not exist, with the price and mech the manifest chose. A person choosing whom to pay
reads facts that are not the chain's, while a model (``--json``, ``search_tools``)
reads the real ones. rich is the oracle of what a terminal shows; the manifest goes
through the real parser (``manifest.parsing.parse_manifest``), which accepts it.

Expected: on any terminal width, every line of ``search``'s output is a match's tool
name or one of its facts, once each: a manifest's text never starts a line that reads
as a fact or a match (its line breaks shown otherwise, or its continuation lines set
apart), so each match shows exactly one ``price:`` line and one ``mech:`` line.
"""

import io
import json
import re
from typing import List

import pytest
from mech_catalogue_core.manifest.parsing import parse_manifest
from mech_catalogue_core.model.catalogue import Catalogue, Mech
from mech_catalogue_core.search.query import SearchQuery
from mech_catalogue_core.tests.search.corpus import mechs, ref
from rich.console import Console

from mech_catalogue_cli.commands.search_cmd import render_page, run_search

#: the forged facts: a second price under the real one, then a match that does not
#: exist (80 characters: ``search`` cuts a description there)
FORGED = "Draws an illustration.\n  price: 1\ndall-e-3-pro\n  mech: 1:x:1\n  price: 1"


def _hostile_mech(description: str) -> Mech:
    """A mech whose one tool (``dall-e-3``) has ``description``, parsed as fetched.

    :param description: the tool's description.
    :return: the mech (service 77 of the corpus's registry), no marketplace facts.
    """
    name = "dall-e-3"
    document = {
        "name": "illustrations",
        "tools": [name],
        "toolMetadata": {
            name: {
                "name": name,
                "description": description,
                "input": {"type": "text", "description": "what to draw"},
                "output": {
                    "type": "object",
                    "description": "the image",
                    "schema": {"type": "object", "properties": {}},
                },
            }
        },
    }
    parsed = parse_manifest(json.dumps(document))
    assert parsed.manifest is not None, parsed.codes  # the parser accepts it
    assert parsed.manifest.tools[0].description == description
    return Mech.from_manifest(ref(77), parsed.manifest, digest="0x" + "77" * 32)


def _rendered(description: str, width: int) -> List[str]:
    """``search``'s lines for "draw an illustration" with the hostile mech among the corpus.

    :param description: the hostile tool's description.
    :param width: the terminal's columns.
    :return: the output's lines, then the number of matches (the last item).
    """
    catalogue = Catalogue.build([*mechs(), _hostile_mech(description)])
    page = run_search(catalogue, SearchQuery(text="draw an illustration"), None, False)
    assert any(hit.mech.ref.mech_id == 77 for hit in page.hits)
    out = io.StringIO()
    render_page(
        page, Console(file=out, width=width, force_terminal=True, color_system=None)
    )
    return [*out.getvalue().splitlines(), str(len(page.hits))]


@pytest.mark.parametrize("width", [80, 100])
def test_a_description_never_forges_a_fact_line(width: int) -> None:
    """Each match shows one ``price:`` and one ``mech:`` line; no line names a match twice.

    :param width: the terminal's columns (80: a default terminal; the table does not fit).
    """
    *lines, hits = _rendered(FORGED, width)
    facts = {
        column: [line for line in lines if re.match(rf"\s*{column}: ", line)]
        for column in ("price", "mech")
    }
    unindented = [line for line in lines if line and not line[0].isspace()]
    # observed on main at 80 columns: 3 "price:" lines and 3 "mech:" lines for 2
    # matches, and "dall-e-3-pro" on a line of its own as a match's name
    assert all(len(found) == int(hits) for found in facts.values()), "\n".join(lines)
    assert "dall-e-3-pro" not in unindented, "\n".join(lines)


def test_the_control_a_one_line_description_gives_one_fact_each() -> None:
    """The control: a description without line breaks, one ``price:`` line a match."""
    *lines, hits = _rendered("Draws an illustration described in words.", 80)
    assert sum(1 for line in lines if line.startswith("  price: ")) == int(hits)
