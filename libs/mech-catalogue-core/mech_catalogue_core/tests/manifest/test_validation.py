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

"""Strict decoding, the published schema and the type vocabulary."""

import json

import pytest
from jsonschema.validators import Draft202012Validator
from mech_catalogue_core.manifest.validation import (
    SPEC_PATH,
    decode_json,
    nesting_depth,
    schema_error,
    validate_manifest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.limits import Limits
from mech_catalogue_core.model.types import (
    infer_type,
    normalise_type,
    type_schema,
)


@pytest.mark.parametrize(
    "data, code",
    [
        (b"", P.EMPTY_DOCUMENT),
        (b" \n\t", P.EMPTY_DOCUMENT),
        (b"\xef\xbb\xbf{}", P.BYTE_ORDER_MARK),
        (b"{\xff}", P.NOT_UTF8),
        (b'{"a": "\xed\xa0\x80"}', P.NOT_UTF8),  # UTF-8-encoded surrogate
        (b'{"a": 1, "a": 2}', P.DUPLICATE_KEY),
        (b'{"a": NaN}', P.NON_FINITE_NUMBER),
        (b'{"a": -Infinity}', P.NON_FINITE_NUMBER),
        (b'{"a": 1e400}', P.NON_FINITE_NUMBER),
        (b'{"a": 9007199254740993}', P.NUMBER_OUT_OF_RANGE),
        (b'{"a": ' + b"9" * 5000 + b"}", P.NUMBER_OUT_OF_RANGE),
        (b'{"a": "\\udc00x"}', P.INVALID_STRING),
        (b"[" * 65 + b"]" * 65, P.TOO_DEEP),
        (b'{"a": }', P.INVALID_JSON),
        (b"{} {}", P.INVALID_JSON),
    ],
)
def test_decode_rejects(data: bytes, code: str) -> None:
    """Each non-I-JSON input gets exactly one error with its code, and no value."""
    result = decode_json(data)
    assert result.value is None
    assert [p.code for p in result.problems] == [code]
    assert result.problems[0].message.endswith(".")


def test_decode_accepts_edges() -> None:
    """Largest safe integer, surrogate pairs, depth exactly at the cap, brackets in strings."""
    assert decode_json(b'{"a": 9007199254740991}').value == {"a": 2**53 - 1}
    assert decode_json(b'"\\ud83d\\ude00"').value == "\U0001f600"
    assert decode_json(b"[" * 64 + b"]" * 64).ok
    assert decode_json(
        b'["[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["]'
    ).ok
    assert decode_json("{}").value == {}


def test_size_cap() -> None:
    """Over max_bytes is TOO_LARGE before any decoding."""
    result = decode_json(b'{"a": "' + b"x" * 100 + b'"}', Limits(max_bytes=50))
    assert result.problems[0].code == P.TOO_LARGE and "50" in result.problems[0].message


def test_nesting_depth_without_recursion() -> None:
    """A million open brackets are measured, not recursed into."""
    assert nesting_depth("[" * 1_000_000) == 1_000_000
    assert nesting_depth('{"a": [1, {"b": "]]]"}]}') == 3
    assert nesting_depth('"\\"[["') == 0


def test_spec_is_a_valid_2020_12_schema() -> None:
    """The published file is itself a valid JSON Schema."""
    Draft202012Validator.check_schema(json.loads(SPEC_PATH.read_text()))


def test_validate_manifest_paths() -> None:
    """Strict mode reports each violation with its JSON Pointer."""
    found = validate_manifest(
        {
            "tools": ["ok", 3],
            "toolMetadata": {"ok": {"arguments": [{"identifier": "x"}]}},
            "specVersion": "9",
        }
    )
    assert {p.path for p in found} == {
        "/tools/1",
        "/toolMetadata/ok/arguments/0",
        "/specVersion",
    }
    assert {p.code for p in found} == {P.SCHEMA_VIOLATION}
    assert validate_manifest([]) and validate_manifest({})


def test_schema_error_cache() -> None:
    """Embedded JSON Schemas are checked against the meta-schema."""
    assert schema_error('{"type":"integer"}') == ""
    assert schema_error('{"type":12}').startswith("at /type: should be one of: ")


@pytest.mark.parametrize(
    "term, normal",
    [
        ("int", "int"),
        ("integer", "int"),
        ("hexAddress", "hexAddress"),
        ("address", "hexAddress"),
        ("text", "str"),
        ("list[ address ]", "list[hexAddress]"),
        ("dict[float]", "dict[float]"),
        ("optional[bytes32]", "optional[bytes32]"),
        ("array", "list[any]"),
        ("complex", None),
        ("list[", None),
        ("list[" * 20 + "int" + "]" * 20, None),
        (5, None),
    ],
)
def test_normalise_type(term: object, normal: object) -> None:
    """Aliases map to vocabulary terms; unknown and absurd terms are None."""
    assert normalise_type(term) == normal


def test_type_schemas_validate_values() -> None:
    """Each vocabulary schema accepts and rejects what its name says."""
    cases = {
        "int": (3, 3.5),
        "uint256": ("1000000000000000000000", "-1"),
        "hexAddress": ("0x" + "ab" * 20, "0x12"),
        "bytes32": ("0x" + "00" * 32, "0x00"),
        "hexBytes": ("0x0a0b", "0x0"),
        "list[int]": ([1, 2], [1, "2"]),
        "dict[bool]": ({"a": True}, {"a": 1}),
        "optional[str]": (None, 1),
    }
    for term, (good, bad) in cases.items():
        validator = Draft202012Validator(type_schema(term))
        assert validator.is_valid(good), term
        assert not validator.is_valid(bad), term
    assert type_schema("enum", ["a"]) == {"enum": ["a"]}
    with pytest.raises(ValueError):
        type_schema("complex")


def test_infer_type_round_trips_the_vocabulary() -> None:
    """infer_type(type_schema(t)) == t for the scalar and list terms."""
    for term in (
        "int",
        "float",
        "bool",
        "str",
        "uint256",
        "hexAddress",
        "bytes32",
        "hexBytes",
        "url",
        "dict",
        "list[hexAddress]",
    ):
        assert infer_type(type_schema(term)) == term
    assert infer_type("nonsense") == "any"


@pytest.mark.parametrize(
    "text",
    [
        '["[", "]"]',
        '{"a": "\\\\", "b": [[1]]}',
        "[[[]]",
        "[" * 70 + "}",
        '{"a": "\\"[["}',
        "[[]][[[]]]",
        "[]" * 50,
    ],
)
def test_capped_depth_agrees_with_exact_depth(text: str) -> None:
    """The peeling fast path gives the exact depth, or cap + 1 beyond the cap."""
    exact = nesting_depth(text)
    for cap in (0, 1, 2, 3, 64):
        assert nesting_depth(text, cap) == min(exact, cap + 1), cap
