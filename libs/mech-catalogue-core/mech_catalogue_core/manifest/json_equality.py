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

"""JSON Schema's equality of instances, and a validator that compares with it (adv29zu2 P2).

JSON Schema (2020-12 core, 4.2.2) calls two instances equal when they are the same
type and value: a boolean is never a number (``1`` is not ``true``), numbers are equal
by mathematical value (``1`` is ``1.0``), arrays item by item, objects by the same
names with equal values. ``enum``, ``const`` and ``uniqueItems`` compare so.

``jsonschema`` 4.26's ``uniqueItems`` sorts the items with Python's ordering, where
``[1] == [True]``, and compares only neighbours: ``[[1], [true], [1]]`` passes, while
Ajv (both majors of the TypeScript MCP SDK) compares every pair and refuses it. A
structured answer the server accepted and a client refuses is a paid answer lost, so
the server checks with :data:`JsonEqualityValidator`: each item's :func:`json_key`, a
hashable value equal exactly when the instances are equal as JSON Schema says, read
once (linear in the items, whatever a stranger's array holds).
"""

from typing import Any, Hashable, Iterator, List

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from jsonschema.validators import extend


def json_key(value: Any) -> Hashable:
    """A hashable value equal to another's exactly when the JSON values are equal.

    :param value: a JSON value (``dict`` with string keys, ``list``/``tuple``, ``str``,
        ``int``, ``float``, ``bool``, None).
    :return: a tuple tagged by JSON type: ``("boolean", True)``, ``("number", 1)``
        (``1`` and ``1.0`` give equal keys, ``True`` another), ``("array", (...))``,
        ``("object", frozenset(...))``. A value of no JSON type is keyed by its type
        and its own equality. A value nested deeper than Python's recursion limit
        raises as the validator's other keywords do (its callers bound nesting first).
    """
    key: Hashable
    if isinstance(value, bool):
        key = ("boolean", value)
    elif isinstance(value, (int, float)):
        key = ("number", value)
    elif isinstance(value, str):
        key = ("string", value)
    elif value is None:
        key = ("null",)
    elif isinstance(value, (list, tuple)):
        key = ("array", tuple(json_key(item) for item in value))
    elif isinstance(value, dict):
        key = ("object", frozenset((name, json_key(v)) for name, v in value.items()))
    else:
        key = (type(value).__name__, value)
    return key


def json_equal(one: Any, two: Any) -> bool:
    """Whether two JSON values are equal as JSON Schema compares them.

    :param one: a JSON value.
    :param two: another.
    :return: True for ``1`` and ``1.0``, ``[1]`` and ``[1.0]``; False for ``1`` and
        ``true``, ``[1]`` and ``[true]``, ``{"a": 0}`` and ``{"a": false}``.
    """
    return json_key(one) == json_key(two)


def first_repeated(items: List[Any]) -> int:
    """The index of the first item equal (:func:`json_equal`) to an earlier one.

    :param items: a JSON array.
    :return: that index, or -1 when every item differs from every other.
    """
    seen = set()
    for index, item in enumerate(items):
        key = json_key(item)
        if key in seen:
            return index
        seen.add(key)
    return -1


def _unique_items(
    validator: Any, unique: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """``uniqueItems`` comparing every pair (as Ajv does), not sorted neighbours."""
    del schema  # the keyword's signature
    if unique and validator.is_type(instance, "array"):
        if first_repeated(instance) >= 0:
            yield ValidationError(f"{instance!r} has non-unique elements")


def _enum(
    validator: Any, enums: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """``enum`` by :func:`json_equal`."""
    del validator, schema
    key = json_key(instance)
    if all(json_key(each) != key for each in enums):
        yield ValidationError(f"{instance!r} is not one of {enums!r}")


def _const(
    validator: Any, const: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """``const`` by :func:`json_equal`."""
    del validator, schema
    if not json_equal(instance, const):
        yield ValidationError(f"{const!r} was expected")


#: Draft 2020-12's validator with ``enum``, ``const`` and ``uniqueItems`` compared by
#: :func:`json_equal` (``uniqueItems`` over every pair, as Ajv compares); construct it
#: as ``Draft202012Validator`` (``registry=referencing.Registry()`` so that no remote
#: ``$ref`` is fetched)
JsonEqualityValidator = extend(
    Draft202012Validator,
    {"uniqueItems": _unique_items, "enum": _enum, "const": _const},
)
