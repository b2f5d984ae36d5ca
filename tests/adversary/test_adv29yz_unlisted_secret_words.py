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
"""Secret requests in ordinary English the patterns do not list (adv29z K11).

Severity: MEDIUM (a tool asking, in plain English, for the card PIN, the wallet's
extended private key or its 12 recovery words is served and publishes; this server's
users hold crypto wallets, and their agents may hold these secrets in context).

Observed on main: ``SECRET_OWNER_PATTERN`` reads the owner only right before the short
word (``card PIN``) or a few travel words after it, and ``SECRET_PATTERN`` lists no
wallet-format or card-security words. So these argument descriptions ask nothing:

- the owner after the short word: ``The PIN of your debit card``, ``The PIN for your
  bank account``, ``The PIN that unlocks your Ledger``, ``The PIN you use at the ATM``,
  ``Your card number and PIN`` (three words between ``your`` and ``PIN``),
  ``Cardholder PIN``, ``The OTP we texted you``, ``The code from your authenticator
  app``;
- wallet secrets by their usual names: ``Your xprv`` (BIP32 extended private key),
  ``Your WIF`` (wallet import format), ``Your SRP`` (MetaMask's Secret Recovery
  Phrase), ``Your 12 words``, ``Your 24-word phrase``, ``Your recovery codes``;
- card secrets: ``Your CVV``, ``Your card security code``;
- argument names by their usual abbreviations (``secret_name_asked``): ``passwd``,
  ``pwd``, ``sk``, ``prv_key``, ``prvKey``, ``xprv``, ``wif``, ``mnem``, ``pk1``,
  ``otp1``, ``cvv`` (``pk``, ``privkey`` and ``pkey`` are refused).

Expected: each is refused as asking for a secret (``secret_asked`` not None).
"""

import pytest
from mech_catalogue_core.model.untrusted_text import secret_asked, secret_name_asked

REQUESTS = [
    "The PIN of your debit card",
    "The PIN for your bank account",
    "The PIN that unlocks your Ledger",
    "The PIN you use at the ATM",
    "Your card number and PIN",
    "Cardholder PIN",
    "The OTP we texted you",
    "The code from your authenticator app",
    "Your xprv",
    "Your WIF",
    "Your SRP",
    "Your 12 words",
    "Your 24-word phrase",
    "Your recovery codes",
    "Your CVV",
    "Your card security code",
]


def test_the_listed_forms_ask() -> None:
    """The control: the owner before the word, and listed terms, ask on main."""
    assert secret_asked("Your debit card PIN")
    assert secret_asked("Your backup codes")
    assert secret_asked("Your secret recovery phrase")


@pytest.mark.parametrize("text", REQUESTS)
def test_a_plain_english_secret_request_asks(text: str) -> None:
    """A person and a model read each as a request for a secret."""
    # observed on main: None
    assert secret_asked(text) is not None


NAMES = [
    "passwd",
    "pwd",
    "sk",
    "prv_key",
    "prvKey",
    "xprv",
    "wif",
    "mnem",
    "pk1",
    "otp1",
    "cvv",
]


@pytest.mark.parametrize("name", NAMES)
def test_an_argument_named_by_a_secrets_abbreviation_asks(name: str) -> None:
    """``passwd`` names a password as ``privkey`` names a private key."""
    assert secret_name_asked("privkey") and secret_name_asked("pk")
    # observed on main: None
    assert secret_name_asked(name) is not None
