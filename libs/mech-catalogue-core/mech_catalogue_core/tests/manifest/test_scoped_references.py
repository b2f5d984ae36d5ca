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

"""A rewritten schema means the same wherever it is nested (adv29zz E1).

``schema_refs`` rewrites a schema so that it resolves inside itself; a consumer then
nests it (an argument in an ``inputSchema``, an output schema in the MCP server's
envelope). Before: ``$dynamicRef``/``$recursiveRef`` were left as written (their target
is the dynamic scope's: the envelope's, once nested), unknown ``$`` keywords too, and
a 2019-09 schema's array ``items`` stayed in a 2020-12 result (no valid schema). Now a
scoped reference is a reference that does not resolve (a whole output schema is
dropped, an argument's schema taken as any value, with a warning), every ``$`` keyword
but ``$ref`` into the root's ``$defs`` is dropped, and 2019-09 array items are
translated as draft-07's are.
"""

import json
from typing import Any, Dict, List

import pytest
from jsonschema import Draft202012Validator
from mech_catalogue_core.manifest.schema_refs import (
    SCOPED_REFERENCES,
    self_contained,
    whole_schema,
)

DRAFT_2019 = "https://json-schema.org/draft/2019-09/schema"

#: schemas each holding a reference resolved against the dynamic scope
SCOPED: List[Dict[str, Any]] = [
    {"type": "object", "properties": {"a": {"$dynamicRef": "#/properties/b"}}},
    {"type": "object", "properties": {"a": {"items": {"$dynamicRef": "#"}}}},
    {
        "$dynamicAnchor": "n",
        "type": "object",
        "properties": {"a": {"$dynamicRef": "#n"}},
    },
    {
        "$schema": DRAFT_2019,
        "$recursiveAnchor": True,
        "type": "object",
        "properties": {"a": {"$recursiveRef": "#"}},
    },
    {"type": "object", "properties": {"a": {"$dynamicRef": 7}}},  # no URI at all
]


def _dollar_keywords(schema: Any) -> List[str]:
    """Every ``$`` key in schema positions and elsewhere of a JSON value."""
    found: List[str] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.extend(k for k in node if str(k).startswith("$"))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


@pytest.mark.parametrize("schema", SCOPED)
def test_a_whole_schema_with_a_scoped_reference_is_dropped(schema: Any) -> None:
    """An output schema: dropped with one error naming the keyword."""
    bundled, problems = whole_schema(schema, "/tools/0/output/schema")
    assert bundled is None
    (problem,) = problems
    assert problem.path == "/tools/0/output/schema"
    assert any(key in problem.message for key in SCOPED_REFERENCES)
    assert "depends on where the schema is nested" in problem.message


@pytest.mark.parametrize("schema", SCOPED)
def test_an_argument_with_a_scoped_reference_is_any_value(schema: Any) -> None:
    """An argument's schema: the reference becomes ``{}``, with a warning."""
    bundled, problems = self_contained(schema, ("properties", "a"), "/in")
    assert not _dollar_keywords(bundled), bundled
    assert problems and "depends on where the schema is nested" in problems[0].message
    assert problems[0].path.startswith("/in/properties/a")


def test_unknown_and_base_keywords_are_dropped_and_references_bundled() -> None:
    """Only ``$ref`` (to ``#/$defs/<name>``) and the root's ``$defs`` remain."""
    schema = {
        "$id": "https://mech.example/out",
        "$comment": "from the mech",
        "$vocabulary": {"https://json-schema.org/draft/2020-12/vocab/core": True},
        "type": "object",
        "properties": {
            "$dynamicRef": {"type": "string"},  # a property's name, not a keyword
            "a": {"$include": "#/properties/b", "$anchor": "x", "type": "string"},
            "tree": {"$ref": "#/$defs/node"},
        },
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"kids": {"items": {"$ref": "#/$defs/node"}}},
            }
        },
    }
    bundled, problems = whole_schema(schema, "/o")
    assert not problems and bundled is not None
    assert sorted(set(_dollar_keywords(bundled))) == ["$defs", "$dynamicRef", "$ref"]
    assert bundled["properties"]["$dynamicRef"] == {"type": "string"}
    assert bundled["properties"]["a"] == {"type": "string"}
    refs = json.dumps(bundled).split('"$ref": ')[1:]
    assert all(r.startswith('"#/$defs/') for r in refs)
    Draft202012Validator.check_schema(bundled)


def test_a_2019_schema_s_array_items_become_prefix_items() -> None:
    """Valid 2019-09 in, valid 2020-12 out: ``items`` list -> ``prefixItems``."""
    schema = {
        "$schema": DRAFT_2019,
        "type": "object",
        "properties": {
            "pair": {
                "type": "array",
                "items": [{"type": "string"}, {"type": "number"}],
                "additionalItems": False,
            },
            "list": {"type": "array", "items": {"type": "string"}},
        },
    }
    bundled, problems = whole_schema(schema, "/o")
    assert not problems and bundled is not None
    pair = bundled["properties"]["pair"]
    assert pair["prefixItems"] == [{"type": "string"}, {"type": "number"}]
    assert pair["items"] is False
    assert bundled["properties"]["list"]["items"] == {"type": "string"}
    Draft202012Validator.check_schema(bundled)
    validator = Draft202012Validator(bundled)
    assert validator.is_valid({"pair": ["a", 1]})
    assert not validator.is_valid({"pair": ["a", 1, "extra"]})


@pytest.mark.parametrize(
    "schema",
    [
        {
            "properties": {"a": {"$ref": "#/$defs/s"}},
            "$defs": {"s": {"type": "string"}},
        },
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": {"a": {"$ref": "#/definitions/s"}},
            "definitions": {"s": {"type": "string"}},
        },
    ],
)
def test_honest_references_are_kept_meaning_the_same(schema: Dict[str, Any]) -> None:
    """References into ``$defs``/``definitions`` are inlined, no warning."""
    bundled, problems = whole_schema(dict(schema, type="object"), "/o")
    assert not problems and bundled is not None
    assert bundled["properties"]["a"] == {"type": "string"}
