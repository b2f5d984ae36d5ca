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
from typing import Iterable, List, Set, Tuple

from mech_catalogue_core.model.hidden_characters import strip_invisible
from mech_catalogue_core.model.letter_forms import folded

#: spaces a person reads between letters spelled one by one: a regular, no-break,
#: thin, hair, narrow or ideographic one
_SPELLING_SPACES = " \u00a0\u2000-\u200a\u202f\u205f\u3000"
#: marks a person reads between letters spelled one by one (``P.I.N.``, ``p-a-s-s``,
#: ``P/I/N``): a full stop, a middle dot or bullet, a hyphen or dash, a slash, an
#: underscore, a caret (``P^I^N``, as ``P_I_N``)
_SPELLING_MARKS = ".\u00b7\u2027\u2219\u22c5\u30fb\\-\u2010-\u2013/\u2215\u2044_^"
#: what a person reads as no more than a gap between letters spelled one by one: a
#: space or a mark of the two above, or a full stop and a space (``P. I. N.``; initials
#: spelling no checked word, ``J. R. R.``, are left as they are)
SPELLING_GAP = f"(?:\\. |[{_SPELLING_SPACES}{_SPELLING_MARKS}])"
_SPELLING_GAP = re.compile(SPELLING_GAP)
#: a letter or digit (of any script: look-alike letters are folded when a join is
#: weighed, and again by the checks)
_LETTER = r"[^\W_]"
#: a run of single letters or digits each parted by one :data:`SPELLING_GAP`
_SPELLED_LETTERS = re.compile(
    rf"(?<!{_LETTER}){_LETTER}(?:{SPELLING_GAP}{_LETTER})+(?!{_LETTER})"
)
#: one character inside a word that a person reads the word across: a space narrower
#: than a word space (six-per-em, punctuation, thin, hair, narrow no-break), a hyphen,
#: an underscore, a middle dot (``pass-word``, ``pass_word``, ``pri`` and ``vate``
#: parted by a thin space)
_IN_WORD_GAP = "[\u2006\u2008-\u200a\u202f\\-\u2010\u2011_\u00b7\u2027]"
#: a word parted by :data:`_IN_WORD_GAP` characters, and one such character
#: (possessive: a long word without one is passed over in one step)
_PARTED_WORD = re.compile(rf"(?<!{_LETTER}){_LETTER}++(?:{_IN_WORD_GAP}{_LETTER}++)+")
_IN_WORD_GAP_CHAR = re.compile(_IN_WORD_GAP)


def checked_words(patterns: Iterable[str], short: Iterable[str]) -> "re.Pattern[str]":
    """The words regular expressions look for: what a join must make to matter.

    A join is read only where it makes one of these words (``pass-word`` makes
    "password"; ``real-time`` makes none), so an honest text's hyphens add no reading
    and no cost, and the words follow the checks' own patterns (a word added there is
    read spelled apart too).

    :param patterns: ASCII regular expressions written in lower case (their escapes,
        character classes and optional characters are dropped: ``keys?`` gives "key");
        their words of three or more characters are taken (two letters joined to
        ``us`` or ``is`` make no secret: ``U.S.``).
    :param short: two-character words taken as well (``pk``, ``sk``).
    :return: a pattern finding, at each position of a lower-case text, the longest
        such word of two or more characters (group 1), overlapping matches included.
    """
    source = " ".join(patterns)
    source = re.sub(r"\\.|\[[^\]]*\]|\{[^}]*\}", " ", source)
    source = re.sub(r".\?", "", source)  # an optional space joins: "pin ?code"
    words = {w for w in re.findall(r"[a-z0-9]+", source) if len(w) > 2}
    words = {w for w in words if not w.isdigit()} | set(short)
    ordered = sorted(words, key=lambda w: (-len(w), w))
    return re.compile(r"(?=(" + "|".join(ordered) + "))")


