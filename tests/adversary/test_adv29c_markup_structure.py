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

r"""Markdown's own structure still hides text from a person (adversary adv29c).

The inert-markup rule (``model.markup``) rewrites the four characters that start HTML,
links, TeX commands and invisible references, and claims that afterwards "no renderer
(CommonMark, GitHub Markdown, HTML, Markdown with TeX math) interprets any of it as
markup, and every character of it stays visible". Three forms need none of the four:

- a fenced code block's info string: `` ```python zebra okapi `` renders as
  ``<pre><code class="language-python">``; every word after the first is dropped, and the
  first becomes an attribute (CommonMark 0.31, "Fenced code blocks": the info string is
  not content; GitHub renders only the first word, as the highlighting language);
- a GFM table row with more cells than the header: "The excess is ignored" (GitHub
  Flavored Markdown spec, "Tables (extension)"), so ``| b | zebra |`` under a one-column
  header shows ``b`` only;
- ``%`` inside TeX math (``$...$``, ``$$...$$``): TeX, KaTeX and MathJax read it as a
  comment to the end of the line, so ``$$x % zebra`` draws ``x`` (needs no backslash).

The oracle is the one the library's own corpus test uses: markdown-it-py's CommonMark
with raw HTML on and GitHub's tables. Nothing here is flagged as ``invisible_text``
either. Expected: the text a model reads renders to the same words for a person (these
forms written inertly, e.g. the backtick fence, the table pipe and ``%`` as references),
or the tool is flagged.
"""

import html
import re
from typing import List

import pytest
from markdown_it import MarkdownIt
from mech_catalogue_core.model.untrusted_text import for_model, render_hidden_kinds

_RENDERER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
_MATH = re.compile(r"\$\$(.*?)\$\$|\$([^$\n]+)\$", re.DOTALL)

#: (form, text that hides "zebra" from a person once rendered)
STRUCTURE_FORMS = [
    ("fence info string", "ok\n\n```python zebra okapi\nx = 1\n```\n\nend"),
    ("tilde fence info string", "ok\n\n~~~ text zebra\nx\n~~~"),
    ("fence info string only word", "ok\n\n```zebra\nx\n```"),
    ("table excess cell", "ok\n\n| a |\n|---|\n| b | zebra |"),
]


def _words(text: str) -> List[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _seen(rendered: str) -> str:
    """The text content a browser shows for an HTML rendering (tags dropped)."""
    return html.unescape(re.sub(r"<[^>]*>", " ", rendered))


@pytest.mark.parametrize(
    "text", [t for _, t in STRUCTURE_FORMS], ids=[f for f, _ in STRUCTURE_FORMS]
)
def test_markdown_structure_hides_no_word_the_model_reads(text: str) -> None:
    """Rendered, the model's text shows every word it holds, or it is flagged.

    :param text: a form hiding "zebra".
    """
    shown = for_model(text)
    assert "zebra" in html.unescape(shown)  # the model reads it
    seen = _seen(_RENDERER.render(shown))
    flagged = render_hidden_kinds(text)
    # observed now: seen lacks "zebra" (and "okapi"), nothing flagged
    assert _words(seen) == _words(html.unescape(shown)) or flagged, (shown, seen)


@pytest.mark.parametrize(
    "text",
    ["ok $$x % zebra\n$$ end", "ok $x % zebra$ end"],
    ids=["display math comment", "inline math comment"],
)
def test_no_tex_comment_survives_in_math(text: str) -> None:
    """A ``%`` inside math delimiters is a TeX comment: it must not reach a person as one.

    No TeX renderer runs here; the rule is TeX's (and KaTeX's and MathJax's): ``%``
    starts a comment running to the end of the line. Expected: ``%`` written so that a
    math renderer draws it (or the math delimiters written inertly), or the text flagged.

    :param text: math whose comment hides "zebra".
    """
    shown = for_model(text)
    comments = [
        (m.group(1) or m.group(2))
        for m in _MATH.finditer(shown)
        if re.search(r"(?<!\\)%", m.group(1) or m.group(2))
    ]
    assert not comments or render_hidden_kinds(text), (shown, comments)
