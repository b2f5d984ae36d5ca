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

"""A tool's name read as the words it is made of: squashed, respelled (adv29zr2 4, adv29zu2).

A name is read as words split at separators and case changes
(:func:`.withheld_text.name_placeholder`); a name written in one case without
separators (``ignorepreviousinstructions``), or with a digit or a look-alike letter for
a letter (``s3nd_all_fund5``, ``ignoreprevlousinstructions``), is read by a model as
the words it spells all the same. So a name is read here as its parts
(:func:`name_parts`: split at separators and case changes, look-alike characters of
other scripts folded, lowercase) joined, against phrases whose letters may each be
written as a digit or letter that looks like them (:data:`LOOK_ALIKES`). A phrase
starts and ends where a part does (``center_your_text`` holds no "enter your",
``repay_against_loan`` no "pay again"), or anywhere inside a part of
:data:`MIN_SQUASHED_PART` characters or more, or in a name of one part (squashed):

- :data:`ORDER_PHRASES`: orders to a model, funds moved, allowances given, calls repeated
  and paid again (:data:`REPEATED_PAYMENT`: ``pay_thrice``, ``pay_10x_per_call``). A
  payment, transfer, allowance or repeat a negation or a watching verb comes before
  (``revoke_``, ``never_``) or a watching noun comes after (:data:`ORDER_SUBJECTS`:
  ``pay_twice_detector``, ``set_approval_for_all_monitor``) names a subject, not an
  order, as does "you must" after a relative word (``places_you_must_visit``) and "do
  not tell" telling no person; the frame disregarded never does
  (``ignore_previous_instructions_checker`` orders); but a name holding a
  payee (:data:`PAYEE`, an ``0x`` address) and a funds word (:data:`FUNDS_WORDS`)
  orders whatever else it says (``transfer_everything_to_0xabab``).
- secrets (:data:`.secret_vocabulary.NAME_SECRET_NOUNS`): a name holding one asks for
  it whatever its verb (``wallet_seed_here``, ``pr1vate_key``), unless a subject word
  follows (:data:`.secret_vocabulary.SECRET_SUBJECT_WORDS`: ``seed-phrase-validator``);
  a secret that is also an ordinary word (:data:`.secret_vocabulary.NAME_ORDINARY_SECRET_NOUNS`:
  ``mnemonic``, ``keystore``, a mnemonic's word count) asks only with a holder or a
  placing verb before it or a place after it (``your_mnemonic``, ``mnemonic_here``;
  ``study_mnemonics`` asks nothing).

One word is never matched alone but for a payee's funds word: ``pay`` inside
``payload``, ``key`` inside ``keyvaluestore`` or ``password`` inside
``passwordstrength`` are names, not orders.
"""

import re
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Set, Tuple

from mech_catalogue_core.model.letter_forms import folded
from mech_catalogue_core.model.secret_vocabulary import (
    HANDING_VERBS,
    MNEMONIC_LENGTH,
    NAME_ORDINARY_SECRET_NOUNS,
    NAME_SECRET_NOUNS,
    PLACING_VERBS,
    READER_HOLDERS,
    SECRET_SUBJECT_WORDS,
    alternation,
)

