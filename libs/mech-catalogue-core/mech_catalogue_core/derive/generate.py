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

"""Generate a manifest (spec version 1) from tool packages, with optional overrides.

Output shape (``spec/manifest-v1.schema.json``, docs/manifest-spec.md): today's
``tools`` + ``toolMetadata`` (so existing readers keep working) plus ``specVersion: "1"``
and typed ``arguments`` per tool, described again as the ``input.schema`` JSON Schema
that today's readers (mech-client's ``mechx tool schema``, the marketplace front end,
the trader) read (:func:`published_input_schema`). Every generated document is checked twice before it is
returned: against the JSON Schema (:func:`.validation.validate_manifest`) and by parsing it
back (:func:`.parsing.parse_document`) with no error allowed.

Overrides (a YAML or JSON mapping, all keys optional)::

    name: My Mech                      # top-level fields: name, description, image, url,
    description: What it does          #   inputFormat, outputFormat
    tools:
      <tool name>:
        exclude: true                  # leave this tool out
        description: Better text
        input: {description: The question}
        output: {type: object, description: ..., schema: {...}}
        examples: [...]
        arguments:
          <identifier>:                # merged over what derivation found
            type: hexAddress
            description: ...
            required: true
            default: ...
            enum: [...]
            schema: {...}
            exclude: true              # leave this argument out
            new: true                  # declare an argument derivation cannot see
    defaults:                          # applied to every tool before its own entry
      output: {...}                    #   (same fields as a tool; its arguments apply
                                       #   to the tools that have them)

Overrides are checked against the derived packages before anything is generated: a key
that is not a field above, a tool no package serves, or an argument the tool's code does
not read (without ``new: true``) is an error naming it and the closest known name
(:mod:`difflib`), so a typo never silently changes the manifest.
"""

import copy
import difflib
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from mech_catalogue_core.derive.derive import (
    DerivedPackage,
)
from mech_catalogue_core.exporters.schemas import (
    hoist_defs,
)
from mech_catalogue_core.manifest.parsing import (
    parse_document,
)
from mech_catalogue_core.manifest.validation import (
    IO_FIELDS,
    quality_problems,
    validate_manifest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.tool import (
    Argument,
    Tool,
)
from mech_catalogue_core.model.types import (
    normalise_type,
)

SPEC_VERSION = "1"
DEFAULT_FORMAT = "ipfs-v0.1"
_TOP_LEVEL_OVERRIDES = (
    "name",
    "description",
    "image",
    "url",
    "inputFormat",
    "outputFormat",
)
_TOOL_OVERRIDES = ("description", "input", "output", "examples")
_ARGUMENT_KEYS = ("type", "description", "required", "default", "enum", "schema")
#: the keys an overrides file may hold at each level (anything else is a typo)
_OVERRIDE_KEYS = _TOP_LEVEL_OVERRIDES + ("tools", "defaults")
_TOOL_KEYS = _TOOL_OVERRIDES + ("arguments", "exclude")
_DEFAULTS_KEYS = _TOOL_OVERRIDES + ("arguments",)
_ARGUMENT_OVERRIDE_KEYS = _ARGUMENT_KEYS + ("exclude", "new")

INVALID_OVERRIDES = P.INVALID_OVERRIDES
UNKNOWN_OVERRIDE_TOOL = P.UNKNOWN_OVERRIDE_TOOL
UNKNOWN_OVERRIDE_ARGUMENT = P.UNKNOWN_OVERRIDE_ARGUMENT
DUPLICATE_TOOL_ACROSS_PACKAGES = P.DUPLICATE_TOOL_ACROSS_PACKAGES
GENERATED_MANIFEST_INVALID = P.GENERATED_MANIFEST_INVALID


class GenerateError(ValueError):
    """Raised when no valid manifest can be generated; carries every problem.

    :param problems: what is wrong, each naming the field and what to do.
    """

    def __init__(self, problems: Sequence[P.Problem]) -> None:
        """Initialise.

        :param problems: the problems (at least one).
        """
        super().__init__("; ".join(p.message for p in problems))
        self.problems = tuple(problems)


def argument_entry(argument: Argument) -> Dict[str, Any]:
    """Return its manifest-v1 ``arguments`` item.

    :param argument: a model argument.
    :return: its manifest-v1 ``arguments`` item.
    """
    entry: Dict[str, Any] = {
        "identifier": argument.identifier,
        "type": argument.type,
        "required": argument.required,
    }
    if argument.description:
        entry["description"] = argument.description
    if argument.has_default:
        entry["default"] = argument.default
    return entry


def tool_entry(tool: Tool) -> Dict[str, Any]:
    """Return its manifest-v1 ``toolMetadata`` value.

    :param tool: a model tool.
    :return: its manifest-v1 ``toolMetadata`` value.
    """
    entry: Dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "input": {
            "type": tool.input_type or "text",
            "description": tool.input_description,
        },
        "output": {
            "type": tool.output_type or "object",
            "description": tool.output_description,
        },
        "arguments": [argument_entry(a) for a in tool.arguments],
    }
    if tool.output_schema is not None:
        entry["output"]["schema"] = tool.output_schema
    if tool.examples_json:
        entry["examples"] = list(tool.examples)
    return entry


