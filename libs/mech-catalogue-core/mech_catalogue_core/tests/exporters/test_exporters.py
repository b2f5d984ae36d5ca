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

"""Tests for domain.exporters: every output is loaded by that format's own SDK or validator."""

import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from mech_catalogue_core import exporters
from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.exporters import (
    erc8004,
    names,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.tool import (
    MechRef,
    Tool,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REF = MechRef(100, "complementary_service_metadata", "0x" + "ab" * 20, 7)
CID = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"


def _typed_tools() -> Tuple[Tool, ...]:
    tools = derive_package(FIXTURES / "tool_packages" / "typed_tool").to_tools()
    tools += derive_package(FIXTURES / "tool_packages" / "echo_tool").to_tools()
    return tools


def _mech() -> Mech:
    parsed = parse_manifest(
        (FIXTURES / "manifests" / "export_sample.json").read_bytes()
    )
    assert parsed.manifest is not None
    return Mech.from_manifest(REF, parsed.manifest, cid=CID, digest="0x" + "11" * 32)


def _all_tools() -> List[Tool]:
    return list(_typed_tools()) + list(_mech().tools)


# --- names ------------------------------------------------------------------------------
@given(st.lists(st.text(min_size=0, max_size=150), max_size=12))
def test_export_names_valid_unique_and_reversible(raw: List[str]) -> None:
    """Any set of names maps to distinct valid names, and back."""
    for rule in (names.OPENAI_RULE, names.ANTHROPIC_RULE, names.MCP_RULE):
        mapping = names.export_names(raw, rule)
        assert set(mapping) == set(raw)
        assert all(rule.pattern.fullmatch(n) for n in mapping.values())
        assert len(set(mapping.values())) == len(mapping)
        assert names.reverse_names(mapping) == {v: k for k, v in mapping.items()}


def test_valid_names_are_kept_and_collisions_tagged() -> None:
    """Valid names stay; 'a.b' and 'a b' both sanitise to a_b but never take the valid 'a_b'."""
    mapping = names.export_names(["a_b", "a.b", "a b", "x" * 70])
    assert mapping["a_b"] == "a_b"
    assert re.fullmatch(r"a_b_[0-9a-f]{16}", mapping["a.b"])
    assert mapping["a.b"] != mapping["a b"]
    assert len(mapping["x" * 70]) == 64
    assert names.export_names(["weather.forecast"], names.MCP_RULE) == {
        "weather.forecast": "weather.forecast"
    }


# --- MCP --------------------------------------------------------------------------------
def test_mcp_tools_load_in_the_mcp_sdk() -> None:
    """Every exported tool validates as mcp.types.Tool; schemas are valid 2020-12 schemas."""
    from mcp.types import ListToolsResult  # pylint: disable=import-outside-toplevel
    from mcp.types import Tool as McpTool  # pylint: disable=import-outside-toplevel

    exported = exporters.to_mcp_tools(_all_tools())
    for item in exported:
        model = McpTool.model_validate(item)
        assert model.name == item["name"] and names.MCP_NAME.fullmatch(model.name)
        Draft202012Validator.check_schema(item["inputSchema"])
        assert item["inputSchema"]["type"] == "object"
        assert (
            model.annotations is not None and model.annotations.open_world_hint is True
        )
    ListToolsResult.model_validate(exporters.to_mcp_tools_list_result(_all_tools()))
    by_name = {t["name"]: t for t in exported}
    assert by_name["summarise"]["outputSchema"]["required"] == ["requestId", "result"]
    dotted = names.sanitise_name("weather.forecast", names.MCP_TOOL_RULE)
    assert "outputSchema" not in by_name[dotted]  # no schema declared
    assert by_name["summarise"]["inputSchema"]["required"] == [
        "prompt"
    ]  # untyped -> prompt
    (renamed,) = [
        t
        for t in exported
        if t["_meta"]["io.olas/mech-tool"].get("mechToolName") == "weather forecast"
    ]
    # the title clients show first is the MCP name, not the mech's (adv29yt)
    assert renamed["title"] == renamed["name"] != "weather forecast"
    assert renamed["annotations"]["title"] == renamed["name"]
    provenance = by_name["summarise"]["_meta"]["io.olas/mech-tool"]["provenance"]
    assert provenance["cid"] == CID and provenance["mech"]["mech_id"] == 7


def test_catalogue_export_lists_every_mech_offering_a_name() -> None:
    """Two mechs with the same tool name: one MCP tool, both mechs in _meta."""
    from mcp.types import Tool as McpTool  # pylint: disable=import-outside-toplevel

    other_ref = MechRef(100, "complementary_service_metadata", "0x" + "ab" * 20, 9)
    parsed = parse_manifest(
        (FIXTURES / "manifests" / "export_sample.json").read_bytes()
    )
    assert parsed.manifest is not None
    other = Mech.from_manifest(other_ref, parsed.manifest, cid=CID)
    catalogue = Catalogue.build([other, _mech()])
    exported = exporters.catalogue_to_mcp_tools(catalogue)
    assert [t["title"] for t in exported] == [t["name"] for t in exported]
    # a dot is outside the function-name rule model APIs take (adv29zu C4)
    assert [t["name"] for t in exported][:2] == [
        "summarise",
        "weather_forecast_1cb2de11cf0b3756",
    ]
    assert exported[1]["_meta"]["io.olas/mech-tool"]["mechToolName"] == (
        "weather.forecast"
    )
    assert exported[2]["_meta"]["io.olas/mech-tool"]["mechToolName"] == (
        "weather forecast"
    )
    for item in exported:
        McpTool.model_validate(item)
        assert item["_meta"]["io.olas/mech-tool"]["mechs"] == [REF.key, other_ref.key]


# --- OpenAI strict -----------------------------------------------------------------------
def _strict_violations(schema: Any, path: str = "$") -> List[str]:
    """The strict-mode rules from OpenAI's Structured Outputs guide, checked recursively."""
    found: List[str] = []
    if not isinstance(schema, dict):
        return [f"{path}: not a schema object"]
    if not set(schema) - {"description"}:
        found.append(f"{path}: empty schema (any value) is not allowed")
    for keyword in ("default", "examples", "title", "format"):
        if keyword in schema:
            found.append(f"{path}: unsupported keyword {keyword}")
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "object" in kinds:
        properties = schema.get("properties")
        if not isinstance(properties, dict) or not properties:
            found.append(f"{path}: object without properties")
            properties = {}
        if schema.get("additionalProperties") is not False:
            found.append(f"{path}: additionalProperties must be false")
        if sorted(schema.get("required", [])) != sorted(properties):
            found.append(f"{path}: every property must be required")
        for key, sub in properties.items():
            found += _strict_violations(sub, f"{path}.{key}")
    if "array" in kinds and "items" in schema:
        found += _strict_violations(schema["items"], f"{path}[]")
    for index, option in enumerate(schema.get("anyOf", [])):
        found += _strict_violations(option, f"{path}|{index}")
    return found


def test_openai_tools_are_strict_mode_valid() -> None:
    """Names match OpenAI's pattern; parameters obey strict rules and the 2020-12 meta-schema."""
    from langchain_core.utils.function_calling import (  # pylint: disable=import-outside-toplevel
        convert_to_openai_tool,
    )

    exported = exporters.to_openai_tools(_all_tools())
    assert len({t["function"]["name"] for t in exported}) == len(exported)
    for item in exported:
        function = item["function"]
        assert item["type"] == "function" and function["strict"] is True
        assert names.OPENAI_NAME.fullmatch(function["name"])
        parameters = function["parameters"]
        Draft202012Validator.check_schema(parameters)
        assert parameters["type"] == "object" and "anyOf" not in parameters
        assert _strict_violations(parameters) == [], function["name"]
        assert (
            convert_to_openai_tool(item, strict=True)["function"]["name"]
            == function["name"]
        )


def test_openai_optional_arguments_become_nullable_and_defaults_move_to_text() -> None:
    """Optional arguments stay callable by passing null; the default is kept in words."""
    transfer = [
        t
        for t in exporters.to_openai_tools(_typed_tools())
        if t["function"]["name"] == "transfer-native"
    ]
    properties = transfer[0]["function"]["parameters"]["properties"]
    assert properties["memo"]["type"] == ["string", "null"]
    assert 'Default: ""' in properties["memo"]["description"]
    assert properties["amount"]["type"] == "integer"  # required stays non-null
    assert {"type": "null"} in properties["tags"]["anyOf"]


def test_strict_schema_handles_free_values_and_nested_objects() -> None:
    """Any-value and free-form objects become JSON text; nested objects are closed."""
    schema: Dict[str, Any] = {
        "type": "object",
        "properties": {
            "blob": {},
            "options": {"type": "object"},
            "nested": {
                "type": "object",
                "properties": {"x": {"type": "integer", "default": 1}},
            },
            "choice": {"enum": ["a", "b"]},
        },
        "required": ["blob"],
    }
    strict = exporters.strict_schema(schema)
    assert _strict_violations(strict) == []
    assert strict["properties"]["blob"]["type"] == "string"
    assert "JSON-encoded" in strict["properties"]["blob"]["description"]
    assert strict["properties"]["nested"]["anyOf"][0]["required"] == ["x"]
    assert strict["properties"]["choice"] == {
        "anyOf": [{"enum": ["a", "b"], "type": "string"}, {"type": "null"}]
    }
    assert not schema["properties"]["blob"]  # input untouched


# --- Anthropic --------------------------------------------------------------------------
def test_anthropic_tools_valid() -> None:
    """Name pattern, description, and input_schema a valid 2020-12 object schema."""
    exported = exporters.to_anthropic_tools(_all_tools())
    for item in exported:
        assert set(item) == {"name", "description", "input_schema"}
        assert names.ANTHROPIC_NAME.fullmatch(item["name"])
        Draft202012Validator.check_schema(item["input_schema"])
        assert item["input_schema"]["type"] == "object"
    renamed = [t for t in exported if "weather forecast" in t["description"]]
    assert renamed and all(names.ANTHROPIC_NAME.fullmatch(t["name"]) for t in renamed)


# --- LangChain ----------------------------------------------------------------------------
def test_langchain_structured_tool_calls_the_given_callable_only() -> None:
    """The StructuredTool validates arguments and forwards them; without a call it refuses."""
    from langchain_core.tools import (  # pylint: disable=import-outside-toplevel
        StructuredTool,
    )
    from langchain_core.utils.function_calling import (  # pylint: disable=import-outside-toplevel
        convert_to_openai_tool,
    )

    tool = [t for t in _typed_tools() if t.name == "echo-small"][0]
    calls: List[Tuple[str, Dict[str, Any]]] = []

    def call(name: str, kwargs: Dict[str, Any]) -> str:
        calls.append((name, kwargs))
        return "ok"

    structured = exporters.to_langchain_tool(tool, call=call)
    assert isinstance(structured, StructuredTool)
    assert structured.invoke({"prompt": "hi", "max_tokens": 5}) == "ok"
    assert calls == [("echo-small", {"prompt": "hi", "max_tokens": 5})]
    converted = convert_to_openai_tool(structured)
    assert converted["function"]["name"] == "echo-small"
    assert "prompt" in converted["function"]["parameters"]["properties"]

    refusing = exporters.to_langchain_tool(tool)
    with pytest.raises(NotImplementedError, match="echo-small"):
        refusing.invoke({"prompt": "hi"})


def test_langchain_missing_dependency_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without langchain-core the exporter says what to install."""
    monkeypatch.setitem(sys.modules, "langchain_core.tools", None)
    with pytest.raises(exporters.MissingDependency, match="pip install langchain-core"):
        exporters.to_langchain_tool(_all_tools()[0])


# --- A2A ----------------------------------------------------------------------------------
def _is_unset(message: Any, field: Any) -> bool:
    value = getattr(message, field.name)
    if field.label == field.LABEL_REPEATED:
        return not value
    if field.message_type is not None:
        return not message.HasField(field.name)
    return value in ("", 0)


def _missing_required(message: Any) -> List[str]:
    """Fields marked REQUIRED in a2a.proto that are unset, recursively."""
    # pylint: disable=import-outside-toplevel,no-member
    from google.api import field_behavior_pb2

    missing = []
    for field in message.DESCRIPTOR.fields:
        behaviours = field.GetOptions().Extensions[field_behavior_pb2.field_behavior]
        if field_behavior_pb2.REQUIRED in behaviours and _is_unset(message, field):
            missing.append(f"{message.DESCRIPTOR.name}.{field.name}")
        if field.message_type is None or field.message_type.GetOptions().map_entry:
            continue
        if field.label == field.LABEL_REPEATED:
            for item in getattr(message, field.name):
                missing += _missing_required(item)
        elif message.HasField(field.name):
            missing += _missing_required(getattr(message, field.name))
    return missing


def test_a2a_agent_card_loads_in_a2a_sdk() -> None:
    """The card parses into a2a-sdk's AgentCard with every REQUIRED field set."""
    from a2a.types import AgentCard  # pylint: disable=import-outside-toplevel
    from google.protobuf.json_format import (  # pylint: disable=import-outside-toplevel
        ParseDict,
    )

    card_json = exporters.to_agent_card(
        _mech(),
        url="http://127.0.0.1:8000/a2a",
        organization="Fixture Org",
        provider_url="http://127.0.0.1",
    )
    card = ParseDict(card_json, AgentCard())
    assert _missing_required(card) == []
    assert [s.id for s in card.skills] == [
        "summarise",
        "weather.forecast",
        "weather forecast",
    ]
    assert "eip155:100" in card.skills[0].tags
    assert card.provider.organization == "Fixture Org"
    assert card.supported_interfaces[0].protocol_binding == "JSONRPC"


def test_a2a_skill_examples_are_text() -> None:
    """Skill examples are strings in A2A; JSON examples are serialised."""
    from a2a.types import AgentSkill  # pylint: disable=import-outside-toplevel
    from google.protobuf.json_format import (  # pylint: disable=import-outside-toplevel
        ParseDict,
    )

    tool = Tool(name="t", description="d", examples_json=('{"prompt":"x"}', '"plain"'))
    skill = ParseDict(exporters.to_agent_skill(tool), AgentSkill())
    assert list(skill.examples) == ['{"prompt": "x"}', "plain"]
    assert _missing_required(skill) == []


# --- ERC-8004 -------------------------------------------------------------------------------
def test_erc8004_registration_file() -> None:
    """Type URI, CAIP-10 registry id, manifest CID as a service, schema-valid."""
    registration = exporters.to_registration(
        _mech(),
        agent_id=42,
        identity_registry="0x8004a169fb4a3325136eb29fa0ceb6d2e539a432",
        services=[exporters.Service("MCP", "http://127.0.0.1:8000/mcp", "2025-11-25")],
    )
    assert (
        registration["type"]
        == "https://eips.ethereum.org/EIPS/eip-8004#registration-v1"
    )
    assert registration["registrations"] == [
        {
            "agentId": 42,
            "agentRegistry": "eip155:100:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432",
        }
    ]
    assert {"name": "olas-mech-manifest", "endpoint": f"ipfs://{CID}"} in registration[
        "services"
    ]
    assert registration["image"].startswith("ipfs://")
    assert erc8004.registration_problems(registration) == []
    Draft202012Validator.check_schema(erc8004.REGISTRATION_SCHEMA)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"agent_id": 1}, "both agent_id and identity_registry"),
        ({"agent_id": 1, "identity_registry": "0x123"}, "not 0x followed by 40 hex"),
        ({"agent_id": -1, "identity_registry": "0x" + "00" * 20}, "non-negative"),
        (
            {"agent_id": 1, "identity_registry": "0x" + "00" * 20, "chain_id": 0},
            "chain id",
        ),
        ({"supported_trust": ["vibes"]}, "unknown trust model"),
    ],
)
def test_erc8004_bad_inputs(kwargs: Dict[str, Any], match: str) -> None:
    """Bad inputs raise RegistrationError naming the field."""
    with pytest.raises(erc8004.RegistrationError, match=match):
        exporters.to_registration(_mech(), **kwargs)


def test_erc8004_problems_on_foreign_documents() -> None:
    """The schema check reports wrong type URIs and malformed registrations."""
    document = {
        "type": "https://example.org/other",
        "name": "x",
        "description": "",
        "image": "",
        "services": [],
        "registrations": [{"agentId": 1, "agentRegistry": "1:0xabc"}],
    }
    problems = erc8004.registration_problems(document)
    assert any(p.startswith("type:") for p in problems)
    assert any(p.startswith("registrations/0/agentRegistry") for p in problems)
