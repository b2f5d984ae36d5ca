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

"""Every export is accepted by the strict clients that consume it (issue #13, #10 item 2).

Each fault kind has inputs written here (not the bug-report files); the conformance
checkers (``mech_catalogue_core/exporters/conformance.py``) run over every format's output for the whole
hostile corpus and for generated manifests. MCP output is also validated against a JSON
Schema generated from the ``mcp`` SDK's own types of revision 2026-07-28
(``mcp_types._v2026_07_28``), and A2A cards are loaded into a2a-sdk's protobuf
``AgentCard``.
"""

import copy
import json
import re
import sys
from functools import lru_cache
from types import FrameType
from typing import Any, Dict, List, Optional, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from mech_catalogue_core import exporters
from mech_catalogue_core.exporters import (
    anthropic_tool,
    conformance,
    names,
)
from mech_catalogue_core.exporters.mcp_tool import (
    MCP_PROTOCOL_VERSION,
    META_KEY,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.manifest.validation import (
    decode_json,
    validate_manifest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.tool import (
    Argument,
    MechRef,
    Tool,
)
from mech_catalogue_core.tests.hostile_corpus import (
    build_corpus,
)

REF = MechRef(10, "complementary_service_metadata", "0x" + "cd" * 20, 3)
CID = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"


@lru_cache(maxsize=1)
def _sdk_tools_list_validator() -> Draft202012Validator:
    """JSON Schema of ``ListToolsResult`` generated from the SDK's 2026-07-28 types."""
    # pylint: disable-next=import-outside-toplevel
    from mcp_types import LATEST_PROTOCOL_VERSION
    from mcp_types._v2026_07_28 import (  # pylint: disable=import-outside-toplevel
        ListToolsResult,
    )

    assert LATEST_PROTOCOL_VERSION == MCP_PROTOCOL_VERSION
    schema = ListToolsResult.model_json_schema(by_alias=True)
    return Draft202012Validator(schema)


def _manifest(tool_metadata: Dict[str, Any], **top: Any) -> bytes:
    document: Dict[str, Any] = {
        "name": "Test mech",
        "description": "Written for these tests.",
    }
    document.update(top)
    document["tools"] = list(tool_metadata)
    document["toolMetadata"] = tool_metadata
    return json.dumps(document).encode()


def _tools(data: bytes) -> Tuple[Tuple[Tool, ...], Tuple[P.Problem, ...]]:
    parsed = parse_manifest(data)
    assert parsed.manifest is not None, parsed.problems
    mech = Mech.from_manifest(REF, parsed.manifest, cid=CID, digest="0x" + "11" * 32)
    return mech.tools, tuple(parsed.problems)


def _schema_tool(name: str, schema: Any, description: str = "d") -> Dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "input": {"type": "text", "description": "q", "schema": schema},
        "output": {"type": "object", "description": "r"},
    }


def all_export_problems(tools: Tuple[Tool, ...]) -> List[str]:
    """Run every exporter over the tools and every checker over each output.

    :param tools: model tools.
    :return: every problem found, prefixed by format.
    """
    found: List[str] = []
    result = exporters.to_mcp_tools_list_result(tools)
    found += [f"mcp{p}" for p in conformance.mcp_tools_list_problems(result)]
    sdk = _sdk_tools_list_validator()
    found += [f"mcp-sdk: {e.message[:120]}" for e in sdk.iter_errors(result)]
    for exported in exporters.to_openai_tools(tools):
        found += [f"openai{p}" for p in conformance.openai_tool_problems(exported)]
    for exported in exporters.to_anthropic_tools(tools):
        found += [
            f"anthropic{p}" for p in conformance.anthropic_tool_problems(exported)
        ]
    for tool in tools:
        schema = exporters.to_langchain_tool(tool).args_schema
        found += [f"langchain{p}" for p in conformance.dangling_references(schema)]
    mech = Mech(ref=REF, tools=tuple(tools), name="m", cid=CID)
    card = exporters.to_agent_card(mech, "https://agent.example.org/a2a")
    found += [f"a2a{p}" for p in conformance.agent_card_problems(card)]
    registration = exporters.to_registration(
        mech, services=[exporters.Service("MCP", "https://agent.example.org/mcp")]
    )
    found += [
        f"erc8004{p}" for p in conformance.registration_file_problems(registration)
    ]
    return found


# --- the whole hostile corpus ------------------------------------------------------------
def test_every_export_of_the_hostile_corpus_passes_every_checker() -> None:
    """No manifest of the hostile corpus yields an export a strict consumer rejects."""
    checked = 0
    for case in build_corpus():
        parsed = parse_manifest(case.data, case.limits)
        if parsed.manifest is None or not parsed.manifest.tools:
            continue
        mech = Mech.from_manifest(REF, parsed.manifest, cid=CID)
        assert all_export_problems(mech.tools) == [], case.name
        checked += 1
    assert checked >= 10


# --- $ref / $defs / definitions --------------------------------------------------------
REFS_MANIFEST = _manifest(
    {
        "swap": _schema_tool(
            "swap",
            {
                "$schema": "https://json-schema.org/draft/2019-09/schema",
                "type": "object",
                "$defs": {
                    "Token": {"type": "string", "pattern": "^0x[0-9a-f]{40}$"},
                    "Hop": {
                        "type": "object",
                        "properties": {"via": {"$ref": "#/$defs/Token"}},
                        "required": ["via"],
                    },
                },
                "properties": {
                    "sell": {"$ref": "#/$defs/Token", "description": "What to sell"},
                    "route": {"type": "array", "items": {"$ref": "#/$defs/Hop"}},
                },
                "required": ["sell"],
            },
        ),
        "old-style": _schema_tool(
            "old-style",
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "definitions": {"Chain": {"type": "integer", "enum": [1, 100]}},
                "type": "object",
                "properties": {
                    "chain": {"$ref": "#/definitions/Chain"},
                    "pair": {
                        "type": "array",
                        "items": [{"type": "string"}, {"type": "number"}],
                    },
                },
            },
        ),
        "expr": _schema_tool(
            "expr",
            {
                "type": "object",
                "$defs": {
                    "Expr": {
                        "type": "object",
                        "properties": {
                            "op": {"enum": ["+", "*"]},
                            "args": {
                                "type": "array",
                                "items": {"$ref": "#/$defs/Expr"},
                            },
                            "left": {
                                "anyOf": [{"$ref": "#/$defs/Expr"}, {"type": "number"}]
                            },
                        },
                    }
                },
                "properties": {
                    "tree": {"$ref": "#/$defs/Expr"},
                    "depth": {"type": "integer"},
                },
            },
        ),
        "broken-refs": _schema_tool(
            "broken-refs",
            {
                "type": "object",
                "properties": {
                    "deep": {
                        "type": "object",
                        "properties": {
                            "gone": {"$ref": "#/$defs/Missing", "title": "Gone"}
                        },
                    },
                    "remote": {"$ref": "https://schemas.example.org/thing.json"},
                    "anchor": {"$ref": "#nowhere", "description": "kept text"},
                    "fine": {"type": "boolean"},
                },
            },
        ),
    }
)


