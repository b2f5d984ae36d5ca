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

"""Resolving references is bounded by the source: amplification shapes end in a clear warning."""

import json
from typing import Any, Dict, List

import pytest
from mech_catalogue_core.exporters.mcp_tool import (
    to_mcp_tool,
)
from mech_catalogue_core.manifest import (
    schema_refs,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.manifest.schema_refs import (
    INLINE_ALLOWANCE,
    INLINE_FACTOR,
    InlineBudget,
    self_contained,
    tool_budget,
    units,
)
from mech_catalogue_core.model import problems as P

#: the bound asserted (a fixed figure, not derived from the constants under test): the
#: export of a tool is at most 8 x the manifest's bytes plus 16 KiB
EXPORT_RATIO = 8
EXPORT_SLACK = 16_384


def doubling(depth: int) -> Dict[str, Any]:
    """Each definition refers to the previous one twice: 2**depth leaves.

    :param depth: chain length.
    :return: the schema document.
    """
    defs: Dict[str, Any] = {"d0": {"type": "string", "description": "leaf"}}
    for i in range(1, depth + 1):
        defs[f"d{i}"] = {
            "anyOf": [{"$ref": f"#/$defs/d{i - 1}"}, {"$ref": f"#/$defs/d{i - 1}"}]
        }
    return {
        "type": "object",
        "properties": {"q": {"$ref": f"#/$defs/d{depth}"}},
        "required": ["q"],
        "$defs": defs,
    }


def wide_any_of(width: int) -> Dict[str, Any]:
    """One large definition referenced ``width`` times from one anyOf.

    :param width: how many references.
    :return: the schema document.
    """
    big = {
        "type": "object",
        "properties": {
            f"p{i}": {"type": "string", "description": "x" * 40} for i in range(40)
        },
    }
    return {
        "type": "object",
        "properties": {"q": {"anyOf": [{"$ref": "#/$defs/big"}] * width}},
        "$defs": {"big": big},
    }


def long_chain(length: int) -> Dict[str, Any]:
    """A linear chain where each definition adds a long description and wraps the previous.

    :param length: chain length.
    :return: the schema document.
    """
    defs: Dict[str, Any] = {"c0": {"type": "string"}}
    for i in range(1, length + 1):
        defs[f"c{i}"] = {
            "type": "array",
            "description": "level " + "y" * 200,
            "items": {"$ref": f"#/$defs/c{i - 1}"},
        }
    return {
        "type": "object",
        "properties": {f"a{j}": {"$ref": f"#/$defs/c{length}"} for j in range(30)},
        "$defs": defs,
    }


def recursive() -> Dict[str, Any]:
    """A tree node referring to itself through two keywords, used by many arguments.

    :return: the schema document.
    """
    node = {
        "type": "object",
        "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            "next": {"$ref": "#/$defs/node"},
            "label": {"type": "string", "description": "z" * 100},
        },
    }
    return {
        "type": "object",
        "properties": {f"t{j}": {"$ref": "#/$defs/node"} for j in range(60)},
        "$defs": {"node": node},
    }


def manifest(
    input_schema: Any, output_schema: Any = None, extra_tools: int = 0
) -> bytes:
    """A manifest whose tool ``amp`` has this input (and output) schema, plus good tools.

    :param input_schema: the input schema.
    :param output_schema: the output schema (None: a plain object output).
    :param extra_tools: untouched neighbours named ``good<i>``.
    :return: UTF-8 JSON.
    """
    output: Dict[str, Any] = {"type": "object", "description": "out"}
    if output_schema is not None:
        output["schema"] = output_schema
    meta = {
        "amp": {
            "name": "amp",
            "description": "amplifies",
            "input": {"type": "object", "description": "in", "schema": input_schema},
            "output": output,
        }
    }
    for i in range(extra_tools):
        meta[f"good{i}"] = {
            "name": f"good{i}",
            "description": "fine",
            "input": {
                "type": "object",
                "description": "in",
                "schema": {
                    "type": "object",
                    "properties": {
                        "n": {"$ref": "#/$defs/n"},
                        "m": {"$ref": "#/$defs/n"},
                    },
                    "$defs": {"n": {"type": "integer", "minimum": 0}},
                },
            },
            "output": {"type": "object", "description": "out"},
        }
    return json.dumps({"tools": list(meta), "toolMetadata": meta}).encode()


SHAPES = {
    "doubling chain of 12": lambda: manifest(doubling(12)),
    "doubling chain of 40": lambda: manifest(doubling(40)),
    "doubling chain of 12, 50 arguments": lambda: manifest(
        {
            **doubling(12),
            "properties": {f"q{j}": {"$ref": "#/$defs/d12"} for j in range(50)},
        }
    ),
    "wide anyOf of 500": lambda: manifest(wide_any_of(500)),
    "long chain, 30 arguments": lambda: manifest(long_chain(25)),
    "recursive, 60 arguments": lambda: manifest(recursive()),
    "doubling chain in the output schema": lambda: manifest(
        {"type": "object", "properties": {"x": {"type": "string"}}},
        {**doubling(16), "type": "object"},
    ),
}


