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

"""Combining marks that draw over other text, or draw nothing a person sees (adv29zt).

A nonspacing or enclosing mark (general category Mn or Me) is drawn on the character
before it, with no advance of its own. Stacked, marks rise or fall past their line and
paint over the lines around it (a stranger's description over the server's facts above
it, a tool name over the page's facts below it); placed where a letter already shows
them, they make a name read as another. What any script writes is far less:

- Unicode's Stream-Safe Text Format (UAX #15, section 13) allows no more than 30
  non-starters in a row, and UTS #39 (section 5.4, Optional Detection) calls more than
  :data:`MAX_MARKS_PER_BASE` nonspacing marks in a row, the same nonspacing mark twice
  and a mark the base letter hides (a dotted ``i`` or ``j`` followed by U+0307 COMBINING
  DOT ABOVE) suspicious. Vietnamese stacks 2 marks on a vowel (``ế``), pointed Hebrew
  and Arabic 2 to 4, Devanagari and Thai vowel signs and tone marks 1 or 2.
- RFC 5891 (section 5.4) refuses a label that starts with a combining mark: a mark on no
  visible character (the text's start, a space, a line break) is drawn alone, anywhere.

So the text every surface shows (:func:`marks_cut`, in :func:`.untrusted_text.for_model`
and :func:`.untrusted_text.for_person`) keeps at most :data:`MAX_MARKS_PER_BASE`
distinct marks on a visible character and none on an invisible one; a tool name doing
any of the UTS #39 things (:func:`name_marks_problem`) is refused where it is parsed;
and the look-alike comparison (:func:`marks_drawn`) drops the marks a person cannot see.

Read with ``regex`` (its Unicode properties, pinned with the library, so every agent
finds the same marks, as :data:`.hidden_characters.SHAPING_JOINERS` does).
"""

from typing import List, Tuple

import regex

#: nonspacing marks one character may carry (UTS #39 section 5.4: "more than 4
#: nonspacing marks" in a row is suspicious)
MAX_MARKS_PER_BASE = 4
#: one nonspacing or enclosing mark
MARK = regex.compile(r"[\p{Mn}\p{Me}]")
#: a run of them, all drawn on the character before the run
MARK_RUN = regex.compile(r"[\p{Mn}\p{Me}]+")
#: a character that shows nothing a mark could sit on: white space, a line break, a
#: control or format character (removed before marks are read, so the mark would land
#: on whatever came before it)
NO_VISIBLE_BASE = regex.compile(r"[\p{White_Space}\p{Cc}\p{Cf}\p{Zl}\p{Zp}]")
#: a run of marks at the start or after a character that shows nothing
NO_BASE_RUN = regex.compile(
    r"(?:^|(?<=[\p{White_Space}\p{Cc}\p{Cf}\p{Zl}\p{Zp}]))[\p{Mn}\p{Me}]+"
)
#: a run of two marks or more (one mark alone is never cut but on no visible base)
MARKS_PAST_ONE = regex.compile(r"[\p{Mn}\p{Me}]{2,}")
#: a run :func:`marks_cut` changes: past the limit, a mark repeated within the limit, or
#: a run at the start or after a character that shows nothing. Each alternative is
#: bounded, so the search is linear in the text (2.8 ms for 64 KiB of pointed Hebrew,
#: Arabic, Vietnamese and Thai; a consuming form of the last alternative took 3 times as
#: long, and reading each run of two marks or more in Python 4.5 times)
_RUN_TO_CUT = regex.compile(
    r"[\p{Mn}\p{Me}]{%d,}" % (MAX_MARKS_PER_BASE + 1)
    + r"|([\p{Mn}\p{Me}])[\p{Mn}\p{Me}]{0,%d}?\1" % (MAX_MARKS_PER_BASE - 2)
    + r"|(?:^|(?<=[\p{White_Space}\p{Cc}\p{Cf}\p{Zl}\p{Zp}]))[\p{Mn}\p{Me}]"
)
#: a dot above (U+0307) on a letter that already shows a dot (``Soft_Dotted``: i, j and
#: their look-alikes), with no other mark above between them (one would replace the
#: letter's own dot, and the dot above would then show)
HIDDEN_DOT = regex.compile(
    r"(?<=\p{Soft_Dotted}(?:(?!\p{Canonical_Combining_Class=230})[\p{Mn}\p{Me}])*)"
    r"\u0307"
)
#: a mark drawn across its base (canonical combining class 1, Overlay: U+0334-0338,
#: U+20D2...): on a letter with a bar or a stroke (``e``, ``t``) it is not seen
OVERLAY = regex.compile(r"\p{Canonical_Combining_Class=Overlay}")


