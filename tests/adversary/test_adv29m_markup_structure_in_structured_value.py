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

r"""The adv29c structure forms pass unflagged in the structured value (adv29m).

Severity: HIGH by the review's scale, as adv29l's markup in a JSON ``result``: hidden
text returned as ``structuredContent`` with no ``invisible_text`` warning; it reaches a
person through a host that renders ``structuredContent`` strings as Markdown.

adv29c found three forms that hide text with none of the characters the inert rule
rewrote: a fenced code block's info string (every word after the first dropped), a GFM
table row's cells past its header's, and ``%`` inside TeX math (a comment to the end of
the line). They were fixed in the *text* a model reads: ``results.visible_text``
rewrites the backtick fence, the pipe and ``$`` silently (no markup kind is reported,
so the answer is not withheld). The structured value is the mech's strings as
decoded: ``answers.hidden_in_value`` asks ``Markup.kinds``, which names none of the
three, so ``{"answer": "Yes $x % <hidden>$ ok"}`` is returned structured, unchanged,
with no warning, while its text content is the rewritten one.

Expected: a structured value whose strings hold one of these forms is not returned as
structured content (or the form is reported), as for the other markup kinds (adv29l).
"""

import json
import re
from typing import Any, Dict, List

import pytest
from markdown_it import MarkdownIt

from mech_catalogue_cli.mcp_server.answers import hidden_in_value
from mech_catalogue_cli.mcp_server.response_checks import structured_content
from mech_catalogue_cli.mcp_server.results import visible_text

_RENDERER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
_MATH = re.compile(r"\$\$(.*?)\$\$|\$([^$\n]+)\$", re.DOTALL)
SCHEMA: Dict[str, Any] = {"type": "object"}
HIDDEN = "zebra"


def _seen(text: str) -> List[str]:
    """The words a person sees of ``text`` rendered (tags and TeX comments dropped).

    :param text: Markdown (with TeX math, as a math renderer reads it).
    :return: lowercase words.
    """
    without_comments = _MATH.sub(
        lambda m: re.sub(r"(?<!\\)%[^\n]*", "", m.group(0)), text
    )
    rendered = _RENDERER.render(without_comments)
    return re.findall(r"[a-z0-9]+", re.sub(r"<[^>]*>", " ", rendered).lower())


@pytest.mark.parametrize(
    "answer",
    [
        f"Yes $x % {HIDDEN}$ ok",
        f"Yes\n\n```python {HIDDEN}\nx = 1\n```",
        f"Yes\n\n| a |\n|---|\n| b | {HIDDEN} |",
    ],
    ids=["math-comment", "fence-info-string", "table-excess-cell"],
)
def test_a_structured_value_hiding_text_is_not_returned(answer: str) -> None:
    """A structured string that hides a word when rendered is withheld or reported.

    :param answer: the string the structured value holds.
    """
    body = json.dumps({"answer": answer}).encode("utf-8")
    structured, problem = structured_content(SCHEMA, body)
    assert (structured, problem) == ({"answer": answer}, "")
    assert HIDDEN not in _seen(answer)  # the oracle: rendered, the word is gone
    _, removed, kinds = visible_text(body.decode("utf-8"))
    where, found = hidden_in_value(structured)
    # observed on main: removed 0, kinds (), hidden_in_value ((), ()): the answer is
    # returned as structuredContent, no warning
    assert kinds or where or found, (removed, kinds, where, found)
