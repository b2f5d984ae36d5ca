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

"""An exporter's length cap never drops its own note, and any cut is said (adv29w).

OpenAI takes 1,024 characters of a function's description; the note naming the mech
tool of a renamed function is the only link to the mech's tool, so the mech's text
is cut to leave room for it, with the cut marker. The strict rewrite's ``Also:``
notes are cut saying so too.
"""

import json
from typing import Any, Dict, List, Optional

import pytest
from mech_catalogue_core.exporters import (
    UNKNOWN_REF,
    to_anthropic_tools,
    to_openai_tools,
)
from mech_catalogue_core.exporters.openai_tool import MAX_DESCRIPTION
from mech_catalogue_core.manifest.parsing import parse_manifest
from mech_catalogue_core.model.catalogue import Mech

CUT = "(cut: "
RENAMED = "tide.table/v2"  # OpenAI's names allow no "." or "/"


def _tools(
    name: str, description: str, schema: Optional[Dict[str, Any]] = None
) -> List[Any]:
    metadata: Dict[str, Any] = {"name": name, "description": description}
    if schema is None:
        metadata["arguments"] = [{"identifier": "port", "type": "str"}]
    else:
        metadata["input"] = {"type": "object", "schema": schema}
    manifest = {
        "name": "Tides",
        "description": "Tide tables.",
        "tools": [name],
        "toolMetadata": {name: metadata},
    }
    parsed = parse_manifest(json.dumps(manifest))
    assert parsed.manifest is not None, parsed.problems
    return list(Mech.from_manifest(UNKNOWN_REF, parsed.manifest).tools)


def _openai(name: str, description: str) -> str:
    (exported,) = to_openai_tools(_tools(name, description))
    return str(exported["function"]["description"])


@pytest.mark.parametrize(
    "length", [0, 1, 500, 900, 990, 1000, 1023, 1024, 1025, 2000, 50_000]
)
def test_a_renamed_tools_note_survives_every_length(length: int) -> None:
    """The note whole at the end; the text cut only when needed, the cut said."""
    description = _openai(RENAMED, "w" * length)
    note = f" (mech tool name: {RENAMED})"
    assert len(description) <= MAX_DESCRIPTION
    assert description.endswith(note)
    assert (CUT in description) == (length + len(note) > MAX_DESCRIPTION)


@pytest.mark.parametrize("length", [1000, 1024, 1025, 5000])
def test_a_tool_keeping_its_name_is_cut_saying_so(length: int) -> None:
    """No note: the text alone within 1,024, a cut said."""
    description = _openai("tide_table", "w" * length)
    assert len(description) <= MAX_DESCRIPTION
    assert (CUT in description) == (length > MAX_DESCRIPTION)
    assert "mech tool name" not in description


@pytest.mark.parametrize(
    "text",
    [
        "[" * 2000,  # each shown as a five-character reference
        "<b>" * 600,
        "\u200b" * 3000 + "w" * 1020,  # removed before the cap
        "é" * 1500,
    ],
    ids=["brackets", "tags", "zero width", "accents"],
)
def test_text_that_grows_or_shrinks_when_shown_keeps_the_note(text: str) -> None:
    """The cap is applied to the text as shown, not as written."""
    description = _openai(RENAMED, text)
    assert len(description) <= MAX_DESCRIPTION
    assert description.endswith(f" (mech tool name: {RENAMED})")


def test_a_long_renamed_name_keeps_its_note() -> None:
    """A name of 128 characters (the label cap) and a long text."""
    name = "a." * 64
    description = _openai(name, "w" * 5000)
    assert len(description) <= MAX_DESCRIPTION
    assert description.endswith(f" (mech tool name: {name[:128]})")
    assert CUT in description


def test_anthropic_keeps_its_note_after_a_whole_description() -> None:
    """No 1,024 limit there: the mech's 1,024 characters and the note, as before."""
    (exported,) = to_anthropic_tools(_tools(RENAMED, "w" * 1024))
    assert exported["description"] == "w" * 1024 + f" (mech tool name: {RENAMED})"


def test_a_strict_note_quoting_a_long_value_says_its_cut() -> None:
    """``Also: not ...`` quotes at most 200 characters of the value, saying so."""
    schema = {
        "type": "object",
        "properties": {
            "port": {
                "type": "string",
                "description": "A port.",
                "not": {"const": "x" * 600},
            }
        },
        "required": ["port"],
        "additionalProperties": False,
    }
    (exported,) = to_openai_tools(_tools("tide_table", "Tides.", schema))
    text = json.dumps(exported["function"]["parameters"])
    assert "Also: not" in text, text[:400]
    assert "x" * 201 not in text and CUT in text
