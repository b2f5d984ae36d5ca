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
``_meta[META_KEY]["warnings"]``, a sentence kept as the tool's ``server_notes`` (put
right after the server's facts, before the mech's own text, when the description is
composed: ``source.listed_description``), and ``title``/``annotations.title`` set to
the MCP name (sanitised to ``A-Za-z0-9_-``), so a homoglyph is never what a person
reads as its title. A tool whose mech name is not ASCII gets that title too.
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


def lookalike_note(problem: Problem) -> str:
    """The server's sentence about a look-alike name, as a listed description holds it.

    :param problem: the ``lookalike_tool_name`` warning.
    :return: :data:`LOOKALIKE_NOTE`, the warning's message, and what to check.
    """
    return (
        f"{LOOKALIKE_NOTE} {problem.message} Check the mech (_meta offers) before "
        "calling."
    )


def flagged_entry(
    entry: Dict[str, Any], mech_tool: str, problem: Optional[Problem]
) -> Dict[str, Any]:
    """One Tool with its look-alike warning and a safe title (a new dict).

    The description is left as it is: the note goes in ``ServedTool.server_notes``
    (:func:`flag_lookalikes`).

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
    return flagged


def flag_lookalikes(listed: ServedCatalogue, every: ServedCatalogue) -> ServedCatalogue:
    """Flag the listed tools whose mech tool name looks like another served one.

    Run before the descriptions are composed (``ServedCatalogue.with_facts``): the
    note is kept apart from any text, so the composition puts it after the facts.

    :param listed: what ``tools/list`` will serve.
    :param every: every tool served (the names compared).
    :return: the listed catalogue, flagged tools replaced (each note in
        ``server_notes``).
    """
    found = lookalike_problems(sorted({tool.mech_tool for tool in every.tools}))

    def flagged(tool: ServedTool) -> ServedTool:
        problem = found.get(tool.mech_tool)
        entry = flagged_entry(tool.tool, tool.mech_tool, problem)
        if problem is None:
            return tool if entry is tool.tool else replace(tool, tool=entry)
        notes = tool.server_notes + (lookalike_note(problem),)
        return replace(tool, tool=entry, server_notes=notes)

    return replace(listed, tools=tuple(flagged(tool) for tool in listed.tools))
