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
from typing import NamedTuple, Optional, Tuple

from mech_catalogue_core.model.hidden_characters import strip_invisible
from mech_catalogue_core.model.secret_vocabulary import (
    READER_HOLDERS,
    REQUEST_VERBS,
    alternation,
)

#: short words that name a secret and are also ordinary words or symbols: to pin a
#: version, a primary key ``pk``, a probability ``p_k``, one-time programmable (OTP)
#: memory, whether 2FA is on, the WIF token's ticker (Bitcoin wiki's Wallet Import
#: Format), the Secure Remote Password protocol (MetaMask's Secret Recovery Phrase)
#: (``pins`` are a board's or a map's, not PIN codes). A JWT, a TOTP or an MFA code is
#: nothing else and stays in :data:`.secret_vocabulary.SECRET_TERMS`
SHORT_SECRET_WORD = r"(?:pin|pks?|otps?|2 ?fa|wifs?|srps?)"
#: what :func:`clause_words` writes between two words punctuation parts (a person
#: reads a phrase end there: ``Enter your PIN (LED turns green)``)
PHRASE_MARK = ","
#: a :data:`SHORT_SECRET_WORD` as an owner qualifies it: also the plural and the one
#: word with ``code`` (``card PINs``, ``ATM pincode``), no board's after ``card``
OWNED_SHORT_WORD = rf"(?:{SHORT_SECRET_WORD}|pins|pin ?codes?|otp ?codes?)"
#: what a short secret word belongs to when it is a secret (``card PIN``, ``wallet pk``)
SECRET_OWNER = (
    r"(?:(?:card|account) ?holders?|card|atm|debit|credit|bank|banking|sim|phone|"
    r"wallet|account|signer|signing|"
    r"owner|eth|evm|hex|raw|secret|private|login|sms|email|authenticator|device|"
    r"ledger|trezor|keystone|metamask)"
)
#: a :data:`SHORT_SECRET_WORD` with the words that make it a secret whatever the rest
#: says: what it belongs to before it, a possessive between or one word with it
#: (``card PIN``, ``the card's PIN``, ``bank PINs``, ``ATM pincode``, ``SMSOTP``), or
#: how it travels after it (``pk hex``, ``the OTP sent by SMS``)
SECRET_OWNER_PATTERN = re.compile(
    r"\b(?:"
    + SECRET_OWNER
    + r"(?: s)? ?"
    + OWNED_SHORT_WORD
    + "|"
    + SHORT_SECRET_WORD
    + r" (?:hex|sent|received|(?:via|by|from) (?:sms|text|e ?mail|the app|your))"
    r")\b",
    re.IGNORECASE | re.ASCII,
)
#: verbs that ask a reader to hand something over: a request when the word they take
#: is a secret's (:data:`.secret_vocabulary.REQUEST_VERBS`)
REQUEST_VERB = alternation(REQUEST_VERBS)
#: whose a thing is when it is the reader's (or a user's): ``your``, ``the user's``
#: (:data:`.secret_vocabulary.READER_HOLDERS`)
POSSESSIVE = alternation(READER_HOLDERS)
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
    r"records?|primary keys?|enabled|disabled|status|bits|burn|burned|fuses?|e ?fuses?|"
    r"raspberry pis?|servos?|motors?|buzzers?|post ?offices?|(?:data|signal) lines?)"
)
#: what a short word means when the words right after it say (adv29yz K5): a board's
#: pin by what is done with it (its mapping or count, set high, read, what is wired to
#: it), one-time programmable memory by its parts (``OTP memory address``, ``OTP region``),
#: whether 2FA is on. Read from the word, no :data:`PHRASE_MARK` between but before a
#: gloss: ``Your 6 digit OTP / bits`` and ``Enter your PIN (LED on)`` still ask
WORD_SENSE = re.compile(
    r"pins? (?:mapping|layout|count|name|mode|label|assignment|direction|header|out|"
    r"diagram)s?\b"
    r"|pin numbers (?:as|in)\b"
    r"|pin to (?:set|drive|pull|toggle)(?: it)? (?:high|low|up|down)\b"
    r"|pin to (?:read|write|sample|poll|monitor|watch|blink|measure)(?:\Z|,| \.|"
    r" (?:from|high|low)\b)"
    r"|pin (?:the|that|which|a|an|this) (?:[a-z0-9]+ ){0,2}(?:is |are )?"
    r"(?:connected|wired|attached|hooked|soldered)\b"
    r"|otps? (?:memory|area|region|bank|words?|blocks?|rows?|offsets?|address(?:es)?|"
    r"fuses?|bits?|rom|e?eprom|flash|pages?|sectors?|locks?|size|cells?)\b"
    r"|2 ?fa (?:is|are|was) (?:on|off|active|inactive|required|set up|turned on|"
    r"turned off|supported|available)\b",
    re.IGNORECASE | re.ASCII,
)
#: a board's pin named in a gloss after ``the pin`` a verb asks for (``Enter the pin
#: (GPIO17 by default)``, ``Enter the pin number (BCM)``): a person's own PIN is not
#: glossed so (``Your PIN (D4)`` still asks)
PIN_NAME_GLOSS = re.compile(
    r"pin(?: (?:number|numbers|name|[0-9]+))?,"
    r"(?:e g ,?|like |such as |for example |by default ,?)?"
    r"(?:bcm|board|physical|wiringpi|gpio ?[0-9]{1,2}|gp[0-9]{1,2}|io[0-9]{1,2}|"
    r"[ad][0-9]{1,2}|p[a-k][0-9]{1,2}|p[0-9]{1,2} [0-9]{1,2}|r[a-e][0-9])\b",
    re.IGNORECASE | re.ASCII,
)
#: what an argument's own prose says its short name is when that is an ordinary thing
#: (``pks``: "Primary keys of the rows to delete"): the name does not ask then
NAME_GLOSS = {
    "pk": re.compile(r"\b(?:primary keys?|row ids?|record ids?)\b", re.I | re.A),
    "otp": re.compile(
        r"\b(?:one time programmable|otp (?:memory|fuses?|bits?|region|bank))\b",
        re.I | re.A,
    ),
}
#: what makes a pin a map's: ordinary for a pin placed, never for one asked for with a
#: :data:`REQUEST_VERB` (``Enter the PIN to see the map`` asks)
MAP_THING = r"(?:maps?|locations?)"
#: what makes a short word a token's ticker (``WIF``): its market's things
MARKET_THING = (
    r"(?:prices?|balances?|holdings?|charts?|tickers?|symbols?|tokens?|coins?|"
    r"market ?caps?|volumes?|usd|usdc|eth)"
)
#: what a PIN code is when a gloss names it (``PIN code (India Post zip code)``): the
#: one ordinary thing read past a :data:`PHRASE_MARK`, since it says what the word is
POSTAL_THING = (
    r"(?:india|postal|post|post ?codes?|zip ?codes?|"
    r"(?:delivery|shipping|postal) address(?:es)?)"
)
#: the words that may stand between a short word and the ordinary thing it names
#: (``pin number of the GPIO line``, ``pk list of rows``, ``2FA is enabled``)
ORDINARY_LINK = (
    r"(?:of|on|in|from|at|to|is|are|the|a|an|its|this|that|each|every|number|numbers|"
    r"for|as|used|[a-z]+[0-9]+[a-z0-9]*|"  # a part number: DHT22, BME280
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
    #: a gloss after the word past a phrase mark saying it is a postal code (``PIN code
    #: (India Post zip code)``); matched starting at the word
    glossed: "re.Pattern[str]"


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
        re.compile(
            rf"{SHORT_SECRET_WORD}(?: {ORDINARY_LINK}){{0,2}}{PHRASE_MARK}"
            rf"(?:[a-z0-9]+ ){{0,2}}{POSTAL_THING}\b",
            re.IGNORECASE | re.ASCII,
        ),
    )


