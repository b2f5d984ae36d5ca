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

"""Parse one tool's metadata (any shape seen in the wild) into a :class:`.model.Tool`.

Shapes (``Provenance.shape``): ``tool_metadata`` (``input {type: text}`` only),
``input_schema`` (``input.schema`` is a JSON Schema object), ``kwargs`` (the seed
document's ``kwargs: [{identifier, type}]``), ``arguments_v1`` (manifest v1 ``arguments``),
``description_json`` (the tool's ``description`` is itself a JSON object holding the
fields above). Nothing here raises: bad fields become Problems and are ignored, bad
arguments are dropped, the tool survives; only an argument declared twice withholds it
(:data:`.problems.DROPPED_PART_CODES`, docs/manifest-spec.md section 9).
"""

import re
from functools import lru_cache
from itertools import islice
from sys import intern
from typing import Any, Dict, List, Optional, Tuple

import orjson
from mech_catalogue_core.manifest.input_rules import (
    TOP_LEVEL_COMBINATORS,
    rule_sentence,
    top_level_rules,
    unconstrained,
    union_root,
)
from mech_catalogue_core.manifest.schema_refs import (
    current_budget,
    self_contained,
    tool_budget,
    whole_schema,
)
from mech_catalogue_core.manifest.validation import (
    decode_json,
    schema_error,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.canonical import (
    canonical_text,
    decode,
)
from mech_catalogue_core.model.limits import Limits
from mech_catalogue_core.model.memo import (
    BoundedMemo,
    bounded_memo,
)
from mech_catalogue_core.model.references import (
    MANIFEST_SPEC_URL,
)
from mech_catalogue_core.model.tool import (
    SHAPE_ARGUMENTS_V1,
    SHAPE_DESCRIPTION_JSON,
    SHAPE_INPUT_SCHEMA,
    SHAPE_KWARGS,
    SHAPE_TOOL_METADATA,
    TOOL_KINDS,
    Argument,
    Provenance,
    Tool,
)
from mech_catalogue_core.model.types import (
    ANY,
    infer_type,
    normalise_type,
    type_schema,
)

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")  # used with fullmatch
TOOL_KEYS = frozenset(
    {
        "name",
        "description",
        "input",
        "output",
        "arguments",
        "kwargs",
        "examples",
        "kind",
    }
)
KIND = re.compile(r"[a-z][a-z0-9_]{0,63}")  # used with fullmatch
ARGUMENT_KEYS = frozenset(
    {"identifier", "type", "description", "required", "default", "enum", "schema"}
)
IO_KEYS = frozenset({"type", "description", "schema"})
#: schemas longer than this (JSON text) are not memoised
SCHEMA_MEMO_TEXT = 1 << 16
#: entries per schema memo (cleared when full: a miss only costs time)
SCHEMA_MEMO_ENTRIES = 4096
#: characters one schema memo entry may hold, key and result (a schema's arguments or
#: output schema, references inlined); larger results are computed each time
SCHEMA_MEMO_ENTRY_CHARS = 1 << 18
#: characters one schema memo holds at most (cleared when a new entry would pass it)
SCHEMA_MEMO_TOTAL_CHARS = 1 << 23
#: entries of the type-schema memo (:func:`type_schema_text`)
TYPE_SCHEMA_MEMO_ENTRIES = 1024
#: characters a type-schema entry may hold (enum text and schema text): longer enums are
#: written each time
TYPE_SCHEMA_MEMO_CHARS = 1 << 13


class SchemaMemo:
    """What a tool's schema gave when it raised no problem, keyed by its JSON text.

    Mechs publish the same schemas again and again (one tool package, many mechs; one
    output schema, every tool). A schema's arguments, or its self-contained output
    schema, depend only on its value (key order included: the memo key is its compact
    JSON text by ``orjson``: ``1``, ``1.0`` and ``true`` differ; a value orjson cannot
    write, or whose text holds ``null`` (NaN and Infinity are written so), is keyed by
    its ``repr``, marked so the two kinds never meet) and the limits; so a
    schema that raised no problem need not be checked, bundled and canonicalised again.
    The inline-budget units its rewrite charged are kept and charged again on reuse, and
    when the tool's budget could not take them the schema is parsed afresh (which then
    reports the budget). A schema that raised a problem is never memoised, so problems
    (whose messages and paths depend on where the schema sits) are always computed.
    What it holds is bounded in characters (:class:`.model.memo.BoundedMemo`: at most
    :data:`SCHEMA_MEMO_TOTAL_CHARS`, no entry over :data:`SCHEMA_MEMO_ENTRY_CHARS`).
    """

    def __init__(self) -> None:
        """Start empty."""
        self._entries = BoundedMemo(
            SCHEMA_MEMO_ENTRIES, SCHEMA_MEMO_ENTRY_CHARS, SCHEMA_MEMO_TOTAL_CHARS
        )
        self.hits = 0

    def clear(self) -> None:
        """Forget every entry and the hit count."""
        self._entries.clear()
        self.hits = 0

    @staticmethod
    def key(schema: Any) -> Optional[str]:
        """The memo key of a schema.

        :param schema: a decoded JSON value.
        :return: its compact JSON text (else a NUL character + its ``repr``), or None
            when too long to memoise.
        """
        try:  # ten times faster than repr on a schema of a few hundred characters
            text = orjson.dumps(schema).decode("utf-8")
        except TypeError:  # e.g. an integer past 64 bits, which orjson refuses
            text = "null"
        if "null" in text:  # orjson writes NaN and Infinity as null too: repr tells
            text = "\x00" + repr(schema)
        return text if len(text) <= SCHEMA_MEMO_TEXT else None

    def get(self, key: Optional[str], limits: Limits) -> Optional[Any]:
        """Reuse a result, charging its units to the tool's budget.

        :param key: from :meth:`key`.
        :param limits: the caps in force (a result under other caps is not reused).
        :return: the result, or None (not memoised, or the budget cannot take it).
        """
        entry = self._entries.get(key) if key is not None else None
        if entry is None or (entry[0] is not limits and entry[0] != limits):
            return None
        _, result, units = entry
        budget = current_budget()
        if budget is not None:
            if not budget.allows(units):
                return None
            budget.charge(units)
        self.hits += 1
        return result

    def put(self, key: Optional[str], limits: Limits, result: Any, units: int) -> None:
        """Remember a problem-free result.

        :param key: from :meth:`key`.
        :param limits: the caps it was computed under.
        :param result: the (immutable) result.
        :param units: the inline-budget units computing it charged.
        """
        if key is None:
            return
        self._entries.put(key, (limits, result, units))


#: arguments of problem-free ``input.schema`` objects
INPUT_SCHEMA_MEMO = SchemaMemo()
#: canonical text of problem-free, self-contained ``output.schema`` values
OUTPUT_SCHEMA_MEMO = SchemaMemo()


def _spent() -> int:
    budget = current_budget()
    return budget.spent if budget is not None else 0


Problems = List[P.Problem]


def text_field(
    obj: Dict[str, Any], key: str, path: str, limits: Limits, found: Problems
) -> str:
    """A string field: wrong types are ignored (WRONG_TYPE), long text truncated (TEXT_TOO_LONG).

    :param obj: the object holding the field.
    :param key: the field name.
    :param path: JSON Pointer of ``obj``.
    :param limits: caps.
    :param found: problems are appended here.
    :return: the text, "" when absent or ignored.
    """
    value = obj.get(key, "")
    if isinstance(value, str) and len(value) <= limits.max_text_length:
        return value
    where = path + P.pointer(key)
    if not isinstance(value, str):
        found.append(
            P.error(
                P.WRONG_TYPE,
                f"Field {where} should be a string, not {_kind(value)}; it was ignored.",
                where,
            )
        )
        return ""
    found.append(
        P.warning(
            P.TEXT_TOO_LONG,
            f"Field {where} has {len(value)} characters, over {limits.max_text_length}; it was truncated.",
            where,
        )
    )
    return value[: limits.max_text_length]


def join_sentences(first: str, second: str) -> str:
    """Join two texts as sentences (a full stop is added to ``first`` when it lacks one).

    :param first: text, may be empty.
    :param second: text, may be empty.
    :return: ``first + ". " + second`` or similar.
    """
    first, second = first.strip(), second.strip()
    if not first or not second:
        return first or second
    if first[-1] not in ".!?:;":
        first += "."
    return f"{first} {second}"


def _kind(value: Any) -> str:
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
    }.get(type(value), "null" if value is None else "a number")


