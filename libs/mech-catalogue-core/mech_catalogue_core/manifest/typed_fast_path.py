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

r"""A fast path for the common typed manifest: decoded by ``msgspec`` into structs, in C.

:func:`typed_manifest` reads manifests of one common shape, ``tools`` (tool names) +
``toolMetadata`` whose every tool declares typed ``arguments`` (manifest v1) or
``kwargs`` (the seed proposal), or an ``input.schema`` whose properties are the
arguments (each distinct schema text derived once by the general path's own
:func:`.parse_tool.clean_schema_arguments`, kept in a bounded memo with the caps it was
derived under), and returns the :class:`.model.Manifest` that
:func:`.parsing.parse_manifest_general` builds for them, equal field by field, or None:
then the general path decides. It returns a manifest only for input the general path
parses with **no problem at all**, so every problem code, message and check stays the
general path's; anything it is not sure of, it declines. What it declines:

- a document that does not decode as that shape: other top-level fields than ``name``,
  ``description``, ``specVersion``, ``tools``, ``toolMetadata``, ``inputFormat``,
  ``outputFormat``, ``image``, ``url``; a tool object in ``tools``; a tool field other
  than ``name``, ``description``, ``input``, ``output``, ``arguments``, ``kwargs``,
  ``examples``, ``kind``; ``input``/``output`` fields other than ``type``,
  ``description``, ``schema``; an argument field other than ``identifier``, ``type``,
  ``description``, ``required``, ``default``, ``enum`` (an argument ``schema``
  included); a field of another JSON type than the general path accepts silently;
  invalid JSON of any kind (``msgspec`` refuses it, or the strict decode of a value
  below does);
- whatever would raise a problem: an invalid, blank, over-long or repeated tool name; a
  tool not listed in ``tools`` or listed without metadata; no tool; a name in the
  metadata other than the key; an over-long text; JSON in a description (the general
  path reads it); an unknown type term; a bad or repeated identifier; more arguments or
  tools than the caps; an unknown tool kind; an output schema the general path
  reports, or whose rewrite charges more than :data:`.schema_refs.INLINE_ALLOWANCE`
  budget units (the general path decides those against the tool's own size);
- a tool with neither ``arguments``, ``kwargs`` nor an ``input.schema`` (untyped); an
  ``input.schema`` the general path would report, find untyped, or turn into a rule
  sentence in the tool's description; input and output schema rewrites that together
  charge more than :data:`.schema_refs.INLINE_ALLOWANCE` budget units; an ``input``
  object whose ``schema`` follows a nested value (the pre-check does not see it);
- a tool with both ``arguments`` and ``kwargs``; nesting deeper than ``max_depth``;
  a ``\u003a`` escape anywhere (see below); a document over ``max_bytes``; str input.

Values of free JSON (``default``, ``enum``, ``examples``, an ``input``/``output``
``schema``, the top-level extras) are kept as raw JSON text (``msgspec.Raw``, skipped in
C). Each distinct text is decoded once by the strict decoder
(:func:`.validation.decode_json`: duplicate keys, number ranges, UTF-8, lone surrogates)
and what it gives is kept in a bounded memo keyed by the text, as is an output
schema's rewrite; a text the strict decoder refuses is remembered as a decline.

The strict decoder refuses duplicate object keys, and ``msgspec`` keeps the last value
silently. The structs are encoded again (every field that was present, once; raw
values verbatim): a duplicate key drops a ``key: value`` pair, and with it at least one
colon, so the document has more colons than the encoding. A colon escaped as
``\u003a`` would decode into an extra colon and could hide one: documents holding that
escape are declined.
"""

import re
from sys import intern
from typing import Any, Dict, List, Optional, Set, Tuple, Union

import msgspec
from mech_catalogue_core.manifest.parse_tool import (
    IDENTIFIER,
    clean_schema_arguments,
    fresh_output_schema,
    new_argument,
    new_tool,
    shape_provenance,
    type_schema_text,
)
from mech_catalogue_core.manifest.schema_refs import (
    INLINE_ALLOWANCE,
    tool_budget,
)
from mech_catalogue_core.manifest.validation import (
    decode_json,
    nesting_depth,
)
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
    SHAPE_ARGUMENTS_V1,
    SHAPE_INPUT_SCHEMA,
    SHAPE_KWARGS,
    TOOL_KINDS,
    Argument,
    Tool,
)
from mech_catalogue_core.model.types import (
    ANY,
    normalise_type,
)
from msgspec import UNSET, Raw, Struct, UnsetType