def spelled_words_joined(
    text: str, checked: "re.Pattern[str]", parted: bool = False
) -> str:
    """A text with words spelled apart read as the words they spell (adv29z K7).

    A person reads ``P.I.N.``, ``p a s s w o r d`` and ``p-a-s-s-w-o-r-d`` as the word
    spelled, and ``pass-word``, ``pass_word`` or ``pri`` and ``vate`` parted by a thin
    space as one word; the word checks part words at every such character. Here a run
    of two or more single letters or digits, each parted by one :data:`SPELLING_GAP`,
    is written joined when it spells a word the checks read (spaces kept between words
    spelled with other marks: ``y.o.u m.u.s.t``), then a word's :data:`_IN_WORD_GAP`
    characters are removed where a checked word crosses them. Initials parted by more
    than one character (``J. R. R. Tolkien``, ``x - y``) and runs spelling no checked
    word (``a.k.a.``, ``A/B``, ``I/O``) are left as they are.

    With ``parted``, a run spelling a whole phrase with one gap throughout has the
    checked words inside it written apart (:func:`checked_words_parted`:
    ``y o u r p a s s w o r d`` reads ``your password``): a reading of its own, since
    a word the checks match by a pattern no word of :func:`checked_words` spells
    (``x p r v``: ``[xtyzuv]prv``) reads whole only unparted.

    :param text: any text (invisible characters are removed first).
    :param checked: :func:`checked_words` of the checks that read the result.
    :param parted: whether to part the checked words inside a run.
    :return: the joined text (the text cleaned of invisible characters when nothing
        joins); linear in its length.
    """
    kept = strip_invisible(text)
    spelled = _SPELLED_LETTERS.sub(
        lambda run: _letters_joined(run, checked, parted), kept
    )
    return _PARTED_WORD.sub(lambda word: _parts_joined(word, checked), spelled)


def _letters_joined(
    run: "re.Match[str]", checked: "re.Pattern[str]", parted: bool
) -> str:
    """A :data:`_SPELLED_LETTERS` run's letters joined, if they spell a checked word.

    A run parted by spaces and by other gaps (``y.o.u m.u.s.t``) spells words apart:
    its spaces stay.

    :param run: a :data:`_SPELLED_LETTERS` match.
    :param checked: :func:`checked_words`' pattern.
    :param parted: whether to part the checked words inside a run of one gap
        (:func:`checked_words_parted`).
    :return: its letters without the gaps (``you must``, ``PIN``), or the run as it
        is when they spell no checked word (``a.k.a``).
    """
    letters = run.group(0)
    gaps = [gap.isspace() for gap in _SPELLING_GAP.findall(letters)]
    words_apart = any(gaps) and not all(gaps)
    joined = _SPELLING_GAP.sub(
        lambda gap: gap.group(0) if words_apart and gap.group(0).isspace() else "",
        letters,
    )
    if not checked.search(folded(joined).lower()):
        return letters
    return (
        checked_words_parted(joined, checked) if parted and not words_apart else joined
    )


#: letters a run spelled with one gap throughout must join to before the checked words
#: inside it are parted (``y o u r p a s s w o r d``): a shorter run is a word or none
MIN_LETTERS_PARTED = 4


def spelled_readings(
    forms: Tuple[str, ...], checked: "re.Pattern[str]"
) -> Tuple[str, ...]:
    """The readings of a text's forms with words spelled apart joined, then parted.

    :param forms: the forms of a text the word checks read.
    :param checked: :func:`checked_words` of the checks that read the result.
    :return: each form :func:`spelled_words_joined`, then, for each form where letters
        joined, the same with the checked words inside a phrase spelled out parted
        (``y o u r p a s s w o r d`` as ``your password``: fix29zj; most texts have
        none).
    """
    joined = tuple(spelled_words_joined(form, checked) for form in forms)
    parted = tuple(
        spelled_words_joined(form, checked, parted=True)
        for form, letters in zip(forms, joined)
        if letters != form
    )
    return joined + parted


#: words a phrase spelled out parts besides the checked ones: whom a thing is handed
#: to (``s e n d m e y o u r p i n``); two letters joined alone to them make no word a
#: check reads (``U. S.`` stays as written)
PARTED_SHORT_WORDS = ("me", "us")
#: :data:`PARTED_SHORT_WORDS` at each position (overlapping)
_PARTED_SHORT = re.compile("(?=(" + "|".join(PARTED_SHORT_WORDS) + "))")


#: letters after a checked word read as its ending, not a word of their own (``s``,
#: ``es``, ``ed``: the checks' patterns read plurals and forms themselves)
MAX_ENDING_LETTERS = 2


