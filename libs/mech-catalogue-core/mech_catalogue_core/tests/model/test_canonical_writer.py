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

"""The fast canonical writers give exactly the bytes ``rfc8785.dumps`` gives, and fail where it fails.

``canonical_bytes`` writes strings with ``json.dumps`` and splices ``CanonicalText``;
``Tool.canonical_body`` writes a tool's body by hand from its stored canonical texts (what
the catalogue digest covers). Both are checked against the ``rfc8785`` package on values
and tools generated here, hostile strings (escapes, controls, astral characters, lone
surrogates) and numbers at the edges of I-JSON included.
"""

import math
from typing import Any, Dict

import pytest
import rfc8785
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.canonical import (
    CanonicalizationError,
    CanonicalText,
    canonical_bytes,
    canonical_text,
)
from mech_catalogue_core.model.tool import (
    Argument,
    Provenance,
    Tool,
)

SAFE_INT = st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
FINITE = st.floats(allow_nan=False, allow_infinity=False)
# escapes, controls, non-ASCII, astral characters (UTF-16 key order differs from code points)
TEXT = st.text(
    alphabet=st.sampled_from(
        ['"', "\\", "\x00", "\x1f", "\x7f", "\n", "a", "Z", "é", "\ue000", "\uffff"]
        + ["\U0001f600", "\U00010000", "ß", "/", " "]
    ),
    max_size=8,
)
JSON = st.recursive(
    st.none() | st.booleans() | SAFE_INT | FINITE | TEXT,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(TEXT, inner, max_size=5),
    max_leaves=30,
)


def body(tool: Tool) -> bytes:
    """The documented definition: RFC 8785 of ``to_dict()`` without provenance.

    :param tool: the tool.
    :return: canonical bytes by ``rfc8785``.
    """
    data = {k: v for k, v in tool.to_dict().items() if k != "provenance"}
    return rfc8785.dumps(data)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(JSON)
def test_canonical_bytes_equals_rfc8785(value: Any) -> None:
    """Any I-JSON value: the same bytes as the reference implementation."""
    assert canonical_bytes(value) == rfc8785.dumps(value)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(TEXT, JSON, max_size=4), TEXT)
def test_spliced_text_gives_the_decoded_values_bytes(
    value: Dict[str, Any], key: str
) -> None:
    """A CanonicalText inside a value is written as the value it encodes would be."""
    inner = CanonicalText(canonical_text(value))
    assert canonical_bytes({key: inner, "x": [inner]}) == rfc8785.dumps(
        {key: value, "x": [value]}
    )


@pytest.mark.parametrize(
    "value",
    [
        {1: "a"},  # a key that is not a string
        {"n": 2**53},  # beyond I-JSON integers
        [-(2**53)],
        math.nan,
        [math.inf],
        "\ud800",  # a lone surrogate
        {"\udfff": 1},
        {"a": {1, 2}},  # a type JSON lacks
        b"bytes",
    ],
)
def test_not_i_json_is_refused_as_rfc8785_refuses_it(value: Any) -> None:
    """What rfc8785 refuses, canonical_bytes refuses with CanonicalizationError."""
    with pytest.raises(Exception):
        rfc8785.dumps(value)
    with pytest.raises(CanonicalizationError):
        canonical_bytes(value)


ARGUMENTS = st.builds(
    Argument,
    identifier=TEXT,
    type=TEXT,
    schema_json=JSON.map(canonical_text),
    required=st.booleans(),
    default_json=st.none() | JSON.map(canonical_text),
    description=TEXT,
)
TOOLS = st.builds(
    Tool,
    name=TEXT,
    description=TEXT,
    arguments=st.tuples(ARGUMENTS, ARGUMENTS) | st.just(()),
    input_type=TEXT,
    input_description=TEXT,
    output_type=TEXT,
    output_description=TEXT,
    output_schema_json=st.none() | JSON.map(canonical_text),
    examples_json=st.lists(JSON.map(canonical_text), max_size=2).map(tuple),
    extra_json=st.dictionaries(TEXT, JSON, max_size=3).map(canonical_text),
    provenance=st.just(Provenance("input_schema")),
    kind=st.sampled_from(["", "prediction", "ünknown"]),
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(TOOLS)
def test_tool_canonical_body_equals_the_definition(tool: Tool) -> None:
    """Every field, every key order question, every escape: the hand-written body is rfc8785's."""
    try:
        expected = body(tool)
    except (
        rfc8785.CanonicalizationError
    ):  # a lone surrogate would need TEXT to make one
        return
    assert tool.canonical_body().encode("utf-8") == expected


def test_parsed_tools_canonical_body_equals_the_definition() -> None:
    """Tools as the parser makes them (typed, schema-derived, with defaults and examples)."""
    manifest = {
        "name": "m",
        "tools": ["a", "b", "c"],
        "toolMetadata": {
            "a": {
                "description": "typed",
                "kind": "prediction",
                "arguments": [
                    {"identifier": "x", "type": "int", "default": 3},
                    {"identifier": "y", "type": "enum", "enum": ["p", "q"]},
                ],
                "examples": [{"x": 1}, "free text"],
                "output": {
                    "type": "object",
                    "schema": {"type": "number", "maximum": 1.5},
                },
                "vendor": {"z": [1e-7, 1e21, 0.1]},
            },
            "b": {
                "input": {
                    "type": "object",
                    "schema": {
                        "type": "object",
                        "properties": {"q": {"type": "string", "description": "Q"}},
                        "required": ["q"],
                    },
                }
            },
            "c": {"description": 'tab\t "quoted" \U0001f600'},
        },
    }
    import json  # pylint: disable=import-outside-toplevel

    result = parse_manifest(json.dumps(manifest).encode())
    assert result.manifest is not None
    assert len(result.manifest.tools) == 3
    for tool in result.manifest.tools:
        assert tool.canonical_body().encode("utf-8") == body(tool)


def test_a_lone_surrogate_in_a_tool_fails_when_digested() -> None:
    """The hand-written body keeps a lone surrogate, so encoding it fails as rfc8785 would."""
    tool = Tool(name="bad\ud800")
    with pytest.raises(rfc8785.CanonicalizationError):
        body(tool)
    with pytest.raises(UnicodeEncodeError):
        tool.canonical_body().encode("utf-8")
    with pytest.raises(CanonicalizationError):
        canonical_bytes([CanonicalText(tool.canonical_body())])
