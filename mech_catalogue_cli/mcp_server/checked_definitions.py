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

"""A tool definition's text checks, kept by the digest of what they read (perf29c).

The checks a listing runs on each tool definition (the exporter's Tool with its
``warnings``, ``exporters.mcp_tool.offered_tool``; the text cleaned for a model,
``mcp_tool_for_model``; the refusals of :mod:`.definition_checks`) read only the
definition, and cost 10-30 ms a tool whose descriptions are long and marked up. The
server recomputes its listing at each catalogue change, mostly the chain's facts (a
delivery, a price), when few definitions changed: 400 such tools took 5 s a change.
``search --json`` reads each match's text warnings through the same cache
(:meth:`CheckedDefinitions.text_problems`): a definition many mechs offer, or a page
printed again in one process, is checked once.

:class:`CheckedDefinitions` keeps each result under the SHA-256 of everything the check
reads (:func:`definition_key`), so a changed definition is a new key and is checked
again: no verdict outlives its text. The pin file's digest (``pins.definition_digest``)
covers only the name, description and schemas the checks return, not the manifest
fields and ``_meta`` they read, and RFC 8785 refuses integers JSON allows, so the key
is the SHA-256 of the read values' sorted-key JSON text instead.

Bounded (``model.memo.BoundedMemo``): at most :data:`MAX_DEFINITIONS` results and
:data:`MAX_HELD_CHARS` characters of them, emptied when full; a result over
:data:`MAX_DEFINITION_CHARS` characters is computed each time, not kept. A flood of
distinct hostile definitions costs time, as without the cache, never memory.
"""

import copy
import hashlib
import json
from typing import Any, Callable, Dict, Hashable, Optional, Sequence, Tuple

from mech_catalogue_core.exporters.mcp_tool import mcp_tool_for_model, offered_tool
from mech_catalogue_core.model.memo import BoundedMemo, MemoInfo
from mech_catalogue_core.model.problems import Problem
from mech_catalogue_core.model.tool import Tool
from mech_catalogue_core.model.untrusted_text import tool_text_problems

from .definition_checks import (
    duty_refusal,
    hidden_text_refusal,
    name_refusal,
    payee_refusal,
    reserved_refusal,
    secret_refusal,
    secret_request_refusal,
    withheld_refusal,
)

#: results kept at most: two catalogues of ``source.MAX_AGENT_TOOLS`` tools, each with
#: its export, its cleaned Tool and its refusal
MAX_DEFINITIONS = 30_000
#: characters of one kept result at most (its JSON text): a listed Tool is at most
#: 32 KiB (``source.MAX_LISTED_TOOL_BYTES``); larger ones are not listed anyway
MAX_DEFINITION_CHARS = 64 * 1024
#: characters kept at most, all results together (16 Mi: 16-64 MiB of text)
MAX_HELD_CHARS = 16 * 1024 * 1024