def test_references_are_inlined_or_hoisted_and_dangling_ones_reported() -> None:
    """Non-recursive refs are inlined, recursion keeps root $defs, dangling refs become any + warning."""
    tools, problems = _tools(REFS_MANIFEST)
    by_name = {t.name: t for t in tools}
    swap = exporters.to_mcp_tool(by_name["swap"])["inputSchema"]
    assert swap["properties"]["sell"] == {
        "type": "string",
        "pattern": "^0x[0-9a-f]{40}$",
        "description": "What to sell",
    }
    assert swap["properties"]["route"]["items"]["properties"]["via"]["type"] == "string"
    old = exporters.to_mcp_tool(by_name["old-style"])["inputSchema"]
    assert old["properties"]["chain"] == {"type": "integer", "enum": [1, 100]}
    assert "prefixItems" in old["properties"]["pair"]  # draft-07 tuple translated
    expr = exporters.to_mcp_tool(by_name["expr"])["inputSchema"]
    assert set(expr["$defs"]) == {"Expr"}
    assert expr["properties"]["tree"]["properties"]["args"]["items"] == {
        "$ref": "#/$defs/Expr"
    }
    broken = {p.path: p for p in problems if p.code == P.INVALID_ARGUMENT_SCHEMA}
    base = "/toolMetadata/broken-refs/input/schema/properties"
    assert set(broken) == {
        f"{base}/deep/properties/gone",
        f"{base}/remote",
        f"{base}/anchor",
    }
    assert all(not p.is_error for p in broken.values())
    schema = exporters.to_mcp_tool(by_name["broken-refs"])["inputSchema"]
    assert schema["properties"]["deep"]["properties"]["gone"] == {"title": "Gone"}
    assert schema["properties"]["anchor"] == {"description": "kept text"}
    assert by_name["broken-refs"].arguments[1].type == "any"
    assert all_export_problems(tools) == []
    for fmt_schema in (
        exporters.to_openai_tool(by_name["expr"])["function"]["parameters"],
        exporters.to_anthropic_tool(by_name["expr"])["input_schema"],
    ):
        assert not conformance.dangling_references(fmt_schema)
        assert "$defs" in fmt_schema


