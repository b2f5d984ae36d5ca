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
from referencing import Registry

from mech_catalogue_core.manifest.json_equality import (
    JsonEqualityValidator,
    first_repeated,
    json_equal,
)

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


@pytest.mark.parametrize("one, two", EQUAL)
def test_equal_values(one: Any, two: Any) -> None:
    """Equal both ways; ``enum``, ``const`` accept, ``uniqueItems`` refuses the pair."""
    assert json_equal(one, two) and json_equal(two, one)
    assert _valid({"enum": [one]}, two)
    assert _valid({"const": one}, two)
    assert not _valid({"uniqueItems": True}, [one, two])


@pytest.mark.parametrize("one, two", UNEQUAL)
def test_unequal_values(one: Any, two: Any) -> None:
    """Unequal both ways; ``enum`` and ``const`` refuse, ``uniqueItems`` accepts."""
    assert not json_equal(one, two) and not json_equal(two, one)
    assert not _valid({"enum": [one]}, two)
    assert not _valid({"const": one}, two)
    assert _valid({"uniqueItems": True}, [one, two])


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
    schema = {
        "type": "object",
        "properties": {
            "tides": {
                "type": "array",
                "uniqueItems": True,
                "items": {"type": "array", "items": {"type": ["integer", "boolean"]}},
            }
        },
    }
    assert not _valid(schema, {"tides": [[1], [True], [1]]})
    assert _valid(schema, {"tides": [[1], [True]]})
    assert not _valid(schema, {"tides": "no list"})


def test_unique_items_of_a_large_array_is_linear() -> None:
    """200,000 distinct nested items and one repeat at the end: checked within 5 s (pairwise, 2e10 comparisons)."""
    items: List[Any] = [[index, index % 2 == 0] for index in range(200_000)]
    started = time.monotonic()
    assert _valid({"uniqueItems": True}, items)
    assert not _valid({"uniqueItems": True}, items + [[7, False]])
    assert time.monotonic() - started < 5
