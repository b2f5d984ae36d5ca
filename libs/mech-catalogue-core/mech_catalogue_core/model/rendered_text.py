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
checks read a text as written, as :func:`plain_text` gives it (rendered) and as
:func:`read_through` gives it (the source as a model reads it: references decoded,
letters folded, emphasis dropped, nothing removed), and flag a match in any.

:func:`plain_text` reads what a renderer shows, generously: whatever is in doubt is
removed so that the pieces around it join (a match is a warning or a refusal the mech's
author can avoid by writing plain words; a miss is an instruction or a phishing request
nobody is told of). It removes only what a renderer (markdown-it-py, CommonMark with
HTML) does not show as text; what it removes is read by :func:`read_through` (adv29s).
In order:

1. invisible characters (the caller's pattern, :data:`.untrusted_text.INVISIBLE_RANGES`);
2. character references decoded (``html.unescape``, HTML5's names), again while any is
   left, at most :data:`MAX_REFERENCE_DECODINGS` times: ``&amp;#112;`` renders as
   ``&#112;``, which a model reads as ``p``; invisible characters they stand for removed;
3. compatibility forms folded (NFKD of the frozen Unicode 3.2 database, then every
   combining mark dropped, :func:`combining_marks`): full-width and mathematical letters read as ASCII, ``ï``
   as ``i``, a no-break space as a space; the look-alike :func:`.markup.Markup.inert`
   writes a backslash as is read as one, so a served text reads as its source does;
4. closed HTML comments (``<!-->`` and ``<!--->`` are empty ones), processing
   instructions, declarations and CDATA sections removed; an unclosed opener is text, as
   a renderer shows it inline (CommonMark 0.31, "Raw HTML");
5. HTML tags removed; those of elements a browser lays out as their own block or line
   (:data:`LINE_ELEMENTS`) become a line break, so ``ig<b></b>nore`` is ``ignore`` and
   ``ignore<br>previous`` ``ignore previous``;
6. a link's destination and title removed, and a reference label the text defines
   (``[label]: ...``; an undefined one is text): ``[ig](https://e.org "t")nore`` shows
   ``ignore``;
7. Markdown's escaping backslashes, and the characters of emphasis, strikethrough and
   code spans (``*``, ``_``, ``~``, backtick) removed: ``pri*v*ate``, ``ign_o_re`` and
   ``ig`n`ore`` read as one word.

Every step is one linear pass (no Markdown parser: CommonMark's bracket handling costs
markdown-it-py time that grows with a text's brackets, :mod:`.markup`), over fixed data
(the ASCII patterns here, Python's HTML5 reference table, the frozen Unicode 3.2
database and Python 3.11's marks), so every agent adding a warning to the catalogue reads the same plain text.
"""

import functools
import html
import re
import unicodedata
from typing import Set, Tuple

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

#: what opens an HTML comment, processing instruction, CDATA section or declaration
#: (CommonMark 0.31, "Raw HTML"); ``<!-->`` and ``<!--->`` are whole (empty) comments
_HIDDEN_OPENER = re.compile(r"<!---?>|<!--|<\?|<!\[CDATA\[|<![A-Za-z]")
#: opener -> the string that closes it (a declaration's opener is its first 3 chars)
_HIDDEN_CLOSER = {"<!--": "-->", "<?": "?>", "<![CDATA[": "]]>", "<!": ">"}
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
#: parentheses in the destination); group 1 is a reference label ``[label]``, removed
#: only when the text defines it (:data:`_LINK_DEFINITION`)
_LINK_TARGET = re.compile(
    r"\]\((?:[^()\s]|\([^()\s]*+\))*+"
    r"(?:\s++(?:\"[^\"]*+\"|'[^']*+'|\([^()]*+\)))?+\s*+\)"
    r"|\]\[([^\[\]]*+)\]"
)
#: a link reference definition's label, at a line's start (CommonMark 0.31, "Link
#: reference definitions"): ``[label]: destination``
_LINK_DEFINITION = re.compile(r"^ {0,3}\[([^\[\]]++)\]:", re.MULTILINE)
#: Markdown's escaping backslash (before ASCII punctuation), a hard line break's
#: backslash, and the characters of brackets, emphasis, strikethrough and code spans
_INLINE_MARKS = re.compile(r"\\(?=[!-/:-@\[-`{-~\n])|[\[\]*_~`]")
#: brackets, which part words where nothing is removed (:func:`read_through`)
_BRACKETS = re.compile(r"[\[\]]")
#: what :func:`plain_text` may change: a reference, markup or a non-ASCII character
_MAY_DIFFER = re.compile(r"[&<\\\[\]*_~`]|[^\x00-\x7f]")


@functools.lru_cache(maxsize=1)
def combining_marks() -> "re.Pattern[str]":
    """Every combining mark: general category Mn or Me in Unicode 3.2 or Python's table.

    Drawn over the letter before it (no advance), a mark is read through by a person
    and a model alike: ``pri\u20d7vate`` is "private". Fixed data (the frozen 3.2
    database and Python 3.11's, which the wheels pin), so every agent drops the same
    marks; built once, on first use.

    :return: a pattern matching runs of them.
    """
    marks = [
        chr(code)
        for code in range(0x110000)
        if unicodedata.category(chr(code)) in ("Mn", "Me")
        or unicodedata.ucd_3_2_0.category(chr(code)) in ("Mn", "Me")
    ]
    return re.compile("[" + "".join(map(re.escape, marks)) + "]+")


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
    folded = combining_marks().sub("", decomposed).replace(SHOWN_BACKSLASH, "\\")
    return invisible.sub("", folded)


def _without_hidden_html(text: str) -> str:
    """A text without its closed HTML comments, instructions, CDATA and declarations.

    An unclosed one is text, as a renderer shows it. Linear: a closer is searched from
    each opener while found, and once missing never again (none follows a later one).

    :param text: text with references decoded.
    :return: the text without those constructs.
    """
    kept = []
    start = at = 0
    missing: Set[str] = set()
    while True:
        opener = _HIDDEN_OPENER.search(text, at)
        if opener is None:
            break
        written = opener.group(0)
        end = opener.end()
        if not written.endswith(">"):
            closer = _HIDDEN_CLOSER[written[:2] if written[2:3].isalpha() else written]
            found = -1 if closer in missing else text.find(closer, end)
            if found < 0:
                missing.add(closer)
                at = end
                continue
            end = found + len(closer)
        kept.append(text[start : opener.start()])
        start = at = end
    kept.append(text[start:])
    return "".join(kept)


def _without_link_targets(text: str) -> str:
    """A text without its links' destinations and titles, and the labels it defines.

    A target with no ``[`` before it in the text follows no link text: it is text.

    :param text: text with references decoded.
    :return: the text without those targets.
    """
    defined = {
        " ".join(label.split()).casefold() for label in _LINK_DEFINITION.findall(text)
    }
    first_bracket = text.find("[")

    def shown(match: "re.Match[str]") -> str:
        label = match.group(1)
        if first_bracket < 0 or match.start() < first_bracket:
            return match.group(0)
        # ``[text][]`` is a link when ``text`` is defined, which this match does not
        # see: taken as one, so words it parts are read joined (adv29u)
        if label is None or not label.strip():
            return ""
        if " ".join(label.split()).casefold() in defined:
            return ""
        return f"] [{label}] "  # text: its brackets part the words either side

    return _LINK_TARGET.sub(shown, text)


def may_differ(text: str) -> bool:
    """Whether :func:`plain_text` of a text can differ from the text.

    :param text: any text.
    :return: False when it holds no ``&``, markup character or non-ASCII character.
    """
    return _MAY_DIFFER.search(text) is not None


def plain_readings(text: str, invisible: "re.Pattern[str]") -> Tuple[str, str]:
    """How a model reads a text's source, and what a reader sees of it rendered.

    :param text: untrusted text, as written.
    :param invisible: what counts as an invisible character (removed first, and again
        from what references and compatibility forms decode to).
    :return: ``(read_through, rendered)``: both with references decoded, letters
        folded and the characters of emphasis removed (steps 1-3 and 7); the rendered
        one also without the markup a renderer hides (steps 4-6), so words either side
        of it join. ``(text, text)`` when :func:`may_differ` is False. Linear.
    """
    if not may_differ(text):
        return text, text
    decoded = _references_decoded(invisible.sub("", text), invisible)
    decoded = _compatibility_folded(decoded, invisible)
    rendered = _without_hidden_html(decoded)
    rendered = _HTML_TAG.sub(_tag_shown, rendered)
    rendered = _without_link_targets(rendered)
    through = _INLINE_MARKS.sub("", _BRACKETS.sub(" ", decoded))
    return through, _INLINE_MARKS.sub("", rendered)


def plain_text(text: str, invisible: "re.Pattern[str]") -> str:
    """The plain text a reader sees of a text rendered (the module's seven steps).

    :param text: untrusted text, as written.
    :param invisible: what counts as an invisible character (removed first, and again
        from what references and compatibility forms decode to).
    :return: the text without markup, its references decoded and its letters folded;
        white space kept as it comes (the word checks split on it). Linear in the text.
    """
    return plain_readings(text, invisible)[1]


def read_through(text: str, invisible: "re.Pattern[str]") -> str:
    """A text as a model reads its source: nothing removed but emphasis and invisibles.

    The words inside markup :func:`plain_text` removes (a comment, a tag's attributes,
    a link's destination, title or label) are read here with references decoded and
    letters folded: where the text is shown that markup is inert, so its words show.

    :param text: untrusted text, as written.
    :param invisible: what counts as an invisible character.
    :return: steps 1-3 and 7 of the module's steps applied. Linear in the text.
    """
    return plain_readings(text, invisible)[0]
