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

"""Names for formats that restrict them, with a total, deterministic, reversible mapping.

Rules (each consumer's own documentation):

- OpenAI function calling, ``function.name``: ``^[a-zA-Z0-9_-]{1,64}$`` (OpenAI API
  reference, "Chat Completions / tools / function.name");
- Anthropic tool use, ``tools[].name``: ``^[a-zA-Z0-9_-]{1,64}$``, and the keys of
  ``input_schema.properties``: ``^[a-zA-Z0-9_.-]{1,64}$`` (Anthropic Messages API
  reference, "tools"; the same key rule is enforced by Amazon Bedrock's Converse API);
- MCP ``Tool.name`` (specification 2025-11-25 and 2026-07-28, "Tools / Tool names"):
  1-128 characters from ``A-Z a-z 0-9 _ - .``; the MCP names of mech tools keep to
  OpenAI's and Anthropic's rule instead (:data:`MCP_TOOL_RULE`).

Mapping (:func:`export_names`), total for any set of strings (empty, Unicode, any length,
names chosen to collide with another name's sanitised form or its fallbacks):

0. a name in ``kept`` (what a caller served it as before) keeps that exported name, and
   names in ``held`` (served before for names no longer in the set) are taken by none;
1. a name that already matches the rule keeps itself (all such names are reserved first,
   so no renamed name can take one), unless it is the first tag another name of the set
   is given (``prediction_online_71343d6f4810664e`` beside ``prediction online``): a literal copy
   of a renamed name's served name is renamed itself (adv29v), so registering it later
   does not take the name;
2. every other name, in first-seen order, becomes its characters outside the rule's set
   replaced by ``_`` (``name`` when nothing is left), cut so that ``_`` +
   :data:`TAG_HEX_DIGITS` (16) hex digits of the sha2-256 of the original UTF-8 name fit,
   plus that tag (64 bits: a stranger cannot grind a name whose tag is another's; 8
   digits, 32 bits, took minutes: adversarial review adv29zt2);
3. if that is taken, the tag is computed over ``name + "#" + str(k)`` for k = 1, 2, ...
   until a free name is found (the set of taken names is finite, so this ends).

The result depends only on the names, their order, ``kept`` and ``held``;
:func:`reverse_names` maps an exported name back to the mech's own name.
"""

import hashlib
import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import (
    AbstractSet,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Mapping,
    Optional,
    Pattern,
    Tuple,
)

from mech_catalogue_core.catalogue.lookalikes import skeleton
from mech_catalogue_core.exporters.schemas import call_schema
from mech_catalogue_core.model.tool import Tool
from mech_catalogue_core.model.untrusted_text import (
    MAX_TEXT_CHARS,
    label_for_model,
    prose_for_model,
    tool_for_model,
)
from mech_catalogue_core.model.withheld_text import withheld_note, withheld_places

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ANTHROPIC_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ANTHROPIC_KEY = re.compile(r"^[a-zA-Z0-9_.-]{1,64}$")
MCP_NAME = re.compile(r"^[a-zA-Z0-9_.-]{1,128}$")

#: hex digits of a name's tag (64 bits: beyond grinding a second name to the same tag)
TAG_HEX_DIGITS = 16
EMPTY_NAME = "name"


#: the names of the MCP server's own discovery tools (``mech_catalogue_cli.mcp_server.
#: discovery``: ``search_tools``, ``describe_tool``, ``call_tool``); no mech tool is
#: served under one of them, or a look-alike or case variant, in any mode
MCP_RESERVED_NAMES: FrozenSet[str] = frozenset(
    ("search_tools", "describe_tool", "call_tool")
)


_RESERVED_FOLD = str.maketrans(
    {"i": "l", "1": "l", "|": "l", "0": "o", "-": "_", ".": "_"}
)


