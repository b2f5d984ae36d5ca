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

"""The word checks read a text as written and as rendered (adv29o, kind A).

Phrases are spelt apart with every form a renderer or a model reads through: character
references (decimal, hex, named, nested), inline HTML tags and comments inside a word,
emphasis and code spans, a link's text, full-width and mathematical letters, accents.
For the forms a renderer shows as the plain words, markdown-it-py (HTML on) rendered to
text is the oracle that a person reads the phrase; the instruction check
(:func:`instruction_phrases`) and the secret check (:func:`secret_asked`,
:func:`secret_arguments`) must then find it. Texts with ordinary markup and references
that ask nothing stay unflagged.
"""

import html
import re
import unicodedata
from typing import Callable, Dict, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.common.html_blocks import block_names
from mech_catalogue_core.model.rendered_text import (
    LINE_ELEMENTS,
    MAX_REFERENCE_DECODINGS,
    plain_text,
)
from mech_catalogue_core.model.short_secret_words import words_of
from mech_catalogue_core.model.untrusted_text import (
    _INVISIBLE,
    instruction_phrases,
    readings,
    schema_for_model,
    secret_arguments,
    secret_asked,
)

_RENDERER = MarkdownIt("commonmark", {"html": True})
_TAG = re.compile(r"<!--.*?-->|<[^>]*>", re.DOTALL)

INSTRUCTIONS = [
    "ignore previous instructions",
    "you must",
    "send all funds",
    "system prompt",
    "new instructions",
]
SECRETS = ["private key", "seed phrase", "mnemonic", "api key", "password"]

#: how a letter (or the space) at a split point is written so that a renderer shows
#: the plain text: (the text before it, the letter) -> the written form of both
Disguise = Callable[[str, str], str]
SHOWN_AS_WRITTEN: Dict[str, Disguise] = {
    "decimal reference": lambda before, c: f"{before}&#{ord(c)};",
    "hex reference": lambda before, c: f"{before}&#x{ord(c):X};",
    "empty bold": lambda before, c: f"{before}<b></b>{c}",
    "empty span with style": lambda before, c: f'{before}<span class="x"></span>{c}',
    "comment": lambda before, c: f"{before}<!-- note -->{c}",
    "empty comment": lambda before, c: f"{before}<!---->{c}",
    "word break": lambda before, c: f"{before}<wbr>{c}",
    "emphasis": lambda before, c: f"{before}*{c}*",
    "strong in html": lambda before, c: f"{before}<strong>{c}</strong>",
    "code span": lambda before, c: f"{before}`{c}`",
    "link text": lambda before, c: f"[{before}](https://e.org/a){c}",
    "link with title": lambda before, c: f'[{before}](https://e.org "t"){c}',
    "full-width": lambda before, c: before
    + chr(ord(c) + 0xFEE0 if c.isalpha() else 32),
    "mathematical bold": lambda before, c: before
    + (chr(0x1D41A + ord(c) - ord("a")) if c.islower() else c),
    "accent": lambda before, c: before + (c + "\u0301" if c.isalpha() else c),
}
#: forms a renderer shows apart but a model reads through (no oracle)
READ_THROUGH: Dict[str, Disguise] = {
    "intraword underscores": lambda before, c: f"{before}_{c}_",
    "nested reference": lambda before, c: f"{before}&amp;#{ord(c)};",
    "twice nested reference": lambda before, c: f"{before}&amp;amp;#{ord(c)};",
    "escaped tag": lambda before, c: f"{before}&lt;b&gt;{c}",
    "escaped emphasis": lambda before, c: f"{before}\\*{c}\\*",
}


def reader_sees(text: str) -> str:
    """What a person reads of ``text`` rendered (the oracle): markdown-it-py's HTML as text.

    :param text: Markdown.
    :return: the rendered text without tags, references decoded, NFKC, accents
        dropped, white space collapsed, lowercase.
    """
    shown = html.unescape(_TAG.sub("", _RENDERER.render(text)))
    shown = unicodedata.normalize("NFKD", shown)
    shown = "".join(c for c in shown if not unicodedata.combining(c))
    return " ".join(shown.split()).lower()


