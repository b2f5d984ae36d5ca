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

r"""Untrusted text is never interpreted as markup: what a person sees is what a model reads.

MCP clients render tool descriptions and answers as Markdown, and Markdown passes raw
HTML through; a manifest's author can therefore hide text from the person reviewing it
(an HTML comment, a ``<span style="font-size:0">``, an image's alt text, a link's
title, a reference definition, a character reference to a zero-width character, a LaTeX
``\phantom``) while a model reads all of it. Finding such forms one pattern at a time
missed many; this module removes the kind instead.

:func:`inert` rewrites a text so that no renderer (CommonMark, GitHub Markdown, HTML,
Markdown with TeX math) interprets any of it as markup, and every character of it stays
visible. Four characters start all markup that can hide text, and each is written as a
character reference every renderer shows as the character itself (the backslash as a
look-alike):

- ``<`` before a letter, ``/``, ``!`` or ``?`` (every HTML tag, comment, declaration,
  processing instruction, CDATA section and autolink) becomes ``&lt;``;
- ``[`` (links, images, reference definitions, footnotes) becomes ``&#91;``;
- ``\`` before a letter or ASCII punctuation (TeX commands and delimiters, Markdown
  escapes) becomes U+29F5 REVERSE SOLIDUS OPERATOR ``⧵``, which looks the same: a
  reference would not do, since math renderers (MathJax, KaTeX's auto-render) read the
  page's text after the Markdown is rendered, where ``&#92;`` is a backslash again;
- ``&`` that starts a character reference to an invisible character (``&#8203;``,
  ``&zwj;``, ``&shy``) becomes ``&amp;``, so it is shown as written;
- every run of three backticks or tildes (what opens a code fence), as ``&#96;`` /
  ``&#126;``, since a fence's info string is not shown; and the pipes of a table's
  delimiter row, as ``&#124;``, and its first hyphen, as ``&#45;``, since a table drops
  cells past its header's; and ``$`` as U+FF04 ``＄`` (no math delimiter: inside math
  ``%`` hides the rest of a line) (all three found by the adversarial review adv29c).
  Fences and delimiter rows count anywhere on a line, not only at its start: behind a
  block quote's ``>`` or a list item's marker CommonMark parses the rest of the line as
  a new one (adv29d); a delimiter row is any line of its characters under a line with a
  pipe, with or without a pipe of its own (``:--`` under ``a |``: adv29e);
- a reference that stands for ``$`` or a backslash (``&#36;``, ``&dollar;``,
  ``&#x5C;``, ``&bsol;``...), as that character's look-alike: a math renderer reads the
  decoded text (adv29e). References to the other characters above are their inert
  forms already.

CommonMark decodes references to literal characters that never start markup (spec 0.31,
"Entity and numeric character references"), and so does HTML. :func:`inert` is
idempotent: its output holds none of these.

:meth:`Markup.kinds` says what markup a text held, for the ``invisible_text`` warning
(which enters the catalogue digest, so it is computed alike on every agent): from
linear regular expressions over the forms that hide text, not a Markdown parser. A
parser (markdown-it-py) is the tests' oracle instead: CommonMark's bracket handling cost
it 24 ms for a text of 1,024 ``[`` (250 ms for 10,000), and anyone can publish thousands
of such texts for every agent to parse. The patterns are linear in the text: measured
by ``scripts/bench_markup.py`` (docs/benchmarks.md, "Model text"), :meth:`Markup.kinds`
takes up to 1.2 s per 1,000,000 characters of the hostile shapes (unclosed links
after a title's opening, since a destination may nest 32 pairs of parentheses: adv29j)
against 0.05-0.12 s for prose with links, so up to 12 ms for a 10,000-character
description (not "under a millisecond", as this said before adv29i, whose link-title
pattern took 13.6 s for 1 MiB of ``[a](<b``); :meth:`Markup.inert` 0.02-0.6 s per
1,000,000. markdown-it-py itself
took 16 s per 1,000,000 characters of ``[](`` and 2.5 s of prose with links, measured
alongside (adv29j): ten to twenty times the patterns. Since the text shown is inert
whatever they find, a form they miss hides nothing.
"""

import html
import html.entities
import re
from typing import Set, Tuple

