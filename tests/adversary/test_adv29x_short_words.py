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
"""Short secret words the text checks read apart from how a person reads them (adv29x).

Severity: MEDIUM (F6, F2: a tool whose argument asks for a PIN, a one-time password or
a private key is served, and a manifest asking for one publishes); LOW (F3: more such
requests missed; F4: ordinary tools refused, their manifests unpublishable).

Observed (fix29tb's short-word rules in ``untrusted_text`` and ``letter_forms``):

- F6: the lone ``*`` rule spaces a ``*`` with no other ``*`` next to it, but CommonMark
  pairs a ``*`` with one further away: ``Enter your P*IN code*`` renders "Enter your
  PIN code" (emphasis from the first ``*`` to the last), and the short check read
  "P IN code";
- F2: a word wholly of one non-Latin script was kept unfolded, so Greek or Cyrillic
  capitals spelling PIN, OTP or PK in an English sentence (``Enter your ΡΙΝ``) were
  read as a Greek word a person never sees;
- F3: qualifiers missed possessives and nouns between (``Enter the card's PIN``,
  ``Your bank PIN``, ``Your Ledger PIN``, ``The wallet's PK``, ``PIN (4 digits)``);
- F4: ordinary texts refused (a GPIO pin, a pin on a map, India's postal PIN code, a
  row's pk, whether 2FA is enabled, OTP memory bits).

Expected: each secret request above is refused (``secret_asked`` is not None) and each
ordinary text is served (None). Oracle for F6: markdown-it-py commonmark+html render,
tags stripped, entities unescaped.
"""

import html
import re

import pytest
from markdown_it import MarkdownIt
from mech_catalogue_core.model.untrusted_text import secret_asked

COMMONMARK = MarkdownIt("commonmark", {"html": True})


def shown(text: str) -> str:
    """The oracle: rendered, tags stripped, entities unescaped."""
    return html.unescape(re.sub(r"<[^>]*>", "", COMMONMARK.render(text)))


@pytest.mark.parametrize(
    "text",
    [
        "Enter your ΡΙΝ",
        "Enter your ΡΙΝ code",
        "The ΟΤΡ sent by SMS",
        "Paste your ΡΚ hex",
    ],
)
def test_f2_greek_capitals_spelling_a_short_secret(text: str) -> None:
    """F2: Greek capitals spelling PIN, OTP or PK in English are read as the word."""
    # every letter of the word is a Greek capital identical to a Latin one
    assert secret_asked(text) is not None


def test_f2_cyrillic_otp() -> None:
    """F2: Cyrillic capitals spelling OTP in English are read as the word."""
    assert secret_asked("The ОТР sent by SMS") is not None  # Cyrillic О Т Р


@pytest.mark.parametrize(
    "text",
    [
        "Enter the card's PIN",
        "Your bank PIN",
        "The wallet's PK",
        "PIN (4 digits)",
        "Your Ledger PIN",
    ],
)
def test_f3_qualifier_rule_evaded(text: str) -> None:
    """F3: a possessive, a noun between or the digits after still qualify."""
    assert secret_asked(text) is not None


@pytest.mark.parametrize(
    "text",
    ["The pin number of the GPIO line to read", "Drop your pin on the map"],
)
def test_f4_ordinary_pin_refused(text: str) -> None:
    """F4: a GPIO pin and a pin on a map ask for nothing."""
    assert secret_asked(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "The 6-digit PIN code of the delivery address",  # India's postal code
        "Provide the pk of the row to update",
        "Whether 2FA is enabled; send 2FA status",
        "Enter the pin to toggle (GPIO)",
        "Input OTP bits to burn",
    ],
)
def test_f4_more_ordinary_texts_refused(text: str) -> None:
    """F4: a postal PIN code, a row's pk, 2FA status and OTP memory ask for nothing."""
    assert secret_asked(text) is None


@pytest.mark.parametrize(
    "text, read",
    [
        ("Enter your P*IN code*", "Enter your PIN code"),
        ("Enter *your P*IN", "Enter your PIN"),
        ("Paste your p*k here*", "Paste your pk here"),
        ("Enter the O*TP sent by SMS*", "Enter the OTP sent by SMS"),
    ],
)
def test_f6_an_emphasis_star_read_as_an_expression_mark(text: str, read: str) -> None:
    """F6: a ``*`` paired as emphasis further away parts no word a person reads."""
    assert read in shown(text)
    assert secret_asked(read) is not None  # the words a person reads are refused
    assert secret_asked(text) is not None