def _reserved_key(name: str) -> str:
    """The form a reserved name and its variants share: case, look-alikes, separators.

    :param name: a name.
    :return: the look-alike skeleton (``catalogue.lookalikes.skeleton``) of its lower
        case, with ``i``, ``1`` and ``|`` read as ``l``, ``0`` as ``o``, then without
        separators (``_``, ``-``, ``.``) and without one final ``s``: ``calltool``,
        ``call__tool``, ``search_tool`` and ``describe_tools`` stand for the discovery
        tools as much as their exact names do (found by the adversarial review adv29c).
        A stricter fold than the look-alike warning's: a few honest names such as
        ``caii_tool`` are renamed too, none is missed.
    """
    folded = skeleton(name.lower().translate(_RESERVED_FOLD)).replace("_", "")
    return folded[:-1] if folded.endswith("s") else folded


_RESERVED_KEYS = frozenset(_reserved_key(n) for n in MCP_RESERVED_NAMES)


def is_reserved(name: str) -> bool:
    """Whether a name is, or looks like, one of :data:`MCP_RESERVED_NAMES`.

    :param name: a tool name (as published or exported).
    :return: True for ``call_tool``, ``Call_Tool``, ``caII_tool``, ``call-tool``...
    """
    return _reserved_key(name) in _RESERVED_KEYS


@dataclass(frozen=True)
class NameRule:
    """A format's name rule.

    :param pattern: full-match regular expression of a valid name.
    :param disallowed: a character class matching characters to replace.
    :param max_length: the longest valid name.
    :param reserve: True when names :func:`is_reserved` are not valid (the MCP names
        of mech tools: the server's discovery tools own them).
    """

    pattern: Pattern[str]
    disallowed: Pattern[str]
    max_length: int
    reserve: bool = False

    def accepts(self, name: str) -> bool:
        """Whether ``name`` is valid under this rule.

        :param name: a candidate.
        :return: True when it matches the whole pattern (no trailing newline) and, under
            a reserving rule, is not reserved.
        """
        if self.pattern.fullmatch(name) is None:
            return False
        return not (self.reserve and is_reserved(name))


OPENAI_RULE = NameRule(OPENAI_NAME, re.compile(r"[^a-zA-Z0-9_-]"), 64)
ANTHROPIC_RULE = NameRule(ANTHROPIC_NAME, re.compile(r"[^a-zA-Z0-9_-]"), 64)
ANTHROPIC_KEY_RULE = NameRule(ANTHROPIC_KEY, re.compile(r"[^a-zA-Z0-9_.-]"), 64)
MCP_RULE = NameRule(MCP_NAME, re.compile(r"[^a-zA-Z0-9_.-]"), 128)
#: the MCP names of mech tools: the function-name rule of OpenAI's and Anthropic's APIs
#: (``^[a-zA-Z0-9_-]{1,64}$``, within :data:`MCP_RULE`), the discovery tools' names
#: reserved in every mode. Clients such as openai-agents and pydantic-ai send a listed
#: name to the model's API as it is, and those APIs refuse the whole request when one
#: name breaks their rule (adv29zu C4): a stranger's ``tide.table`` or 65-character
#: name would stop every turn of such an agent. A mech tool named outside it
#: (``call_tool``, ``tide.table``) is served as ``<name>_<16 hex>``, the same name on
#: every agent and server; its ``_meta`` keeps the mech tool name
MCP_TOOL_RULE = NameRule(OPENAI_NAME, re.compile(r"[^a-zA-Z0-9_-]"), 64, reserve=True)