#: a ``<`` that starts an HTML tag, comment, declaration, instruction or autolink
_TAG_OPEN = re.compile(r"<(?=[A-Za-z/!?])")
#: what can open a code fence, wherever it stands: a fence's info string is not shown
#: (adv29c), and behind a block quote's or list item's marker a fence is still one
#: (CommonMark's container blocks parse the rest of their line as a new line: adv29d)
_FENCE_OPEN = re.compile(r"([`~])\1\1")
_FENCE_REFERENCE = {"`": "&#96;", "~": "&#126;"}
#: a line that may be a table's delimiter row, behind any block quote or list markers
#: (GFM tables drop the cells past the header's: adv29c, adv29d): only those characters,
#: a hyphen among them, under a line with a pipe (group 1; the row is group 2). GFM
#: ("Tables") and markdown-it-py's ``table`` rule need a pipe in the header row only,
#: not in the delimiter row: ``a |`` then ``:--`` is a one-column table (adv29e). A row
#: written inertly holds no pipe, so it is no header for the line after it
_TABLE_DELIMITER_ROW = re.compile(
    r"(?m)^([^\n|]*\|[^\n]*\n)((?=[^\n]*-)[ \t>|:+*\-0-9.)]+)$"
)
#: a backslash that escapes (Markdown) or starts a command or delimiter (TeX)
_ESCAPING_BACKSLASH = re.compile(r"\\(?=[A-Za-z!-/:-@\[-`{-~])")
#: what such a backslash is shown as (U+29F5 REVERSE SOLIDUS OPERATOR)
SHOWN_BACKSLASH = "\u29f5"
#: what a ``$`` is written as: U+FF04 FULLWIDTH DOLLAR SIGN, which looks alike; math
#: renderers take ``$`` as a math delimiter (from the page's text, after Markdown, so no
#: reference would do), and inside math ``%`` starts a comment that hides the rest of
#: the line (found by the adversarial review adv29c)
SHOWN_DOLLAR = "\uff04"
#: a CommonMark autolink (``<https://...>``, ``<a@b.example>``): shown as its own text
_AUTOLINK = re.compile(
    r"<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@"
    r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]"
    r"{0,61}[A-Za-z0-9])?)*)>"
)
#: a character reference: named (``;`` optional, as HTML's legacy names), decimal or hex
_REFERENCE = re.compile(
    r"&(?:#[xX]0*([0-9A-Fa-f]{1,8})|#0*([0-9]{1,9})|([A-Za-z][A-Za-z0-9]{0,31}));?"
)
#: characters whose inert form is a look-alike rather than a reference, as references to
#: them are written: a math renderer reads the page's text, where CommonMark and HTML
#: have decoded ``&#36;`` or ``&bsol;`` into the ``$`` or ``\`` it takes as math
#: (adv29e); references to the other characters :func:`Markup.inert` rewrites are their
#: own inert forms (CommonMark: a reference is never markup)
_LOOKALIKES = {"$": SHOWN_DOLLAR, "\\": SHOWN_BACKSLASH}

#: an image: ``![alt](src)``, ``![alt][ref]``
_IMAGE = re.compile(r"!\[")
#: a link destination followed by a title (``"t"``, ``'t'``, ``(t)``), bounded runs:
#: ``](``, at most 64 spaces, a destination (``<...>`` or a run of no space and no
#: ``)``, 2,048 characters at most), 1 to 64 spaces, the title's opening character.
#: Linear (adv29i): every run is possessive (``*+``, Python 3.11), so no match backtracks
#: over it, and no destination scan crosses the start of another: a bare destination
#: stops at the next ``](`` (whose own match then covers the rest of it: the later
#: start matches whenever an earlier one would) and a ``<...>`` one at any unescaped
#: ``<``, which CommonMark does not allow in it either (spec 0.31, "Links"); only
#: spaces then lead to a title with an empty destination (``](  "t"``). The earlier
#: pattern backtracked over 2 x 2,048 characters at every ``](``: 13.6 s for 1 MiB of
#: ``[a](<b`` (docs/benchmarks.md, "Model text")
_LINK_TITLE = re.compile(
    r"\]\((?:\s{1,128}+|\s{0,64}+"
    r"(?:<(?:[^<>\n\\]|\\[^\n]){0,2048}+>|(?:[^\s)\]]|\](?!\()){0,2048}+)"
    r"\s{1,64}+)[\"'(]"
)
#: a backslash escaping a line ending inside a destination, and what a container writes
#: before the next line (a block quote's ``>``, a list item's indentation), which
#: CommonMark strips before it parses the inline content: markdown-it-py's
#: ``parseLinkDestination`` lets a backslash escape any character, a line ending too, so
#: ``> [s](a\`` then ``> b "t")`` is a link to ``a\`` + line break + ``b`` titled ``t``
#: (adv29l). The spaces after the last ``>`` are taken too unless a title's opening
#: follows them: CommonMark's markers take at most one of them (a list item's its
#: indentation), so the next may end the destination (``a\`` + line break +
#: ``>  "t"`` is titled ``t``)
_ESCAPED_LINE_BREAK = r"\\(?:\r\n?|\n)(?:[ \t]*+>)*+(?:[ \t]++(?=[^ \t\"'(]))?"
#: what a bare link destination holds besides parentheses (spec 0.31, "Links", and
#: markdown-it-py's ``parseLinkDestination``): any character but a space, an ASCII
#: control character, ``(``, ``)`` or ``\``; or an escaped line ending and the next
#: line's container markers; or a backslash and the character it escapes
_BARE_CHARACTER = r"[^\x00-\x20\x7f()\\]|" + _ESCAPED_LINE_BREAK + r"|\\[^ ]"
#: how many parentheses a bare destination may nest: markdown-it-py stops at 32
_NESTING = 32


