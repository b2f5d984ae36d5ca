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

r"""A fence's info string after a Unicode space hides text in a paid answer (adv29n).

Severity: HIGH by the review's scale, as adv29m's structure forms it extends: hidden
text returned as ``structuredContent`` with no ``invisible_text`` warning; it reaches a
person through a host that renders ``structuredContent`` strings as Markdown (the text
content is made inert either way: every run of backticks is rewritten).

``markup._FENCE_WITH_INFO`` (``markup.structure_kinds``, asked by
``answers.hidden_in_value``) takes an info string to start after spaces and tabs only:
```` ```[ \t]*+\S ````. A fence whose info string opens with U+00A0 NO-BREAK SPACE (or
U+2003, U+3000, U+202F, U+1680: Unicode white space, neither ASCII space nor
invisible, so ``strip_invisible`` keeps them) is not matched. markdown-it-py strips the
info string with ``str.strip`` and takes its first word as the language (as
markdown-it does with JavaScript's ``trim`` and ``\s``; cmark-gfm keeps the space in
the class), so ```` ```\u00a0python zebra ```` renders a code block of language
``python`` and drops ``zebra``.

On the devnet (anvil with the real contracts, kubo) the MCP SDK's client calls the tool
through ``mech-catalogue mcp`` over stdio; the request is paid on chain and the stand-in
responder delivers the standard document whose ``result`` is that text.

Expected: the answer's structured value is withheld or reported (``invisible_text``),
as for a fence whose info string follows an ASCII space (adv29m).
"""

import re
from pathlib import Path
from typing import List

import pytest
from markdown_it import MarkdownIt

from mech_catalogue_cli.mcp_server.answers import hidden_in_value
from scripts.devnet import Devnet
from tests.adversary.paid_markup import assert_never_structured_unflagged, paid_answer

_RENDERER = MarkdownIt("commonmark", {"html": True})
HIDDEN = "zebra"
#: Unicode white space a renderer strips from an info string; not ASCII, not invisible
SPACES = ["\u00a0", "\u2003", "\u3000", "\u202f", "\u1680"]


def _answer(space: str) -> str:
    return f"Yes\n\n```{space}python {HIDDEN}\nx = 1\n```"


def _seen(text: str) -> List[str]:
    """The words a person sees of ``text`` rendered (tags dropped), lowercase."""
    return re.findall(r"[a-z0-9]+", re.sub(r"<[^>]*>", " ", _RENDERER.render(text)))


@pytest.mark.parametrize("space", SPACES, ids=[f"U+{ord(s):04X}" for s in SPACES])
def test_the_form_is_reported_for_a_structured_value(space: str) -> None:
    """Without a chain: the value's string hides a word rendered; it is reported."""
    answer = _answer(space)
    assert HIDDEN not in _seen(answer)  # the oracle: rendered, the word is gone
    # observed on main: ((), ())
    assert hidden_in_value({"result": answer}) != ((), ())


def test_a_paid_answer_hiding_a_word_in_a_fence_is_not_structured_unflagged(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A real paid call: the delivered result hides a word; structured and unflagged."""
    devnet = chain_snapshot
    answer = _answer("\u00a0")
    assert HIDDEN not in _seen(answer)  # the oracle
    result = paid_answer(devnet, tmp_path, answer, "adv29n fence")
    # observed on main: returned structured as delivered, no invisible_text warning
    assert_never_structured_unflagged(result, answer)