def _override_problem(message: str, path: str = "") -> P.Problem:
    return P.error(INVALID_OVERRIDES, message, path)


def closest(name: str, known: Iterable[str]) -> str:
    """Name the closest known spelling, for a message about an unknown name.

    :param name: what the user wrote.
    :param known: the names that exist.
    :return: ``" Did you mean 'x'?"`` (difflib's closest match), or the known names when
        none is close, or ``""`` when nothing is known.
    """
    candidates = sorted(set(known))
    match = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    if match:
        return f" Did you mean {match[0]!r}?"
    if not candidates:
        return ""
    shown = ", ".join(repr(c) for c in candidates[:10])
    return f" Known: {shown}{', ...' if len(candidates) > 10 else ''}."


def _unknown_keys(
    entry: Dict[str, Any], allowed: Sequence[str], what: str, *where: Any
) -> List[P.Problem]:
    return [
        _override_problem(
            f"Overrides {what} has no field {key!r}.{closest(str(key), allowed)}",
            P.pointer(*where, key),
        )
        for key in entry
        if key not in allowed
    ]


def _check_argument_fields(
    arguments: Dict[str, Any], tool: str, *where: Any
) -> List[P.Problem]:
    found = []
    for identifier, fields in arguments.items():
        pointer = P.pointer(*where, "arguments", identifier)
        if not isinstance(fields, dict):
            found.append(
                _override_problem(
                    f"Overrides for argument {identifier!r} of {tool} must be a mapping.",
                    pointer,
                )
            )
            continue
        found += _unknown_keys(
            fields,
            _ARGUMENT_OVERRIDE_KEYS,
            f"for argument {identifier!r} of {tool}",
            *where,
            "arguments",
            identifier,
        )
        if "type" in fields and normalise_type(fields["type"]) is None:
            found.append(
                _override_problem(
                    f"Type {fields['type']!r} of argument {identifier!r} of {tool} is not in the type vocabulary "
                    "(int, float, bool, str, uint256, hexAddress, bytes32, hexBytes, url, dict, enum, any, list[T]...).",
                    pointer + "/type",
                )
            )
    return found


def _check_entry(
    entry: Any, allowed: Sequence[str], tool: str, *where: Any
) -> List[P.Problem]:
    if not isinstance(entry, dict):
        return [
            _override_problem(
                f"Overrides for {tool} must be a mapping.", P.pointer(*where)
            )
        ]
    found = _unknown_keys(entry, allowed, f"for {tool}", *where)
    for block in ("input", "output"):
        found += _check_io(entry.get(block, {}), block, tool, *where)
    arguments = entry.get("arguments", {})
    if not isinstance(arguments, dict):
        return found + [
            _override_problem(
                f"Overrides {'.'.join(map(str, where))}.arguments must map identifiers to fields.",
                P.pointer(*where, "arguments"),
            )
        ]
    return found + _check_argument_fields(arguments, tool, *where)


def _check_io(value: Any, block: str, tool: str, *where: Any) -> List[P.Problem]:
    """An ``input``/``output`` override: a mapping of ``type``, ``description``, ``schema``.

    ``output: {type: object, description: The answer, as JSON}`` is YAML for a
    description cut at the comma plus a field ``as JSON`` with no value: that field is
    named, with the hint to quote the text.

    :param value: the override.
    :param block: ``input`` or ``output``.
    :param tool: how to name the tool in messages.
    :param where: the pointer parts of the tool's entry.
    :return: one INVALID_OVERRIDES error per unknown field (or one when not a mapping).
    """
    if not isinstance(value, dict):
        return [
            _override_problem(
                f"Overrides {block} for {tool} must be a mapping.",
                P.pointer(*where, block),
            )
        ]
    found = []
    for key, field in value.items():
        if key in IO_FIELDS:
            continue
        hint = (
            " It has no value: in a YAML `{...}` mapping a comma ends the text; quote it."
            if field is None
            else closest(str(key), IO_FIELDS)
        )
        found.append(
            _override_problem(
                f"Overrides {block} for {tool} has no field {str(key)!r}.{hint}",
                P.pointer(*where, block, key),
            )
        )
    return found