_Text = Union[str, UnsetType]
_Value = Union[Raw, UnsetType]


class _ArgumentStruct(Struct, forbid_unknown_fields=True, gc=False):
    """One ``arguments``/``kwargs`` item."""

    identifier: str
    type: _Text = UNSET
    description: _Text = UNSET
    required: Union[bool, UnsetType] = UNSET
    default: _Value = UNSET
    enum: _Value = UNSET


class _IOStruct(Struct, forbid_unknown_fields=True, gc=False):
    """A tool's ``input`` or ``output``."""

    type: _Text = UNSET
    description: _Text = UNSET
    schema: _Value = UNSET


class _ToolStruct(Struct, forbid_unknown_fields=True, gc=False):
    """One ``toolMetadata`` entry."""

    name: _Text = UNSET
    description: _Text = UNSET
    input: Union[_IOStruct, UnsetType] = UNSET
    output: Union[_IOStruct, UnsetType] = UNSET
    arguments: Union[List[_ArgumentStruct], UnsetType] = UNSET
    kwargs: Union[List[_ArgumentStruct], UnsetType] = UNSET
    examples: _Value = UNSET
    kind: _Text = UNSET


class _ManifestStruct(Struct, forbid_unknown_fields=True, gc=False):
    """The whole document (the extras are those ``model.Manifest.extra_json`` names)."""

    tools: List[str]
    toolMetadata: Dict[str, _ToolStruct]  # noqa: N815  # the manifest's own key
    name: _Text = UNSET
    description: _Text = UNSET
    specVersion: _Text = UNSET  # noqa: N815
    inputFormat: _Value = UNSET  # noqa: N815
    outputFormat: _Value = UNSET  # noqa: N815
    image: _Value = UNSET
    url: _Value = UNSET


_EXTRAS = ("inputFormat", "outputFormat", "image", "url")
_DECODER = msgspec.json.Decoder(_ManifestStruct)
_ENCODER = msgspec.json.Encoder()
#: nesting depth of the struct levels, where a raw value starts (document = 1)
_DEPTH_TOP, _DEPTH_TOOL, _DEPTH_IO, _DEPTH_ARGUMENT = 1, 3, 4, 5
#: raw JSON texts longer than this are decoded each time, not memoised
MEMO_TEXT = 1 << 14
#: text held per memo, in bytes (cleared when full)
MEMO_BYTES = 1 << 20
#: entries per memo (cleared when full: a miss only costs time)
MEMO_ENTRIES = 4096
#: the caps raw values are strictly decoded under (depth is checked at use, per limits)
_VALUE_LIMITS = Limits(max_bytes=DEFAULT_LIMITS.max_bytes, max_depth=64)
#: an ``input`` object whose ``schema`` comes before any nested value; an input schema
#: placed after one is declined (read by the general path), as any doubt is
_INPUT_SCHEMA = re.compile(rb'"input"\s*:\s*\{[^{}]*"schema"')
#: as :func:`.parsing.name_problem` finds them
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class _Decline(Exception):
    """The general path decides this document."""


class _RawMemo:
    """What each distinct raw JSON text gives, computed once: bounded, cleared when full.

    Bounded by entries (:data:`MEMO_ENTRIES`) and by the bytes of text they hold
    (:data:`MEMO_BYTES`, each entry charged its key and any text it keeps), so distinct
    large values cannot grow it: what it keeps is at most a few times that text.
    """

    def __init__(self) -> None:
        """Start empty."""
        self.entries: Dict[bytes, Any] = {}
        self.size = 0

    def clear(self) -> None:
        """Forget every entry."""
        self.entries.clear()
        self.size = 0

    def put(self, key: bytes, entry: Any, kept: int = 0) -> Any:
        """Remember an entry (unless its text is too long), and return it.

        :param key: the raw JSON text.
        :param entry: what it gives.
        :param kept: characters of text the entry holds besides the key.
        :return: ``entry``.
        """
        size = len(key) + kept
        if len(key) <= MEMO_TEXT:
            if len(self.entries) >= MEMO_ENTRIES or self.size + size > MEMO_BYTES:
                self.clear()
            self.entries[key] = entry
            self.size += size
        return entry


#: raw text -> (decoded value, its nesting depth, its canonical text), or None (declined)
VALUES = _RawMemo()
#: raw text -> (canonical self-contained output schema, budget units, depth), or None
OUTPUT_SCHEMAS = _RawMemo()
#: raw text -> (the limits, then (arguments, budget units, depth) or None)
INPUT_SCHEMAS = _RawMemo()