#: a :data:`SHORT_SECRET_WORD` naming an ordinary thing, in the words around it
ORDINARY_PHRASE = _ordinary_phrase(f"(?:{ORDINARY_THING}|{MARKET_THING}|{MAP_THING})")
#: the same without a map's pins: what excuses a short word a verb asks for
ORDINARY_REQUESTED_PHRASE = _ordinary_phrase(f"(?:{ORDINARY_THING}|{MARKET_THING})")
#: a :data:`REQUEST_VERB` asking for the reader's own short secret word, up to three
#: words between (``Enter your card number and PIN``): a request whatever the rest of
#: the text says (``Enter your PIN to see the map``, ``Give us your OTP``), unless a word
#: between or the word right after it, no punctuation between (:data:`PHRASE_MARK`),
#: names an ordinary thing (``Enter your GPIO pin``, ``Send your 2FA status``); read
#: across punctuation elsewhere (``Enter your (4-digit) PIN``)
SECRET_REQUEST_PATTERN = re.compile(
    rf"\b{REQUEST_VERB}[ ,](?:(?:us|me|in|over)[ ,])?{POSSESSIVE}"
    rf"(?:[ ,](?!(?:{ORDINARY_THING}|{MAP_THING})\b)[a-z0-9]+){{0,3}}[ ,]"
    rf"{SHORT_SECRET_WORD}\b(?! {ORDINARY_THING}\b)",
    re.IGNORECASE | re.ASCII,
)
#: the words between a short word and what it belongs to after it (``the PIN of your
#: card``, ``the PIN that unlocks your Ledger``, ``the PIN you use at the ATM``)
OWNER_LINK = (
    r"(?:of|for|on|from|at|with|in|that (?:unlocks?|opens?|protects?|secures?|guards?)|"
    r"(?:you|we|i|they) use (?:at|on|for|with|to unlock)|used (?:at|on|for|with))"
)
#: a :data:`SHORT_SECRET_WORD` made a secret by words further from it than
#: :data:`OWNED_SECRET_PATTERN` reads, unless the words around it make it an ordinary
#: thing (:data:`ORDINARY_PHRASE`): what it belongs to after it (``The PIN of your debit
#: card``, ``The PIN that unlocks your Ledger``; not a thing of its own: ``the pin on
#: your phone's map``), how it travels with a subject between (``The OTP we texted
#: you``), or the reader's listed with other things (``Your card number and PIN``; not
#: an ordinary thing's, nor a verb: ``Send your location and pin it on the map``)
RELATED_SECRET_PATTERN = re.compile(
    r"\b(?:"
    + SHORT_SECRET_WORD
    + rf" {OWNER_LINK} (?:(?:your|the|a|an|my|this|its|their) )?(?:[a-z0-9]+ )?"
    + SECRET_OWNER
    + rf"\b(?!(?: s)? (?:{ORDINARY_THING}|{MAP_THING})\b)"
    + "|"
    + SHORT_SECRET_WORD
    + r" (?:(?:we|i|they|you|was|were|is|has been|just) ){1,2}"
    r"(?:texted|emailed|messaged|sent|received|got)"
    + "|"
    + POSSESSIVE
    + rf"(?: (?!(?:{ORDINARY_THING}|{MARKET_THING}|{MAP_THING})\b)[a-z0-9]+){{1,3}}"
    + r" (?:and|or|plus|with) (?:the |a |an |your )?"
    + SHORT_SECRET_WORD
    + r"\b(?! (?:it|them|this|that|these|those)\b)"
    + r")\b",
    re.IGNORECASE | re.ASCII,
)
#: any pattern: what the short check looks for before reading the words around
QUALIFIED_SECRET_PATTERN = re.compile(
    "|".join(
        p.pattern
        for p in (
            SECRET_OWNER_PATTERN,
            SECRET_REQUEST_PATTERN,
            OWNED_SECRET_PATTERN,
            RELATED_SECRET_PATTERN,
        )
    ).replace("(?P<verb>", "(?:"),
    re.IGNORECASE | re.ASCII,
)
#: the short words that ask for a secret as a whole name, a digit after allowed (an
#: argument called ``pk``, ``otp1``, ``wif`` or ``srp``; one called ``pin`` pins a file)
SECRET_NAME = re.compile(r"(?:pks?|otps?|wifs?|srps?)[0-9]*", re.IGNORECASE | re.ASCII)
#: one short word, alone
SHORT_WORD = re.compile(rf"\b{SHORT_SECRET_WORD}\b", re.IGNORECASE | re.ASCII)
#: a short word in any form the patterns read, an owner's one word with it included
#: (``pins``, ``pincode``, ``smsotp``): what a text must hold for the short check to run
SHORT_WORD_FORM = re.compile(
    rf"\b(?:{SECRET_OWNER} ?)?{OWNED_SHORT_WORD}\b", re.IGNORECASE | re.ASCII
)
#: where a camelCase name parts its words: a lower-case letter or digit before a
#: capital (``walletPrivateKey``), an acronym before a capitalised word (``PINCode``,
#: ``PKHex``; not ``PINs``). A person reads prose's words whole whatever their letters'
#: case (``PassWord``, ``PiN``): :func:`clause_word_readings` reads both
CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z]{2})")

