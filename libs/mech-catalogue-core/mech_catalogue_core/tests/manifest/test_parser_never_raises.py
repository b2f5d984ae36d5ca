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

"""The parser never raises, whatever a schema's ``$id``, ``$ref`` or keyword values.

A parser exception quarantines the whole mech (``parser_failed``), its good tools too.
``http://[`` as an ``$id`` or ``$ref`` raised ``ValueError`` from ``urljoin`` inside the
reference resolver; a ``$ref`` into a keyword no meta-schema checks (``"x"``) reached
type inference with a list for ``pattern`` (``TypeError: unhashable``). Such a reference
is now dangling (the argument is ``any``, with a warning), such an ``$id`` changes no
base, and type inference reads only a string ``pattern``.
"""

import json
from typing import Any, Dict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mech_catalogue_core.exporters.anthropic_tool import (
    to_anthropic_tool,
)
from mech_catalogue_core.exporters.mcp_tool import (
    to_mcp_tool,
)
from mech_catalogue_core.exporters.openai_tool import (
    to_openai_tool,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
    parse_manifest_general,
)
from mech_catalogue_core.model import problems as P


def manifest(schema: Any) -> bytes:
    """Two tools: ``bad`` whose arguments come from ``schema``, and a plain ``good`` one.

    :param schema: the bad tool's ``input.schema``.
    :return: the manifest bytes.
    """
    good = {
        "input": {"type": "object", "schema": {"properties": {"q": {"type": "string"}}}}
    }
    bad = {"input": {"type": "object", "schema": schema}}
    metadata = {"bad": bad, "good": good}
    return json.dumps({"tools": list(metadata), "toolMetadata": metadata}).encode()


CASES: Dict[str, Any] = {
    "an $id that is no URI": {
        "properties": {"a": {"$id": "http://[", "type": "string"}}
    },
    "a root $id that is no URI": {
        "$id": "http://[",
        "properties": {"a": {"$ref": "#/$defs/s"}},
        "$defs": {"s": {"type": "string"}},
    },
    "a $ref that is no URI": {"properties": {"a": {"$ref": "http://["}}},
    "a $ref under an $id that is no URI": {
        "properties": {"a": {"$id": "//[", "items": {"$ref": "#/x"}}},
    },
    "a $ref into a keyword no meta-schema checks": {
        "properties": {"a": {"$ref": "#/x"}},
        "x": {"type": "string", "pattern": ["z"]},
    },
    "a pattern that is an object": {
        "properties": {"a": {"$ref": "#/x"}},
        "x": {"type": "string", "pattern": {"z": 1}},
    },
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_bad_reference_or_id_costs_one_argument_not_the_mech(name: str) -> None:
    """Parsed without an exception: both tools kept, ``good`` typed as before.

    :param name: the case.
    """
    data = manifest(CASES[name])
    result = parse_manifest_general(data)
    assert parse_manifest(data) == result
    assert result.manifest is not None
    tools = {t.name: t for t in result.manifest.tools}
    assert set(tools) == {"bad", "good"}
    assert [(a.identifier, a.type) for a in tools["good"].arguments] == [("q", "str")]
    assert all(p.code != P.PARSER_FAILED for p in result.problems)


def test_a_reference_that_is_no_uri_is_dangling() -> None:
    """``$ref: http://[``: the argument is ``any``, with the dangling-reference warning."""
    result = parse_manifest_general(manifest(CASES["a $ref that is no URI"]))
    assert result.manifest is not None
    bad = next(t for t in result.manifest.tools if t.name == "bad")
    assert [(a.identifier, a.type) for a in bad.arguments] == [("a", "any")]
    assert any(
        p.code == P.INVALID_ARGUMENT_SCHEMA and "does not resolve" in p.message
        for p in result.problems
    )


WEIRD_TEXT = st.sampled_from(
    ["http://[", "//[", "#", "#/x", "#/$defs/a", "#/properties/a", "urn:x", "", "a#b",
     "http://a/b#/c/~2", "#/%", "\x00", "[::1]", "#foo", "file:///etc/passwd"]
)  # fmt: skip
KEYS = st.sampled_from(
    ["$id", "$ref", "$anchor", "$schema", "$defs", "definitions", "properties", "items",
     "pattern", "type", "format", "anyOf", "not", "enum", "x", "a", "dependencies",
     "required", "default", "$dynamicRef"]
)  # fmt: skip
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | WEIRD_TEXT,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)


def placed(schema: Any, where: str) -> bytes:
    """A manifest with ``schema`` as the bad tool's input, output or argument schema.

    :param schema: the schema.
    :param where: ``input``, ``output`` or ``argument``.
    :return: the manifest bytes.
    """
    if where == "input":
        return manifest(schema)
    data = json.loads(manifest({"properties": {"b": {"type": "integer"}}}))
    bad = data["toolMetadata"]["bad"]
    if where == "output":
        bad["output"] = {"type": "object", "schema": schema}
    else:
        bad["arguments"] = [{"identifier": "a", "schema": schema}]
    return json.dumps(data).encode()


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(KEYS, VALUES, max_size=5),
    st.sampled_from(["input", "output", "argument"]),
)
def test_generated_schemas_never_make_the_parser_or_exporters_raise(
    schema: Dict[str, Any], where: str
) -> None:
    """Any schema of schema keywords and odd URIs, anywhere: parsed, ``good`` kept, exported.

    :param schema: the bad tool's schema.
    :param where: where it sits.
    """
    data = placed(schema, where)
    result = parse_manifest_general(data)
    assert parse_manifest(data) == result
    assert result.manifest is not None
    assert "good" in {t.name for t in result.manifest.tools}
    for tool in result.manifest.tools:
        to_mcp_tool(tool)
        to_openai_tool(tool)
        to_anthropic_tool(tool)
