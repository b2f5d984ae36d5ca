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

r"""Hidden forms of markup: what a person sees rendered is what a model reads (issue 29).

Each form hides the word ``zebra`` (or spells it in invisible characters) from a person
who views the text rendered, while a model reads the raw text. The text a model is given
(``for_model``) is rendered two ways, as MCP clients and reviewers do: as Markdown
(markdown-it-py's CommonMark with raw HTML on, GitHub's tables and strikethrough) and as
HTML. A person's view is known only when the rendering holds nothing but Markdown's own
structure (paragraphs, emphasis, code, lists, headings, tables): any other element, an
attribute, a comment or an instruction may hide text by CSS or by its nature, so it fails
the check. The view must then hold the same words as the model's text, no invisible
character, and no TeX command a math renderer would draw (``\phantom``, ``\color``).

The pattern-based cleaning before this rule left 25 of these 47 forms rendering to
hidden text or to markup whose view is unknowable (checked against the library at
00f2460); the others it removed whole.
"""

import html
import re
from html.parser import HTMLParser
from typing import List, Set, Tuple

import pytest
from markdown_it import MarkdownIt
from mech_catalogue_core.model.markup import (
    EMPTY_LINK,
    IMAGE,
    INVISIBLE_REFERENCE,
    LINK_TITLE,
    RAW_HTML,
    REFERENCE_DEFINITION,
)
from mech_catalogue_core.model.untrusted_text import (
    for_model,
    render_hidden_kinds,
    strip_invisible,
)

#: elements a CommonMark (+ tables, strikethrough) rendering of plain text may hold
MARKDOWN_OWN = {
    "p", "em", "strong", "code", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "ul",
    "ol", "li", "blockquote", "hr", "br", "table", "thead", "tbody", "tr", "th", "td",
    "s", "del",
}  # fmt: skip
#: attributes Markdown's own elements carry (a table cell's alignment, a list's start)
MARKDOWN_ATTRIBUTES = {("th", "style"), ("td", "style"), ("ol", "start")}
_RENDERER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
_TEX_COMMAND = re.compile(r"\\[A-Za-z(\[]")