def checked_words_parted(joined: str, checked: "re.Pattern[str]") -> str:
    """Letters joined from one run, with the checked words inside it written apart.

    A phrase spelled with one gap throughout (``y o u r p a s s w o r d``,
    ``s-e-e-d-p-h-r-a-s-e``) joins to one word whose word ends are unknown: each
    checked word found in it, the longest at each place from the left, stands apart
    (``your password``, ``seed phrase``); letters between them stay together, and
    up to :data:`MAX_ENDING_LETTERS` after a word stay with it (``instructions``).

    :param joined: the run's letters joined (no gaps).
    :param checked: :func:`checked_words`' pattern.
    :return: the letters with a space before each checked word inside and after it
        (unless only its ending follows), none at the ends; ``joined`` as it is
        when shorter than :data:`MIN_LETTERS_PARTED` or when folding changes its
        length (no place to part it is known then).
    """
    read = folded(joined).lower()
    if len(joined) < MIN_LETTERS_PARTED or len(read) != len(joined):
        return joined
    found = {m.start(1): m.end(1) for m in _PARTED_SHORT.finditer(read)}
    found.update((m.start(1), m.end(1)) for m in checked.finditer(read))
    words: List[Tuple[int, int]] = []
    for start in sorted(found):
        if not words or start >= words[-1][1]:
            words.append((start, found[start]))
    starts = [start for start, _ in words] + [len(joined)]
    parts = set(starts)
    for (_, stop), following in zip(words, starts[1:]):
        if following - stop > MAX_ENDING_LETTERS:  # "instruction" + "s" is one word
            parts.add(stop)
    parts -= {0, len(joined)}
    return "".join(
        (" " if i in parts else "") + letter for i, letter in enumerate(joined)
    )


def _parts_joined(word: "re.Match[str]", checked: "re.Pattern[str]") -> str:
    """A word parted inside, joined where a checked word crosses a part's end.

    :param word: a :data:`_PARTED_WORD` match (``pass-word``, ``real-time``).
    :param checked: :func:`checked_words`' pattern.
    :return: ``password``; ``real-time`` as it is; ``password-reset`` for
        ``pass-word-reset`` (only the gap "password" crosses is removed).
    """
    parts = _IN_WORD_GAP_CHAR.split(word.group(0))
    gaps = _IN_WORD_GAP_CHAR.findall(word.group(0))
    read = [folded(part).lower() for part in parts]
    ends: List[int] = []
    for part in read[:-1]:
        ends.append((ends[-1] if ends else 0) + len(part))
    crossed: Set[int] = set()
    for match in checked.finditer("".join(read)):
        start, stop = match.start(1), match.end(1)
        crossed.update(i for i, end in enumerate(ends) if start < end < stop)
    if not crossed:
        return word.group(0)
    return parts[0] + "".join(
        ("" if i in crossed else gap) + part
        for i, (gap, part) in enumerate(zip(gaps, parts[1:]))
    )


#: what stands for an expression's mark while words spelled apart are joined: no
#: :data:`SPELLING_GAP`, no letter
_KEPT_APART = "\ufffd"
#: a mark :func:`.expression_marks.expression_marks_spaced` may read as an expression's
#: (``_``, ``^``, ``*``, ``~`` and their full-width and small forms)
_EXPRESSION_MARK = "[_^*~\ufe33\ufe34\ufe4d-\ufe4f\uff3e\uff3f\ufe61\uff0a\uff5e]"
#: three or more single letters or digits parted by one mark repeated (``P_I_N``,
#: ``P*I*N``): a word spelled out, not an expression (``p_k``, ``x_i`` keep theirs)
_SPELLED_BY_ONE_MARK = re.compile(
    rf"(?<!{_LETTER}){_LETTER}({_EXPRESSION_MARK}){_LETTER}(?:\1{_LETTER})+(?!{_LETTER})"
)


def spelled_apart_of(
    text: str, spaced: str, checked: "re.Pattern[str]"
) -> Tuple[str, ...]:
    """A text's marks of an expression spaced, then words spelled apart joined.

    The space written for a mark (``p_k``'s ``_``) parts the letters either side for
    good: an expression's letters are no word spelled. Three or more single letters
    parted by one mark repeated (``P_I_N``, ``A_B_C``: :data:`_SPELLED_BY_ONE_MARK`)
    are a word spelled out, joined as a spaced one is.

    :param text: a text, as written.
    :param spaced: its :func:`.expression_marks.expression_marks_spaced` (the same
        length, a mark written as a space; line breaks normalized).
    :param checked: :func:`checked_words` of the checks that read the result.
    :return: the joined text, then the text with the words inside a phrase spelled
        out parted (:func:`spelled_words_joined`), each when it differs from
        ``spaced`` and the other.
    """
    if len(spaced) != len(text):  # line breaks normalized: the marks' places moved
        return ()
    spelled_out = {
        at
        for run in _SPELLED_BY_ONE_MARK.finditer(text)
        for at in range(run.start() + 1, run.end(), 2)
    }
    kept_apart = "".join(
        (
            _KEPT_APART
            if mark != letter and letter == " " and at not in spelled_out
            else letter
        )
        for at, (mark, letter) in enumerate(zip(text, spaced))
    )
    read = (
        spelled_words_joined(kept_apart, checked, parted).replace(_KEPT_APART, " ")
        for parted in (False, True)
    )
    return tuple(joined for joined in dict.fromkeys(read) if joined != spaced)