def clear_memos() -> None:
    """Forget what the fast path remembered of raw values (tests start from nothing)."""
    VALUES.clear()
    OUTPUT_SCHEMAS.clear()
    INPUT_SCHEMAS.clear()
    _TERMS.clear()


def _fresh_value(text: bytes) -> Optional[Tuple[Any, int, str]]:
    decoded = decode_json(text, _VALUE_LIMITS)
    if not decoded.ok:
        return None
    return decoded.value, nesting_depth(text), canonical_text(decoded.value)


def _value(raw: Raw, at_depth: int, limits: Limits) -> Tuple[Any, str]:
    """Decode a raw value strictly (memoised), within the depth cap.

    :param raw: the value's JSON text.
    :param at_depth: nesting depth of the object holding it.
    :param limits: caps.
    :return: (the value, its canonical text).
    :raises _Decline: when the strict decoder refuses it or it nests too deep.
    """
    text = bytes(raw)
    entry = VALUES.entries.get(text, False)
    if entry is False:
        entry = _fresh_value(text)
        VALUES.put(text, entry, 0 if entry is None else len(entry[2]))
    if entry is None or at_depth + entry[1] > limits.max_depth:
        raise _Decline()
    return entry[0], entry[2]


def _fresh_output_schema_entry(text: bytes) -> Optional[Tuple[str, int, int]]:
    decoded = decode_json(text, _VALUE_LIMITS)
    if not decoded.ok:
        return None
    found: List[Any] = []
    with tool_budget(decoded.value) as budget:
        schema_text = fresh_output_schema(decoded.value, "/output/schema", found)
    if found or schema_text is None:
        return None
    return schema_text, budget.spent, nesting_depth(text)


def _output_schema(raw: Raw, limits: Limits, spent: int) -> str:
    """The self-contained canonical output schema, as the general path writes it.

    :param raw: the ``output.schema`` JSON text.
    :param limits: caps.
    :param spent: inline-budget units the tool's input schema already charged.
    :return: the canonical text.
    :raises _Decline: when the general path would report a problem for it, or could
        (the tool's rewrites charge more than the budget every tool has).
    """
    text = bytes(raw)
    entry = OUTPUT_SCHEMAS.entries.get(text, False)
    if entry is False:
        entry = _fresh_output_schema_entry(text)
        OUTPUT_SCHEMAS.put(text, entry, 0 if entry is None else len(entry[0]))
    if (
        entry is None
        or spent + entry[1] > INLINE_ALLOWANCE
        or _DEPTH_IO + entry[2] > limits.max_depth
    ):
        raise _Decline()
    return entry[0]


def _fresh_input_schema_entry(
    text: bytes, limits: Limits
) -> Optional[Tuple[Tuple[Argument, ...], int, int]]:
    decoded = decode_json(text, _VALUE_LIMITS)
    if not decoded.ok:
        return None
    derived = clean_schema_arguments(decoded.value, limits)
    if derived is None:
        return None
    return derived[0], derived[1], nesting_depth(text)


def _input_schema_arguments(
    raw: Raw, limits: Limits
) -> Tuple[Tuple[Argument, ...], int]:
    """The arguments a tool's ``input.schema`` gives, as the general path derives them.

    :param raw: the ``input.schema`` JSON text.
    :param limits: caps (arguments depend on them, so an entry is kept with its caps).
    :return: (the arguments, the inline-budget units their bundling charged).
    :raises _Decline: when the general path would report a problem, find the tool
        untyped, or add a rule sentence to its description.
    """
    text = bytes(raw)
    entry = INPUT_SCHEMAS.entries.get(text)
    if entry is None or (entry[0] is not limits and entry[0] != limits):
        derived = _fresh_input_schema_entry(text, limits)
        kept = 0
        if derived is not None:
            kept = sum(len(a.schema_json) + len(a.description) for a in derived[0])
        entry = INPUT_SCHEMAS.put(text, (limits, derived), kept)
    derived = entry[1]
    if derived is None or _DEPTH_IO + derived[2] > limits.max_depth:
        raise _Decline()
    return derived[0], derived[1]


def _text(value: Any, limits: Limits) -> str:
    """A text field as the general path keeps it without a problem.

    :param value: the field (UNSET when absent).
    :param limits: caps.
    :return: the text ("" when absent).
    :raises _Decline: when it is over ``max_text_length`` (a TEXT_TOO_LONG warning).
    """
    if value is UNSET:
        return ""
    if len(value) > limits.max_text_length:
        raise _Decline()
    return value