#: orders to a model, read as whole words of the name (:mod:`.squashed_names`); a ``#``
#: is a count (:data:`COUNT`)
ORDER_PHRASES = (
    # the frame disregarded, the model renamed or told to hide things
    "ignore previous",
    "ignore prior",
    "ignore all previous",
    "ignore your instructions",
    "ignore the above",
    "disregard previous",
    "disregard prior",
    "disregard the above",
    "forget previous",
    "forget your instructions",
    "previous instructions",
    "prior instructions",
    "system prompt",
    "you are now",
    "you must",
    "the assistant must",
    "do not tell the user",
    "do not tell user",
    "do not tell anyone",
    "dont tell the user",
    "dont tell user",
    "dont tell anyone",
    "without telling",
    "hide from the user",
    # funds moved, allowances given
    "send all funds",
    "send all your",
    "send all eth",
    "send all tokens",
    "send your funds",
    "send everything",
    "transfer everything",
    "move everything",
    "all funds to",
    "all your funds",
    "funds to 0x",
    "eth to 0x",
    "transfer all funds",
    "transfer all your",
    "withdraw all funds",
    "drain the wallet",
    "drain wallet",
    "drain your",
    "drain all funds",
    "drain funds",
    "empty the wallet",
    "empty your wallet",
    "sweep the wallet",
    "sweep all funds",
    "approve unlimited",
    "approve infinite",
    "approve max",
    "grant unlimited",
    "give unlimited",
    "sign unlimited",
    "set approval for all",
    # a call repeated and paid again
    "retry and pay",
    "raise your max",
    "raise the max",
    # a secret handed over
    "send me your",
    "send us your",
    "give me your",
    "reveal your",
    "paste your",
)
#: a count of times (digits stay digits)
COUNT = r"(?:[0-9]+|two|three|four|five|six|seven|eight|nine|ten|many|multiple|several)"
#: a payment or a call repeated: ``pay twice``, ``pay_10x_per_call``,
#: ``call_this_three_times`` (spaces are removed, letters respelled)
REPEATED_PAYMENT = {
    "pay again": "(?:pay|pays|paying|charge|charges) (?:me |it |us |them )?"
    f"(?:twice|thrice|again|each time|every time|until|more|extra|{COUNT} ?(?:times|x))",
    "call again": "(?:call|calls|run|invoke|repeat) (?:me |it |this |us |the tool )?"
    f"(?:twice|thrice|again|{COUNT} times)",
}
#: a payee: an ``0x`` address (or its start) in the name
PAYEE = re.compile(r"(?<![0-9])0x[0-9a-f]{4,}")
#: words that move funds or give an allowance, read as whole words (or inside a
#: squashed part) of a name that holds a :data:`PAYEE` (``eth_balance_of_0x...`` moves
#: nothing)
FUNDS_WORDS = (
    "send",
    "transfer",
    "pay",
    "approve",
    "approval",
    "allowance",
    "withdraw",
    "drain",
    "sweep",
    "move",
    "bridge",
    "deposit",
    "wire",
    "tip",
    "give",
    "funds",
    # any other word of funds moved, a currency, or "all" (adv29zw2: a name holding
    # an address says whom to pay with any of them: ``all_eth_0xabab_now``)
    "forward",
    "donate",
    "remit",
    "liquidate",
    "empty",
    "all",
    "everything",
    "eth",
    "ether",
    "wei",
    "gwei",
    "xdai",
    "usdc",
    "usdt",
    "dai",
    "olas",
    "matic",
    "btc",
    "money",
    "tokens",
)
#: words just before a payment, a transfer or a repeat that make it a name's subject,
#: not an order: a negation or a verb watching for it (``revoke_``, ``never_pay_twice``)
NOT_ORDERED_BEFORE = (
    "not",
    "no",
    "dont",
    "never",
    "avoid",
    "prevent",
    "stop",
    "block",
    "revoke",
    "detect",
    "find",
    "scan",
    "check",
    "flag",
    "audit",
    "monitor",
    "track",
    "count",
    "explain",
    "anti",
)
#: words just before a phrase addressed to "you" that make it a relative clause, a
#: name's subject (``places_you_must_visit``, ``where_you_are_now``)
RELATIVE_BEFORE = (
    "where",
    "what",
    "when",
    "how",
    "why",
    "which",
    "that",
    "who",
    "places",
    "things",
)
#: words just after a phrase that make it a name's subject: what watches for it or is
#: said of it (``drain_wallet_detector``, ``setApprovalForAll-events``)
ORDER_SUBJECTS = (
    "detectors?",
    "detection",
    "monitors?",
    "monitoring",
    "scanners?",
    "scans?",
    "checkers?",
    "checks?",
    "guards?",
    "alerts?",
    "events?",
    "analytics",
    "status",
    "reports?",
    "finders?",
    "trackers?",
    "audits?",
    "logs?",
    "history",
    "stats",
    "watch(?:er)?",
    "risks?",
    "scores?",
    "filters?",
    "explainers?",
    "simulators?",
    "warnings?",
    "counters?",
    "tests?",
    "protection",
    "prevention",
    "schedule",
    "reminders?",
)
#: a person a model could be told to keep something from
TOLD_PERSON = (
    "the user",
    "user",
    "anyone",
    "them",
    "the human",
    "the owner",
    "him",
    "her",
)
#: words just after a secret that say where it goes: the name asks for it
SECRET_PLACES = ("here", "goes", "below", "field", "please", "now")
#: words after a secret asking for the reader's own (``..._enter_yours``)
YOURS_ASKED = (
    "(?:enter|paste|type|give|send|put|share|provide|submit|drop|add|insert|input) "
    "yours",
    "yours here",
)
#: a part this long may hold a phrase's start or end inside it (a squashed run of words
#: beside separated ones: ``pleaseignoreprevious_instructions``); shorter ones are words
#: of their own (``center``, ``repay``, ``fingerprint``)
MIN_SQUASHED_PART = 12
#: the digits and letters a person reads as a letter (UTS #39's ASCII confusables, and
#: the digits written for letters: ``s3nd``, ``fund5``, ``t0``, ``a11``)
LOOK_ALIKES = {
    "a": "4",
    "b": "8",
    "e": "3",
    "g": "9",
    "i": "1l",
    "l": "1i",
    "o": "0",
    "s": "5",
    "t": "7",
    "z": "2",
}
#: letters of the words before a phrase read for a negation, a holder or a verb
MAX_WORDS_BEFORE_CHARS = 24
#: characters of a name read (a served name is at most
#: :attr:`.limits.Limits.max_name_length`; a longer one is read in part, boundedly)
MAX_NAME_READ_CHARS = 512
_CASE_CHANGE = re.compile(r"(?<=[a-z0-9])(?=[A-Z][a-z])|(?<=[a-z])(?=[A-Z])")
_NOT_LETTER_NOR_DIGIT = re.compile(r"[^a-z0-9]+")


