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

"""One mathematical value is one call and one payload value, also past 2**53 (issue 29).

A JSON reader gives ``1e23`` as a double; ``int()`` of it is the double's binary value
(99999999999999991611392), not the number the client wrote. ``normalised_arguments``
takes the double's shortest decimal spelling exactly, so the mech is sent what the
client meant and both spellings of a number key one call (paid once).
"""

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mech_catalogue_cli.mcp_server.call_identity import (
    call_key,
    normalised_arguments,
    payload_nonce,
    request_payload,
)

REQUESTER = "0x" + "33" * 20

#: JSON spellings of large integral numbers, with the integer each one means
LARGE = [
    ("1e16", 10**16),
    ("1e23", 10**23),
    ("9007199254740993.0", 2**53),  # 2**53 + 1 has no double: the reader gives 2**53
    ("-1e300", -(10**300)),
    ("1.5e300", 15 * 10**299),
    ("1.7976931348623157e308", 17976931348623157 * 10**292),
    ("123456789012345678901234567890.0", 123456789012345680000000000000),
    ("-0.0", 0),
]


@pytest.mark.parametrize("text,meant", LARGE)
def test_a_large_integral_float_is_sent_as_the_number_written(
    text: str, meant: int
) -> None:
    """The payload holds the integer the spelling means, exactly, also as JSON text.

    :param text: the number as the client's JSON spells it.
    :param meant: the integer it means.
    """
    arguments = normalised_arguments(json.loads('{"amount": %s}' % text))
    payload = request_payload("swap", arguments, payload_nonce("k"))
    assert payload["amount"] == meant and isinstance(payload["amount"], int)
    assert f'"amount": {meant}' in json.dumps(payload)
    assert json.loads(payload["prompt"])["amount"] == meant


@pytest.mark.parametrize("text,meant", LARGE)
def test_both_spellings_of_a_large_number_are_one_call(text: str, meant: int) -> None:
    """The float spelling and the integer spelling give one call key.

    :param text: the number as a float spelling.
    :param meant: the same number as an integer.
    """
    as_float = json.loads('{"amount": %s}' % text)
    as_int = json.loads('{"amount": %d}' % meant)
    assert call_key("swap", as_float, REQUESTER) == call_key("swap", as_int, REQUESTER)


def test_neighbouring_large_doubles_stay_two_calls() -> None:
    """Two doubles one step apart past 2**53 are two numbers: two keys, two payloads."""
    low = 1e23
    next_up = low + 2**24  # the next double after 1e23 (the spacing there is 2**24)
    assert next_up != low
    assert call_key("t", {"n": low}, REQUESTER) != call_key(
        "t", {"n": next_up}, REQUESTER
    )
    assert normalised_arguments(next_up) != normalised_arguments(low)


@pytest.mark.parametrize("value", [1.5, -2.25, 1e-300, 5e-324, 0.1])
def test_fractions_stay_floats(value: float) -> None:
    """A non-integral number is sent as the same double.

    :param value: a number with a fraction.
    """
    assert normalised_arguments(value) == value
    assert isinstance(normalised_arguments(value), float)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_integral_double_becomes_its_shortest_decimal_exactly(
    value: float,
) -> None:
    """Any integral double: the integer of its shortest spelling, which reads back as it.

    :param value: any finite double.
    """
    normal: Any = normalised_arguments(value)
    if not value.is_integer():
        assert normal == value
        return
    assert isinstance(normal, int) and Decimal(normal) == Decimal(repr(value))
    assert float(normal) == value  # the number sent reads back as the client's double
    assert call_key("t", {"n": value}, REQUESTER) == call_key(
        "t", {"n": normal}, REQUESTER
    )