def _balanced(depth: int) -> str:
    """A possessive pattern of bare destination characters nesting up to ``depth`` pairs.

    :param depth: how many pairs of parentheses may still open.
    :return: the pattern: each character is either plain, or opens a pair whose content
        is the same pattern one level down, so it has one reading and needs no
        backtracking.
    """
    if depth == 0:
        return f"(?:{_BARE_CHARACTER})*+"
    return f"(?:{_BARE_CHARACTER}|\\({_balanced(depth - 1)}\\))*+"


#: a line break inside a paragraph and what a container writes before the next line
#: (a block quote's ``>``, a list item's indentation): CommonMark strips them before it
#: parses the line's inline content
_LINE_BREAK = r"(?:\r\n?|\n)[ \t>]*+"
#: a link title after a destination of any length, a bare one holding balanced or
#: escaped parentheses (``[a](x(y) "t")``, ``[a](x\) "t")``: adv29j), with the spaces
#: and the one line break CommonMark allows around it, behind a container's markers:
#: ``](``, spaces, a ``<...>`` destination or a bare one nesting at most
#: :data:`_NESTING` pairs, spaces or a line break, the title's opening character.
#: :data:`_LINK_TITLE` keeps its bounded forms (an empty destination, ``](`` in one).
#: Linear: every run is possessive; a ``<...>`` scan stops at an unescaped ``<``, and a
#: bare one crosses the start of another only by opening a pair it has not closed, so
#: each character is scanned from at most :data:`_NESTING` + 2 starts
_LINK_TITLE_NESTED = re.compile(
    r"\]\([ \t]*+(?:"
    + _LINE_BREAK
    + r")?"
    + r"(?:<(?:[^<>\n\r\\]|"
    + _ESCAPED_LINE_BREAK
    + r"|\\[\s\S])*+>|"
    + _balanced(_NESTING)
    + r")(?:[ \t]++(?:"
    + _LINE_BREAK
    + r")?|"
    + _LINE_BREAK
    + r")[\"'(]"
)
#: what stands just before every title :data:`_LINK_TITLE_NESTED` finds (the last
#: character of its separator, then the opening one): a text without it is not scanned,
#: since that pattern may scan a character from up to :data:`_NESTING` + 2 starts
_TITLE_OPENING = re.compile(r"[ \t\r\n>][\"'(]")
#: characters every common font draws as an empty cell though Unicode calls them
#: neither white space (``str.isspace``) nor, for U+2800, default-ignorable: U+2800
#: BRAILLE PATTERN BLANK (General_Category So), and the Hangul fillers U+115F, U+1160,
#: U+3164 and U+FFA0 (Lo, Default_Ignorable_Code_Point in DerivedCoreProperties.txt,
#: so ``untrusted_text.INVISIBLE_RANGES`` removes them already; named here so a link's
#: text decoded from a reference to one counts too). Sources: Unicode 15.1
#: UnicodeData.txt (categories), DerivedCoreProperties.txt (default-ignorable), and
#: the fillers' usual blank substitute the adversarial review adv29m used (U+2800);
#: U+1D159 MUSICAL SYMBOL NULL NOTEHEAD (So), which music fonts draw empty (adv29n)
BLANK_GLYPHS = "\u2800\u115f\u1160\u3164\uffa0\U0001d159"
#: a link or image whose text may show nothing (group 1): ``[](x)``, ``[ ][x]``, and
#: text of only white space, character references (``[&#x2003;](x)``, ``[&Tab;](x)``:
#: CommonMark decodes them in link text, spec 0.31, "Entity and numeric character
#: references", which need their ``;``), code span and emphasis markers (``[` `](x)``,
#: ``[*&#32;*](x)``) and backslashes (``[\`` + line break + ``](x)``, a hard line
#: break): :func:`_shows_nothing` decides (adv29l). Linear: the text's run stops at any
#: other character, ``[`` among them, so no scan crosses the start of another
_EMPTY_LINK = re.compile(
    r"\[((?:[\s*_`\\"
    + BLANK_GLYPHS
    + r"]|&(?:#[xX][0-9A-Fa-f]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{0,31});)*+)"
    r"\]\s{0,64}+(?=[(\[])"
)
#: :meth:`str.translate` table dropping :data:`BLANK_GLYPHS`
_BLANK_GLYPHS_GONE = dict.fromkeys(map(ord, BLANK_GLYPHS))
#: a backslash escaping ASCII punctuation: the character is shown (``[\*](x)``)
_ESCAPED_PUNCTUATION = re.compile(r"\\[!-/:-@\[-`{-~]")
#: a reference-style definition or footnote: ``[label]: ...``, ``[^1]: ...``, at a
#: line's start behind any indentation and block quote or list markers (a container
#: parses the rest of its line as a new one: ``> [r]: /x``, ``1. [r]: /x``), its label
#: over any lines (``[r`` then ``]: /x``; CommonMark allows no unescaped bracket in it),
#: a line starting after ``\n`` or ``\r`` (CommonMark reads both as line endings).
#: Conservative: an indented code block or a paragraph's continuation is reported too.
#: Linear: every run is possessive, and a label stops at the next unescaped ``[``, so no
#: label scan crosses the start of another (adv29j: the pattern of before looked at a
#: line's first three spaces only, a label on one line)
_DEFINITION = re.compile(
    r"(?:^|(?<=\r))[ \t>*+\-0-9.)]*+\[(?:[^\[\]\\]|\\[\s\S])++\]:", re.MULTILINE
)

