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

"""Secrets and instructions to a model in other languages than English (adv29yz K4).

A model reads every language; the English patterns of :mod:`.untrusted_text` read
ASCII words only, so ``Введите ваш пароль`` or ``请粘贴您的私钥`` asked for nothing and
``忽略之前的所有指令`` gave no order. This module reads, for :data:`LANGUAGES`, the terms
for a password, a private key, a seed or recovery phrase (mnemonic), a PIN code, an
API key and a verification code (:data:`SECRET_TERMS`), and the phrases for "ignore
the previous instructions", "you are now" and "system prompt"
(:data:`INSTRUCTION_PHRASES`). Languages not listed there are not read.

The tables and their sources are :mod:`.other_language_terms`'s.

How a text is read (:func:`normalized`): compatibility-decomposed (``ﾊﾟ`` is ``パ``,
full-width letters are ASCII), in capitals :func:`.letter_forms.folded` (marks dropped, every
letter that looks like a Latin one read as it: a Cyrillic ``пароль`` written with
Latin ``a`` and ``o`` reads as the all-Cyrillic one), the Arabic letters Persian writes
otherwise read as Persian's and the tatweel (a stretching stroke) dropped, casefolded,
and every run of characters that are not letters or digits one space. The terms are
read the same way, so each matches every spelling that reads alike. A term matches as
its :class:`Kind` says:

- ``WORD``: whole words (Latin-script languages whose words do not inflect in the
  term: ``kata sandi``);
- ``STEM``: each word of the term starts a word, any ending after it. Russian,
  Ukrainian, Polish, Turkish... inflect a noun by its case (``пароль``, ``пароля``,
  ``паролем``; ``hasło``, ``hasła``, ``hasłem``; ``şifre``, ``şifrenizi``), so the term
  is the stem all forms share (``парол``, ``hasl``);
- ``PART``: anywhere, and with spaces allowed between any two letters: Chinese and
  Japanese write no spaces, Korean attaches its particles (``비밀번호를``), Arabic and
  Persian their articles and pronouns (``كلمة مرورك``), and Devanagari's vowel signs
  part its words where a letter-or-digit reading would not.

A term may name what, right after it, makes it an ordinary word (``unless``).
"""

import re
import unicodedata
from typing import Dict, FrozenSet, Iterator, List, NamedTuple, Optional, Tuple

from mech_catalogue_core.model.letter_forms import folded
from mech_catalogue_core.model.memo import bounded_memo
from mech_catalogue_core.model.other_language_terms import (
    INSTRUCTION_PHRASES,
    LANGUAGES,
    PHRASE_GAP_CHARS,
    PHRASE_GAP_WORDS,
    REQUEST_WINDOW_CHARS,
    REQUEST_WORDS,
    SECRET_TERMS,
    Kind,
    Phrase,
    Term,
)

__all__ = [
    "INSTRUCTION_PHRASES",
    "LANGUAGES",
    "REQUEST_WORDS",
    "SECRET_TERMS",
    "Kind",
    "Phrase",
    "Term",
    "instruction_phrases",
    "normalized",
    "secret_named",
    "secret_requested",
    "secrets_named",
]


#: Arabic letters Persian writes with its own forms (yeh, alef maksura, kaf), read as
#: Persian's; the tatweel, which only stretches a word, read as nothing
_ARABIC_AS_PERSIAN = str.maketrans(
    {"\u064a": "\u06cc", "\u0649": "\u06cc", "\u0643": "\u06a9", "\u0640": None}
)
#: a run of characters that are neither letters nor digits (nor a mark a fold keeps)
_SEPARATORS = re.compile(r"[\W_]+")


def normalized(text: str) -> str:
    """A text as the terms are read (module docstring): folded, casefolded, spaced.

    :param text: any text.
    :return: its words (letters and digits) one space apart, e.g. ``"пapoль"`` (Latin
        ``a``, ``o``, ``p``) for ``"ПАРОЛЬ!"``.
    """
    if text.isascii():
        return _SEPARATORS.sub(" ", text.lower())
    decomposed = unicodedata.normalize("NFKD", text)
    # capitals first: more capitals than small letters look like Latin ones (Cyrillic
    # ``Т`` is ``T``, ``т`` is no ``t``), so a word read either case folds alike
    read = folded(decomposed.upper()).translate(_ARABIC_AS_PERSIAN).casefold()
    return _SEPARATORS.sub(" ", read)