def test_recursive_refs_stay_strict_for_openai() -> None:
    """A recursive argument is still in the strict subset: $defs rewritten, objects closed."""
    tools, _ = _tools(REFS_MANIFEST)
    exported = {
        t["function"]["name"]: t["function"] for t in exporters.to_openai_tools(tools)
    }
    assert exported["expr"]["strict"] is True and exported["swap"]["strict"] is True
    expr_def = exported["expr"]["parameters"]["$defs"]["Expr"]
    assert expr_def["additionalProperties"] is False
    assert sorted(expr_def["required"]) == ["args", "left", "op"]
    hop = exported["swap"]["parameters"]["properties"]["route"]["anyOf"][0]["items"]
    assert hop["required"] == ["via"] and hop["additionalProperties"] is False


def test_manifest_json_schema_honours_the_declared_dialect() -> None:
    """A draft-07 tuple `items` is valid under its own dialect: no schema_violation."""
    problems = validate_manifest(decode_json(REFS_MANIFEST).value)
    assert [p for p in problems if p.code == P.SCHEMA_VIOLATION] == []


# --- OpenAI strict subset -----------------------------------------------------------------
STRICT_TRAPS = {
    "tags": {"type": "array"},
    "query": {"properties": {"text": {"type": "string"}}},
    "period": {
        "type": ["object", "null"],
        "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}},
        "required": ["start"],
    },
    "side": {"oneOf": [{"const": "long"}, {"const": "short"}]},
    "assets": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    "min_size": {"allOf": [{"type": "number"}, {"minimum": 0.5}]},
    "code": {"type": "string", "minLength": 3, "format": "ticker"},
    "either": {"type": ["string", "integer"]},
    "not_zero": {"type": "integer", "not": {"const": 0}},
    "tuple": {
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "integer"}],
    },
    "anything": True,
}


def test_openai_strict_traps_are_rewritten_into_the_subset() -> None:
    """Each trap is rewritten (strict: true) and the result passes the strict checker."""
    tools, problems = _tools(
        _manifest(
            {
                "traps": _schema_tool(
                    "traps",
                    {
                        "type": "object",
                        "properties": STRICT_TRAPS,
                        "required": ["tags"],
                    },
                )
            }
        )
    )
    assert [p for p in problems if p.is_error] == []
    function = exporters.to_openai_tool(tools[0])["function"]
    assert function["strict"] is True
    params = function["parameters"]
    assert not conformance.openai_strict_problems(params)
    props = params["properties"]
    assert props["tags"]["items"]["type"] == "string"
    assert props["query"]["anyOf"][0]["additionalProperties"] is False
    period = props["period"]["anyOf"][0]
    assert sorted(period["required"]) == ["end", "start"]
    assert period["properties"]["end"]["type"] == ["integer", "null"]
    assert [a["enum"] for a in props["side"]["anyOf"][:2]] == [["long"], ["short"]]
    assert "uniqueItems" not in json.dumps(props["assets"])
    assert "unique" in props["assets"]["description"]
    assert props["min_size"]["type"] == ["number", "null"]
    assert props["min_size"]["minimum"] == 0.5
    assert "minLength: 3" in props["code"]["description"]
    assert "Format: ticker." in props["code"]["description"]
    assert {a.get("type") for a in props["either"]["anyOf"]} >= {"string", "integer"}
    assert "not" in props["not_zero"]["description"]
    assert props["tuple"]["type"] == ["string", "null"]  # a tuple goes as JSON text
    # The MCP export keeps the original meaning but gives every array typed items.
    mcp = exporters.to_mcp_tool(tools[0])["inputSchema"]
    assert mcp["properties"]["tags"]["items"]["type"]
    assert conformance.mcp_tool_problems(exporters.to_mcp_tool(tools[0])) == []


