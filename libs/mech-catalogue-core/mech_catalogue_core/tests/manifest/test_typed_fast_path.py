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

"""The typed fast path builds the general path's manifest, or declines.

Every test checks the one property: ``typed_manifest`` returns None, or a manifest equal
to the one ``parse_manifest_general`` builds for the same bytes *with no problem*; and
``parse_manifest`` (which tries the fast path first) always equals the general path.
Inputs are written to hit each way the two could differ (duplicate keys the compiled
decoder resolves silently, escaped colons, numbers and strings the strict decoder
refuses, depth, schema rewrites, every check that raises a problem) and generated.
"""

import json
from typing import Any, Dict, List, Optional, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mech_catalogue_core.manifest import typed_fast_path as fast_path
from mech_catalogue_core.manifest.parsing import (
    ParseResult,
    parse_manifest,
    parse_manifest_general,
)
from mech_catalogue_core.manifest.schema_refs import (
    INLINE_ALLOWANCE,
)
from mech_catalogue_core.manifest.typed_fast_path import (
    clear_memos,
    typed_manifest,
)
from mech_catalogue_core.model import problems as P
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
)

OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {"p_yes": {"type": "number"}, "info": {"type": "string"}},
    "required": ["p_yes"],
}

INPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "prompt": {"type": "string", "description": "The question"},
        "max_tokens": {"type": "integer", "default": 100},
        "sender": {"type": "string", "pattern": "^0x[a-fA-F0-9]{40}$"},
    },
    "required": ["prompt"],
    "additionalProperties": False,
}