def squashed(text: str) -> str:
    """A text's ASCII letters and digits, lowercase, nothing between them.

    :param text: a tool's name (or any text).
    :return: e.g. ``"sendallfundsto0xabab"`` for ``"Send_All-Funds.To 0xABAB"``.
    """
    return _NOT_LETTER_NOR_DIGIT.sub("", text.lower())


def name_parts(name: str) -> List[str]:
    """A name's words as written: split at separators and case changes, lowercase.

    :param name: a tool's name.
    :return: its parts (ASCII letters and digits, look-alike letters of other scripts
        folded: :func:`.letter_forms.folded`), e.g. ``["send", "everything",
        "to0xabab"]`` for ``"sendEverythingTo0XABAB"``; digits stay in their part.
    """
    split = _CASE_CHANGE.sub(" ", folded(name))
    return [part for part in _NOT_LETTER_NOR_DIGIT.split(split.lower()) if part]


#: the letter each digit written for one reads as (``pa55word``, ``k3y``, ``y0ur``);
#: ``1`` is read as ``i`` and, in a second reading, as ``l``
DIGITS_AS_LETTERS = (
    str.maketrans("013457", "oieast"),
    str.maketrans("013457", "oleast"),
)
#: a part read as a number or an address, never respelled (``0xabab``, ``erc20``,
#: ``gpt4``, ``v1``, ``2fa``, ``12``); a digit inside letters is read (``k3y``)
_NUMBER_PART = re.compile(r"0x[0-9a-f]*|[0-9]*|[a-z]{1,4}[0-9]+|[0-9]+[a-z]{1,3}")


def digits_read_as_letters(name: str) -> Tuple[str, ...]:
    """A name's words with the digits written for letters read as those letters.

    :param name: a tool's name.
    :return: its parts joined by spaces, digits inside a word of letters read as
        letters (:data:`DIGITS_AS_LETTERS`): ``("your password here",)`` for
        ``y0ur_pa55word_here``; a part that reads as a number or an address
        (:data:`_NUMBER_PART`) stays; () when no digit is read (the name's own words
        are read elsewhere).
    """
    parts = name_parts(name[:MAX_NAME_READ_CHARS])
    readings = []
    for digits in DIGITS_AS_LETTERS:
        read = [
            part if _NUMBER_PART.fullmatch(part) else part.translate(digits)
            for part in parts
        ]
        if read != parts:
            readings.append(" ".join(read))
    return tuple(dict.fromkeys(readings))


def respelled(phrase: str) -> str:
    """A phrase as a regular expression over a squashed name, letters respelled.

    :param phrase: lowercase words and regular-expression groups (``(?:me )?``).
    :return: the phrase without spaces, each letter a class of itself and its
        :data:`LOOK_ALIKES` (``s`` is ``[s5]``).
    """
    out = []
    for char in phrase.replace(" ", ""):
        alike = LOOK_ALIKES.get(char, "") if char.isalpha() else ""
        out.append(f"[{char}{alike}]" if alike else char)
    return "".join(out)


