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

"""Short words that name a secret and are also ordinary words: when they ask for one.

``pin``, ``pk``, ``OTP`` and ``2FA`` name a secret (a card's PIN, a private key, a
one-time password, a second factor's code) and ordinary things alike (a board's pin, a
version pinned, a table's primary key, one-time programmable memory, whether 2FA is
on). A tool whose argument asks for a secret is refused, so each reading is a choice
between a phishing text served and an ordinary tool refused (adv29u F5, adv29x F3/F4,
fix29ya). The rules here read a text's words (:func:`clause_words`), where each short
word stands:

- what the secret belongs to, or how it travels, always asks
  (:data:`SECRET_OWNER_PATTERN`: ``card PIN``, ``the OTP sent by SMS``);
- a verb asking for the reader's own always asks (:data:`SECRET_REQUEST_PATTERN`:
  ``Enter your PIN to see the map``), unless the word names an ordinary thing right
  there (``Enter your GPIO pin``);
- whose it is, a verb with ``the``, its digits or ``code`` ask
  (:data:`OWNED_SECRET_PATTERN`) unless the words around that very word name an ordinary
  thing (:data:`ORDINARY_PHRASE`: ``the pin number of the GPIO line``), never a word
  elsewhere in the text.

:mod:`.untrusted_text` decides which readings of a text these rules read (rendered,
read through, look-alike letters folded, marks of an expression spaced).
"""

import re
from typing import NamedTuple, Optional

from mech_catalogue_core.model.hidden_characters import strip_invisible

#: short words that name a secret and are also ordinary words or symbols: to pin a
#: version, a primary key ``pk``, a probability ``p_k``, one-time programmable (OTP)
#: memory, whether 2FA is on (``pins`` are a board's or a map's, not PIN codes). A JWT,
#: a TOTP or an MFA code is nothing else and stays in
#: :data:`.untrusted_text.SECRET_PATTERN`
SHORT_SECRET_WORD = r"(?:pin|pks?|otps?|2 ?fa)"
#: a :data:`SHORT_SECRET_WORD` with the words that make it a secret whatever the rest
#: says: what it belongs to before it, a possessive between (``card PIN``, ``the card's
#: PIN``, ``bank PIN``, ``Ledger PIN``, ``wallet pk``), or how it travels after it
#: (``pk hex``, ``the OTP sent by SMS``)
SECRET_OWNER_PATTERN = re.compile(
    r"\b(?:"
    r"(?:card|atm|debit|credit|bank|banking|sim|phone|wallet|account|signer|signing|"
    r"owner|eth|evm|hex|raw|secret|private|login|sms|email|authenticator|device|"
    r"ledger|trezor|keystone|metamask)(?: s)? "
    + SHORT_SECRET_WORD
    + "|"
    + SHORT_SECRET_WORD
    + r" (?:hex|sent|received|(?:via|by|from) (?:sms|text|e ?mail|the app|your))"
    r")\b",
    re.IGNORECASE | re.ASCII,
)
#: verbs that ask a reader to hand something over: a request when the word they take
#: is a secret's
REQUEST_VERB = (
    r"(?:enter|type|paste|input|submit|provide|share|reveal|send|insert|give|supply|"
    r"tell|disclose|confirm|key in|fill in|read out)"
)
#: whose a thing is when it is the reader's (or a user's): ``your``, ``the user's``
POSSESSIVE = r"(?:your|ur|yr|my|his|her|their|users?(?: s)?)"
#: a :data:`SHORT_SECRET_WORD` with words that make it a secret unless the words around
#: it make it an ordinary thing (:data:`ORDINARY_PHRASE`): whose it is (``your PIN``,
#: ``your Ledger PIN``, ``the user's PIN``), a verb that asks for it (``enter the pin``,
#: ``paste your pk``), its digits or what it is (``4-digit PIN``, ``PIN (4 digits)``,
#: ``PIN code``)
OWNED_SECRET_PATTERN = re.compile(
    r"\b(?:"
    + POSSESSIVE
    + r"(?: [a-z0-9]+)? "
    + SHORT_SECRET_WORD
    + "|"
    + r"(?P<verb>"
    + REQUEST_VERB
    + r") (?:in )?(?:your |the |a |an |my )?(?:[a-z0-9]+ )?"
    + SHORT_SECRET_WORD
    + "|"
    r"[0-9]+ digits? "
    + SHORT_SECRET_WORD
    + "|"
    + SHORT_SECRET_WORD
    + r" (?:(?:[0-9]+ )?digits?|codes?|numbers?)"
    r")\b",
    re.IGNORECASE | re.ASCII,
)
#: what makes a pin, pk, OTP or 2FA an ordinary thing when it names the word's own
#: thing: a board's pins (GPIO, a header, toggling), India's postal PIN code, a table's
#: primary key, whether 2FA is on, one-time programmable memory's bits
ORDINARY_THING = (
    r"(?:gpios?|header(?: pins?)?|(?:bread)?boards?|chips?|microcontrollers?|mcus?|"
    r"arduino|leds?|relays?|sensors?|pwm|adc|i2c|spi|uart|"
    r"toggle|postal|post ?codes?|zip ?codes?|"
    r"india|(?:delivery|shipping|postal) address(?:es)?|rows?|tables?|databases?|"
    r"records?|primary keys?|enabled|disabled|status|bits|burn|burned|fuses?|e ?fuses?)"
)
#: what makes a pin a map's: ordinary for a pin placed, never for one asked for with a
#: :data:`REQUEST_VERB` (``Enter the PIN to see the map`` asks)
MAP_THING = r"(?:maps?|locations?)"
#: the words that may stand between a short word and the ordinary thing it names
#: (``pin number of the GPIO line``, ``pk list of rows``, ``2FA is enabled``)
ORDINARY_LINK = (
    r"(?:of|on|in|from|at|to|is|are|the|a|an|its|this|that|each|every|number|numbers|"
    r"code|codes|list|lists|id|ids|value|values|[0-9]+)"
)


