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

"""The text an answer is served as is checked as one document, as a host renders it.

A host renders the whole text content as one Markdown document: an array's ``[``, the
quotes and commas between strings and the lines between tokens join the strings of a
JSON answer into links, titles and definitions no single string holds (adv29m).
``results.visible_text`` checks the served text as a whole after composing it. The
oracle is markdown-it-py (CommonMark, HTML on): random JSON answers whose strings hold
link, title and definition fragments, laid out with random white space between tokens,
rendered whole, never render a link title, a definition, an image or HTML, and whatever
is served as delivered rendered none while no warning was given. The structured value
gets the verdict of the text (``answers.hidden_in_value``): the fence, table and math
forms the text rewrites silently are reported for it too.
"""

import json
import random
from typing import Any, Dict, List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mech_catalogue_core.model.markup import FENCE_INFO, MATH_COMMENT, TABLE_CELLS

from mech_catalogue_cli.mcp_server.answers import hidden_in_value
from mech_catalogue_cli.mcp_server.results import visible_text

_PARSER = MarkdownIt("commonmark", {"html": True})

#: pieces of an answer's strings: link, title and definition fragments, words
FRAGMENTS = [
    *["[", "]", "](https://e.org", "](", " (", ' "', " '", ")", "))", "]: /x"],
    *["]: https://e.org", "!", "<b>", "<", "x", "hidden words", "\n", "\n\n", "'"],
    *["r]", "[r]", " ", "> ", "- ", "\\"],
]
#: white space JSON allows between tokens, as a mech may lay its document out
GAPS = ["", " ", "\n", "\n\n", "\n  ", "\n\n    "]


def _hiding(text: str) -> List[str]:
    """What of ``text`` markdown-it-py renders hidden: titles, definitions, HTML, images.

    :param text: the served text, rendered whole.
    :return: a description of each such construct ([] when none).
    """
    env: Dict[str, Any] = {}
    tokens = _PARSER.parse(text, env)
    found = [f"definition {label!r}" for label in env.get("references", {})]
    for block in tokens:
        if block.type == "html_block":
            found.append(f"html block {block.content!r}")
        children: List[Token] = block.children or []
        for token in children:
            if token.type == "link_open" and token.attrGet("title"):
                found.append(f"title {token.attrGet('title')!r}")
            elif token.type in ("image", "html_inline"):
                found.append(f"{token.type} {token.content!r}")
    return found


def _laid_out(value: Any, rng: random.Random) -> str:
    """A JSON document of ``value`` with random white space between its tokens.

    :param value: a JSON value of lists, dicts and strings.
    :param rng: where the gaps are drawn from.
    :return: valid JSON text.
    """

    def gap() -> str:
        return rng.choice(GAPS)

    if isinstance(value, list):
        items = [gap() + _laid_out(item, rng) + gap() for item in value]
        return "[" + ",".join(items) + "]"
    if isinstance(value, dict):
        pairs = [
            gap() + json.dumps(k) + gap() + ":" + gap() + _laid_out(v, rng) + gap()
            for k, v in value.items()
        ]
        return "{" + ",".join(pairs) + "}"
    return json.dumps(value, ensure_ascii=False)


_STRINGS = st.lists(st.sampled_from(FRAGMENTS), max_size=5).map("".join)
_VALUES = st.recursive(
    _STRINGS,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["answer", "sources", "a", "b"]), inner),
    max_leaves=8,
)


@settings(
    max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(value=_VALUES, seed=st.integers(0, 2**32 - 1))
def test_fuzz_a_served_answer_renders_nothing_hidden(value: Any, seed: int) -> None:
    """Whatever is served renders no title, definition, image or HTML, as a whole."""
    body = _laid_out(value, random.Random(seed))
    assert json.loads(body) == value
    shown, removed, kinds = visible_text(body)
    assert not _hiding(shown), (body, shown, kinds)
    if shown == body:  # served as delivered: the whole document passed the check
        assert not kinds and not removed, (body, kinds)


@pytest.mark.parametrize(
    "body",
    [
        '{"answer": "Yes", "sources": ["x](https://e.org (", "hidden", "))"]}',
        '{"answer": "Yes", "sources": ["[x](https://e.org (", "hidden", "))"]}',
        '{"answer": "Yes", "sources":\n\n["r]: https://e.org",\n"hidden"\n]}',
        '[\n"r]: /x"\n]',
    ],
    ids=["title-across-strings", "bracket-flagged", "definition-lines", "top-array"],
)
def test_markup_formed_across_strings_is_reported_and_inert(body: str) -> None:
    """The review's shapes: reported, the whole text inert (no ``[`` left)."""
    assert _hiding(body)  # the oracle: rendered as delivered, text is hidden
    shown, _, kinds = visible_text(body)
    assert kinds and not _hiding(shown) and "[" not in shown, (shown, kinds)


@pytest.mark.parametrize(
    "document",
    [
        {"answer": "Yes", "sources": ["https://e.org/a", "b"], "n": [[], [1]]},
        {"answer": "a link https://e.org/b (c) and 'd'", "list": [["x"], {}]},
    ],
)
def test_an_answer_without_hiding_markup_is_served_as_delivered(
    document: Dict[str, Any],
) -> None:
    """Arrays, parentheses and quotes are no finding, laid out any way."""
    for indent in (None, 0, 2):
        body = json.dumps(document, indent=indent)
        assert visible_text(body) == (body, 0, ()), body


def test_brackets_in_strings_are_rewritten_without_a_finding() -> None:
    """A plain link and lone brackets: shown inert, as before, and not reported."""
    body = json.dumps({"answer": "a [link](https://e.org) and [r]", "l": ["[", "]"]})
    shown, removed, kinds = visible_text(body)
    assert (removed, kinds) == (0, ()) and "&#91;link]" in shown, shown


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        ("Yes $x % zebra$ ok", MATH_COMMENT),
        ("Yes &#36;x &#37; zebra&#36;", MATH_COMMENT),
        ("Yes \\(x % zebra\\)", MATH_COMMENT),
        ("Yes\n\n```python zebra\nx = 1\n```", FENCE_INFO),
        ("Yes\n\n~~~~ py zebra\nx\n~~~~", FENCE_INFO),
        ("Yes\n\n| a |\n|---|\n| b | zebra |", TABLE_CELLS),
        ("Yes\n\na |\n:--\nb | zebra", TABLE_CELLS),
    ],
)
def test_a_structure_form_is_reported_in_the_structured_value(
    answer: str, kind: str
) -> None:
    """The structured value names the form at its pointer, as the other kinds."""
    assert hidden_in_value({"answer": answer, "n": 1}) == (("/answer",), (kind,))


@pytest.mark.parametrize(
    "answer",
    ["costs $5", "10% off", "```\nx = 1\n```", "a | b", "up 10%, down $3", "``x``"],
)
def test_forms_that_hide_nothing_stay_in_the_structured_value(answer: str) -> None:
    """A price, a percentage, a fence without info, a pipe: no finding."""
    assert hidden_in_value({"answer": answer}) == ((), ())
