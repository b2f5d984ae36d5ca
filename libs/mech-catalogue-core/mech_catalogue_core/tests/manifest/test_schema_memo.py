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

"""Memoised rewrites of $ref-free sub-schemas: same schema, problems and budget as a fresh rewrite."""

# pylint: disable=protected-access

import json
from typing import Any, Dict, List, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mech_catalogue_core.manifest import (
    schema_refs,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.manifest.schema_refs import (
    self_contained,
    tool_budget,
)
from mech_catalogue_core.model import problems as P

DRAFT7 = "http://json-schema.org/draft-07/schema#"
KEYS = st.sampled_from(
    [
        "type",
        "description",
        "$comment",
        "$id",
        "id",
        "items",
        "additionalItems",
        "minimum",
        "exclusiveMinimum",
        "definitions",
        "$defs",
        "enum",
        "default",
        "properties",
        "dependencies",
        "anyOf",
        "x-extra",
    ]
)
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=False),
    st.text(max_size=40),
)
JSON = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=5)
    ),
    max_leaves=30,
)


def fresh(
    document: Any, parts: Tuple[str, ...], budget_source: Any
) -> Tuple[Any, List[P.Problem], int]:
    """Rewrite with the memo bypassed, inside a tool budget.

    :param document: the schema document.
    :param parts: pointer to the sub-schema.
    :param budget_source: what the tool budget is sized from.
    :return: (schema, problems, units spent).
    """
    original = schema_refs._ref_free_text
    schema_refs._ref_free_text = lambda *_: None
    try:
        with tool_budget(budget_source) as budget:
            schema, problems = self_contained(document, parts, "/w")
    finally:
        schema_refs._ref_free_text = original
    return schema, problems, budget.spent


def memoised(
    document: Any, parts: Tuple[str, ...], budget_source: Any
) -> Tuple[Any, List[P.Problem], int]:
    """Rewrite through the memo (twice: a miss, then a hit), inside one tool budget each.

    :param document: the schema document.
    :param parts: pointer to the sub-schema.
    :param budget_source: what the tool budget is sized from.
    :return: (schema, problems, units spent) of the second call.
    """
    outcomes = []
    for _ in range(2):
        with tool_budget(budget_source) as budget:
            schema, problems = self_contained(document, parts, "/w")
        outcomes.append((schema, problems, budget.spent))
    assert outcomes[0] == outcomes[1]
    return outcomes[1]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.dictionaries(KEYS, JSON, max_size=6), draft7=st.booleans())
def test_memo_matches_a_fresh_rewrite(body: Dict[str, Any], draft7: bool) -> None:
    """Any $ref-free schema (dropped keys, draft-07 translations, odd values): identical outcome."""
    document = {"type": "object", "properties": {"a": body}}
    if draft7:
        document["$schema"] = DRAFT7
    schema_refs._ref_free_rewrite.cache_clear()
    assert memoised(document, ("properties", "a"), document) == fresh(
        document, ("properties", "a"), document
    )


def test_a_memo_hit_still_spends_the_tools_budget() -> None:
    """A big $ref-free schema charged to a small tool's budget: the same warning, hit or miss."""
    big = {
        "type": "object",
        "properties": {f"p{i}": {"type": "string"} for i in range(400)},
    }
    small_source = {"name": "t"}
    expected = fresh(big, (), small_source)
    assert [p.code for p in expected[1]] == [P.SCHEMA_BUDGET_EXCEEDED]
    assert memoised(big, (), small_source) == expected


def test_budget_is_shared_across_memo_hits() -> None:
    """Within one tool, repeated hits add up and run out exactly where fresh rewrites do."""
    schema = {
        "type": "object",
        "properties": {f"p{i}": {"type": "integer"} for i in range(20)},
    }
    source = {"s": "x"}
    outcomes = {}
    for memo in (True, False):
        original = schema_refs._ref_free_text
        if not memo:
            schema_refs._ref_free_text = lambda *_: None
        try:
            with tool_budget(source):
                codes = [
                    tuple(p.code for p in self_contained(schema, (), "/w")[1])
                    for _ in range(20)
                ]
        finally:
            schema_refs._ref_free_text = original
        outcomes[memo] = codes
    assert outcomes[True] == outcomes[False]
    assert () in outcomes[True] and (P.SCHEMA_BUDGET_EXCEEDED,) in outcomes[True]


def test_a_reference_is_resolved_in_its_own_document() -> None:
    """The same $ref text under two documents resolves to each document's own definition."""
    results = []
    for kind in ("string", "integer"):
        document = {
            "$defs": {"a": {"type": kind}},
            "properties": {"x": {"$ref": "#/$defs/a"}},
        }
        results.append(self_contained(document, ("properties", "x"))[0])
    assert results == [{"type": "string"}, {"type": "integer"}]


def test_each_call_gets_its_own_copy() -> None:
    """Changing one returned schema does not change what the next call returns."""
    document: Dict[str, Any] = {
        "properties": {"x": {"type": "array", "items": {"type": "string"}}}
    }
    first, _ = self_contained(document, ("properties", "x"))
    first["items"]["type"] = "changed"
    second, _ = self_contained(document, ("properties", "x"))
    assert second == {"type": "array", "items": {"type": "string"}}
    assert document["properties"]["x"]["items"]["type"] == "string"


@pytest.mark.parametrize("count", [1, 3])
def test_manifests_sharing_schemas_parse_alike(count: int) -> None:
    """A manifest parsed after others that share its schemas gives the same result as alone."""

    def manifest(index: int) -> bytes:
        meta = {
            f"t{index}": {
                "description": "d",
                "input": {
                    "type": "object",
                    "schema": {
                        "type": "object",
                        "properties": {"q": {"type": "string", "$comment": "c"}},
                        "required": ["q"],
                    },
                },
            }
        }
        return json.dumps({"tools": list(meta), "toolMetadata": meta}).encode()

    schema_refs._ref_free_rewrite.cache_clear()
    alone = repr(parse_manifest(manifest(99)))
    for index in range(count):
        parse_manifest(manifest(index))
    assert repr(parse_manifest(manifest(99))) == alone