#: texts whose reading is kept: a tool's text is read by the instruction, secret and
#: request checks, each in several forms, most of them the same (bounded: manifests
#: are anyone's, :mod:`.memo`)
READ_MEMO_ENTRIES = 4096
READ_MEMO_CHARS = 4096
READ_MEMO_TOTAL = 1 << 20


@bounded_memo(READ_MEMO_ENTRIES, READ_MEMO_CHARS, READ_MEMO_TOTAL)
def _read(text: str) -> str:
    """A text as the matchers read it: :func:`normalized`, after a space.

    A word starts after a space, the first one too, so a word-start search is one
    substring search (``" парол"``). Kept per text (:data:`READ_MEMO_ENTRIES`).

    :param text: any text.
    :return: ``" "`` and its :func:`normalized` words.
    """
    return " " + normalized(text)


def _letters_pattern(text: str, kind: str) -> str:
    """The regular expression of a normalized term or stem, as its kind matches.

    No pattern starts with an assertion: each is tried where its first letters stand
    (:meth:`_Matcher.matches` checks that a word starts there).

    :param text: the term or stem, :func:`normalized`.
    :param kind: its :class:`Kind`.
    :return: the pattern (a stem's words each followed by any letters, a part's
        letters by an optional space).
    """
    if kind == Kind.PART:
        return " ?".join(re.escape(c) for c in text.replace(" ", ""))
    ending = r"\w*" if kind == Kind.STEM else ""
    return " ".join(f"{re.escape(word)}{ending}" for word in text.split())


def _first_letters(text: str, kind: str) -> str:
    """What a text holding a match of a term or stem must hold.

    :param text: the term or stem, :func:`normalized`.
    :param kind: its :class:`Kind`.
    :return: its first word after a space (a word starts there: texts are read after
        one, :func:`_read`), or for a part its first letter.
    """
    return text[:1] if kind == Kind.PART else " " + text.split()[0]


class _Matcher(NamedTuple):
    """A term's or a phrase's pattern, and what a text must hold for it to be tried."""

    pattern: "re.Pattern[str]"
    #: per slot (one for a term), the first letters one of which a text must hold
    #: (:func:`_first_letters`)
    needs: Tuple[Tuple[str, ...], ...]
    #: what a warning quotes (the term or phrase as the language writes it)
    quoted: str
    #: whether a match must start a word (not for a :data:`Kind.PART`)
    starts_word: bool
    #: the letters a text holding a match holds (a term's; none said for a phrase)
    letters: FrozenSet[str] = frozenset()

    def matches(self, read: str) -> Iterator["re.Match[str]"]:
        """The matches in a text as :func:`_read` reads it.

        Tried only where the first slot's first letters stand (found by ``str.find``),
        and only when every other slot's may: a few tries per occurrence, not one per
        character of the text. :func:`_candidates` gives a matcher only a text holding
        its first slot's.

        :param read: a text as :func:`_read` reads it.
        :yield: each match, in the order of the first slot's first letters.
        """
        if not all(any(n in read for n in need) for need in self.needs[1:]):
            return
        skip = 1 if self.starts_word else 0  # the space before a word's first letters
        for first in self.needs[0]:
            at = read.find(first)
            while at >= 0:
                match = self.pattern.match(read, at + skip)
                if match:
                    yield match
                at = read.find(first, at + 1)