def test_openai_falls_back_to_non_strict_when_the_subset_cannot_say_it() -> None:
    """Disagreeing allOf arms cannot be merged: strict false, parameters still conformant."""
    tool = Tool(
        name="clash",
        arguments=(
            Argument(
                "level",
                "any",
                json.dumps({"allOf": [{"type": "integer"}, {"type": "string"}]}),
            ),
        ),
    )
    function = exporters.to_openai_tool(tool)["function"]
    assert function["strict"] is False
    assert (
        conformance.openai_tool_problems({"type": "function", "function": function})
        == []
    )
    assert function["parameters"]["properties"]["level"]["allOf"]


def test_openai_descriptions_join_sentences_with_a_full_stop() -> None:
    """'... answer Default: 500' becomes '... answer. Default: 500.' (issue #14)."""
    tools, _ = _tools(
        _manifest(
            {
                "ask": {
                    "name": "ask",
                    "description": "d",
                    "arguments": [
                        {
                            "identifier": "max_tokens",
                            "type": "int",
                            "default": 500,
                            "description": "Longest answer",
                        }
                    ],
                }
            }
        )
    )
    prop = exporters.to_openai_tool(tools[0])["function"]["parameters"]["properties"]
    assert prop["max_tokens"]["description"] == "Longest answer. Default: 500."


# --- Anthropic keys ------------------------------------------------------------------------
def test_anthropic_keys_are_renamed_deterministically_and_map_back() -> None:
    """Keys of 65-128 characters and odd nested keys are cut + tagged; the map goes back."""
    long_names = ["k" * 65, "amount_" + "x" * 93, "z" * 128, "ok_" * 21]
    arguments: List[Dict[str, Any]] = [
        {"identifier": n, "type": "int"} for n in long_names
    ]
    arguments.append(
        {
            "identifier": "filters",
            "type": "dict",
            "schema": {
                "type": "object",
                "properties": {
                    "page[size]": {"type": "integer"},
                    "$skip": {"type": "integer"},
                },
                "required": ["page[size]"],
            },
        }
    )
    tools, _ = _tools(
        _manifest(
            {"wide": {"name": "wide", "description": "d", "arguments": arguments}}
        )
    )
    first = exporters.to_anthropic_tool(tools[0])
    assert not conformance.anthropic_tool_problems(first)
    assert exporters.to_anthropic_tool(tools[0]) == first  # deterministic
    back = anthropic_tool.argument_names(tools[0])
    assert sorted(back.values()) == sorted(n for n in long_names if len(n) > 64)
    props = first["input_schema"]["properties"]
    assert "ok_" * 21 in props  # 63 characters: kept
    for exported, original in back.items():
        assert len(exported) <= 64 and original in props[exported]["description"]
    nested = props["filters"]
    assert all(names.ANTHROPIC_KEY.fullmatch(k) for k in nested["properties"])
    assert nested["required"][0] in nested["properties"]


# --- top-level rules and no-constraint roots ----------------------------------------------
ROOTS_MANIFEST = _manifest(
    {
        "pick": _schema_tool(
            "pick",
            {
                "type": "object",
                "properties": {
                    "email": {"type": "string"},
                    "phone": {"type": "string"},
                },
                "oneOf": [{"required": ["email"]}, {"required": ["phone"]}],
            },
            "Finds a user",
        ),
        "ranged": _schema_tool(
            "ranged",
            {
                "type": "object",
                "properties": {"lo": {"type": "integer"}, "hi": {"type": "integer"}},
                "dependentRequired": {"hi": ["lo"]},
                "not": {"required": ["lo", "hi"]},
            },
        ),
        "either-shape": _schema_tool(
            "either-shape",
            {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"tx": {"type": "string"}},
                        "required": ["tx"],
                    },
                    {"type": "object", "properties": {"block": {"type": "integer"}}},
                ]
            },
        ),
        "anything": _schema_tool("anything", True),
        "dialect": _schema_tool(
            "dialect", {"$schema": "https://json-schema.org/draft/2019-09/schema"}
        ),
        "open-object": _schema_tool(
            "open-object",
            {"type": "object", "additionalProperties": True, "title": "t"},
        ),
        "nothing": _schema_tool("nothing", {"type": "object", "properties": {}}),
    }
)


