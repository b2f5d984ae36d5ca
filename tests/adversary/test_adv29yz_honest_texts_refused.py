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
"""Honest technical texts refused as asking for a secret (adv29z K5).

Severity: LOW (no stranger gains: an honest mech's tool is not served by the MCP
server and its manifest cannot be published, so its users lose it).

Observed on main (fix29ya's short-word rules): a verb or ``your`` before ``pin``,
``OTP`` or ``2FA`` asks unless the words around that very word name one of the listed
ordinary things, four link words at most. Ordinary hardware, postal and database texts
that name their thing otherwise are refused (``secret_asked`` returns e.g. "type the
pin"): a pin spelled ``D4`` or ``GPIO17``, ``BCM`` numbering in parentheses, a servo, a
pin mapping or count, a pin set high, OTP memory's address or region, whether 2FA is
on, a post office's PIN code; and an argument named ``pks`` holding primary keys.

Expected: each is served (``secret_asked`` / ``secret_name_asked`` is None). A fix
should not weaken the refusals of ``test_adv29yz_case_split_words.py`` and
``test_adv29yz_short_word_boundaries.py``: the lead may judge some of these an
acceptable cost (a mech can reword), but they are listed so the cost is known.
"""

import pytest
from mech_catalogue_core.model.untrusted_text import secret_arguments, secret_asked

HONEST = [
    "Your pin number on the Raspberry Pi header (BCM)",
    "Enter the pin number (BCM) of the LED",
    "Type the pin to read, e.g. D4",
    "Enter the pin (GPIO17 by default)",
    "Enter the pin the servo is connected to",
    "Send the pin numbers as a list",
    "Provide the pin mapping for your board",
    "Enter the pin count of the IC package",
    "Input the pin to set high",
    "Enter the OTP memory address to read",
    "Your OTP region size in bytes",
    "Whether your 2FA is on",
    "Enter the 4 digit PIN code of the post office",
]


@pytest.mark.parametrize("text", HONEST)
def test_an_honest_technical_description_is_served(text: str) -> None:
    """No reader takes these for a request for a secret."""
    assert secret_asked(text) is None


def test_an_argument_named_pks_holding_primary_keys_is_served() -> None:
    """``pks``, described as rows' primary keys, is a list of ids."""
    schema = {
        "properties": {
            "pks": {
                "type": "array",
                "items": {"type": "integer"},
                "description": "Primary keys of the rows to delete",
            }
        }
    }
    assert not secret_arguments(schema)