def _shown_value(value: Any, limit: int = 40) -> str:
    """A value as a mech author wrote it: a string quoted and cut, anything else its kind.

    :param value: any JSON value.
    :param limit: characters of a string shown.
    :return: e.g. ``'hexAdress'`` or ``an object``.
    """
    if isinstance(value, str):
        return repr(value[:limit] + ("..." if len(value) > limit else ""))
    return _kind(value)


def _embedded_json(description: str, limits: Limits) -> Optional[Dict[str, Any]]:
    if not description.lstrip().startswith("{"):
        return None
    value = decode_json(description, limits).value  # same strict rules as the manifest
    return value if isinstance(value, dict) else None


def parse_tool(
    name: str, meta: Any, path: str, limits: Limits
) -> Tuple[Tool, Problems]:
    """Parse ``toolMetadata[name]`` (already decoded strictly, so depth is bounded).

    Resolving the references of all the tool's schemas shares one inline budget
    proportional to ``meta`` (:func:`.schema_refs.tool_budget`).

    :param name: the tool name (the ``toolMetadata`` key, already checked).
    :param meta: its metadata, any JSON value.
    :param path: JSON Pointer of ``meta``.
    :param limits: caps.
    :return: the tool (name-only when ``meta`` is unusable) and the problems found.
    """
    with tool_budget(meta):
        return _parse_tool(name, meta, path, limits)


