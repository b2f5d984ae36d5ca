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

"""The characters a renderer never shows, and the markup rules over them.

Kept apart from :mod:`.untrusted_text` (which re-exports every name here) so that
:mod:`.problems` can clean what a problem quotes where the problem is built: the text
checks build problems, so they cannot be imported by it.
"""

import re
from typing import Tuple

import regex
from mech_catalogue_core.model.markup import RAW_HTML, Markup, starts_raw_html
from mech_catalogue_core.model.stacked_marks import marks_escaped, name_marks_problem

#: every invisible or control character removed, as inclusive code-point ranges (fixed
#: here, not read from ``unicodedata``, so every agent removes the same ones): the
#: format characters (general category Cf) and every ``Default_Ignorable_Code_Point``
#: of Unicode 15.1 (DerivedCoreProperties.txt), assigned or not: a renderer shows none
#: of them, so unassigned ones (U+E0080-E0FFF) can carry text as tag characters do
INVISIBLE_RANGES: Tuple[Tuple[int, int], ...] = (
    (0x0000, 0x0008),  # C0 controls before tab
    (0x000B, 0x001F),  # C0 controls after newline (carriage return included)
    (0x007F, 0x009F),  # DEL and the C1 controls
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x0600, 0x0605),  # Arabic number signs (prepended concatenation marks)
    (0x061C, 0x061C),  # Arabic letter mark (bidi)
    (0x06DD, 0x06DD),  # Arabic end of ayah
    (0x070F, 0x070F),  # Syriac abbreviation mark
    (0x0890, 0x0891),  # Arabic pound and piastre marks above
    (0x08E2, 0x08E2),  # Arabic disputed end of ayah
    (0x115F, 0x1160),  # Hangul fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels (invisible)
    (0x180B, 0x180F),  # Mongolian variation selectors and vowel separator
    (0x200B, 0x200F),  # zero-width space, non-joiner, joiner; LRM, RLM
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidi isolates, U+2065
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFEFF, 0xFEFF),  # zero-width no-break space (BOM)
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFF8),  # unassigned, default ignorable
    (0xFFF9, 0xFFFB),  # interlinear annotation controls
    (0x110BD, 0x110BD),  # Kaithi number sign
    (0x110CD, 0x110CD),  # Kaithi number sign above
    (0x13430, 0x1343F),  # Egyptian hieroglyph format controls
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls
    (0xE0000, 0xE0FFF),  # tag characters (hidden ASCII), variation selectors
    # supplement, and the rest of the block: unassigned, default ignorable
)
#: one character of :data:`INVISIBLE_RANGES`
INVISIBLE = re.compile(
    "[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in INVISIBLE_RANGES) + "]"
)
#: line breaks kept as a newline: CR LF, a lone CR, the line and paragraph separators
LINE_BREAK = re.compile("\r\n?|[\u2028\u2029]")

#: the markup rules (:mod:`.markup`) over :data:`INVISIBLE_RANGES`
MARKUP = Markup(INVISIBLE)
#: a text neither :func:`strip_invisible` nor the markup rules change: printable ASCII, tabs
#: and newlines, none of the characters markup starts with (``<``, ``[``, a backslash,
#: ``&``, a backtick, ``~``, ``$``, ``|``)
PLAIN_TEXT = re.compile(r"[^\x00-\x08\x0b-\x1f\x7f-\U0010ffff<\[\\&`~$|]*+")
#: a text :func:`shown_as_written` leaves as it is: printable ASCII, tabs and newlines,
#: none of the characters markup hiding text starts with (``<``, ``[``, ``&``: the
#: test :meth:`.markup.Markup.kinds` makes first)
_SHOWN_AS_IT_IS = re.compile(r"[^\x00-\x08\x0b-\x1f\x7f-\U0010ffff<\[&]*+")


#: a zero-width joiner, non-joiner or emoji variation selector where it only shapes the
#: characters around it, so a name may hold it (adv29z K9): a joiner after a virama and
#: a non-joiner between letters that join (RFC 5892, Appendix A.1 and A.2, CONTEXTJ);
#: a joiner between emoji (UTS #51, emoji ZWJ sequence: each side a pictograph, the one
#: before it perhaps with its presentation selector or skin tone); a text or emoji
#: presentation selector right after an emoji (UTS #51, presentation and keycap
#: sequences: ``1`` U+FE0F U+20E3). Each stands right after its base, so no run of
#: them carries text. Read with ``regex`` (Unicode properties ``re`` lacks), pinned
#: with the library so every agent keeps the same names
SHAPING_JOINERS = regex.compile(
    r"(?<=\p{Canonical_Combining_Class=Virama})[\u200c\u200d]"
    r"|(?<=[\p{Joining_Type=Left_Joining}\p{Joining_Type=Dual_Joining}]"
    r"\p{Joining_Type=Transparent}*)\u200c"
    r"(?=\p{Joining_Type=Transparent}*"
    r"[\p{Joining_Type=Right_Joining}\p{Joining_Type=Dual_Joining}])"
    r"|(?<=\p{Extended_Pictographic}[\ufe0f\p{Emoji_Modifier}]?)\u200d"
    r"(?=\p{Extended_Pictographic})"
    r"|(?<=\p{Emoji})[\ufe0e\ufe0f]"
)


