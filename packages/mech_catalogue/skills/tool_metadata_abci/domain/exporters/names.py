"""Tool names for formats that restrict them, with a documented, collision-free mapping.

Restrictions (each format's own documentation):

- OpenAI function calling: ``^[a-zA-Z0-9_-]{1,64}$`` (``function.name``);
- Anthropic tool use: ``^[a-zA-Z0-9_-]{1,64}$`` (``tools[].name``);
- MCP 2025-11-25 (``Tool.name``, "Tool names" guidance): 1-128 characters from
  ``A-Z a-z 0-9 _ - .``.

Mapping (:func:`export_names`): every character outside the allowed set becomes ``_``; an
empty result becomes ``tool``; a name that changed, or that would collide with another
exported name, or that is too long, gets ``_`` + the first 8 hex digits of the sha2-256 of
the original UTF-8 name appended (the base cut so the whole fits the length limit). A name
that is already valid and unique is kept as is. The mapping is returned both ways so a
caller can translate a model's tool call back to the mech's tool name.
"""

import hashlib
import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Pattern, Tuple

from packages.mech_catalogue.skills.tool_metadata_abci.domain.tool import Tool

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ANTHROPIC_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MCP_NAME = re.compile(r"^[a-zA-Z0-9_.-]{1,128}$")

_SUFFIX_LENGTH = 9  # "_" + 8 hex digits


@dataclass(frozen=True)
class NameRule:
    """A format's tool-name rule.

    :param pattern: full-match regular expression of a valid name.
    :param disallowed: a character class matching characters to replace.
    :param max_length: the longest valid name.
    """

    pattern: Pattern[str]
    disallowed: Pattern[str]
    max_length: int


OPENAI_RULE = NameRule(OPENAI_NAME, re.compile(r"[^a-zA-Z0-9_-]"), 64)
ANTHROPIC_RULE = NameRule(ANTHROPIC_NAME, re.compile(r"[^a-zA-Z0-9_-]"), 64)
MCP_RULE = NameRule(MCP_NAME, re.compile(r"[^a-zA-Z0-9_.-]"), 128)


def _tag(name: str) -> str:
    return "_" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]


def _with_tag(base: str, name: str, rule: NameRule) -> str:
    return base[: rule.max_length - _SUFFIX_LENGTH] + _tag(name)


def sanitise_name(name: str, rule: NameRule = OPENAI_RULE) -> str:
    """One name under a rule, ignoring collisions (see :func:`export_names` for sets).

    :param name: the mech's tool name.
    :param rule: the format's rule.
    :return: ``name`` when already valid, else the replaced/cut name with a hash tag.
    """
    if rule.pattern.fullmatch(name):
        return name
    base = rule.disallowed.sub("_", name) or "tool"
    if base != name or len(base) > rule.max_length:
        return _with_tag(base, name, rule)
    return base  # pragma: no cover - a valid-charset, short name matches the pattern


def export_names(names: Iterable[str], rule: NameRule = OPENAI_RULE) -> Dict[str, str]:
    """Map tool names to unique valid names under a rule.

    :param names: the mech tool names, in order (duplicates map once).
    :param rule: the format's rule.
    :return: original name -> exported name, all exported names distinct and valid.
    :raises ValueError: if two names still collide after tagging (a sha2-256 prefix
        collision; never expected in practice).
    """
    ordered = list(dict.fromkeys(names))
    exported: Dict[str, str] = {}
    valid = {n for n in ordered if rule.pattern.fullmatch(n)}
    taken = set(valid)
    for name in ordered:
        if name in valid:
            exported[name] = name
            continue
        candidate = sanitise_name(name, rule)
        if candidate in taken:
            candidate = _with_tag(
                rule.disallowed.sub("_", name) or "tool", name + "#", rule
            )
        if candidate in taken:
            raise ValueError(
                f"tool name {name!r} collides with another after sanitising"
            )
        taken.add(candidate)
        exported[name] = candidate
    return exported


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


def described(tool: Tool, exported: str) -> str:
    """The tool's description, naming the mech tool when the exported name differs.

    :param tool: the model tool.
    :param exported: its exported name.
    :return: the description ("Mech tool <name>." when the tool has none).
    """
    text = tool.description or f"Mech tool {tool.name}."
    return text if exported == tool.name else f"{text} (mech tool name: {tool.name})"
