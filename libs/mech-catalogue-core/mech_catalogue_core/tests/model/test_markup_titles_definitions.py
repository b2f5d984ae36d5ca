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

r"""Every link title and reference definition CommonMark renders is reported (adv29j).

The adversarial review adv29j found titles after a destination holding balanced or
escaped parentheses (``[a](x(y) "t")``, ``[a](x\) "t")``) and definitions in a block
quote, a list item or with their label over two lines unreported by
``Markup.kinds``. Here texts are composed of every container (block quotes, list
items, nested, lazy continuation lines, indentation), destination (bare, with
balanced, nested, escaped or unbalanced parentheses, ``<...>``, empty, long), title
and label form, and ``kinds`` is checked against markdown-it-py, the CommonMark parser
the markup tests take as their oracle: whatever it renders as a link title or swallows
as a definition is reported. The time of the patterns is measured, never asserted, by
``scripts/bench_markup.py`` (docs/benchmarks.md, "Model text").
"""

from typing import Dict, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from mech_catalogue_core.model.markup import IMAGE, LINK_TITLE, REFERENCE_DEFINITION
from mech_catalogue_core.model.untrusted_text import MARKUP

_PARSER = MarkdownIt("commonmark")

#: what may stand before a line: nothing (a lazy continuation line too), indentation,
#: block quote and list markers, nested
PREFIXES = ["", " ", "   ", "    ", "\t", ">", "> ", "- ", "* ", "+ ", "1. ", "2) "] + [
    "> - ",
    "- > ",
    "- - ",
    "> > ",
    "1. > ",
    "  > ",
    ">  - ",
]
#: link destinations: bare, with parentheses balanced, nested, escaped or not, pointy
DESTINATIONS = [
    *["/x", "x(y)", "x((y)z)", "x\\)", "x\\(", "x(y", "x)y", "(x)", "x(y)z"],
    *["<x y>", "<x(y>", "", "a](b", "a](b)", "x\u00a0y", "x\\ y"],
    *["x" * 2100, "(" * 32 + "x" + ")" * 32, "(" * 33 + "x" + ")" * 33],
    # adv29l: a backslash escapes a line ending, and the destination goes on behind
    # the next line's container markers
    *["x\\\ny", "x\\\n", "x(\\\ny)", "<x\\\ny>", "x\\\r\ny", "x\\\n\\\ny"],
]
#: what separates a destination from a title, or ``](`` from a destination
SEPARATORS = [" ", "\t", "\n", "  \n  ", " " * 70, "\n" + " " * 70, "\r\n", ""]
#: titles, closed or not
TITLES = ['"t"', "'t'", "(t)", '"t', "(t", "t", ""]
#: definition labels: one line, over lines, escaped brackets, footnote-like, blank
LABELS = ["r", "r\n", "\nr", "a\\]b", "^1", " ", "a[b", "a\\[b", "x" * 1000]


def _titles(text: str) -> List[str]:
    """The link and image titles markdown-it-py renders for a text.

    :param text: Markdown.
    :return: each ``title`` attribute, of links and images alike.
    """
    found = []
    for block in _PARSER.parse(text):
        for token in block.children or ():
            if token.type in ("link_open", "image") and token.attrGet("title"):
                found.append(str(token.attrGet("title")))
    return found


def _definitions(text: str) -> Dict[str, object]:
    """The reference definitions markdown-it-py takes from a text (none of it shown).

    :param text: Markdown.
    :return: label -> definition, as markdown-it-py keeps them in its environment.
    """
    env: Dict[str, object] = {}
    _PARSER.parse(text, env)
    return dict(env.get("references", {}))  # type: ignore[call-overload]


def _contained(lines: str, first: str, later: List[str]) -> str:
    """A text's lines, the first behind one prefix, each later one behind another.

    :param lines: the text.
    :param first: the first line's prefix.
    :param later: prefixes of the later lines, cycled.
    :return: the text with the prefixes.
    """
    parts = lines.split("\n")
    return "\n".join(
        [first + parts[0]]
        + [later[i % len(later)] + part for i, part in enumerate(parts[1:])]
    )


def _check(text: str) -> None:
    """Whatever the oracle renders as a title or takes as a definition is reported.

    :param text: Markdown.
    """
    kinds = MARKUP.kinds(text)
    if _titles(text):
        assert LINK_TITLE in kinds or IMAGE in kinds, (text, kinds)
    if _definitions(text):
        assert REFERENCE_DEFINITION in kinds, (text, kinds)


_COMPOSED_LINK = st.tuples(
    st.sampled_from(["[a](", "![a](", "[a\n](", "[a](b)[c]("]),
    st.sampled_from(SEPARATORS),
    st.sampled_from(DESTINATIONS),
    st.sampled_from(SEPARATORS),
    st.sampled_from(TITLES),
    st.sampled_from([")", " )", "\n)", ""]),
).map("".join)