#: a line break in the source: ``\n``, ``\r\n`` or ``\r``
_LINE_BREAK = r"(?:\r\n?|\n)"
#: where a clause ends: a full stop, ``!`` or ``?`` before a space, a ``;``, and a line
#: break that a renderer shows as one: a hard break (two spaces or a backslash before
#: it), a blank line or a block's start after it (a list item, a quote, a heading, a
#: table row). A soft break inside a paragraph is shown as a space (CommonMark, HTML):
#: ``Enter your`` / ``PIN`` is one clause to a reader
CLAUSE_END = re.compile(
    r"[.!?](?=\s)|;"
    rf"|(?:  +|\\){_LINE_BREAK}"
    rf"|{_LINE_BREAK}(?=[ \t]*(?:{_LINE_BREAK}|\Z|[-*+](?:\s|\Z)|[0-9]+[.)](?:\s|\Z)|[#>|]))"
)
#: what :func:`clause_words` writes where a clause ends (no text keeps it: a control)
_CLAUSE_MARK = "\x00"
_NOT_WORD_NOR_CLAUSE_END = re.compile(r"[^A-Za-z0-9\x00]+")
#: a character a person reads as a break between two words: punctuation or a symbol
#: (a parenthesis, a colon, a dash, an arrow, a slash, a bullet, a table's bar, an
#: ideographic full stop, a braille blank) or a tab; not a hyphen or an apostrophe
#: (inside a phrase: ``4-digit``, ``card's``), nor the marks of Markdown's emphasis and
#: code, which a renderer removes (``**GPIO** pin``)
_PHRASE_BREAK = re.compile(r"[^\w\s\-'\u2019\u2010\u2011*~`\x00]|\t")