def test_root_rules_become_sentences_and_warnings_never_root_combinators() -> None:
    """Top-level rules survive as a sentence + warning; exports never carry them at the root."""
    tools, problems = _tools(ROOTS_MANIFEST)
    by_name = {t.name: t for t in tools}
    assert (
        by_name["pick"].description
        == "Finds a user. Give exactly one of: email; phone."
    )
    assert "dependentRequired" in by_name["ranged"].description
    assert {a.identifier for a in by_name["either-shape"].arguments} == {"tx", "block"}
    assert not any(a.required for a in by_name["either-shape"].arguments)
    rules = [p for p in problems if p.code == P.TOP_LEVEL_RULE]
    assert {p.path.rsplit("/", 1)[-1] for p in rules} == {
        "oneOf",
        "dependentRequired",
        "not",
    }
    assert all(not p.is_error for p in rules)
    for fmt in (
        [t["inputSchema"] for t in exporters.to_mcp_tools(tools)],
        [t["function"]["parameters"] for t in exporters.to_openai_tools(tools)],
        [t["input_schema"] for t in exporters.to_anthropic_tools(tools)],
    ):
        for schema in fmt:
            assert schema["type"] == "object" and isinstance(schema["properties"], dict)
            assert not {"anyOf", "oneOf", "allOf", "not", "dependentRequired"} & set(
                schema
            )
    assert all_export_problems(tools) == []


def test_no_constraint_roots_are_untyped_tools_with_a_warning_not_an_error() -> None:
    """`true`, `$schema`-only and an open object: untyped (prompt) tools, validate passes."""
    tools, problems = _tools(ROOTS_MANIFEST)
    by_name = {t.name: t for t in tools}
    for name in ("anything", "dialect", "open-object"):
        assert by_name[name].arguments == ()
        assert any(
            p.code == P.UNTYPED_INPUT and p.path == f"/toolMetadata/{name}"
            for p in problems
        )
    assert [p for p in problems if p.is_error] == []
    schema_problems = validate_manifest(decode_json(ROOTS_MANIFEST).value)
    assert [p for p in schema_problems if p.is_error] == []
    nothing = exporters.to_mcp_tool(by_name["nothing"])["inputSchema"]
    assert isinstance(nothing["properties"], dict)


# --- names (issue #10 item 2) ---------------------------------------------------------------
def _collision_set(name: str, rule: names.NameRule) -> List[str]:
    """A name, then the names it would be mapped to, computed in advance (the attack)."""
    first = names.sanitise_name(name, rule)
    attempts = [first]
    # each next tag: what the name is given when every earlier one is held (a literal
    # copy of a name's own tag is renamed itself since adv29v, so it cannot hold one)
    for _ in range(2):
        held = frozenset(attempts)
        attempts.append(names.export_names([name], rule, held=held)[name])
    return [name] + attempts


@pytest.mark.parametrize(
    "rule", [names.OPENAI_RULE, names.ANTHROPIC_RULE, names.MCP_RULE]
)
@pytest.mark.parametrize("name", ["evil!", "", "ツール", "a" * 300, "x.y z"])
def test_precomputed_collisions_never_break_name_mapping(
    name: str, rule: names.NameRule
) -> None:
    """A name plus its sanitised form plus its fallbacks still map uniquely and validly."""
    attack = _collision_set(name, rule)
    mapping = names.export_names(attack, rule)
    assert set(mapping) == set(attack)
    assert len(set(mapping.values())) == len(mapping)
    assert all(rule.accepts(v) for v in mapping.values())
    assert names.export_names(attack, rule) == mapping


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=140),
            st.text(alphabet="ab_-.!", max_size=8),
            st.sampled_from(["", "tool", "name", "evil!", "evil_", "a" * 64, "a" * 65]),
        ),
        max_size=12,
    ),
    st.sampled_from(
        [
            names.OPENAI_RULE,
            names.ANTHROPIC_RULE,
            names.MCP_RULE,
            names.ANTHROPIC_KEY_RULE,
        ]
    ),
)
def test_name_mapping_is_total_on_adversarial_sets(
    raw: List[str], rule: names.NameRule
) -> None:
    """Any set plus the sanitised forms of its members: unique, valid, deterministic, reversible."""
    attack = raw + [names.sanitise_name(n, rule) for n in raw]
    mapping = names.export_names(attack, rule)
    assert len(set(mapping.values())) == len(mapping) == len(set(attack))
    assert all(rule.accepts(v) for v in mapping.values())
    assert names.reverse_names(mapping) == {v: k for k, v in mapping.items()}
    assert names.export_names(attack, rule) == mapping


