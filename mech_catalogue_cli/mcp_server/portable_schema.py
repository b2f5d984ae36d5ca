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

"""The part of a mech's output schema that every common validator reads the same.

MCP clients check a result's ``structuredContent`` against the tool's listed
``outputSchema`` with different validators: the Python SDK's with ``jsonschema``
(2020-12, formats not asserted, Python ``re``), the TypeScript SDK's with Ajv and
``ajv-formats`` (formats asserted, ECMA-262 patterns; its first major reads schemas as
draft-07, where ``prefixItems`` is unknown and an ``items`` array is a tuple, and
compiles every listed output schema at ``listTools``, so one pattern ECMA-262 refuses
fails the whole listing). A structured answer the server delivers after its own check
was refused by the others, and lost for them (adv29zy F1); one stranger's pattern hid
every tool of the server from them (adv29zy F2).

So the mech's schema is listed only with keywords whose meaning those validators share
(:data:`PORTABLE_VALUES`, :data:`PORTABLE_SUBSCHEMAS`): everything else is left out of
the listed schema, which only makes it accept more. Where leaving a keyword out would
make it accept less (a ``not`` or a ``oneOf`` branch that lost one, an ``items`` after
``prefixItems``, ``additionalProperties`` beside ``patternProperties``), the enclosing
keyword is left out (or ``oneOf`` listed as ``anyOf``) too. The server still checks an
answer against the mech's whole schema (``ServedTool.answer_schema``): what it returns
structured passed that check, so it matches the laxer listed schema under every client.
Nothing here is a regular expression, compiled or run.
"""

from typing import Any, Dict, FrozenSet, List, Mapping, Set, Tuple

from mech_catalogue_core.exporters.js_integers import DECIMAL_PATTERN

#: keywords whose value is no schema and reads the same under every common validator
PORTABLE_VALUES = frozenset(
    {
        "type",
        "required",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "description",
        "title",
    }
)
#: keywords whose value is one schema (``items`` only when it is one)
PORTABLE_SUBSCHEMAS = frozenset({"additionalProperties", "items", "not"})
#: keywords whose value is a list of schemas
PORTABLE_LISTS = frozenset({"anyOf", "allOf", "oneOf"})
#: keywords whose value maps names to schemas
PORTABLE_MAPS = frozenset({"properties", "$defs", "definitions"})
#: annotations no validator asserts: left out of the listing without a word
ANNOTATIONS = frozenset(
    {
        "$comment",
        "default",
        "examples",
        "readOnly",
        "writeOnly",
        "deprecated",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
    }
)
#: keywords named when left out (any other is said as "keywords this server does not
#: list"; its name is a stranger's text)
NAMED_KEYWORDS = frozenset(
    {
        "pattern",
        "patternProperties",
        "propertyNames",
        "format",
        "prefixItems",
        "items",
        "additionalItems",
        "additionalProperties",
        "contains",
        "minContains",
        "maxContains",
        "dependencies",
        "dependentRequired",
        "dependentSchemas",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "not",
        "oneOf",
        "enum",
        *PORTABLE_VALUES,
        *PORTABLE_LISTS,
    }
)
#: how an unknown keyword left out is said
UNKNOWN_KEYWORDS = "keywords this server does not list"
#: the JSON types a ``type`` names
_TYPES = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})
#: a reference to a root definition: ``#/$defs/<name>`` or ``#/definitions/<name>``
_ROOT_REFS = {f"#/{key}/": key for key in ("$defs", "definitions")}


def portable_schema(schema: Any) -> Tuple[Any, Tuple[str, ...]]:
    """The schema listed for a mech's output schema, and the keywords left out of it.

    :param schema: the mech's output schema as served (a JSON object or boolean schema;
        integers also as decimal strings, ``exporters.js_integers``). Not modified.
    :return: ``(listed schema, sorted names of the keywords left out)``: the listed
        schema accepts every value ``schema`` accepts, under ``jsonschema`` draft-07
        and 2020-12 and Ajv draft-07 and 2020 with ``ajv-formats``, and each of them
        reads it the same. ``$`` keywords other than ``$comment`` are kept as they are
        (references: ``answer_envelope`` judges them). The server's own integer
        pattern (``js_integers.DECIMAL_PATTERN``) is left out without a word.
    """
    lossy_definitions = _lossy_definitions(schema)
    said: Set[str] = set()
    listed, _ = _portable(schema, lossy_definitions, said)
    return listed, tuple(sorted(said))


def _lossy_definitions(schema: Any) -> FrozenSet[str]:
    """The root definitions (as ``$ref`` names them) that lose a keyword when listed.

    A definition that only references a lossy one is lossy too: found by iterating to
    a fixed point (the set only grows, so at most one pass per definition).

    :param schema: the mech's schema.
    :return: the ``#/$defs/<name>`` / ``#/definitions/<name>`` references.
    """
    if not isinstance(schema, Mapping):
        return frozenset()
    definitions = {
        f"#/{key}/{_pointer_token(name)}": sub
        for key in ("$defs", "definitions")
        if isinstance(schema.get(key), Mapping)
        for name, sub in schema[key].items()
    }
    lossy: FrozenSet[str] = frozenset()
    while True:
        found = frozenset(
            ref for ref, sub in definitions.items() if _portable(sub, lossy, set())[1]
        )
        if found == lossy:
            return lossy
        lossy = found


def _pointer_token(name: Any) -> str:
    """A definition's name as a JSON Pointer token (RFC 6901: ``~`` and ``/`` escaped)."""
    return str(name).replace("~", "~0").replace("/", "~1")


