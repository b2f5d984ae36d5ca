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

"""JSON Schemas of a tool's call, as each export format needs them.

The call schema is the model's :meth:`.tool.Tool.input_schema` for typed tools. A tool
without typed arguments (today's ``input: {"type": "text"}`` manifests) is called with the
request's free-text ``prompt`` (valory-xyz/mech task_execution requires ``prompt`` and
``tool`` in every request), so its call schema is an object with one required string
``prompt``.

Every schema this module returns is **self-contained**: argument schemas are stored with
their references already resolved (:mod:`..manifest.schema_refs`), and a recursive argument's
``$defs`` are hoisted to the root of the exported schema (renamed ``<name>_2``... on a
clash, references rewritten), where ``#/$defs/...`` resolves for every consumer.
:func:`portable` then applies the rules every consumer shares: an array has ``items``
(typed: an array without ``items``, or whose ``items`` declare no type, gets
:data:`ANY_ITEMS`, every JSON type but array), a schema
with ``properties`` and no ``type`` is an object.

:func:`strict_schema` rewrites a schema into OpenAI's strict subset (OpenAI API docs,
"Structured Outputs", section "Supported schemas"): every object has
``additionalProperties: false`` and lists all its properties in ``required``; an optional
property becomes nullable instead; ``oneOf`` becomes ``anyOf``; ``allOf`` arms are merged;
``const`` becomes a one-value ``enum``; a type list becomes ``anyOf``; keywords outside the
subset (``default``, ``uniqueItems``, ``minLength``, ``not``, ``if``...) are dropped and
said in the description; a value strict mode cannot express (any value, a free-form
object, a tuple) becomes a string holding JSON text, said so in its description. When
the result still breaks the subset, :class:`NotStrict` is raised and the OpenAI exporter
falls back to ``strict: false``.
"""

import copy
import json
import re
from typing import Any, Dict, List, Optional, Set, Tuple

from mech_catalogue_core.manifest.keywords import (
    NAMED_SUBSCHEMAS,
    SUBSCHEMA_LIST,
    SUBSCHEMA_ONE,
)
from mech_catalogue_core.manifest.parse_tool import (
    join_sentences,
)
from mech_catalogue_core.manifest.schema_refs import (
    self_contained,
)
from mech_catalogue_core.model.tool import Tool
from mech_catalogue_core.model.untrusted_text import capped

PROMPT_DESCRIPTION = "The request text sent to the mech tool."
JSON_TEXT = "JSON-encoded value."
#: ``items`` written for an array that declares none: any JSON value but an array, typed.
#: Not an array: a type list holding ``array`` needs ``items`` of its own, which clients
#: that refuse untyped arrays check in every subschema (issue #34 item 6).
ANY_ITEMS: Dict[str, Any] = {"type": ["string", "number", "boolean", "object", "null"]}
#: Formats strict mode accepts (OpenAI "Supported schemas", "Supported properties").
STRICT_FORMATS = frozenset(
    {
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    }
)
#: Keywords kept by strict mode, per JSON type (OpenAI "Supported properties").
STRICT_KEYWORDS = {
    "string": {"pattern", "format"},
    "number": {
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
    },
    "integer": {
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
    },
    "array": {"items", "minItems", "maxItems"},
    "object": {"properties", "required", "additionalProperties"},
    "boolean": set(),
    "null": set(),
}
_COMMON = {"type", "description", "enum", "anyOf", "$ref", "$defs"}
#: Keywords whose value maps names to schemas in an exported schema: the manifest's, and
#: ``$defs``, where a recursive argument's definitions are hoisted (:mod:`..manifest.keywords`
#: is the one table of schema-valued keywords).
SUBSCHEMA_MAP = NAMED_SUBSCHEMAS + ("$defs",)
#: Keywords that give a schema a type of its own (for "typed array items").
_TYPED = frozenset({"type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const"})
#: A type list holding all of these (``array`` or not, so :data:`ANY_ITEMS` too) is any
#: value: strict mode cannot express it, and it becomes JSON text.
_ANY_KINDS = frozenset({"string", "number", "boolean", "object"})
_DEF_REF = re.compile(r"^#/\$defs/([^/]+)(.*)$")
_JSON_TYPES = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    type(None): "null",
}


class NotStrict(ValueError):
    """Raised when a schema cannot be rewritten into OpenAI's strict subset."""


