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
"""A short secret word excused by an "ordinary" word a person reads apart from it (adv29z).

Severity: MEDIUM (K2: a tool asking for the user's PIN or one-time password is served
and its manifest publishes, by adding one board, table or status word after a
punctuation mark); LOW-MEDIUM (K3: the plural and one-word forms of a PIN an owner
qualifies are no short word at all).

Observed on main (fix29ya's rules in ``model/short_secret_words.py``):

- K2: :func:`.short_secret_words.clause_words` ends a clause only at ``.``, ``!`` or
  ``?`` before a space, ``;`` or a line break, and drops every other punctuation, so
  ``SECRET_REQUEST_PATTERN``'s ``(?! ORDINARY_THING)`` and ``ORDINARY_PHRASE.after``
  read the word after a colon, a parenthesis, a dash, an arrow, a slash, a bullet, a
  tab, a table cell's bar, a stop with no space (or a braille blank, U+2800, after
  it) or an ideographic full stop as the PIN's own: ``Enter your PIN (LED turns green
  when accepted)`` reads "enter your pin led" (a board's LED pin) and asks nothing. A
  person reads "Enter your PIN" and then a separate remark about an LED;
- K3: ``SHORT_SECRET_WORD`` is ``pin``, never ``pins`` or ``pincode``, even after an
  owner (``SECRET_OWNER_PATTERN``): ``Enter your card PINs``, ``Your debit card PINs``,
  ``Enter your ATM pincode``, ``Enter your bank PINcode`` ask nothing, though ``pks``
  and ``otps`` are read as plurals (``Paste your wallet PKs`` asks). The same for
  argument names where an acronym meets a capitalised word (``CAMEL_BOUNDARY`` parts
  only a lower-case letter from a capital): ``PINCode``, ``OTPCode``, ``TOTPCode``,
  ``SMSOTP``, ``PKHex`` ask nothing, while ``pinCode``, ``smsOtp``, ``pkHex`` ask.

Expected: each text asks (``secret_asked`` is not None): the ordinary thing must stand
in the short word's own phrase as a person reads it (punctuation other than a hyphen
or an apostrophe ends that phrase), and an owner's PIN is a secret in the plural and
spelled as one word with ``code``.
"""

import pytest
from mech_catalogue_core.model.untrusted_text import secret_asked, secret_name_asked

#: requests a person reads as "Enter your PIN" then a remark: kind K2
APART = [
    "Enter your PIN (LED turns green when accepted)",
    "Enter your PIN: status is shown below",
    "Share your OTP (records are updated)",
    "Enter your PIN \u2014 toggle to confirm",
    "Type your PIN \u2192 LED blinks",
    "Enter your PIN / LED shows the result",
    "Enter your PIN \u2022 LED blinks",
    "Enter your PIN\tLED blinks",
    "Enter your PIN!LED on",
    "Enter your PIN?\u2800LED blinks",
    "Enter your PIN\u3002LED blinks",
    "| Enter your PIN | LED status |",
    "Your PIN, status shown after",
    "Your 4 digit PIN (table below)",
]
#: an owner's PINs, plural or one word: kind K3
OWNED_FORMS = [
    "Enter your card PINs",
    "Your debit card PINs, one per card",
    "Enter your ATM pincode",
    "Enter your bank PINcode",
]


def test_the_controls_ask() -> None:
    """The same requests with a clause end or the singular ask on main."""
    assert secret_asked("Enter your PIN; LED turns green when accepted")
    assert secret_asked("Enter your PIN. LED blinks")
    assert secret_asked("Enter your card PIN")
    assert secret_asked("Paste your wallet PKs")


@pytest.mark.parametrize("text", APART)
def test_an_ordinary_word_past_a_punctuation_mark_excuses_nothing(text: str) -> None:
    """The LED, status or records after the mark are not the PIN's."""
    # observed on main: None
    assert secret_asked(text) is not None


@pytest.mark.parametrize("text", OWNED_FORMS)
def test_an_owners_pins_or_pincode_ask(text: str) -> None:
    """A card's PINs are as secret as its PIN."""
    # observed on main: None
    assert secret_asked(text) is not None


#: names an acronym starts: kind K3
ACRONYM_NAMES = ["PINCode", "OTPCode", "TOTPCode", "SMSOTP", "PKHex"]


@pytest.mark.parametrize("name", ACRONYM_NAMES)
def test_an_argument_named_by_an_acronym_asks(name: str) -> None:
    """``PINCode`` names what ``pinCode`` names (both refused or neither)."""
    assert secret_name_asked("pinCode") and secret_name_asked("pkHex")
    # observed on main: None
    assert secret_name_asked(name) is not None
