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
"""Honest tool names refused at parse as hiding text (adv29z K9).

Severity: LOW (no stranger gains; an honest mech loses the tool on every surface:
the catalogue drops it as ``invalid_tool_name``, so no agent, export or MCP server
offers it).

Observed on main (fix29yc: :func:`.hidden_characters.name_hiding`): any character of
``INVISIBLE_RANGES`` or any ``<`` a markup rule reads as raw HTML makes a name
invalid, so names whose format characters are part of what they show are refused: an
emoji with its presentation selector (``❤️`` is U+2764 U+FE0F as keyboards type it),
a ZWJ emoji sequence (a family), a keycap (``1️⃣``), a Persian word that needs its
zero-width non-joiner (``می‌خواهم``), a Devanagari conjunct written with a ZWJ, and a
comparison ``a<b`` that no renderer reads as a tag (CommonMark needs a ``>``).

Expected: a name whose joiners and selectors sit where they only shape what is shown
(a variation selector after an emoji base, a ZWJ between emoji, a ZWJ/ZWNJ between
letters of a script that uses them: RFC 5892's CONTEXTJ rules, UTS #51's sequences) is
kept, and ``<`` not followed by a tag is no markup. A name that *hides* text (a tag
character, a selector after a letter, a joiner between Latin letters) stays refused.
"""

import json

import pytest
from mech_catalogue_core.manifest.parsing import parse_manifest

HONEST = [
    "love \u2764\ufe0f tides",
    "family \U0001f468\u200d\U0001f469\u200d\U0001f467 planner",
    "keycap 1\ufe0f\u20e3 counter",
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
    "\u0915\u094d\u200d\u0937 lookup",
    "is a<b",
]


def _manifest(name: str) -> bytes:
    """A one-tool manifest naming its tool ``name``."""
    return json.dumps(
        {
            "name": "Tides",
            "description": "Tide tables.",
            "tools": [name],
            "toolMetadata": {
                name: {
                    "description": "High and low water for a port.",
                    "arguments": [
                        {
                            "identifier": "port",
                            "type": "string",
                            "description": "The port.",
                            "required": True,
                        }
                    ],
                }
            },
        },
        ensure_ascii=False,
    ).encode()


def test_the_control_name_is_kept() -> None:
    """A plain name is kept on main."""
    manifest = parse_manifest(_manifest("love tides")).manifest
    assert manifest is not None and [t.name for t in manifest.tools] == ["love tides"]


@pytest.mark.parametrize("name", HONEST)
def test_an_honest_name_is_kept(name: str) -> None:
    """The joiner or selector shapes what is shown; it hides no text."""
    result = parse_manifest(_manifest(name))
    tools = [] if result.manifest is None else [t.name for t in result.manifest.tools]
    # observed before fix29yj: no tool, invalid_tool_name
    assert tools == [name], result.codes
