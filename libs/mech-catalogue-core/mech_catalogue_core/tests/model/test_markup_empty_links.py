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

r"""Every link CommonMark renders with no visible text is reported (adv29l).

The adversarial review adv29l found links whose text is a character reference to a
space (``[&#x2003;](x)``, ``[&Tab;](x)``), a code span of spaces, a hard line break or
emphasis around such unreported: the pattern of before took only literal white space
between the brackets. Here link texts are composed of those pieces and of visible ones,
and ``Markup.kinds`` is checked against markdown-it-py, the CommonMark parser the markup
tests take as their oracle: whatever it renders as a link showing no character is
reported as ``link without visible text``. The time is measured, never asserted, by
``scripts/bench_markup.py`` (docs/benchmarks.md, "Model text").
"""

from typing import List, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mech_catalogue_core.model.markup import (
    BLANK_GLYPHS,
    EMPTY_LINK,
    INVISIBLE_REFERENCE,
)
from mech_catalogue_core.model.untrusted_text import MARKUP

_PARSER = MarkdownIt("commonmark")

#: pieces of a link's text: shown as nothing, or shown
BLANK_PIECES = [
    *[" ", "\t", "&#32;", "&#x2003;", "&#X20;", "&#10;", "&Tab;", "&nbsp;"],
    *["&NewLine;", "&ensp;", "` `", "``  ``", "*", "_", "**", "\\\n", "  \n"],
    *["\u2800", "&#x2800;", "&#10240;", "&#x3164;", "\uffa0"],  # blank glyphs (adv29m)
]
#: what a person sees as nothing: white space, and the glyphs drawn as an empty cell
_UNSEEN = dict.fromkeys(map(ord, BLANK_GLYPHS))
SHOWN_PIECES = ["a", "&amp;", "\\*", "\\_", "&nbsp", "&#x41;", "`a`", "&#42;", "\\\\"]


def _link_texts(text: str) -> List[str]:
    """What each link or image of a text shows, as markdown-it-py parses it.

    :param text: Markdown.
    :return: per link, its text and code ("" for a break, an image's alt text).
    """
    shown: List[str] = []
    for block in _PARSER.parse(text):
        children: List[Token] = block.children or []
        inside: Optional[str] = None
        for token in children:
            if token.type == "link_open":
                inside = ""
            elif token.type == "link_close" and inside is not None:
                shown.append(inside)
                inside = None
            elif inside is not None and token.type in ("text", "code_inline"):
                inside += token.content
    return shown


def _check(text: str) -> None:
    """A link the oracle renders showing nothing is reported.

    :param text: Markdown.
    """
    if any(not shown.translate(_UNSEEN).strip() for shown in _link_texts(text)):
        assert EMPTY_LINK in MARKUP.kinds(text), text


@settings(max_examples=3000, deadline=None)
@given(
    pieces=st.lists(st.sampled_from(BLANK_PIECES + SHOWN_PIECES), max_size=5),
    tail=st.sampled_from(
        ["(x)", "(https://e.org/a)", "[r]\n\n[r]: /x", "[]\n\n[r]: /x"]
    ),
    before=st.sampled_from(["", "Yes ", "> ", "- ", "[a] "]),
)
def test_every_composed_link_without_visible_text_is_reported(
    pieces: List[str], tail: str, before: str
) -> None:
    """Blank and shown pieces in a link's text, against markdown-it-py."""
    _check(before + "[" + "".join(pieces) + "]" + tail)


@settings(max_examples=3000, deadline=None)
@given(text=st.text(alphabet="[]()&#;x20 *_`\\\n", max_size=24))
def test_fuzz_every_empty_link_markdown_it_sees_is_reported(text: str) -> None:
    """No false negative against the oracle on texts of link and reference pieces."""
    _check(text)


@pytest.mark.parametrize(
    "link_text",
    ["&#x2003;", "&Tab;", "&nbsp;", "&#32;", "&#10;", "` `", "\\\n", "*&#32;*"]
    + ["_&ensp;_", "  \n ", "&#32;" * 1000],
)
def test_a_link_of_referenced_spaces_markers_or_breaks_is_reported(
    link_text: str,
) -> None:
    """The review's link texts, and their neighbours."""
    text = f"Yes [{link_text}](https://e.org/a)"
    assert [not s.strip() for s in _link_texts(text)] == [True], text  # the oracle
    assert EMPTY_LINK in MARKUP.kinds(text)


@pytest.mark.parametrize(
    "link_text",
    [*BLANK_GLYPHS, *(f"&#x{ord(c):x};" for c in BLANK_GLYPHS), " \u2800 \u2800 "]
    + ["&#10240;", "*\u2800*", "`\u2800`"],
)
def test_a_link_of_blank_glyphs_is_reported(link_text: str) -> None:
    """The braille blank and the Hangul fillers, literal or referenced (adv29m)."""
    text = f"Yes [{link_text}](https://e.org/a)"
    shown = _link_texts(text)
    assert len(shown) == 1 and not shown[0].translate(_UNSEEN).strip(), text
    assert EMPTY_LINK in MARKUP.kinds(text)


def test_a_link_of_a_blank_glyph_beside_a_letter_is_not_reported() -> None:
    """A letter next to the braille blank is shown."""
    assert EMPTY_LINK not in MARKUP.kinds("Yes [\u2800a](https://e.org/a)")


def test_a_link_of_an_invisible_character_is_reported_both_ways() -> None:
    """A zero-width character shows nothing either (and is a reference to hide)."""
    kinds = MARKUP.kinds("Yes [&#x200b;&#32;](https://e.org/a)")
    assert EMPTY_LINK in kinds and INVISIBLE_REFERENCE in kinds, kinds


@pytest.mark.parametrize(
    "link_text",
    ["a", "&amp;", "\\*", "&nbsp", "`a`", "&#x41;", "&#32;a", "\\&#32;"],
)
def test_a_link_showing_a_character_is_not_reported(link_text: str) -> None:
    """An escaped marker, a reference to a letter, a reference without ``;`` show."""
    text = f"Yes [{link_text}](https://e.org/a)"
    assert all(s.strip() for s in _link_texts(text)), text  # the oracle
    assert EMPTY_LINK not in MARKUP.kinds(text)