def call_schema(tool: Tool) -> Dict[str, Any]:
    """JSON Schema 2020-12 of a call's keyword arguments, self-contained and portable.

    :param tool: the model tool.
    :return: a fresh object schema with ``properties``; untyped tools get
        ``{"prompt": string}`` required; recursive arguments' definitions under root
        ``$defs``.
    """
    if not tool.arguments:
        return {
            "type": "object",
            "properties": {
                "prompt": {
                    "type": "string",
                    "description": tool.input_description or PROMPT_DESCRIPTION,
                }
            },
            "required": ["prompt"],
            "additionalProperties": False,
        }
    return portable(hoist_defs(tool.input_schema()))


def hoist_defs(schema: Dict[str, Any]) -> Dict[str, Any]:
    """Move each property's own ``$defs`` to the root, renaming on a clash.

    :param schema: an object schema whose property schemas may carry ``$defs`` (their
        ``#/$defs/...`` references point into them).
    :return: the same schema (modified) with all definitions at the root.
    """
    root_defs: Dict[str, Any] = dict(schema.get("$defs", {}))
    properties = schema.get("properties", {})
    for key, prop in list(properties.items()):
        if not isinstance(prop, dict) or not isinstance(prop.get("$defs"), dict):
            continue
        local = prop.pop("$defs")
        renames: Dict[str, str] = {}
        for name, definition in local.items():
            new, number = name, 1
            while new in root_defs and root_defs[new] != definition:
                number += 1
                new = f"{name}_{number}"
            renames[name] = new
        for name, definition in local.items():
            root_defs[renames[name]] = _rename_refs(definition, renames)
        properties[key] = _rename_refs(prop, renames)
    if root_defs:
        schema["$defs"] = root_defs
    return schema


def _rename_refs(node: Any, renames: Dict[str, str]) -> Any:
    if isinstance(node, list):
        return [_rename_refs(v, renames) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str):
            match = _DEF_REF.match(value)
            if match and match.group(1) in renames:
                value = f"#/$defs/{renames[match.group(1)]}{match.group(2)}"
            out[key] = value
        elif key in ("enum", "const", "default", "examples", "required"):
            out[key] = copy.deepcopy(value)
        else:
            out[key] = _rename_refs(value, renames)
    return out


def portable(schema: Any) -> Any:
    """Apply the rules every consumer shares (see the module docstring), recursively.

    :param schema: a JSON Schema (not modified).
    :return: a new schema.
    """
    if not isinstance(schema, dict):
        return schema
    out = {key: _portable_keyword(key, value) for key, value in schema.items()}
    if "type" not in out and "$ref" not in out:
        if isinstance(out.get("properties"), dict):
            out["type"] = "object"
        elif "items" in out or "prefixItems" in out:
            out["type"] = "array"
    kinds = out.get("type")
    is_array = kinds == "array" or (isinstance(kinds, list) and "array" in kinds)
    if is_array and "prefixItems" not in out:
        items = out.get("items", True)
        if items is True:
            out["items"] = copy.deepcopy(ANY_ITEMS)
        elif isinstance(items, dict) and not _TYPED & set(items):
            out["items"] = {**items, **copy.deepcopy(ANY_ITEMS)}
    return out


def _portable_keyword(key: str, value: Any) -> Any:
    if key in SUBSCHEMA_ONE:
        return portable(value)
    if key in SUBSCHEMA_MAP and isinstance(value, dict):
        return {k: portable(v) for k, v in value.items()}
    if key in SUBSCHEMA_LIST and isinstance(value, list):
        return [portable(v) for v in value]
    return copy.deepcopy(value)


def output_object_schema(tool: Tool) -> Optional[Dict[str, Any]]:
    """The tool's output schema when it describes a JSON object (what MCP requires).

    :param tool: the model tool.
    :return: the self-contained, portable schema dict, or None when absent, not of type
        object, or holding a reference that does not resolve.
    """
    schema = tool.output_schema
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return None
    bundled, problems = self_contained(schema)
    if problems or not isinstance(bundled, dict):
        return None
    return portable(bundled)


def strict_schema(schema: Dict[str, Any]) -> Dict[str, Any]:
    """Rewrite an object schema into OpenAI strict mode (see the module docstring).

    :param schema: a self-contained object schema (not modified).
    :return: a new schema; root ``$defs`` are rewritten too.
    :raises NotStrict: when a part cannot be expressed in the subset.
    """
    schema = copy.deepcopy(schema)
    defs = schema.pop("$defs", None)
    out = _strict(schema, nullable=False)
    if out.get("type") != "object":
        raise NotStrict("the root is not an object")
    if isinstance(defs, dict) and defs:
        out["$defs"] = {k: _strict(v, nullable=False) for k, v in defs.items()}
    return out


def _describe(schema: Dict[str, Any], extra: str) -> None:
    schema["description"] = join_sentences(schema.get("description", ""), extra)