class _View(HTMLParser):
    """What an HTML rendering shows, and anything that makes it unknowable."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: List[str] = []
        self.unknowable: List[str] = []

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, str | None]]) -> None:
        if tag not in MARKDOWN_OWN:
            self.unknowable.append(f"<{tag}>")
        self.unknowable.extend(
            f"{tag} {name}="
            for name, _ in attrs
            if (tag, name) not in MARKDOWN_ATTRIBUTES
        )

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.unknowable.append("comment")

    def handle_decl(self, decl: str) -> None:
        self.unknowable.append("declaration")

    def handle_pi(self, data: str) -> None:
        self.unknowable.append("instruction")

    def unknown_decl(self, data: str) -> None:
        self.unknowable.append("CDATA")


def _view(rendered_html: str) -> _View:
    view = _View()
    view.feed(rendered_html)
    view.close()
    return view


def _words(text: str) -> List[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _check_person_sees_what_model_reads(text: str) -> str:
    """Assert the model's text renders to itself; return it.

    :param text: text from a manifest.
    :return: ``for_model(text)``.
    """
    shown = for_model(text)
    model_words = _words(html.unescape(shown))
    for renderer, rendered in (
        ("Markdown", _RENDERER.render(shown)),
        ("HTML", shown),
    ):
        view = _view(rendered)
        seen = "".join(view.text)
        assert not view.unknowable, (renderer, view.unknowable, shown)
        assert strip_invisible(seen) == seen, (renderer, "invisible", shown)
        assert _words(seen) == model_words, (renderer, seen, shown)
        assert not _TEX_COMMAND.search(seen), (renderer, "TeX", shown)
    return shown


#: (form, text hiding "zebra" from a person, the kind flagged)
HIDDEN_FORMS = [
    ("comment", "ok <!-- zebra --> end", RAW_HTML),
    ("comment without spaces", "ok<!--zebra-->end", RAW_HTML),
    ("comment with three dashes", "ok <!--- zebra ---> end", RAW_HTML),
    ("unclosed comment", "ok <!-- zebra", RAW_HTML),
    ("comment block", "<!--\nzebra\n-->\nend", RAW_HTML),
    ("CDATA", "ok <![CDATA[zebra]]> end", RAW_HTML),
    ("processing instruction", "ok <?php zebra ?> end", RAW_HTML),
    ("declaration", "ok <!DOCTYPE zebra> end", RAW_HTML),
    ("script block", "<script>\nzebra\n</script>", RAW_HTML),
    ("style block", "<style>\n.zebra{}\n</style>", RAW_HTML),
    ("noscript", "ok <noscript>zebra</noscript> end", RAW_HTML),
    ("template", "<template>zebra</template>", RAW_HTML),
    ("svg text", '<svg width="0"><text>zebra</text></svg>', RAW_HTML),
    ("upper-case tag", 'ok <SPAN STYLE="DISPLAY:NONE">zebra</SPAN>', RAW_HTML),
    ("white text", 'ok <span style="color:white">zebra</span>', RAW_HTML),
    ("zero font", 'ok <span style="font-size:0px">zebra</span>', RAW_HTML),
    ("opacity", 'ok <p style="opacity:0">zebra</p>', RAW_HTML),
    ("visibility", 'ok <i style="visibility:hidden">zebra</i>', RAW_HTML),
    ("hidden attribute", "ok <b hidden>zebra</b>", RAW_HTML),
    ("unclosed hidden element", 'ok <span style="display:none">zebra', RAW_HTML),
    ("tag across lines", 'ok <span\nstyle="display:none">zebra</span>', RAW_HTML),
    (
        "aria-hidden off screen",
        'ok <span aria-hidden="true" style="position:absolute;left:-9999px">zebra'
        "</span>",
        RAW_HTML,
    ),
    ("class only", "ok <span class=sr-only>zebra</span>", RAW_HTML),
    ("font colour", 'ok <font color="#ffffff">zebra</font>', RAW_HTML),
    ("details", "<details><summary>ok</summary>zebra</details>", RAW_HTML),
    ("img alt", 'ok <img alt="zebra" src="x.png"> end', RAW_HTML),
    ("HTML link title", '<a href="https://x.example" title="zebra">ok</a>', RAW_HTML),
    ("abbr title", '<abbr title="zebra">ok</abbr>', RAW_HTML),
    ("HTML in a table", "| a |\n|---|\n| <span hidden>zebra</span> |", RAW_HTML),
    ("image alt", "ok ![zebra](x.png) end", IMAGE),
    ("image title", 'ok ![x](x.png "zebra") end', IMAGE),
    ("link title in double quotes", 'ok [a](https://x.example "zebra")', LINK_TITLE),
    ("link title in single quotes", "ok [a](https://x.example 'zebra')", LINK_TITLE),
    ("link title in parentheses", "ok [a](https://x.example (zebra))", LINK_TITLE),
    ("link target", "ok [a](https://x.example/zebra)", None),
    ("zero-width link", "ok [](https://x.example/zebra)", EMPTY_LINK),
    (
        "reference definition",
        "ok\n\n[r]: https://x.example 'zebra'",
        REFERENCE_DEFINITION,
    ),
    (
        "reference definition, title on its own line",
        'ok\n\n[r]: https://x.example\n  "zebra"',
        REFERENCE_DEFINITION,
    ),
    ("footnote", "ok[^1]\n\n[^1]: zebra", REFERENCE_DEFINITION),
    ("used reference", "[ok][r]\n\n[r]: https://x.example/zebra", REFERENCE_DEFINITION),
    (
        "escaped backslash before a comment",
        "ok \\\\<!-- zebra -->",
        RAW_HTML,
    ),
    (
        "tag characters by numeric reference",
        "ok " + "".join(f"&#x{0xE0000 + ord(c):X};" for c in "zebra"),
        INVISIBLE_REFERENCE,
    ),
    ("zero-width joiner by name", "ze&zwj;bra", INVISIBLE_REFERENCE),
    ("soft hyphen, HTML's legacy name", "ze&shy bra", INVISIBLE_REFERENCE),
    ("TeX phantom", "ok $\\phantom{zebra}$ end", None),
    ("TeX colour", "ok $$\\color{white}{zebra}$$ end", None),
    ("TeX display delimiters", "ok \\[\\phantom{zebra}\\] end", None),
]


@pytest.mark.parametrize(
    "text,kind",
    [(text, kind) for _, text, kind in HIDDEN_FORMS],
    ids=[form for form, _, _ in HIDDEN_FORMS],
)
def test_a_person_sees_what_the_model_reads(text: str, kind: str) -> None:
    """Rendered as Markdown or HTML, the model's text shows every word it holds.

    :param text: a hidden form.
    :param kind: the markup kind it is flagged as (None: nothing hides it in CommonMark).
    """
    shown = _check_person_sees_what_model_reads(text)
    # nothing is removed: the person sees the hidden word, or the reference as written
    assert "zebra" in shown or "&amp;" in shown
    assert (
        for_model(shown) == shown
    )  # idempotent: the server cleans an agent's text again
    assert not render_hidden_kinds(shown)
    if kind is not None:
        assert kind in render_hidden_kinds(text)


#: markup that hides nothing, and text that only looks like markup: shown as it is
VISIBLE_FORMS = [
    ("entity-encoded comment", "ok &lt;!-- zebra --&gt; end"),
    ("comparison", "if 3 < 5 and 7 > 2"),
    ("emphasis", "***zebra*** and _zebra_ and ~~zebra~~"),
    ("setext heading", "zebra\n===\n\nbody"),
    ("code", "`zebra` and\n\n    indented zebra"),
    ("a list", "- zebra\n- okapi"),
    ("ampersands", "R&D, AT&T, 5 &gt; 3 &amp; 2"),
    ("a lone backslash", "C:\\ drive, a \\ alone"),
]


@pytest.mark.parametrize(
    "text", [t for _, t in VISIBLE_FORMS], ids=[f for f, _ in VISIBLE_FORMS]
)
def test_visible_forms_are_kept_as_written(text: str) -> None:
    """Nothing visible is rewritten, and nothing is flagged.

    :param text: a visible form.
    """
    assert _check_person_sees_what_model_reads(text) == text
    assert not render_hidden_kinds(text)


def test_no_markup_survives_any_mix_of_the_forms() -> None:
    """All forms at once, and each glued to the next, still render to the model's words."""
    texts = [text for _, text, _ in HIDDEN_FORMS]
    _check_person_sees_what_model_reads("\n".join(texts))
    _check_person_sees_what_model_reads("".join(texts))
    kinds: Set[str] = set(render_hidden_kinds("\n\n".join(texts)))
    assert kinds >= {RAW_HTML, IMAGE, LINK_TITLE, EMPTY_LINK, REFERENCE_DEFINITION}