def exported_bytes(data: bytes) -> int:
    """Bytes of every tool's MCP export.

    :param data: manifest bytes.
    :return: total bytes.
    """
    result = parse_manifest(data)
    assert result.manifest is not None
    return sum(len(json.dumps(to_mcp_tool(t))) for t in result.manifest.tools)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_export_is_bounded_by_the_manifest(shape: str) -> None:
    """Every shape: the MCP export stays within a constant factor of the manifest's bytes."""
    data = SHAPES[shape]()
    assert exported_bytes(data) <= EXPORT_RATIO * len(data) + EXPORT_SLACK


@pytest.mark.parametrize(
    "shape",
    [
        "doubling chain of 12",
        "doubling chain of 40",
        "wide anyOf of 500",
        "long chain, 30 arguments",
    ],
)
def test_an_amplifying_schema_is_taken_as_any_with_a_warning(shape: str) -> None:
    """The budget is exceeded: a warning names the schema; the tool is kept."""
    result = parse_manifest(SHAPES[shape]())
    assert result.manifest is not None
    warnings = [p for p in result.problems if p.code == P.SCHEMA_BUDGET_EXCEEDED]
    assert warnings and all(not p.is_error for p in warnings)
    assert all(p.path.startswith("/toolMetadata/amp/input/schema") for p in warnings)
    assert "any JSON value" in warnings[0].message
    assert [t.name for t in result.manifest.tools] == ["amp"]


def test_recursion_stays_typed_under_the_budget() -> None:
    """A recursive definition goes to $defs once per argument: no warning for a few arguments."""
    schema = recursive()
    schema["properties"] = {
        "t0": {"$ref": "#/$defs/node"},
        "t1": {"$ref": "#/$defs/node"},
    }
    result = parse_manifest(manifest(schema))
    assert result.manifest is not None
    assert P.SCHEMA_BUDGET_EXCEEDED not in result.codes
    tool = result.manifest.tools[0]
    assert all("$defs" in json.loads(a.schema_json) for a in tool.arguments)


def test_legitimate_reuse_is_inlined_and_neighbours_are_untouched() -> None:
    """A small definition reused a few times is inlined; other tools never pay for one tool."""
    result = parse_manifest(manifest(doubling(40), extra_tools=3))
    assert result.manifest is not None
    for tool in result.manifest.tools[1:]:
        schemas = [json.loads(a.schema_json) for a in tool.arguments]
        assert schemas == [{"type": "integer", "minimum": 0}] * 2
    assert all(
        not p.path.startswith("/toolMetadata/good")
        for p in result.problems
        if p.code == P.SCHEMA_BUDGET_EXCEEDED
    )


def test_one_budget_is_shared_by_a_tools_schemas() -> None:
    """Within tool_budget, calls draw on one budget: the total written never exceeds it."""
    document = doubling(6)  # 64 leaves: fits once, not a hundred times
    with tool_budget(document) as budget:
        outcomes: List[bool] = []
        for _ in range(100):
            _, problems = self_contained(document, ("properties", "q"), "/s")
            outcomes.append(not problems)
    assert outcomes[0] and not outcomes[-1]
    assert budget.limit == INLINE_FACTOR * units(document) + INLINE_ALLOWANCE


def test_the_work_is_bounded_by_the_budget(monkeypatch) -> None:
    """Units charged never pass limit + one node's worth: a 40-deep doubling chain stops early."""
    charged: List[int] = []
    original = InlineBudget.charge

    def counting(self: InlineBudget, amount: int) -> None:
        charged.append(amount)
        original(self, amount)

    monkeypatch.setattr(schema_refs.InlineBudget, "charge", counting)
    document = doubling(40)  # 80 schemas deep: within MAX_REWRITE_DEPTH, 2**40 leaves
    _, problems = self_contained(document, ("properties", "q"), "/s")
    limit = InlineBudget(document).limit
    assert [p.code for p in problems] == [P.SCHEMA_BUDGET_EXCEEDED]
    assert sum(charged[:-1]) <= limit  # every charge but the one that ran out fit
    assert len(charged) <= limit + 1


def test_units_count_nodes_and_string_length() -> None:
    """Units: one per node, strings and keys by length."""
    assert units(1) == 1 and units(None) == 1
    assert units("x" * 32) == 3
    assert units({"ab": [1, 2]}) == 1 + 1 + 1 + 2