def _check_overrides(overrides: Any) -> List[P.Problem]:
    if overrides is None:
        return []
    if not isinstance(overrides, dict):
        return [
            _override_problem(
                "The overrides file must be a mapping (YAML or JSON object)."
            )
        ]
    found = _unknown_keys(overrides, _OVERRIDE_KEYS, "file")
    for key in ("tools", "defaults"):
        if key in overrides and not isinstance(overrides[key], dict):
            found.append(
                _override_problem(
                    f"Overrides `{key}` must be a mapping.", P.pointer(key)
                )
            )
    if found:
        return found
    if "defaults" in overrides:
        found += _check_entry(
            overrides["defaults"], _DEFAULTS_KEYS, "`defaults`", "defaults"
        )
    for name, entry in (overrides.get("tools") or {}).items():
        found += _check_entry(entry, _TOOL_KEYS, f"tool {name!r}", "tools", name)
    return found


def _check_names(
    overrides: Dict[str, Any], arguments_by_tool: Dict[str, Sequence[str]]
) -> List[P.Problem]:
    """Every tool and argument the overrides name must exist in the derived packages.

    :param overrides: overrides that passed :func:`_check_overrides`.
    :param arguments_by_tool: tool name -> identifiers derivation found, in package order.
    :return: one error per unknown tool or argument, naming the closest known name.
    """
    found = []
    for name, entry in (overrides.get("tools") or {}).items():
        if name not in arguments_by_tool:
            found.append(
                P.error(
                    UNKNOWN_OVERRIDE_TOOL,
                    f"Overrides name tool {name!r}, which no tool package serves."
                    f"{closest(str(name), arguments_by_tool)}",
                    P.pointer("tools", name),
                )
            )
            continue
        known = arguments_by_tool[name]
        for identifier, fields in (entry.get("arguments") or {}).items():
            if identifier not in known and not fields.get("new"):
                found.append(
                    P.error(
                        UNKNOWN_OVERRIDE_ARGUMENT,
                        f"Overrides name argument {identifier!r} of tool {name!r}, which "
                        f"its code does not read.{closest(str(identifier), known)} "
                        "(To declare an argument derivation cannot see, add `new: true`.)",
                        P.pointer("tools", name, "arguments", identifier),
                    )
                )
    every = {i for identifiers in arguments_by_tool.values() for i in identifiers}
    for identifier, fields in (
        (overrides.get("defaults") or {}).get("arguments") or {}
    ).items():
        if identifier not in every and not fields.get("new"):
            found.append(
                P.error(
                    UNKNOWN_OVERRIDE_ARGUMENT,
                    f"Overrides `defaults` name argument {identifier!r}, which no tool reads."
                    f"{closest(str(identifier), every)} "
                    "(To add it to every tool, add `new: true`.)",
                    P.pointer("defaults", "arguments", identifier),
                )
            )
    return found


def _apply_tool_overrides(
    entry: Dict[str, Any], overrides: Dict[str, Any]
) -> Dict[str, Any]:
    for key in _TOOL_OVERRIDES:
        if key not in overrides:
            continue
        if key in ("input", "output") and isinstance(overrides[key], dict):
            entry[key] = {**entry.get(key, {}), **copy.deepcopy(overrides[key])}
        else:
            entry[key] = copy.deepcopy(overrides[key])
    argument_overrides = overrides.get("arguments") or {}
    arguments = []
    known = set()
    for argument in entry["arguments"]:
        known.add(argument["identifier"])
        fields = argument_overrides.get(argument["identifier"], {})
        if fields.get("exclude"):
            continue
        merged = {
            **argument,
            **{k: copy.deepcopy(v) for k, v in fields.items() if k in _ARGUMENT_KEYS},
        }
        arguments.append(merged)
    for identifier, fields in argument_overrides.items():
        if identifier not in known and fields.get("new") and not fields.get("exclude"):
            added = {"identifier": identifier, "type": "any", "required": False}
            added.update(
                {k: copy.deepcopy(v) for k, v in fields.items() if k in _ARGUMENT_KEYS}
            )
            arguments.append(added)
    entry["arguments"] = arguments
    return entry