#: a code fence with an info string on its line (adv29c: not shown; a renderer takes
#: its first word as the language), after any white space but a line end: a Unicode
#: space (U+00A0, U+3000...) before it is still an info string to markdown-it-py
#: (adv29n). Linear: a run is taken whole from its first character only (possessive,
#: after no character of its own kind)
_FENCE_WITH_INFO = re.compile(r"(?:(?<!`)`{3,}+|(?<!~)~{3,}+)[^\S\r\n]*+\S")
#: what opens TeX math for a math renderer (``$``, ``\(``, ``\[``, an environment)
_MATH_OPEN = re.compile(r"\$|\\[(\[]|\\begin")
#: what follows the backslash of a TeX command: a letter (a control word) or ASCII
#: punctuation (a control symbol: ``\!`` is a negative space that overprints)
_COMMAND = r"[A-Za-z!-/:-@\[-`{-~]"
#: TeX math a renderer draws, each span closed (MathJax's and KaTeX's delimiters):
#: ``$...$`` and ``$$...$$``, ``\(...\)``, ``\[...\]``; group 1, 2 or 3 is the first
#: command in the span's body, when it holds one: a ``\$`` is one when the span goes on
#: after it (MathJax's ``processEscapes`` reads it as a dollar), the span's end when
#: not; a ``\)`` or ``\]`` ends its own span. Spans are read in turn (``findall``), so
#: a ``$`` closes the one before it: in ``$5$ \b $6$`` the ``\b`` is outside math.
#: Linear: each run is possessive, and a body stops at the next delimiter of its own
#: kind, so no scan crosses the start of another of that kind
_MATH_SPAN = re.compile(
    r"\$\$?+(?:[^$\\]|\\(?!" + _COMMAND + r"))*+(\\" + _COMMAND + r")?[^$]*+\$"
    r"|\\\((?:[^\\]|\\(?!" + _COMMAND + r"))*+"
    r"(?:(\\(?![()])" + _COMMAND + r")(?:[^\\]|\\(?![()]))*+)?\\\)"
    r"|\\\[(?:[^\\]|\\(?!" + _COMMAND + r"))*+"
    r"(?:(\\(?![\[\]])" + _COMMAND + r")(?:[^\\]|\\(?![\[\]]))*+)?\\\]"
)
#: a TeX environment, which MathJax typesets wherever it stands
_MATH_ENVIRONMENT = re.compile(r"\\begin\s*+\{")
#: an inline link whose text and destination are both plain (group 1: the text; group
#: 2 or 3: a ``<...>`` or bare destination), the only link a value returned as
#: written may hold unreported: its text can be compared with where it goes. Linear:
#: the text stops at any bracket, the destination at any space or parenthesis
_PLAIN_LINK = re.compile(
    r"\[([^\[\]\\\n]*+)\]\([ \t]*+(?:<([^<>\n\\]*+)>|([^\s()<>\\]++))[ \t]*+\)"
)