def check(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Tuple[Any, ParseResult]:
    """Run both paths and assert the property, memo cold and then warm.

    :param data: manifest bytes.
    :param limits: caps.
    :return: (the fast path's manifest or None, the general path's result).
    """
    general = parse_manifest_general(data, limits)
    results = []
    for _ in range(2):  # the second run reads the memos the first one filled
        fast = typed_manifest(data, limits)
        if fast is not None:
            assert general.problems == ()
            assert fast == general.manifest
        assert parse_manifest(data, limits) == general
        results.append(fast)
    assert (results[0] is None) == (results[1] is None)
    return results[0], general


def argument(identifier: str, term: Any = "int", **fields: Any) -> Dict[str, Any]:
    """An ``arguments`` item.

    :param identifier: its identifier.
    :param term: its type.
    :param fields: other fields.
    :return: the item.
    """
    return {"identifier": identifier, "type": term, **fields}


def tool(name: str, **fields: Any) -> Dict[str, Any]:
    """A typed ``toolMetadata`` entry.

    :param name: the tool name.
    :param fields: fields to set or replace (None removes one).
    :return: the entry.
    """
    meta: Dict[str, Any] = {
        "name": name,
        "description": f"What {name} does.",
        "input": {"type": "text", "description": "The request"},
        "output": {
            "type": "object",
            "description": "The result",
            "schema": OUTPUT_SCHEMA,
        },
        "arguments": [
            argument("market", "hexAddress", description="The market"),
            argument("mode", "enum", enum=["fast", "slow"], default="fast"),
            argument("limit", "int", required=False),
        ],
    }
    meta.update(fields)
    return {k: v for k, v in meta.items() if v is not None}


def schema_tool(name: str, schema: Any = None, **fields: Any) -> Dict[str, Any]:
    """A ``toolMetadata`` entry whose arguments come from its ``input.schema``.

    :param name: the tool name.
    :param schema: the input schema (:data:`INPUT_SCHEMA` when None).
    :param fields: fields to set or replace (None removes one).
    :return: the entry.
    """
    request: Dict[str, Any] = {"type": "object", "description": "The request"}
    request["schema"] = INPUT_SCHEMA if schema is None else schema
    return tool(name, arguments=None, input=request, **fields)


def document(
    metadata: Optional[Dict[str, Any]] = None, **fields: Any
) -> Dict[str, Any]:
    """A v1 manifest.

    :param metadata: toolMetadata (two typed tools when None); ``tools`` lists its keys.
    :param fields: top-level fields to set or replace (None removes one).
    :return: the document.
    """
    if metadata is None:
        metadata = {n: tool(n) for n in ("alpha", "beta")}
    doc: Dict[str, Any] = {
        "specVersion": "1",
        "name": "A mech",
        "description": "Predicts things.",
        "inputFormat": "ipfs-v0.1",
        "tools": list(metadata),
        "toolMetadata": metadata,
    }
    doc.update(fields)
    return {k: v for k, v in doc.items() if v is not None}


def encode(doc: Any, indent: Optional[int] = 2) -> bytes:
    """Write a document as published.

    :param doc: the document.
    :param indent: json.dumps indent.
    :return: its bytes.
    """
    return json.dumps(doc, indent=indent).encode()


@pytest.fixture(autouse=True)
def cold_memos() -> None:
    """Each test starts with empty fast-path memos."""
    clear_memos()


def test_a_typed_manifest_is_read_by_the_fast_path() -> None:
    """The common shape is accepted and equals the general path's manifest, both shapes."""
    fast, general = check(encode(document()))
    assert fast is not None and general.problems == ()
    assert [a.identifier for a in fast.tools[0].arguments] == [
        "market",
        "mode",
        "limit",
    ]
    assert fast.tools[0].provenance.shape == SHAPE_ARGUMENTS_V1
    kwargs_tool = tool("gamma", arguments=None, kwargs=[argument("sender", "address")])
    fast, _ = check(encode(document({"gamma": kwargs_tool}), indent=None))
    assert fast is not None
    assert fast.tools[0].provenance.shape == SHAPE_KWARGS
    assert fast.tools[0].arguments[0].type == "hexAddress"


def test_free_json_values_are_kept_as_the_general_path_keeps_them() -> None:
    """Defaults, enums, examples and extras of every JSON kind give the same canonical text."""
    args = [
        argument("a", "dict", default={"z": [1, 2.5, None], "a": True}),
        argument("b", "float", default=-0.0),
        argument("c", "enum", enum=[1, "x", None, {"k": []}]),
        argument("d", "enum", enum=[]),  # an empty enum is no enum
        argument("e", "str", enum="not a list", default=None),
        argument("f", "int", default=10000000000000000),  # 1e16 as written by RFC 8785
    ]
    meta = tool("t", arguments=args, examples=[{"in": "x"}, 3, "y"], kind="prediction")
    doc = document({"t": meta}, image={"cid": "bafy"}, url=None, outputFormat=[1])
    fast, _ = check(encode(document({"t": meta}, image={"cid": "bafy"})))
    assert fast is not None
    fast, _ = check(encode(doc))
    assert fast is not None
    assert fast.tools[0].arguments[5].default_json == "10000000000000000"


@pytest.mark.parametrize(
    "data",
    [
        b'{"tools": ["t"], "name": "A", "name": "B", "toolMetadata": {"t": {"arguments": []}}}',
        b'{"tools": ["t"], "toolMetadata": {}, "toolMetadata": {"t": {"arguments": []}}}',
        b'{"tools": [], "toolMetadata": {"t": {"arguments": []}}, "tools": ["t"]}',
    ],
)
def test_a_duplicate_top_level_key_is_left_to_the_strict_decode(data: bytes) -> None:
    """A repeated top-level key: declined, and the general path reports duplicate_key.

    :param data: a manifest repeating a top-level key.
    """
    assert (
        typed_manifest(
            data.replace(b'"name": "A", ', b"")
            .replace(b'"toolMetadata": {}, ', b"")
            .replace(b'"tools": [], ', b"")
        )
        is not None
    )
    fast, general = check(data)
    assert fast is None
    assert general.codes == (P.DUPLICATE_KEY,)


@pytest.mark.parametrize(
    "old,new",
    [
        # the same tool twice in toolMetadata
        (b'"toolMetadata": {', b'"toolMetadata": {"alpha": {"arguments": []}, '),
        # a tool field
        (
            b'"description": "What alpha',
            b'"description": "x", "description": "What alpha',
        ),
        # an argument field, its value a different string
        (b'"identifier": "market"', b'"identifier": "other", "identifier": "market"'),
        # inside a raw value: a default object
        (b'"default": "fast"', b'"default": {"a": 1, "a": 1}'),
        # inside the output schema
        (b'"required": [', b'"type": "object", "required": ['),
        # a key repeated in its escaped spelling
        (b'"identifier": "market"', b'"identifier": "x", "\\u0069dentifier": "market"'),
    ],
)
def test_a_duplicate_key_anywhere_is_left_to_the_strict_decode(
    old: bytes, new: bytes
) -> None:
    """Declined: msgspec keeps the last value silently, the colon count notices.

    :param old: text of a clean manifest to replace (first occurrence).
    :param new: the same with a repeated key.
    """
    clean = encode(document(), indent=None)
    assert old in clean
    fast, general = check(clean.replace(old, new, 1))
    assert fast is None
    assert general.codes == (P.DUPLICATE_KEY,)


def test_an_escaped_colon_is_declined_even_without_a_duplicate() -> None:
    """An escaped colon could hide a dropped pair from the colon count: never accepted."""
    clean = encode(document(), indent=None)
    escaped = clean.replace(b"Predicts things.", b"Predicts\\u003a things.")
    fast, general = check(escaped)
    assert fast is None and general.problems == ()
    assert general.manifest is not None
    assert general.manifest.description == "Predicts: things."
    hidden = escaped.replace(
        b'"identifier": "market"', b'"identifier": "x", "identifier": "market"', 1
    )
    fast, general = check(hidden)
    assert fast is None and general.codes == (P.DUPLICATE_KEY,)


@pytest.mark.parametrize(
    "default,code",
    [
        (b"12345678901234567890", P.NUMBER_OUT_OF_RANGE),
        (b"1e400", P.NON_FINITE_NUMBER),
        (b'"\\ud800"', P.INVALID_STRING),
        (b'"a\xff"', P.NOT_UTF8),
    ],
)
def test_values_the_strict_decode_refuses_are_declined(
    default: bytes, code: str
) -> None:
    """A raw value msgspec only skipped is decoded strictly: its error is the general one.

    :param default: the default's JSON text.
    :param code: the strict decode's error.
    """
    clean = encode(document(), indent=None)
    fast, general = check(clean.replace(b'"fast"', default, 1))
    assert fast is None
    assert general.codes == (code,)


@pytest.mark.parametrize(
    "text,code",
    [
        (
            b"Predicts\\ud800 things.",
            P.INVALID_STRING,
        ),  # a lone surrogate, struct field
        (b"Predicts\xc0\x80 things.", P.NOT_UTF8),  # an overlong encoding
        (b"Predicts\x01 things.", P.INVALID_JSON),  # a raw control character
    ],
)
def test_strings_the_strict_decode_refuses_are_declined(text: bytes, code: str) -> None:
    """Declined (msgspec refuses them too); the general path gives the error.

    :param text: the top-level description's new text.
    :param code: the strict decode's error.
    """
    clean = encode(document(), indent=None)
    fast, general = check(clean.replace(b"Predicts things.", text))
    assert fast is None
    assert general.codes == (code,)


def test_depth_is_checked_against_the_cap() -> None:
    """An enum nested to exactly max_depth is accepted; one level more is too deep."""
    nested: Any = "x"
    for _ in range(3):
        nested = [nested]
    meta = tool("t", arguments=[argument("a", "enum", enum=nested)])
    data = encode(document({"t": meta}))  # document 1, tool 3, item 5, enum 5 + 3
    fast, general = check(data, Limits(max_depth=8))
    assert fast is not None and general.problems == ()
    fast, general = check(data, Limits(max_depth=7))
    assert fast is None
    assert general.codes == (P.TOO_DEEP,)
    fast, general = check(data, Limits(max_depth=4))  # below the struct levels
    assert fast is None


def test_output_schemas_are_accepted_only_as_the_general_path_accepts_them() -> None:
    """A schema with references is rewritten alike; a dangling one or a costly one declines."""
    with_ref = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/n"}},
        "$defs": {"n": {"type": "number"}},
    }
    fast, _ = check(encode(document({"t": tool("t", output={"schema": with_ref})})))
    assert fast is not None and fast.tools[0].output_schema_json is not None
    dangling = {"type": "object", "properties": {"a": {"$ref": "#/$defs/none"}}}
    fast, general = check(
        encode(document({"t": tool("t", output={"schema": dangling})}))
    )
    assert fast is None and P.INVALID_OUTPUT_SCHEMA in general.codes
    for schema in (None, 5, {"type": 5}):
        fast, general = check(
            encode(document({"t": tool("t", output={"schema": schema})}))
        )
        assert fast is None and general.problems
    big = {"type": "string", "description": "d" * 40}
    costly = {
        "type": "object",
        "properties": {f"p{i}": {"$ref": "#/$defs/big"} for i in range(80)},
        "$defs": {"big": big},
    }
    entry = fast_path._fresh_output_schema_entry(  # pylint: disable=protected-access
        json.dumps(costly).encode()
    )
    assert entry is not None and entry[1] > INLINE_ALLOWANCE
    fast, _ = check(encode(document({"t": tool("t", output={"schema": costly})})))
    assert fast is None  # the general path decides it against the tool's own size


