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

"""Words spelled apart, read as the words they spell (adv29z K7).

A person reads ``P.I.N.``, ``p a s s w o r d``, ``p-a-s-s-w-o-r-d`` and ``P/I/N`` as the
word spelled, and ``pass-word``, ``pass_word`` or ``pri`` and ``vate`` parted by a thin
space as one word, while the word checks part words at each of those characters.
:func:`spelled_words_joined` writes such words joined: :func:`.untrusted_text.readings`
adds it to every form of a text the word checks read (secrets, requests, instructions).
"""

import re
from typing import Tuple

from mech_catalogue_core.model.hidden_characters import strip_invisible

#: spaces a person reads between letters spelled one by one: a regular, no-break,
#: thin, hair, narrow or ideographic one
_SPELLING_SPACES = " \u00a0\u2000-\u200a\u202f\u205f\u3000"
#: marks a person reads between letters spelled one by one (``P.I.N.``, ``p-a-s-s``,
#: ``P/I/N``): a full stop, a middle dot or bullet, a hyphen or dash, a slash, an
#: underscore
_SPELLING_MARKS = ".\u00b7\u2027\u2219\u22c5\u30fb\\-\u2010-\u2013/\u2215\u2044_"
#: one character a person reads as no more than a gap between letters spelled one by
#: one: a space or a mark of the two above
SPELLING_GAP = f"[{_SPELLING_SPACES}{_SPELLING_MARKS}]"
_SPELLING_GAP = re.compile(SPELLING_GAP)
_SPACE_GAP = re.compile(f"[{_SPELLING_SPACES}]")
_OTHER_GAP = re.compile(f"[{_SPELLING_MARKS}]")
#: a letter or digit (of any script: look-alike letters are folded later)
_LETTER = r"[^\W_]"
#: a run of single letters or digits each parted by one :data:`SPELLING_GAP`
_SPELLED_LETTERS = re.compile(
    rf"(?<!{_LETTER}){_LETTER}(?:{SPELLING_GAP}{_LETTER})+(?!{_LETTER})"
)
#: one character inside a word that a person reads the word across: a space narrower
#: than a word space (six-per-em, punctuation, thin, hair, narrow no-break), a hyphen,
#: an underscore, a middle dot (``pass-word``, ``pass_word``, ``pri`` and ``vate``
#: parted by a thin space)
_IN_WORD_GAP = re.compile(
    rf"(?<={_LETTER})[\u2006\u2008-\u200a\u202f\-\u2010\u2011_\u00b7\u2027]"
    rf"(?={_LETTER})"
)


def spelled_words_joined(text: str) -> str:
    """A text with words spelled apart read as the words they spell (adv29z K7).

    A person reads ``P.I.N.``, ``p a s s w o r d`` and ``p-a-s-s-w-o-r-d`` as the word
    spelled, and ``pass-word``, ``pass_word`` or ``pri`` and ``vate`` parted by a thin
    space as one word; the word checks part words at every such character. Here a run of two or more
    single letters or digits, each parted by one :data:`SPELLING_GAP`, is written
    joined, then every :data:`_IN_WORD_GAP` between two letters is removed. Initials
    parted by more than one character (``J. R. R. Tolkien``, ``x - y``) are left as
    they are; ``a.k.a.``, ``U.S.``, ``A/B`` and ``I/O`` join to ``aka.``, ``US.``,
    ``AB`` and ``IO``, no secret's words.

    :param text: any text (invisible characters are removed first).
    :return: the joined text; linear in its length.
    """
    kept = strip_invisible(text)
    return _IN_WORD_GAP.sub("", _SPELLED_LETTERS.sub(_letters_joined, kept))


def _letters_joined(run: "re.Match[str]") -> str:
    """A :data:`_SPELLED_LETTERS` run's letters joined, a space kept between words.

    A run parted by spaces and by other gaps (``y.o.u m.u.s.t``) spells words apart:
    its spaces stay.

    :param run: a :data:`_SPELLED_LETTERS` match.
    :return: its letters without the gaps (``you must``, ``PIN``).
    """
    letters = run.group(0)
    if _SPACE_GAP.search(letters) and _OTHER_GAP.search(letters):
        return _OTHER_GAP.sub("", letters)
    return _SPELLING_GAP.sub("", letters)


#: what stands for an expression's mark while words spelled apart are joined: no
#: :data:`SPELLING_GAP`, no letter
_KEPT_APART = "\ufffd"


def spelled_apart_of(text: str, spaced: str) -> Tuple[str, ...]:
    """A text's marks of an expression spaced, then words spelled apart joined.

    The space written for a mark (``p_k``'s ``_``) parts the letters either side for
    good: an expression's letters are no word spelled.

    :param text: a text, as written.
    :param spaced: its :func:`.expression_marks.expression_marks_spaced` (the same
        length, a mark written as a space; line breaks normalized).
    :return: the joined text when it differs from ``spaced``, else ().
    """
    if len(spaced) != len(text):  # line breaks normalized: the marks' places moved
        return ()
    kept_apart = "".join(
        _KEPT_APART if mark != letter and letter == " " else letter
        for mark, letter in zip(text, spaced)
    )
    joined = spelled_words_joined(kept_apart).replace(_KEPT_APART, " ")
    return () if joined == spaced else (joined,)
