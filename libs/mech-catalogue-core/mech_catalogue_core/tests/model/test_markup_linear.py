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

"""The link-title pattern finds what CommonMark calls a link title, in linear time (adv29i).

The pattern of before backtracked over 2 x 2,048 characters at each ``](``: 13.6 s for
1 MiB of ``[a](<b``. Its replacement (``markup._LINK_TITLE``) is checked here against
markdown-it-py (the CommonMark parser the markup tests take as their oracle) on texts
written of the characters that make a link. Its time is measured, never asserted, by
``scripts/bench_markup.py`` (docs/benchmarks.md, "Model text").
"""

import re
from typing import List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from mech_catalogue_core.model import markup
from mech_catalogue_core.model.markup import LINK_TITLE
from mech_catalogue_core.model.untrusted_text import MARKUP

_PARSER = MarkdownIt("commonmark")
#: the link-title pattern of before adv29i: the semantics the new one keeps, except a
#: pointy destination holding an unescaped ``<`` or an escaped ``>`` (CommonMark takes
#: neither as one, spec 0.31 "Links")
_BEFORE = re.compile(r"\]\(\s{0,64}(?:<[^>\n]{0,2048}>|[^\s)]{0,2048})\s{1,64}[\"'(]")


def _titles(text: str) -> List[str]:
    """The link and image titles markdown-it-py gives a text.

    :param text: Markdown.
    :return: each ``title`` attribute found.
    """
    found = []
    for block in _PARSER.parse(text):
        for token in block.children or ():
            if token.type in ("link_open", "image") and token.attrGet("title"):
                found.append(str(token.attrGet("title")))
    return found


@pytest.mark.parametrize(
    "text",
    [
        '[a](b "t")',
        "[a](<b c> 't')",
        "[a](<b \\<c> (t))",  # an escaped < in a pointy destination
        '[a]( b\t"t")',
        '[a](<b](c d> "t")',  # a pointy one holding ](
        "[a](" + "x" * 2000 + ' "t")',
        # beyond the bound of _LINK_TITLE's bare destination: found since adv29j by
        # the pattern of any length (_LINK_TITLE_NESTED)
        "[a](" + "x" * 2049 + ' "t")',
    ],
)
def test_a_title_commonmark_sees_is_found(text: str) -> None:
    """Each title markdown-it-py renders is reported, whatever the destination."""
    assert _titles(text), text  # the oracle sees a title
    assert LINK_TITLE in MARKUP.kinds(text)


@pytest.mark.parametrize(
    "text",
    [
        '[a](  "t")',  # only spaces before the quote
        '[a](b](c "t")',  # a bare destination holding ](
        "[a](<b](c d> (t) x",  # a pointy one holding ](, the link never closed
    ],
)
def test_forms_near_a_title_are_still_reported_as_before(text: str) -> None:
    """Conservative as the pattern of before: a form a renderer may take as a title."""
    assert _BEFORE.search(text)
    assert LINK_TITLE in MARKUP.kinds(text)


@pytest.mark.parametrize(
    "text",
    [
        "[a](b) and then (c)",  # a closed link, a parenthesis later
        "[a](b c)",  # no quote or parenthesis opens a title
        "[a](" + " " * 129 + '"t")',  # spaces beyond both bounds
        "no link ( here",
    ],
)
def test_no_title_is_found_where_none_is(text: str) -> None:
    """Links without titles, and spaces beyond the bounds, report no title."""
    assert LINK_TITLE not in MARKUP.kinds(text)


_LINKISH = st.text(alphabet="[]()<>\\ \n\"'ab", max_size=24)


@settings(max_examples=3000, deadline=None)
@given(text=_LINKISH)
def test_fuzz_every_title_markdown_it_sees_is_reported(text: str) -> None:
    """No false negative against the oracle on texts of link characters."""
    if _titles(text):
        assert LINK_TITLE in MARKUP.kinds(text), text


@settings(max_examples=3000, deadline=None)
@given(text=st.text(alphabet="[]() \n\"'ab", max_size=24))
def test_fuzz_without_pointy_destinations_the_pattern_of_before_agrees(
    text: str,
) -> None:
    """Where no ``<`` opens a destination, the new pattern finds what the old found."""
    found = markup._LINK_TITLE.search(text)  # pylint: disable=protected-access
    assert bool(found) == bool(_BEFORE.search(text)), text
