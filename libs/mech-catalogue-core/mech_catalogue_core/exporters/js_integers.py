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

"""Integers JavaScript cannot hold, given as decimal strings, and schemas that say so.

A JSON number is a double in JavaScript (ECMA-262 ``JSON.parse``; I-JSON, RFC 7493
section 2.2): integers beyond +-(2**53-1) lose digits there, so a marketplace request id
(a uint256, 77 digits) reaches an MCP client such as the MCP Inspector as ``3.7e+76``.
What we produce for programs therefore gives such integers as decimal strings:

- :func:`integers_as_text` rewrites a JSON value: every integer beyond
  +-:data:`MAX_SAFE_INTEGER` becomes its decimal string; the others, and every other
  value, are kept;
- :func:`schema_with_integer_text` rewrites a JSON Schema to accept what
  :func:`integers_as_text` makes of a value it accepted: every subschema typed
  ``integer`` or ``number`` also accepts a string of :data:`DECIMAL_PATTERN` and says so in
  its description; integers in ``enum`` and ``const`` are rewritten like values. Applied
  twice it changes nothing more.

Subschemas are found with :mod:`..manifest.keywords`, the one table every schema walker
of this library uses.
"""

from typing import Any, Dict

from mech_catalogue_core.manifest.keywords import (
    DEFINITIONS,
    NAMED_SUBSCHEMAS,
    SUBSCHEMA_LIST,
    SUBSCHEMA_ONE,
)
from mech_catalogue_core.model.canonical import MAX_SAFE_INTEGER

#: what a decimal string written by :func:`integers_as_text` matches
DECIMAL_PATTERN = "^-?[0-9]+$"
#: appended to the description of every numeric subschema :func:`schema_with_integer_text`
#: rewrites
INTEGER_TEXT_NOTE = (
    f"Integers beyond +-{MAX_SAFE_INTEGER} (2**53-1) are given as decimal strings: "
    "JavaScript numbers cannot hold them exactly."
)
_NUMERIC = frozenset({"integer", "number"})
_MAPS = NAMED_SUBSCHEMAS + DEFINITIONS


def is_unsafe_integer(value: Any) -> bool:
    """Whether a value is an integer JavaScript cannot hold exactly.

    :param value: any value.
    :return: True for an ``int`` (not a ``bool``) beyond +-(2**53-1).
    """
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and abs(value) > MAX_SAFE_INTEGER
    )


def integers_as_text(value: Any) -> Any:
    """A JSON value with every integer beyond +-(2**53-1) as its decimal string.

    :param value: a decoded JSON value (dicts, lists, str, int, float, bool, None).
    :return: a new value (object keys and every other value kept; the value itself
        when nothing changes).
    """
    if is_unsafe_integer(value):
        return str(value)
    if isinstance(value, list):
        return [integers_as_text(item) for item in value]
    if isinstance(value, dict):
        return {key: integers_as_text(item) for key, item in value.items()}
    return value


def schema_with_integer_text(schema: Any) -> Any:
    """A JSON Schema that accepts what :func:`integers_as_text` makes of its values.

    :param schema: a JSON Schema (2020-12 or draft-07; not modified); anything that is
        not an object (``true``, ``false``) is returned as it is.
    :return: a new schema: each subschema whose ``type`` is or lists ``integer`` or
        ``number`` also lists ``string``, with :data:`DECIMAL_PATTERN` (unless it
        already took strings, whose own pattern then stays) and :data:`INTEGER_TEXT_NOTE`
        in its description; ``enum`` and ``const`` through :func:`integers_as_text`.
    """
    if not isinstance(schema, dict):
        return schema
    out: Dict[str, Any] = {}
    for key, value in schema.items():
        if key in SUBSCHEMA_ONE:
            out[key] = schema_with_integer_text(value)
        elif key in _MAPS and isinstance(value, dict):
            out[key] = {name: schema_with_integer_text(v) for name, v in value.items()}
        elif key in SUBSCHEMA_LIST and isinstance(value, list):
            out[key] = [schema_with_integer_text(item) for item in value]
        elif key in ("enum", "const"):
            out[key] = integers_as_text(value)
        else:
            out[key] = value
    return _numbers_also_as_text(out)


def _numbers_also_as_text(node: Dict[str, Any]) -> Dict[str, Any]:
    kinds = node.get("type")
    listed = [kinds] if isinstance(kinds, str) else kinds
    if not isinstance(listed, list) or not _NUMERIC & {
        kind for kind in listed if isinstance(kind, str)
    }:
        return node
    if "string" not in listed:
        node["type"] = [*listed, "string"]
        node["pattern"] = DECIMAL_PATTERN  # any pattern before applied to no value
    description = node.get("description")
    if not isinstance(description, str) or not description:
        node["description"] = INTEGER_TEXT_NOTE
    elif INTEGER_TEXT_NOTE not in description:
        ends = description.rstrip().endswith((".", "!", "?"))
        node["description"] = (
            f"{description.rstrip()}{' ' if ends else '. '}{INTEGER_TEXT_NOTE}"
        )
    return node
