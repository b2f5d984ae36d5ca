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

"""JSON Schema's equality in ``enum``, ``const`` and ``uniqueItems`` (adv29zu2 P2)."""

import time
from typing import Any, Dict, List

import pytest
from mech_catalogue_core.manifest.json_equality import (
    JsonEqualityValidator,
    first_repeated,
    json_equal,
)
from referencing import Registry

#: pairs equal as JSON Schema says (same type, numbers by value)
EQUAL = [
    (1, 1.0),
    ([1], [1.0]),
    ({"a": [0.5, {"b": 2}]}, {"a": [0.5, {"b": 2.0}]}),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
    (None, None),
    ("x", "x"),
    (False, False),
]
#: pairs Python's ``==`` calls equal and JSON Schema does not
UNEQUAL = [
    (1, True),
    (0, False),
    (1.0, True),
    ([1], [True]),
    ([[0]], [[False]]),
    ({"a": 1}, {"a": True}),
    ({"a": [1, 0]}, {"a": [True, False]}),
    ([1, 2], [2, 1]),
    ([1], (1, 2)),
    ("1", 1),
    (None, False),
    ({}, []),
]


def _valid(schema: Dict[str, Any], instance: Any) -> bool:
    return JsonEqualityValidator(schema, registry=Registry()).is_valid(instance)


@pytest.mark.parametrize("left, right", EQUAL)
def test_equal_values(left: Any, right: Any) -> None:
    """Equal both ways; ``enum``, ``const`` accept, ``uniqueItems`` refuses the pair."""
    assert json_equal(left, right) and json_equal(right, left)
    assert _valid({"enum": [left]}, right)
    assert _valid({"const": left}, right)
    assert not _valid({"uniqueItems": True}, [left, right])


@pytest.mark.parametrize("left, right", UNEQUAL)
def test_unequal_values(left: Any, right: Any) -> None:
    """Unequal both ways; ``enum`` and ``const`` refuse, ``uniqueItems`` accepts."""
    assert not json_equal(left, right) and not json_equal(right, left)
    assert not _valid({"enum": [left]}, right)
    assert not _valid({"const": left}, right)
    assert _valid({"uniqueItems": True}, [left, right])


@pytest.mark.parametrize(
    "items, repeated",
    [
        ([[1], [True], [1]], 2),  # jsonschema's sort puts [True] between the two [1]
        ([["06:10", 1], ["06:10", True], ["06:10", 1]], 2),
        ([[0], [False], [0.0]], 2),
        ([{"a": [1]}, {"a": [True]}, {"a": [1.0]}], 2),
        ([1, True, 1.0], 2),
        ([[1], [True], [2]], -1),
        ([], -1),
    ],
)
def test_unique_items_compares_every_pair(items: List[Any], repeated: int) -> None:
    """The first item equal to an earlier one, wherever they stand after a sort."""
    assert first_repeated(items) == repeated
    assert _valid({"uniqueItems": True}, items) is (repeated < 0)
    assert _valid({"uniqueItems": False}, items)


def test_unique_items_inside_a_schema_is_read_there() -> None:
    """Nested under ``properties`` and ``items``: the same comparison."""
    rows = {"type": "array", "items": {"type": ["number", "boolean", "null"]}}
    levels = {"type": "array", "uniqueItems": True, "items": rows}
    schema = {"type": "object", "properties": {"levels": levels}}
    assert not _valid(schema, {"levels": [[1], [True], [1.0]]})
    assert _valid(schema, {"levels": [[1], [True], [None]]})
    assert not _valid(schema, {"levels": "no list"})


def test_unique_items_of_a_large_array_is_linear() -> None:
    """200,000 distinct nested items, then a repeat: within 5 s (2e10 pairs)."""
    items: List[Any] = [[index, index % 2 == 0] for index in range(200_000)]
    started = time.monotonic()
    assert _valid({"uniqueItems": True}, items)
    assert not _valid({"uniqueItems": True}, items + [[7, False]])
    assert time.monotonic() - started < 5
