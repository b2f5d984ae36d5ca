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

r"""Link titles after parentheses and definitions in containers are not seen (adv29j).

Severity: HIGH by the review's scale (hidden text: a delivered answer whose link title
CommonMark renders as a tooltip is returned as structured content with no warning);
in practice it reaches a person only through a host that renders ``structuredContent``
strings as Markdown, since the answer's text content is made inert either way.

CommonMark lets a bare link destination hold balanced parentheses and escaped ones
(spec 0.31, "Links": ``[a](x(y) "t")`` and ``[a](x\) "t")`` are links titled ``t``;
markdown-it-py renders both with a ``title`` attribute). The link-title pattern
(``markup._LINK_TITLE``, rewritten linear by fix29j) scans a bare destination as
``[^\s)\]]`` runs: it stops at the first ``)`` and then needs whitespace, so neither
title is found (the pattern of before had the same gap, ``[^\s)]``).
``MARKUP.kinds`` then reports nothing, and so does ``results.visible_text`` (the text
is made inert, but no kind and no removed character is counted): ``answer_result``
keeps the mech's value as ``structuredContent`` (it withholds it only when
``visible_text`` reports something), with no ``invisible_text`` warning, though
with ``[a](x "t")`` it is withheld and said. The same gap lets a manifest's text
through ``tool_text_problems``/``hidden_text_refusal`` unflagged.

Checked against markdown-it-py, the oracle the markup tests use.

Reference-style definitions are missed the same way when they stand in a block quote
or a list item, or their label runs over two lines (``markup._DEFINITION`` looks at a
line's start only): markdown-it-py renders nothing of them.

Expected: every link title markdown-it-py renders is reported as ``link title``
(destinations with balanced or escaped parentheses too), and every definition it
swallows as ``reference-style link definition``, so an answer hiding one is not
returned as structured content and says so.
"""

import pytest
from mech_catalogue_core.model.markup import LINK_TITLE, REFERENCE_DEFINITION

from tests.adversary.markdown_oracle import HIDDEN, PARSER, assert_reported, titles


@pytest.mark.parametrize(
    "text",
    [
        f'Yes [source](https://example.org/a(b) "{HIDDEN}")',  # balanced parentheses
        f'Yes [source](https://example.org/a\\) "{HIDDEN}")',  # an escaped one
        f'Yes [source](https://example.org/a((b)c) "{HIDDEN}")',  # nested
    ],
    ids=["balanced", "escaped", "nested"],
)
def test_a_title_after_parentheses_is_seen(text: str) -> None:
    """markdown-it-py renders the title; the markup check and the answer's note say so.

    :param text: the delivered answer's text.
    """
    assert titles(text) == [HIDDEN], text  # the oracle: a tooltip, not shown
    # observed on main: kinds (); visible_text of the document: removed 0, kinds ()
    # (with 'https://example.org/a' as the destination: ('link title',) both)
    assert_reported(text, LINK_TITLE)


@pytest.mark.parametrize(
    "text",
    [
        f'Yes.\n\n> [r]: /x "{HIDDEN}"',  # in a block quote
        f'Yes.\n\n- [r]: /x "{HIDDEN}"',  # in a list item
        f'Yes.\n\n1. [r]:\n   /x\n   "{HIDDEN}"',  # in an ordered one, over lines
        f'Yes.\n\n  [r\n]: /x "{HIDDEN}"',  # its label over two lines
    ],
    ids=["block-quote", "list-item", "ordered-list", "label-over-lines"],
)
def test_a_definition_in_a_container_is_seen(text: str) -> None:
    """markdown-it-py shows none of the definition; the markup check reports it.

    A reference-style definition is not rendered at all (its title neither); the
    pattern (``markup._DEFINITION``) only looks for one at a line's start, after at
    most three spaces, its label on one line.

    :param text: the delivered answer's text.
    """
    assert "Yes." in PARSER.render(text), text
    assert HIDDEN not in PARSER.render(text), text  # the oracle: not shown at all
    # observed on main: kinds (); visible_text of the document: removed 0, kinds ()
    assert_reported(text, REFERENCE_DEFINITION)
