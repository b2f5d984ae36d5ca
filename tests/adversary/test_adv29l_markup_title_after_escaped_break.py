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

r"""A title after a destination that runs over an escaped line break is not seen (adv29l).

Severity: HIGH by the review's scale (hidden text: a delivered answer whose link title
CommonMark renders as a tooltip is returned as ``structuredContent`` with no
``invisible_text`` warning), as adv29j's title finding; in practice it reaches a person
only through a host that renders ``structuredContent`` strings as Markdown, since the
answer's text content is made inert either way.

markdown-it-py (the markup tests' oracle, 4.3.0) lets a backslash in a bare link
destination escape any character, a line ending too: the destination goes on onto the
next line. Inside a block quote or a list item that next line starts with the
container's markers (``> ``, the item's indentation), which CommonMark strips before it
parses the inline content, so ``> [s](https://example.org/a\`` + line break + ``> b
"t")`` is a link to ``https://example.org/a%5C%0Ab`` titled ``t``.

``markup._LINK_TITLE_NESTED`` takes ``\`` and the line break as one destination
character (``_BARE_CHARACTER``'s ``\\[^ ]``), then reads the markers as the end of the
destination (a space): the separator and ``>`` follow where it needs the title's
opening, and nothing is found. ``markup._LINK_TITLE`` stops at the line break. Found by a
differential fuzz of ``MARKUP.kinds`` against markdown-it-py (random texts of link,
container and reference pieces).

Expected: every link title markdown-it-py renders is reported as ``link title``, a
destination running over an escaped line break inside a container too, so an answer
hiding one is not returned as structured content and says so.
"""

import pytest
from mech_catalogue_core.model.markup import LINK_TITLE

from tests.adversary.markdown_oracle import HIDDEN, assert_reported, titles


@pytest.mark.parametrize(
    "text",
    [
        f'Yes.\n\n> [source](https://example.org/a\\\n> b "{HIDDEN}")',
        f'Yes.\n\n- [source](https://example.org/a\\\n  b "{HIDDEN}")',
        f'Yes.\n\n1. [source](https://example.org/a\\\n   b\n   "{HIDDEN}")',
    ],
    ids=["block-quote", "list-item", "ordered-list-title-on-its-line"],
)
def test_a_title_after_an_escaped_line_break_is_seen(text: str) -> None:
    """markdown-it-py renders the title; the markup check and the answer's note say so.

    :param text: the delivered answer's text.
    """
    assert titles(text) == [HIDDEN], text  # the oracle: a tooltip, not shown
    # observed on main: kinds (); visible_text of the document: removed 0, kinds ()
    # (with no line break in the destination: ('link title',) both)
    assert_reported(text, LINK_TITLE)