#: an attribute of an HTML tag (CommonMark's grammar, spec 0.31 "Raw HTML")
_ATTRIBUTE = (
    r"\s++[A-Za-z_:][A-Za-z0-9_.:-]*+"
    r"(?:\s*+=\s*+(?:[^\s\"'=<>`]++|'[^']*+'|\"[^\"]*+\"))?+"
)
#: an opening or closing HTML tag (CommonMark's raw HTML); group 1 is the element's name
HTML_TAG = re.compile(
    r"</?([A-Za-z][A-Za-z0-9-]*+)(?:" + _ATTRIBUTE + r")*+\s*+/?>", re.ASCII
)
#: a ``<`` that opens a comment, instruction, declaration or CDATA (closed or not: a
#: browser hides an unclosed comment to the end), or one that may start an HTML block
#: (CommonMark 0.31, "HTML blocks": at a line's start behind indentation and block quote
#: or list markers, a tag's name then a space, ``>``, ``/`` or the end; conservative:
#: any name, not only the block elements')
_RAW_HTML_START = re.compile(
    r"<[!?]|^[ \t>*+\-0-9.)]*+</?+[A-Za-z][A-Za-z0-9-]*+(?:[\s/>]|$)", re.ASCII
)


def starts_raw_html(text: str) -> bool:
    """Whether a ``<`` of a text starts raw HTML some renderer passes through.

    :param text: text of one line (a tool's name).
    :return: True for a complete tag (:data:`HTML_TAG`), a ``<!`` or ``<?`` anywhere,
        or a tag's start where an HTML block may open (:data:`_RAW_HTML_START`); False
        for a ``<`` that starts none, as in ``a<b`` (no ``>`` closes a tag).
    """
    return bool(HTML_TAG.search(text) or _RAW_HTML_START.search(text))


#: what markup a text can hold that hides text when rendered (the kinds reported)
RAW_HTML = "raw HTML (any element can be styled away)"
IMAGE = "image (its alt text and title are not shown)"
LINK_TITLE = "link title"
EMPTY_LINK = "link without visible text"
REFERENCE_DEFINITION = "reference-style link definition"
INVISIBLE_REFERENCE = "character reference to an invisible character"
#: the structures :meth:`Markup.inert` rewrites silently in the text (adv29c), named
#: where a value is returned as written (:func:`structure_kinds`, adv29m)
FENCE_INFO = "code fence info string (not shown)"
TABLE_CELLS = "table (cells past its header's are not shown)"
MATH_COMMENT = "TeX math holding % (a comment hides the rest of its line)"
MATH_COMMAND = (
    "TeX math holding a command (\\phantom, \\color, \\hspace... draw text blank)"
)
LINK_TARGET = "link whose target is not the text it shows"