class OrdinaryPhrase(NamedTuple):
    """A short word naming an ordinary thing, read at the word (both anchored to it)."""

    #: the thing just before the word (``GPIO pin``, ``the row's pk``); matched ending
    #: where the word ends
    before: "re.Pattern[str]"
    #: the thing after the word, up to four :data:`ORDINARY_LINK` words between (``pin
    #: number of the GPIO line``, ``pin to toggle``); matched starting at the word
    after: "re.Pattern[str]"


def _ordinary_phrase(thing: str) -> OrdinaryPhrase:
    """The :class:`OrdinaryPhrase` of a short word naming ``thing``."""
    return OrdinaryPhrase(
        re.compile(
            rf"\b{thing}(?: s)? {SHORT_SECRET_WORD}\Z", re.IGNORECASE | re.ASCII
        ),
        re.compile(
            rf"{SHORT_SECRET_WORD}(?: {ORDINARY_LINK}){{0,4}} {thing}\b",
            re.IGNORECASE | re.ASCII,
        ),
    )


#: a :data:`SHORT_SECRET_WORD` naming an ordinary thing, in the words around it
ORDINARY_PHRASE = _ordinary_phrase(f"(?:{ORDINARY_THING}|{MAP_THING})")
#: the same without a map's pins: what excuses a short word a verb asks for
ORDINARY_REQUESTED_PHRASE = _ordinary_phrase(ORDINARY_THING)
#: a :data:`REQUEST_VERB` asking for the reader's own short secret word, up to three
#: words between (``Enter your card number and PIN``): a request whatever the rest of
#: the text says (``Enter your PIN to see the map``, ``Give us your OTP``), unless a word
#: between or the word after it names an ordinary thing (``Enter your GPIO pin``, ``Send
#: your 2FA status``)
SECRET_REQUEST_PATTERN = re.compile(
    rf"\b{REQUEST_VERB} (?:(?:us|me|in|over) )?{POSSESSIVE}"
    rf"(?: (?!(?:{ORDINARY_THING}|{MAP_THING})\b)[a-z0-9]+){{0,3}} "
    rf"{SHORT_SECRET_WORD}\b(?! {ORDINARY_THING}\b)",
    re.IGNORECASE | re.ASCII,
)
#: any pattern: what the short check looks for before reading the words around
QUALIFIED_SECRET_PATTERN = re.compile(
    "|".join(
        p.pattern
        for p in (SECRET_OWNER_PATTERN, SECRET_REQUEST_PATTERN, OWNED_SECRET_PATTERN)
    ).replace("(?P<verb>", "(?:"),
    re.IGNORECASE | re.ASCII,
)
#: the short words that ask for a secret as a whole name (an argument called ``pk`` or
#: ``otp``; one called ``pin`` pins a file)
SECRET_NAME = re.compile(r"(?:pks?|otps?)", re.IGNORECASE | re.ASCII)
#: one short word, alone
SHORT_WORD = re.compile(rf"\b{SHORT_SECRET_WORD}\b", re.IGNORECASE | re.ASCII)
#: where a camelCase name parts its words
CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