def _parse_tool(
    name: str, meta: Any, path: str, limits: Limits
) -> Tuple[Tool, Problems]:
    found: Problems = []
    if not isinstance(meta, dict):
        found.append(
            P.error(
                P.INVALID_TOOL,
                f"Tool metadata {path} should be an object, not {_kind(meta)}; only the name is kept.",
                path,
            )
        )
        return Tool(name=name), found
    shape = SHAPE_TOOL_METADATA
    meta_name = meta.get("name", name)
    if meta_name != name:
        found.append(
            P.warning(
                P.TOOL_NAME_MISMATCH,
                f"{path}/name is {_shown_value(meta_name)} but the key is {name[:60]!r}; the key "
                "is used.",
                path + "/name",
            )
        )
    description = text_field(meta, "description", path, limits, found)
    embedded = _embedded_json(description, limits)
    if embedded is not None:
        # Fields of the JSON held in `description` fill what the tool object lacks.
        meta = {**embedded, **{k: v for k, v in meta.items() if k != "description"}}
        description = text_field(
            embedded, "description", path + "/description", limits, found
        )
        shape = SHAPE_DESCRIPTION_JSON
        found.append(
            P.warning(
                P.DESCRIPTION_JSON_PARSED,
                f"{path}/description holds a JSON object; its fields were used. Publish them as "
                "fields of the tool instead.",
                path + "/description",
            )
        )
    inp = _io_block(meta, "input", path, found)
    out = _io_block(meta, "output", path, found)
    before = len(found)
    arguments, arg_shape = _arguments(meta, inp, path, limits, found)
    if arguments is None:
        arguments = ()
        found.append(
            P.warning(
                P.UNTYPED_INPUT,
                f"Tool {name[:60]!r} at {path or '/'} declares no typed arguments; add "
                "`arguments` (manifest v1) so callers can build a valid request.",
                path,
            )
        )
    elif not arguments and any(p.code == P.INVALID_ARGUMENT for p in found[before:]):
        found.append(
            P.warning(
                P.UNTYPED_INPUT,
                f"Every argument tool {name[:60]!r} at {path or '/'} declares was dropped, "
                "so it is offered without typed arguments (free text); fix the "
                "arguments reported.",
                path,
            )
        )
    elif shape != SHAPE_DESCRIPTION_JSON:
        shape = arg_shape
    if arg_shape == SHAPE_INPUT_SCHEMA:
        rules = top_level_rules(inp.get("schema"))
        if rules:  # a rule on several arguments survives as a sentence
            description = join_sentences(description, rules)
    extra = {k: v for k, v in meta.items() if k not in TOOL_KEYS}
    for key, block in (("input", inp), ("output", out)):
        unknown = {k: v for k, v in block.items() if k not in IO_KEYS}
        if unknown:
            extra.setdefault(key, unknown)
    # Positional, in the order of TOOL_FIELDS (the order of Tool's fields).
    tool = new_tool(
        (
            name,
            description,
            arguments,
            # I/O texts repeat across tools and mechs ("object", "The request"): one copy
            # each (sys.intern) instead of one per tool; 230 bytes a tool at 200,000 tools
            intern(text_field(inp, "type", path + "/input", limits, found)),
            intern(text_field(inp, "description", path + "/input", limits, found)),
            intern(text_field(out, "type", path + "/output", limits, found)),
            intern(text_field(out, "description", path + "/output", limits, found)),
            _output_schema(out, path + "/output/schema", found, limits),
            _examples(meta, path, found),
            canonical_text(extra),
            shape_provenance(shape),
            _tool_kind(meta, path, found),
        )
    )
    return tool, found


