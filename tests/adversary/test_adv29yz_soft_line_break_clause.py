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
r"""A soft line break ends a clause for the check, not for a reader (adv29z K12).

Severity: MEDIUM (a tool asking ``Enter your`` / ``PIN`` on two source lines is served
and its manifest publishes; fix29ya's clause rule is the cause).

Observed on main: :func:`.short_secret_words.clause_words` ends a clause at every
``\n`` (``_CLAUSE_END``), and the short-word rules read within a clause, so a request
wrapped across source lines is read as two clauses: ``Enter your\nPIN``, ``Enter
your\nPIN to unlock``, ``Type your\r\nOTP``, ``Paste your\npk``, ``Give us your\nOTP``,
``Enter your card\nPIN``, ``Your card's\nPIN``, ``Enter your 4\ndigit PIN``, ``The
OTP\nsent by SMS`` ask nothing. In Markdown (CommonMark: a soft line break) and in HTML
a single newline inside a paragraph is shown as a space: a person reads one line,
"Enter your PIN", as does a model.

Expected: a single newline inside a paragraph joins the clause (only a blank line, a
list item or block start, or a hard break ends one); each text asks.
"""

import pytest
from markdown_it import MarkdownIt
from mech_catalogue_core.model.untrusted_text import secret_asked

COMMONMARK = MarkdownIt("commonmark", {"html": True})

WRAPPED = [
    "Enter your\nPIN",
    "Enter your\nPIN to unlock",
    "Type your\r\nOTP",
    "Paste your\npk",
    "Give us your\nOTP",
    "Enter your card\nPIN",
    "Your card's\nPIN",
    "Enter your 4\ndigit PIN",
    "The OTP\nsent by SMS",
]


def _one_paragraph_soft_break(text: str) -> bool:
    """The oracle: markdown-it-py reads one paragraph whose only break is soft."""
    tokens = COMMONMARK.parse(text)
    inline = [t for t in tokens if t.type == "inline"]
    kinds = {c.type for t in inline for c in t.children or ()}
    return len(inline) == 1 and "softbreak" in kinds and "hardbreak" not in kinds


def test_the_controls_ask() -> None:
    """On one line each asks on main."""
    assert secret_asked("Enter your PIN")
    assert secret_asked("Enter your card PIN")


@pytest.mark.parametrize("text", WRAPPED)
def test_a_request_wrapped_across_source_lines_asks(text: str) -> None:
    """One paragraph, one sentence to a reader: the request must be found."""
    assert _one_paragraph_soft_break(text)
    # observed on main: None
    assert secret_asked(text) is not None
