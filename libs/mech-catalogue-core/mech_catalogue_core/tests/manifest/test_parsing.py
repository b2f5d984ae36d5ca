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

"""Parsing every manifest shape into the model."""

import copy
import json

import pytest
from mech_catalogue_core.manifest.parsing import (
    ParseResult,
    parse_document,
    parse_manifest,
)
from mech_catalogue_core.manifest.validation import (
    validate_manifest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.catalogue import (
    Manifest,
)
from mech_catalogue_core.model.tool import (
    SHAPE_ARGUMENTS_V1,
    SHAPE_DESCRIPTION_JSON,
    SHAPE_INPUT_SCHEMA,
    SHAPE_KWARGS,
    SHAPE_NAME_ONLY,
    SHAPE_TOOL_METADATA,
    Tool,
)
from mech_catalogue_core.tests.manifest_shapes import (
    ALL_SHAPES,
    DESCRIPTION_JSON,
    INPUT_SCHEMA,
    KWARGS_SEED,
    TOOL_METADATA,
    TOOLS_ONLY,
    V1_TYPED,
    encode,
)


def _manifest(result: ParseResult) -> Manifest:
    assert result.manifest is not None, result.problems
    return result.manifest


def _args(tool: Tool) -> list:
    return [(a.identifier, a.type, a.required) for a in tool.arguments]


def test_tools_only() -> None:
    """Names only: name-only tools, no warnings, extra top-level fields kept."""
    result = parse_manifest(encode(TOOLS_ONLY))
    assert result.problems == ()
    manifest = _manifest(result)
    assert manifest.tool_names == ("guess-weather", "summarise-text", "roll-dice")
    assert {t.provenance.shape for t in manifest.tools} == {SHAPE_NAME_ONLY}
    assert manifest.extra == {
        "inputFormat": "ipfs-v0.1",
        "outputFormat": "ipfs-v0.1",
        "image": "none",
    }
    assert manifest.name == "Fixture Mech One"


def test_tool_metadata_today() -> None:
    """Today's shape: text input, output schema kept, untyped warning per tool."""
    result = parse_manifest(encode(TOOL_METADATA))
    assert result.codes == (P.UNTYPED_INPUT, P.UNTYPED_INPUT)
    assert not result.errors
    tool = _manifest(result).tools[0]
    assert tool.provenance.shape == SHAPE_TOOL_METADATA
    assert (tool.input_type, tool.output_type) == ("text", "object")
    assert (tool.output_schema or {})["required"] == ["requestId", "result"]
    assert tool.arguments == ()


def test_seed_kwargs() -> None:
    """The seed's kwargs list: hexAddress and int kept, all required."""
    tool = _manifest(parse_manifest(encode(KWARGS_SEED))).tools[0]
    assert tool.provenance.shape == SHAPE_KWARGS
    assert _args(tool) == [
        ("token", "hexAddress", True),
        ("to", "hexAddress", True),
        ("units", "int", True),
    ]
    assert tool.arguments[0].schema == {
        "type": "string",
        "pattern": "^0x[0-9a-fA-F]{40}$",
    }


def test_kwargs_as_mapping() -> None:
    """A `kwargs` mapping {identifier: type} is read too."""
    doc = {
        "tools": ["t"],
        "toolMetadata": {"t": {"kwargs": {"who": "address", "n": {"type": "integer"}}}},
    }
    tool = _manifest(parse_document(doc)).tools[0]
    assert _args(tool) == [("who", "hexAddress", True), ("n", "int", True)]


def test_input_schema() -> None:
    """input.schema properties become arguments; required and default respected."""
    tool = _manifest(parse_manifest(encode(INPUT_SCHEMA))).tools[0]
    assert tool.provenance.shape == SHAPE_INPUT_SCHEMA
    assert _args(tool) == [
        ("query", "str", True),
        ("max_results", "int", False),
        ("sites", "list[url]", False),
    ]
    assert tool.arguments[1].default == 5
    assert tool.arguments[0].description == "What to look for"


def test_description_json() -> None:
    """JSON stuffed in description is used, with a warning naming the field."""
    result = parse_manifest(encode(DESCRIPTION_JSON))
    tool = _manifest(result).tools[0]
    assert tool.provenance.shape == SHAPE_DESCRIPTION_JSON
    assert tool.description == "Hashes text."
    assert _args(tool) == [("algorithm", "str", True)]
    assert tool.output_description == "hex digest"
    (warning,) = result.warnings
    assert (
        warning.code == P.DESCRIPTION_JSON_PARSED
        and warning.path == "/toolMetadata/hash-text/description"
    )


def test_v1_typed() -> None:
    """v1 arguments: types, enum, defaults, optional, examples and unknown fields kept."""
    result = parse_manifest(encode(V1_TYPED))
    assert result.problems == ()
    manifest = _manifest(result)
    assert manifest.spec_version == "1"
    assert manifest.extra["x-contact"] == "ops@example.invalid"
    tool = manifest.tools[0]
    assert tool.provenance.shape == SHAPE_ARGUMENTS_V1
    assert _args(tool) == [
        ("sell_token", "hexAddress", True),
        ("buy_token", "hexAddress", True),
        ("amount", "uint256", True),
        ("side", "enum", False),
        ("hops", "list[bytes32]", False),
        ("slippage", "float", False),
    ]
    assert tool.arguments[3].schema == {"enum": ["buy", "sell"]}
    assert tool.arguments[5].default == 0.5
    assert tool.extra == {"x-pricing": {"usd": 0.01}}
    assert tool.examples[0]["amount"] == "1000"


@pytest.mark.parametrize("name", sorted(ALL_SHAPES))
def test_every_fixture_conforms_to_spec(name: str) -> None:
    """The published schema accepts every shape we parse without errors (backward compatible)."""
    assert not validate_manifest(ALL_SHAPES[name])
    assert not parse_document(ALL_SHAPES[name]).errors


def test_tools_and_metadata_mismatch_warns() -> None:
    """Names without metadata and metadata without names: warnings, both kept."""
    doc = copy.deepcopy(TOOL_METADATA)
    doc["tools"] = ["market-odds", "orphan-name"]
    result = parse_document(doc)
    assert [t.name for t in _manifest(result).tools] == [
        "market-odds",
        "orphan-name",
        "market-odds-lite",
    ]
    codes = {(p.code, p.severity) for p in result.problems}
    assert (P.TOOL_WITHOUT_METADATA, "warning") in codes
    assert (P.METADATA_WITHOUT_TOOL, "warning") in codes
    assert not result.errors


def test_bad_tool_does_not_discard_good_ones() -> None:
    """A garbage tool entry, bad names and a duplicate are dropped or reduced; the rest survive."""
    doc = copy.deepcopy(V1_TYPED)
    doc["tools"] = ["swap-quote", "swap-quote", 42, "", "bad\u0007name", "broken"]
    doc["toolMetadata"]["broken"] = ["not", "an", "object"]
    result = parse_document(doc)
    # metadata that is not an object is ignored: the tool is offered by name only
    assert [t.name for t in _manifest(result).tools] == ["swap-quote", "broken"]
    assert len(_manifest(result).tools[0].arguments) == 6
    assert _manifest(result).tools[1].provenance.shape == SHAPE_NAME_ONLY
    assert not _manifest(result).withheld
    assert [p.code for p in result.errors] == [
        P.DUPLICATE_TOOL,
        P.INVALID_TOOL_NAME,
        P.INVALID_TOOL_NAME,
        P.INVALID_TOOL_NAME,
        P.INVALID_TOOL,
    ]
    assert [p.path for p in result.errors][:2] == ["/tools/1", "/tools/2"]


def test_bad_arguments_are_dropped_individually() -> None:
    """Bad identifiers, duplicates, unknown types, bad schemas: each handled on its own."""
    doc = {
        "tools": ["t"],
        "toolMetadata": {
            "t": {
                "arguments": [
                    {"identifier": "ok", "type": "int"},
                    {"identifier": "1bad", "type": "int"},
                    {"identifier": "ok", "type": "str"},
                    {"identifier": "odd", "type": "complex128"},
                    {"identifier": "sch", "type": "int", "schema": {"type": 12}},
                    {"identifier": "req", "type": "int", "required": "yes"},
                    "not an object",
                ]
            }
        },
    }
    result = parse_document(doc)
    assert not _manifest(result).tools  # errors withhold the tool
    tool = _manifest(result).withheld[0]
    assert _args(tool) == [
        ("ok", "int", True),
        ("odd", "any", True),
        ("sch", "int", True),
        ("req", "int", True),
    ]
    assert tool.arguments[2].schema == {"type": "integer"}
    assert [p.code for p in result.problems] == [
        P.INVALID_ARGUMENT,
        P.DUPLICATE_ARGUMENT,
        P.UNKNOWN_ARGUMENT_TYPE,
        P.INVALID_ARGUMENT_SCHEMA,
        P.WRONG_TYPE,
        P.INVALID_ARGUMENT,
        P.TOOL_WITHHELD,
        P.NO_TOOLS,
    ]
    assert result.problems[0].path == "/toolMetadata/t/arguments/1"


def test_wrong_types_in_tool_fields() -> None:
    """Wrong-typed fields are ignored with WRONG_TYPE; the tool is offered without them."""
    doc = {
        "tools": ["t"],
        "toolMetadata": {
            "t": {
                "description": 5,
                "input": "text",
                "output": {"schema": "nope"},
                "examples": {},
                "name": "u",
            }
        },
    }
    result = parse_document(doc)
    assert [t.name for t in _manifest(result).tools] == ["t"]
    assert {p.code for p in result.problems} == {
        P.WRONG_TYPE,
        P.INVALID_OUTPUT_SCHEMA,
        P.TOOL_NAME_MISMATCH,
        P.UNTYPED_INPUT,
    }


def test_long_text_is_truncated() -> None:
    """Descriptions over the cap are cut, with a warning."""
    result = parse_document({"tools": [], "description": "d" * 20_000})
    assert len(_manifest(result).description) == 10_000
    assert P.TEXT_TOO_LONG in result.codes


def test_same_bytes_same_model() -> None:
    """Parsing is deterministic: equal bytes give equal manifests."""
    data = encode(V1_TYPED)
    assert parse_manifest(data) == parse_manifest(data)
    assert parse_manifest(data.decode()) == parse_manifest(data)


def test_empty_template_has_no_tools() -> None:
    """A new mech's empty manifest parses, with a NO_TOOLS warning (not an error)."""
    result = parse_document({"name": "New", "tools": [], "toolMetadata": {}})
    assert result.ok and _manifest(result).tools == ()
    assert result.warnings[0].code == P.NO_TOOLS and not result.errors


def test_embedded_json_is_decoded_strictly() -> None:
    """A description holding invalid/duplicate-key JSON stays plain text."""
    text = '{"kwargs": [], "kwargs": []}'
    tool = _manifest(
        parse_document({"tools": ["t"], "toolMetadata": {"t": {"description": text}}})
    ).tools[0]
    assert tool.description == text and tool.provenance.shape == SHAPE_TOOL_METADATA
    assert json.loads(tool.extra_json) == {}


def test_large_integral_doubles_survive() -> None:
    """Doubles beyond 2**53 (as RFC 8785 writes them) parse, canonicalise and round-trip."""
    data = b'{"tools": ["t"], "toolMetadata": {"t": {"arguments": [{"identifier": "x", "type": "enum", "enum": [70050043948126240]}]}}}'
    result = parse_manifest(data)
    assert not result.errors, result.problems
    assert _manifest(result).tools[0].arguments[0].schema == {
        "enum": [7.005004394812624e16]
    }