def _portable(
    node: Any, lossy_definitions: FrozenSet[str], said: Set[str]
) -> Tuple[Any, bool]:
    """One subschema as listed, and whether it accepts more than the mech's.

    :param node: a subschema.
    :param lossy_definitions: references whose target lost a keyword.
    :param said: the keywords left out so far (added to).
    :return: ``(listed subschema, True when a keyword that constrains was left out
        of it or of a subschema it applies)``.
    """
    if not isinstance(node, Mapping):
        return node, False  # true, false (or no schema: the server's check refuses it)
    out: Dict[str, Any] = {}
    lost: List[str] = []
    looser = False
    any_of: Dict[str, Any] = {}
    for key, value in node.items():
        if key in ANNOTATIONS:
            continue
        if key in PORTABLE_VALUES:
            if _portable_value(key, value):
                out[key] = value
            else:
                lost.append(key)
        elif key == "items" and not isinstance(value, (Mapping, bool)):
            lost.append("items")  # a draft-07 tuple: 2020-12 reads it otherwise
        elif key in PORTABLE_SUBSCHEMAS:
            out[key], child_looser = _portable(value, lossy_definitions, said)
            looser = looser or child_looser
            if child_looser and key == "not":
                del out[key]  # a looser "not" would accept less
                lost.append(key)
        elif key in PORTABLE_LISTS and isinstance(value, list) and value:
            branches = [_portable(item, lossy_definitions, said) for item in value]
            out[key] = [branch for branch, _ in branches]
            if any(branch_looser for _, branch_looser in branches):
                looser = True
                if key == "oneOf":  # looser branches could match twice: "one" fails
                    any_of = {"anyOf": out.pop(key)}
                    lost.append(key)
        elif key in PORTABLE_MAPS and isinstance(value, Mapping):
            listed = {}
            for name, sub in value.items():
                listed[name], child_looser = _portable(sub, lossy_definitions, said)
                looser = looser or (child_looser and key == "properties")
            out[key] = listed
        elif isinstance(key, str) and key.startswith("$"):
            out[key] = value
            if key == "$ref":
                looser = looser or _ref_looser(value, lossy_definitions)
        elif key == "pattern" and value == DECIMAL_PATTERN:
            looser = True  # the server's own (integers as text): no word
        else:
            lost.append(key)
    if any_of:  # after the loop: an "allOf" of the mech's may come after its "oneOf"
        out["allOf"] = list(out.get("allOf", [])) + [any_of]
    lost.extend(_now_stricter(out, node))
    said.update(k if k in NAMED_KEYWORDS else UNKNOWN_KEYWORDS for k in lost)
    return out, looser or bool(lost)


def _now_stricter(out: Dict[str, Any], node: Mapping[str, Any]) -> List[str]:
    """Leave out of ``out`` what applies to more once a keyword beside it is gone.

    ``items`` after ``prefixItems`` applies to the items after the tuple only, and
    ``additionalProperties`` to the names ``patternProperties`` does not match: without
    them each applies to all, and would refuse what the mech's schema accepts.

    :param out: the listed subschema (changed).
    :param node: the mech's subschema.
    :return: the keywords left out for that.
    """
    lost = []
    if "prefixItems" in node and "items" in out:
        del out["items"]
        lost.append("items")
    if "patternProperties" in node and out.get("additionalProperties", True) is not True:
        del out["additionalProperties"]
        lost.append("additionalProperties")
    return lost


def _ref_looser(value: Any, lossy_definitions: FrozenSet[str]) -> bool:
    """Whether a ``$ref``'s target is listed looser (an unknown target counts so).

    :param value: the reference.
    :param lossy_definitions: references whose target lost a keyword.
    :return: True unless it names a root definition listed whole.
    """
    if not isinstance(value, str) or not any(value.startswith(p) for p in _ROOT_REFS):
        return True
    return value in lossy_definitions


def _portable_value(key: str, value: Any) -> bool:
    """Whether a non-schema keyword's value is one every validator reads the same.

    :param key: a keyword of :data:`PORTABLE_VALUES`.
    :param value: its value.
    :return: False for values a metaschema refuses or a validator reads otherwise (an
        empty ``enum``, which Ajv refuses to compile; draft-04's boolean
        ``exclusiveMinimum``; a ``type`` naming no JSON type).
    """
    if key in ("description", "title"):
        return isinstance(value, str)
    if key == "type":
        kinds = [value] if isinstance(value, str) else value
        return (
            isinstance(kinds, list)
            and bool(kinds)
            and all(isinstance(k, str) and k in _TYPES for k in kinds)
            and len(set(kinds)) == len(kinds)
        )
    if key == "required":
        return (
            isinstance(value, list)
            and all(isinstance(name, str) for name in value)
            and len(set(value)) == len(value)
        )
    if key == "enum":
        return isinstance(value, list) and bool(value)
    if key == "const":
        return True
    if key == "uniqueItems":
        return isinstance(value, bool)
    if key.startswith(("min", "max")) and key not in ("minimum", "maximum"):
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return key != "multipleOf" or value > 0


def portable_note(said: Tuple[str, ...]) -> str:
    """The server's sentence on a tool whose listed output schema left keywords out.

    :param said: :func:`portable_schema`'s names (a fixed vocabulary, or
        :data:`UNKNOWN_KEYWORDS`: never a stranger's text).
    :return: one short sentence; "" when nothing was left out.
    """
    if not said:
        return ""
    return (
        f"Note from this server: the mech's output schema also asks {', '.join(said)}, "
        "which MCP clients read differently: checked by this server, not listed "
        "(an answer that misses them is given as text)."
    )