def _json_text(description: str) -> Dict[str, Any]:
    schema: Dict[str, Any] = {"type": "string"}
    _describe(schema, description)
    _describe(schema, JSON_TEXT)
    return schema


def _merge_all_of(schema: Dict[str, Any]) -> Dict[str, Any]:
    arms = schema.pop("allOf")
    for arm in arms:
        if not isinstance(arm, dict):
            raise NotStrict("allOf with a boolean arm")
        for key, value in arm.items():
            if key == "properties":
                schema.setdefault("properties", {}).update(value)
            elif key == "required":
                schema["required"] = list(
                    dict.fromkeys(list(schema.get("required", [])) + list(value))
                )
            elif key == "description":
                _describe(schema, str(value))
            elif key in schema and schema[key] != value:
                raise NotStrict(f"allOf arms disagree on {key!r}")
            else:
                schema[key] = value
    return schema


def _infer_type(schema: Dict[str, Any]) -> Optional[str]:
    if isinstance(schema.get("properties"), dict):
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    values = schema.get("enum")
    if isinstance(values, list) and values:
        kinds = {_JSON_TYPES.get(type(v)) for v in values}
        if kinds == {"integer", "number"}:
            return "number"
        if len(kinds) == 1 and None not in kinds:
            return kinds.pop()
    return None


def _strict(  # pylint: disable=too-many-branches,too-many-statements,too-many-return-statements
    schema: Any, nullable: bool
) -> Dict[str, Any]:
    if not isinstance(schema, dict):
        if schema is True:
            return _wrap_null(_json_text(""), nullable)
        raise NotStrict("the schema `false` accepts nothing")
    schema = dict(schema)
    notes: List[str] = []
    if "$ref" in schema:
        out: Dict[str, Any] = {"$ref": schema["$ref"]}
        return _wrap_null(out, nullable)
    if "default" in schema:
        notes.append(
            f"Default: {json.dumps(schema.pop('default'), sort_keys=True, ensure_ascii=False)}."
        )
    if "const" in schema:
        schema["enum"] = [schema.pop("const")]
    if "allOf" in schema:
        schema = _merge_all_of(schema)
    if "oneOf" in schema:
        arms = schema.pop("oneOf")
        schema["anyOf"] = list(schema.get("anyOf", [])) + list(arms)
        notes.append("Exactly one alternative applies.")
    kinds = schema.get("type")
    if isinstance(kinds, list) and _ANY_KINDS <= set(kinds):  # any value: JSON text
        return _wrap_null(
            _json_text(join_sentences(schema.get("description", ""), " ".join(notes))),
            nullable,
        )
    if isinstance(kinds, list):
        if "null" in kinds:
            nullable = True
        kinds = [k for k in kinds if k != "null"]
        if not kinds:
            return {"type": "null", **_only_description(schema)}
        if len(kinds) == 1:
            schema["type"] = kinds[0]
        else:
            description = schema.pop("description", "")
            rest = {k: v for k, v in schema.items() if k != "type"}
            out = {
                "anyOf": [_strict({**rest, "type": k}, nullable=False) for k in kinds]
            }
            if description or notes:
                out["description"] = join_sentences(description, " ".join(notes))
            return _wrap_null(out, nullable)
    if "anyOf" in schema:
        arms = [_strict(a, nullable=False) for a in schema.pop("anyOf")]
        description = join_sentences(schema.pop("description", ""), " ".join(notes))
        leftover = {k for k in schema if k not in _COMMON and k not in ("title",)}
        if leftover - {"format", "examples", "$comment", "deprecated"}:
            raise NotStrict(f"anyOf beside {sorted(leftover)}")
        out = {"anyOf": arms}
        if description:
            out["description"] = description
        return _wrap_null(out, nullable)
    if "type" not in schema:
        inferred = _infer_type(schema)
        if inferred is None and "enum" not in schema:
            return _wrap_null(
                _json_text(
                    join_sentences(schema.get("description", ""), " ".join(notes))
                ),
                nullable,
            )
        if inferred is not None:
            schema["type"] = inferred
    kind = schema.get("type")
    if kind == "object" and not schema.get("properties"):
        return _wrap_null(
            _json_text(join_sentences(schema.get("description", ""), " ".join(notes))),
            nullable,
        )
    if kind == "array" and (
        "prefixItems" in schema or not isinstance(schema.get("items", {}), dict)
    ):
        return _wrap_null(
            _json_text(
                join_sentences(schema.get("description", ""), "A JSON array (a tuple).")
            ),
            nullable,
        )
    allowed = (
        _COMMON | STRICT_KEYWORDS.get(kind, set()) if isinstance(kind, str) else _COMMON
    )
    out = {}
    for key, value in schema.items():
        if key in allowed:
            out[key] = value
        elif key == "uniqueItems" and value:
            notes.append("Items must be unique.")
        elif key in (
            "minLength",
            "maxLength",
            "minProperties",
            "maxProperties",
            "minContains",
            "maxContains",
        ):
            notes.append(f"{key}: {json.dumps(value)}.")
        elif key in (
            "not",
            "if",
            "then",
            "else",
            "contains",
            "patternProperties",
            "propertyNames",
            "dependentRequired",
            "dependentSchemas",
            "unevaluatedProperties",
            "unevaluatedItems",
        ):
            text = json.dumps(value, sort_keys=True, ensure_ascii=False)
            notes.append(f"Also: {key} {capped(text, 200)}.")
    if out.get("format") is not None and out.get("format") not in STRICT_FORMATS:
        notes.append(f"Format: {out.pop('format')}.")
    if kind == "object":
        properties = out.get("properties", {})
        required = set(out.get("required", []))
        out["properties"] = {
            key: _strict(value, nullable=key not in required)
            for key, value in properties.items()
        }
        out["required"] = list(properties)
        if schema.get("additionalProperties", False) not in (False,):
            notes.append("No other keys are accepted.")
        out["additionalProperties"] = False
    if kind == "array":
        items = out.get("items")
        out["items"] = (
            _strict(items, nullable=False)
            if isinstance(items, dict)
            else {"type": "string", "description": JSON_TEXT}
        )
    if notes:
        _describe(out, " ".join(notes))
    return _wrap_null(out, nullable)


