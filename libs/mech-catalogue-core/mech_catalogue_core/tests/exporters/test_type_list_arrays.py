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

"""An array schema has ``items`` in every export, whatever its ``type`` looks like (issue #34 item 6).

A schema whose ``type`` is a list holding ``"array"`` (``["array", "null"]``, ``["string",
"array"]``) is an array schema for clients that refuse arrays without ``items``
(Anthropic, OpenAI non-strict, MCP clients that compile schemas). The exporters wrote
``items`` for them, but the ``items`` they wrote was itself such a list with ``array`` and
no ``items`` of its own, and the conformance checker only looked at ``["array"]`` and
``["array", "null"]``. Inputs written here: type lists in arguments, nested properties,
``anyOf`` arms, arrays of arrays and output schemas.
"""

import json
from typing import Any, Iterator, List, Tuple

import pytest
from mech_catalogue_core import exporters
from mech_catalogue_core.exporters import conformance
from mech_catalogue_core.manifest.parsing import parse_manifest
from mech_catalogue_core.model.tool import Tool

TYPE_LISTS = {
    "maybe_list": {"type": ["array", "null"]},
    "list_or_text": {"type": ["string", "array"], "description": "one or many"},
    "arm": {"anyOf": [{"type": ["integer", "array"]}, {"type": "boolean"}]},
    "nested": {"type": "object", "properties": {"inner": {"type": ["null", "array"]}}},
    "grid": {"type": "array", "items": {"type": ["array", "number"]}},
    "loose": {"type": ["array", "object"], "properties": {"k": {"type": "string"}}},
}


def _tools() -> Tuple[Tool, ...]:
    tool = {
        "name": "lists",
        "description": "Takes lists in many spellings.",
        "input": {
            "type": "text",
            "schema": {"type": "object", "properties": TYPE_LISTS},
        },
        "output": {
            "type": "object",
            "description": "out",
            "schema": {
                "type": "object",
                "properties": {
                    "rows": {"type": ["array", "null"]},
                    "cell": {"type": ["string", "array", "integer"]},
                },
            },
        },
    }
    document = {"name": "m", "tools": ["lists"], "toolMetadata": {"lists": tool}}
    parsed = parse_manifest(json.dumps(document).encode())
    assert parsed.manifest is not None
    assert [p for p in parsed.problems if p.is_error] == []
    return parsed.manifest.tools


def _array_schemas_without_items(node: Any, where: str = "") -> Iterator[str]:
    if isinstance(node, dict):
        kinds = node.get("type")
        listed = kinds == "array" or (isinstance(kinds, list) and "array" in kinds)
        if listed and "items" not in node and "prefixItems" not in node:
            yield where or "/"
        for key, value in node.items():
            yield from _array_schemas_without_items(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _array_schemas_without_items(value, f"{where}/{index}")


def _exports() -> List[Tuple[str, Any]]:
    tools = _tools()
    return [
        ("mcp", exporters.to_mcp_tools_list_result(tools)),
        ("openai", exporters.to_openai_tools(tools)),
        ("anthropic", exporters.to_anthropic_tools(tools)),
    ]


@pytest.mark.parametrize("label, exported", _exports())
def test_no_export_holds_an_array_schema_without_items(
    label: str, exported: Any
) -> None:
    """Every subschema whose type is, or lists, array has items: also the items written."""
    assert not list(_array_schemas_without_items(exported)), label


def test_the_langchain_schema_has_items_everywhere() -> None:
    """The LangChain tool's args schema too (skipped without langchain-core)."""
    pytest.importorskip("langchain_core")
    (tool,) = _tools()
    schema = exporters.to_langchain_tool(tool).args_schema
    assert not list(_array_schemas_without_items(schema))


@pytest.mark.parametrize(
    "kinds", [["array", "string"], ["integer", "array", "null"], ["array"], "array"]
)
def test_the_checker_refuses_any_array_schema_without_items(kinds: Any) -> None:
    """The conformance checks name such a schema, whatever else its type list holds."""
    schema = {"type": "object", "properties": {"x": {"type": kinds}}}
    anthropic = {"name": "t", "description": "d", "input_schema": schema}
    found = conformance.anthropic_tool_problems(anthropic)
    assert any("/properties/x" in problem and "items" in problem for problem in found)


def test_an_items_schema_written_for_any_value_is_not_itself_an_array() -> None:
    """The any-value items the exporters write hold no array, so they need no items."""
    assert "array" not in exporters.schemas.ANY_ITEMS["type"]
    assert not list(_array_schemas_without_items(exporters.schemas.ANY_ITEMS))
