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

"""How a letter is read: a look-alike, decorated or framed form as its ASCII letter.

A person reads ``prіvate`` (Cyrillic ``і``), ``ᴘʀɪᴠ`` (small capitals), ``🅿🅰🆂🆂``
(negative squared letters) and ``ꝑrivate`` (a p with a stroke) as the English words,
and a model reads through them; the text checks of :mod:`.untrusted_text` read every
text :func:`folded`, so each is caught as its ASCII spelling is (adv29o, adv29u).

Fixed data only, so every agent folds alike: the frozen Unicode 3.2 database, Python
3.11's database (which the wheels pin: its decompositions and character names) and the
pinned UTS #39 confusables table. A letter is read, in this order, as:

1. nothing, when it is a combining mark (drawn over the letter before it);
2. the letter its name says it is a form of (:func:`_named_letter`): an ASCII letter in
   a frame (squared, circled, parenthesized, negative, bracketed, full-width), with a
   decoration (``WITH`` a stroke, hook, bar, descender, tail, flourish...) or in a form
   read as it (script, dotless, insular); a regional indicator; a framed digit;
3. what its compatibility decomposition spells in ASCII (``clé`` is ``cle``);
4. the letter of a small capital, modifier or Cherokee small letter;
5. the ASCII letter the confusables table reads it as.

A word all of one script other than Latin, among prose of that script, is that
script's word, not a look-alike: :func:`other_script_words_kept` folds a text but for
such words, for the checks of short words that other scripts spell by chance (the
Cyrillic ``РК`` is ``PK``). The fold is decided per word: a word whose letters all look
like Latin ones (:func:`spells_latin`) is read as the Latin word it looks like unless
the nearest words around it that are no such look-alikes are that script's own
(``Enter your ΝΑΙ ΡΙΝ`` is ``Enter your NAI PIN``), and
:func:`look_alike_words_folded` reads every such word as Latin, for the request shapes
whatever other-script words stand between (fix29ya).
"""

import functools
import re
import string
import unicodedata
from typing import Dict, List

from confusable_homoglyphs.confusables import confusables_data
from mech_catalogue_core.model.rendered_text import combining_marks


def folded(text: str) -> str:
    """A text with accents dropped and every letter form read as its ASCII letter.

    In the module's order (:func:`_folded_char`): ``clé`` is ``cle``, ``prіvate``
    (Cyrillic ``і``) and ``pri⃗vate`` (any combining mark) are ``private``, ``ᴘʀɪᴠ``
    (small capitals), ``ᵖʳᶦᵛ`` (modifier letters) and ``ꮲꭱꭵ`` (Cherokee small letters)
    are ``priv``, ``🅿🅰🆂🆂`` is ``PASS`` and ``ꝑᵲɨv`` is ``priv``. Linear: each distinct
    character is looked up once (:class:`_Folds`).

    :param text: any text.
    :return: the folded text (ASCII characters unchanged).
    """
    if text.isascii():
        return text
    return text.translate(_FOLDS)


class _Folds(Dict[int, str]):
    """Code point -> :func:`_folded_char`, filled as met (a text repeats its letters).

    A table for ``str.translate``; at most :data:`MAX_FOLDS_KEPT` are kept, so a text
    of every code point does not grow it without bound.
    """

    def __missing__(self, code: int) -> str:
        fold = _folded_char(chr(code))
        if len(self) < MAX_FOLDS_KEPT:
            self[code] = fold
        return fold


#: folds :class:`_Folds` keeps at most
MAX_FOLDS_KEPT = 8192
_FOLDS = _Folds()


def _folded_char(char: str) -> str:
    """One character of :func:`folded`.

    :param char: one character.
    :return: its ASCII letter(s) or digit, or the character itself.
    """
    if char.isascii():
        return char
    marks = combining_marks()
    if marks.fullmatch(char):
        return ""
    name = unicodedata.name(char, "")
    return (
        _named_letter(name)
        or _decomposed_letters(char, marks)
        or _small_form_letter(char, name)
        or _confusable_letter(char)
        or char
    )


