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

"""A dropped part is reported, not withheld (issue #12; docs/manifest-spec.md section 9).

An error that concerns only a part of a tool (an argument whose key is not an identifier,
an ``input.schema`` root that is not an object schema, an invalid output schema) drops
that part; the tool is offered without it in ``/tools``, the shared-state catalogue, the
mech-interact views and every export, and each export stays valid for strict clients.
Inputs are written here for each kind; the exports cases 03 and 08 are two instances.
"""

import json
from typing import Any, Dict, List, Tuple

import pytest
from mech_catalogue_core.catalogue.views import (
    mech_tools_view,
)
from mech_catalogue_core.exporters import (
    catalogue_to_mcp_tools,
    to_openai_tools,
)
from mech_catalogue_core.manifest.parsing import (
    parse_document,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
)
from mech_catalogue_core.tests.catalogue.test_errors_withhold import (
    REF,
    _get,
)
from mech_catalogue_core.tests.exporters.test_export_conformance import (
    all_export_problems,
)

OUTPUT = {
    "type": "object",
    "schema": {"type": "object", "properties": {"result": {"type": "string"}}},
}


def _schema_tool(name: str, schema: Any, output: Any = None) -> Dict[str, Any]:
    return {
        "name": name,
        "description": f"Tool {name}.",
        "input": {"type": "text", "description": "q", "schema": schema},
        "output": OUTPUT if output is None else output,
    }


def _parse(*tools: Dict[str, Any]) -> Tuple[Catalogue, Tuple[P.Problem, ...]]:
    document = {
        "name": "m",
        "description": "written for these tests",
        "tools": [t["name"] for t in tools],
        "toolMetadata": {t["name"]: t for t in tools},
    }
    result = parse_document(document)
    assert result.manifest is not None, result.problems
    mech = Mech.from_manifest(REF, result.manifest, result.problems)
    return Catalogue.build([mech]), tuple(result.problems)


def _offered(catalogue: Catalogue, name: str) -> List[str]:
    """Argument identifiers of ``name`` as /tools, shared state and MCP each give them."""
    (mech,) = catalogue.mechs
    assert mech.withheld == () and name in mech_tools_view(catalogue)
    _, body = _get(catalogue, f"/tools/{name}")
    http = sorted(body["mcp"]["inputSchema"]["properties"])
    shared = Catalogue.from_json(catalogue.to_json())  # what agents agree on
    assert shared == catalogue
    (tool,) = [t for t in shared.mechs[0].tools if t.name == name]
    state = sorted(a.identifier for a in tool.arguments) or ["prompt"]
    (mcp,) = [t for t in catalogue_to_mcp_tools(catalogue) if t["name"] == name]
    assert http == state == sorted(mcp["inputSchema"]["properties"])
    assert all_export_problems(catalogue.mechs[0].tools) == []
    return http


def _errors(problems: Tuple[P.Problem, ...]) -> List[Tuple[str, str]]:
    return [(p.code, p.path) for p in problems if p.is_error]


BAD_KEYS = ["a-b", "1st", "two words", "", "é_accent", "x" * 129, "a.b", "$ref"]


def test_schema_keys_that_are_not_identifiers_are_dropped_one_by_one() -> None:
    """Each bad property key is one ``invalid_argument`` at its pointer; the rest stay."""
    properties = {key: {"type": "string"} for key in BAD_KEYS}
    properties.update({"keep": {"type": "integer"}, "_also": {"type": "boolean"}})
    schema = {"type": "object", "properties": properties, "required": ["keep", "a-b"]}
    catalogue, problems = _parse(_schema_tool("keys", schema))
    assert _offered(catalogue, "keys") == ["_also", "keep"]
    base = "/toolMetadata/keys/input/schema/properties"
    assert _errors(problems) == [
        (P.INVALID_ARGUMENT, base + P.pointer(key)) for key in BAD_KEYS
    ]
    _, body = _get(catalogue, "/tools/keys")
    assert body["mcp"]["inputSchema"]["required"] == [
        "keep"
    ]  # the dropped one is not required
    (tool,) = catalogue.mechs[0].tools
    assert {a.identifier: a.type for a in tool.arguments} == {
        "keep": "int",
        "_also": "bool",
    }


@pytest.mark.parametrize("key", ["arguments", "kwargs"])
def test_declared_arguments_without_identifier_are_dropped(key: str) -> None:
    """v1 ``arguments`` and seed ``kwargs``: non-objects and bad identifiers dropped alone."""
    items = [
        None,
        "sender",
        {"type": "int"},
        {"identifier": 7, "type": "int"},
        {"identifier": "has space", "type": "str"},
        {"identifier": "amount", "type": "int"},
    ]
    tool = {"name": "pay", "description": "Pay.", key: items}
    catalogue, problems = _parse(tool)
    assert _offered(catalogue, "pay") == ["amount"]
    assert _errors(problems) == [
        (P.INVALID_ARGUMENT, f"/toolMetadata/pay/{key}/{i}") for i in range(5)
    ]


def test_every_argument_dropped_leaves_an_untyped_tool_and_says_why() -> None:
    """All declared arguments bad: offered with the free-text prompt; a warning explains."""
    catalogue, problems = _parse(
        {"name": "lost", "arguments": [{"identifier": "9"}, {"identifier": "-"}]}
    )
    assert _offered(catalogue, "lost") == ["prompt"]
    (untyped,) = [p for p in problems if p.code == P.UNTYPED_INPUT]
    assert untyped.severity == P.SEVERITY_WARNING
    assert untyped.path == "/toolMetadata/lost" and "was dropped" in untyped.message