def test_colliding_tool_names_export_in_every_format_and_over_http() -> None:
    """The manifest from the report (computed collisions) exports, and GET /tools answers."""
    # pylint: disable-next=import-outside-toplevel
    from mech_catalogue_core.catalogue.exposure import (  # pylint: disable=import-outside-toplevel
        ExposedCatalogue,
    )
    from mech_catalogue_core.http_api.routes import (  # pylint: disable=import-outside-toplevel
        CatalogueView,
        route,
    )

    attack = _collision_set("evil!", names.MCP_RULE)
    data = json.dumps({"tools": attack}).encode()
    tools, _ = _tools(data)
    assert all_export_problems(tools) == []
    mech = Mech.from_manifest(REF, parse_manifest(data).manifest)
    exposed = ExposedCatalogue(
        catalogue=Catalogue.build([mech]),
        catalogue_digest="0x" + "00" * 32,
        snapshot_digest="0x" + "00" * 32,
        block_number=1,
        period=0,
        agreed_at=0.0,
    )
    result = route("GET", "/tools", b"", CatalogueView.build(exposed), 0.0, 50, 60.0)
    assert result.status_code == 200
    body = json.loads(result.body)
    assert not conformance.mcp_tools_list_problems(body)
    assert len(body["tools"]) == len(attack)


# --- MCP: checked shapes ---------------------------------------------------------------------
def test_mcp_tool_with_an_unrepairable_argument_is_served_without_it() -> None:
    """A stored argument schema with a dangling ref (not from the parser) is left out, said in _meta."""
    tool = Tool(
        name="legacy",
        arguments=(
            Argument("good", "str", json.dumps({"type": "string"})),
            Argument("bad", "any", json.dumps({"$ref": "#/$defs/Gone"})),
        ),
    )
    item = exporters.to_mcp_tool(tool)
    assert not conformance.mcp_tool_problems(item)
    assert list(item["inputSchema"]["properties"]) == ["good"]
    assert any("/bad" in p for p in item["_meta"][META_KEY]["problems"])


def test_mcp_provenance_names_only_what_is_known() -> None:
    """A tool parsed on its own has no mech, CID or digest in _meta (issue #14)."""
    parsed = parse_manifest(_manifest({"a": {"name": "a", "description": "d"}}))
    assert parsed.manifest is not None
    item = exporters.to_mcp_tool(parsed.manifest.tools[0])
    assert item["_meta"][META_KEY]["provenance"] == {"shape": "tool_metadata"}


# --- A2A and ERC-8004 -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "image, kept",
    [
        ("tbd", ""),
        ("logo.png", ""),
        ("http://insecure.example.org/a.png", ""),
        ("https://cdn.example.org/a.png", "https://cdn.example.org/a.png"),
        ("ipfs://" + CID, "ipfs://" + CID),
        ("data:image/png;base64,AAAA", "data:image/png;base64,AAAA"),
    ],
)
def test_erc8004_image_is_absolute_or_left_out_with_a_warning(
    image: str, kept: str
) -> None:
    """Only absolute https/ipfs/data image URIs are written; others leave a warning."""
    mech = Mech(ref=REF, name="m", extra_json=json.dumps({"image": image}))
    warnings: List[str] = []
    registration = exporters.to_registration(mech, warnings=warnings)
    assert registration["image"] == kept
    assert bool(warnings) == (kept == "")
    assert not conformance.registration_file_problems(registration)


def test_templates_are_filled_or_refused() -> None:
    """{agentId} is substituted when known; any other template is refused with its name."""
    assert (
        exporters.expand_templates("https://x.example/{agentId}/a2a", 42)
        == "https://x.example/42/a2a"
    )
    for url, agent in (
        ("https://x.example/{agentId}", None),
        ("https://x.example/{chain}", 7),
    ):
        with pytest.raises(exporters.RegistrationError, match=re.escape(url[17:])):
            exporters.expand_templates(url, agent)
    mech = Mech(ref=REF, name="m")
    with pytest.raises(exporters.RegistrationError):
        exporters.to_agent_card(mech, "https://x.example/{agentId}")
    with pytest.raises(exporters.RegistrationError):
        exporters.to_registration(
            mech, services=[exporters.Service("A2A", "https://x.example/{agentId}")]
        )


def test_manifest_service_is_a_cidv1_whatever_form_was_read() -> None:
    """A manifest read under its CIDv0 is advertised as ipfs://<CIDv1>."""
    mech = Mech(ref=REF, name="m", cid="QmRJPf71V8jixcZqDRvnN6NAUwq6J5Epo5uwQuzCTL99Vr")
    services = exporters.to_registration(mech)["services"]
    assert services[-1]["endpoint"].startswith("ipfs://bafy")