def _decomposed_letters(char: str, marks: "re.Pattern[str]") -> str:
    """The ASCII a character's compatibility decomposition gives, marks dropped ("" for none)."""
    for database in (unicodedata.ucd_3_2_0, unicodedata):
        bare = marks.sub("", database.normalize("NFKD", char))
        if bare.isascii() and bare:
            return bare
    return ""


def _small_form_letter(char: str, name: str) -> str:
    """The letter of a small capital, modifier or Cherokee small letter ("" for none).

    :param char: one character.
    :param name: its name in Python 3.11's database.
    :return: the letter in lower case (:data:`_LETTER_FORM_NAME`; a Cherokee small
        letter is read as its capital's look-alike).
    """
    named = _LETTER_FORM_NAME.fullmatch(name)
    if named:
        return named.group(1).lower()
    if name.startswith("CHEROKEE SMALL LETTER"):
        return _confusable_letter(char.upper()).lower()
    return ""


def _confusable_letter(char: str) -> str:
    """The ASCII letter the confusables table reads a character as, in its case ("" for none)."""
    letters = [
        h["c"]
        for h in confusables_data.get(char, ())
        if len(h["c"]) == 1 and h["c"].isascii() and h["c"].isalpha()
    ]
    if not letters:
        return ""
    letter = min(letters)
    if not char.isupper():
        return letter
    # in the character's own case, so a capital look-alike splits no camelCase word; a
    # capital bar (Cyrillic І, Greek Ι), whose skeleton is "l", reads as a capital I
    return "I" if letter == "l" else letter.upper()


#: what may follow a letter's name and keep it read as the letter: a bar, a rotunda or
#: longa form, an apostrophe before it, or ``WITH`` a decoration (a stroke, hook, tail,
#: curl...), never ``WITH`` another letter (a digraph: its decomposition spells both)
_DECORATION = (
    r"(?: (?:BAR|ROTUNDA|LONGA|PRECEDED BY APOSTROPHE))?(?: WITH (?:(?! LETTER ).)++)?"
)
#: the Unicode name of a small capital, modifier, superscript or subscript form of an
#: ASCII letter, which no decomposition reads as that letter (Python 3.11's names),
#: decorated or not; group 1 is the letter: ``LATIN LETTER SMALL CAPITAL G`` (``ɢ``)
#: and ``MODIFIER LETTER SMALL G WITH HOOK`` are ``g``
_LETTER_FORM_NAME = re.compile(
    r"(?:LATIN LETTER SMALL CAPITAL|LATIN (?:SMALL|CAPITAL) LETTER SMALL CAPITAL|"
    r"LATIN SMALL CAPITAL LETTER|"
    r"(?:LATIN )?SUBSCRIPT SMALL LETTER|SUPERSCRIPT LATIN SMALL LETTER|"
    r"MODIFIER LETTER (?:SMALL CAPITAL|SMALL|CAPITAL)) ([A-Z])" + _DECORATION
)


