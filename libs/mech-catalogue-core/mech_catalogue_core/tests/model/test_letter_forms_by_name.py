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

"""A letter form is read as the ASCII letter its Unicode name says it is (adv29u F4).

Forms with no decomposition and no confusables entry (the negative squared and circled
letters, letters with a stroke, hook, bar, descender, tail or flourish, regional
indicators, framed digits) were kept as they are, so a secret spelled in them was not
read. The whole Unicode table of Python 3.11 is enumerated here: every name of the rule
folds to its letter, and names of other letters do not fold to one.
"""

import re
import unicodedata
from typing import Iterator, Tuple

import pytest
from mech_catalogue_core.model.letter_forms import folded
from mech_catalogue_core.model.untrusted_text import secret_asked

#: the rule as the review states it, written apart from the module's: an ASCII letter,
#: in a frame or not, bare or ``WITH`` a decoration (not ``WITH`` another letter)
RULE = re.compile(
    r"(?!TAG |COMBINING )(?:[A-Z-]+ )*?LATIN (CAPITAL|SMALL) LETTER ([A-Z])"
    r"(?: WITH (?!.* LETTER ).+)?"
)
#: adjectives of a letter that keep it read as the letter (a script g, an insular d)
SAME_LETTER = re.compile(
    r"LATIN (?:CAPITAL|SMALL) LETTER (?:SCRIPT|DOTLESS|INSULAR|BROKEN|AFRICAN|"
    r"VISIGOTHIC|MIDDLE-WELSH|BLACKLETTER|BARRED) ([A-Z])(?: WITH .+)?"
)
#: names of letters that are other signs: turned, reversed, open, sideways forms
OTHER_SIGN = re.compile(
    r"LATIN (?:CAPITAL|SMALL) LETTER (?:TURNED|REVERSED|OPEN|SIDEWAYS|INVERTED)\b.*"
)
#: names of letters of their own, spelled with more than one letter
OWN_LETTER = re.compile(
    r"LATIN (?:CAPITAL|SMALL) LETTER (?:AE|OE|ETH|THORN|ENG|EZH|YOGH|WYNN|SCHWA|ESH|"
    r"GLOTTAL STOP|ALPHA|GAMMA|IOTA|UPSILON|CHI|OMEGA)(?: WITH .+)?"
)


def named(pattern: "re.Pattern[str]") -> Iterator[Tuple[str, str, "re.Match[str]"]]:
    """Every character of Python 3.11's table whose name fully matches a pattern."""
    for code in range(0x110000):
        name = unicodedata.name(chr(code), "")
        match = pattern.fullmatch(name)
        if match:
            yield chr(code), name, match


def test_every_decorated_latin_letter_folds_to_its_letter() -> None:
    """Squared, circled, parenthesized, negative, with a stroke/hook/bar/tail: its letter."""
    wrong = [
        (f"U+{ord(c):04X}", name, folded(c))
        for c, name, m in named(RULE)
        if folded(c) != (m.group(2) if m.group(1) == "CAPITAL" else m.group(2).lower())
    ]
    assert not wrong, wrong[:20]


def test_letters_of_the_same_reading_fold_to_it() -> None:
    """A script, dotless, insular, broken or barred letter is read as the letter."""
    forms = list(named(SAME_LETTER))
    assert len(forms) > 20
    assert all(folded(c).lower() == m.group(1).lower() for c, _, m in forms), forms


@pytest.mark.parametrize("pattern", [OTHER_SIGN, OWN_LETTER], ids=["other", "own"])
def test_names_of_other_letters_do_not_fold_by_name(pattern: "re.Pattern[str]") -> None:
    """Turned and reversed signs, and letters such as æ, þ, ŋ, are not a letter by name.

    The confusables table may still read one as a look-alike (``ɯ``, a turned m, is
    ``w``): the name rule adds none of them.

    :param pattern: names of such letters.
    """
    forms = list(named(pattern))
    assert len(forms) > 20
    by_name = [
        (c, name)
        for c, name, m in forms
        if RULE.fullmatch(name) or SAME_LETTER.fullmatch(name)
    ]
    assert not by_name
    for char in "\u00e6\u0153\u00fe\u00f0\u014b\u0292\u01bf\u0259\u0250\u0254":
        assert folded(char) == char, (char, unicodedata.name(char))