TOOL_FIELDS = (
    "name",
    "description",
    "arguments",
    "input_type",
    "input_description",
    "output_type",
    "output_description",
    "output_schema_json",
    "examples_json",
    "extra_json",
    "provenance",
    "kind",
)
_TOOL_SETTERS = tuple(vars(Tool)[field].__set__ for field in TOOL_FIELDS)


def new_tool(values: Tuple[Any, ...]) -> Tool:
    """Build a :class:`Tool` from already checked field values, setting its slots directly.

    As :func:`new_argument`: the frozen dataclass ``__init__`` with twelve keywords cost
    ~3.9 us a tool. ``Tool`` has no ``__post_init__``; that :data:`TOOL_FIELDS` names
    every field in order is tested (mech_catalogue_core/tests/manifest/test_parse_speed_paths.py).

    :param values: one value a field, in the order of :data:`TOOL_FIELDS`.
    :return: the tool.
    """
    tool = object.__new__(Tool)
    for setter, value in zip(_TOOL_SETTERS, values):
        setter(tool, value)
    return tool


@lru_cache(maxsize=16)
def shape_provenance(shape: str) -> Provenance:
    """The provenance of every tool parsed from one manifest shape, shared (it is frozen).

    :param shape: the manifest shape (``model.tool.SHAPES``).
    :return: its provenance, without a mech until the catalogue adds it.
    """
    return Provenance(shape)


def _tool_kind(meta: Dict[str, Any], path: str, found: Problems) -> str:
    """Read the optional ``kind`` of a tool (docs/manifest-spec.md section 4).

    :param meta: the tool's metadata object.
    :param path: its JSON Pointer.
    :param found: an UNKNOWN_TOOL_KIND warning is appended here for a kind that is not
        in :data:`.model.tool.TOOL_KINDS` (kept) or not a lowercase word (ignored): the
        kind never shapes a call, so it never withholds the tool.
    :return: the kind, "" when absent or not a lowercase word.
    """
    if "kind" not in meta:
        return ""
    kind, where = meta["kind"], path + "/kind"
    if not isinstance(kind, str) or not KIND.fullmatch(kind):
        found.append(
            P.warning(
                P.UNKNOWN_TOOL_KIND,
                f"Field {where} should be a lowercase word such as "
                f"{' or '.join(TOOL_KINDS[:2])}, not {_shown_value(kind)}; it was ignored.",
                where,
            )
        )
        return ""
    if kind not in TOOL_KINDS:
        found.append(
            P.warning(
                P.UNKNOWN_TOOL_KIND,
                f"Field {where} is {kind!r}, not a known kind ({', '.join(TOOL_KINDS)}); "
                "it is kept, but callers may not know it.",
                where,
            )
        )
    return kind


def _io_block(
    meta: Dict[str, Any], key: str, path: str, found: Problems
) -> Dict[str, Any]:
    block = meta.get(key, {})
    if isinstance(block, dict):
        return block
    where = f"{path}/{key}"
    found.append(
        P.error(
            P.WRONG_TYPE,
            f"Field {where} should be an object, not {_kind(block)}; it was ignored.",
            where,
        )
    )
    return {}