#: the Unicode name of an ASCII letter in a frame (squared, circled, parenthesized,
#: negative, crossed, bracketed, full-width) or in a form that keeps it read as that
#: letter (:data:`_DECORATION`; a script, dotless, insular, broken or barred form, an
#: epigraphic I longa), which no decomposition reads as the letter alone (Python 3.11's
#: names): group 1 is ``CAPITAL``, ``SMALL`` or ``EPIGRAPHIC`` (a capital), group 2 the
#: letter, so ``NEGATIVE SQUARED LATIN CAPITAL LETTER P`` (``🅿``) is ``P`` and ``LATIN
#: SMALL LETTER P WITH STROKE THROUGH DESCENDER`` (``ꝑ``) is ``p``. Not matched: a
#: turned, reversed, open or sideways letter (read as another sign), a name of two or
#: more letters (``AE``, ``OE``, ``ETH``, ``THORN``, ``ENG``: letters of their own), and
#: the tag and combining letters (removed as invisible, dropped as marks)
_DECORATED_LETTER_NAME = re.compile(
    r"(?!TAG |COMBINING )(?:[A-Z-]+ )*?LATIN (CAPITAL|SMALL|EPIGRAPHIC) LETTER "
    r"(?:(?:SCRIPT|DOTLESS|INSULAR|CLOSED INSULAR|BROKEN|VISIGOTHIC|MIDDLE-WELSH|"
    r"OLD POLISH|ANGLICANA|MIDDLE SCOTS|SIGMOID|AFRICAN|BLACKLETTER|LONG|BARRED|"
    r"SMALL) )?"
    r"([A-Z])" + _DECORATION
)
#: a regional indicator (two of them show a flag, and a model reads the letters)
_REGIONAL_LETTER_NAME = re.compile(r"REGIONAL INDICATOR SYMBOL LETTER ([A-Z])")
#: an ASCII digit in a frame no decomposition removes (``DINGBAT NEGATIVE CIRCLED
#: DIGIT TWO``, ``➋``); digits of other scripts are other signs
_FRAMED_DIGIT_NAME = re.compile(
    r"(?:(?:DINGBAT|NEGATIVE|DOUBLE|CIRCLED|SANS-SERIF|SQUARED|PARENTHESIZED) )+"
    r"DIGIT (ZERO|ONE|TWO|THREE|FOUR|FIVE|SIX|SEVEN|EIGHT|NINE)"
)
_DIGITS = "ZERO ONE TWO THREE FOUR FIVE SIX SEVEN EIGHT NINE".split()
#: letters a name spells as more than one ASCII letter that a reader reads as them
_SPELLED_AS = {"LATIN SMALL LETTER SHARP S": "ss", "LATIN CAPITAL LETTER SHARP S": "SS"}


def _named_letter(name: str) -> str:
    """The ASCII letter(s) or digit a character's Unicode name says it is a form of.

    :param name: a character's name in Python 3.11's database (``""`` for none).
    :return: a decorated letter in the name's case (``CAPITAL`` is upper case:
        :data:`_DECORATED_LETTER_NAME`), a regional indicator's letter in upper case,
        a framed digit, ``ss`` for a sharp s; ``""`` when the name says none.
    """
    decorated = _DECORATED_LETTER_NAME.fullmatch(name)
    if decorated:
        case, letter = decorated.groups()
        return letter.lower() if case == "SMALL" else letter
    regional = _REGIONAL_LETTER_NAME.fullmatch(name)
    if regional:
        return regional.group(1)
    digit = _FRAMED_DIGIT_NAME.fullmatch(name)
    if digit:
        return str(_DIGITS.index(digit.group(1)))
    return _SPELLED_AS.get(name, "")


#: a run of letters (group 1: what :func:`other_script_words_kept` takes for a word)
_LETTER_RUN = re.compile(r"([^\W\d_]+)")


def other_script_words_kept(text: str) -> str:
    """The text :func:`folded`, but for words of another script read in that script.

    Each word is read by its own letters and the words around it (adv29x F2, fix29ya):

    - a word that mixes scripts, or whose letters all read as Latin ones, is folded;
    - a word all of one other script that has a letter no Latin letter looks like
      (``Столица``, ``ΙΣΤΟΡΙΑ``: the script's own word) is kept when its neighbouring
      words (before and after, those there are) are of its script too, else folded;
    - a word all of one other script whose letters all look like Latin ones (the Greek
      ``ΡΙΝ``, the Cyrillic ``РК``: :func:`spells_latin`) is read as the Latin word it
      looks like unless the text around it is its script: it is kept only when the
      nearest word on each side that is not such a look-alike (those there are) is a
      kept word of its script, or when the text holds no other word. So ``Enter your
      ΝΑΙ ΡΙΝ`` is ``Enter your NAI PIN`` (no word of Greek prose around it), while
      ``Столица РК — Астана`` (the Republic of Kazakhstan) keeps ``РК``.

    :param text: any text.
    :return: the text folded but for those words. Linear.
    """
    if text.isascii():
        return text
    parts = _LETTER_RUN.split(text)  # odd indices are the runs of letters
    words = range(1, len(parts), 2)
    scripts = {index: _one_script(parts[index]) for index in words}
    look_alike = {
        index: scripts[index] not in ("", "LATIN") and spells_latin(parts[index])
        for index in words
    }
    kept = {
        index: not look_alike[index]
        and scripts[index] not in ("", "LATIN")
        and all(
            scripts.get(neighbour) == scripts[index]
            for neighbour in (index - 2, index + 2)
            if 0 < neighbour < len(parts)
        )
        for index in words
    }
    # the nearest word that is no look-alike, on each side of every word
    before: Dict[int, int] = {}
    last = -1
    for index in words:
        before[index] = last
        if not look_alike[index]:
            last = index
    after: Dict[int, int] = {}
    last = -1
    for index in reversed(words):
        after[index] = last
        if not look_alike[index]:
            last = index
    for index in words:
        if look_alike[index]:
            sides = [side for side in (before[index], after[index]) if side >= 0]
            kept[index] = all(
                kept[side] and scripts[side] == scripts[index] for side in sides
            )
    return "".join(
        part if kept.get(index, False) else folded(part)
        for index, part in enumerate(parts)
    )