def _only_description(schema: Dict[str, Any]) -> Dict[str, Any]:
    text = schema.get("description")
    return {"description": text} if isinstance(text, str) and text else {}


def _wrap_null(schema: Dict[str, Any], nullable: bool) -> Dict[str, Any]:
    if not nullable:
        return schema
    options = schema.get("anyOf") if set(schema) <= {"anyOf", "description"} else None
    if isinstance(options, list):
        if not any(o.get("type") == "null" for o in options):
            schema["anyOf"] = options + [{"type": "null"}]
        return schema
    kind = schema.get("type")
    if (
        isinstance(kind, str)
        and kind not in ("object", "array")
        and "enum" not in schema
    ):
        schema["type"] = [kind, "null"]
        return schema
    description = schema.pop("description", None) if "$ref" not in schema else None
    wrapped: Dict[str, Any] = {"anyOf": [schema, {"type": "null"}]}
    if description:
        wrapped["description"] = description
    return wrapped


def rename_keys(schema: Any, accepts: Any, rename: Any) -> Tuple[Any, Dict[str, str]]:
    """Rename property keys a consumer refuses, in every ``properties`` map.

    :param schema: a JSON Schema (not modified).
    :param accepts: ``key -> bool``, whether a key is valid.
    :param rename: ``keys -> {key: new key}``, a total unique mapping (e.g.
        :func:`.names.export_names` with a rule).
    :return: (the new schema, top-level renames exported key -> mech key); ``required``
        follows, and each renamed property's description names the mech's key.
    """
    top: Dict[str, str] = {}

    def walk(node: Any, depth: int) -> Any:
        if isinstance(node, list):
            return [walk(v, depth + 1) for v in node]
        if not isinstance(node, dict):
            return node
        out: Dict[str, Any] = {}
        mapping: Dict[str, str] = {}
        properties = node.get("properties")
        if isinstance(properties, dict) and not all(accepts(k) for k in properties):
            mapping = rename(list(properties))
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                renamed = {}
                for prop, sub in value.items():
                    new = mapping.get(prop, prop)
                    sub = walk(sub, depth + 1)
                    if new != prop and isinstance(new, str):
                        if isinstance(sub, dict):
                            sub = dict(sub)
                            _describe(sub, f"Mech argument name: {prop}.")
                        if depth == 0:
                            top[new] = prop
                    renamed[new] = sub
                out[key] = renamed
            elif key == "required" and isinstance(value, list):
                out[key] = [
                    mapping.get(v, v) if isinstance(v, str) else v for v in value
                ]
            elif key in ("enum", "const", "default", "examples"):
                out[key] = copy.deepcopy(value)
            else:
                out[key] = walk(value, depth + 1)
        return out

    return walk(schema, 0), top


def collect_refs(schema: Any) -> Set[str]:
    """Every ``$ref`` string in a schema.

    :param schema: a JSON Schema.
    :return: the set of reference strings.
    """
    found: Set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                found.add(ref)
            stack.extend(
                v
                for k, v in node.items()
                if k not in ("enum", "const", "default", "examples")
            )
        elif isinstance(node, list):
            stack.extend(node)
    return found