def _output_schema(
    out: Dict[str, Any], where: str, found: Problems, limits: Limits
) -> Optional[str]:
    if "schema" not in out:
        return None
    schema = out["schema"]
    key = SchemaMemo.key(schema)
    memoised = OUTPUT_SCHEMA_MEMO.get(key, limits)
    if memoised is not None:
        return memoised
    before, spent = len(found), _spent()
    text = fresh_output_schema(schema, where, found)
    if text is not None and len(found) == before:
        OUTPUT_SCHEMA_MEMO.put(key, limits, text, _spent() - spent)
    return text


def fresh_output_schema(schema: Any, where: str, found: Problems) -> Optional[str]:
    """Check a tool's ``output.schema`` and bundle its references (not memoised).

    :param schema: the decoded schema.
    :param where: its JSON Pointer, for problems.
    :param found: INVALID_OUTPUT_SCHEMA errors are appended here, at ``where``.
    :return: the canonical self-contained schema, or None when it is not a JSON Schema
        or cannot be made self-contained as written (:func:`.schema_refs.whole_schema`:
        a reference that resolves nowhere drops it whole, never patched with ``{}``).
    """
    text = canonical_text(schema)
    reason = (
        "it is not an object"
        if not isinstance(schema, (dict, bool))
        else schema_error(text)
    )
    if reason:
        found.append(
            P.error(
                P.INVALID_OUTPUT_SCHEMA,
                f"{where} is not a valid JSON Schema ({reason}); it was dropped.",
                where,
            )
        )
        return None
    bundled, problems = whole_schema(schema, where, P.INVALID_OUTPUT_SCHEMA)
    found.extend(problems)
    return None if bundled is None else canonical_text(bundled)


def _examples(meta: Dict[str, Any], path: str, found: Problems) -> Tuple[str, ...]:
    examples = meta.get("examples", [])
    if isinstance(examples, list):
        return tuple(canonical_text(e) for e in examples)
    where = path + "/examples"
    found.append(
        P.error(
            P.WRONG_TYPE,
            f"Field {where} should be an array, not {_kind(examples)}; it was ignored.",
            where,
        )
    )
    return ()


def _arguments(
    meta: Dict[str, Any],
    inp: Dict[str, Any],
    path: str,
    limits: Limits,
    found: Problems,
) -> Tuple[Optional[Tuple[Argument, ...]], str]:
    """Find a tool's typed arguments: v1 ``arguments``, seed ``kwargs``, or ``input.schema``.

    :param meta: the tool's metadata object.
    :param inp: its ``input`` object ({} when absent).
    :param path: JSON Pointer of ``meta``.
    :param limits: caps.
    :param found: problems are appended here.
    :return: (arguments, or None when the tool declares none; the shape they came from).
    """
    for key, shape in (("arguments", SHAPE_ARGUMENTS_V1), ("kwargs", SHAPE_KWARGS)):
        if key in meta:
            items = _argument_items(meta[key], f"{path}/{key}", found)
            if items is not None:
                return _argument_list(items, limits, found), shape
    schema = inp.get("schema")
    if schema is None:
        return None, SHAPE_TOOL_METADATA
    memo_key = SchemaMemo.key(schema)
    memoised = INPUT_SCHEMA_MEMO.get(memo_key, limits)
    if memoised is not None:
        return memoised, SHAPE_INPUT_SCHEMA
    before, spent = len(found), _spent()
    arguments, shape = _schema_arguments(schema, path, limits, found)
    if shape == SHAPE_INPUT_SCHEMA and arguments is not None and len(found) == before:
        INPUT_SCHEMA_MEMO.put(memo_key, limits, arguments, _spent() - spent)
    return arguments, shape