def _term_matcher(term: Term) -> _Matcher:
    """A term as its kind matches, not followed by an ``unless``."""
    word = normalized(term.text).strip()
    kind = term.kind
    if kind == Kind.STEM:
        # the last word's ending is free, but an ``unless`` is read right after the stem
        *first, last = word.split()
        head = _letters_pattern(" ".join(first), Kind.STEM) + " " if first else ""
        guard = "|".join(re.escape(normalized(u)) for u in term.unless)
        pattern = rf"{head}{re.escape(last)}" + (f"(?!{guard})" if guard else "")
        pattern += r"\w*"
    else:
        guard = "|".join(
            _letters_pattern(normalized(u).strip(), kind) for u in term.unless
        )
        pattern = _letters_pattern(word, kind) + (f"(?! ?(?:{guard}))" if guard else "")
        pattern += r"(?!\w)" if kind == Kind.WORD else ""
    return _Matcher(
        re.compile(pattern),
        ((_first_letters(word, kind),),),
        term.text,
        kind != Kind.PART,
        frozenset(word.replace(" ", "")),
    )


def _phrase_matcher(phrase: Phrase) -> _Matcher:
    """A phrase's slots in order, the last two either way round."""
    kind = Kind.STEM if phrase.spaced else Kind.PART
    gap = (
        rf"(?: \w+){{0,{PHRASE_GAP_WORDS}}} "
        if phrase.spaced
        else rf".{{0,{PHRASE_GAP_CHARS}}}?"
    )
    stems = [[normalized(s).strip() for s in slot] for slot in phrase.slots]
    slots = [
        "(?:" + "|".join(_letters_pattern(s, kind) for s in slot) + ")"
        for slot in stems
    ]
    orders = [slots]
    if len(slots) > 2:
        orders.append(slots[:-2] + [slots[-1], slots[-2]])
    return _Matcher(
        re.compile("|".join(gap.join(order) for order in orders)),
        tuple(tuple(_first_letters(s, kind) for s in slot) for slot in stems),
        phrase.text,
        phrase.spaced,
    )


_SECRET_MATCHERS = tuple(
    _term_matcher(term) for terms in SECRET_TERMS.values() for term in terms
)
_INSTRUCTION_MATCHERS = tuple(
    _phrase_matcher(phrase)
    for phrases in INSTRUCTION_PHRASES.values()
    for phrase in phrases
)


_REQUEST_MATCHERS = tuple(
    # a stem of three letters or fewer is a whole word (``tu``, ``su``, ``ta``, ``ihr``
    # start many words)
    _term_matcher(
        term._replace(kind=Kind.WORD)
        if term.kind == Kind.STEM and len(term.text) <= 3
        else term
    )
    for terms in REQUEST_WORDS.values()
    for term in terms
)


def _first_slot_index(
    matchers: Tuple[_Matcher, ...],
) -> Dict[str, Dict[str, Tuple[int, ...]]]:
    """First character -> a first slot's first letters -> the matchers they start."""
    index: Dict[str, Dict[str, List[int]]] = {}
    for number, matcher in enumerate(matchers):
        for first in matcher.needs[0]:
            index.setdefault(first.lstrip()[0], {}).setdefault(first, []).append(number)
    return {c: {f: tuple(ns) for f, ns in fs.items()} for c, fs in index.items()}


_SECRET_INDEX = _first_slot_index(_SECRET_MATCHERS)
_INSTRUCTION_INDEX = _first_slot_index(_INSTRUCTION_MATCHERS)
_REQUEST_INDEX = _first_slot_index(_REQUEST_MATCHERS)


def _candidates(
    read: str,
    matchers: Tuple[_Matcher, ...],
    index: Dict[str, Dict[str, Tuple[int, ...]]],
) -> Iterator[_Matcher]:
    """The matchers whose first slot's first letters and letters a text holds.

    One pass over the text's distinct characters, then a substring test for each
    first letters starting with one of them: a text is not tried against every term
    (nor ``API密钥`` against every text holding an ``a``).

    :param read: a text as :func:`_read` reads it.
    :param matchers: :data:`_SECRET_MATCHERS` or :data:`_INSTRUCTION_MATCHERS`.
    :param index: their :func:`_first_slot_index`.
    :return: the matchers to try.
    """
    chars = set(read)
    numbers = {
        number
        for char in chars.intersection(index)
        for first, starting in index[char].items()
        if first in read
        for number in starting
    }
    return (
        matchers[number]
        for number in sorted(numbers)
        if matchers[number].letters <= chars
    )