def structure_kinds(text: str) -> Tuple[str, ...]:
    r"""What structure of a text may hide part of it when rendered (conservative, linear).

    :meth:`Markup.inert` rewrites these in any text it shows, silently; a value returned
    as written (a structured answer) is checked with this instead, so that it is
    returned only when the rewrite would leave its rendering as it is (adv29m, adv29o).

    :param text: text already cleaned of invisible characters.
    :return: :data:`FENCE_INFO` for a code fence with an info string,
        :data:`TABLE_CELLS` for a possible table delimiter row under a line with a pipe
        (any table: cells past its header's are dropped), :data:`MATH_COMMENT` for a
        ``%`` anywhere after a math opening (``$``, ``\(``, ``\[``, ``\begin``),
        :data:`MATH_COMMAND` for a TeX command (a backslash before a letter or
        punctuation) inside closed math (``$...$``, ``$$...$$``, ``\(...\)``,
        ``\[...\]``) or any ``\begin{`` environment, :data:`LINK_TARGET` for an inline
        link (any ``](``) unless it is plain and shows exactly its destination; math is
        read with references decoded as HTML does (``html.unescape``), since a math
        renderer reads the decoded page; each once, in that order; () for none.
    """
    found = []
    if ("`" in text or "~" in text) and _FENCE_WITH_INFO.search(text):
        found.append(FENCE_INFO)
    if "|" in text and _TABLE_DELIMITER_ROW.search(text):
        found.append(TABLE_CELLS)
    decoded = html.unescape(text) if "&" in text else text
    opened = _MATH_OPEN.search(decoded) if "%" in decoded else None
    if opened and decoded.find("%", opened.end()) >= 0:
        found.append(MATH_COMMENT)
    if "\\" in decoded and _math_holds_command(decoded):
        found.append(MATH_COMMAND)
    if "](" in text and _link_shows_other_target(text):
        found.append(LINK_TARGET)
    return tuple(found)


def _math_holds_command(text: str) -> bool:
    r"""Whether TeX math a renderer draws holds a command (a blank box, a colour...).

    :param text: text with references decoded.
    :return: True for a ``\begin{`` environment, or a backslash before a letter or
        ASCII punctuation inside a closed math span (:data:`_MATH_SPAN`), its
        delimiters aside.
    """
    if _MATH_ENVIRONMENT.search(text):
        return True
    return any(any(commands) for commands in _MATH_SPAN.findall(text))


def _link_shows_other_target(text: str) -> bool:
    """Whether an inline link may go elsewhere than the text it shows.

    :param text: any text.
    :return: False only when every ``](`` after the text's first ``[`` (without one,
        none opens a link: a ``&#91;`` never does) closes a :data:`_PLAIN_LINK` whose
        text, stripped, is its destination (both read with references decoded, as
        CommonMark reads them); a link of any other shape counts (conservative).
    """
    opened = text.find("[")
    if opened < 0:
        return False
    shown_as_is = sum(
        html.unescape(m.group(1)).strip() == html.unescape(m.group(2) or m.group(3))
        for m in _PLAIN_LINK.finditer(text, opened)
    )
    return text.count("](", opened) > shown_as_is


def _named_references(invisible: "re.Pattern[str]") -> Set[str]:
    """The HTML named character references whose characters a person does not see.

    :param invisible: the invisible-character pattern (``untrusted_text``'s ranges).
    :return: names without ``&`` (``zwj;``, ``shy``...), from the standard library's
        copy of the HTML5 table.
    """
    return {
        name for name, value in html.entities.html5.items() if invisible.search(value)
    }


def _delimiter_rows_inert(text: str) -> str:
    """The text with each line that may be a table's delimiter row written inertly.

    :param text: any text.
    :return: each line of :data:`_TABLE_DELIMITER_ROW` with its pipes as ``&#124;``
        and its first hyphen as ``&#45;``: markdown-it-py's ``table`` rule takes a
        delimiter row only of ``|``, ``-``, ``:``, spaces and tabs, so a reference in it
        leaves no table; CommonMark and HTML show the references as the characters.
    """
    return _TABLE_DELIMITER_ROW.sub(
        lambda m: m.group(1)
        + m.group(2).replace("|", "&#124;").replace("-", "&#45;", 1),
        text,
    )


