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

"""Look-alike tool names, said where a client shows them: ``tools/list`` itself.

The catalogue warns each mech offering a name that looks like another
(``catalogue.lookalikes``), but a client only shows the listed Tool. So each listed tool
whose mech tool name has a look-alike among every served tool gets, from
:func:`flag_lookalikes`: the library's ``lookalike_tool_name`` warning in
``_meta[META_KEY]["warnings"]``, a sentence right after the server's "Paid call" facts
(before the mech's own text), and ``title``/``annotations.title`` set to the MCP name
(sanitised to ``A-Za-z0-9_.-``), so a homoglyph is never what a person reads as its
title. A tool whose mech name is not ASCII gets that title too.
"""

import copy
from dataclasses import replace
from typing import Any, Dict, Optional

from mech_catalogue_core.catalogue.lookalikes import lookalike_problems
from mech_catalogue_core.exporters.mcp_tool import with_lookalike_warning
from mech_catalogue_core.model.problems import Problem

from .source import ServedCatalogue, ServedTool

#: how the server's sentence about a look-alike name begins
LOOKALIKE_NOTE = "Warning from this server:"


def noted_description(description: str, note: str) -> str:
    """Put the server's note after its own facts paragraph, before the mech's text.

    :param description: the listed description (``Paid call ...`` first when priced).
    :param note: the server's sentence.
    :return: the description with the note as its second paragraph (first, unpriced).
    """
    if description.startswith("Paid call:"):
        facts, _, rest = description.partition("\n\n")
        return f"{facts}\n\n{note}" + (f"\n\n{rest}" if rest else "")
    return f"{note}\n\n{description}" if description else note


def flagged_entry(
    entry: Dict[str, Any], mech_tool: str, problem: Optional[Problem]
) -> Dict[str, Any]:
    """One Tool with its look-alike warning and a safe title (a new dict).

    :param entry: the MCP Tool JSON.
    :param mech_tool: the mech tool name it stands for.
    :param problem: its ``lookalike_tool_name`` warning (None: none).
    :return: the Tool, unchanged when there is nothing to say.
    """
    if problem is None and mech_tool.isascii():
        return entry
    flagged = with_lookalike_warning(entry, problem)
    if flagged is entry:  # no warning, a name that is not ASCII: its title only
        flagged = copy.deepcopy(entry)
        flagged["title"] = flagged["name"]
        flagged.setdefault("annotations", {})["title"] = flagged["name"]
    if problem is not None:
        note = (
            f"{LOOKALIKE_NOTE} {problem.message} Check the mech "
            "(_meta offers) before calling."
        )
        flagged["description"] = noted_description(
            str(flagged.get("description") or ""), note
        )
    return flagged


def flag_lookalikes(listed: ServedCatalogue, every: ServedCatalogue) -> ServedCatalogue:
    """Flag the listed tools whose mech tool name looks like another served one.

    :param listed: what ``tools/list`` will serve.
    :param every: every tool served (the names compared).
    :return: the listed catalogue, flagged tools replaced.
    """
    found = lookalike_problems(sorted({tool.mech_tool for tool in every.tools}))

    def flagged(tool: ServedTool) -> ServedTool:
        entry = flagged_entry(tool.tool, tool.mech_tool, found.get(tool.mech_tool))
        return tool if entry is tool.tool else replace(tool, tool=entry)

    return replace(listed, tools=tuple(flagged(tool) for tool in listed.tools))