def _secret_matches(read: str) -> Iterator[_Matcher]:
    """The secret terms a text as :func:`_read` reads it names, in table order."""
    return (
        m
        for m in _candidates(read, _SECRET_MATCHERS, _SECRET_INDEX)
        if any(m.matches(read))
    )


def secret_named(text: str) -> Optional[str]:
    """The first secret a text names in a language of :data:`LANGUAGES`.

    :param text: any text (a reading of it: :func:`.untrusted_text.readings`).
    :return: the term as :data:`SECRET_TERMS` writes it (e.g. ``"парол"``,
        ``"私钥"``), or None.
    """
    return next((m.quoted for m in _secret_matches(_read(text))), None)


def secrets_named(text: str) -> Tuple[str, ...]:
    """Every secret a text names in a language of :data:`LANGUAGES`, distinct.

    :param text: any text.
    :return: the terms as :data:`SECRET_TERMS` writes them, in its order.
    """
    return tuple(m.quoted for m in _secret_matches(_read(text)))


def instruction_phrases(text: str) -> Tuple[str, ...]:
    """The phrases of a text that address a model in a language of :data:`LANGUAGES`.

    As with the English ones (:data:`.untrusted_text.INSTRUCTION_PATTERNS`), a
    secret's name counts (:func:`secrets_named`): flagged, nothing refused.

    :param text: any text (a reading of it).
    :return: the phrases as :data:`INSTRUCTION_PHRASES` and :data:`SECRET_TERMS` write
        them, distinct, in their order.
    """
    read = _read(text)
    found = list(_instruction_phrases_of(read))
    found += [m.quoted for m in _secret_matches(read)]
    return tuple(dict.fromkeys(found))


#: each language's "ignore the previous instructions" (the first of its
#: :data:`INSTRUCTION_PHRASES`), as a warning quotes it
_ORDERS = frozenset(phrases[0].text for phrases in INSTRUCTION_PHRASES.values())


def orders_given(text: str) -> Tuple[str, ...]:
    """The phrases of a text that order a model, in a language of :data:`LANGUAGES`.

    Each language's "ignore the previous instructions": its "you are now" and "system
    prompt" are said of many things (``Systemprompt`` is also how a German news text
    names one), and a secret named is no order (:func:`instruction_phrases` flags all).

    :param text: any text (a reading of it).
    :return: the phrases as :data:`INSTRUCTION_PHRASES` writes them, distinct, in order.
    """
    return tuple(p for p in _instruction_phrases_of(_read(text)) if p in _ORDERS)


def _instruction_phrases_of(read: str) -> Tuple[str, ...]:
    """The :data:`INSTRUCTION_PHRASES` a text's reading holds, quoted, distinct."""
    return tuple(
        dict.fromkeys(
            m.quoted
            for m in _candidates(read, _INSTRUCTION_MATCHERS, _INSTRUCTION_INDEX)
            if any(m.matches(read))
        )
    )


def secret_requested(text: str) -> Optional[str]:
    """What a text asks its reader to hand over of a secret, in a listed language.

    For prose that is not an argument's (:func:`.secret_requests.secret_requested`):
    a secret named (:data:`SECRET_TERMS`) with a :data:`REQUEST_WORDS` word of any
    listed language within :data:`REQUEST_WINDOW_CHARS` characters either side of it
    (``请粘贴您的私钥``, ``Вставьте ваш приватный ключ в поле запроса``). Naming one
    alone asks nothing (``Хеширует пароль``: hashes the password).

    :param text: any text (a reading of it).
    :return: the secret's term as :data:`SECRET_TERMS` writes it, or None.
    """
    read = _read(text)
    secrets = list(_secret_matches(read))
    if not secrets:
        return None
    asking = [
        m.start()
        for matcher in _candidates(read, _REQUEST_MATCHERS, _REQUEST_INDEX)
        for m in matcher.matches(read)
    ]
    for secret in secrets:
        for named in secret.matches(read):
            if any(
                named.start() - REQUEST_WINDOW_CHARS
                <= at
                <= named.end() + REQUEST_WINDOW_CHARS
                for at in asking
            ):
                return secret.quoted
    return None