def _gap(run: "re.Match[str]") -> str:
    """What stands for a run of characters between two words: a space or a phrase mark."""
    return PHRASE_MARK if _PHRASE_BREAK.search(run.group(0)) else " "


_NOT_WORD = re.compile(r"[^A-Za-z0-9]+")


def words_of(text: str, camel_split: bool = True) -> str:
    """A text's ASCII words, one space apart, camelCase split (what patterns match).

    :param text: any text (invisible characters are dropped first).
    :param camel_split: whether to part camelCase words (:data:`CAMEL_BOUNDARY`).
    :return: e.g. ``"paste the private key"`` for ``"Paste\u200b the private-key!"``.
    """
    kept = strip_invisible(text)
    split = CAMEL_BOUNDARY.sub(" ", kept) if camel_split else kept
    return _NOT_WORD.sub(" ", split).strip()


def word_readings(text: str) -> Tuple[str, ...]:
    """A text's :func:`words_of` camelCase split, then its words whole, distinct.

    A capital inside a word is no word break to a person or a model (``PassWord``,
    ``seed pHrase``, ``IgNore previous instructions``, ``Enter your PiN``); the split
    reads identifiers (``walletPrivateKey``). Every word check reads both (adv29z K1).

    :param text: any text.
    :return: one or two word strings.
    """
    return tuple(dict.fromkeys((words_of(text), words_of(text, camel_split=False))))


def clause_words(text: str, camel_split: bool = True) -> str:
    """A text's words, with `` . `` where a clause ends and ``,`` where a phrase does.

    As :func:`words_of`: ASCII words, camelCase split unless
    ``camel_split`` is False.

    The short-word checks read the words around a short word within its clause: in
    ``Paste your pk; rows are returned`` the rows are not the pk's. What excuses a short
    word as an ordinary thing must stand within its phrase too (:data:`PHRASE_MARK`):
    in ``Enter your PIN (LED turns green)`` the LED is not the PIN's. The requests are
    read across a phrase mark (:func:`short_word_asks`).

    :param text: any text.
    :param camel_split: whether to part camelCase words (:data:`CAMEL_BOUNDARY`).
    :return: e.g. ``"paste your pk . rows are returned"``, ``"enter your pin,led
        turns green"``; no mark before the first word or after the last; a ``,`` in
        place of the space it replaces (same length).
    """
    kept = strip_invisible(text)
    split = CAMEL_BOUNDARY.sub(" ", kept) if camel_split else kept
    marked = CLAUSE_END.sub(f" {_CLAUSE_MARK} ", split)
    words = _NOT_WORD_NOR_CLAUSE_END.sub(_gap, marked).strip(f" ,{_CLAUSE_MARK}")
    words = re.sub(r"[ ,]*\x00(?:[ ,]*\x00)*[ ,]*", " . ", words)
    return words


