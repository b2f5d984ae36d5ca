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

r"""Marks between the letters of an expression, read as a person sees them: apart.

The rendered reading of the text checks (:mod:`.rendered_text`) drops the characters
of emphasis and strikethrough, so ``p_k`` (a subscript) and ``p*k`` (a product) would
read as a word ``pk`` nobody sees. :func:`expression_marks_spaced` writes a space for
each such mark a renderer shows as a character, and keeps the marks it takes as
emphasis or strikethrough (``P*I*N``, ``**P**IN``, and ``P*IN code*``, whose first
``*`` opens emphasis the last one closes: a person reads "PIN code", adv29x F6):

- ``_`` and ``^`` between letters or digits are always shown: CommonMark never takes
  ``_`` inside a word as emphasis, and ``^`` is no markup;
- ``*`` and ``~`` between letters or digits are shown when the parser leaves them as
  text: markdown-it-py (CommonMark 0.31, the reference the text checks read rendered
  text by) parses the text, and a ``*`` it pairs as emphasis is kept. A ``~`` is read
  as GitHub's strikethrough reads it, which pairs single and double ``~`` by the rules
  of emphasis: the parser reads the text with each ``~`` written as ``*`` (and each
  ``*`` as an inert ``%``).

Their full-width and small forms (which the rendered reading folds to the ASCII mark)
count as the mark. A mark the parser never reaches as a delimiter (escaped, in code, in
a link's destination) is shown as a character.
"""

import bisect
import re
from typing import Dict, List, Set, Tuple

from markdown_it import MarkdownIt
from markdown_it.rules_inline import emphasis
from markdown_it.rules_inline.state_inline import StateInline

#: a mark between two letters or digits of an expression (``p_k``, ``p\_k``, ``x^n``,
#: and their full-width and small forms): never markup between letters
_INNER_MARK = re.compile(
    r"(?<=[^\W_])\\?[_^\uFE33\uFE34\uFE4D-\uFE4F\uFF3E\uFF3F](?=[^\W_])"
)
#: a run of ``*`` or ``~`` (or their full-width and small forms) between two letters
#: or digits, an escaping backslash before it included
_PAIRED_MARKS = re.compile(r"(?<=[^\W_])\\?[*~\uFE61\uFF0A\uFF5E]++(?=[^\W_])")
#: the compatibility forms of ``*`` and ``~`` as the ASCII mark (one character each, so
#: offsets are kept)
_AS_ASCII_MARK = str.maketrans({"\ufe61": "*", "\uff0a": "*", "\uff5e": "~"})
#: the text the parser reads for ``~``: each ``~`` as ``*``, each ``*`` as ``%`` (inert)
_TILDE_AS_STAR = str.maketrans({"*": "%", "~": "*"})
#: any mark :func:`expression_marks_spaced` reads (most texts hold none)
_ANY_MARK = re.compile(r"[_^*~\uFE33\uFE34\uFE4D-\uFE4F\uFF3E\uFF3F\uFE61\uFF0A\uFF5E]")
#: markdown-it-py's normalization of line breaks and NUL (its offsets are in that text)
_LINE_BREAK = re.compile(r"\r\n?")

#: a parser of :data:`.rendered_text.RENDERER`'s settings whose emphasis rule notes each ``*`` it
#: reads and whether it pairs it (:func:`_emphasis_noted`, :func:`_pairs_noted`)
_PARSER = MarkdownIt("commonmark", {"html": True})
#: ``env`` key under which the parse notes ``(inline source, offset, paired)``
_NOTED = "expression_marks"


