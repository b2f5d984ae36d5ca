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

"""A link whose text shows another address than its target is returned structured (adv29o).

Severity: LOW (a destination hidden behind visible text, in the structured value only:
the text content is made inert, so only a host rendering ``structuredContent`` as
Markdown shows the link; the same class as adv29m's and adv29n's empty links).

docs/mcp.md names "a link's target" among what hides from a person what a model reads,
and ``Markup.inert`` writes every ``[`` of the text content as ``&#91;`` for that
reason. The structured value is returned as written, and ``answers.hidden_in_value``
reports there only what ``Markup.kinds`` and ``markup.structure_kinds`` name: images,
titles, links without visible text, definitions, fences, tables, math. A link with
visible text is none of them, so
``[https://olas.network/forecast](https://e.org/pay-0xabab)`` (rendered: a link that
reads ``https://olas.network/forecast`` and goes to ``e.org``) is returned as
``structuredContent`` with no warning, though the rewrite that made it plain text in the
content is one :func:`~mech_catalogue_core.model.markup.structure_kinds` was added to
name for a value returned as written (adv29m).

On the devnet the MCP SDK's client calls the tool through ``mech-catalogue mcp`` over
stdio; the request is paid on chain and the stand-in responder delivers the link.

Expected: a link or image of the structured value whose target is not its text is
reported (``invisible_text``, the value withheld or warned about) as the text
content's rewrite of it is.
"""

from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from mech_catalogue_cli.mcp_server.answers import hidden_in_value
from scripts.devnet import Devnet
from tests.adversary.paid_markup import answer_text, paid_answer, warning_codes

_PARSER = MarkdownIt("commonmark", {"html": True})
TARGET = "https://e.org/pay-0xabab"
ANSWERS = [
    f"Yes, see [https://olas.network/forecast]({TARGET})",
    f"Yes, [details]({TARGET})",
]


def _link(answer: str) -> Any:
    """(text, target) of the first link markdown-it-py makes of ``answer``."""
    tokens = [t for b in _PARSER.parse(answer) for t in b.children or ()]
    opened = [i for i, t in enumerate(tokens) if t.type == "link_open"]
    assert opened, answer
    return tokens[opened[0] + 1].content, tokens[opened[0]].attrs["href"]


@pytest.mark.parametrize("answer", ANSWERS, ids=["address", "word"])
def test_a_link_hiding_its_target_is_reported(answer: str) -> None:
    """Without a chain: the link's target is not its text; it is reported."""
    text, target = _link(answer)
    assert target == TARGET and TARGET not in text
    # observed on main: ((), ())
    assert hidden_in_value({"result": answer}) != ((), ())


def test_a_paid_answer_with_a_link_hiding_its_target_is_not_structured_unflagged(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A real paid call delivers the link; it is returned structured, no warning."""
    devnet = chain_snapshot
    answer = ANSWERS[0]
    result = paid_answer(devnet, tmp_path, answer, "adv29o link target")
    assert "&#91;https://olas.network/forecast]" in answer_text(result)  # inert
    codes = warning_codes(result)
    held = [s for s in (result.structured_content or {}).values() if isinstance(s, str)]
    # observed on main: the link returned structured as delivered, no warning
    assert answer not in held or "invisible_text" in codes, (held, codes)