#: small capital, modifier, superscript and subscript forms, and letters followed by a
#: bar, rotunda, longa or apostrophe, decorated or not
OTHER_FORMS = re.compile(
    r"(?:LATIN LETTER SMALL CAPITAL|LATIN SMALL CAPITAL LETTER|MODIFIER LETTER "
    r"(?:SMALL CAPITAL|SMALL|CAPITAL)|LATIN (?:CAPITAL|SMALL|EPIGRAPHIC) LETTER) "
    r"([A-Z])(?: BAR| ROTUNDA| LONGA| PRECEDED BY APOSTROPHE)?(?: WITH (?!.* LETTER ).+)?"
)


def test_small_capitals_and_modifiers_with_decorations_fold() -> None:
    """``ʛ`` (small capital G with hook), ``ᶬ`` (modifier m with hook), ``ʉ`` (u bar)."""
    forms = list(named(OTHER_FORMS))
    assert len(forms) > 600
    wrong = [
        (f"U+{ord(c):04X}", name, folded(c))
        for c, name, m in forms
        if folded(c).lower() != m.group(1).lower()
    ]
    assert not wrong, wrong[:20]
    assert folded("\u029b\u1dac\u0289\ua75b\u0149\ua7fe") == "gmurnI"


def test_regional_indicators_and_framed_digits_fold() -> None:
    """A regional indicator is its capital letter; ``➋`` and ``⓶`` are 2."""
    for code in range(0x1F1E6, 0x1F200):
        assert folded(chr(code)) == chr(ord("A") + code - 0x1F1E6)
    digits = list(
        named(
            re.compile(r"(?:DINGBAT |NEGATIVE |DOUBLE |CIRCLED |SANS-SERIF )+DIGIT .+")
        )
    )
    assert len(digits) >= 39
    words = "ZERO ONE TWO THREE FOUR FIVE SIX SEVEN EIGHT NINE".split()
    for char, name, _ in digits:
        assert folded(char) == str(words.index(name.rsplit(" ", 1)[1])), name
    assert folded("\u0662\u0968") == "\u0662\u0968"  # Arabic-Indic, Devanagari two


def test_sharp_s_reads_as_two_letters() -> None:
    """``ß`` is ``ss``: ``Paßwort`` is the German word for password."""
    assert folded("Pa\u00dfwort") == "Passwort"
    assert secret_asked("Ihr Pa\u00dfwort") == "passwort"


def test_tag_characters_and_marks_are_not_letters() -> None:
    """A tag letter is removed as invisible and a combining letter is a mark."""
    tag_a, combining_a = "\U000e0061", "\u0363"
    assert folded(f"pass{tag_a}word") == f"pass{tag_a}word"
    assert folded(f"pass{combining_a}word") == "password"


SPELLED = {
    "negative squared": "\U0001f17f\U0001f170\U0001f182\U0001f182\U0001f186"
    "\U0001f17e\U0001f181\U0001f173",
    "negative circled": "\U0001f15f\U0001f150\U0001f162\U0001f162\U0001f166"
    "\U0001f15e\U0001f161\U0001f153",
    "parenthesized": "\u24ab\u24ad\u24a4\u24b1\u249c\u24af\u24a0 \u24a6\u24a0\u24b4",
    "regional indicators": "\U0001f1f5\U0001f1e6\U0001f1f8\U0001f1f8\U0001f1fc"
    "\U0001f1f4\U0001f1f7\U0001f1e9",
    "stroke and hook": "\u1d7d\u024d\u0268v\u2c65\u01ad\u0247 key",
    "descender and stroke": "\ua751\u2c65ssword",
    "bar and tail": "\u2c68\u019a",  # h with descender, l with bar: no secret
    "crossed negative squared": "\U0001f18b and",
    "framed digits": "your \u278b\U0001f135\U0001f130 code",
}


@pytest.mark.parametrize("text", SPELLED.values(), ids=list(SPELLED))
def test_secrets_spelled_in_letter_forms_are_found(text: str) -> None:
    """Each spelling is read as the ASCII words; a form of no secret stays no secret."""
    asked = secret_asked(f"Paste your {text}")
    if text in ("\u2c68\u019a", "\U0001f18b and"):
        assert asked is None, text
    elif "code" in text:
        assert asked is not None and "2 fa" in asked, text  # 2FA, camelCase split
    else:
        assert asked in ("password", "private key"), text