def look_alike_words_folded(text: str) -> str:
    """The text :func:`folded`, but for words of another script spelled in its own letters.

    Every word whose letters all read as Latin ones (:func:`spells_latin`: the Greek
    ``ΡΙΝ``, the Cyrillic ``РК``) is read as the Latin word it looks like wherever it
    stands, and a word of one other script with a letter of its own (``ΛΑΙ``,
    ``Столица``) is kept as written: the words a request shape reads (``Enter your ΛΑΙ
    ΡΙΝ`` is ``Enter your ΛΑΙ PIN``, which a person reads as a request for a PIN) whatever
    the other script's words around it.

    :param text: any text.
    :return: the text folded but for those words. Linear.
    """
    if text.isascii():
        return text
    parts = _LETTER_RUN.split(text)
    return "".join(
        (
            part
            if index % 2
            and _one_script(part) not in ("", "LATIN")
            and not spells_latin(part)
            else folded(part)
        )
        for index, part in enumerate(parts)
    )


def spells_latin(word: str) -> bool:
    """Whether every letter of a word reads as a Latin letter (:func:`folded`).

    :param word: a run of letters.
    :return: True for ``ΡΙΝ`` (Greek capitals), ``РК`` (Cyrillic) and ``PIN``; False
        for ``ΛΑΙ``, ``Столица`` (a letter with no Latin look-alike).
    """
    spelled = folded(word)
    return spelled.isascii() and spelled.isalpha()


def _one_script(word: str) -> str:
    """The script all letters of a word are of (:func:`_script_of`); "" when mixed."""
    scripts = {_script_of(char) for char in word}
    return scripts.pop() if len(scripts) == 1 else ""


@functools.lru_cache(maxsize=MAX_FOLDS_KEPT)
def _script_of(char: str) -> str:
    """``LATIN`` for a letter read as a Latin one, else the first word of its name."""
    if char.isascii():
        return "LATIN"
    name = unicodedata.name(char, "")
    if "LATIN" in name or _named_letter(name):
        return "LATIN"
    if unicodedata.normalize("NFKD", char).isascii():  # mathematical, modifier forms
        return "LATIN"
    return name.split(" ", 1)[0]