def clause_word_readings(text: str) -> Tuple[str, ...]:
    """A text's :func:`clause_words` camelCase split, then its words whole, distinct.

    A capital inside a word is no word break to a person (``PassWord``, ``seed
    pHrase``, ``Enter your PiN``); the split reads identifiers (``walletPrivateKey``).

    :param text: any text.
    :return: one or two word strings.
    """
    return tuple(dict.fromkeys((clause_words(text), clause_words(text, False))))


def short_word_asks(words: str) -> Optional[str]:
    """The words of a text that ask for a secret with a short word, or None.

    :param words: the text's :func:`clause_words`.
    :return: an owner's or a request's words, else the first qualified short word
        whose own words around it name no ordinary thing (lowercase).
    """
    read_through = words.replace(PHRASE_MARK, " ")  # same length: same positions
    match = SECRET_OWNER_PATTERN.search(read_through) or SECRET_REQUEST_PATTERN.search(
        words
    )
    if match:
        return match.group(0).replace(PHRASE_MARK, " ").lower()
    for pattern in (OWNED_SECRET_PATTERN, RELATED_SECRET_PATTERN):
        for match in pattern.finditer(read_through):
            if not _names_an_ordinary_thing(words, match):
                return match.group(0).lower()
    return None


#: characters before a short word :func:`_names_an_ordinary_thing` reads (the longest
#: thing that may name it before it is shorter)
_BEFORE_CHARS = 48


def _names_an_ordinary_thing(words: str, match: "re.Match[str]") -> bool:
    """Whether the short word of a qualified match names an ordinary thing where it is.

    :param words: the text's :func:`clause_words`.
    :param match: an :data:`OWNED_SECRET_PATTERN` or :data:`RELATED_SECRET_PATTERN`
        match in them.
    :return: True when :data:`ORDINARY_PHRASE` (:data:`ORDINARY_REQUESTED_PHRASE` for a
        word a verb asks for) holds that word within its phrase (no
        :data:`PHRASE_MARK` between), a postal gloss follows it, the words right
        after it say its ordinary sense (:data:`WORD_SENSE`), or a gloss names a
        board's pin after a verb's ``the pin`` (:data:`PIN_NAME_GLOSS`). Each match
        reads a bounded window around its word: linear in the text.
    """
    short = SHORT_WORD.search(words, match.start(), match.end())
    if short is None:
        return False
    asked_by_verb = "verb" in match.re.groupindex and match.group("verb")
    phrase = ORDINARY_REQUESTED_PHRASE if asked_by_verb else ORDINARY_PHRASE
    window_start = max(0, short.start() - _BEFORE_CHARS)
    return bool(
        phrase.before.search(words, window_start, short.end())
        or phrase.after.match(words, short.start())
        or phrase.glossed.match(words, short.start())
        or WORD_SENSE.match(words, short.start())
        or bool(asked_by_verb and PIN_NAME_GLOSS.match(words, short.start()))
    )


def name_glossed_as_ordinary(asked: str, prose: "list[str]") -> bool:
    """Whether a short name that asks is an ordinary thing by its argument's own prose.

    A :data:`SECRET_NAME` whose :data:`NAME_GLOSS` the prose holds (``pks``, "Primary
    keys of the rows") names that thing.

    :param asked: what the name asks (:func:`.untrusted_text.secret_name_asked`).
    :param prose: the argument's descriptions and titles.
    :return: True when the name is a short word whose gloss the prose holds.
    """
    if not SECRET_NAME.fullmatch(asked):
        return False
    gloss = NAME_GLOSS.get(asked.lower().rstrip("s"))
    return gloss is not None and any(gloss.search(words_of(text)) for text in prose)
