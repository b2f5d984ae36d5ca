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

r"""The plain text a reader sees of untrusted text once it is rendered, for the word checks.

The instruction and secret checks (:mod:`.untrusted_text`) match words. Written, a text
may spell its words apart from how it reads: a person reads it rendered (Markdown, HTML)
and a model reads through markup and references alike, so ``&#105;gnore``,
``ig<b></b>nore``, ``pri*v*ate key``, ``ign_o_re``, ``private<!-- -->\ key`` and
``ｐｒｉｖａｔｅ ｋｅｙ`` all read as the plain words (adversarial review adv29o). The
checks read a text as written *and* as :func:`plain_text` gives it, and flag a match in
either.

:func:`plain_text` reads what a renderer shows, generously: whatever is in doubt is
removed so that the pieces around it join (a match is a warning or a refusal the mech's
author can avoid by writing plain words; a miss is an instruction or a phishing request
nobody is told of). What it removes was read as written already. In order:

1. invisible characters (the caller's pattern, :data:`.untrusted_text.INVISIBLE_RANGES`);
2. character references decoded (``html.unescape``, HTML5's names), again while any is
   left, at most :data:`MAX_REFERENCE_DECODINGS` times: ``&amp;#112;`` renders as
   ``&#112;``, which a model reads as ``p``; invisible characters they stand for removed;
3. compatibility forms folded (NFKD of the frozen Unicode 3.2 database, then combining
   diacritical marks dropped): full-width and mathematical letters read as ASCII, ``ï``
   as ``i``, a no-break space as a space; the look-alike :func:`.markup.Markup.inert`
   writes a backslash as is read as one, so a served text reads as its source does;
4. HTML comments, processing instructions, declarations and CDATA sections removed (an
   unclosed one to the end of the text, as an HTML block hides it);
5. HTML tags removed; those of elements a browser lays out as their own block or line
   (:data:`LINE_ELEMENTS`) become a line break, so ``ig<b></b>nore`` is ``ignore`` and
   ``ignore<br>previous`` ``ignore previous``;
6. a link's destination and title, or its reference label, removed, and brackets with
   them: ``[ig](https://e.org "t")nore`` shows ``ignore``;
7. Markdown's escaping backslashes, and the characters of emphasis, strikethrough and
   code spans (``*``, ``_``, ``~``, backtick) removed: ``pri*v*ate``, ``ign_o_re`` and
   ``ig`n`ore`` read as one word.

Every step is one linear pass (no Markdown parser: CommonMark's bracket handling costs
markdown-it-py time that grows with a text's brackets, :mod:`.markup`), over fixed data
(the ASCII patterns here, Python's HTML5 reference table, the frozen Unicode 3.2
database), so every agent adding a warning to the catalogue reads the same plain text.
"""

import html
import re
import unicodedata

from mech_catalogue_core.model.markup import SHOWN_BACKSLASH

#: how many times references are decoded at most: rendered once (``&amp;#112;`` shows
#: ``&#112;``), then as a model reads what is shown (``p``); once more for good measure.
#: Each decoding is one pass and shortens the text; the bound keeps a text of nested
#: ``&amp;amp;...`` linear
MAX_REFERENCE_DECODINGS = 3

#: elements a browser lays out as a block or a line of their own, so the words either
#: side are apart: CommonMark's HTML block names (spec 0.31, "HTML blocks", condition 6),
#: the raw-text ones (condition 1) and ``br``
LINE_ELEMENTS = frozenset(
    (
        "address article aside base basefont blockquote body br caption center col "
        "colgroup dd details dialog dir div dl dt fieldset figcaption figure footer "
        "form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li "
        "link main menu menuitem nav noframes ol optgroup option p param pre script "
        "search section style summary table tbody td textarea tfoot th thead title tr "
        "track ul"
    ).split()
)

