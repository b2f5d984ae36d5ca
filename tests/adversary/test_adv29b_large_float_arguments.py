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

"""Adversarial review adv29b: an integral float past 2**53 is sent as another number.

``call_identity.normalised_arguments`` turns an integral float into ``int(value)`` so that
``1`` and ``1.0`` are one call. Past 2**53 ``int(value)`` is the double's binary value,
not the number the client wrote: ``1e23`` (valid for ``"type": "integer"``) becomes
``99999999999999991611392`` in the request payload the mech is paid to run, and in the
call key, so ``1e23`` and ``100000000000000000000000`` (one number, JSON Schema's
instance equality) are two calls, paid twice. Amounts in wei are this large.

Expected (stated here; fails on main fb8e46c): the payload carries the value the client
wrote (``1e23`` means 10**23), and the two spellings give one call key.
"""

import json

from mech_catalogue_cli.mcp_server.call_identity import (
    call_key,
    normalised_arguments,
    request_payload,
)

REQUESTER = "0x" + "22" * 20


def test_1e23_is_sent_as_ten_to_the_23rd() -> None:
    """The mech receives 10**23, not the double's 99999999999999991611392."""
    arguments = normalised_arguments(json.loads('{"amount": 1e23}'))
    payload = request_payload("swap", arguments, "nonce")
    assert payload["amount"] == 10**23, f"the mech is sent {payload['amount']}"


def test_two_spellings_of_one_number_are_one_call() -> None:
    """``1e23`` and ``100000000000000000000000`` give the same call key (paid once)."""
    short = json.loads('{"amount": 1e23}')
    long = json.loads('{"amount": 100000000000000000000000}')
    assert call_key("swap", short, REQUESTER) == call_key("swap", long, REQUESTER)
