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

"""What each MCP name has stood for since the server started: never another tool (adv29v).

A client lists a tool by its MCP name, a model plans with it and an agent's configuration
keeps it; ``tools/call`` names it and the server pays the mechs of the mech tool behind
it. The exporter's names depend on the set of names served
(``exporters.names.export_names``: a tagged ``prediction_online_71343d6f4810664e`` beside a later
literal copy of it), so a registration could move a served name to another tool. Here
each MCP name, once served, keeps standing for its mech tool while that tool is served,
and is given to no other tool after it is gone (a call naming it is then "not served
now"): a newcomer whose name would take a served one is the one given a tag, except
that a tool's first tag goes back to it from a junior tool literally named so, or from
a junior tool whose own first tag is the same (:meth:`ServedNames.assign`). At most
:data:`MAX_REMEMBERED_NAMES` names are remembered (the longest-gone forgotten first).
"""

import logging
from collections import OrderedDict
from dataclasses import replace
from typing import Any, Dict, List, Set, Tuple

from mech_catalogue_core.exporters.names import (
    MCP_TOOL_RULE,
    export_names,
    sanitise_name,
)
from mech_catalogue_core.model.untrusted_text import label_for_model

from .offers import seniority
from .source import ServedCatalogue, ServedTool

LOGGER = logging.getLogger("mech_catalogue.mcp")

#: MCP names remembered at most (a name of a tool still served is never forgotten)
MAX_REMEMBERED_NAMES = 20_000


def renamed(tool: ServedTool, name: str) -> ServedTool:
    """The tool served under another MCP name (its Tool JSON says so).

    :param tool: a served tool.
    :param name: its MCP name now (valid under ``MCP_TOOL_RULE``).
    :return: ``tool`` itself when the name is its own, else a copy whose Tool ``name``,
        and ``title``s that were the old name, are ``name``; its description names the
        mech tool when the name is not the mech tool's own.
    """
    if name == tool.name:
        return tool
    entry: Dict[str, Any] = dict(tool.tool, name=name)
    if entry.get("title") == tool.name:
        entry["title"] = name
    annotations = entry.get("annotations")
    if isinstance(annotations, dict) and annotations.get("title") == tool.name:
        entry["annotations"] = dict(annotations, title=name)
    note = f"(mech tool name: {label_for_model(tool.mech_tool)})"
    description = str(entry.get("description") or "")
    if name != tool.mech_tool and note not in description:
        # a paragraph of its own: never on the last quoted line of the mech's text
        entry["description"] = f"{description}\n\n{note}".strip()
    return replace(tool, name=name, tool=entry)