def _schema_arguments(
    schema: Any, path: str, limits: Limits, found: Problems
) -> Tuple[Optional[Tuple[Argument, ...]], str]:
    """Derive a tool's arguments from its ``input.schema`` (each property one argument).

    :param schema: the ``input.schema`` value.
    :param path: JSON Pointer of the tool's metadata.
    :param limits: caps.
    :param found: problems are appended here.
    :return: (arguments, or None when the schema gives none; the shape they came from).
    """
    where = path + "/input/schema"
    props = schema.get("properties") if isinstance(schema, dict) else None
    reason = (
        "it is not an object"
        if not isinstance(schema, (dict, bool))
        else schema_error(canonical_text(schema))
    )
    if not reason and not isinstance(props, dict):
        if unconstrained(schema):  # `{}`, `$schema` only, `{"type": "object"}`: untyped
            return None, SHAPE_TOOL_METADATA
        merged = union_root(schema)
        if merged is not None:
            schema, props = merged, merged["properties"]
    if reason or not isinstance(props, dict) or not isinstance(schema, dict):
        found.append(
            P.error(
                P.INVALID_ARGUMENT_SCHEMA,
                f"{where} should be a JSON Schema object with `properties`"
                + (f" ({reason})" if reason else "")
                + "; it was ignored, so the tool is offered without typed arguments "
                "(free text).",
                where,
            )
        )
        return None, SHAPE_TOOL_METADATA
    required = schema.get("required", [])
    required = set(required) if isinstance(required, list) else set()
    items = []
    # One property past the cap is enough for _argument_list to report the cap.
    for ident, prop in islice(props.items(), max(limits.max_arguments, 0) + 1):
        bundled, problems = self_contained(schema, ("properties", ident), where)
        found.extend(problems)
        item: Dict[str, Any] = {
            "identifier": ident,
            "type": infer_type(bundled),
            "required": ident in required,
        }
        if isinstance(prop, dict):
            item["schema"] = bundled
            for key in ("description", "default"):
                if key in prop:
                    item[key] = prop[key]
        items.append((f"{where}/properties{P.pointer(ident)}", item))
    _top_level_rules(schema, where, found)
    return _argument_list(items, limits, found, bundled=True), SHAPE_INPUT_SCHEMA


def clean_schema_arguments(
    schema: Any, limits: Limits
) -> Optional[Tuple[Tuple[Argument, ...], int]]:
    """The arguments an ``input.schema`` gives when :func:`parse_tool` reports nothing.

    For the typed fast path (:mod:`.typed_fast_path`): what the general path derives for
    a tool whose typed input is this schema alone, when deriving raises no problem and
    adds no rule sentence to the tool's description.

    :param schema: the decoded ``input.schema`` value.
    :param limits: caps.
    :return: (the arguments, the inline-budget units bundling their schemas charged),
        or None when the general path would report a problem, derive no arguments
        (untyped), or state a root rule in the description.
    """
    found: Problems = []
    with tool_budget(schema) as budget:
        arguments, shape = _schema_arguments(schema, "", limits, found)
    if (
        found
        or arguments is None
        or shape != SHAPE_INPUT_SCHEMA
        or top_level_rules(schema)
    ):
        return None
    return arguments, budget.spent


def _top_level_rules(schema: Dict[str, Any], where: str, found: Problems) -> None:
    for keyword in TOP_LEVEL_COMBINATORS:
        if keyword in schema:
            found.append(
                P.warning(
                    P.TOP_LEVEL_RULE,
                    f"{where}/{keyword} constrains several arguments together; consumers "
                    "reject such rules at the top level, so exports state it in the "
                    f"tool's description instead: {rule_sentence(keyword, schema[keyword])}",
                    f"{where}/{keyword}",
                )
            )


def _argument_items(
    value: Any, where: str, found: Problems
) -> Optional[List[Tuple[str, Any]]]:
    if isinstance(value, list):
        return [(f"{where}/{i}", item) for i, item in enumerate(value)]
    if isinstance(value, dict):  # {"identifier": "type"} or {"identifier": {...}}
        items = []
        for ident, spec in value.items():
            item = dict(spec) if isinstance(spec, dict) else {"type": spec}
            item.setdefault("identifier", ident)
            items.append((where + P.pointer(ident), item))
        return items
    found.append(
        P.error(
            P.WRONG_TYPE,
            f"Field {where} should be an array of arguments, not {_kind(value)}; it was ignored.",
            where,
        )
    )
    return None