#: where a clause ends: a full stop, ``!`` or ``?`` before a space, a ``;``, a line break
_CLAUSE_END = re.compile(r"[.!?](?=\s)|[;\n]")
#: what :func:`clause_words` writes where a clause ends (no text keeps it: a control)
_CLAUSE_MARK = "\x00"
_NOT_WORD_NOR_CLAUSE_END = re.compile(r"[^A-Za-z0-9\x00]+")


def clause_words(text: str) -> str:
    """A text's words, with `` . `` where a clause ends between two of them.

    As :func:`.untrusted_text.words_of`: ASCII words one space apart, camelCase split.

    The short-word checks read the words around a short word within its clause: in
    ``Paste your pk; rows are returned`` the rows are not the pk's.

    :param text: any text.
    :return: e.g. ``"paste your pk . rows are returned"``; no ``.`` before the first
        word or after the last.
    """
    split = CAMEL_BOUNDARY.sub(" ", strip_invisible(text))
    marked = _CLAUSE_END.sub(f" {_CLAUSE_MARK} ", split)
    words = _NOT_WORD_NOR_CLAUSE_END.sub(" ", marked).strip(f" {_CLAUSE_MARK}")
    return re.sub(r"\x00(?: \x00)*", ".", words)


def short_word_asks(words: str) -> Optional[str]:
    """The words of a text that ask for a secret with a short word, or None.

    :param words: the text's :func:`clause_words`.
    :return: an owner's or a request's words, else the first qualified short word
        whose own words around it name no ordinary thing (lowercase).
    """
    match = SECRET_OWNER_PATTERN.search(words) or SECRET_REQUEST_PATTERN.search(words)
    if match:
        return match.group(0).lower()
    for match in OWNED_SECRET_PATTERN.finditer(words):
        if not _names_an_ordinary_thing(words, match):
            return match.group(0).lower()
    return None


#: characters before a short word :func:`_names_an_ordinary_thing` reads (the longest
#: thing that may name it before it is shorter)
_BEFORE_CHARS = 48


def _names_an_ordinary_thing(words: str, match: "re.Match[str]") -> bool:
    """Whether the short word of a qualified match names an ordinary thing where it is.

    :param words: the text's :func:`clause_words`.
    :param match: an :data:`OWNED_SECRET_PATTERN` match in them.
    :return: True when :data:`ORDINARY_PHRASE` (:data:`ORDINARY_REQUESTED_PHRASE` for a
        word a verb asks for) holds that word. Each match reads a bounded window
        around its word: linear in the text.
    """
    short = SHORT_WORD.search(words, match.start(), match.end())
    if short is None:
        return False
    phrase = ORDINARY_REQUESTED_PHRASE if match.group("verb") else ORDINARY_PHRASE
    window_start = max(0, short.start() - _BEFORE_CHARS)
    return bool(
        phrase.before.search(words, window_start, short.end())
        or phrase.after.match(words, short.start())
    )