def typed_manifest(data: Any, limits: Limits = DEFAULT_LIMITS) -> Optional[Manifest]:
    """Parse a common typed manifest in C, or decline (see the module docstring).

    :param data: manifest bytes as fetched (anything else is declined).
    :param limits: caps.
    :return: the manifest, equal to the general path's, which reports no problem for
        it; or None when the general path must decide.
    """
    if not _may_be_typed(data, limits):
        return None
    try:
        document = _DECODER.decode(data)
    except msgspec.DecodeError:  # invalid JSON, or not this shape
        return None
    try:
        manifest = _manifest(document, limits)
    except _Decline:
        return None
    if data.count(b":") != _ENCODER.encode(document).count(b":"):
        return None  # a duplicate key (see the module docstring)
    return manifest


def _may_be_typed(data: Any, limits: Limits) -> bool:
    """Tell, without decoding, whether the fast path may accept a document.

    :param data: the manifest as given.
    :param limits: caps.
    :return: False for anything but bytes within ``max_bytes`` that mention
        ``"arguments"`` or ``"kwargs"``, or hold an ``input`` object with a ``schema``
        among its first fields (:data:`_INPUT_SCHEMA`), and hold no escaped colon.
    """
    if not isinstance(data, bytes) or len(data) > limits.max_bytes:
        return False
    if (
        b'"arguments"' not in data
        and b'"kwargs"' not in data
        and _INPUT_SCHEMA.search(data) is None
    ):
        return False  # untyped: cheap to decline before decoding
    if b"\\u003" in data:  # one search in the common case, where there is none
        return b"\\u003a" not in data and b"\\u003A" not in data
    return True


def _manifest(document: _ManifestStruct, limits: Limits) -> Manifest:
    if limits.max_depth < _DEPTH_ARGUMENT:
        raise _Decline()
    names, metadata = document.tools, document.toolMetadata
    if (
        not names
        or len(names) > limits.max_tools
        or len(metadata) != len(names)
        or len(set(names)) != len(names)
    ):
        raise _Decline()  # no tool, too many, or metadata and list disagree
    description = _text(document.description, limits)
    if "{" in description or "[" in description:
        raise _Decline()  # it may hold tool metadata as JSON
    extra = {}
    for key in _EXTRAS:
        raw = getattr(document, key)
        if raw is not UNSET:
            extra[key] = _value(raw, _DEPTH_TOP, limits)[0]
    tools = []
    for name in names:
        meta = metadata.get(name)
        if meta is None or not _good_name(name, limits):
            raise _Decline()
        tools.append(_tool(name, meta, limits))
    spec_version = document.specVersion
    return Manifest(
        name=_text(document.name, limits),
        description=description,
        tools=tuple(tools),
        extra_json=canonical_text(extra),
        spec_version="" if spec_version is UNSET else spec_version[:20],
        withheld=(),
    )


def _good_name(name: str, limits: Limits) -> bool:
    """Whether :func:`.parsing.name_problem` finds nothing wrong with a tool name.

    :param name: the name.
    :param limits: caps.
    :return: True when the name is not blank, short enough, free of control characters
        and hides nothing (:func:`.hidden_characters.name_hiding`).
    """
    return (
        bool(name.strip(" "))
        and len(name) <= limits.max_name_length
        and _CONTROL.search(name) is None
        and not name_hiding(name)
    )


def _tool(name: str, meta: _ToolStruct, limits: Limits) -> Tool:
    """Build one tool as :func:`.parse_tool.parse_tool` does when it finds no problem.

    :param name: the tool name (the ``toolMetadata`` key).
    :param meta: its metadata.
    :param limits: caps.
    :return: the tool.
    :raises _Decline: when the general path would report a problem.
    """
    if meta.name is not UNSET and meta.name != name:
        raise _Decline()
    description = _text(meta.description, limits)
    if description.lstrip().startswith("{"):
        raise _Decline()  # JSON in the description: the general path reads it
    input_type, input_description, schema = _io(meta.input, limits)
    arguments, shape, spent = _typed_input(meta, schema, limits)
    output_type, output_description, schema = _io(meta.output, limits)
    output_schema = None if schema is UNSET else _output_schema(schema, limits, spent)
    examples: Tuple[str, ...] = ()
    if meta.examples is not UNSET:
        value = _value(meta.examples, _DEPTH_TOOL, limits)[0]
        if not isinstance(value, list):
            raise _Decline()
        examples = tuple(canonical_text(e) for e in value)
    kind = meta.kind
    if kind is UNSET:
        kind = ""
    elif kind not in TOOL_KINDS:  # unknown or not a lowercase word: a warning
        raise _Decline()
    return new_tool(
        (
            name,
            description,
            arguments,
            intern(input_type),
            intern(input_description),
            intern(output_type),
            intern(output_description),
            output_schema,
            examples,
            "{}",
            shape_provenance(shape),
            kind,
        )
    )


