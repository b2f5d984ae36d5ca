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

"""An OpenAI export cuts its own note off a renamed tool's description, unsaid (adv29w).

Severity: LOW (the exporter's fact comes after the mech's text and a silent cut drops
it: a model or person reading the function sees a name the mech never published and no
word of the mech tool a call reaches; nothing says text was cut).

``names.described`` appends "(mech tool name: <name>)" to the mech's description when
the exported name differs (OpenAI's rule renames ``tide.table/v2`` to
``tide_table_v2_e196a065``); ``composed_for_model`` caps the composition at 2,048
characters, saying so; ``openai_tool.to_openai_tool`` then slices it with
``description[:MAX_DESCRIPTION]`` (1,024), saying nothing. Observed on main with a
1,000-character description: the function's description ends "... (mech tool name:
tide.t"; with 1,024 characters it ends in the mech's text, the note gone; neither says
a cut. The Anthropic export of the same tool keeps the note whole (1,032 and 1,056
characters).

Expected: the exported description names the mech tool whenever it is renamed (the
note first, or the mech's text cut to leave room for it), and any cut is said.
"""

import json

import pytest
from mech_catalogue_core.exporters import UNKNOWN_REF, to_openai_tools
from mech_catalogue_core.manifest.parsing import parse_manifest
from mech_catalogue_core.model.catalogue import Mech

NAME = "tide.table/v2"


def _description(length: int) -> str:
    manifest = {
        "name": "Tides",
        "description": "Tide tables.",
        "tools": [NAME],
        "toolMetadata": {
            NAME: {
                "name": NAME,
                "description": "w" * length,
                "arguments": [{"identifier": "port", "type": "str"}],
            }
        },
    }
    parsed = parse_manifest(json.dumps(manifest))
    assert parsed.manifest is not None, parsed.problems
    (tool,) = to_openai_tools(Mech.from_manifest(UNKNOWN_REF, parsed.manifest).tools)
    assert tool["function"]["name"] != NAME  # renamed: the note is the only link
    return str(tool["function"]["description"])


@pytest.mark.parametrize("length", [1000, 1024])
def test_a_renamed_tools_description_names_the_mech_tool(length: int) -> None:
    """The note naming the mech tool survives the 1,024-character cap."""
    description = _description(length)
    assert len(description) <= 1024  # OpenAI's own limit holds
    # observed on main: "...www (mech tool name: tide.t" (1,000); "...www" (1,024)
    assert f"(mech tool name: {NAME})" in description


def test_a_short_description_keeps_the_note() -> None:
    """The control: room left, the note is whole."""
    assert _description(100).endswith(f"(mech tool name: {NAME})")
