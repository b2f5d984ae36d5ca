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

"""A link whose text is a blank glyph is not reported (adv29m).

Severity: LOW (what it hides is a destination, as the adv29l links without visible
text it extends, which the project calls weak).

``markup._EMPTY_LINK`` and ``Markup._shows_nothing`` count white space and invisible
characters (``untrusted_text.INVISIBLE_RANGES``) as showing nothing. U+2800 BRAILLE
PATTERN BLANK is neither (a printable "So" character, not default-ignorable), but every
common font draws it as an empty cell: ``[\u2800](https://e.org/...)``, or its
reference ``&#x2800;``, renders a link nobody sees (markdown-it-py: ``<a href=...>``
holding only U+2800). Hangul fillers (U+3164, U+FFA0, default-ignorable) are already
caught; the braille blank is the usual substitute for them.

Expected: a link whose text is only U+2800 (literal or a reference), with or without
spaces, is reported as ``link without visible text``.
"""

import pytest
from markdown_it import MarkdownIt
from mech_catalogue_core.model.markup import EMPTY_LINK
from mech_catalogue_core.model.untrusted_text import MARKUP, strip_invisible

_PARSER = MarkdownIt("commonmark", {"html": True})


@pytest.mark.parametrize(
    "text",
    [
        "Yes [\u2800](https://e.org/pay-0xabab)",
        "Yes [&#x2800;](https://e.org/pay-0xabab)",
        "Yes [ \u2800\u2800 ](https://e.org/pay-0xabab)",
    ],
    ids=["literal", "reference", "with-spaces"],
)
def test_a_braille_blank_link_is_reported(text: str) -> None:
    """The link renders with a blank cell as its only text; it is reported.

    :param text: the answer's text.
    """
    tokens = [t for b in _PARSER.parse(text) for t in b.children or ()]
    opened = [i for i, t in enumerate(tokens) if t.type == "link_open"]
    assert opened, text  # the oracle: a link
    inner = tokens[opened[0] + 1].content
    assert set(inner.strip()) == {"\u2800"}, inner  # it shows blank cells only
    kinds = MARKUP.kinds(strip_invisible(text))
    # observed on main: ()
    assert EMPTY_LINK in kinds, kinds