def _tag(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return "_" + digest[:TAG_HEX_DIGITS]


def _base(name: str, rule: NameRule) -> str:
    return rule.disallowed.sub("_", name) or EMPTY_NAME


def _tagged(name: str, rule: NameRule, attempt: int) -> str:
    salt = name if attempt == 0 else f"{name}#{attempt}"
    return _base(name, rule)[: rule.max_length - 1 - TAG_HEX_DIGITS] + _tag(salt)


def sanitise_name(name: str, rule: NameRule = OPENAI_RULE) -> str:
    """One name under a rule, ignoring collisions (see :func:`export_names` for sets).

    :param name: the mech's name.
    :param rule: the format's rule.
    :return: ``name`` when already valid, else the replaced/cut name with a hash tag.
    """
    return name if rule.accepts(name) else _tagged(name, rule, 0)


def export_names(
    names: Iterable[str],
    rule: NameRule = OPENAI_RULE,
    kept: Mapping[str, str] = MappingProxyType({}),
    held: AbstractSet[str] = frozenset(),
) -> Dict[str, str]:
    """Map names to unique valid names under a rule (never raises; see the module doc).

    :param names: the mech's names, in order (duplicates map once).
    :param rule: the format's rule.
    :param kept: original name -> the exported name it was served as before (one that
        is no longer valid, or another's already, is ignored).
    :param held: exported names no name of this set may be given (served before for
        names now gone).
    :return: original name -> exported name; exported names are distinct and valid.
    """
    ordered = list(dict.fromkeys(names))
    exported: Dict[str, str] = {}
    taken = set(held)
    for name in ordered:
        before = kept.get(name)
        if before is not None and rule.accepts(before) and before not in taken:
            exported[name] = before
            taken.add(before)
    first_tags = {
        _tagged(n, rule, 0)
        for n in ordered
        if n not in exported and not rule.accepts(n)
    }
    for name in ordered:
        if (
            name not in exported
            and rule.accepts(name)
            and name not in taken
            and name not in first_tags
        ):
            exported[name] = name
            taken.add(name)
    for name in ordered:
        if name in exported:
            continue
        attempt = 0
        candidate = _tagged(name, rule, attempt)
        while candidate in taken:
            attempt += 1
            candidate = _tagged(name, rule, attempt)
        taken.add(candidate)
        exported[name] = candidate
    return {name: exported[name] for name in ordered}


def reverse_names(mapping: Dict[str, str]) -> Dict[str, str]:
    """Return exported name -> original name.

    :param mapping: from :func:`export_names`.
    :return: exported name -> original name.
    """
    return {exported: original for original, exported in mapping.items()}


def named_once(tools: Iterable[Tool], rule: NameRule) -> List[Tuple[Tool, str]]:
    """Each tool name once (the first tool with a name wins), with its exported name.

    :param tools: model tools, in order.
    :param rule: the format's name rule.
    :return: ``(tool, exported name)`` pairs in first-seen order.
    """
    first: Dict[str, Tool] = {}
    for tool in tools:
        first.setdefault(tool.name, tool)
    exported = export_names(first, rule)
    return [(tool, exported[name]) for name, tool in first.items()]


def described(tool: Tool, exported: str, cap: Optional[int] = None) -> str:
    """The tool's description as a model may read it, naming the mech tool when renamed.

    Both texts go through :mod:`..model.untrusted_text` (cleaned and capped). The note
    naming the mech tool is the only link from a renamed tool to the mech's, so the
    mech's text is cut to leave room for it, saying so (adv29w), never the note.

    :param tool: the model tool.
    :param exported: its exported name.
    :param cap: characters of the mech's text and the note together at most (an
        exporter's limit, e.g. OpenAI's 1,024; at least 300, a name and a cut marker);
        None: the mech's text capped at :data:`..model.untrusted_text.MAX_TEXT_CHARS`
        and the note after it.
    :return: the description ("Mech tool <name>." when the tool has none), followed by
        " (mech tool name: <name>)" when renamed, then by the note on its schema's
        withheld text (:func:`..model.withheld_text.withheld_note`, its own paragraph)
        when some was; ``cap`` characters at most.
    """
    name = label_for_model(tool.name)
    note = "" if exported == tool.name else f" (mech tool name: {name})"
    places = withheld_places(call_schema(tool_for_model(tool)), "/parameters")
    withheld = withheld_note(places)
    if withheld:
        note += f"\n\n{withheld}"
    room = MAX_TEXT_CHARS if cap is None else cap - len(note)
    text = prose_for_model(tool.description, room) or f"Mech tool {name}."
    return text + note
