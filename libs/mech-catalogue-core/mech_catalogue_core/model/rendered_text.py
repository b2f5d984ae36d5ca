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
``ig<b></b>nore``, ``pri*v*ate key``, ``ign_o_re``, ``private<!-- -->\ key``,
``[pri](a(b))vate key`` and ``ｐｒｉｖａｔｅ ｋｅｙ`` all read as the plain words
(adversarial reviews adv29o, adv29u). The checks read a text as written, as
:func:`plain_text` gives it (rendered) and as :func:`read_through` gives it (the source
as a model reads it: references decoded, letters folded, emphasis dropped, nothing
removed), and flag a match in any.

:func:`plain_text` is what a renderer shows: the text is parsed by markdown-it-py
(CommonMark 0.31 with HTML, :data:`RENDERER`), the reference the markup tests take as
what a person sees, not by patterns that approximate it (adv29u: definitions inside
block quotes and list items, nested and escaped parentheses in destinations, escaped
quotes in titles were missed by those). Whatever is in doubt is removed so that the
pieces around it join (a match is a warning or a refusal the mech's author can avoid by
writing plain words; a miss is an instruction or a phishing request nobody is told
of); what it removes is read by :func:`read_through` (adv29s). In order:

1. invisible characters (the caller's pattern, :data:`.untrusted_text.INVISIBLE_RANGES`);
2. character references decoded (``html.unescape``, HTML5's names), again while any is
   left, at most :data:`MAX_REFERENCE_DECODINGS` times: ``&amp;#112;`` renders as
   ``&#112;``, which a model reads as ``p``; invisible characters they stand for removed
   (the parser decodes none itself, so the bound holds);
3. compatibility forms folded (NFKD of the frozen Unicode 3.2 database, then every
   combining mark dropped, :func:`combining_marks`): full-width and mathematical letters
   read as ASCII, ``ï`` as ``i``, a no-break space as a space; the look-alike
   :func:`.markup.Markup.inert` writes a backslash as is read as one, so a served text
   reads as its source does;
4. the result parsed (:func:`_shown_text`): the text of paragraphs, headings, code and
   images' alt text is kept as CommonMark gives it; a link shows its text only (its
   destination, title and reference label removed, a definition anywhere removed),
   emphasis and escaping backslashes their content; inline pieces are joined with
   nothing between, so ``pri`` and ``vate`` either side of removed markup read
   ``private``; blocks are a line break apart;
5. the HTML the parser passes through read as a browser shows it: closed comments
   (``<!-->`` and ``<!--->`` are empty ones), processing instructions, declarations
   and CDATA sections removed (an unclosed opener is text, as a renderer shows it
   inline), tags removed, those of elements a browser lays out as their own block or
   line (:data:`LINE_ELEMENTS`) a line break: ``ig<b></b>nore`` is ``ignore``,
   ``ignore<br>previous`` ``ignore previous``;
6. the characters of brackets, emphasis, strikethrough and code spans left as text
   (``[``, ``]``, ``*``, ``_``, ``~``, backtick) and escaping backslashes removed: other
   renderers (GitHub's) take ``~~`` as strikethrough and ``pri_v_ate`` as emphasis, so
   words they part are read joined.

Decoding before the parse makes escaped markup real (``&lt;!-- ... --&gt;`` a comment
a person sees as text), and a parse hides what its limits or its syntax do not show, so
:func:`shown_readings` adds two readings (adversarial review adv29x): the source
rendered as written (:func:`_shown_as_written`: what is shown decoded afterwards, never
parsed again) and the source joined (:func:`_joined_source`: closed comments, every tag
and the content of :data:`HIDDEN_CONTENT_ELEMENTS` removed as nothing, not parsed, then
decoded and folded), so words an empty tag joins are read joined at any nesting, in any
renderer's syntax, whichever tags a browser lays out.

:func:`hidden_parts_joined` is one more reading (fix29ya): what comments, processing
instructions, CDATA, declarations and attributes hide from a person, which a model
reads, with every markup construct inside them removed as nothing (adv29z K6).

The parser is linear on every hostile shape measured (nested and unclosed brackets,
``<``, ``*``, ``(``, backticks, entity runs: docs/benchmarks.md, "adv29u"); containers
nested deeper than its limit (20) show nothing, as in the reference renderer; their
words are read as written and read through. Every other step is one linear pass over
fixed data (the ASCII patterns here, Python's HTML5 reference table, the frozen Unicode
3.2 database, Python 3.11's marks and the pinned markdown-it-py), so every agent adding
a warning to the catalogue reads the same plain text.
"""

import functools
import html
import re
import unicodedata
from collections import Counter
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mech_catalogue_core.model.markup import HTML_TAG, SHOWN_BACKSLASH

#: how many times references are decoded at most: rendered once (``&amp;#112;`` shows
#: ``&#112;``), then as a model reads what is shown (``p``); once more for good measure.
#: Each decoding is one pass and shortens the text; the bound keeps a text of nested
#: ``&amp;amp;...`` linear
MAX_REFERENCE_DECODINGS = 3

#: the CommonMark parser whose rendering is the plain text (HTML passed through, as MCP
#: clients render descriptions); references are decoded before it parses (step 2), so
#: it decodes none again
RENDERER = MarkdownIt("commonmark", {"html": True}).disable("entity")
#: the same parser on the source as written, decoding references in text itself, as a
#: person's renderer does (adv29x F0: ``&lt;!-- ... --&gt;`` is text, not a comment)
WRITTEN_RENDERER = MarkdownIt("commonmark", {"html": True})
#: block tokens whose content is shown as written (code) or as a browser shows HTML
_CODE_BLOCKS = frozenset(("fence", "code_block"))

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

#: elements whose content a browser does not show (HTML Living Standard: ``script``,
#: ``style``, ``template`` and ``title`` are not rendered; ``noscript``, ``noembed``,
#: ``noframes`` and ``iframe`` are raw text shown by no current browser); a
#: ``textarea``'s content is shown, in its box
HIDDEN_CONTENT_ELEMENTS = frozenset(
    "iframe noembed noframes noscript script style template title".split()
)

#: what opens an HTML comment, processing instruction, CDATA section or declaration
#: (CommonMark 0.31, "Raw HTML"); ``<!-->`` and ``<!--->`` are whole (empty) comments
_HIDDEN_OPENER = re.compile(r"<!---?>|<!--|<\?|<!\[CDATA\[|<![A-Za-z]")
#: opener -> the string that closes it (a declaration's opener is its first 3 chars)
_HIDDEN_CLOSER = {"<!--": "-->", "<?": "?>", "<![CDATA[": "]]>", "<!": ">"}
#: an opening or closing HTML tag; group 1 is the element's name
_HTML_TAG = HTML_TAG
#: an escaping backslash (before ASCII punctuation), a hard line break's backslash, and
#: the characters of brackets, emphasis, strikethrough and code spans
_INLINE_MARKS = re.compile(r"\\(?=[!-/:-@\[-`{-~\n])|[\[\]*_~`]")
#: what starts inline markup once references are decoded: a text without any shows the
#: words it is written with (blocks change only the white space and the line-start
#: marks around them), so it is not parsed
_INLINE_MARKUP = re.compile(r"[\[\]<*_`\\]")
#: brackets, which part words where nothing is removed (:func:`read_through`)
_BRACKETS = re.compile(r"[\[\]]")
#: a character reference as ``html.unescape`` may read one (with or without ``;``)
_REFERENCE = re.compile(r"&(?:#[0-9]++|#[xX][0-9A-Fa-f]++|[A-Za-z][A-Za-z0-9]*+);?")
#: all but what markup is built of: ASCII punctuation except ``&``, and white space
_NOT_STRUCTURE = re.compile(r"[^!-%'-/:-@\[-`{-~\s]++")
#: a reference or a non-ASCII character where a tag, comment or declaration is named
_SPELT_IN_A_TAG = re.compile(r"<[!?/]?+[A-Za-z0-9-]*+(?:&|[^\x00-\x7f])")
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

    An unclosed one is text, as a renderer shows it.

    :param text: text with references decoded.
    :return: the text without those constructs (:func:`_hidden_html_replaced`).
    """
    return _hidden_html_replaced(text, lambda content: "")


def _hidden_html_replaced(text: str, replacement: Callable[[str], str]) -> str:
    """A text with each closed HTML comment, instruction, CDATA and declaration replaced.

    An unclosed one is text, as a renderer shows it. Linear: a closer is searched from
    each opener while found, and once missing never again (none follows a later one).

    :param text: any text.
    :param replacement: what a construct becomes, given what it holds between its
        delimiters (``""`` for ``<!-->``).
    :return: the text with those constructs replaced.
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
        content = ""
        if not written.endswith(">"):
            declaration = written[2:3].isalpha()
            closer = _HIDDEN_CLOSER[written[:2] if declaration else written]
            found = -1 if closer in missing else text.find(closer, end)
            if found < 0:
                missing.add(closer)
                at = end
                continue
            content = text[opener.start() + 2 if declaration else end : found]
            end = found + len(closer)
        kept.append(text[start : opener.start()])
        kept.append(replacement(content))
        start = at = end
    kept.append(text[start:])
    return "".join(kept)


def _html_shown(html_text: str) -> str:
    """What a browser shows of HTML the parser passes through (step 5).

    :param html_text: an inline tag or comment, or an HTML block.
    :return: its text without comments, instructions, declarations, CDATA and tags,
        a tag of :data:`LINE_ELEMENTS` a line break.
    """
    return _HTML_TAG.sub(_tag_shown, _without_hidden_html(html_text))


def _inline_shown(children: Sequence[Token]) -> str:
    """What a renderer shows of one inline token's children, pieces joined as shown.

    Text and code spans as they are, line breaks as line breaks, inline HTML as a
    browser shows it, an image as its alt text (its own children); the tokens that open
    and close links and emphasis show nothing. Iterative: an image's alt text may hold
    images.

    :param children: the inline token's children.
    :return: the shown text.
    """
    shown: List[str] = []
    pending: List[Token] = list(reversed(children))
    while pending:
        token = pending.pop()
        if token.type in ("text", "code_inline"):
            shown.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            shown.append("\n")
        elif token.type == "html_inline":
            shown.append(_html_shown(token.content))
        elif token.type == "image":
            pending.extend(reversed(token.children or ()))
    return "".join(shown)


def _shown_text(text: str) -> str:
    """What a renderer shows of a text (steps 4 and 5), blocks a line break apart.

    :param text: text with references decoded and letters folded.
    :return: the text of its paragraphs, headings, code and HTML blocks as shown; the
        text itself when no inline markup starts in it.
    """
    if not _INLINE_MARKUP.search(text):
        return text
    return _blocks_shown(RENDERER, text)


def _tags_joined(text: str) -> str:
    """A text without its HTML tags and the content of :data:`HIDDEN_CONTENT_ELEMENTS`.

    Every tag is removed as nothing, whichever element it is: inside a paragraph a
    browser lays out no table part, ``html``, ``head``, ``body`` or ``frame`` (adv29x
    F1). An unclosed hidden-content element keeps its content (its tag is removed).
    Linear: a closer is searched from each opener while found, and once missing never
    again for that element (none follows a later opener).

    :param text: text as written, or with references decoded.
    :return: the text without those tags and contents.
    """
    kept = []
    start = at = 0
    missing: Set[str] = set()
    while True:
        tag = _HTML_TAG.search(text, at)
        if tag is None:
            break
        name = tag.group(1).lower()
        end = tag.end()
        if name in HIDDEN_CONTENT_ELEMENTS and name not in missing:
            if not tag.group(0).startswith("</"):
                closer = re.compile(r"</" + name + r"\s*+>", re.IGNORECASE)
                found = closer.search(text, end)
                if found is None:
                    missing.add(name)
                else:
                    end = found.end()
        kept.append(text[start : tag.start()])
        start = at = end
    kept.append(text[start:])
    return "".join(kept)


def _shown_as_written(text: str, invisible: "re.Pattern[str]") -> str:
    """What a person's renderer shows of a text's source, then read as a model reads it.

    The source is parsed as written (:data:`WRITTEN_RENDERER` decodes references in
    text, not in code or HTML), so escaped markup (``&lt;!--``, ``&#96;&#96;&#96;``,
    ``&#91;x&#93;:``) stays the text a person sees (adv29x F0); what is shown then has
    its references decoded (:data:`MAX_REFERENCE_DECODINGS`), letters folded and
    invisible characters removed, and is never parsed again.

    :param text: untrusted text, as written.
    :param invisible: what counts as an invisible character.
    :return: the shown text, blocks a line break apart.
    """
    shown = _references_decoded(
        invisible.sub("", _blocks_shown(WRITTEN_RENDERER, text)), invisible
    )
    return _compatibility_folded(shown, invisible)


def _decoding_spells_markup(text: str, decoded: str) -> bool:
    """Whether decoding and folding may have made or unmade markup in a text.

    Not when the punctuation and white space of the decoded text are those of the
    source without its references, and no reference or folded letter names a tag:
    then both parse alike and the rendered reading is the as-written one.

    :param text: the text as written, invisible characters removed.
    :param decoded: it with references decoded and letters folded.
    :return: True when the source must be parsed as written too.
    """
    if _SPELT_IN_A_TAG.search(text):
        return True
    written = _NOT_STRUCTURE.sub("", _REFERENCE.sub("", text))
    return written != _NOT_STRUCTURE.sub("", decoded)


def _joined_source(text: str, invisible: "re.Pattern[str]") -> str:
    """The source with its closed comments and tags removed as nothing, not parsed.

    What any renderer might show, pieces joined across every tag: neither nesting
    deeper than a parser's limit (adv29x F5), nor syntax only some renderers know (GFM
    footnotes, adv29x F7), nor a tag one browser lays out as a line (F1) parts words an
    empty tag joins. Markup is removed as written, before references are decoded, so
    escaped markup stays (F0).

    :param text: untrusted text, as written.
    :param invisible: what counts as an invisible character.
    :return: the joined text, references decoded and letters folded.
    """
    joined = _tags_joined(_without_hidden_html(invisible.sub("", text)))
    decoded = _references_decoded(joined, invisible)
    return _compatibility_folded(decoded, invisible)


#: an attribute's value in a tag (group 1, 2 or 3: single-quoted, double-quoted, bare)
_ATTRIBUTE_VALUE = re.compile(r"=\s*+(?:'([^']*+)'|\"([^\"]*+)\"|([^\s\"'=<>`]++))")


def _on_lines_of_their_own(parts: Iterable[str]) -> str:
    return "".join(f"\n{part}\n" for part in parts)


#: a ``<`` that may start a tag, comment, instruction, CDATA section or declaration
_MARKUP_OPEN = re.compile(r"<(?=[A-Za-z/!?])")


def _markup_removed(text: str, hidden: List[str], opened: bool) -> str:
    """A text with every markup construct in it removed as nothing, read left to right.

    As a browser reads HTML: a construct starting inside another (a comment inside an
    attribute's value, a tag or an instruction inside a comment) belongs to it. What
    a construct hides (a comment's, instruction's, CDATA's or declaration's content,
    each attribute's value) is read the same way, so markup inside it joins the words
    it parts (adv29z K6: ``pri<?x?>vate`` inside a comment, ``pri<!-- -->vate`` inside
    an attribute), and added to ``hidden``, each on lines of its own; nested parts come
    before the part holding them. Linear: each character is read once per construct
    holding it, and constructs nest only a few deep (none holds its own closer: a
    quote, ``-->``, ``?>``, ``]]>``, ``>``); a closer is searched from each opener while
    found, and once missing never again (none follows a later one).

    :param text: any text.
    :param hidden: where what the constructs hide is added.
    :param opened: True to leave a comment's (instruction's, CDATA's, declaration's)
        content where it stands, on lines of its own, rather than add it to ``hidden``
        (a text's top level: its words are read in place).
    :return: the text without its markup.
    """
    kept: List[str] = []
    start = at = 0
    missing: Set[str] = set()
    while (found := _MARKUP_OPEN.search(text, at)) is not None:
        at = found.end()
        tag = _HTML_TAG.match(text, found.start())
        if tag is not None:
            for groups in _ATTRIBUTE_VALUE.findall(tag.group(0)[1:-1]):
                value = _markup_removed("".join(groups), hidden, False)
                hidden.append(_on_lines_of_their_own([value]))
            kept.append(text[start : found.start()])
            start = at = tag.end()
            continue
        opener = _HIDDEN_OPENER.match(text, found.start())
        construct = None if opener is None else _closed_construct(text, opener, missing)
        if construct is None:
            continue
        content, at = construct
        part = _on_lines_of_their_own([_markup_removed(content, hidden, False)])
        kept.append(text[start : found.start()])
        (kept if opened else hidden).append(part)
        start = at
    kept.append(text[start:])
    return "".join(kept)


def _closed_construct(
    text: str, opener: "re.Match[str]", missing: Set[str]
) -> Optional[Tuple[str, int]]:
    """What a comment, instruction, CDATA section or declaration holds, and its end.

    :param text: the text it is in.
    :param opener: its :data:`_HIDDEN_OPENER` match.
    :param missing: the closers not found after an earlier opener (none follows this
        one either); its closer is added when not found.
    :return: (its content between its delimiters, the index after its closer), or
        None when it is not closed (a renderer shows it as text).
    """
    written = opener.group(0)
    if written.endswith(">"):
        return "", opener.end()
    declaration = written[2:3].isalpha()
    closer = _HIDDEN_CLOSER[written[:2] if declaration else written]
    closed = -1 if closer in missing else text.find(closer, opener.end())
    if closed < 0:
        missing.add(closer)
        return None
    content_start = opener.start() + 2 if declaration else opener.end()
    return text[content_start:closed], closed + len(closer)


def _hidden_parts_opened(text: str) -> str:
    """A text whose hidden HTML shows what it holds, all markup removed as nothing.

    A comment's (an instruction's, CDATA's, a declaration's) content stays where it is,
    on lines of its own; the values of the tags' attributes, and the parts hidden
    inside hidden parts, follow the text, each on lines of its own
    (:func:`_markup_removed`: every markup construct inside a part is removed as
    nothing, so none parts a word of it, and a link's target joins no word shown).

    :param text: any text.
    :return: the text so opened, the parts it hides after it.
    """
    hidden: List[str] = []
    opened = _markup_removed(text, hidden, True)
    return opened + "".join(hidden)


def hidden_parts_joined(text: str, invisible: "re.Pattern[str]") -> str:
    """What HTML hides from a person of a text, as a model reads it: words joined.

    A person never sees what a closed comment, processing instruction, CDATA section,
    declaration or a tag's attribute holds; a model reads it, and reads through a tag
    that parts its words: ``<!-- Paste your pri<b></b>vate key -->`` and ``<span
    title="Ig<i></i>nore previous instructions">`` are read "Paste your private key",
    "Ignore previous instructions" (fix29ya), and so are ``pri<?x?>vate`` in a comment
    and ``pri<!-- -->vate`` in an attribute (adv29z K6). A comment's content is read
    where it stands, on lines of its own, and each attribute's value after the text (so
    a link's target joins no word shown); every markup construct is removed as nothing
    (:func:`_markup_removed`), and so again
    once references are decoded (``pri&lt;b&gt;&lt;/b&gt;vate``); then letters are
    folded and the characters of emphasis removed (steps 3 and 6).

    :param text: untrusted text, as written.
    :param invisible: what counts as an invisible character.
    :return: the text with its hidden parts opened and its tags removed. The text
        itself when it holds no ``<`` and no ``&`` (a reference may write one: the
        MCP server reads the served text, whose markup is written inert). Linear in
        the text.
    """
    if "<" not in text and "&" not in text:
        return text
    opened = _hidden_parts_opened(invisible.sub("", text))
    decoded = _references_decoded(opened, invisible)
    if decoded != opened and "<" in decoded:
        decoded = _hidden_parts_opened(decoded)
    return _INLINE_MARKS.sub("", _compatibility_folded(decoded, invisible))


def may_differ(text: str) -> bool:
    """Whether :func:`plain_text` of a text can differ from the text.

    :param text: any text.
    :return: False when it holds no ``&``, markup character or non-ASCII character.
    """
    return _MAY_DIFFER.search(text) is not None


def _decoded_readings(text: str, invisible: "re.Pattern[str]") -> Tuple[str, str, str]:
    """A text decoded and folded (steps 1-3), read through and rendered from that.

    :param text: untrusted text, as written, for which :func:`may_differ` is True.
    :param invisible: what counts as an invisible character.
    :return: ``(decoded, read_through, rendered)``.
    """
    decoded = _references_decoded(invisible.sub("", text), invisible)
    decoded = _compatibility_folded(decoded, invisible)
    through = _INLINE_MARKS.sub("", _BRACKETS.sub(" ", decoded))
    return decoded, through, _INLINE_MARKS.sub("", _shown_text(decoded))


def plain_readings(text: str, invisible: "re.Pattern[str]") -> Tuple[str, str]:
    """How a model reads a text's source, and what a reader sees of it rendered.

    :param text: untrusted text, as written.
    :param invisible: what counts as an invisible character (removed first, and again
        from what references and compatibility forms decode to).
    :return: ``(read_through, rendered)``: both with references decoded, letters
        folded and the characters of emphasis removed (steps 1-3 and 6); the rendered
        one is what a renderer shows of that (steps 4 and 5), so words either side of
        markup it hides join. ``(text, text)`` when :func:`may_differ` is False.
        Linear in the text.
    """
    if not may_differ(text):
        return text, text
    _, through, rendered = _decoded_readings(text, invisible)
    return through, rendered


def shown_readings(
    text: str, invisible: "re.Pattern[str]"
) -> Tuple[str, str, str, str]:
    """Every reading of a text the word checks read besides the text as written.

    :param text: untrusted text, as written.
    :param invisible: what counts as an invisible character.
    :return: ``(read_through, rendered, rendered_as_written, joined)``: the two of
        :func:`plain_readings`; what a person's renderer shows of the source as written
        (:func:`_shown_as_written`, adv29x F0: parsed only when decoding may have made
        or unmade markup, :func:`_decoding_spells_markup`, else the rendered one); and
        the source with every tag and closed comment removed as nothing
        (:func:`_joined_source`, adv29x F1, F5, F7). Each with the characters of
        emphasis removed (step 6). The text four times when :func:`may_differ` is
        False. Linear in the text.
    """
    if not may_differ(text):
        return text, text, text, text
    decoded, through, rendered = _decoded_readings(text, invisible)
    visible = invisible.sub("", text)
    if visible != text or _decoding_spells_markup(visible, decoded):
        as_written = _INLINE_MARKS.sub("", _shown_as_written(text, invisible))
    else:
        as_written = rendered
    joined = _joined_source(text, invisible) if "<" in text else decoded
    return through, rendered, as_written, _INLINE_MARKS.sub("", joined)


def plain_text(text: str, invisible: "re.Pattern[str]") -> str:
    """The plain text a reader sees of a text rendered (the module's six steps).

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
    :return: steps 1-3 and 6 of the module's steps applied. Linear in the text.
    """
    return plain_readings(text, invisible)[0]


#: an opener a browser ends at the next ``>`` (a bogus comment: HTML's tokenizer)
_RUNS_TO_NEXT_TAG = re.compile(r"<\?|<!\[CDATA\[|<![A-Za-z]")


def _html_block_shown(html_text: str) -> Tuple[str, Optional[str]]:
    """What a browser shows of an HTML block, and whether it runs into the next block.

    A declaration, instruction or CDATA left open at the block's end is, to a browser,
    a bogus comment that ends at the next ``>``: the opening tag the renderer writes for
    the next block, whose text then follows this block's on the same line
    (``ab<!x`` then a paragraph ``c`` shows ``abc``).

    :param html_text: an HTML block's source.
    :return: its shown text, then, when the next block's text joins it, the text before
        the open construct (to which the next block's is joined); the reading keeps
        both, so it loses no word either way.
    """
    rest = _without_hidden_html(html_text)
    left_open = _RUNS_TO_NEXT_TAG.search(rest)
    while left_open is not None and ">" in rest[left_open.end() :]:
        left_open = _RUNS_TO_NEXT_TAG.search(rest, left_open.end())
    shown = _HTML_TAG.sub(_tag_shown, rest)
    if left_open is None:
        return shown, None
    return shown, _HTML_TAG.sub(_tag_shown, rest[: left_open.start()])


def _blocks_shown(renderer: MarkdownIt, text: str) -> str:
    """The text of a parse's paragraphs, headings, code and HTML blocks, a line apart."""
    blocks: List[str] = []
    joined_to: Optional[str] = None  # an HTML block's text the next block's joins
    for token in renderer.parse(text):
        runs_on: Optional[str] = None
        if token.type == "inline":
            shown = _inline_shown(token.children or ())
        elif token.type in _CODE_BLOCKS:
            shown = token.content
        elif token.type == "html_block":
            shown, runs_on = _html_block_shown(token.content)
        else:
            continue
        if joined_to is not None:
            blocks.append(joined_to.rstrip("\n") + shown)
        else:
            blocks.append(shown)
        joined_to = runs_on
    return "\n".join(blocks)


#: elements whose content a browser lays out as nothing whatever their attributes,
#: besides :data:`HIDDEN_CONTENT_ELEMENTS`: the HTML standard's user-agent style sheet
#: hides ``rp`` and ``datalist`` (section 15.3.1, "Hidden elements"); the content of
#: ``audio``, ``video``, ``canvas``, ``meter`` and ``progress`` is fallback a supporting
#: browser does not show, and an ``object``'s is shown only when its data fails to load
#: (in doubt, hidden); SVG shows only its ``text`` (its other content, ``desc`` and
#: ``metadata`` included, is drawn or not rendered) and a ``select`` one option of
#: several (headless chromium's ``innerText`` shows none of these)
CONTENT_NOT_LAID_OUT = frozenset(
    "audio canvas datalist meter object progress rp select svg video".split()
)
#: elements hidden unless their attribute says otherwise (the user-agent style sheet:
#: ``dialog:not([open])``; a closed ``details`` shows its summary alone, taken here as
#: hiding all of it)
HIDDEN_UNLESS_OPEN = frozenset(("details", "dialog"))
#: a ``font``'s attributes that may hide its text (a colour matching the background, a
#: face of symbols), as a ``style`` may
_FONT_STYLING = frozenset(("color", "face", "size"))
#: elements that hold or load a style sheet, whose rules may hide any element
STYLE_SHEET_ELEMENTS = frozenset(("link", "style"))
#: a start tag of :data:`STYLE_SHEET_ELEMENTS`
_STYLE_SHEET_TAG = re.compile(r"<(?:link|style)(?=[\s/>])", re.IGNORECASE)
#: elements that never have content (HTML Living Standard, "void elements")
VOID_ELEMENTS = frozenset(
    "area base basefont bgsound br col embed frame hr image img input keygen link meta "
    "param source track wbr".split()
)
#: one attribute of a tag matched by ``_HTML_TAG``: group 1 its name, group 2 its value
#: as written (quoted or not), absent for a bare one
_ATTRIBUTE_PARTS = re.compile(
    r"\s++([A-Za-z_:][A-Za-z0-9_.:-]*+)"
    r"(?:\s*+=\s*+([^\s\"'=<>`]++|'[^']*+'|\"[^\"]*+\"))?+"
)


def _attributes(tag: str) -> Dict[str, str]:
    """A tag's attributes: lower-case name -> value without quotes, decoded ("" when bare)."""
    return {
        name.lower(): html.unescape((value or "").strip("'\""))
        for name, value in _ATTRIBUTE_PARTS.findall(tag)
    }


def _hides_content(name: str, tag: str, style_sheet: bool) -> bool:
    """Whether a browser may lay out an element's content as nothing.

    In doubt it does: a ``style`` attribute (any declaration can hide text: a size, a
    colour matching the background, a symbol font, a position off the page) and, when
    the text holds a style sheet (:data:`STYLE_SHEET_ELEMENTS`), every element, since
    its rules select by name as well as by class.

    :param name: the element's name, lower case.
    :param tag: its start tag as written.
    :param style_sheet: whether the text holds a style sheet.
    :return: True for an element of :data:`CONTENT_NOT_LAID_OUT`, one with the
        ``hidden`` attribute or a non-empty ``style``, a ``font`` with a colour, face or
        size, a ``dialog`` or ``details`` without ``open``; every element with a style
        sheet.
    """
    if style_sheet or name in CONTENT_NOT_LAID_OUT:
        return True
    attributes = _attributes(tag[len(name) + 1 :])
    return (
        "hidden" in attributes
        or bool(attributes.get("style", "").strip())
        or (name == "font" and not _FONT_STYLING.isdisjoint(attributes))
        or (name in HIDDEN_UNLESS_OPEN and "open" not in attributes)
    )


def _laid_out_content(text: str) -> Optional[str]:
    """A text without its tags and the content a browser lays out as nothing; None if none.

    Tags are removed as nothing (as :func:`_tags_joined` does), and so is the content of
    :data:`HIDDEN_CONTENT_ELEMENTS` (to the end of the text when unclosed: a raw-text
    element swallows the rest) and of every element :func:`_hides_content` names, up to
    its end tag, or the end of the text when it has none. An end tag closes the last
    open element of its name and every element opened inside it, and one closing no open
    element is ignored, as an HTML parser does. The tags are matched by CommonMark's
    grammar (the tags markdown-it-py passes through), not by ``html.parser``, which is
    quadratic on unclosed constructs and raises on some (Python 3.11).

    Linear: each tag is visited once, each element pushed and popped once, and a
    raw-text element's closer searched once from its opener (the walk resumes past it,
    or ends when there is none).

    :param text: text as written, invisible characters and comments removed.
    :return: the laid-out text, or None when no element hides content.
    """
    style_sheet = _STYLE_SHEET_TAG.search(text) is not None
    kept: List[str] = []
    open_elements: List[Tuple[str, bool]] = []
    open_counts: "Counter[str]" = Counter()
    hiding = 0
    hid_any = False
    start = 0
    while True:
        tag = _HTML_TAG.search(text, start)
        if tag is None:
            break
        if not hiding:
            kept.append(text[start : tag.start()])
        start = tag.end()
        name = tag.group(1).lower()
        if tag.group(0).startswith("</"):
            while open_counts[name]:
                closed, hid = open_elements.pop()
                open_counts[closed] -= 1
                hiding -= hid
                if closed == name:
                    break
        elif name in HIDDEN_CONTENT_ELEMENTS:
            closer = re.compile(r"</" + name + r"\s*+>", re.IGNORECASE)
            found = closer.search(text, start)
            start = len(text) if found is None else found.end()
            hid_any = True
        elif name not in VOID_ELEMENTS:
            hides = _hides_content(name, tag.group(0), style_sheet)
            open_elements.append((name, hides))
            open_counts[name] += 1
            hiding += hides
            hid_any = hid_any or hides
    if not hiding:
        kept.append(text[start:])
    return "".join(kept) if hid_any else None


def laid_out_readings(text: str, invisible: "re.Pattern[str]") -> Tuple[str, ...]:
    """What a browser lays out of a text, words around hidden content joined.

    The joined reading (:func:`_joined_source`) keeps the content of every element a
    browser shows; these remove, besides, the content a browser lays out as nothing:
    an element with the ``hidden`` attribute or a ``style``, the elements the user-agent
    style sheet hides, fallback content, every element under a style sheet
    (:func:`_hides_content`), so ``pri<span hidden>zz</span>vate`` reads "private" as
    chromium shows it (adversarial review adv29yt). Read twice, as the rendered and
    joined readings are: the source as written (references decoded afterwards, so
    escaped markup stays text) and the source decoded (``&lt;span hidden>``, as
    :func:`.markup.inert` writes a tag, is the tag a model reads). Not parsed as
    Markdown; letters folded, emphasis characters removed (step 6).

    :param text: untrusted text, as written.
    :param invisible: what counts as an invisible character.
    :return: the distinct laid-out texts of the two, none when no tag in either hides
        content (then they are the joined readings). Linear in the text.
    """
    if "<" not in text and "&" not in text:
        return ()
    visible = invisible.sub("", text)
    decoded = _references_decoded(visible, invisible)
    laid_out = []
    sources = ((visible, True),) + (((decoded, False),) if decoded != visible else ())
    for source, escaped in sources:
        shown = (
            _laid_out_content(_without_hidden_html(source)) if "<" in source else None
        )
        if shown is not None:
            if escaped:
                shown = _references_decoded(shown, invisible)
            laid_out.append(
                _INLINE_MARKS.sub("", _compatibility_folded(shown, invisible))
            )
    return tuple(dict.fromkeys(laid_out))