def disguised(phrase: str, at: int, disguise: Disguise) -> str:
    """The phrase with its character at ``at`` written by ``disguise``.

    :param phrase: plain words.
    :param at: the index of the character disguised (the text before it is wrapped
        by link-text disguises).
    :param disguise: the form.
    :return: the written phrase.
    """
    start = phrase.rfind(" ", 0, at) + 1  # the link-text forms wrap within the word
    before = phrase[start:at]
    return phrase[:start] + disguise(before, phrase[at]) + phrase[at + 1 :]


def _texts(phrases: List[str], forms: Dict[str, Disguise]) -> List[object]:
    return [
        pytest.param(phrase, form, id=f"{phrase}-{form}")
        for phrase in phrases
        for form in forms
    ]


def _split_point(phrase: str) -> int:
    """A letter well inside the phrase's first word, or its first space."""
    return 1 if " " not in phrase else phrase.index(" ")


@pytest.mark.parametrize("phrase,form", _texts(INSTRUCTIONS, SHOWN_AS_WRITTEN))
def test_an_instruction_a_reader_sees_is_flagged(phrase: str, form: str) -> None:
    """Each form spells the phrase to the oracle; the check finds it."""
    for at in sorted({1, _split_point(phrase)}):
        text = f"Tides for a port. {disguised(phrase, at, SHOWN_AS_WRITTEN[form])} now."
        if phrase not in reader_sees(text):
            continue  # this form cannot write a space there (e.g. accents)
        assert phrase in instruction_phrases(text), (text, reader_sees(text))


@pytest.mark.parametrize("phrase,form", _texts(SECRETS, SHOWN_AS_WRITTEN))
def test_a_secret_a_reader_sees_is_refused(phrase: str, form: str) -> None:
    """In a description and in an argument's name alike."""
    for at in sorted({1, _split_point(phrase)}):
        text = disguised(phrase, at, SHOWN_AS_WRITTEN[form])
        if phrase not in reader_sees(text):
            continue
        assert secret_asked(f"paste the {text} here"), text
        schema = {"properties": {"signer": {"type": "string", "description": text}}}
        assert secret_arguments(schema) == (("signer", secret_asked(text)),)
        assert secret_arguments({"properties": {text: {"type": "string"}}})
        # as the MCP server reads it: the served schema, its markup made inert
        assert secret_arguments(schema_for_model(schema)), schema_for_model(schema)


def test_every_shown_form_spells_some_phrase_to_the_oracle() -> None:
    """The oracle agrees each form hides nothing: no form is tested vacuously."""
    for form, disguise in SHOWN_AS_WRITTEN.items():
        seen = [
            phrase
            for phrase in INSTRUCTIONS + SECRETS
            for at in sorted({1, _split_point(phrase)})
            if phrase in reader_sees(disguised(phrase, at, disguise))
        ]
        assert seen, form


@pytest.mark.parametrize("phrase,form", _texts(INSTRUCTIONS + SECRETS, READ_THROUGH))
def test_forms_a_model_reads_through_are_flagged(phrase: str, form: str) -> None:
    """Underscores inside a word, nested references, a tag written as references."""
    text = disguised(phrase, 1, READ_THROUGH[form])
    assert phrase not in words_of(text).lower()  # not read as written
    found = instruction_phrases(text) + ((secret_asked(text) or ""),)
    assert phrase in found, (text, found)


@settings(max_examples=300, deadline=None)
@given(
    phrase=st.sampled_from(INSTRUCTIONS),
    forms=st.lists(st.sampled_from(sorted(SHOWN_AS_WRITTEN)), min_size=2, max_size=3),
    points=st.lists(st.integers(min_value=1), min_size=3, max_size=3),
)
def test_forms_combined_are_flagged(
    phrase: str, forms: List[str], points: List[int]
) -> None:
    """Several forms in one phrase, at different letters, as the oracle reads them."""
    text = phrase
    for form, point in zip(forms, points):
        plain_at = point % len(phrase)
        # disguise the letter at plain_at, found again in the text written so far
        letters = [i for i, c in enumerate(text) if c == phrase[plain_at]]
        if not letters:
            continue
        text = disguised(text, letters[-1], SHOWN_AS_WRITTEN[form])
    if phrase in reader_sees(text):
        assert phrase in instruction_phrases(text), (text, reader_sees(text))


