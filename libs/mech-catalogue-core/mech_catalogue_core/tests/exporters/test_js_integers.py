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

"""Integers JavaScript cannot hold are given as strings, and the schemas say so (issue #34 item 11).

Checked with a real JavaScript engine (:mod:`..js_engine`, Node): what we write must
come out of ``JSON.parse`` with the same digits.
"""

from typing import Any, Dict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from mech_catalogue_core.exporters.js_integers import (
    DECIMAL_PATTERN,
    INTEGER_TEXT_NOTE,
    integers_as_text,
    is_unsafe_integer,
    schema_with_integer_text,
)
from mech_catalogue_core.model.canonical import MAX_SAFE_INTEGER
from mech_catalogue_core.tests.js_engine import (
    survives_javascript,
)

#: a marketplace request id as mech-server delivers it: keccak bytes read as a uint256
REQUEST_ID = int("9f" * 32, 16)
#: 3 xDAI in wei: a price beyond 2**53
WEI = 3 * 10**18

NESTED = {
    "requestId": REQUEST_ID,
    "result": {"fees": [WEI, 1, -(2**63)], "ok": True, "p": 0.5},
    "edge": [MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, MAX_SAFE_INTEGER + 1],
}


def test_javascript_loses_the_digits_of_what_we_used_to_write() -> None:
    """The engine is real: a 77-digit integer and 2**53 + 1 do not survive JSON.parse."""
    assert not survives_javascript({"requestId": REQUEST_ID})
    assert not survives_javascript(MAX_SAFE_INTEGER + 2)
    assert survives_javascript(MAX_SAFE_INTEGER)


def test_unsafe_integers_become_strings_and_survive() -> None:
    """Beyond +-(2**53-1): decimal strings; within it, and floats, booleans: kept."""
    written = integers_as_text(NESTED)
    assert written == {
        "requestId": str(REQUEST_ID),
        "result": {"fees": [str(WEI), 1, str(-(2**63))], "ok": True, "p": 0.5},
        "edge": [MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, str(MAX_SAFE_INTEGER + 1)],
    }
    assert survives_javascript(written)
    assert [int(v) for v in written["result"]["fees"][::2]] == [WEI, -(2**63)]
    assert not is_unsafe_integer(True) and not is_unsafe_integer(1e300)


SCHEMA: Dict[str, Any] = {
    "type": "object",
    "properties": {
        "requestId": {"type": "integer", "description": "Unique identifier"},
        "result": {
            "anyOf": [
                {"type": "object", "additionalProperties": {"$ref": "#/$defs/amount"}},
                {"type": "null"},
            ]
        },
        "edge": {"type": "array", "items": {"type": ["number", "null"]}},
        "kind": {"enum": [REQUEST_ID, "x"]},
    },
    "required": ["requestId"],
    "$defs": {"amount": {"type": "integer", "minimum": 0, "description": "wei"}},
}


def test_the_served_schema_says_strings_with_a_pattern_and_why() -> None:
    """Every integer/number subschema also takes a decimal string, and says so."""
    served = schema_with_integer_text(SCHEMA)
    request_id = served["properties"]["requestId"]
    assert request_id["type"] == ["integer", "string"]
    assert request_id["pattern"] == DECIMAL_PATTERN
    assert request_id["description"] == f"Unique identifier. {INTEGER_TEXT_NOTE}"
    assert served["$defs"]["amount"]["type"] == ["integer", "string"]
    assert served["properties"]["edge"]["items"]["type"] == ["number", "null", "string"]
    assert served["properties"]["kind"]["enum"] == [str(REQUEST_ID), "x"]
    assert served["properties"]["result"]["anyOf"][1] == {"type": "null"}
    assert schema_with_integer_text(served) == served  # applied twice: the same
    assert SCHEMA["properties"]["requestId"] == {  # the input is not modified
        "type": "integer",
        "description": "Unique identifier",
    }


def test_what_the_schema_took_the_served_schema_takes_as_written() -> None:
    """A value valid under the mech's schema is valid, rewritten, under the served one."""
    document = {
        "requestId": REQUEST_ID,
        "result": {"fee": WEI, "tip": 3},
        "edge": [None, 2.5, -(2**80)],
        "kind": REQUEST_ID,
    }
    Draft202012Validator(SCHEMA).validate(document)
    served = Draft202012Validator(schema_with_integer_text(SCHEMA))
    served.validate(integers_as_text(document))
    with pytest.raises(Exception):  # the pattern holds: not any string
        served.validate({**integers_as_text(document), "requestId": "0x9f"})


def test_a_string_type_keeps_its_own_pattern() -> None:
    """A subschema that already took strings keeps its constraints (they apply to ours)."""
    schema = {"type": ["string", "integer"], "pattern": "^[0-9]{1,3}$"}
    served = schema_with_integer_text(schema)
    assert served["type"] == ["string", "integer"]
    assert served["pattern"] == "^[0-9]{1,3}$"


@settings(max_examples=4, deadline=None)
@given(
    values=st.lists(
        st.recursive(
            st.none()
            | st.booleans()
            | st.integers(-(2**256), 2**256)
            | st.floats(allow_nan=False, allow_infinity=False)
            | st.text(max_size=5),
            lambda inner: st.lists(inner, max_size=4)
            | st.dictionaries(st.text(max_size=4), inner, max_size=4),
            max_leaves=12,
        ),
        min_size=20,
        max_size=40,
    )
)
def test_any_value_written_survives_javascript(values: Any) -> None:
    """Generated JSON values (one engine run a batch): what we write is what JS holds."""
    written = integers_as_text(values)
    assert survives_javascript(written)
    # the same leaves as numbers would not have survived, unless a double holds each
    # exactly (2**53, 2**60: unsafe, since their neighbours round to them, but exact)
    rounded = [v for v in values if is_unsafe_integer(v) and int(float(v)) != v]
    if rounded:
        assert not survives_javascript(rounded)