def _compiled(phrases: Mapping[str, str]) -> Tuple[Tuple[str, "re.Pattern[str]"], ...]:
    """Each phrase as said, with its :func:`respelled` pattern."""
    return tuple(
        (said, re.compile(respelled(phrase))) for said, phrase in phrases.items()
    )


def _as_said(phrases: Sequence[str]) -> Dict[str, str]:
    return {phrase: phrase for phrase in phrases}


_ORDERS = _compiled({**_as_said(ORDER_PHRASES), **REPEATED_PAYMENT})
_SECRETS = _compiled(_as_said(NAME_SECRET_NOUNS))
_ORDINARY_SECRETS = _compiled(
    {
        noun.replace("#", "12"): noun.replace("#", MNEMONIC_LENGTH)
        for noun in NAME_ORDINARY_SECRET_NOUNS
    }
)
_FUNDS = _compiled(_as_said(FUNDS_WORDS))
_NOT_ORDERED_BEFORE = re.compile(respelled(alternation(NOT_ORDERED_BEFORE)))
_RELATIVE_BEFORE = re.compile(respelled(alternation(RELATIVE_BEFORE)))
#: a phrase naming what a tool may watch for: funds moved, an allowance, a repeat (the
#: frame disregarded or the model renamed is never a subject: ``..._checker`` after
#: "ignore previous instructions" still orders)
_ACTIVITY = re.compile(
    r"\b(?:pay|pays|paying|charge|charges|call|calls|run|invoke|repeat|retry|"
    r"raise|approve|grant|give|sign|set approval|send|transfer|move|withdraw|drain|"
    r"empty|sweep|all funds|funds|eth)\b"
)
_TELLING = re.compile(r"(?:do not|dont|don t|never) tell")
_ORDER_SUBJECT = re.compile(respelled(alternation(ORDER_SUBJECTS)))
_SECRET_SUBJECT = re.compile(respelled(alternation(SECRET_SUBJECT_WORDS)))
_TOLD_PERSON = re.compile(respelled(alternation(TOLD_PERSON)))
_SECRET_HOLDER = re.compile(
    respelled(alternation([h for h in READER_HOLDERS if h.isalpha()] + ["users?"]))
    + r"(?:[a-z0-9]+)?"
)
_PLACING_VERB = re.compile(
    respelled(alternation([v for v in HANDING_VERBS + PLACING_VERBS if v.isalpha()]))
    + r"(?:[a-z0-9]+)?"
)
_SECRET_PLACE = re.compile(respelled(alternation(SECRET_PLACES)))
#: the reader's own asked for after a secret, anywhere after it (adv29zw2)
_YOURS_ASKED = re.compile(respelled(alternation(YOURS_ASKED)))


class _Name:
    """A name's parts joined, and where a phrase may start and end in them."""

    def __init__(self, name: str) -> None:
        self.parts = name_parts(name[:MAX_NAME_READ_CHARS])
        self.joined = "".join(self.parts)
        self.edges: Set[int] = {0}
        squashed_run = len(self.parts) == 1
        at = 0
        for part in self.parts:
            if squashed_run or len(part) >= MIN_SQUASHED_PART:
                self.edges.update(range(at, at + len(part)))
            at += len(part)
            self.edges.add(at)

    def found(self, pattern: "re.Pattern[str]") -> Iterator[Tuple[int, int]]:
        """Each (start, end) where the pattern matches from an edge to an edge."""
        for start in sorted(self.edges):
            match = pattern.match(self.joined, start)
            if match and match.end() in self.edges and match.end() > start:
                yield start, match.end()

    def ends_before(self, pattern: "re.Pattern[str]", start: int) -> bool:
        """Whether the pattern spans the name's letters from an edge to a position."""
        return any(
            pattern.fullmatch(self.joined, edge, start)
            for edge in range(max(0, start - MAX_WORDS_BEFORE_CHARS), start)
            if edge in self.edges
        )

    def after(self, end: int) -> str:
        """The name's letters after a position."""
        return self.joined[end:]


