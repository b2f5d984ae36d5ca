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

"""The server's notes on what it changed of a listed tool: withheld text, another name.

Clients such as openai-agents, pydantic-ai and langchain-mcp-adapters hand their model
a tool's description and schemas, never ``_meta`` (adversarial review adv29zu), so what
the server changed of a stranger's tool is said in the description, in the server's
part (``ServedTool.server_notes``, put after the facts by
``source.listed_description``), as well as in ``_meta``:

- text withheld from its schemas (``exporters.mcp_tool.withheld_note_of``: the places
  that read "(withheld by this server: ...)", found in the served schemas themselves;
  the exporter's copy of that note ending the mech's description is moved here);
- a mech tool named outside the function-name rule of OpenAI's and Anthropic's APIs
  (``exporters.names.MCP_TOOL_RULE``), listed under a derived name
  (:func:`renamed_note`); ``_meta[META_KEY]["mechToolName"]`` names the mech's, and a
  call by either name reaches the same offers (``ServedCatalogue.named``).
"""

from dataclasses import replace
from typing import Any, Dict

from mech_catalogue_core.exporters.mcp_tool import META_KEY, withheld_note_of
from mech_catalogue_core.model.quoted_text import quoted_for_model
from mech_catalogue_core.model.withheld_text import WITHHELD_NOTE

from .source import ServedCatalogue, ServedTool

#: how the server's note on a renamed tool begins
RENAMED_NOTE = "Note from this server:"
#: how the exporter's note on withheld schema text begins (``withheld_text``)
WITHHELD_SCHEMA_NOTE = f"{WITHHELD_NOTE} text of this tool's schema "


def renamed_note(name: str, mech_tool: str) -> str:
    """The server's sentence on a tool listed under another name than its mech's.

    :param name: the MCP name listed.
    :param mech_tool: the mech's own tool name.
    :return: "" when they are the same; else the sentence, both names as JSON strings.
    """
    if name == mech_tool:
        return ""
    mech_name, listed = (quoted_for_model(n, quote='"') for n in (mech_tool, name))
    return (
        f"{RENAMED_NOTE} the mech names this tool {mech_name}; it is listed as "
        f"{listed}, a name model APIs take (A-Z, a-z, 0-9, _ and -, at most 64 "
        "characters, never this server's own tools' names). A call by either name "
        "reaches the same offers."
    )


def _noted(tool: ServedTool) -> ServedTool:
    entry: Dict[str, Any] = tool.tool
    withheld = withheld_note_of(entry)
    notes = tuple(
        note
        for note in (withheld, renamed_note(tool.name, tool.mech_tool))
        if note and note not in tool.server_notes
    )
    if not notes:
        return tool
    description = str(entry.get("description") or "")
    copy_at = description.rfind(f"\n\n{WITHHELD_SCHEMA_NOTE}")
    if withheld and copy_at >= 0 and "\n\n" not in description[copy_at + 2 :]:
        # the exporter's copy of this note ends the description: said once, in the
        # server's part (the copy's places are the mech's schemas', the server's
        # those of the schemas it serves: a paid answer's sit inside its envelope)
        entry = dict(entry, description=description[:copy_at])
    if tool.name != tool.mech_tool:
        meta = dict((entry.get("_meta") or {}).get(META_KEY) or {})
        meta["mechToolName"] = tool.mech_tool
        entry = dict(entry, _meta=dict(entry.get("_meta") or {}, **{META_KEY: meta}))
    return replace(tool, tool=entry, server_notes=tool.server_notes + notes)


def note_changes(listed: ServedCatalogue) -> ServedCatalogue:
    """Give each listed tool the server's notes on its withheld text and its name.

    Run before the descriptions are composed (``ServedCatalogue.with_facts``).

    :param listed: what ``tools/list`` will serve.
    :return: the catalogue, noted tools replaced (notes in ``server_notes``; a renamed
        tool's ``_meta[META_KEY]["mechToolName"]`` set).
    """
    return replace(listed, tools=tuple(_noted(tool) for tool in listed.tools))