class ServedNames:
    """MCP name -> the mech tool it stood for, since the server started."""

    def __init__(self, bound: int = MAX_REMEMBERED_NAMES) -> None:
        """Start with no name served.

        :param bound: names remembered at most (>= 1).
        """
        self.bound = bound
        self._tool_of: "OrderedDict[str, str]" = OrderedDict()
        # (mech tool, MCP name) pairs warned of as served under a taken first tag
        self._warned: Set[Tuple[str, str]] = set()

    def stood_for(self, name: str) -> str:
        """The mech tool an MCP name has stood for ("" when never served or forgotten).

        :param name: an MCP name.
        :return: the mech tool name.
        """
        return self._tool_of.get(name, "")

    def assign(self, served: ServedCatalogue) -> ServedCatalogue:
        """Name a read catalogue's tools as they were served before.

        In order: a mech tool served before keeps its MCP name; a tool keeps the name its
        source gave it unless that name stood for another mech tool (it is held: no
        other tool gets it while remembered) or breaks ``MCP_TOOL_RULE``; the others are named by the exporter's
        rule around every name taken (``export_names`` with ``held``). A mech tool's
        later tools (a hostile agent's duplicates) keep their source's name, unrecorded,
        and are left out when it is taken.

        Before that, a name a tool holds because it is literally its mech tool's name
        goes to the tool whose first tag it is (``sanitise_name``: ``prediction online``
        is ``prediction_online_71343d6f4810664e``) when both are served and the literal one is
        not senior (:func:`_seniority`): the literal copy had it only because the tagged
        tool was absent from an earlier read (adversarial review adv29yp N1), and the
        exporter's rule gives it to the tagged tool when both are read together. A
        senior literal tool keeps it (a stranger grinding a name whose tag is an honest
        literal name takes nothing). Likewise a first tag held by a junior tool whose
        own first tag it is too (two names' tags colliding: 64 bits since adv29zt2, out
        of grinding's reach) goes to the senior one, and tools the exporter names are
        tagged senior first: the same names in a running server as after a restart.
        A tool served under another name than its first tag is warned of once (log).

        :param served: a catalogue as its source named it.
        :return: the same tools (same digest, same order), renamed where needed.
        """
        self._return_first_tags(served)
        first: Dict[str, int] = {}
        for at, tool in enumerate(served.tools):
            first.setdefault(tool.mech_tool, at)
        name_of = {mech_tool: name for name, mech_tool in self._tool_of.items()}
        names = {at: name_of[mech] for mech, at in first.items() if mech in name_of}
        taken = set(self._tool_of) | set(names.values())
        for at in first.values():
            source_name = served.tools[at].name
            # an agent of an older version may name it under the MCP rule's dots
            if (
                at not in names
                and source_name not in taken
                and MCP_TOOL_RULE.accepts(source_name)
            ):
                names[at] = source_name
                taken.add(source_name)
        # tagged senior first: of two names whose first tags collide, the senior's
        for mech_tool, at in sorted(
            first.items(), key=lambda item: _seniority(served.tools[item[1]])
        ):
            if at not in names:
                names[at] = export_names(
                    [mech_tool], MCP_TOOL_RULE, held=frozenset(taken)
                )[mech_tool]
                taken.add(names[at])
        tools: List[ServedTool] = []
        for at, tool in enumerate(served.tools):
            if at in names:
                tools.append(renamed(tool, names[at]))
            elif tool.name not in names.values():
                tools.append(tool)
        for at in names:
            self._tool_of[names[at]] = served.tools[at].mech_tool
            self._tool_of.move_to_end(names[at])
        serving = set(first)
        gone = [name for name, mech in self._tool_of.items() if mech not in serving]
        for name in gone[: max(0, len(self._tool_of) - self.bound)]:
            del self._tool_of[name]
        named = replace(served, tools=tuple(tools))
        self._warn_of_taken_tags(named)
        return named

    def _return_first_tags(self, served: ServedCatalogue) -> None:
        """Give each served tool its first tag back from a junior holder of it.

        A holder is junior when it is the tag literally and not more senior (it had the
        name only while the tagged tool was unread, adv29yp), or when its own first
        tag is the same (a collision, ground or not, adv29zt2) and the tool is more
        senior than it (:func:`_seniority`).

        :param served: the catalogue being named.
        """
        present: Dict[str, ServedTool] = {}
        for tool in served.tools:
            present.setdefault(tool.mech_tool, tool)
        for mech_tool, tool in present.items():
            tag = sanitise_name(mech_tool, MCP_TOOL_RULE)
            holder = self._tool_of.get(tag, "")
            held_by = present.get(holder)
            if tag == mech_tool or holder == mech_tool or held_by is None:
                continue
            if holder == tag:  # literally the tag: senior, it keeps it
                junior = not _seniority(held_by) < _seniority(tool)
            else:  # its own first tag too: only a more senior tool takes it
                junior = sanitise_name(holder, MCP_TOOL_RULE) == tag and (
                    _seniority(tool) < _seniority(held_by)
                )
            if not junior:
                continue
            LOGGER.warning(
                "MCP name %s goes to mech tool %s (its first tag) from mech tool %s, "
                "which has not served longer",
                tag,
                label_for_model(mech_tool),
                label_for_model(holder),
            )
            self._tool_of[tag] = mech_tool
            self._tool_of.move_to_end(tag)

    def _warn_of_taken_tags(self, served: ServedCatalogue) -> None:
        """Warn once of each tool served under another name than its first tag.

        Its first tag stands for another mech tool (a senior one whose tag is the
        same, or a name served before): a client that knew it under that tag calls
        another tool by it.

        :param served: the catalogue as named.
        """
        for tool in served.tools:
            tag = sanitise_name(tool.mech_tool, MCP_TOOL_RULE)
            holder = self._tool_of.get(tag, "")
            if tool.name in (tag, tool.mech_tool) or holder in ("", tool.mech_tool):
                continue
            if (tool.mech_tool, tool.name) in self._warned:
                continue
            if len(self._warned) >= self.bound:
                self._warned.clear()
            self._warned.add((tool.mech_tool, tool.name))
            LOGGER.warning(
                "mech tool %s is served as %s: its first tag %s stands for mech tool %s",
                label_for_model(tool.mech_tool),
                tool.name,
                tag,
                label_for_model(holder),
            )


def _seniority(tool: ServedTool) -> Tuple[Any, ...]:
    """A served tool's most senior offer (``offers.seniority``); no offer: last.

    :param tool: a served tool.
    :return: a sort key, the smaller the more senior.
    """
    keys = [seniority(offer) for offer in tool.offers]
    return (False, min(keys)) if keys else (True, ())