def test_unknown_ref_invents_nothing() -> None:
    """A mech known only by its manifest: no chain tag, no 'Mech 0'; registrations need a chain."""
    mech = Mech(ref=exporters.UNKNOWN_REF)
    card = exporters.to_agent_card(mech, "https://agent.example.org")
    assert card["name"] == "Olas mech" and "0x" not in card["description"]
    with pytest.raises(exporters.RegistrationError, match="chain"):
        exporters.to_registration(mech, agent_id=1, identity_registry="0x" + "11" * 20)


def test_a2a_card_loads_into_the_sdk_proto() -> None:
    """The A2A 1.0 card parses into a2a-sdk's AgentCard with every skill tagged."""
    from a2a.types import AgentCard  # pylint: disable=import-outside-toplevel
    from google.protobuf.json_format import (  # pylint: disable=import-outside-toplevel
        ParseDict,
    )

    tools, _ = _tools(ROOTS_MANIFEST)
    card = exporters.to_agent_card(
        Mech(ref=REF, tools=tools, name="m"), "https://a.example"
    )
    parsed = ParseDict(card, AgentCard())
    assert len(parsed.skills) == len(tools) and all(s.tags for s in parsed.skills)


# --- property test: generated valid manifests ------------------------------------------------
_KEY = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,127}", fullmatch=True)
_LEAF = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "minimum": 0},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "array"},
        {"enum": ["a", "b", 3]},
        {"const": "x"},
        {"type": ["string", "null"]},
        {"type": "string", "format": "uri"},
        {},
        {"$ref": "#/$defs/Leaf"},
        {"$ref": "#/$defs/Node"},
        {"$ref": "#/$defs/Missing"},
    ]
)


def _grow(children: Any) -> Any:
    return st.one_of(
        st.builds(
            lambda props, nullable: {
                "type": ["object", "null"] if nullable else "object",
                "properties": props,
                "required": list(props)[:1],
            },
            st.dictionaries(_KEY, children, max_size=3),
            st.booleans(),
        ),
        st.builds(lambda item: {"type": "array", "items": item}, children),
        st.builds(
            lambda arms: {"anyOf": arms}, st.lists(children, min_size=1, max_size=3)
        ),
        st.builds(
            lambda arms: {"oneOf": arms}, st.lists(children, min_size=1, max_size=2)
        ),
        st.builds(lambda a, b: {"allOf": [a, b]}, children, children),
        st.builds(
            lambda props: {"properties": props},
            st.dictionaries(_KEY, children, max_size=2),
        ),
    )


