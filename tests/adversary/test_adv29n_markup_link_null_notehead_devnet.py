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

r"""A link whose text is the musical null notehead is not reported (adv29n).

Severity: LOW (what it hides is a destination, as adv29m's braille blank it extends;
the text content is made inert either way, so only a host rendering the structured
value as Markdown shows the link).

``markup.BLANK_GLYPHS`` names U+2800 and the Hangul fillers. U+1D159 MUSICAL SYMBOL
NULL NOTEHEAD is another printable ("So", not default-ignorable, so
``untrusted_text.INVISIBLE_RANGES`` keeps it) character drawn with no ink: music
notation uses it to hold a note's place, and it is the next entry of the usual lists
of "blank" characters after U+2800 and U+3164. ``[\U0001d159](https://e.org/...)``
renders (markdown-it-py) a link whose only text is that character; alone or after a
braille blank, ``answers.hidden_in_value`` reports nothing, so the link is returned in
a paid answer's ``structuredContent`` with no warning. Whether a glyph draws nothing is
the font's (Noto Music, Bravura: an empty glyph); the oracle here checks only what
markdown-it-py makes a link of.

On the devnet the MCP SDK's client calls the tool through ``mech-catalogue mcp`` over
stdio; the request is paid on chain and the stand-in responder delivers the link.

Expected: a link whose text is only blank glyphs, U+1D159 among them, is reported as
``link without visible text`` (and its structured value withheld or warned about).
"""

from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from mech_catalogue_cli.mcp_server.answers import hidden_in_value
from scripts.devnet import Devnet
from tests.adversary.paid_markup import assert_never_structured_unflagged, paid_answer

_PARSER = MarkdownIt("commonmark", {"html": True})
NOTEHEAD = "\U0001d159"
ANSWERS = [
    f"Yes [{NOTEHEAD}](https://e.org/pay-0xabab)",
    f"Yes [\u2800{NOTEHEAD}](https://e.org/pay-0xabab)",
    "Yes [&#x1D159;](https://e.org/pay-0xabab)",
]


def _link_text(answer: str) -> str:
    """The text of the first link markdown-it-py makes of ``answer`` (the oracle)."""
    tokens = [t for b in _PARSER.parse(answer) for t in b.children or ()]
    opened = [i for i, t in enumerate(tokens) if t.type == "link_open"]
    assert opened, answer
    return tokens[opened[0] + 1].content


@pytest.mark.parametrize("answer", ANSWERS, ids=["alone", "after-braille", "reference"])
def test_a_null_notehead_link_is_reported(answer: str) -> None:
    """Without a chain: the link shows only blank glyphs; it is reported."""
    assert set(_link_text(answer)) <= {NOTEHEAD, "\u2800"}
    # observed on main: ((), ())
    assert hidden_in_value({"result": answer}) != ((), ())


def test_a_paid_answer_with_a_null_notehead_link_is_not_structured_unflagged(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A real paid call delivers the link; it is returned structured, no warning."""
    devnet = chain_snapshot
    answer = ANSWERS[0]
    result = paid_answer(devnet, tmp_path, answer, "adv29n notehead")
    # observed on main: returned structured as delivered, no invisible_text warning
    assert_never_structured_unflagged(result, answer)