class _ArgumentProblems:
    """The problems of one tool's arguments: the first ``cap`` listed, the rest counted.

    :param found: the tool's problems; listed problems are appended here.
    :param cap: ``Limits.max_argument_problems``.
    """

    def __init__(self, found: Problems, cap: int) -> None:
        """Start with nothing left out.

        :param found: the tool's problems.
        :param cap: most argument problems listed.
        """
        self.found, self.room = found, max(cap, 0)
        self.cap = self.room
        self.left_out: Dict[str, int] = {}
        self.first_left_out = ""
        self.error_left_out = False

    def add(self, problems: Problems, where: str) -> None:
        """List the problems of one argument while there is room, else count them.

        :param problems: its problems.
        :param where: its JSON Pointer.
        """
        listed = problems[: self.room]
        self.found.extend(listed)
        self.room -= len(listed)
        for problem in problems[len(listed) :]:
            self.first_left_out = self.first_left_out or where
            self.error_left_out = self.error_left_out or P.withholds(problem)
            self.left_out[problem.code] = self.left_out.get(problem.code, 0) + 1

    def summarise(self) -> None:
        """Append one PROBLEMS_TRUNCATED problem counting those left out, if any.

        It is an error when an error that withholds the tool was left out, so the tool
        is withheld exactly as it would be with every problem listed; when only dropped
        arguments were left out (:data:`.problems.DROPPED_PART_CODES`), it is a warning
        counting them and the tool is offered with the arguments kept.
        """
        if not self.left_out:
            return
        total = sum(self.left_out.values())
        counts = ", ".join(f"{c} {n:,}" for c, n in sorted(self.left_out.items()))
        where = self.first_left_out
        make = P.error if self.error_left_out else P.warning
        self.found.append(
            make(
                P.PROBLEMS_TRUNCATED,
                f"Arguments from {where} on have {total:,} more problems ({counts}) "
                f"than the {self.cap} listed for one tool; fix those listed and check "
                "the manifest again.",
                where,
            )
        )


def _argument_list(
    items: List[Tuple[str, Any]], limits: Limits, found: Problems, bundled: bool = False
) -> Tuple[Argument, ...]:
    arguments: List[Argument] = []
    seen = set()
    problems = _ArgumentProblems(found, limits.max_argument_problems)
    for where, item in items:
        if len(arguments) >= limits.max_arguments:
            found.append(
                P.error(
                    P.INVALID_ARGUMENT,
                    f"More than {limits.max_arguments} arguments; {where} and later ones were dropped.",
                    where,
                )
            )
            break
        own: Problems = []
        arg = parse_argument(item, where, limits, own, bundled)
        if arg is not None and arg.identifier in seen:
            own.append(
                P.error(
                    P.DUPLICATE_ARGUMENT,
                    f"Argument {arg.identifier!r} at {where} is declared twice, so which "
                    "declaration the mech reads is unknown; the tool is not offered "
                    "until one of them is removed.",
                    where,
                )
            )
            arg = None
        if own:
            problems.add(own, where)
        if arg is None:
            continue
        seen.add(arg.identifier)
        arguments.append(arg)
    problems.summarise()
    return tuple(arguments)


_SET_IDENTIFIER = vars(Argument)["identifier"].__set__
_SET_TYPE = vars(Argument)["type"].__set__
_SET_SCHEMA_JSON = vars(Argument)["schema_json"].__set__
_SET_REQUIRED = vars(Argument)["required"].__set__
_SET_DEFAULT_JSON = vars(Argument)["default_json"].__set__
_SET_DESCRIPTION = vars(Argument)["description"].__set__