class Markup:
    """The markup rules over one set of invisible characters.

    :param invisible: a pattern matching one invisible or control character.
    """

    def __init__(self, invisible: "re.Pattern[str]") -> None:
        """Keep the pattern and the invisible named references."""
        self._invisible = invisible
        self._invisible_names = _named_references(invisible)

    def _hides(self, match: "re.Match[str]") -> bool:
        """Whether a character reference stands for an invisible character.

        :param match: a :data:`_REFERENCE` match.
        :return: True for a numeric reference to an invisible, control or invalid code
            point, or a named one whose longest known prefix is invisible.
        """
        hex_digits, digits, name = match.groups()
        if name is None:
            point = int(hex_digits, 16) if hex_digits else int(digits)
            return (
                point > 0x10FFFF
                or 0xD800 <= point <= 0xDFFF
                or bool(self._invisible.search(chr(point)))
            )
        spelled = match.group(0)[1:]
        # HTML decodes the longest name it knows, with or without the semicolon
        return any(
            spelled[:end] in self._invisible_names for end in range(len(spelled), 1, -1)
        )

    def _shows_nothing(self, link_text: str) -> bool:
        """Whether a link's text (an :data:`_EMPTY_LINK` group) shows no character.

        :param link_text: what stands between the link's brackets: white space,
            character references, ``*``, ``_``, backticks and backslashes only.
        :return: True when, an escaped character counting as shown, the markers of code
            spans, emphasis and hard breaks dropped and the references decoded as HTML
            decodes them (``html.unescape``, the standard library's copy of the HTML5
            table CommonMark names), only white space and invisible characters are
            left. Conservative: a lone ``*`` or backtick, which CommonMark shows as
            itself, counts as a marker.
        """
        shown = _ESCAPED_PUNCTUATION.sub("x", link_text)
        for marker in "*_`\\":
            shown = shown.replace(marker, "")
        shown = html.unescape(shown).translate(_BLANK_GLYPHS_GONE)
        return not self._invisible.sub("", shown).strip()

    def _reference_inert(self, match: "re.Match[str]") -> str:
        """A character reference as :meth:`inert` writes it.

        :param match: a :data:`_REFERENCE` match.
        :return: its ``&`` as ``&amp;`` when it stands for an invisible character
            (:meth:`_hides`); the look-alike of :data:`_LOOKALIKES` when it stands for
            ``$`` or a backslash (decoded as HTML does, ``html.unescape``: any case of
            ``x``, leading zeros, named or numeric, ``;`` or not); else itself.
        """
        if self._hides(match):
            return "&amp;" + match.group(0)[1:]
        decoded = html.unescape(match.group(0))
        if decoded[:1] in _LOOKALIKES:
            return _LOOKALIKES[decoded[0]] + decoded[1:]
        return match.group(0)

    def inert(self, text: str) -> str:
        """The text with every markup-starting character written as a reference.

        :param text: text already cleaned of invisible characters.
        :return: the same visible characters in any renderer, none of them markup
            (the module's docstring lists the four rewrites). Idempotent.
        """
        text = _REFERENCE.sub(self._reference_inert, text)
        text = _ESCAPING_BACKSLASH.sub(SHOWN_BACKSLASH, text)
        text = _TAG_OPEN.sub("&lt;", text)
        text = _FENCE_OPEN.sub(lambda m: _FENCE_REFERENCE[m.group(1)] * 3, text)
        text = _delimiter_rows_inert(text)
        return text.replace("[", "&#91;").replace("$", SHOWN_DOLLAR)

    def kinds(self, text: str) -> Tuple[str, ...]:
        """What markup of a text may hide text when rendered (conservative, linear).

        :param text: text already cleaned of invisible characters.
        :return: the kinds found (:data:`RAW_HTML`, :data:`IMAGE`, :data:`LINK_TITLE`,
            :data:`EMPTY_LINK`, :data:`REFERENCE_DEFINITION`,
            :data:`INVISIBLE_REFERENCE`), each once, in that order; () for none. Raw
            HTML is any ``<`` that starts a tag, comment, declaration or instruction for
            some renderer (HTML and CommonMark versions disagree on comments); an
            autolink is not.
        """
        if not any(c in text for c in "<[&"):
            return ()  # no markup can hide anything
        found: Set[str] = set()
        if _TAG_OPEN.search(_AUTOLINK.sub("", text)):
            found.add(RAW_HTML)
        links = (
            (IMAGE, _IMAGE),
            (LINK_TITLE, _LINK_TITLE),
            (LINK_TITLE, _LINK_TITLE_NESTED),
            (REFERENCE_DEFINITION, _DEFINITION),
        )
        for kind, pattern in links if "[" in text else ():  # every link opens with [
            if pattern is _LINK_TITLE_NESTED and not _TITLE_OPENING.search(text):
                continue
            if kind not in found and pattern.search(text):
                found.add(kind)
        if "[" in text and any(
            self._shows_nothing(m.group(1)) for m in _EMPTY_LINK.finditer(text)
        ):
            found.add(EMPTY_LINK)
        if any(self._hides(m) for m in _REFERENCE.finditer(text)):
            found.add(INVISIBLE_REFERENCE)
        order = (
            RAW_HTML,
            IMAGE,
            LINK_TITLE,
            EMPTY_LINK,
            REFERENCE_DEFINITION,
            INVISIBLE_REFERENCE,
        )
        return tuple(kind for kind in order if kind in found)
