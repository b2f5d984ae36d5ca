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
keyword is left out (or ``oneOf`` listed as ``anyOf``) too. A reading that hangs on
JavaScript's object model or on a number's text is not shared: Ajv tests a property as
``data[name] !== undefined`` (so a name of :data:`INHERITED_NAMES` is present in every
object) and a multiple as ``q !== parseInt(q)`` (``parseInt`` reads ``1e+21`` as 1), so
such names are left out of ``properties`` and ``required``, and ``multipleOf`` is not
listed (adv29zr2). ``uniqueItems`` is not listed either: jsonschema sorts the items and
compares neighbours, Ajv compares every pair, so ``[[1], [true], [1]]`` passed one and
not the other (adv29zu2 P2). The server still checks an
answer against the mech's whole schema (``ServedTool.answer_schema``, with JSON
Schema's equality: :mod:`mech_catalogue_core.manifest.json_equality`): what it returns
structured passed that check, so it matches the laxer listed schema under every client.
Nothing here is a regular expression, compiled or run.
"""

from typing import Any, Callable, Dict, List, Mapping, Optional, Set, Tuple

from mech_catalogue_core.exporters.js_integers import (
    DECIMAL_PATTERN,
    schema_with_integer_text,
)

from .answer_envelope import listed_output_schema

#: keywords whose value is no schema and reads the same under every common validator,
#: each with the values every one of them reads the same (:data:`_VALUE_RULES`)
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
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
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
#: the names every JavaScript object has (ECMA-262 section 20.1.3, ``Object.prototype``,
#: with Annex B's ``__proto__`` and accessor methods): Ajv tests a property as
#: ``data[name] !== undefined``, so it reads these as present in every object
INHERITED_NAMES = frozenset(
    {
        "constructor",
        "hasOwnProperty",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "toLocaleString",
        "toString",
        "valueOf",
        "__proto__",
        "__defineGetter__",
        "__defineSetter__",
        "__lookupGetter__",
        "__lookupSetter__",
    }
)
#: how properties left out for :data:`INHERITED_NAMES` are said
INHERITED_NAMES_SAID = "properties named as members of every JavaScript object"
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
        "multipleOf",
        *PORTABLE_VALUES,
        *PORTABLE_LISTS,
        *PORTABLE_SUBSCHEMAS,
        "properties",
        "definitions",
    }
)
#: how an unknown keyword left out is said
UNKNOWN_KEYWORDS = "keywords this server does not list"
#: the JSON types a ``type`` names
_TYPES = frozenset(
    {"null", "boolean", "object", "array", "number", "integer", "string"}
)
#: what ``min``/``max`` count: ``minLength``, ``maxItems``...
_COUNTED = ("Length", "Items", "Properties")


def with_portable_output(
    entry: Dict[str, Any],
) -> Tuple[Dict[str, Any], Optional[Dict[str, Any]], Tuple[str, ...]]:
    """A paid tool as listed: the portable part of its output schema, in the envelope.

    :param entry: the exported MCP Tool JSON (not modified).
    :return: ``(the entry, its ``outputSchema`` the server's envelope
        (``answer_envelope.listed_output_schema``) of :func:`portable_schema` of the
        whole schema; the whole schema as served, integers also as decimal strings
        (``js_integers.schema_with_integer_text``), which the server checks answers
        against; the server's notes for the description (:func:`portable_note`, when a
        keyword was left out, and the envelope's note when it is listed as text))``;
        ``(entry, None, ())`` when it has no output schema.
    """
    if "outputSchema" not in entry:
        return entry, None, ()
    whole = schema_with_integer_text(dict(entry["outputSchema"]))
    listed, left_out = portable_schema(whole)
    envelope, envelope_notes = listed_output_schema(listed)
    notes = tuple(filter(None, [portable_note(left_out)])) + envelope_notes
    return {**entry, "outputSchema": envelope}, whole, notes


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
    definitions = _definitions_looser(schema)
    said: Set[str] = set()
    listed, _ = _portable(schema, definitions, said)
    return listed, tuple(sorted(said))


def _definitions_looser(schema: Any) -> Dict[str, bool]:
    """Each root definition, as ``$ref`` names it: whether it is listed looser.

    A definition is looser when it loses a keyword itself, or references one that is
    (anywhere in it: a ``not`` of it is then left out, a branch of it accepts more).
    Found in one walk of each definition and one pass over the references between
    them: a stranger's chain of thousands of references costs no more.

    :param schema: the mech's schema.
    :return: ``{"#/$defs/<name>" or "#/definitions/<name>": looser}``.
    """
    if not isinstance(schema, Mapping):
        return {}
    subschemas = {
        f"#/{key}/{_pointer_token(name)}": sub
        for key in ("$defs", "definitions")
        if isinstance(schema.get(key), Mapping)
        for name, sub in schema[key].items()
    }
    none_looser = {ref: False for ref in subschemas}
    looser = {
        ref: _portable(sub, none_looser, set())[1] for ref, sub in subschemas.items()
    }
    referrers: Dict[str, Set[str]] = {ref: set() for ref in subschemas}
    for ref, sub in subschemas.items():
        for target in _references(sub):
            if target in referrers:
                referrers[target].add(ref)
    waiting = [ref for ref, loose in looser.items() if loose]
    while waiting:
        for referrer in referrers[waiting.pop()]:
            if not looser[referrer]:
                looser[referrer] = True
                waiting.append(referrer)
    return looser


def _references(node: Any) -> Set[str]:
    """Every ``$ref`` string anywhere in a subschema (walked without recursion)."""
    found: Set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            if isinstance(item.get("$ref"), str):
                found.add(item["$ref"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _pointer_token(name: Any) -> str:
    """A definition's name as a JSON Pointer token (RFC 6901: ``~`` and ``/`` escaped)."""
    return str(name).replace("~", "~0").replace("/", "~1")


def _portable(
    node: Any, definitions: Mapping[str, bool], said: Set[str]
) -> Tuple[Any, bool]:
    """One subschema as listed, and whether it accepts more than the mech's.

    :param node: a subschema.
    :param definitions: :func:`_definitions_looser` (so far).
    :param said: the keywords left out so far (added to).
    :return: ``(listed subschema, True when a keyword that constrains was left out
        of it or of a subschema it applies)``.
    """
    if not isinstance(node, Mapping):
        return node, False  # true, false (or no schema: the server's check refuses it)
    out: Dict[str, Any] = {}
    lost: List[str] = []
    looser: Set[str] = set()  # the keywords listed looser, or left out unsaid
    for key, value in node.items():
        if key in ANNOTATIONS:
            continue
        if key == "pattern" and value == DECIMAL_PATTERN:
            looser.add(key)  # the server's own (integers as text): no word
            continue
        listed = _listed_keyword(key, value, definitions, said)
        if listed is None:
            lost.append(key)
            continue
        out[key], keyword_looser = listed
        if keyword_looser:
            looser.add(key)
    lost.extend(_now_stricter(out, node, looser))
    said.update(k if k in NAMED_KEYWORDS else UNKNOWN_KEYWORDS for k in lost)
    return out, bool(looser or lost)


def _listed_keyword(  # pylint: disable=too-many-return-statements
    key: Any, value: Any, definitions: Mapping[str, bool], said: Set[str]
) -> Optional[Tuple[Any, bool]]:
    """One keyword as listed, and whether it accepts more than the mech's.

    :param key: the keyword.
    :param value: its value.
    :param definitions: :func:`_definitions_looser` (so far).
    :param said: the keywords left out so far (added to).
    :return: ``(listed value, looser)``, or None to leave it out.
    """
    if key in ("properties", "required") and _names_inherited(value):
        said.add(INHERITED_NAMES_SAID)
        listed = _listed_keyword(
            key, _without_inherited_names(value), definitions, said
        )
        return None if listed is None else (listed[0], True)
    if key in PORTABLE_VALUES:
        return (value, False) if _VALUE_RULES[key](value) else None
    if key in PORTABLE_SUBSCHEMAS and _is_schema(value):
        return _portable(value, definitions, said)  # an "items" tuple: 2020-12 differs
    if key in PORTABLE_LISTS and _are_schemas(value) and value:
        branches = [_portable(item, definitions, said) for item in value]
        return [branch for branch, _ in branches], any(loose for _, loose in branches)
    if key in PORTABLE_MAPS and isinstance(value, Mapping) and _are_schemas(value):
        named = {name: _portable(sub, definitions, said) for name, sub in value.items()}
        looser = key == "properties" and any(loose for _, loose in named.values())
        return {name: sub for name, (sub, _) in named.items()}, looser
    if isinstance(key, str) and key.startswith("$"):  # the envelope judges references
        reference = key == "$ref"
        unknown = not isinstance(value, str) or definitions.get(value, True)
        return value, reference and bool(unknown)
    return None


def _now_stricter(
    out: Dict[str, Any], node: Mapping[str, Any], looser: Set[str]
) -> List[str]:
    """Leave out of ``out`` what accepts less once a keyword in or beside it is gone.

    A ``not`` of a looser subschema refuses more; a ``oneOf`` of looser branches may
    match twice (listed as ``anyOf``, which accepts whatever ``oneOf`` does); ``items``
    after ``prefixItems`` applies to the items after the tuple only, and
    ``additionalProperties`` to the names ``patternProperties`` does not match.

    :param out: the listed subschema (changed).
    :param node: the mech's subschema.
    :param looser: the keywords of ``out`` listed looser.
    :return: the keywords left out for that.
    """
    lost = []
    if "not" in looser:
        del out["not"]
        lost.append("not")
    if "oneOf" in looser:
        out["allOf"] = list(out.get("allOf", [])) + [{"anyOf": out.pop("oneOf")}]
        lost.append("oneOf")
    if "prefixItems" in node and "items" in out:
        del out["items"]
        lost.append("items")
    if (
        "patternProperties" in node or _names_inherited(node.get("properties"))
    ) and out.get("additionalProperties", True) is not True:
        del out["additionalProperties"]
        lost.append("additionalProperties")
    return lost


def _names_inherited(value: Any) -> bool:
    """Whether a ``properties`` map or a ``required`` list names an inherited member."""
    names = value if isinstance(value, (Mapping, list)) else ()
    return any(isinstance(name, str) and name in INHERITED_NAMES for name in names)


def _without_inherited_names(value: Any) -> Any:
    """A ``properties`` map or ``required`` list without :data:`INHERITED_NAMES`."""
    if isinstance(value, Mapping):
        return {k: v for k, v in value.items() if k not in INHERITED_NAMES}
    return [name for name in value if name not in INHERITED_NAMES]


def _is_schema(value: Any) -> bool:
    return isinstance(value, (Mapping, bool))


def _are_schemas(value: Any) -> bool:
    """A list, or a map's values, of schemas only."""
    items = value.values() if isinstance(value, Mapping) else value
    return isinstance(value, (list, Mapping)) and all(map(_is_schema, items))


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_bound(value: Any) -> bool:
    """A number JavaScript reads as the same number (an integer a double holds)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return not isinstance(value, int) or float(value) == value


def _is_type(value: Any) -> bool:
    kinds = [value] if isinstance(value, str) else value
    return (
        isinstance(kinds, list)
        and bool(kinds)
        and all(isinstance(k, str) and k in _TYPES for k in kinds)
        and len(set(kinds)) == len(kinds)
    )


def _is_names(value: Any) -> bool:
    return (
        isinstance(value, list)
        and all(isinstance(name, str) for name in value)
        and len(set(value)) == len(value)
    )


#: the values of each :data:`PORTABLE_VALUES` keyword that are listed: what a metaschema
#: refuses or a validator reads otherwise is left out (an empty ``enum``, which Ajv
#: refuses to compile; draft-04's boolean ``exclusiveMinimum``; a ``type`` naming no
#: JSON type; an integer bound a double cannot hold, which JavaScript rounds)
_VALUE_RULES: Dict[str, Callable[[Any], bool]] = {
    "type": _is_type,
    "required": _is_names,
    "enum": lambda value: isinstance(value, list) and bool(value),
    "const": lambda value: True,
    "description": lambda value: isinstance(value, str),
    "title": lambda value: isinstance(value, str),
    **{key: _is_bound for key in ("minimum", "maximum")},
    **{key: _is_bound for key in ("exclusiveMinimum", "exclusiveMaximum")},
    **{f"{end}{what}": _is_count for end in ("min", "max") for what in _COUNTED},
}


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