@settings(max_examples=3000, deadline=None)
@given(
    link=_COMPOSED_LINK,
    before=st.sampled_from(["", "Yes ", "Yes\n", "Yes.\n\n"]),
    first=st.sampled_from(PREFIXES),
    later=st.lists(st.sampled_from(PREFIXES), min_size=1, max_size=3),
)
def test_every_composed_link_title_is_reported(
    link: str, before: str, first: str, later: List[str]
) -> None:
    """Containers x destinations x separators x titles, against markdown-it-py."""
    _check(_contained(before + link, first, later))


_COMPOSED_DEFINITION = st.tuples(
    st.sampled_from(["[", "\n["]),
    st.sampled_from(LABELS),
    st.sampled_from(["]:", "] :", "]:\n"]),
    st.sampled_from(SEPARATORS),
    st.sampled_from(DESTINATIONS),
    st.sampled_from(SEPARATORS),
    st.sampled_from(TITLES),
).map("".join)


@settings(max_examples=3000, deadline=None)
@given(
    definition=_COMPOSED_DEFINITION,
    before=st.sampled_from(["", "Yes.\n\n", "Yes.\n", "# Yes\n", "[r]: /y\n"]),
    first=st.sampled_from(PREFIXES),
    later=st.lists(st.sampled_from(PREFIXES), min_size=1, max_size=3),
)
def test_every_composed_definition_is_reported(
    definition: str, before: str, first: str, later: List[str]
) -> None:
    """Containers x labels x destinations x titles, against markdown-it-py."""
    text = _contained(before, first, later) + _contained(definition, first, later)
    _check(text)


@settings(max_examples=3000, deadline=None)
@given(text=st.text(alphabet="[]()<>\\ \n\t\"':>-*1.ab", max_size=32))
def test_fuzz_every_title_and_definition_markdown_it_sees_is_reported(
    text: str,
) -> None:
    """No false negative against the oracle on texts of link and container characters."""
    _check(text)


@pytest.mark.parametrize(
    "text",
    [
        'Yes [a](https://example.org/a(b) "t")',
        'Yes [a](https://example.org/a\\) "t")',
        'Yes [a](x((b)c) "t")',
        'Yes [a](x](y) "t")',  # a bare destination holding ](, balanced
        "> Yes [a](x(y)\n> (t))",  # the title on a block quote's next line
        "Yes [a](x(y)\n" + " " * 100 + '"t")',  # a continuation line indented far
        "Yes [a](" + "(" * 32 + "x" + ")" * 32 + ' "t")',  # the deepest nesting
        "Yes [a](" + "y(x)" * 1000 + ' "t")',  # a long destination
        # adv29l: the destination runs over an escaped line break in a container
        'Yes.\n\n> [s](https://e.org/a\\\n> b "t")',
        'Yes.\n\n- [s](https://e.org/a\\\n  b "t")',
        'Yes.\n\n1. [s](https://e.org/a\\\n   b\n   "t")',
        'Yes.\n\n> [s](<https://e.org/a\\\n> b> "t")',  # a pointy one
        'Yes.\n\n> > [s](a\\\n> > b\\\n> > c "t")',  # twice, nested quotes
        'Yes.\n\n> [s](a(\\\n> b) "t")',  # inside parentheses
        # a space past the container's own ends the destination: a title follows
        '> > [a]( x\\\n> >  "t")',
        'Yes.\n\n- [s](a\\\n   "t")',
    ],
)
def test_a_title_after_parentheses_is_reported(text: str) -> None:
    """Titles the review's patterns missed, and their neighbours."""
    assert _titles(text), text  # the oracle renders a title
    assert LINK_TITLE in MARKUP.kinds(text)


@pytest.mark.parametrize(
    "text",
    [
        "Yes.\n\n> [r]: /x 't'",
        "Yes.\n\n- [r]: /x 't'",
        "Yes.\n\n1. [r]:\n   /x\n   't'",
        "Yes.\n\n  [r\n]: /x 't'",
        "Yes.\n\n> > [r\n> > ]: /x",  # in nested block quotes, its label over lines
        "Yes.\n\n1.  a\n\n     [r]: /x",  # in a list item, past three spaces of the line
        "Yes.\r\r[r]: /x",  # a carriage return ends a line for CommonMark
        "Yes.\n\n[" + "x" * 999 + "]: /x",
    ],
)
def test_a_definition_in_a_container_is_reported(text: str) -> None:
    """Definitions the review's pattern missed, and their neighbours."""
    assert _definitions(text), text  # the oracle takes a definition
    assert REFERENCE_DEFINITION in MARKUP.kinds(text)


@pytest.mark.parametrize(
    "text",
    [
        "[a](b) and then (c)",
        "see [docs](https://x.example/foo_(bar)) (optional)",
        '[a](x(y)) "quoted"',
        "[a](x(y) z)",  # no title opens
        "[a](" + "(" * 33 + "x" + ")" * 33 + ' "t")',  # past markdown-it-py's nesting
        "- [x] done: yes",
        "Yes: [a] is b",
        "1. [a] : b",
    ],
)
def test_prose_near_the_forms_is_not_reported(text: str) -> None:
    """Links without titles and brackets without definitions report neither."""
    assert not _titles(text) and not _definitions(text), text
    kinds = MARKUP.kinds(text)
    assert LINK_TITLE not in kinds and REFERENCE_DEFINITION not in kinds, kinds