#: what may be an ASCII look-alike: a bar, 1 or 0 beside a capital, a capital I, a 0, 1
#: or bar after a letter, or ``rn`` starting a word (no English word starts so; inside
#: words it is common, ``return``, and read as written)
_MAY_BE_LOOKALIKE = re.compile(
    r"[A-Z][l1|0]|[l1|0][A-Z]|[A-Za-z][I01|]|(?<![A-Za-z0-9|])rn"
)
#: the characters of an ASCII word as :func:`ascii_lookalikes_read` reads words
_WORD_CHARS = frozenset(string.ascii_letters + string.digits + "|")
#: the rest of such a word from a position in it
_WORD_REST = re.compile(r"[A-Za-z0-9|]*+")
#: a word read as a number, never as letters: hexadecimal digits (with one digit at
#: least, ``deadbeef00``, ``0x1f``), or holding a digit other than 0 and 1 beside 0 or 1
#: (``ERC20``, ``x509``, ``SHA256``)
_NUMBER_WORD = re.compile(
    r"(?:0[xX])?+(?=[A-Fa-f]*+[0-9])[0-9A-Fa-f]++|.*?(?:[2-9][01]|[01][2-9]).*+"
)
#: a run of look-alikes between two letters of a word with lower-case letters
_BETWEEN_LETTERS = re.compile(r"(?<=[A-Za-z])[I01|]++(?=[A-Za-z])")
#: look-alikes in a word of capitals: ``l``, ``1`` and ``|`` are ``I``, ``0`` is ``O``
_AS_CAPITALS = str.maketrans("l1|0", "IIIO")
#: look-alikes between lower-case letters: ``I``, ``1`` and ``|`` are ``l``, ``0``
#: is ``o``
_AS_SMALL_LETTERS = str.maketrans("I1|0", "lllo")
#: the shortest word with lower-case letters whose look-alikes are read: shorter ones are
#: abbreviations (``l0g``, ``l10n``, ``a11y``)
MIN_SMALL_LOOKALIKE_WORD = 5


def ascii_lookalikes_read(text: str) -> str:
    r"""A text with the ASCII characters a person reads as other letters read as those.

    The pinned confusables table (UTS #39) pairs ``l``, ``I``, ``1`` and ``|``, ``0``
    and ``O``, and ``rn`` and ``m``; :func:`folded` leaves every ASCII character as it
    is. In a word (a run of ASCII letters, digits and bars) whose letters are capitals
    but for ``l`` (``PRlVATE``, ``PASSW0RD``, ``APl``, ``lGNORE``), ``l``, ``1`` and
    ``|`` are read as ``I`` and ``0`` as ``O``; in a word of
    :data:`MIN_SMALL_LOOKALIKE_WORD` characters or more with lower-case letters, the
    ``I``, ``1``, ``|`` and ``0`` between two letters (``passw0rd``, ``waIIet``) are
    read as ``l`` and ``o``, and ``rn`` starting it as ``m`` (``rnnemonic``). A number
    (:data:`_NUMBER_WORD`: ``0x1f``, ``deadbeef00``, ``ERC20``), a shorter word (``l0g``,
    ``l10n``) and digits at a word's edge in a word with lower-case letters (``v1``,
    ``IPv4``) stay as written, and so does a word after a backslash (an escape,
    ``\u00e9``). The checks read this as one more reading, besides the
    text as written (adversarial review adv29yt).

    :param text: any text (folded first when it holds other scripts).
    :return: the text with those characters read as letters. Linear.
    """
    kept: List[str] = []
    done = 0  # the text before it is read
    for candidate in _MAY_BE_LOOKALIKE.finditer(text):
        start = candidate.start()
        if start < done:  # in a word read already
            continue
        while start > done and text[start - 1] in _WORD_CHARS:
            start -= 1
        rest = _WORD_REST.match(text, candidate.start())  # always matches
        end = rest.end() if rest else candidate.end()
        word = text[start:end]
        escaped = start > 0 and text[start - 1] == "\\"  # \u00e9, \x01: no word
        kept += [text[done:start], word if escaped else _word_read(word)]
        done = end
    if not kept:
        return text
    kept.append(text[done:])
    return "".join(kept)


def _word_read(written: str) -> str:
    """One word of :func:`ascii_lookalikes_read`."""
    if _NUMBER_WORD.fullmatch(written):
        return written
    letters = [char for char in written if char.isalpha() and char != "l"]
    if letters and all(char.isupper() for char in letters):
        return written.translate(_AS_CAPITALS)
    if len(written) < MIN_SMALL_LOOKALIKE_WORD:
        return written
    between = _BETWEEN_LETTERS.sub(
        lambda run: run.group(0).translate(_AS_SMALL_LETTERS), written
    )
    return "m" + between[2:] if between.startswith("rn") else between
