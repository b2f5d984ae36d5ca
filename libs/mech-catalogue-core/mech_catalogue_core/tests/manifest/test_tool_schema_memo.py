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

"""A schema seen before is not parsed again, and the result is the one a fresh parse gives.

``parse_tool.INPUT_SCHEMA_MEMO`` / ``OUTPUT_SCHEMA_MEMO`` keep what a problem-free schema
gave. These tests parse manifests with warm memos and with cleared ones and compare
everything (tools and problems), count the work saved, and check the two cases where a
memo must not answer: a schema with problems (paths differ per tool) and a schema whose
reference inlining a smaller tool's budget cannot take.
"""

import json
from typing import Any, Dict, List

import pytest
from mech_catalogue_core.manifest import (
    parse_tool,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest_general,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.limits import Limits

INPUT = {
    "type": "object",
    "properties": {
        "prompt": {"type": "string", "description": "The question"},
        "n": {"type": "integer", "minimum": 1, "default": 3},
        "t": {"type": "number", "maximum": 2, "default": 0.5},
    },
    "required": ["prompt"],
}
OUTPUT = {
    "type": "object",
    "properties": {"p": {"type": "number"}, "why": {"$ref": "#/$defs/why"}},
    "$defs": {"why": {"type": "string"}},
}


def manifest(tools: Dict[str, Dict[str, Any]]) -> bytes:
    """A manifest of these tools' metadata.

    :param tools: name -> metadata.
    :return: UTF-8 JSON.
    """
    return json.dumps(
        {"name": "m", "tools": list(tools), "toolMetadata": tools}
    ).encode()


def typed_tool(description: str, schema: Any = None, output: Any = None) -> Dict:
    """A tool with an input schema and an output schema.

    :param description: its description.
    :param schema: its input schema (:data:`INPUT` by default).
    :param output: its output schema (:data:`OUTPUT` by default).
    :return: the metadata.
    """
    return {
        "description": description,
        "input": {"type": "text", "schema": INPUT if schema is None else schema},
        "output": {"type": "object", "schema": OUTPUT if output is None else output},
    }


def cleared() -> None:
    """Empty both memos."""
    parse_tool.INPUT_SCHEMA_MEMO.clear()
    parse_tool.OUTPUT_SCHEMA_MEMO.clear()


def fresh(data: bytes, limits: Limits = Limits()) -> Any:
    """Parse with empty memos (and leave them empty).

    :param data: manifest bytes.
    :param limits: caps.
    :return: the parse result.
    """
    cleared()
    result = parse_manifest_general(data, limits)
    cleared()
    return result


def same(a: Any, b: Any) -> None:
    """Assert two parse results are equal in every tool and problem.

    :param a: one.
    :param b: the other.
    """
    assert a.problems == b.problems
    assert (a.manifest is None) == (b.manifest is None)
    if a.manifest is not None:
        assert a.manifest.tools == b.manifest.tools
        assert a.manifest.withheld == b.manifest.withheld


def test_a_schema_seen_before_is_reused_and_gives_the_same_tools() -> None:
    """Ten tools share one input and one output schema: nine reuses each, same result."""
    data = manifest({f"t{i}": typed_tool(f"tool {i}") for i in range(10)})
    expected = fresh(data)
    result = parse_manifest_general(data)
    assert parse_tool.INPUT_SCHEMA_MEMO.hits == 9
    assert parse_tool.OUTPUT_SCHEMA_MEMO.hits == 9
    same(result, expected)
    assert result.manifest is not None
    assert [a.identifier for a in result.manifest.tools[3].arguments] == [
        "prompt",
        "n",
        "t",
    ]
    again = parse_manifest_general(data)  # a later manifest: every schema is reused
    assert parse_tool.INPUT_SCHEMA_MEMO.hits == 19
    same(again, expected)


def test_key_order_and_limits_are_part_of_the_key() -> None:
    """The same schema with keys reordered, or under other limits, is not taken from the memo."""
    cleared()
    parse_manifest_general(manifest({"a": typed_tool("a")}))
    reordered = dict(reversed(list(INPUT.items())))
    parse_manifest_general(manifest({"b": typed_tool("b", reordered)}))
    assert parse_tool.INPUT_SCHEMA_MEMO.hits == 0
    tight = Limits(max_arguments=2)
    result = parse_manifest_general(manifest({"c": typed_tool("c")}), tight)
    assert result.manifest is not None
    assert parse_tool.INPUT_SCHEMA_MEMO.hits == 0
    assert len(result.manifest.tools[0].arguments) == 2  # the cap applied, not a memo
    assert any(p.code == P.INVALID_ARGUMENT for p in result.problems)


def test_a_schema_with_problems_is_reported_at_every_tool() -> None:
    """Problems carry each tool's own path, so such a schema is never memoised."""
    bad_input = {"type": "object", "properties": {"9bad": {"type": "string"}}}
    bad_output = {"type": "object", "properties": {"x": {"$ref": "#/$defs/nowhere"}}}
    data = manifest(
        {name: typed_tool(name, bad_input, bad_output) for name in ("a", "b", "c")}
    )
    expected = fresh(data)
    cleared()
    result = parse_manifest_general(data)
    same(result, expected)
    for name in ("a", "b", "c"):
        paths = [p.path for p in result.problems]
        assert f"/toolMetadata/{name}/input/schema/properties/9bad" in paths
        assert any(
            path.startswith(f"/toolMetadata/{name}/output/schema") for path in paths
        )
    assert parse_tool.INPUT_SCHEMA_MEMO.hits == 0
    assert parse_tool.OUTPUT_SCHEMA_MEMO.hits == 0


def doubling_schema(levels: int) -> Dict[str, Any]:
    """An input schema whose references double at each level when inlined.

    :param levels: nesting levels (about 2**levels units inlined).
    :return: the schema.
    """
    defs: Dict[str, Any] = {"d0": {"type": "string", "maxLength": 5}}
    for level in range(1, levels + 1):
        defs[f"d{level}"] = {
            "type": "object",
            "properties": {
                "l": {"$ref": f"#/$defs/d{level - 1}"},
                "r": {"$ref": f"#/$defs/d{level - 1}"},
            },
        }
    return {
        "type": "object",
        "properties": {"x": {"$ref": f"#/$defs/d{levels}"}},
        "$defs": defs,
    }


def test_a_reused_schema_still_meets_the_smaller_tools_budget() -> None:
    """Memoised in a tool with room to inline it; a smaller tool's budget still refuses it."""
    schema = doubling_schema(8)
    roomy = typed_tool("x" * 40_000, schema)  # a long description: a large budget
    small = typed_tool("s", schema)
    first = manifest({"roomy": roomy})
    second = manifest({"small": small})
    expected_first, expected_second = fresh(first), fresh(second)
    assert not any(
        p.code == P.SCHEMA_BUDGET_EXCEEDED for p in expected_first.problems
    ), "the roomy tool must inline the schema without a problem"
    assert any(
        p.code == P.SCHEMA_BUDGET_EXCEEDED for p in expected_second.problems
    ), "the small tool's budget must refuse it"
    cleared()
    same(parse_manifest_general(first), expected_first)
    same(parse_manifest_general(second), expected_second)
    assert parse_tool.INPUT_SCHEMA_MEMO.hits == 0


VARIANTS: List[Any] = [
    {"type": "object", "properties": {"a": {"type": "string"}}},
    {
        "type": "object",
        "properties": {"a": {"enum": [1, "x", None]}},
        "required": ["a"],
    },
    {"anyOf": [{"properties": {"a": {"type": "integer"}}}, {"properties": {"b": {}}}]},
    {"type": "object"},
    {"type": "object", "properties": {"a": {"type": "string"}}, "minProperties": 1},
    True,
    [],
    {"properties": "not an object"},
]


@pytest.mark.parametrize("index", range(len(VARIANTS)))
def test_warm_and_cold_parses_agree_on_every_shape(index: int) -> None:
    """Each schema shape, parsed after every other one (memos warm), equals a cold parse."""
    data = manifest(
        {
            "first": typed_tool("first", VARIANTS[index]),
            "second": typed_tool("second", VARIANTS[index], VARIANTS[index]),
        }
    )
    expected = fresh(data)
    for other in VARIANTS:  # warm the memos with everything
        parse_manifest_general(manifest({"w": typed_tool("w", other, other)}))
    same(parse_manifest_general(data), expected)
