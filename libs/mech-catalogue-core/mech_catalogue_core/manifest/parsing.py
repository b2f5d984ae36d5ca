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

"""Parse manifest bytes of any shape seen in the wild into a :class:`.model.Manifest`.

Top-level shapes: ``tools`` as a list of names only; ``tools`` + ``toolMetadata``
(per-tool shapes are handled by :mod:`.parse_tool`); ``tools`` holding tool objects
``{name, kwargs, ...}`` (the seed's typed kwargs proposal), alone or mixed with names; a
single tool object ``{name, kwargs}`` as the whole document (read as a one-tool manifest);
manifest v1 (``specVersion: "1"``, typed ``arguments``); a top-level ``description``
whose JSON holds tool metadata (:func:`description_json`; registry NFT metadata
``{name, description, code_uri, image, attributes}`` is such a document).
:func:`parse_manifest` never raises on any input: it returns a
:class:`ParseResult` holding the manifest (None when the whole document is rejected) and
every Problem found. One bad tool never discards the good ones.
"""

import re
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Tuple, Union

from mech_catalogue_core.manifest.parse_tool import (
    _kind,
    join_sentences,
    parse_tool,
    text_field,
)
from mech_catalogue_core.manifest.typed_fast_path import (
    typed_manifest,
)
from mech_catalogue_core.manifest.validation import (
    decode_json,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.canonical import (
    canonical_text,
)
from mech_catalogue_core.model.catalogue import (
    Manifest,
)
from mech_catalogue_core.model.hidden_characters import name_hiding
from mech_catalogue_core.model.limits import (
    DEFAULT_LIMITS,
    Limits,
)
from mech_catalogue_core.model.tool import (
    SHAPE_DESCRIPTION_JSON,
    Provenance,
    Tool,
)

TOP_LEVEL_KEYS = frozenset(
    {"name", "description", "tools", "toolMetadata", "specVersion"}
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class ParseResult:
    """Outcome of parsing one manifest.

    :param manifest: the parsed manifest, or None when the document was rejected.
    :param problems: the errors and warnings, in document order: at most
        ``Limits.max_problems`` (errors first), then one ``problems_truncated`` warning
        counting the rest when there were more.
    """

    manifest: Optional[Manifest]
    problems: Tuple[P.Problem, ...] = ()

    @property
    def ok(self) -> bool:
        """Return true when a manifest came out (it may still carry warnings/errors).

        :return: True when a manifest came out (it may still carry warnings/errors).
        """
        return self.manifest is not None

    @property
    def errors(self) -> Tuple[P.Problem, ...]:
        """Return problems of severity error.

        :return: problems of severity error.
        """
        return tuple(p for p in self.problems if p.is_error)

    @property
    def warnings(self) -> Tuple[P.Problem, ...]:
        """Return problems of severity warning.

        :return: problems of severity warning.
        """
        return tuple(p for p in self.problems if not p.is_error)

    @property
    def codes(self) -> Tuple[str, ...]:
        """Return the problem codes, in order.

        :return: the problem codes, in order.
        """
        return tuple(p.code for p in self.problems)


def parse_manifest(
    data: Union[bytes, str], limits: Limits = DEFAULT_LIMITS
) -> ParseResult:
    """Decode strictly (:func:`.validation.decode_json`) and parse. Never raises.

    The common typed shape is read by :func:`.typed_fast_path.typed_manifest` (in C,
    only when it gives the same manifest and no problem); everything else, and
    whatever it declines, by :func:`parse_manifest_general`.

    :param data: manifest bytes as fetched from IPFS.
    :param limits: caps on size, depth, tools, arguments, text.
    :return: the result.
    """
    manifest = typed_manifest(data, limits)
    if manifest is not None:
        return ParseResult(manifest)
    return parse_manifest_general(data, limits)


def parse_manifest_general(
    data: Union[bytes, str], limits: Limits = DEFAULT_LIMITS
) -> ParseResult:
    """Parse any manifest: decode strictly, then read every shape. Never raises.

    :param data: manifest bytes (a str is encoded as UTF-8 first).
    :param limits: caps on size, depth, tools, arguments, text.
    :return: the result.
    """
    decoded = decode_json(data, limits)
    if not decoded.ok:
        return ParseResult(None, P.cap_problems(decoded.problems, limits.max_problems))
    return parse_document(decoded.value, limits)


def parse_document(document: Any, limits: Limits = DEFAULT_LIMITS) -> ParseResult:
    """Parse an already strictly decoded JSON value (see :func:`parse_manifest`).

    Problems are collected in a :class:`.problems.CappedProblems`, so however many the
    document causes, at most ``2 * limits.max_problems`` are held at once.

    :param document: the decoded value.
    :param limits: caps.
    :return: the result.
    """
    found = P.CappedProblems(limits.max_problems)
    manifest = _parse_document(document, limits, found)
    return ParseResult(manifest, found.capped())


def _parse_document(  # pylint: disable=too-many-locals
    document: Any, limits: Limits, found: List[P.Problem]
) -> Optional[Manifest]:
    """Parse a decoded JSON value (see :func:`parse_document`).

    :param document: the decoded value.
    :param limits: caps.
    :param found: problems are appended here.
    :return: the manifest, or None when the document is rejected.
    """
    if not isinstance(document, dict):
        found.append(
            P.error(
                P.NOT_AN_OBJECT,
                f"The manifest is {_kind(document)}; it must be a JSON object with `tools`.",
            )
        )
        return None
    entries = _typed_field(
        document, "tools", list, "an array of tool names or tool objects", found
    )
    metadata = _typed_field(
        document, "toolMetadata", dict, "an object keyed by tool name", found
    )
    described, near_miss = read_description_json(document.get("description"), limits)
    if near_miss is not None:
        found.append(near_miss)
    if entries is None and metadata is None and is_single_tool(document):
        return _parse_single_tool(document, limits, found)
    if entries is None and metadata is None and described is None:
        found.append(
            P.error(
                P.NO_TOOLS,
                "The manifest has no usable `tools` array or `toolMetadata` object; it is not a mech manifest.",
            )
        )
        return None
    candidates = _candidates(entries or [], metadata or {})
    by_name: Dict[str, Tuple[str, Dict[str, Any]]] = {}
    if described is not None and not candidates and described.over_cap:
        found.append(
            P.error(
                P.TOO_MANY_TOOLS,
                f"The JSON in /description describes {described.count} tools, over the "
                f"cap of {limits.max_tools}; split the manifest.",
                "/description",
            )
        )
        return None
    if described is not None and described.over_cap:
        found.append(
            P.warning(
                P.TOO_MANY_DESCRIBED_TOOLS,
                f"The JSON in /description describes {described.count} tools, over the "
                f"cap of {limits.max_tools}; only the first {limits.max_tools} were read. "
                "List the tools in `tools` and keep `description` for people.",
                "/description",
            )
        )
    if described is not None and not candidates:  # description JSON adds the tools
        candidates = [
            (obj.get("name"), where + "/name", obj, where, True)
            for where, obj in described.tools
        ]
    elif described is not None:  # it only types the listed tools
        by_name = {
            obj["name"]: (where, obj) for where, obj in reversed(described.tools)
        }
    if len(candidates) > limits.max_tools:
        found.append(
            P.error(
                P.TOO_MANY_TOOLS,
                f"The manifest lists {len(candidates)} tools, over the cap of {limits.max_tools}; split it.",
            )
        )
        return None
    withheld: List[Tool] = []
    tools = _tools(
        candidates,
        metadata or {},
        "toolMetadata" in document,
        limits,
        found,
        by_name,
        withheld,
    )
    if described is not None:
        if not by_name:
            tools = [
                replace(t, provenance=Provenance(SHAPE_DESCRIPTION_JSON)) for t in tools
            ]
        _described_report(described, tools, withheld, found, listed=bool(by_name))
    _warn_if_empty(tools, found)
    spec_version = document.get("specVersion", "")
    if not isinstance(spec_version, str):
        found.append(
            P.error(
                P.WRONG_TYPE,
                'Field /specVersion should be the string "1"; it was ignored.',
                "/specVersion",
            )
        )
        spec_version = ""
    return Manifest(
        name=text_field(document, "name", "", limits, found),
        description=(
            text_field(document, "description", "", limits, found)
            if described is None
            else text_field({"d": described.text}, "d", "/description", limits, [])
        ),
        tools=tuple(tools),
        extra_json=canonical_text(
            {k: v for k, v in document.items() if k not in TOP_LEVEL_KEYS}
        ),
        spec_version=spec_version[:20],
        withheld=tuple(withheld),
    )


@dataclass(frozen=True)
class DescribedTools:
    """Tool metadata found as JSON in a manifest's top-level ``description``.

    :param text: the human text kept: the plain-text part before the JSON, joined with
        the JSON object's own ``description`` when it has one.
    :param tools: (pointer, tool object) pairs, at most ``Limits.max_tools``; pointers
        continue past ``/description`` into the decoded JSON (``/description/tools/0``).
    :param count: how many tool objects the JSON holds (more than ``len(tools)`` when
        it holds more than the tool cap; those past it are not read).
    """

    text: str
    tools: Tuple[Tuple[str, Dict[str, Any]], ...]
    count: int = 0

    @property
    def over_cap(self) -> bool:
        """Return true when the JSON describes more tools than were read.

        :return: True when tools past the tool cap were not read.
        """
        return self.count > len(self.tools)


#: fields only a tool object has (a bare ``{name, description}`` is not tool metadata)
_TOOL_FIELDS = ("kwargs", "arguments", "input", "output")


def _is_tool_object(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("name"), str)
        and any(key in value for key in _TOOL_FIELDS)
    )


def _not_a_tool(item: Any) -> str:
    """Say what an item lacks to be a tool object ("" when it is one).

    :param item: one item of the JSON in the description.
    :return: a clause such as "has no string `name`", or "".
    """
    if not isinstance(item, dict):
        return f"is {_kind(item)}"
    if not isinstance(item.get("name"), str):
        return "has no string `name`"
    if not any(key in item for key in _TOOL_FIELDS):
        return "has no `kwargs`, `arguments`, `input` or `output`"
    return ""


def _near_miss(value: Any, description: str, start: int) -> Optional[P.Problem]:
    """Explain why JSON in the description that looks like tool metadata was kept as text.

    It looks like tool metadata when it is an object with `tools`, with a string `name`
    or with a tool field, or an array holding an object; other JSON stays text silently.

    :param value: the decoded JSON (None when it did not decode).
    :param description: the whole description.
    :param start: where the JSON starts in it.
    :return: an ``description_json_not_tools`` warning, or None.
    """
    needs = (
        "a tool needs a string `name` and `kwargs` (or `arguments`, `input`, `output`)"
    )
    if value is None:
        body = description[start:].rstrip()
        if description[:start].strip() or body[-1:] not in ("}", "]"):
            return None  # text that only contains braces
        return P.warning(
            P.DESCRIPTION_JSON_NOT_TOOLS,
            "The description looks like JSON but does not decode, so it was kept as "
            "text; fix the JSON (check quotes and commas) if it holds tool metadata.",
            "/description",
        )
    if isinstance(value, dict) and isinstance(value.get("tools"), list):
        items, base = value["tools"], "/description/tools"
    elif isinstance(value, list) and any(isinstance(i, dict) for i in value):
        items, base = value, "/description"
    elif isinstance(value, dict) and (
        isinstance(value.get("name"), str) or any(k in value for k in _TOOL_FIELDS)
    ):
        return P.warning(
            P.DESCRIPTION_JSON_NOT_TOOLS,
            f"The JSON in /description {_not_a_tool(value)}, so it was kept as text; "
            f"{needs}.",
            "/description",
        )
    else:
        return None
    if not items:
        return P.warning(
            P.DESCRIPTION_JSON_NOT_TOOLS,
            f"The JSON in /description has an empty `tools` array, so it was kept as "
            f"text; add the tools to it: {needs}.",
            base,
        )
    bad = [(i, _not_a_tool(item)) for i, item in enumerate(items)]
    bad = [(i, why) for i, why in bad if why]
    first, why = bad[0]
    return P.warning(
        P.DESCRIPTION_JSON_NOT_TOOLS,
        f"The JSON in /description was kept as text: {base}/{first} {why} "
        f"({len(bad)} of {len(items)} items are not tools); {needs}.",
        f"{base}/{first}",
    )


def description_json(description: Any, limits: Limits) -> Optional[DescribedTools]:
    """Read tool metadata held as JSON in a manifest's top-level ``description``.

    See :func:`read_description_json`, which also says why JSON that looks like tool
    metadata was kept as text.

    :param description: the top-level ``description`` value, any JSON value.
    :param limits: caps.
    :return: the tools and the text kept, or None when the description holds none.
    """
    return read_description_json(description, limits)[0]


def read_description_json(
    description: Any, limits: Limits
) -> Tuple[Optional[DescribedTools], Optional[P.Problem]]:
    """Read tool metadata held as JSON in a manifest's top-level ``description``.

    The JSON is the whole description, or its end after a plain-text part (the first
    ``{`` or ``[`` starts it). It is tool metadata when it is a tool object (a ``name``
    and one of ``kwargs``, ``arguments``, ``input``, ``output``), a non-empty array of
    them, or an object whose ``tools`` is a non-empty array of them; anything else
    (plain text, other JSON) stays text. Decoding is as strict as for the manifest.
    Only the first ``limits.max_tools`` tool objects are read.

    When the JSON looks like tool metadata but is not (an item without a string
    ``name`` or without any of ``kwargs``, ``arguments``, ``input``, ``output``; an
    empty ``tools``; a description that starts as JSON and does not decode), the
    description stays text and a ``description_json_not_tools`` warning says why, at
    the first bad item's pointer.

    :param description: the top-level ``description`` value, any JSON value.
    :param limits: caps (the JSON may be up to the manifest's own size; at most
        ``max_tools`` tool objects are read).
    :return: (the tools and the text kept, or None when the description holds none;
        the warning explaining a near miss, or None).
    """
    if not isinstance(description, str):
        return None, None
    starts = [i for i in (description.find("{"), description.find("[")) if i >= 0]
    if not starts:
        return None, None
    start = min(starts)
    decoded = decode_json(description[start:], limits)
    value = decoded.value
    if not decoded.ok:
        return None, _near_miss(None, description, start)
    own = ""
    if isinstance(value, dict) and isinstance(value.get("tools"), list):
        own = value.get("description", "")
        own = own if isinstance(own, str) else ""
        items, base = value["tools"], "/description/tools"
    elif isinstance(value, list):
        items, base = value, "/description"
    elif _is_tool_object(value):
        items, base = [value], "/description"
    else:
        return None, _near_miss(value, description, start)
    if not items or not all(_is_tool_object(item) for item in items):
        return None, _near_miss(value, description, start)
    count, items = len(items), items[: max(limits.max_tools, 0)]
    pointers = (
        [base]
        if isinstance(value, dict) and base == "/description"
        else [f"{base}/{i}" for i in range(len(items))]
    )
    described = DescribedTools(
        text=join_sentences(description[:start], own),
        tools=tuple(zip(pointers, items)),
        count=count,
    )
    return described, None


def _typed_by_description(
    tool: Tool,
    problems: List[P.Problem],
    described: Tuple[str, Dict[str, Any]],
    limits: Limits,
) -> Tuple[Tool, List[P.Problem]]:
    """Give a listed tool without typed arguments those of its description-JSON object.

    Explicit entries win: only the arguments are taken (the tool keeps its own
    description, input and output, unless it has no description).

    :param tool: the tool as read from ``tools``/``toolMetadata``.
    :param problems: its problems so far.
    :param described: (pointer, tool object) from :func:`description_json`.
    :param limits: caps.
    :return: the tool and its problems; when the described object has typed arguments,
        the ``untyped_input``/``tool_without_metadata`` warnings are withdrawn and the
        provenance shape is ``description_json``.
    """
    where, obj = described
    typed, typed_problems = parse_tool(tool.name, obj, where, limits)
    if not typed.arguments:
        return tool, problems + [p for p in typed_problems if p.is_error]
    untyped = (P.UNTYPED_INPUT, P.TOOL_WITHOUT_METADATA)
    merged = replace(
        tool,
        arguments=typed.arguments,
        description=tool.description or typed.description,
        provenance=Provenance(SHAPE_DESCRIPTION_JSON),
    )
    return merged, [p for p in problems if p.code not in untyped] + typed_problems


def _described_report(
    described: DescribedTools,
    offered: List[Tool],
    withheld: List[Tool],
    found: List[P.Problem],
    listed: bool = True,
) -> None:
    """Note that the description was read; report described tools that are not offered.

    :param described: from :func:`description_json`.
    :param offered: the manifest's tools.
    :param withheld: the tools withheld for errors (listed, not offered).
    :param found: problems are appended here.
    :param listed: `tools` lists the mech's tools (the described ones only type them);
        when False the described tools are the mech's tools, so none is "not listed"
        (one dropped for its name was reported as such).
    """
    found.append(
        P.warning(
            P.DESCRIPTION_JSON_PARSED,
            "Field /description holds tool metadata as JSON; it was read. Publish the "
            "tools in `tools` (manifest v1) and keep `description` for people.",
            "/description",
        )
    )
    if not listed:
        return
    names = {t.name for t in offered + withheld}
    for where, obj in described.tools:
        if obj["name"] not in names:
            found.append(
                P.warning(
                    P.DESCRIPTION_TOOL_NOT_LISTED,
                    f"{where} describes tool {obj['name'][:40]!r}, which /tools does not "
                    "list; it is not offered. Add it to `tools` or remove it.",
                    where,
                )
            )


def _typed_field(
    document: Dict[str, Any], key: str, kind: type, wanted: str, found: List[P.Problem]
) -> Any:
    """Read a top-level field that must have one JSON type.

    :param document: the manifest object.
    :param key: the field name.
    :param kind: ``list`` or ``dict``.
    :param wanted: how to name the expected value in the message.
    :param found: a WRONG_TYPE error is appended here when the type is wrong.
    :return: the value, or None when absent or of the wrong type.
    """
    value = document.get(key)
    if value is None and key not in document:
        return None
    if isinstance(value, kind):
        return value
    found.append(
        P.error(
            P.WRONG_TYPE,
            f"Field /{key} should be {wanted}, not {_kind(value)}; it was ignored.",
            "/" + key,
        )
    )
    return None


def name_problem(name: Any, where: str, limits: Limits) -> Optional[P.Problem]:
    """Check a tool name.

    :param name: the candidate.
    :param where: its JSON Pointer.
    :param limits: caps.
    :return: an INVALID_TOOL_NAME problem, or None when the name is fine.
    """
    if not isinstance(name, str):
        reason = f"is {_kind(name)}, not a string"
    elif not name.strip(" "):  # other blanks are control characters, caught below
        reason = "is empty or blank"
    elif len(name) > limits.max_name_length:
        reason = f"has {len(name)} characters, over {limits.max_name_length}"
    elif _CONTROL.search(name):
        reason = "contains control characters"
    elif name_hiding(name):
        reason = name_hiding(name)
    else:
        return None
    shown = f" {name[:32]!r}" if isinstance(name, str) else ""
    return P.error(
        P.INVALID_TOOL_NAME,
        f"Tool name{shown} at {where} {reason}; the tool was dropped.",
        where,
    )


#: one tool to read: (name, JSON Pointer of the name, inline tool object or None,
#: JSON Pointer of that object, listed in `tools`)
Candidate = Tuple[Any, str, Optional[Dict[str, Any]], str, bool]


def _candidates(entries: List[Any], metadata: Dict[str, Any]) -> List[Candidate]:
    """List the tools a manifest names: `tools` entries first, then unlisted metadata keys.

    :param entries: the `tools` array: names, tool objects ``{name, ...}``, or garbage.
    :param metadata: the `toolMetadata` object.
    :return: the candidates, in document order.
    """
    candidates: List[Candidate] = []
    for index, entry in enumerate(entries):
        where = f"/tools/{index}"
        if isinstance(entry, dict):
            candidates.append((entry.get("name"), where + "/name", entry, where, True))
        else:
            candidates.append((entry, where, None, where, True))
    listed = {c[0] for c in candidates if isinstance(c[0], str)}
    for key in metadata:
        if key not in listed:
            where = "/toolMetadata" + P.pointer(key)
            candidates.append((key, where, None, where, False))
    return candidates


def is_single_tool(document: Dict[str, Any]) -> bool:
    """Tell whether a document without `tools`/`toolMetadata` is one typed tool object.

    :param document: the manifest object.
    :return: True for the seed proposal's ``{name, kwargs}`` (or ``{name, arguments}``).
    """
    if "tools" in document or "toolMetadata" in document:
        return False
    return "name" in document and ("kwargs" in document or "arguments" in document)


def _parse_single_tool(
    document: Dict[str, Any], limits: Limits, found: List[P.Problem]
) -> Manifest:
    """Read a single tool object as a manifest serving that one tool.

    The manifest takes the tool's name and description; every field belongs to the tool
    (unknown ones end up in the tool's ``extra``), so the manifest has no ``extra``.

    :param document: ``{name, kwargs | arguments, ...}``.
    :param limits: caps.
    :param found: problems are appended here.
    :return: the manifest.
    """
    candidate = (document.get("name"), "/name", document, "", True)
    withheld: List[Tool] = []
    tools = _tools([candidate], {}, False, limits, found, None, withheld)
    _warn_if_empty(tools, found)
    name = document.get("name")
    return Manifest(
        name=name if isinstance(name, str) and (tools or withheld) else "",
        description=tools[0].description if tools else "",
        tools=tuple(tools),
        withheld=tuple(withheld),
    )


def _warn_if_empty(tools: List[Tool], found: List[P.Problem]) -> None:
    if not tools:
        found.append(
            P.warning(
                P.NO_TOOLS,
                "The manifest yields no valid tool; the mech serves nothing callers can use.",
            )
        )


def _tools(
    candidates: List[Candidate],
    metadata: Dict[str, Any],
    has_metadata: bool,
    limits: Limits,
    found: List[P.Problem],
    described: Optional[Dict[str, Tuple[str, Dict[str, Any]]]] = None,
    withheld: Optional[List[Tool]] = None,
) -> List[Tool]:
    """Parse each candidate tool; a bad one is dropped with a problem, the rest survive.

    :param candidates: from :func:`_candidates`.
    :param metadata: the `toolMetadata` object ({} when absent).
    :param has_metadata: whether the document has `toolMetadata` at all.
    :param limits: caps.
    :param found: problems are appended here.
    :param described: tool objects from the top-level description JSON by name, with
        their pointers: a tool left without typed arguments takes the described ones.
    :param withheld: tools with an error-level problem that withholds them
        (:func:`.problems.withholds`: not only a dropped argument, input schema or output
        schema) are appended here, as parsed; such a tool is not returned (a
        TOOL_WITHHELD error says so).
    :return: the tools, in candidate order, names unique.
    """
    described = described or {}
    withheld = [] if withheld is None else withheld
    tools: List[Tool] = []
    seen = set()
    for name, name_at, inline, where, in_tools in candidates:
        problem = name_problem(name, name_at, limits)
        if problem is not None:
            found.append(problem)
            continue
        if name in seen:
            found.append(
                P.error(
                    P.DUPLICATE_TOOL,
                    f"Tool {name!r} at {where} is listed twice; the repeat was dropped.",
                    where,
                )
            )
            continue
        seen.add(name)
        meta_path = "/toolMetadata" + P.pointer(name)
        tool_problems: List[P.Problem] = []
        if name in metadata:
            if not in_tools:
                tool_problems.append(
                    P.warning(
                        P.METADATA_WITHOUT_TOOL,
                        f"{meta_path} is not listed in /tools; add {name!r} to `tools`.",
                        meta_path,
                    )
                )
            meta = metadata[name]
            if inline is not None and isinstance(meta, dict):
                meta = {**inline, **meta}  # toolMetadata wins over the `tools` object
            tool, parsed = parse_tool(name, meta, meta_path, limits)
            tool_problems.extend(parsed)
        elif inline is not None:
            tool, parsed = parse_tool(name, inline, where, limits)
            tool_problems.extend(parsed)
        else:
            if has_metadata:
                tool_problems.append(
                    P.warning(
                        P.TOOL_WITHOUT_METADATA,
                        f"Tool {name!r} ({where}) has no {meta_path} entry; callers only know its name.",
                        where,
                    )
                )
            tool = Tool(name=name)
        if not tool.arguments and name in described:
            tool, tool_problems = _typed_by_description(
                tool, tool_problems, described[name], limits
            )
        found.extend(tool_problems)
        if any(
            P.withholds(p) for p in tool_problems
        ):  # errors withhold but a dropped part
            withheld.append(tool)
            found.append(
                P.error(
                    P.TOOL_WITHHELD,
                    f"Tool {name[:60]!r} at {where or '/'} is not offered: fix the "
                    "errors reported for it, then publish the manifest again.",
                    where,
                )
            )
            continue
        tools.append(tool)
    return tools