#: an HTML comment, processing instruction, CDATA section or declaration, to its end or
#: to the text's end when unclosed (lazy up to the first end: one pass)
_HTML_NOT_SHOWN = re.compile(
    r"<!--.*?(?:-->|\Z)|<\?.*?(?:\?>|\Z)|<!\[CDATA\[.*?(?:\]\]>|\Z)|<![A-Za-z][^>]*+>?",
    re.DOTALL,
)
#: an attribute of an HTML tag (CommonMark's grammar, spec 0.31 "Raw HTML")
_ATTRIBUTE = (
    r"\s++[A-Za-z_:][A-Za-z0-9_.:-]*+"
    r"(?:\s*+=\s*+(?:[^\s\"'=<>`]++|'[^']*+'|\"[^\"]*+\"))?+"
)
#: an opening or closing HTML tag; group 1 is the element's name
_HTML_TAG = re.compile(
    r"</?([A-Za-z][A-Za-z0-9-]*+)(?:" + _ATTRIBUTE + r")*+\s*+/?>", re.ASCII
)
#: what follows a link's text and is not shown: ``(destination "title")`` (one level of
#: parentheses in the destination) or ``[label]``
_LINK_TARGET = re.compile(
    r"\]\((?:[^()\s]|\([^()\s]*+\))*+"
    r"(?:\s++(?:\"[^\"]*+\"|'[^']*+'|\([^()]*+\)))?+\s*+\)"
    r"|\]\[[^\[\]]*+\]"
)
#: Markdown's escaping backslash (before ASCII punctuation), a hard line break's
#: backslash, and the characters of brackets, emphasis, strikethrough and code spans
_INLINE_MARKS = re.compile(r"\\(?=[!-/:-@\[-`{-~\n])|[\[\]*_~`]")
#: combining diacritical marks (U+0300-036F) a decomposed letter carries
_COMBINING_MARKS = re.compile("[\u0300-\u036f]+")
#: what :func:`plain_text` may change: a reference, markup or a non-ASCII character
_MAY_DIFFER = re.compile(r"[&<\\\[\]*_~`]|[^\x00-\x7f]")


def _tag_shown(match: "re.Match[str]") -> str:
    return "\n" if match.group(1).lower() in LINE_ELEMENTS else ""


def _references_decoded(text: str, invisible: "re.Pattern[str]") -> str:
    for _ in range(MAX_REFERENCE_DECODINGS):
        if "&" not in text:
            break
        decoded = invisible.sub("", html.unescape(text))
        if decoded == text:
            break
        text = decoded
    return text


def _compatibility_folded(text: str, invisible: "re.Pattern[str]") -> str:
    if text.isascii():
        return text
    decomposed = unicodedata.ucd_3_2_0.normalize("NFKD", text)
    folded = _COMBINING_MARKS.sub("", decomposed).replace(SHOWN_BACKSLASH, "\\")
    return invisible.sub("", folded)


def may_differ(text: str) -> bool:
    """Whether :func:`plain_text` of a text can differ from the text.

    :param text: any text.
    :return: False when it holds no ``&``, markup character or non-ASCII character.
    """
    return _MAY_DIFFER.search(text) is not None


def plain_text(text: str, invisible: "re.Pattern[str]") -> str:
    """The plain text a reader sees of a text rendered (the module's seven steps).

    :param text: untrusted text, as written.
    :param invisible: what counts as an invisible character (removed first, and again
        from what references and compatibility forms decode to).
    :return: the text without markup, its references decoded and its letters folded;
        white space kept as it comes (the word checks split on it). Linear in the text.
    """
    if not may_differ(text):
        return text
    shown = _references_decoded(invisible.sub("", text), invisible)
    shown = _compatibility_folded(shown, invisible)
    shown = _HTML_NOT_SHOWN.sub("", shown)
    shown = _HTML_TAG.sub(_tag_shown, shown)
    shown = _LINK_TARGET.sub("", shown)
    return _INLINE_MARKS.sub("", shown)