def definition_key(kind: str, *read: Any) -> Hashable:
    """The key of a check's result: the check's kind and the SHA-256 of what it reads.

    :param kind: which check (results of two checks of one definition differ).
    :param read: the JSON values the check reads (dicts with str keys, lists, text,
        numbers, booleans, None; a lone surrogate is hashed as written).
    :return: ``(kind, 32-byte digest)``.
    """
    text = json.dumps(read, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return kind, hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _chars(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


class CheckedDefinitions:
    """The listing's checks of each definition, computed once per distinct definition.

    Every answer is a new copy: callers add the server's facts to it.
    """

    def __init__(
        self,
        entries: int = MAX_DEFINITIONS,
        max_chars: int = MAX_DEFINITION_CHARS,
        total_chars: int = MAX_HELD_CHARS,
    ) -> None:
        """Start empty.

        :param entries: results kept at most.
        :param max_chars: characters of one kept result at most.
        :param total_chars: characters kept at most.
        """
        self.memo = BoundedMemo(entries, max_chars, total_chars)
        self.hits = 0
        self.misses = 0

    def _kept(self, key: Hashable, check: Callable[[], Any]) -> Any:
        found = self.memo.get(key, self)
        if found is self:
            self.misses += 1
            found = check()
            self.memo.put(key, copy.deepcopy(found), _chars(found))
            return found
        self.hits += 1
        return copy.deepcopy(found)

    def exported(self, tools: Sequence[Tool], name: str) -> Dict[str, Any]:
        """The MCP Tool of a name's offers (``offered_tool``), warnings included.

        :param tools: every mech's tool of the name, the one describing it first.
        :param name: the MCP name.
        :return: a new copy of ``offered_tool(tools, name)``.
        """
        read = [name] + [[t.to_dict()] for t in tools]
        return dict(
            self._kept(
                definition_key("exported", read), lambda: offered_tool(tools, name)
            )
        )

    def for_model(self, entry: Dict[str, Any]) -> Dict[str, Any]:
        """An MCP Tool's text as a model may read it (``mcp_tool_for_model``).

        :param entry: an MCP Tool's JSON as a source serves it.
        :return: a new copy of ``mcp_tool_for_model(entry)``.
        """
        key = definition_key("for_model", entry)
        return dict(self._kept(key, lambda: mcp_tool_for_model(entry)))

    def refusal(
        self, name: str, entry: Dict[str, Any], mech_tool: str = ""
    ) -> Optional[str]:
        """Why a served tool is not listed: a secret asked, hidden or flagged text, a name.

        :param name: the MCP name.
        :param entry: the MCP Tool's JSON as served (the offers' ``_meta`` included).
        :param mech_tool: the mech's own name for the tool ("": ``name``).
        :return: the first of :func:`.definition_checks.secret_refusal`,
            :func:`.definition_checks.secret_request_refusal`,
            :func:`.definition_checks.hidden_text_refusal`,
            :func:`.definition_checks.withheld_refusal`,
            :func:`.definition_checks.name_refusal`,
            :func:`.definition_checks.duty_refusal`,
            :func:`.definition_checks.payee_refusal` and
            :func:`.definition_checks.reserved_refusal` that refuses, or None.
        """
        mech_tool = mech_tool or name

        def check() -> Optional[str]:
            return (
                secret_refusal(entry["inputSchema"])
                or secret_request_refusal(entry)
                or hidden_text_refusal(entry)
                or withheld_refusal(entry)
                or name_refusal(mech_tool, name)
                or duty_refusal(entry)
                or payee_refusal(entry)
                or reserved_refusal(name)
            )

        key = definition_key("refusal", name, mech_tool, entry)
        found: Optional[str] = self._kept(key, check)
        return found

    def text_problems(self, tool: Tool) -> Tuple[Problem, ...]:
        """A tool's text warnings (``untrusted_text.tool_text_problems``).

        Kept by the tool's definition without its provenance
        (``Tool.canonical_body``: what the check reads), so one definition offered by
        many mechs is checked once.

        :param tool: a catalogue tool.
        :return: new :class:`~mech_catalogue_core.model.problems.Problem` values, equal
            to ``tool_text_problems(tool)``'s.
        """
        found = self._kept(
            definition_key("text_problems", tool.canonical_body()),
            lambda: [problem.to_dict() for problem in tool_text_problems(tool)],
        )
        return tuple(Problem.from_dict(problem) for problem in found)

    def info(self) -> Tuple[MemoInfo, int]:
        """Return the counters and the characters held.

        :return: (hits, misses, results at most, results held), and the characters held.
        """
        return (
            MemoInfo(self.hits, self.misses, self.memo.entries, len(self.memo.store)),
            self.memo.held,
        )

    def clear(self) -> None:
        """Forget every result and reset the counters."""
        self.memo.clear()
        self.hits = self.misses = 0


#: the server's one cache of definition checks (every source and listing shares it)
CHECKED = CheckedDefinitions()