def expression_marks_spaced(text: str) -> str:
    r"""A text with the marks inside an expression read as what they are: a space.

    :param text: any text.
    :return: the text (line breaks normalized to ``\n``) with ``p k`` for ``p_k``,
        ``p\_k``, ``p^k`` and a ``p*k`` or ``p~k`` the parser shows as a character;
        emphasis kept (``P*I*N``, ``**P**IN``, ``P*IN code*``: a person sees ``PIN``).
        Linear: one parse for ``*`` and one for ``~``, each only when such a mark is
        between letters.
    """
    text = _LINE_BREAK.sub("\n", text).replace("\0", "\ufffd")
    if not _ANY_MARK.search(text):
        return text
    text = _INNER_MARK.sub(" ", text)
    marks = [m.span() for m in _PAIRED_MARKS.finditer(text)]
    if not marks:
        return text
    ascii_marks = text.translate(_AS_ASCII_MARK)
    paired: Set[int] = set()
    if any("*" in ascii_marks[a:b] for a, b in marks):
        paired |= _paired_offsets(ascii_marks)
    if any("~" in ascii_marks[a:b] for a, b in marks):
        paired |= _paired_offsets(ascii_marks.translate(_TILDE_AS_STAR))
    spaced = list(text)
    for start, end in marks:
        for offset in range(start, end):
            if offset not in paired:
                spaced[offset] = " "
    return "".join(spaced)


def _paired_offsets(text: str) -> Set[int]:
    """The offsets of the ``*`` of a text the parser pairs as emphasis.

    :param text: normalized text.
    :return: offsets into the text; a ``*`` of a line the parser's inline source does
        not end as written (a tab expanded in a container) counts as paired, so its
        letters are read joined, as the rendered reading joins them.
    """
    env: Dict[str, List[Tuple[str, int, bool]]] = {_NOTED: []}
    tokens = _PARSER.parse(text, env)
    noted: Dict[str, List[Tuple[int, bool]]] = {}
    for source, offset, pair in env[_NOTED]:
        noted.setdefault(source, []).append((offset, pair))
    lines = text.split("\n")
    line_starts = [0]
    for line in lines:
        line_starts.append(line_starts[-1] + len(line) + 1)
    paired: Set[int] = set()
    for token in tokens:
        if token.type != "inline" or not token.map or token.content not in noted:
            continue
        placed = _lines_placed(token.content, token.map[0], lines, line_starts)
        for _, text_start, end in placed:
            if text_start < 0:  # not placed: its marks count as paired
                paired.update(range(-1 - text_start, end))
        starts = [start for start, _, _ in placed]
        for offset, pair in noted.pop(token.content):
            start, text_start, _ = placed[bisect.bisect_right(starts, offset) - 1]
            if pair and text_start >= 0:
                paired.add(text_start + offset - start)
    # an image's description is parsed as a source of its own: placed where it is written
    for source, pairs in noted.items():
        at = text.find(source)
        paired.update(at + offset for offset, pair in pairs if pair and at >= 0)
    return paired


def _lines_placed(
    content: str, first: int, lines: List[str], line_starts: List[int]
) -> List[Tuple[int, int, int]]:
    """Where each line of an inline source starts in it and in the text.

    :param content: the inline token's source (its lines end the text's lines, after
        any container marks and indentation).
    :param first: the text's line number of its first line.
    :param lines: the text's lines.
    :param line_starts: the offset of each line in the text, and the text's length + 1.
    :return: per line, ``(offset in content, offset in text, end of the text's line)``;
        a line not found in the text's line (a tab expanded) has ``-1 - line start``.
    """
    placed, at = [], 0
    for number, content_line in enumerate(content.split("\n")):
        row = first + number
        column = lines[row].rfind(content_line)
        start = line_starts[row]
        placed.append(
            (at, -1 - start if column < 0 else start + column, line_starts[row + 1])
        )
        at += len(content_line) + 1
    return placed


def _emphasis_noted(state: StateInline, silent: bool) -> bool:
    """markdown-it-py's emphasis rule, each ``*`` token noting its offset in the source."""
    start = state.pos
    if not emphasis.tokenize(state, silent):
        return False
    if not silent and state.src[start] == "*":
        # one text token per mark, pushed last (after any pending text)
        marks = state.tokens[len(state.tokens) - (state.pos - start) :]
        for offset, token in enumerate(marks, start):
            token.meta[_NOTED] = offset
    return True


def _pairs_noted(state: StateInline) -> None:
    """Note, once emphasis is paired, which ``*`` became emphasis (before text joins)."""
    for token in state.tokens:
        if _NOTED in token.meta:
            paired = token.type != "text" or token.content == ""
            state.env[_NOTED].append((state.src, token.meta[_NOTED], paired))


_PARSER.inline.ruler.at("emphasis", _emphasis_noted)
_PARSER.inline.ruler2.before("fragments_join", "pairs_noted", _pairs_noted)