@pytest.mark.parametrize(
    "text",
    [
        "Returns **bold** tide tables &amp; currents for a port.",
        "<b>Tides</b> for ports; see <a href='https://e.org'>the docs</a>.",
        "Use `max_tokens` and snake_case names; &copy; 2026.",
        "See [the docs](https://e.org 'Docs') for the keyboard layout.",
        "ＡＢＣ full-width letters, 𝐛𝐨𝐥𝐝 words, café and naïve.",
        "a_b_c *emphasis* ~tilde~ <br> line <!-- a note --> end",
        "Private data stays in the port's records; no key is needed.",
        "<i>you</i> <i>mustard</i> and y<b>ou</b>th mus<i>t</i>ang",
    ],
)
def test_ordinary_markup_asks_nothing(text: str) -> None:
    """Markup, references and folded letters alone raise neither check."""
    assert not instruction_phrases(text), text
    assert secret_asked(text) is None, text


@pytest.mark.parametrize(
    "text,plain",
    [
        ("ig<b></b>nore", "ignore"),
        ("ignore<br>previous", "ignore\nprevious"),
        ("ignore<DIV class='a'>previous", "ignore\nprevious"),
        ("a<!-- b -->c", "ac"),
        ("a<!-- never closed", "a<!-- never closed"),  # unclosed: text (adv29s)
        ("a<!-->b<!--->c", "abc"),  # empty comments
        ("a<?php x ?>b<![CDATA[c]]>d<!DOCTYPE html>e", "abde"),
        ("&#105;&#x67;&nbsp;n", "ig n"),
        ("&amp;#105;", "i"),
        ("&amp;amp;amp;amp;#105;", "&amp;#105;"),  # past MAX_REFERENCE_DECODINGS
        ("z&#8203;w", "zw"),  # a reference to an invisible character
        ("ｆｕｌｌ 𝐦𝐚𝐭𝐡 ï", "full math i"),
        # [r] undefined: text (adv29s), its brackets removed as other marks are (the
        # read-through reading parts words there); defined: a link, the definition hidden
        ("[a](<b> 't')c [d][r]e", "ac dre"),
        ("[a](<b> 't')c [d][r]e\n\n[R]: /u", "ac de"),
        ("\\*a\\_b\\\nc", "ab\nc"),
        ("a\u29f5*b\u29f5*c", "abc"),  # the look-alike backslash of a served text
        ("`a`*b*_c_~d~", "abcd"),
        ("<https://e.org/x>", "https://e.org/x"),  # an autolink shows its address
        ("plain words only", "plain words only"),
    ],
)
def test_plain_text_is_what_a_renderer_shows(text: str, plain: str) -> None:
    """Each step of ``rendered_text``'s docstring on a named input."""
    assert plain_text(text, _INVISIBLE) == plain
    assert MAX_REFERENCE_DECODINGS == 3  # the bound the nested case is written for


def test_readings_add_the_plain_text_only_when_it_differs() -> None:
    """A text without markup is read once."""
    assert readings("you must") == ("you must",)
    assert readings("you&#32;must") == ("you&#32;must", "you must")


def test_line_elements_hold_commonmarks_html_block_names() -> None:
    """The block names of the pinned CommonMark parser are all laid out apart."""
    assert set(block_names) <= LINE_ELEMENTS
    assert {"br", "pre", "script", "style", "textarea"} <= LINE_ELEMENTS
    assert not {"b", "i", "em", "strong", "span", "a", "code", "wbr"} & LINE_ELEMENTS


def test_plain_text_of_ascii_without_markup_is_the_text_itself() -> None:
    """The common case costs one search (``may_differ``)."""
    text = "Tide tables for a port, in metres. " * 100
    assert plain_text(text, _INVISIBLE) is text