def marks_cut(text: str) -> str:
    """The text with no mark drawn past its own character.

    Each run of marks keeps its first :data:`MAX_MARKS_PER_BASE` distinct marks (a
    repeated one dropped); a run at the start of the text or after a character that
    shows nothing (:data:`NO_VISIBLE_BASE`) is removed. Idempotent; linear.

    :param text: text cleaned of invisible characters
        (:func:`.hidden_characters.strip_invisible`).
    :return: the text, the marks past those cut; the text itself when no run needs it.
    """
    if not has_marks_to_cut(text):
        return text
    return MARKS_PAST_ONE.sub(_run_kept, NO_BASE_RUN.sub("", text))


def marks_escaped(text: str) -> str:
    r"""The text with each mark :func:`marks_cut` would drop written as its escape.

    For what a problem quotes of a manifest (a name, a key): shown, never hidden, as
    :func:`.hidden_characters.escaped_invisible` shows invisible characters.

    :param text: any text.
    :return: each dropped mark as ``\uNNNN`` (or ``\UNNNNNNNN``); the rest as it is.
        Idempotent.
    """
    if not has_marks_to_cut(text):
        return text
    return MARK_RUN.sub(_run_escaped, text)


def _run_split(run: "regex.Match[str]") -> Tuple[str, List[str]]:
    """A run's marks kept by :func:`marks_cut` and those it drops, in order."""
    start = run.start()
    if start == 0 or NO_VISIBLE_BASE.match(run.string, start - 1):
        return "", list(run.group())
    kept: List[str] = []
    dropped: List[str] = []
    for mark in run.group():
        if mark in kept or len(kept) == MAX_MARKS_PER_BASE:
            dropped.append(mark)
        else:
            kept.append(mark)
    return "".join(kept), dropped


def _run_kept(run: "regex.Match[str]") -> str:
    """The first :data:`MAX_MARKS_PER_BASE` distinct marks of a run on a visible base."""
    marks = run.group()
    return "".join(dict.fromkeys(marks))[:MAX_MARKS_PER_BASE]


def _run_escaped(run: "regex.Match[str]") -> str:
    kept, dropped = _run_split(run)
    return kept + "".join(m.encode("unicode_escape").decode("ascii") for m in dropped)


def has_marks_to_cut(text: str) -> bool:
    """Whether :func:`marks_cut` would change a text (for the ``invisible_text`` warning).

    :param text: text cleaned of invisible characters.
    :return: True when a run of marks is past the limit, repeats a mark, or sits on no
        visible character.
    """
    if text.isascii() or MARK.search(text) is None:  # most texts: no mark at all
        return False
    return _RUN_TO_CUT.search(text) is not None


def name_marks_problem(name: str) -> str:
    """What in a tool name's combining marks draws over other text or hides (UTS #39 5.4).

    :param name: a tool name as published (invisible characters kept: a variation
        selector is a mark of the run it stands in).
    :return: "" when its marks are what a script writes; else why: ``starts a combining
        mark on no visible character``, ``stacks N combining marks on one character (at
        most 4)``, ``repeats a combining mark on one character``, ``puts a dot above on
        a dotted letter (i, j)``.
    """
    if name.isascii() or MARK.search(name) is None:
        return ""
    for run in MARK_RUN.finditer(name):
        start = run.start()
        marks = run.group()
        if start == 0 or NO_VISIBLE_BASE.match(name, start - 1):
            return "has a combining mark on no visible character"
        if len(marks) > MAX_MARKS_PER_BASE:
            return (
                f"stacks {len(marks)} combining marks on one character "
                f"(at most {MAX_MARKS_PER_BASE})"
            )
        if len(set(marks)) < len(marks):
            return "repeats a combining mark on one character"
    if HIDDEN_DOT.search(name):
        return "puts a dot above on a dotted letter (i, j)"
    return ""


def marks_drawn(name: str) -> str:
    """A name with only the marks a person sees, for comparing names (look-alikes).

    Dropped: what :func:`marks_cut` drops (a mark repeated on its character, marks past
    the limit or on no visible character), then a dot above on a dotted letter
    (:data:`HIDDEN_DOT`) and a mark drawn across its base (:data:`OVERLAY`). Honest accents stay: ``café``, ``tiếng``, Hebrew and Arabic
    points, Devanagari and Thai vowel signs.

    :param name: a name, NFKC-normalised.
    :return: the name as compared.
    """
    if name.isascii() or MARK.search(name) is None:
        return name
    return OVERLAY.sub("", HIDDEN_DOT.sub("", marks_cut(name)))