def _typed_input(
    meta: _ToolStruct, schema: Any, limits: Limits
) -> Tuple[Tuple[Argument, ...], str, int]:
    """A tool's arguments: its ``arguments``, its ``kwargs``, or its ``input.schema``'s.

    :param meta: the tool's metadata.
    :param schema: its raw ``input.schema`` (or UNSET).
    :param limits: caps.
    :return: (the arguments, the shape they came from, inline-budget units charged).
    :raises _Decline: when the tool is untyped, declares both lists, or the general
        path would report a problem.
    """
    if meta.arguments is not UNSET:
        if meta.kwargs is not UNSET:
            raise _Decline()
        items, shape = meta.arguments, SHAPE_ARGUMENTS_V1
    elif meta.kwargs is not UNSET:
        items, shape = meta.kwargs, SHAPE_KWARGS
    elif schema is UNSET:
        raise _Decline()  # untyped: an UNTYPED_INPUT warning
    else:
        arguments, spent = _input_schema_arguments(schema, limits)
        return arguments, SHAPE_INPUT_SCHEMA, spent
    if schema is not UNSET:  # not read when there are arguments, still decoded
        _value(schema, _DEPTH_IO, limits)
    return _arguments(items, limits), shape, 0


def _io(block: Union[_IOStruct, UnsetType], limits: Limits) -> Tuple[str, str, Any]:
    """Read a tool's ``input`` or ``output``.

    :param block: the struct, or UNSET when absent.
    :param limits: caps.
    :return: its type and description ("" when absent) and its raw schema (or UNSET).
    """
    if block is UNSET:
        return "", "", UNSET
    return _text(block.type, limits), _text(block.description, limits), block.schema


def _term(raw_type: Any) -> Tuple[str, str]:
    """Normalise a type term and write its schema (both remembered for the next argument).

    :param raw_type: the ``type`` text (UNSET when absent: ``any``).
    :return: the vocabulary term and its schema text without an enum.
    :raises _Decline: when it is not one (an UNKNOWN_ARGUMENT_TYPE warning).
    """
    term = ANY if raw_type is UNSET else normalise_type(raw_type)
    if term is None:
        raise _Decline()
    if len(_TERMS) >= MEMO_ENTRIES:
        _TERMS.clear()
    entry = _TERMS[raw_type] = (term, type_schema_text(term, "null"))
    return entry


#: type text -> its vocabulary term and that term's schema text (no enum), for texts
#: that have one (at most MEMO_ENTRIES texts, each at most ``types.MAX_TYPE_LENGTH``)
_TERMS: Dict[Any, Tuple[str, str]] = {}


def _arguments(  # pylint: disable=too-many-locals
    items: List[_ArgumentStruct], limits: Limits
) -> Tuple[Argument, ...]:
    """Build the arguments as :func:`.parse_tool.parse_argument` does without a problem.

    Each argument is built by :func:`.parse_tool.new_argument`, as the general path does.

    :param items: the declarations.
    :param limits: caps.
    :return: the arguments, in order.
    :raises _Decline: when the general path would report a problem.
    """
    if len(items) > limits.max_arguments:
        raise _Decline()
    arguments = []
    seen: Set[str] = set()
    fullmatch = IDENTIFIER.fullmatch
    max_text = limits.max_text_length
    terms = _TERMS
    for item in items:
        ident = item.identifier
        if ident in seen or fullmatch(ident) is None:
            raise _Decline()
        seen.add(ident)
        raw_type = item.type
        term, schema_text = terms.get(raw_type) or _term(raw_type)
        if item.enum is not UNSET:
            enum, text = _value(item.enum, _DEPTH_ARGUMENT, limits)
            if enum and isinstance(enum, list):
                schema_text = type_schema_text(term, text)
        description = item.description
        if description is UNSET:
            description = ""
        elif len(description) > max_text:
            raise _Decline()
        default = item.default
        required = item.required
        if required is UNSET:
            required = default is UNSET
        arguments.append(
            new_argument(
                intern(ident),
                term,
                schema_text,
                required,
                (
                    None
                    if default is UNSET
                    else _value(default, _DEPTH_ARGUMENT, limits)[1]
                ),
                description,
            )
        )
    return tuple(arguments)