_SCHEMA = st.recursive(_LEAF, _grow, max_leaves=8)
_TOOL_NAME = st.one_of(
    st.text(min_size=1, max_size=90).filter(
        lambda s: s.strip() and not re.search(r"[\x00-\x1f\x7f]", s)
    ),
    st.sampled_from(["evil!", "evil_", "a.b", "a b", "ok-tool"]),
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    st.dictionaries(
        _TOOL_NAME,
        st.tuples(
            st.dictionaries(_KEY, _SCHEMA, min_size=1, max_size=4),
            st.sampled_from([None, "anyOf", "oneOf"]),
            st.sampled_from(
                [
                    None,
                    "http://json-schema.org/draft-07/schema#",
                    "https://json-schema.org/draft/2020-12/schema",
                ]
            ),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_generated_manifests_export_conformantly(spec: Dict[str, Any]) -> None:
    """Refs, recursion, unions, nullable objects, long and odd names: every checker passes."""
    metadata = {}
    for name, (properties, root_rule, dialect) in spec.items():
        schema: Dict[str, Any] = {
            "type": "object",
            "$defs": {
                "Leaf": {"type": "string"},
                "Node": {
                    "type": "object",
                    "properties": {
                        "next": {"$ref": "#/$defs/Node"},
                        "v": {"type": "integer"},
                    },
                },
            },
            "properties": properties,
        }
        if dialect:
            schema["$schema"] = dialect
            if "draft-07" in dialect:
                schema["definitions"] = schema.pop("$defs")
                text = json.dumps(schema).replace("#/$defs/", "#/definitions/")
                schema = json.loads(text)
        if root_rule:
            keys = list(properties)
            schema[root_rule] = [{"required": [k]} for k in keys[:2]]
        metadata[name] = _schema_tool(name, schema)
    parsed = parse_manifest(_manifest(metadata))
    if parsed.manifest is None or not parsed.manifest.tools:
        return
    mech = Mech.from_manifest(REF, parsed.manifest, cid=CID)
    assert all_export_problems(mech.tools) == []


def test_docs_name_the_revisions_written() -> None:
    """The CLI and skill-contract docs name the MCP revision and the SDK that checks it."""
    # pylint: disable-next=import-outside-toplevel
    from importlib.metadata import version
    from pathlib import Path  # pylint: disable=import-outside-toplevel

    root = Path(__file__).resolve().parents[5]
    for doc in ("cli.md", "skill-contract.md"):
        text = (root / "docs" / doc).read_text()
        assert f"MCP revision **{MCP_PROTOCOL_VERSION}**" in text or (
            f"MCP {MCP_PROTOCOL_VERSION}" in text
        ), doc
        assert (
            f"`mcp` {version('mcp')}" in text or f"`mcp` SDK ({version('mcp')}" in text
        ), doc
        assert "A2A protocol 1.0" in text and "2025-11-25)" not in text, doc


def test_output_schema_refs_and_draft04_bounds_are_made_self_contained() -> None:
    """output.schema refs are resolved at parse (dangling: the schema dropped); draft-04 bounds translated."""
    output_schema = {
        "type": "object",
        "definitions": {"Score": {"type": "number"}},
        "properties": {"score": {"$ref": "#/definitions/Score"}},
    }
    dangling: Dict[str, Any] = copy.deepcopy(output_schema)
    dangling["properties"] = {
        **output_schema["properties"],  # type: ignore[dict-item]
        "lost": {"$ref": "#/definitions/Lost"},
    }
    draft04 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {
            "p": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
        },
    }
    metadata = _schema_tool("scored", draft04)
    metadata["output"] = {"type": "object", "description": "r", "schema": output_schema}
    broken = _schema_tool("lost", draft04)
    broken["output"] = {"type": "object", "description": "r", "schema": dangling}
    tools, problems = _tools(_manifest({"scored": metadata, "lost": broken}))
    dropped = [p for p in problems if p.code == P.INVALID_OUTPUT_SCHEMA]
    assert [(p.path, p.is_error) for p in dropped] == [
        ("/toolMetadata/lost/output/schema", True)
    ]
    assert "/output/schema/properties/lost" in dropped[0].message
    item = exporters.to_mcp_tool(tools[0])
    assert item["outputSchema"]["properties"]["score"] == {"type": "number"}
    assert item["inputSchema"]["properties"]["p"] == {
        "type": "number",
        "exclusiveMinimum": 0,
    }
    assert not conformance.mcp_tool_problems(item)
    assert "outputSchema" not in exporters.to_mcp_tool(tools[1])


def test_chains_of_deep_references_stay_bounded() -> None:
    """120 definitions, each 25 levels deep and pointing at the next: exports stay conformant."""

    def deep(levels: int, leaf: Dict[str, Any]) -> Dict[str, Any]:
        node = leaf
        for _ in range(levels):
            node = {"type": "object", "properties": {"x": node}}
        return node

    defs = {f"d{i}": deep(25, {"$ref": f"#/$defs/d{i + 1}"}) for i in range(120)}
    defs["d120"] = {"type": "string"}
    schema = {
        "type": "object",
        "$defs": defs,
        "properties": {"start": {"$ref": "#/$defs/d0"}},
    }
    tools, _ = _tools(_manifest({"deep": _schema_tool("deep", schema)}))
    assert not all_export_problems(tools)
    text = json.dumps(exporters.to_mcp_tool(tools[0]))
    assert len(text) < 2_000_000


def test_mcp_tool_too_deep_to_walk_is_served_as_free_text() -> None:
    """A stored schema nested past Python's recursion limit never makes the exporter raise."""
    depth = 1000
    text = '{"properties":{"a":' * depth + "{}" + "}}" * depth
    tool = Tool(name="abyss", arguments=(Argument("a", "any", text),))
    frames = 0
    frame: Optional[FrameType] = sys._getframe()  # pylint: disable=protected-access
    while frame is not None:
        frames, frame = frames + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(frames + 400)  # whatever other tests set: below the depth
    try:
        item = exporters.to_mcp_tool(tool)
    finally:
        sys.setrecursionlimit(limit)
    assert list(item["inputSchema"]["properties"]) == ["prompt"]
    assert item["_meta"][META_KEY]["problems"]
    assert not conformance.mcp_tool_problems(item)