def _payee_paid(name: _Name) -> Optional[str]:
    """The funds word of a name holding a payee (:data:`PAYEE`), if both are there."""
    if not PAYEE.search(name.joined):
        return None
    for word, pattern in _FUNDS:
        if any(name.found(pattern)):
            return word
    return None


def _named_as_subject(name: _Name, phrase: str, start: int, end: int) -> bool:
    """Whether a phrase found in a name is its subject, not an order to a model.

    :param name: the name read.
    :param phrase: the phrase's words (lowercase).
    :param start: where it starts in the name's letters.
    :param end: where it ends.
    :return: for a phrase addressed to "you", a relative word before it
        (:data:`RELATIVE_BEFORE`); for "do not tell", no person told after it; for a
        payment, a transfer, an allowance or a repeat, a negation or a watching verb
        before it (:data:`NOT_ORDERED_BEFORE`) or a watching noun after it
        (:data:`ORDER_SUBJECTS`); False for any other phrase.
    """
    if phrase.startswith("you "):
        return name.ends_before(_RELATIVE_BEFORE, start)
    if _TELLING.fullmatch(phrase):
        return not _TOLD_PERSON.match(name.after(end))
    if _ACTIVITY.search(phrase):
        return bool(
            name.ends_before(_NOT_ORDERED_BEFORE, start)
            or _ORDER_SUBJECT.match(name.after(end))
        )
    return False


def squashed_order(name: str) -> Optional[str]:
    """The order phrase a name holds, read as its parts joined and respelled, if any.

    :param name: a tool's name.
    :return: the :data:`ORDER_PHRASES` or :data:`REPEATED_PAYMENT` entry found, or
        ``"<funds word> to 0x..."`` for a name holding a payee and a funds word; None
        when none is found, or each found is the name's subject (a negation or a
        watching verb before it, a subject word after it).
    """
    read = _Name(name)
    paid = _payee_paid(read)
    if paid:
        return f"{paid} to 0x..."
    for phrase, pattern in _ORDERS:
        for start, end in read.found(pattern):
            if not _named_as_subject(read, phrase, start, end):
                return phrase
    return None


def phrase_named_as_subject(name: str, phrase: str) -> bool:
    """Whether every place a prose check's phrase stands in a name makes it a subject.

    For the phrases the prose checks find in a name's words (``pay twice`` in
    ``pay_twice_detector``, ``you must`` in ``places_you_must_visit``, ``do not tell``
    in ``do_not_tell_spoilers``), read as :func:`squashed_order` reads its own
    (:func:`_named_as_subject`).

    :param name: a tool's name.
    :param phrase: lowercase words a prose check found in the name's words.
    :return: False when the phrase stands anywhere as an order (or is not found in the
        name's parts, as it may be in another reading: then it is not excused).
    """
    read = _Name(name)
    if _payee_paid(read):
        return False
    places = list(
        read.found(re.compile(respelled(re.escape(phrase).replace("\\ ", " "))))
    )
    if not places:
        return False
    return all(_named_as_subject(read, phrase, start, end) for start, end in places)


def _asked_secret(name: _Name, start: int, end: int, ordinary: bool) -> bool:
    """Whether a secret found in a name is asked for there."""
    if _YOURS_ASKED.search(name.after(end)):
        return True  # ``mnemonic_watcher_enter_yours``: whatever the words between
    if _SECRET_SUBJECT.match(name.after(end)):
        return False
    if not ordinary:
        return True
    return bool(
        name.ends_before(_SECRET_HOLDER, start)
        or name.ends_before(_PLACING_VERB, start)
        or _SECRET_PLACE.match(name.after(end))
    )


def squashed_secret(name: str) -> Optional[str]:
    """The secret a name asks for, read as its parts joined and respelled, if any.

    :param name: a tool's name.
    :return: the :data:`.secret_vocabulary.NAME_SECRET_NOUNS` or
        :data:`.secret_vocabulary.NAME_ORDINARY_SECRET_NOUNS` entry found where it is
        asked for (``seedphrasevalidator``, ``study_mnemonics``: None).
    """
    read = _Name(name)
    for ordinary, nouns in ((False, _SECRETS), (True, _ORDINARY_SECRETS)):
        for noun, pattern in nouns:
            for start, end in read.found(pattern):
                if _asked_secret(read, start, end, ordinary):
                    return noun
    return None
