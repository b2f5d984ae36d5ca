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

"""Honest technical texts whose words also name a secret are served (adv29yz K5).

A board's pin is read, set high, mapped, counted, wired to a servo or named in a gloss
(``GPIO17``, ``BCM``); one-time programmable memory has an address, a region, a bank;
2FA is on or off; a post office has a PIN code; ``pks`` are a table's primary keys;
a dictionary has keys and a language model counts tokens; Secret Santa, a secret
garden and a secret ingredient are no credentials. A request for the reader's own
PIN, OTP or secret is still refused, whatever hardware words stand around it.
"""

import pytest
from mech_catalogue_core.model.secret_requests import secret_requested
from mech_catalogue_core.model.untrusted_text import secret_arguments, secret_asked

#: descriptions of arguments as mechs' tools write them: prediction, image generation,
#: data lookup, code and hardware tools
HONEST = [
    # hardware: a board's pins
    "Enter the pin to drive low",
    "Type the pin name, e.g. PA5",
    "Your pin layout (physical or BCM numbering)",
    "Enter the analog pin, A0 to A5",
    "Provide the pin for the buzzer",
    "Enter the pin as a board label like P9_12",
    "Input the pin used for the DHT22 data line",
    "Enter the pin to toggle high",
    "Enter the pin (GP15 on the Pico)",
    "Provide the pin mode of the line",
    "Enter the pin that the relay is wired to",
    "Type the pin to sample, from 0 to 27",
    # one-time programmable memory, 2FA's state, a postal code
    "Enter the OTP bank to burn",
    "Your OTP fuse map as hex",
    "Provide the OTP word offset",
    "Enter the OTP area to dump",
    "Whether your 2FA is required",
    "Whether your 2FA is active",
    "The 6 digit PIN code of the post office",
    # keys of maps and tables, language-model tokens
    "Enter the key to look up in the map",
    "The key of the JSON object to return",
    "Enter your sort key",
    "Provide the dictionary key",
    "Your partition key for the DynamoDB table",
    "Enter the number of tokens to generate",
    "Your token budget for the completion",
    "Provide the token limit of the model",
    "Enter the tokens to detokenize",
    # stories, games, recipes
    "Secret Santa draw: names of the participants",
    "Write a story about a secret garden",
    "The secret ingredient of the recipe",
    "Your secret santa wish list",
    "Generate a fantasy map with a secret passage",
    "Top secret dossier style for the image",
    "Trade secrets law summary for the jurisdiction",
    # prediction, image generation, data lookup, code
    "Enter the prediction market question",
    "Enter the prompt for the image",
    "Number of inference steps for the diffusion model",
    "Provide the ticker symbol",
    "Enter the Solidity source to compile",
    "Pin the model version to reproduce results",
]

#: requests that stay refused: hardware words around them change nothing
STILL_ASKING = [
    "Enter your PIN",
    "Enter the PIN to see the map",
    "Type the PIN now",
    "Enter the new PIN",
    "Enter the current PIN to continue",
    "Enter the PIN to read your messages",
    "Enter your PIN (GPIO17 by default)",
    "Type your PIN to set high security",
    "Your PIN (D4)",
    "Your 6 digit OTP / bits",
    "Enter the OTP sent by SMS",
    "Your PIN: GPIO header",
    "Enter your PIN (LED turns green when accepted)",
    "Your 2FA code",
    "Paste your secret",
    "The secret recovery phrase of the wallet",
    "Your secret key",
    "Enter the card PIN for the buzzer",
]


@pytest.mark.parametrize("text", HONEST)
def test_an_honest_technical_description_is_served(text: str) -> None:
    """As an argument's description and as a tool's own text: nothing asked."""
    assert secret_asked(text) is None
    assert secret_requested(text) is None


@pytest.mark.parametrize("text", STILL_ASKING)
def test_a_request_around_hardware_words_still_asks(text: str) -> None:
    """The senses read only the words right after the word, or a gloss naming a pin."""
    assert secret_asked(text) is not None


@pytest.mark.parametrize(
    "name,description",
    [("pks", "Primary keys of the rows to delete"), ("pk", "The row id (primary key)")],
)
def test_a_short_name_glossed_by_its_own_prose_is_served(
    name: str, description: str
) -> None:
    """``pks`` described as primary keys is a list of ids."""
    schema = {"properties": {name: {"type": "array", "description": description}}}
    assert not secret_arguments(schema)


@pytest.mark.parametrize(
    "name,description",
    [
        ("pk", "Your wallet pk"),
        ("pk", "Hex string"),
        ("otp", "The code from your authenticator"),
        ("pks", "Primary keys of the rows; also paste your private key"),
    ],
)
def test_a_short_name_without_that_gloss_still_asks(
    name: str, description: str
) -> None:
    """The gloss excuses the name only; a description asking still asks."""
    schema = {"properties": {name: {"type": "string", "description": description}}}
    assert secret_arguments(schema)