def hides_characters(text: str) -> bool:
    """Whether a text holds an invisible character that shapes nothing it shows.

    :param text: text kept as written (a name, a schema's key).
    :return: True when a character of :data:`INVISIBLE` is left once the joiners and
        selectors of :data:`SHAPING_JOINERS` are set aside.
    """
    if INVISIBLE.search(text) is None:
        return False
    return INVISIBLE.search(SHAPING_JOINERS.sub("", text)) is not None


def strip_invisible(text: str) -> str:
    """Remove every character of :data:`INVISIBLE_RANGES`; line breaks become newlines.

    :param text: any text.
    :return: the text without invisible and control characters (newline and tab kept).
    """
    return INVISIBLE.sub("", LINE_BREAK.sub("\n", text))


def escaped_invisible(text: str) -> str:
    r"""The text with every invisible character written as its Python escape.

    For a name or pointer of one's own that quotes a manifest's key: removing the
    characters would make two keys read alike, so they are shown, never hidden.

    :param text: any text.
    :return: each character of :data:`INVISIBLE_RANGES` as ``\xNN``, ``\uNNNN`` or
        ``\UNNNNNNNN`` (as ``repr`` writes it); everything else as it is.
    """
    return INVISIBLE.sub(_escape, text)


def _escape(found: "re.Match[str]") -> str:
    return found.group().encode("unicode_escape").decode("ascii")


def shown_as_written(text: str) -> str:
    """A sentence or pointer of one's own as a person and a model read it alike.

    What a :class:`.problems.Problem` quotes of a manifest (a key in its ``path``, a
    value in its ``message``) is shown through this where the problem is built, so
    every surface that shows problems (the agent's ``GET /mechs``, ``validate``, the
    catalogue page) shows no hidden text (adv29w). Unlike
    :func:`.quoted_text.sentence_for_model`, markup is made inert only when it would
    hide text, so a terminal still shows ``list[dict]`` as written. Idempotent.

    :param text: the sentence or pointer composed.
    :return: :func:`escaped_invisible` of it, combining marks drawn past their
        character escaped (:func:`.stacked_marks.marks_escaped`), then
        :meth:`.markup.Markup.inert` when
        :meth:`.markup.Markup.kinds` finds markup hiding text; the text itself when it
        is printable ASCII without ``<``, ``[`` or ``&`` (nothing to change).
    """
    if _SHOWN_AS_IT_IS.fullmatch(text):
        return text
    escaped = marks_escaped(escaped_invisible(text))
    return MARKUP.inert(escaped) if MARKUP.kinds(escaped) else escaped


def name_hiding(name: str) -> str:
    """What in a name a person cannot see while a model reads it (adv29yt).

    A tool's name is sent as written (it is what a request names), so it cannot be
    cleaned the way prose is: one holding an invisible character (:data:`INVISIBLE`)
    other than a joiner or selector shaping what is shown (:data:`SHAPING_JOINERS`), a
    line or paragraph separator, or markup that hides text when rendered is refused
    where it is parsed (``invalid_tool_name``), and so is served by no surface. A ``<``
    is such markup only where it starts raw HTML (:func:`.markup.starts_raw_html`), so
    ``a<b`` is kept (adv29z K9). Combining marks that draw over the text around the
    name or that its letter hides (:func:`.stacked_marks.name_marks_problem`: more than
    4 on one character, one repeated, one on no visible character, a dot above on
    ``i``) are refused too (adv29zt).

    :param name: a tool's name as published.
    :return: "" when it hides nothing, else why (``contains invisible or control
        characters``, ``contains a line break``, ``contains markup that hides text
        when rendered (raw_html)``, or the marks' reason, e.g. ``stacks 26 combining
        marks on one character (at most 4)``).
    """
    if _SHOWN_AS_IT_IS.fullmatch(name):
        return ""
    if hides_characters(name):
        return "contains invisible or control characters"
    if LINE_BREAK.search(name):
        return "contains a line break"
    kinds = MARKUP.kinds(name)
    if RAW_HTML in kinds and not starts_raw_html(name):
        kinds = tuple(kind for kind in kinds if kind != RAW_HTML)
    if kinds:
        return f"contains markup that hides text when rendered ({', '.join(kinds)})"
    return name_marks_problem(name)


#: tag characters U+E0020-E007E spell printable ASCII (U+E0041 is "A")
TAG_TEXT = re.compile("[\U000e0020-\U000e007e]+")
_TAG_OFFSET = 0xE0000


def hidden_tag_text(text: str) -> str:
    """The ASCII that tag characters spell in a text (what a model reads, a person not).

    :param text: any text.
    :return: the decoded runs, joined by spaces ("" when there are none).
    """
    return " ".join(
        "".join(chr(ord(c) - _TAG_OFFSET) for c in run)
        for run in TAG_TEXT.findall(text)
    )