ROOTS = {
    "string": {"type": "string"},
    "array": {"type": "array", "items": {"type": "string"}},
    "number": {"type": "number", "minimum": 0},
    "scalar": 5,
    "list": [{"type": "object"}],
    "text": "object",
    "properties-not-object": {"type": "object", "properties": ["a", "b"]},
    "meta-schema-invalid": {"type": "object", "properties": {"a": {"type": 3}}},
}


@pytest.mark.parametrize("root", sorted(ROOTS))
def test_input_schema_root_that_is_not_an_object_schema_leaves_the_tool_untyped(
    root: str,
) -> None:
    """The whole input schema is ignored (error at its pointer); the tool is offered untyped."""
    catalogue, problems = _parse(_schema_tool("r", ROOTS[root]), _schema_tool("ok", {}))
    assert _offered(catalogue, "r") == ["prompt"]
    assert _errors(problems) == [
        (P.INVALID_ARGUMENT_SCHEMA, "/toolMetadata/r/input/schema")
    ]
    message = problems[[p.code for p in problems].index(P.INVALID_ARGUMENT_SCHEMA)]
    assert "offered without typed arguments" in message.message
    assert (P.UNTYPED_INPUT, "/toolMetadata/r") in [(p.code, p.path) for p in problems]
    (tool,) = [t for t in catalogue.mechs[0].tools if t.name == "r"]
    assert tool.output_schema_json  # the rest of the tool is intact
    (openai,) = [t for t in to_openai_tools((tool,)) if t["function"]["name"] == "r"]
    assert openai["function"]["parameters"]["required"] == ["prompt"]


@pytest.mark.parametrize(
    "schema",
    ["string", [{"type": "integer"}], 3.5],
    ids=["text", "list", "number"],
)
def test_argument_schema_that_is_not_an_object_falls_back_to_its_type(
    schema: Any,
) -> None:
    """A non-object ``schema`` on one argument is a warning: the type's schema is used."""
    tool = {
        "name": "n",
        "arguments": [{"identifier": "count", "type": "int", "schema": schema}],
    }
    catalogue, problems = _parse(tool)
    assert _offered(catalogue, "n") == ["count"]
    assert _errors(problems) == []
    assert [(p.code, p.path) for p in problems] == [
        (P.INVALID_ARGUMENT_SCHEMA, "/toolMetadata/n/arguments/0/schema")
    ]
    _, body = _get(catalogue, "/tools/n")
    assert body["mcp"]["inputSchema"]["properties"]["count"]["type"] == "integer"


@pytest.mark.parametrize(
    "schema",
    [{"type": "nonsense"}, 7, "object", {"properties": 5}, {"required": "result"}],
    ids=["bad-type", "number", "text", "properties", "required"],
)
def test_invalid_output_schema_is_dropped_and_the_tool_offered(schema: Any) -> None:
    """The tool keeps its arguments and is offered without an output schema."""
    output = {"type": "object", "description": "r", "schema": schema}
    typed = {"type": "object", "properties": {"q": {"type": "string"}}}
    catalogue, problems = _parse(_schema_tool("out", typed, output))
    assert _offered(catalogue, "out") == ["q"]
    assert _errors(problems) == [
        (P.INVALID_OUTPUT_SCHEMA, "/toolMetadata/out/output/schema")
    ]
    (tool,) = catalogue.mechs[0].tools
    assert tool.output_schema_json is None
    _, body = _get(catalogue, "/tools/out")
    assert "outputSchema" not in body["mcp"]


def test_a_withholding_error_still_withholds_beside_dropped_parts() -> None:
    """A dropped key plus an argument declared twice: the repeat withholds the tool."""
    tool = {
        "name": "both",
        "arguments": [
            {"identifier": "bad key", "type": "int"},
            {"identifier": "a", "type": "int"},
            {"identifier": "a", "type": "str"},
        ],
    }
    catalogue, problems = _parse(tool, _schema_tool("fine", {"type": "string"}))
    assert catalogue.tool_names() == ("fine",)
    assert catalogue.mechs[0].withheld == ("both",)
    assert _errors(problems) == [
        (P.INVALID_ARGUMENT, "/toolMetadata/both/arguments/0"),
        (P.DUPLICATE_ARGUMENT, "/toolMetadata/both/arguments/2"),
        (P.TOOL_WITHHELD, "/tools/0"),
        (P.INVALID_ARGUMENT_SCHEMA, "/toolMetadata/fine/input/schema"),
    ]
    _, listed = _get(catalogue, "/tools")
    assert [t["name"] for t in listed["tools"]] == ["fine"]


def test_dropped_parts_are_still_errors_for_authors() -> None:
    """Offered is not clean: the mech lists each dropped part as an error in /mechs."""
    schema = {"type": "object", "properties": {"q": {"type": "string"}, "q[]": {}}}
    catalogue, _ = _parse(_schema_tool("t", schema, {"schema": 1}))
    _, body = _get(catalogue, "/mechs")
    (mech,) = body["mechs"]
    assert mech["tools"] == ["t"] and mech.get("withheld", []) == []
    found = {(p["code"], p["severity"]) for p in mech["problems"]}
    assert found == {
        (P.INVALID_ARGUMENT, "error"),
        (P.INVALID_OUTPUT_SCHEMA, "error"),
    }
    assert json.loads(json.dumps(mech["problems"]))  # serialisable as served