def new_argument(  # pylint: disable=too-many-arguments
    identifier: str,
    term: str,
    schema_json: str,
    required: bool,
    default_json: Optional[str],
    description: str,
) -> Argument:
    """Build an :class:`Argument` from already checked fields, setting its slots directly.

    The frozen dataclass ``__init__`` sets each field through ``object.__setattr__`` and
    takes keywords: 1.8 us an argument against 0.7 us here, at 40 arguments a typed
    ten-tool manifest. ``Argument`` has no ``__post_init__``, so the result is equal to
    ``Argument(identifier, term, ...)`` (mech_catalogue_core/tests/manifest/test_parse_speed_paths.py).

    :param identifier: the keyword name.
    :param term: the vocabulary term.
    :param schema_json: canonical JSON Schema.
    :param required: whether a call must supply it.
    :param default_json: canonical default, or None.
    :param description: human text.
    :return: the argument.
    """
    arg = object.__new__(Argument)
    _SET_IDENTIFIER(arg, identifier)
    _SET_TYPE(arg, term)
    _SET_SCHEMA_JSON(arg, schema_json)
    _SET_REQUIRED(arg, required)
    _SET_DEFAULT_JSON(arg, default_json)
    _SET_DESCRIPTION(arg, description)
    return arg


@bounded_memo(TYPE_SCHEMA_MEMO_ENTRIES, TYPE_SCHEMA_MEMO_CHARS)
def type_schema_text(term: str, enum_text: str) -> str:
    """The canonical JSON Schema of a vocabulary term, memoised.

    :param term: the vocabulary term (``model.types``).
    :param enum_text: the canonical JSON of its enum values, or ``"null"``.
    :return: canonical JSON Schema text.
    """
    return canonical_text(type_schema(term, decode(enum_text)))


def parse_argument(  # pylint: disable=too-many-locals
    item: Any, where: str, limits: Limits, found: Problems, bundled: bool = False
) -> Optional[Argument]:
    """Parse one argument declaration.

    Accepts a v1 ``arguments`` item, a seed ``kwargs`` item, or a property derived from
    ``input.schema``.

    :param item: the declaration, any JSON value.
    :param where: its JSON Pointer.
    :param limits: caps.
    :param found: problems are appended here.
    :param bundled: the schema is already self-contained (from ``input.schema``); else
        its references are resolved here (:func:`.schema_refs.self_contained`).
    :return: the argument, or None when it was dropped.
    """
    ident = item.get("identifier") if isinstance(item, dict) else None
    if not isinstance(ident, str) or not IDENTIFIER.fullmatch(ident):
        found.append(
            P.error(
                P.INVALID_ARGUMENT,
                f"Argument {where} needs an `identifier` that is a keyword name (letters, digits, "
                f"_; not starting with a digit; at most 128), not {_shown_value(ident)}; it was dropped.",
                where,
            )
        )
        return None
    schema = item.get("schema")
    raw_type = item.get("type", ANY if schema is None else infer_type(schema))
    term = normalise_type(raw_type)
    if term is None:
        found.append(
            P.warning(
                P.UNKNOWN_ARGUMENT_TYPE,
                f"Field {where}/type is {_shown_value(raw_type)}, no type term; use "
                f"int, str, hexAddress... ({MANIFEST_SPEC_URL}); read as `any`.",
                where + "/type",
            )
        )
        term = ANY
    enum = item.get("enum")
    enum_values = enum if isinstance(enum, list) and enum else None
    if schema is not None:
        reason = (
            "it is not an object"
            if not isinstance(schema, dict)
            else schema_error(canonical_text(schema))
        )
        if reason:
            found.append(
                P.warning(
                    P.INVALID_ARGUMENT_SCHEMA,
                    f"{where}/schema is not a valid JSON Schema ({reason}); the schema of type {term!r} is used.",
                    where + "/schema",
                )
            )
            schema = None
        elif not bundled:
            schema, ref_problems = self_contained(schema, (), where + "/schema")
            found.extend(ref_problems)
    schema_text = (
        type_schema_text(term, canonical_text(enum_values))
        if schema is None
        else canonical_text(schema)
    )
    description = item.get("description", "")
    if not isinstance(description, str) or len(description) > limits.max_text_length:
        description = text_field(item, "description", where, limits, found)
    required = item.get("required", "default" not in item)
    if not isinstance(required, bool):
        found.append(
            P.error(
                P.WRONG_TYPE,
                f"Field {where}/required should be true or false; it was taken as true.",
                where + "/required",
            )
        )
        required = True
    return new_argument(
        intern(ident),
        term,
        schema_text,
        required,
        canonical_text(item["default"]) if "default" in item else None,
        description,
    )