def test_input_schema_tools_are_read_by_the_fast_path() -> None:
    """Arguments derived from ``input.schema`` equal the general path's; ``arguments`` win."""
    fast, general = check(encode(document({n: schema_tool(n) for n in ("a", "b")})))
    assert fast is not None and general.problems == ()
    assert fast.tools[0].provenance.shape == SHAPE_INPUT_SCHEMA
    arguments = fast.tools[0].arguments
    assert [a.identifier for a in arguments] == ["prompt", "max_tokens", "sender"]
    assert [a.required for a in arguments] == [True, False, False]
    assert arguments[1].default_json == "100"
    union = {"anyOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {}}]}
    fast, _ = check(encode(document({"u": schema_tool("u", union)}), indent=None))
    assert fast is not None and [a.identifier for a in fast.tools[0].arguments] == ["a"]
    both = tool("both", input={"type": "object", "schema": INPUT_SCHEMA})
    fast, _ = check(encode(document({"both": both})))
    assert fast is not None and fast.tools[0].provenance.shape == SHAPE_ARGUMENTS_V1


def test_an_input_schema_is_rederived_under_other_limits() -> None:
    """The memo keeps the caps an entry was derived under: tighter caps decline."""
    data = encode(document({"t": schema_tool("t")}))
    assert check(data)[0] is not None
    fast, general = check(data, Limits(max_arguments=2))
    assert fast is None and P.INVALID_ARGUMENT in general.codes
    assert check(data)[0] is not None


def test_input_and_output_rewrites_share_the_budget_every_tool_has() -> None:
    """Each rewrite fits the allowance alone, both together do not: declined on doubt."""
    big = {"type": "string", "description": "d" * 40}

    def costly(count: int) -> Dict[str, Any]:
        properties = {f"p{i}": {"$ref": "#/$defs/big"} for i in range(count)}
        return {"type": "object", "properties": properties, "$defs": {"big": big}}

    # pylint: disable=protected-access
    entry = fast_path._fresh_input_schema_entry(
        json.dumps(costly(40)).encode(), DEFAULT_LIMITS
    )
    out = fast_path._fresh_output_schema_entry(json.dumps(costly(20)).encode())
    # pylint: enable=protected-access
    assert entry is not None and out is not None
    assert entry[1] <= INLINE_ALLOWANCE and out[1] <= INLINE_ALLOWANCE
    assert entry[1] + out[1] > INLINE_ALLOWANCE
    meta = schema_tool("t", costly(40), output={"schema": costly(20)})
    fast, general = check(encode(document({"t": meta})))
    assert fast is None and general.problems == ()
    meta = schema_tool("t", costly(20), output={"schema": costly(20)})
    assert check(encode(document({"t": meta})))[0] is not None


# One fault each on a clean manifest: the general path reports it (or, for shapes the
# fast path does not know, parses it), the fast path declines.
FAULTS: List[Tuple[str, Dict[str, Any], Limits, Optional[str]]] = [
    ("bad tool name", document({"a\x01": tool("a\x01")}), DEFAULT_LIMITS, P.INVALID_TOOL_NAME),
    ("blank tool name", document({" ": tool(" ")}), DEFAULT_LIMITS, P.INVALID_TOOL_NAME),
    ("long tool name", document({"abcdef": tool("abcdef")}), Limits(max_name_length=5), P.INVALID_TOOL_NAME),
    ("name mismatch", document({"t": tool("other")}), DEFAULT_LIMITS, P.TOOL_NAME_MISMATCH),
    ("unlisted metadata", document(tools=["a"], toolMetadata={"a": tool("a"), "b": tool("b")}), DEFAULT_LIMITS, P.METADATA_WITHOUT_TOOL),
    ("listed without metadata", document(tools=["a", "b"], toolMetadata={"a": tool("a")}), DEFAULT_LIMITS, P.TOOL_WITHOUT_METADATA),
    ("listed twice", document(tools=["a", "a"], toolMetadata={"a": tool("a")}), DEFAULT_LIMITS, P.DUPLICATE_TOOL),
    ("no tool", document({}), DEFAULT_LIMITS, P.NO_TOOLS),
    ("too many tools", document(), Limits(max_tools=1), P.TOO_MANY_TOOLS),
    ("long text", document(description="x" * 30), Limits(max_text_length=20), P.TEXT_TOO_LONG),
    ("long argument text", document({"t": tool("t", arguments=[argument("a", description="y" * 30)])}), Limits(max_text_length=25), P.TEXT_TOO_LONG),
    ("JSON in the description", document(description='[{"name": "t", "kwargs": []}]'), DEFAULT_LIMITS, P.DESCRIPTION_JSON_PARSED),
    ("JSON in a tool description", document({"t": tool("t", description='{"kind": "chat"}')}), DEFAULT_LIMITS, P.DESCRIPTION_JSON_PARSED),
    ("unknown type", document({"t": tool("t", arguments=[argument("a", "bogus")])}), DEFAULT_LIMITS, P.UNKNOWN_ARGUMENT_TYPE),
    ("type not a string", document({"t": tool("t", arguments=[argument("a", 5)])}), DEFAULT_LIMITS, P.UNKNOWN_ARGUMENT_TYPE),
    ("bad identifier", document({"t": tool("t", arguments=[argument("9a")])}), DEFAULT_LIMITS, P.INVALID_ARGUMENT),
    ("no identifier", document({"t": tool("t", arguments=[{"type": "int"}])}), DEFAULT_LIMITS, P.INVALID_ARGUMENT),
    ("identifier twice", document({"t": tool("t", arguments=[argument("a"), argument("a")])}), DEFAULT_LIMITS, P.DUPLICATE_ARGUMENT),
    ("too many arguments", document(), Limits(max_arguments=2), P.INVALID_ARGUMENT),
    ("required not a boolean", document({"t": tool("t", arguments=[argument("a", required="yes")])}), DEFAULT_LIMITS, P.WRONG_TYPE),
    ("unknown kind", document({"t": tool("t", kind="oracle")}), DEFAULT_LIMITS, P.UNKNOWN_TOOL_KIND),
    ("kind not a word", document({"t": tool("t", kind="Big Kind")}), DEFAULT_LIMITS, P.UNKNOWN_TOOL_KIND),
    ("examples not a list", document({"t": tool("t", examples="x")}), DEFAULT_LIMITS, P.WRONG_TYPE),
    ("specVersion not a string", document(specVersion=1), DEFAULT_LIMITS, P.WRONG_TYPE),
    ("untyped tool", document({"t": tool("t", arguments=None)}), DEFAULT_LIMITS, P.UNTYPED_INPUT),
    ("output not an object", document({"t": tool("t", output="text")}), DEFAULT_LIMITS, P.WRONG_TYPE),
    ("input schema without properties", document({"t": schema_tool("t", {"type": "object"})}), DEFAULT_LIMITS, P.UNTYPED_INPUT),
    ("input schema invalid", document({"t": schema_tool("t", {"type": "object", "properties": {"a": {"type": 5}}})}), DEFAULT_LIMITS, P.INVALID_ARGUMENT_SCHEMA),
    ("input schema not an object", document({"t": schema_tool("t", [1])}), DEFAULT_LIMITS, P.INVALID_ARGUMENT_SCHEMA),
    ("input property not an identifier", document({"t": schema_tool("t", {"type": "object", "properties": {"9x": {"type": "string"}}})}), DEFAULT_LIMITS, P.INVALID_ARGUMENT),
    ("input property dangling reference", document({"t": schema_tool("t", {"type": "object", "properties": {"a": {"$ref": "#/$defs/none"}}})}), DEFAULT_LIMITS, P.INVALID_ARGUMENT_SCHEMA),
    ("input schema root rule", document({"t": schema_tool("t", {**INPUT_SCHEMA, "minProperties": 1})}), DEFAULT_LIMITS, P.TOP_LEVEL_RULE),
    ("input schema union with required arms", document({"t": schema_tool("t", {"anyOf": [{"properties": {"a": {}}, "required": ["a"]}, {"properties": {"b": {}}, "required": ["b"]}]})}), DEFAULT_LIMITS, P.TOP_LEVEL_RULE),
    ("input schema over the argument cap", document({"t": schema_tool("t")}), Limits(max_arguments=2), P.INVALID_ARGUMENT),
    ("input schema long description", document({"t": schema_tool("t", {"type": "object", "properties": {"a": {"description": "y" * 30}}})}), Limits(max_text_length=25), P.TEXT_TOO_LONG),
    ("input schema too deep", document({"t": schema_tool("t")}), Limits(max_depth=6), P.TOO_DEEP),
    # shapes the fast path does not know: the general path parses them, without problems
    ("unknown top-level field", document(author="me"), DEFAULT_LIMITS, None),
    ("unknown tool field", document({"t": tool("t", version="2")}), DEFAULT_LIMITS, None),
    ("unknown argument field", document({"t": tool("t", arguments=[argument("a", title="A")])}), DEFAULT_LIMITS, None),
    ("argument schema", document({"t": tool("t", arguments=[argument("a", schema={"type": "integer"})])}), DEFAULT_LIMITS, None),
    ("arguments and kwargs", document({"t": tool("t", kwargs=[argument("b")])}), DEFAULT_LIMITS, None),
    ("tool object in tools", document(tools=[{"name": "t", "arguments": [argument("a")]}], toolMetadata={}), DEFAULT_LIMITS, None),
]  # fmt: skip


@pytest.mark.parametrize(
    "doc,limits,code", [f[1:] for f in FAULTS], ids=[f[0] for f in FAULTS]
)
def test_every_fault_is_left_to_the_general_path(
    doc: Dict[str, Any], limits: Limits, code: Optional[str]
) -> None:
    """Declined, and the general path reports the fault (or parses the unknown shape).

    :param doc: a manifest with one fault.
    :param limits: caps.
    :param code: the code the general path reports (None: no problem expected).
    """
    fast, general = check(encode(doc), limits)
    assert fast is None
    if code is None:
        assert general.problems == () and general.manifest is not None
    else:
        assert code in general.codes


def test_untyped_manifests_are_declined_before_decoding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Today's untyped shape costs two substring searches, not a decode."""
    calls = []

    class Counting:  # pylint: disable=too-few-public-methods
        """Count decodes."""

        def decode(self, data: bytes) -> Any:
            """Count, then decode.

            :param data: the bytes.
            :return: the structs.
            """
            calls.append(data)
            return real.decode(data)

    real = fast_path._DECODER  # pylint: disable=protected-access
    monkeypatch.setattr(fast_path, "_DECODER", Counting())
    untyped = document({"t": tool("t", arguments=None)})
    assert typed_manifest(encode(untyped)) is None
    assert typed_manifest(encode(document()).decode()) is None  # str: never decoded
    assert typed_manifest(encode(document()), Limits(max_bytes=100)) is None
    assert not calls
    assert typed_manifest(encode(document())) is not None
    assert len(calls) == 1


def test_memos_stay_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """At most MEMO_ENTRIES texts are kept; longer texts than MEMO_TEXT are not kept."""
    monkeypatch.setattr(fast_path, "MEMO_ENTRIES", 3)
    for i in range(10):
        meta = tool("t", arguments=[argument("a", default=i)])
        assert check(encode(document({"t": meta})))[0] is not None
        assert len(fast_path.VALUES.entries) <= 3
    clear_memos()
    monkeypatch.setattr(fast_path, "MEMO_TEXT", 8)
    meta = tool("t", arguments=[argument("a", default="a long default text")])
    assert check(encode(document({"t": meta})))[0] is not None
    assert b'"a long default text"' not in fast_path.VALUES.entries
    assert b'"ipfs-v0.1"' not in fast_path.VALUES.entries  # 11 bytes
    assert len(fast_path.OUTPUT_SCHEMAS.entries) == 0


def test_memos_stay_bounded_in_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Distinct large values never hold more than MEMO_BYTES of text (key + kept text)."""
    monkeypatch.setattr(fast_path, "MEMO_BYTES", 2000)
    for i in range(20):
        default = (
            f"{i:04d}" + "v" * 300
        )  # about 310 bytes of key, 310 of canonical text
        meta = tool("t", arguments=[argument("a", default=default)])
        fast, _ = check(encode(document({"t": meta})))
        assert fast is not None
        assert fast.tools[0].arguments[0].default_json == json.dumps(default)
        memo = fast_path.VALUES
        assert memo.size <= 2000
        assert memo.size == sum(
            len(k) + (0 if e is None else len(e[2])) for k, e in memo.entries.items()
        )
    clear_memos()
    assert fast_path.VALUES.size == 0 and not fast_path.VALUES.entries


# Generated manifests: the shape's every field, valid or not, under several limits.
SCALAR = (
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
)
VALUE = st.recursive(
    SCALAR,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)
TERMS = st.sampled_from(
    [
        "int",
        "str",
        "hexAddress",
        "list[int]",
        "enum",
        "text",
        " integer ",
        "optional[float]",
        "bogus",
        "any",
    ]
)
IDENTIFIERS = st.sampled_from(["a", "b", "_c", "mode", "9x", "a-b", ""])
TEXT = st.text(max_size=8) | st.sampled_from(
    ["{not json", '{"a": 1}', "[x]", "x" * 30, "a:b"]
)
ARGUMENT = st.fixed_dictionaries(
    {"identifier": IDENTIFIERS},
    optional={
        "type": TERMS | st.integers(0, 3),
        "description": TEXT | st.integers(0, 3),
        "required": st.booleans() | st.just("yes"),
        "default": VALUE,
        "enum": st.lists(SCALAR, max_size=3) | SCALAR,
        "schema": st.just({"type": "integer"}),
        "title": st.just("t"),
    },
)
SCHEMAS = st.sampled_from(
    [
        OUTPUT_SCHEMA,
        INPUT_SCHEMA,
        {"type": "string"},
        {"type": "object"},
        {"type": "object", "properties": {"9x": {}, "a": {"$ref": "#/$defs/a"}}},
        {"anyOf": [{"properties": {"a": {}}, "required": ["a"]}, {"properties": {}}]},
        {"oneOf": [{"properties": {"a": {"type": "integer"}}}, {"properties": {}}]},
        True,
        {"type": 5},
        {"$ref": "#/x"},
        3,
        None,
    ]
)
IO = st.fixed_dictionaries(
    {},
    optional={
        "type": TEXT,
        "description": TEXT,
        "schema": SCHEMAS,
        "extra": st.just(1),
    },
)
TOOL = st.fixed_dictionaries(
    {},
    optional={
        "description": TEXT,
        "input": IO | st.just("text"),
        "output": IO,
        "arguments": st.lists(ARGUMENT, max_size=4),
        "kwargs": st.lists(ARGUMENT, max_size=2),
        "examples": st.lists(VALUE, max_size=2) | SCALAR,
        "kind": st.sampled_from(["prediction", "chat", "oracle", "Bad", 3]),
        "version": st.just("1"),
    },
)
NAMES = st.sampled_from(["alpha", "beta", "gamma", " ", "a\x01", "x" * 12, "a/b~c"])
LIMITS = st.sampled_from(
    [DEFAULT_LIMITS, Limits(max_text_length=20), Limits(max_arguments=2), Limits(max_tools=2), Limits(max_depth=6), Limits(max_name_length=10)]
)  # fmt: skip


@st.composite
def manifests(draw: Any) -> bytes:
    """A manifest of the fast path's shape, every part possibly faulty, as bytes.

    :param draw: hypothesis' draw.
    :return: the bytes.
    """
    metadata = {}
    for name in draw(st.lists(NAMES, min_size=0, max_size=3)):
        meta = draw(TOOL)
        if draw(st.booleans()):
            meta["name"] = name if draw(st.integers(0, 4)) else "other"
        metadata[name] = meta
    names = list(metadata)
    if names and draw(st.integers(0, 5)) == 0:
        names.append(draw(st.sampled_from(names + ["unlisted"])))
    if names and draw(st.integers(0, 5)) == 0:
        names.pop(0)
    doc = document(
        metadata,
        tools=names,
        name=draw(TEXT),
        description=draw(TEXT),
        specVersion=draw(st.sampled_from(["1", "2", 1, None])),
        image=draw(st.none() | VALUE),
        author=draw(st.none() | st.just("me")),
    )
    data = encode(doc, draw(st.sampled_from([None, 2])))
    mutation = draw(st.integers(0, 9))
    if mutation == 0:  # repeat a key
        data = data.replace(b'"identifier": ', b'"identifier": "d", "identifier": ', 1)
    elif mutation == 1:
        data = data.replace(b'"toolMetadata": {', b'"toolMetadata": {"alpha": {}, ', 1)
    return data


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(manifests(), LIMITS)
def test_generated_manifests_fast_path_equals_general_path_or_declines(
    data: bytes, limits: Limits
) -> None:
    """For any generated manifest: the fast path declines, or builds the general path's.

    :param data: the manifest.
    :param limits: caps.
    """
    check(data, limits)


CLEAN_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)
CLEAN_ARGUMENT = st.fixed_dictionaries(
    {"identifier": st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True)},
    optional={
        "type": st.sampled_from(
            ["int", "str", "hexAddress", "list[int]", "enum", "text", "dict[str]"]
        ),
        "description": st.text(max_size=20).filter(lambda s: len(s) <= 20),
        "required": st.booleans(),
        "default": CLEAN_VALUE,
        "enum": st.lists(CLEAN_VALUE, min_size=1, max_size=3),
    },
)
CLEAN_TOOL = st.fixed_dictionaries(
    {"arguments": st.lists(CLEAN_ARGUMENT, max_size=5, unique_by=lambda a: a["identifier"])},
    optional={
        "description": st.text(max_size=20).filter(lambda s: not s.lstrip().startswith("{")),
        "input": st.fixed_dictionaries({}, optional={"type": st.text(max_size=5), "description": st.text(max_size=5)}),
        "output": st.fixed_dictionaries({}, optional={"type": st.text(max_size=5), "schema": st.sampled_from([OUTPUT_SCHEMA, {"type": "string"}, True])}),
        "examples": st.lists(CLEAN_VALUE, max_size=2),
        "kind": st.sampled_from(["prediction", "resolve", "chat", "image", "question_generation"]),
    },
)  # fmt: skip
CLEAN_NAMES = st.text(
    st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=12
).filter(
    lambda s: s.strip(" ")
    and not any("\x7f" <= c <= "\x9f" for c in s)
    and not name_hiding(s)  # refused at parse (adv29yt)
)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(CLEAN_NAMES, CLEAN_TOOL, min_size=1, max_size=4),
    st.text(max_size=20).filter(
        lambda s: "{" not in s and "[" not in s and ":" not in s
    ),
    st.booleans(),
)
def test_generated_clean_manifests_are_all_taken_by_the_fast_path(
    metadata: Dict[str, Any], description: str, ascii_only: bool
) -> None:
    """Problem-free manifests of the shape are accepted (the fast path is not a no-op).

    :param metadata: the tools.
    :param description: the top-level description.
    :param ascii_only: write non-ASCII text as escapes.
    """
    data = json.dumps(
        document(metadata, description=description), ensure_ascii=ascii_only
    ).encode()
    fast, general = check(data)
    assert general.problems == (), general.problems
    assert isinstance(fast, Manifest)


CLEAN_PROPERTY = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["string", "integer", "number", "boolean", "array", "object"]),
        "description": st.text(max_size=20),
        "default": CLEAN_VALUE,
        "enum": st.lists(CLEAN_VALUE, min_size=1, max_size=3),
    },
)  # fmt: skip
CLEAN_INPUT_SCHEMA = st.dictionaries(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True),
    CLEAN_PROPERTY,
    max_size=5,
).flatmap(
    lambda properties: st.fixed_dictionaries(
        {"type": st.just("object"), "properties": st.just(properties)},
        optional={
            "required": st.lists(st.sampled_from(sorted(properties) or ["absent"]), unique=True),
            "additionalProperties": st.booleans(),
            "description": st.text(max_size=10),
        },
    )
)  # fmt: skip


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(CLEAN_NAMES, CLEAN_INPUT_SCHEMA, min_size=1, max_size=4),
    st.sampled_from([None, OUTPUT_SCHEMA]),
)
def test_generated_clean_input_schema_manifests_are_all_taken_by_the_fast_path(
    schemas: Dict[str, Any], output: Optional[Dict[str, Any]]
) -> None:
    """Problem-free ``input.schema`` tools are accepted, equal to the general path's.

    :param schemas: each tool's input schema, by tool name.
    :param output: every tool's output schema (None: none).
    """
    metadata = {
        name: schema_tool(name, schema, output={"schema": output} if output else None)
        for name, schema in schemas.items()
    }
    fast, general = check(encode(document(metadata)))
    assert general.problems == (), general.problems
    assert isinstance(fast, Manifest)