#: a delimiter row's cells (GFM "Tables": ``:?-+:?``), with and without a pipe
DELIMITER_CELLS = [":--", "--:", ":-:", "---", "-:", ":-", "--", ":---------:"]
#: containers a table may stand in: (its first line's prefix, the next lines')
CONTAINERS = [
    ("", ""),
    ("> ", "> "),
    ("> > ", "> > "),
    ("   ", "   "),
    ("- ", "  "),
    ("+ ", "  "),
    ("> * ", ">   "),
]


def _one_column_tables() -> List[Tuple[str, str]]:
    """Every delimiter row form: without a pipe, within pipes, with spaces and tabs.

    :return: (id, text) pairs, those that render as a table in markdown-it-py (the
        oracle: a leading space behind three spaces of indent is a code block instead).
    """
    tables = []
    for cell in DELIMITER_CELLS:
        for prefix, follow in CONTAINERS:
            for row in (cell, f"|{cell}|", f" {cell} \t", f"| {cell} |", f"{cell}|"):
                text = f"{prefix}a |\n{follow}{row}\n{follow}b | zebra okapi"
                if "<table>" in _RENDERER.render(text):
                    tables.append((f"{prefix!r}{row!r}", text))
    return tables


ONE_COLUMN_TABLES = _one_column_tables()