def generate_manifest(
    packages: Iterable[DerivedPackage], overrides: Optional[Dict[str, Any]] = None
) -> Tuple[Dict[str, Any], Tuple[P.Problem, ...]]:
    """Build, check and return a manifest-v1 document.

    :param packages: derived tool packages (:func:`.derive.derive_package`), in order.
    :param overrides: the overrides mapping (see the module docstring), or None.
    :return: ``(document, warnings)``: the manifest and the non-fatal problems (derivation
        warnings and parse warnings such as untyped tools).
    :raises GenerateError: on bad overrides (malformed, an unknown field, a tool no
        package serves, an argument the tool does not read), a tool name served by two
        packages, or a document that fails the schema or parses with errors.
    """
    overrides = overrides if overrides is not None else {}
    found = _check_overrides(overrides)
    if found:
        raise GenerateError(found)
    packages = list(packages)
    found = _check_names(
        overrides,
        {
            tool.name: [a.identifier for a in tool.arguments]
            for package in packages
            for tool in package.to_tools()
        },
    )
    if found:
        raise GenerateError(found)
    tool_overrides = overrides.get("tools") or {}
    defaults = overrides.get("defaults") or {}
    names: List[str] = []
    metadata: Dict[str, Any] = {}
    warnings: List[P.Problem] = []
    owner: Dict[str, str] = {}
    for package in packages:
        warnings.extend(package.problems)
        for tool in package.to_tools():
            if tool.name in owner:
                found.append(
                    P.error(
                        DUPLICATE_TOOL_ACROSS_PACKAGES,
                        f"Tool {tool.name!r} is served by packages {owner[tool.name]!r} and {package.name!r}; "
                        "rename one or exclude it in the overrides.",
                        P.pointer("toolMetadata", tool.name),
                    )
                )
                continue
            owner[tool.name] = package.name
            specific = tool_overrides.get(tool.name) or {}
            if specific.get("exclude"):
                continue
            entry = _apply_tool_overrides(tool_entry(tool), defaults)
            metadata[tool.name] = _apply_tool_overrides(entry, specific)
            names.append(tool.name)
    if found:
        raise GenerateError(found)
    document: Dict[str, Any] = {
        "specVersion": SPEC_VERSION,
        "name": "",
        "description": "",
        "inputFormat": DEFAULT_FORMAT,
        "outputFormat": DEFAULT_FORMAT,
        "tools": names,
        "toolMetadata": metadata,
    }
    for key in _TOP_LEVEL_OVERRIDES:
        if key in overrides:
            document[key] = copy.deepcopy(overrides[key])
    check_generated(
        document
    )  # the arguments as readers read them, before describing them
    add_input_schemas(document)
    return document, tuple(warnings) + check_generated(document)


def published_input_schema(tool: Tool) -> Optional[Dict[str, Any]]:
    """The ``input.schema`` today's readers read, for a typed tool.

    mech-client's ``mechx tool schema``, the marketplace front end and the trader read a
    tool's keyword arguments from ``input.schema`` (the JSON Schema object mech-predict's
    manifest generator writes from its ``tool_schemas.yaml``), not from our
    ``arguments``: each argument becomes a property (its schema, description and
    default; recursive definitions at the root ``$defs``), the required ones listed in
    ``required``. Left open (no ``additionalProperties``), as mech-predict writes it: a
    request also carries ``prompt`` and ``tool``.

    :param tool: a tool as the parser reads it back from the generated manifest.
    :return: the JSON Schema object, or None for a tool without typed arguments.
    """
    if not tool.arguments:
        return None
    schema = hoist_defs(tool.input_schema())
    schema.pop("additionalProperties", None)
    return schema


def add_input_schemas(document: Dict[str, Any]) -> None:
    """Write each typed tool's :func:`published_input_schema` beside its ``arguments``.

    Readers of this specification take ``arguments`` first (docs/manifest-spec.md
    section 8), so the schema changes nothing they read; an ``input.schema`` the
    overrides give is kept.

    :param document: a generated manifest that passed :func:`check_generated`.
    """
    parsed = parse_document(document)
    assert parsed.manifest is not None  # nosec - check_generated passed
    for tool in parsed.manifest.tools:
        schema = published_input_schema(tool)
        entry = document["toolMetadata"][tool.name]
        if schema is not None and "schema" not in entry["input"]:
            entry["input"]["schema"] = schema


def check_generated(document: Dict[str, Any]) -> Tuple[P.Problem, ...]:
    """Schema-check and parse back a generated manifest.

    :param document: the manifest.
    :return: the parse warnings, then :func:`.validation.quality_problems` (no name or
        description, ``any``-typed arguments).
    :raises GenerateError: on any schema violation or parse error.
    """
    errors = list(validate_manifest(document))
    parsed = parse_document(document)
    errors += [p for p in parsed.problems if p.is_error]
    if parsed.manifest is None and not errors:
        errors.append(
            P.error(
                GENERATED_MANIFEST_INVALID, "The generated manifest does not parse."
            )
        )
    if errors or parsed.manifest is None:
        raise GenerateError(errors)
    return tuple(p for p in parsed.problems if not p.is_error) + quality_problems(
        parsed.manifest
    )