def test_the_delimiter_row_forms_are_tables() -> None:
    """The generated forms are tables in the oracle (all but the indented code block)."""
    generated = len(DELIMITER_CELLS) * len(CONTAINERS) * 5
    assert len(ONE_COLUMN_TABLES) == generated - len(DELIMITER_CELLS)


@pytest.mark.parametrize(
    "text", [t for _, t in ONE_COLUMN_TABLES], ids=[i for i, _ in ONE_COLUMN_TABLES]
)
def test_no_delimiter_row_leaves_a_table_whatever_its_form(text: str) -> None:
    """A delimiter row, with or without a pipe, behind any container, leaves no table.

    :param text: a one-column table hiding "zebra okapi" in a second body cell.
    """
    shown = _check_person_sees_what_model_reads(text)
    assert "<table>" not in _RENDERER.render(shown)
    assert for_model(shown) == shown


#: lines made of a delimiter row's characters that follow no line with a pipe: no table
#: can start there, so they are kept (a setext heading, a thematic break, a lone cell)
NO_HEADER_ROWS = ["Title\n---\n\nbody", "a\n\n---\n\nb", "--:\nb | c", "x\n:--\ny"]


@pytest.mark.parametrize("text", NO_HEADER_ROWS)
def test_a_row_under_no_header_is_kept_as_written(text: str) -> None:
    """Only a line under a line with a pipe can be a delimiter row: others are kept.

    :param text: a line of ``-``, ``:`` (and ``|``) under a line without a pipe.
    """
    assert for_model(text) == text


#: how a reference may spell ``$`` or a backslash (numeric in any case and with leading
#: zeros, named, with or without ``;``): HTML and CommonMark decode each
REFERENCES = [
    "&#36;",
    "&#036;",
    "&#00000036;",
    "&#x24;",
    "&#X24;",
    "&#x0024;",
    "&#x000000024;",
    "&#36",
    "&dollar;",
    "&#92;",
    "&#x5c;",
    "&#X5C;",
    "&#0092;",
    "&bsol;",
]


@pytest.mark.parametrize("reference", REFERENCES)
def test_no_reference_gives_a_math_renderer_a_dollar_or_a_backslash(
    reference: str,
) -> None:
    """Rendered and decoded, the model's text holds no ``$`` and no backslash.

    :param reference: a reference to ``$`` or a backslash.
    """
    assert html.unescape(reference) in "$\\"  # the oracle: it stands for one of them
    text = f"ok {reference}x % zebra{reference} and {reference}phantom{{okapi}} end"
    shown = _check_person_sees_what_model_reads(text)
    page = html.unescape(re.sub(r"<[^>]*>", "", _RENDERER.render(shown)))
    assert "$" not in page and "\\" not in page, page
    assert for_model(shown) == shown


#: references to other visible characters, and names that are no reference: as written
OTHER_REFERENCES = ["&#37;", "&#x2424;", "&#360;", "&dollarx;", "&DOLLAR;", "&bsolb;"]


@pytest.mark.parametrize("reference", OTHER_REFERENCES)
def test_a_reference_to_another_character_is_kept(reference: str) -> None:
    """Only references to ``$`` and the backslash are rewritten.

    :param reference: a reference that stands for neither, or for nothing.
    """
    assert for_model(f"ok {reference} end") == f"ok {reference} end"
