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
# pylint: disable=too-many-lines  # the one place every rule on a stranger's text lives

r"""Text from a manifest is untrusted data: what a model may read of it, and what is flagged.

Anyone can register a mech and write its manifest, and every exporter, the agent's HTTP
views and the MCP server hand that text to language models. Three rules, one place:

1. **Cleaned** (:func:`for_model`): characters a person does not see but a model reads
   are removed: Unicode tag characters (U+E0000-E007F, which spell hidden ASCII, and the
   rest of that block), every default-ignorable code point, bidi
   controls (U+202A-202E, U+2066-2069, U+200E/F, U+061C), zero-width characters
   (U+200B-200D, U+2060, U+FEFF), variation selectors (U+FE00-FE0F, U+E0100-E01EF), and
   C0/C1 controls other than newline and tab (a carriage return before a newline is
   dropped, U+2028/2029 become newlines): :data:`INVISIBLE_RANGES` lists every range.
   Combining marks drawn past their own character are cut
   (:func:`.stacked_marks.marks_cut`: at most 4 distinct marks on a character, none on
   a space, a line break or the text's start; UTS #39 section 5.4, adv29zt), so no
   stack of them paints over the server's text around the mech's.
   Markup is never interpreted (:func:`inert_markup`, :mod:`.markup`): MCP clients
   render descriptions as Markdown, which passes HTML through, so a comment, a styled
   ``<span>``, an image's alt text, a link's title, a reference definition or a
   reference to a zero-width character would hide from a person what a model reads.
   Every character that starts such markup is written as a character reference that
   every renderer shows as itself: nothing is removed, and a person sees what a model
   reads. Values a model copies into a call (enum, const, default, examples) are
   cleaned of invisible characters only (:func:`value_for_model`).
2. **Capped**: a description keeps at most :data:`MAX_TEXT_CHARS` characters, a name or
   title :data:`MAX_LABEL_CHARS`; a cut text ends with ``… (cut: N more characters)``
   inside the cap, so cleaning twice changes nothing.
3. **Flagged** (:func:`tool_text_problems`): a tool whose text holds invisible characters
   or markup that hides text when rendered (:data:`.problems.INVISIBLE_TEXT`:
   :func:`render_hidden_kinds`), reads like instructions to a model
   (:data:`.problems.INSTRUCTION_LIKE_TEXT`: :data:`INSTRUCTION_PATTERNS`) or whose
   argument asks for a secret (:data:`.problems.SECRET_ARGUMENT`: :data:`SECRET_PATTERN`,
   and :data:`QUALIFIED_SECRET_PATTERN` for short words that are also ordinary ones)
   gets a warning. The MCP server refuses a tool that asks for a secret, so ``publish``
   refuses a manifest holding one (:func:`publish_refusals`): it would never be served.
   Every string and key a tool holds is read (:func:`tool_texts`: ``pattern``,
   ``format``, keys inside ``enum`` values and unknown fields too), and the word checks
   read each text as written, as rendered and read through (:func:`readings`:
   references decoded, markup removed or kept, letters folded), since a model or a
   person reading it reads the words any of these ways (adv29o, adv29s).

Where: cleaning happens when text is *shown* (every exporter, ``GET /tools``,
``GET /tools/<name>``, the MCP server), not when a manifest is parsed: the catalogue the
agents agree on keeps the manifest's text as published (the evidence a person reviews,
and a digest that does not change with the rule). The warnings are part of that catalogue
(``catalogue.fetching``), so they are computed from explicit code-point ranges, ASCII
patterns, Python's HTML5 reference table, the frozen Unicode 3.2 database and Python
3.11's Unicode database (the fold of letters and marks later versions added, and the
character names :mod:`.letter_forms` reads: the wheels pin Python 3.11, so every agent
adds the same warnings).
"""

import re
from dataclasses import replace
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from mech_catalogue_core.model import hidden_characters, other_languages
from mech_catalogue_core.model.canonical import (
    canonical_text,
    decode,
)
from mech_catalogue_core.model.duty_readings import duty_reading
from mech_catalogue_core.model.expression_marks import expression_marks_spaced
from mech_catalogue_core.model.hidden_characters import INVISIBLE as _INVISIBLE
from mech_catalogue_core.model.hidden_characters import MARKUP
from mech_catalogue_core.model.hidden_characters import TAG_TEXT as _TAG_TEXT
from mech_catalogue_core.model.hidden_characters import hidden_tag_text, strip_invisible
from mech_catalogue_core.model.letter_forms import (
    ascii_lookalikes_read,
    folded,
    look_alike_words_folded,
    other_script_words_kept,
)
from mech_catalogue_core.model.memo import bounded_memo, digest_key
from mech_catalogue_core.model.payees import payees_withheld, prose_for_model
from mech_catalogue_core.model.problems import (
    INSTRUCTION_LIKE_TEXT,
    INVISIBLE_TEXT,
    SECRET_ARGUMENT,
    SECRET_REQUEST,
    SEVERITY_ERROR,
    Problem,
    warning,
)
from mech_catalogue_core.model.rendered_text import (
    hidden_parts_joined,
    laid_out_readings,
    may_differ,
    shown_readings,
)
from mech_catalogue_core.model.secret_vocabulary import (
    HANDING_VERBS,
    SECRET_ARGUMENT_NAME,
    SECRET_HOLDERS,
    SECRET_MENTION_PATTERNS,
    SECRET_NAME_PATTERN,
    SECRET_TERMS,
    alternation,
)
from mech_catalogue_core.model.short_secret_words import (
    QUALIFIED_SECRET_PATTERN,
    SECRET_NAME,
    SHORT_WORD_FORM,
    clause_word_readings,
    name_glossed_as_ordinary,
    short_word_asks,
    word_readings,
)
from mech_catalogue_core.model.spelled_words import (
    checked_words,
    spelled_apart_of,
    spelled_readings,
)
from mech_catalogue_core.model.stacked_marks import (
    MAX_MARKS_PER_BASE,
    has_marks_to_cut,
    marks_cut,
)
from mech_catalogue_core.model.tool import Argument, Tool

#: the invisible characters' ranges (:mod:`.hidden_characters`), named here as before
INVISIBLE_RANGES = hidden_characters.INVISIBLE_RANGES

#: characters of a description (tool, argument, input, output, schema text, example,
#: enum value) a model may read, cut marker included
MAX_TEXT_CHARS = 1024
#: characters of a name or title a model may read, cut marker included
MAX_LABEL_CHARS = 128

#: an order to set aside what a model was told
IGNORE_INSTRUCTIONS = (
    r"(ignore|disregard|forget|override) (all |any )?(of )?(the |your |my )?"
    r"(previous|prior|above|earlier|preceding|former|other|system) "
    r"(instructions?|directions?|messages?|prompts?|rules?|context)"
)
#: phrases that address the model rather than describe the tool (ASCII, matched on the
#: text's words: case and punctuation ignored); each is flagged, nothing is refused
#: (naming a secret is among them: :mod:`.model_orders` reads orders only)
INSTRUCTION_PATTERNS: Tuple[str, ...] = (
    IGNORE_INSTRUCTIONS,
    r"you must",
    r"you (are|have been) now",
    r"system prompt",
    r"new instructions?",
    r"(do not|don t|never) (tell|inform|show|mention|reveal)",
    r"(send|transfer|wire|approve) (all |the |your |their |any )?"
    r"(funds?|money|tokens?|eth|ether|xdai|crypto|balance|usdc|olas)",
    *SECRET_MENTION_PATTERNS,
    r"im (start|end)",
    r"(assistant|system|user) (says|message|role)",
)
#: the words that begin or end the server's frame of an answer
_FRAME_WORDS = (
    r"(begin|begins|began|beginning|start|starts|started|starting|end|ends|ended|"
    r"ending|over|close|closes|closed|closing|finish|finishes|finished|stop|stops|"
    r"stopped|done|complete|completed)"
)
#: the MCP server's own forms (its facts, notes, heading of the mech's text, answer
#: markers, calls to make again): in a stranger's text they pose as the server
#: (adv29zt Z3), so they are flagged as instructions are, matched the same way
SERVER_FORM_PATTERNS: Tuple[str, ...] = (
    r"(warning|note|notice|message|reminder) from (this|the) (mcp )?server",
    r"paid call [0-9]",
    r"wei of the chain s native token",
    r"not payable now",
    r"mech s own description",
    # the answer's markers, reworded (adv29zq A2): a response's CID near a word that
    # begins or ends it, within three words either way ("end of response <cid>",
    # "response <cid> ended", "response <cid> is over")
    rf"{_FRAME_WORDS}( [a-z]+){{0,3}} response [a-z0-9]{{20,}}",
    rf"response [a-z0-9]{{20,}}( [a-z]+){{0,3}} {_FRAME_WORDS}",
    # the note line over an answer ("<tool>: request 0x<64 hex> was paid ...": A1)
    r"requests? (id )?0x[0-9a-f]{64}",
    r"(new|another|fresh|different) idempotency key",
)
_PHRASES = INSTRUCTION_PATTERNS + SERVER_FORM_PATTERNS
_INSTRUCTION = re.compile(
    r"\b(" + "|".join(f"(?:{p})" for p in _PHRASES) + r")\b",
    re.IGNORECASE | re.ASCII,
)
#: what an argument asks for when it asks for a secret (matched on its name's and its
#: description's words; ``privateKey``, ``wallet_key`` and "paste the private key" all
#: match): the English terms of :data:`.secret_vocabulary.SECRET_TERMS`, then a few
#: other languages'. The short words that are also ordinary words or symbols are
#: :data:`QUALIFIED_SECRET_PATTERN`'s.
SECRET_PATTERN = re.compile(
    r"\b(" + "|".join(SECRET_TERMS)
    # a few other languages (accents folded by secret_asked)
    + r"|clave privada|chiave privata|cle privee|privater schlussel|"
    r"contrasena|mot de passe|passwort|senha|frase semilla)\b",
    re.IGNORECASE | re.ASCII,
)
#: the words the word checks look for: a word spelled apart is read joined only where
#: joining makes one (:func:`.spelled_words.spelled_words_joined`)
CHECKED_WORDS = checked_words(
    (
        _INSTRUCTION.pattern,
        SECRET_PATTERN.pattern,
        SECRET_ARGUMENT_NAME,
        QUALIFIED_SECRET_PATTERN.pattern,
        alternation(SECRET_HOLDERS),
        alternation(HANDING_VERBS),
    ),
    short=("pk", "sk", "pw"),
)
#: schema keywords whose strings are prose for a reader
_PROSE_KEYWORDS = ("description", "title", "$comment")
#: schema keywords whose values are data a model copies (their strings are cleaned too)
_VALUE_KEYWORDS = ("enum", "const", "default", "examples")
#: schema keywords left as they are: what a call must send (patterns, names, types) and
#: references; a definition hiding text in one is refused where it is parsed
#: (:func:`contract_hidden_in`)
_STRUCTURAL_KEYWORDS = (
    "pattern",
    "$ref",
    "$id",
    "$schema",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "type",
    "required",
    "dependentRequired",
)
#: phrases one warning quotes at most
MAX_QUOTED = 3
#: JSON Schema 2020-12's keywords and type names: words that hold neither markup nor a
#: phrase, so the checks skip them (most keys of a schema are one of them)
SCHEMA_WORDS = frozenset(
    (
        "$anchor $comment $defs $dynamicAnchor $dynamicRef $id $ref $schema "
        "$vocabulary additionalProperties allOf anyOf array boolean const contains "
        "contentEncoding contentMediaType contentSchema default definitions "
        "dependentRequired dependentSchemas deprecated description else enum examples "
        "exclusiveMaximum exclusiveMinimum format if integer items maxContains maximum "
        "maxItems maxLength maxProperties minContains minimum minItems minLength "
        "minProperties multipleOf not null number object oneOf pattern "
        "patternProperties prefixItems properties propertyNames readOnly required "
        "string then title type unevaluatedItems unevaluatedProperties uniqueItems "
        "writeOnly"
    ).split()
)


def cut_marker(more: int) -> str:
    """The words that end a cut text.

    :param more: characters left out.
    :return: ``"… (cut: 1,234 more characters)"`` (no ``[``: :func:`inert_markup`
        leaves it as it is, so cleaning twice changes nothing).
    """
    return f"… (cut: {more:,} more characters)"


def render_hidden_kinds(text: str) -> Tuple[str, ...]:
    """What markup of a text hides text when rendered (:meth:`.markup.Markup.kinds`).

    :param text: any text (invisible characters are dropped first).
    :return: the kinds found (e.g. ``markup.RAW_HTML``); () for none.
    """
    return MARKUP.kinds(strip_invisible(text))


def inert_markup(text: str) -> str:
    """The text with no markup a renderer would interpret (:meth:`.markup.Markup.inert`).

    Nothing is removed: HTML, images, link titles and definitions, TeX commands and
    references to invisible characters are shown as the characters they are written
    with, to a person in any renderer and to a model alike. Idempotent.

    :param text: text cleaned of invisible characters (:func:`strip_invisible`).
    :return: ``<`` before a tag character as ``&lt;``, every ``[`` as ``&#91;``, an
        escaping backslash as its look-alike U+29F5, a reference to an invisible character with its
        ``&`` as ``&amp;``.
    """
    return MARKUP.inert(text)


def hidden_in(value: Any, limit: int = 5) -> Tuple[str, ...]:
    """Where a JSON value hides characters (:func:`.hidden_characters.hides_characters`).

    What :func:`schema_for_model` keeps as the mech's contract (property names,
    ``pattern``, ``format``, ``enum`` object keys, unknown keywords) is not cleaned, since
    changing it would change what a call must send; a definition that still hides text
    there is refused by whoever serves it to a model (the MCP server).

    Linear in the value's size: a pointer is spelled only when reported (one built for
    every item would copy its parents' keys, a long key over many items: adv29l).

    :param value: a JSON value (e.g. an MCP Tool as served).
    :param limit: pointers reported at most.
    :return: JSON pointers of the strings and keys holding any, at most ``limit``.
    """
    found: List[str] = []
    stack: List[Tuple[Place, Any]] = [(None, value)]
    while stack and len(found) < limit:
        where, node = stack.pop()
        if isinstance(node, str):
            if hidden_characters.hides_characters(node):
                found.append(pointer_of(where))
        elif isinstance(node, dict):
            for key, item in node.items():
                if isinstance(key, str) and hidden_characters.hides_characters(key):
                    found.append(pointer_of((where, key)))
                stack.append(((where, key), item))
        elif isinstance(node, list):
            stack.extend(((where, i), item) for i, item in enumerate(node))
    return tuple(found[:limit])


#: where a node of a JSON value is, as its parent's place and its key or index (None:
#: the root): linked, so a node's place costs one pair whatever its depth
Place = Optional[Tuple[Any, Any]]


def pointer_of(place: Place) -> str:
    """A node's JSON pointer (RFC 6901's shape, keys as written, not escaped).

    :param place: the node's :data:`Place`.
    :return: e.g. ``/a/0/b``; ``/`` for the root.
    """
    parts: List[str] = []
    while place is not None:
        place, key = place
        parts.append(str(key))
    return "/" + "/".join(reversed(parts))


def capped(text: str, cap: int = MAX_TEXT_CHARS) -> str:
    """Cut a text to ``cap`` characters, saying how many were left out.

    :param text: cleaned text.
    :param cap: characters at most, the marker included (at least the marker's length).
    :return: the text when it fits; else its start and :func:`cut_marker`, ``cap``
        characters at most.
    """
    if len(text) <= cap:
        return text
    keep = max(cap - len(cut_marker(len(text))), 0)
    return text[:keep] + cut_marker(len(text) - keep)


def for_model(text: str, cap: int = MAX_TEXT_CHARS) -> str:
    """A text as a model may read it: cleaned, then capped. Idempotent.

    :param text: text from a manifest.
    :param cap: characters at most (:data:`MAX_TEXT_CHARS`, or :data:`MAX_LABEL_CHARS`
        for a name or title).
    :return: :func:`capped` of :func:`inert_markup` of :func:`.stacked_marks.marks_cut`
        of :func:`strip_invisible`.
    """
    return capped(inert_markup(marks_cut(strip_invisible(text))), cap)


def for_person(text: str, cap: int = MAX_TEXT_CHARS) -> str:
    """A text as a surface that never renders markup shows it to a person: cleaned, capped.

    For a terminal table (a :class:`rich.text.Text`, never read as console markup) or a
    page's text node: nothing there interprets ``[``, ``<`` or a backslash, so the
    character references of :func:`inert_markup` would only garble what a person reads
    (``list&#91;dict]``). Invisible and control characters (ANSI escapes start with one)
    are removed, stacked combining marks cut, and the text is capped exactly as
    :func:`for_model` does.

    :param text: text from a manifest.
    :param cap: characters at most (as :func:`for_model`).
    :return: :func:`capped` of :func:`.stacked_marks.marks_cut` of
        :func:`strip_invisible`.
    """
    return capped(marks_cut(strip_invisible(text)), cap)


def label_for_person(text: str) -> str:
    """A name or title as :func:`for_person` shows it.

    :param text: a tool name, a mech name, a title.
    :return: :func:`for_person` capped at :data:`MAX_LABEL_CHARS`.
    """
    return for_person(text, MAX_LABEL_CHARS)


def value_for_model(text: str) -> str:
    """A string a model copies into a call (an enum value, a default): cleaned, capped.

    Markup is left as it is: a value is data shown as JSON, not rendered, and rewriting
    ``[`` or ``<`` would make the model send another value than the mech's schema
    allows. Markup in it is still flagged (:func:`tool_text_problems`).

    :param text: a string value from a manifest.
    :return: :func:`capped` of :func:`.stacked_marks.marks_cut` of
        :func:`strip_invisible`.
    """
    return capped(marks_cut(strip_invisible(text)), MAX_TEXT_CHARS)


def label_for_model(text: str) -> str:
    """A name or title as a model may read it.

    :param text: a tool name, a mech name, a title.
    :return: :func:`for_model` capped at :data:`MAX_LABEL_CHARS`.
    """
    return for_model(text, MAX_LABEL_CHARS)


def values_for_model(value: Any) -> Any:
    """A JSON value with every string in it :func:`value_for_model`, keys cleaned too.

    A key is data as its value is (an object in an ``enum`` or a ``default``, a tool's
    unknown field): its invisible characters are removed as a string's are, so two keys
    that differ only by them become one, the last kept (adv29yt: keys were kept raw).

    :param value: a JSON value (an enum, default, example, unknown fields...).
    :return: a new value.
    """
    if isinstance(value, str):
        return value_for_model(value)
    if isinstance(value, list):
        return [values_for_model(v) for v in value]
    if isinstance(value, dict):
        return {strip_invisible(k): values_for_model(v) for k, v in value.items()}
    return value


def schema_for_model(schema: Any) -> Any:
    """A JSON Schema with every prose and value string cleaned and capped.

    Descriptions, titles and comments go through :func:`.payees.prose_for_model`; every
    other string (``format``, ``contentEncoding``, ``contentMediaType``, in ``enum``,
    ``const``, ``default`` and ``examples``, an unknown keyword's) through
    :func:`value_for_model` (adv29yt: a ``format`` of ``"date"`` and tag characters was
    served raw). Kept as they are: keys (property names, keywords), and the
    :data:`_STRUCTURAL_KEYWORDS` (``pattern``, ``required``, ``type``, references): they
    are what a call must send, so a schema hiding text there is refused at parse
    (:func:`contract_hidden_in`).

    :param schema: a JSON Schema (not modified).
    :return: a new schema.
    """
    if isinstance(schema, str):  # an unknown keyword's value, or a string inside one
        return value_for_model(schema)
    if isinstance(schema, list):
        return [schema_for_model(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out: Dict[str, Any] = {}
    for key, value in schema.items():
        if key in _PROSE_KEYWORDS and isinstance(value, str):
            out[key] = prose_for_model(value, MAX_TEXT_CHARS)
        elif key in _VALUE_KEYWORDS:
            out[key] = values_for_model(value)
        elif key in _STRUCTURAL_KEYWORDS:
            out[key] = value
        elif key in ("properties", "patternProperties", "$defs", "definitions"):
            out[key] = (
                {k: schema_for_model(v) for k, v in value.items()}
                if isinstance(value, dict)
                else value
            )
        else:
            out[key] = schema_for_model(value)
    return out


def contract_hidden_in(schema_text: str) -> Tuple[str, ...]:
    """Where a schema hides text that :func:`schema_for_model` cannot clean.

    A schema's key (a property name, a keyword) or a :data:`_STRUCTURAL_KEYWORDS`
    string holding an invisible character is what a call
    must send or how the schema reads: cleaning it would change the contract, serving it
    would show a model text a person cannot see (adv29yt). The parser refuses such a
    schema, so no surface serves it.

    :param schema_text: canonical JSON text of a schema (non-ASCII written as itself).
    :return: the JSON pointers (:func:`hidden_in`, at most 5), empty when the text holds
        no invisible character at all (one scan of the text) or only where cleaning
        removes it.
    """
    if not _INVISIBLE.search(schema_text):
        return ()
    return hidden_in(schema_for_model(decode(schema_text)))


def _cleaned_json(text: str, clean: Any) -> str:
    """Canonical JSON text cleaned by ``clean``.

    :param text: canonical JSON text.
    :param clean: :func:`schema_for_model` or :func:`values_for_model`.
    :return: the cleaned canonical text.
    """
    return canonical_text(clean(decode(text)))


def _argument_for_model(argument: Argument) -> Argument:
    default = argument.default_json
    return replace(
        argument,
        description=prose_for_model(argument.description),
        schema_json=_cleaned_json(argument.schema_json, schema_for_model),
        default_json=(
            None if default is None else _cleaned_json(default, values_for_model)
        ),
    )


def tool_for_model(tool: Tool) -> Tool:
    """The tool as exporters and views show it: every text field :func:`for_model`.

    The name is kept (it is what a request sends; exporters show it through
    :func:`label_for_model` or their own name rules). JSON nested deeper than Python
    walks raises RecursionError (as :func:`.exporters.schemas.call_schema` does; the
    MCP exporter then serves the tool as free text).

    :param tool: a tool from the catalogue.
    :return: a copy whose descriptions, argument texts and schemas, output schema,
        examples and unknown fields (``extra``) are cleaned and capped, payees withheld
        (:mod:`.payees`), flagged text withheld (:func:`.withheld_text.withheld_tool`).
    """
    output = tool.output_schema_json
    examples = (_cleaned_json(e, values_for_model) for e in tool.examples_json)
    # pylint: disable-next=import-outside-toplevel,cyclic-import
    from mech_catalogue_core.model.withheld_text import withheld_tool

    cleaned = replace(
        tool,
        description=prose_for_model(tool.description),
        arguments=tuple(_argument_for_model(a) for a in tool.arguments),
        input_description=prose_for_model(tool.input_description),
        output_description=prose_for_model(tool.output_description),
        output_schema_json=(
            None if output is None else _cleaned_json(output, schema_for_model)
        ),
        examples_json=tuple(examples),
        extra_json=_cleaned_json(tool.extra_json, values_for_model),
    )
    return withheld_tool(cleaned)


def readings(text: str, spelled: bool = True) -> Tuple[str, ...]:
    """The forms of a text the word checks read: as written, rendered, and read through.

    A person reads a text rendered and a model reads through its markup and character
    references (adv29o), so a phrase spelled apart in one form is read in another:
    :func:`.rendered_text.plain_readings` gives the rendered form (markup removed, so
    words either side join) and the source read through (references decoded, nothing
    removed, so words inside a comment, an attribute or a link's target count: adv29s);
    :func:`.rendered_text.shown_readings` adds what a person's renderer shows of the
    source as written (escaped markup stays text) and the source with every tag
    removed as nothing, unparsed (words an empty tag joins read joined at any nesting,
    in any renderer's syntax: adv29x); :func:`.rendered_text.hidden_parts_joined` what
    HTML hides from a person (comments, instructions, attributes), tags inside removed
    as nothing (``<!-- pri<b></b>vate key -->``: fix29ya).

    :func:`.rendered_text.laid_out_readings` adds, where a tag may hide its content,
    the source without what a browser lays out as nothing (an element ``hidden`` or
    styled, ``rp``, ``datalist``, ``audio``...: adv29yt). Each is read once more with
    words spelled apart joined (:func:`.spelled_words.spelled_readings`: ``P.I.N.``).
    Each form is read too with a duty said by denying its opposite written as the
    order (:func:`.duty_readings.duty_reading`: "do not forget to send" as "send").

    :param text: text from a manifest or an answer.
    :param spelled: whether to add the forms with words spelled apart joined.
    :return: ``(text,)``, then each of the others that differs, distinct.
    """
    forms: Tuple[str, ...] = (text,)
    if may_differ(text):  # a reference, markup or a non-ASCII character
        through, rendered, as_written, joined = shown_readings(text, _INVISIBLE)
        hidden = hidden_parts_joined(text, _INVISIBLE)
        forms = (text, rendered, through, as_written, joined, hidden)
        forms += laid_out_readings(text, _INVISIBLE)
    # a duty said by denying its opposite, read as the order (adv29zw2)
    forms = tuple(dict.fromkeys(forms + tuple(map(duty_reading, forms))))
    if not spelled:
        return forms
    return tuple(dict.fromkeys(forms + spelled_readings(forms, CHECKED_WORDS)))


def phrase_sources(text: str) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """The forms of a text the phrase checks read: ``(as written, as letters read)``.

    :param text: text from a stranger.
    :return: its readings and its tag characters' text (for the other languages'
        matchers), then those, folded and with ASCII look-alikes read (for English).
    """
    sources = list(readings(text))
    if _TAG_TEXT.search(text):  # decoded only when there are tag characters
        sources.append(hidden_tag_text(text))
    folds = [folded(source) for source in sources]
    looked = [ascii_lookalikes_read(fold) for fold in folds]
    return tuple(sources), tuple(dict.fromkeys(sources + folds + looked))


@bounded_memo(8192, 8192, key=digest_key)  # a tool's checks and its withholding
def instruction_phrases(text: str) -> Tuple[str, ...]:
    """Phrases of a text that address a model (:data:`INSTRUCTION_PATTERNS`).

    Read in every form of :func:`readings` (as written and as rendered), in what its
    tag characters spell, and each of those :func:`folded` (look-alike letters read as
    the ASCII letter a person sees: adv29o), then with its ASCII look-alikes read as
    letters (:func:`.letter_forms.ascii_lookalikes_read`: ``lGNORE``, adv29yt); and
    each form as written in the other languages (:func:`.other_languages.instruction_phrases`).

    :param text: text from a manifest.
    :return: the distinct phrases found, lowercase, in order.
    """
    if not text:
        return ()
    sources, letters_read = phrase_sources(text)
    others = [
        p for source in sources for p in other_languages.instruction_phrases(source)
    ]
    found = [
        m.group(0).lower()
        for source in letters_read
        for words in word_readings(source)
        for m in _INSTRUCTION.finditer(words)
    ]
    # an English phrase is also a Romance language's by its stems (``ignore previous
    # instructions``): the other languages' are quoted when no English one is
    return tuple(dict.fromkeys(found or others))


def _letters_read(reading: str) -> Tuple[str, ...]:
    """A reading as its letters are read: as it is, and its ASCII look-alikes read.

    :param reading: a reading, folded or with other scripts' words kept.
    :return: ``(reading,)``, and :func:`.letter_forms.ascii_lookalikes_read` of it
        when that differs.
    """
    looked = ascii_lookalikes_read(reading)
    return (reading,) if looked == reading else (reading, looked)


def secret_asked(text: str) -> Optional[str]:
    """What secret a name or description asks for, if any.

    Each of the text's :func:`readings` (as written, rendered and read through) is read
    :func:`folded`, and with its ASCII look-alikes read as letters
    (:func:`_letters_read`: ``PRlVATE``, ``PASSW0RD``, adv29yt), for
    :data:`SECRET_PATTERN`, whole for :data:`.secret_vocabulary.SECRET_NAME_PATTERN`
    (``passwd``, ``sk``), then as written for the other languages' terms
    (:func:`.other_languages.secret_named`, which folds its own way); a short word that
    is also an ordinary word or symbol asks only as :func:`short_secret_asked` says.

    :param text: an argument name or description.
    :return: the words that ask (lowercase), or None.
    """
    forms = readings(text)
    short = False
    for reading, words in (
        (read, words)
        for form in forms
        for read in _letters_read(folded(form))
        for words in word_readings(read)
    ):
        match = SECRET_PATTERN.search(words) or SECRET_NAME_PATTERN.fullmatch(words)
        if match:
            return match.group(0).lower()
        # short_secret_asked reads less (marks spaced, other scripts kept), so it can
        # find only what these words hold: it runs only when they hold one
        # (a text of other scripts may part the words a look-alike reading joins)
        short = short or bool(
            SECRET_NAME.fullmatch(words)
            or SHORT_WORD_FORM.search(words)  # cheap: most texts hold none
            and (not reading.isascii() or QUALIFIED_SECRET_PATTERN.search(words))
        )
    other = next(filter(None, map(other_languages.secret_named, forms)), None)
    if other:
        return other
    return short_secret_asked(text, forms) if short else None


def secret_name_asked(name: str) -> Optional[str]:
    """What secret an argument's (or a property's) name asks for, if any.

    As :func:`secret_asked`, and a name whose letters, each read as the Latin letter it
    looks like (:func:`folded`), spell a :data:`SECRET_NAME` asks: a name is an
    identifier, read as the word its letters draw whatever their script (an argument
    called ``ΡΚ`` in Greek capitals asks as ``pk`` does; fix29ya).

    :param name: an argument or property name.
    :return: the words that ask (lowercase), or None.
    """
    asked = secret_asked(name)
    if asked or (name.isascii() and "&" not in name):
        return asked  # an ASCII name without references: secret_asked read its letters
    for reading in readings(expression_marks_spaced(name)):
        for words in word_readings(folded(reading)):
            if SECRET_NAME.fullmatch(words) or SECRET_NAME_PATTERN.fullmatch(words):
                return words.lower()
    return None


def short_secret_asked(
    text: str, forms: Optional[Tuple[str, ...]] = None
) -> Optional[str]:
    """What secret a text asks for with a short word (:data:`SHORT_SECRET_WORD`).

    A short word asks with the words that make it a secret, read within its clause
    (:func:`.short_secret_words.short_word_asks`): always with what it belongs to
    (``card PIN``) or a verb asking for the reader's own (``Enter your PIN to see the
    map``); with whose it is, a verb that asks or its digits (``your PIN``, ``type the
    PIN``) unless the words around that very word make it a board's, a map's, a postal
    address's, a table's or a setting's (``the pin number of the GPIO line``); or alone
    as a whole name (:data:`SECRET_NAME`: an argument called ``pk``). It must be a word
    as a person reads it, not letters of an expression joined by dropping its marks
    (:func:`expression_marks_spaced`: ``p_k``, ``p*k``), nor a word of another script
    that folds to it where the text around is that script
    (:func:`.letter_forms.other_script_words_kept`: ``Столица РК``, the Cherokee
    ``ᏢᏦ``); the words that make it a secret are also read with every look-alike word
    as Latin (:func:`.letter_forms.look_alike_words_folded`: ``Enter your ΛΑΙ ΡΙΝ``).

    :param text: an argument name or description.
    :param forms: the text's :func:`readings`, when already read.
    :return: the words that ask (lowercase), or None.
    """
    spaced = expression_marks_spaced(text)
    if spaced != text:
        forms = readings(spaced, spelled=False)
        forms += spelled_apart_of(text, spaced, CHECKED_WORDS)
    elif forms is None:
        forms = readings(text)
    for reading in forms:
        kept = other_script_words_kept(reading)
        for words in (w for r in _letters_read(kept) for w in clause_word_readings(r)):
            asked = short_word_asks(words)
            if asked:
                return asked
            if SECRET_NAME.fullmatch(words):
                return words.lower()
        if reading.isascii():
            continue
        kept_words = clause_word_readings(kept)
        for look_alikes in clause_word_readings(look_alike_words_folded(reading)):
            if look_alikes not in kept_words:
                asked = short_word_asks(look_alikes)
                if asked:
                    return asked
    return None


def json_texts(value: Any, where: Place = None) -> Iterator[Tuple[Place, str]]:
    """Every string of a JSON value and every key of its objects, with its place.

    Everything a served definition holds reaches a model, so everything is read: what
    :func:`schema_for_model` keeps as the mech's contract (``pattern``, ``format``,
    ``$ref``, ``type``...), unknown keywords, and the keys of objects inside ``enum``,
    ``const``, ``default`` and ``examples`` values as much as descriptions (adv29o).
    Iterative, linear in the value: a place is a linked pair, spelled only when
    reported (:func:`pointer_of`).

    :param value: a JSON value (a schema, a default, an example).
    :param where: the value's own :data:`Place`.
    :yield: ``(place, text)``; a key is given at the place of its value.
    """
    stack: List[Tuple[Place, Any]] = [(where, value)]
    while stack:
        at, node = stack.pop()
        if isinstance(node, str):
            yield at, node
        elif isinstance(node, dict):
            for key, item in node.items():
                yield (at, key), str(key)
                stack.append(((at, key), item))
        elif isinstance(node, list):
            stack.extend(((at, i), item) for i, item in enumerate(node))


def _place(*keys: Any) -> Place:
    """The :data:`Place` of a path of keys from the root."""
    place: Place = None
    for key in keys:
        place = (place, key)
    return place


def _key_of(place: Place) -> Any:
    """The last key of a place (None for the root)."""
    return None if place is None else place[1]


def _decoded(text: Optional[str]) -> Any:
    """Decode canonical JSON text; None when absent or nested too deeply to decode.

    :param text: canonical JSON text, or None.
    :return: the value, or None.
    """
    try:
        return None if text is None else decode(text)
    except RecursionError:
        return None


def tool_texts(tool: Tool) -> Iterator[Tuple[Place, str]]:
    """Every (place, text) of a tool that reaches a model: every string and key of it.

    Names, descriptions, types and kind, and every string and key of its argument
    schemas and defaults, output schema, examples and unknown fields (``extra``, which
    ``GET /tools`` serves).

    A schema, default or example nested too deeply to decode is skipped (exporters do
    not show it either).

    :param tool: a tool.
    :yield: (a :data:`Place` whose :func:`pointer_of` is e.g. ``/description`` or
        ``/arguments/city/schema/pattern``, text).
    """
    yield _place("name"), tool.name
    yield _place("description"), tool.description
    yield _place("kind"), tool.kind
    yield _place("input", "description"), tool.input_description
    yield _place("input", "type"), tool.input_type
    yield _place("output", "description"), tool.output_description
    yield _place("output", "type"), tool.output_type
    for argument in tool.arguments:
        at = _place("arguments", argument.identifier)
        yield at, argument.identifier
        yield (at, "description"), argument.description
        yield from json_texts(_decoded(argument.schema_json), (at, "schema"))
        yield from json_texts(_decoded(argument.default_json), (at, "default"))
    yield from json_texts(_decoded(tool.output_schema_json), _place("output", "schema"))
    for index, example in enumerate(tool.examples_json):
        yield from json_texts(_decoded(example), _place("examples", index))
    yield from json_texts(_decoded(tool.extra_json), _place("extra"))


def secret_arguments(input_schema: Any) -> Tuple[Tuple[str, str], ...]:
    """The arguments of an input schema that ask for a secret.

    An argument asks when its name or a property name anywhere in its schema asks
    (:func:`secret_name_asked`: read as the word its letters draw too; a short name its
    own prose glosses as an ordinary thing does not:
    :func:`.short_secret_words.name_glossed_as_ordinary`, ``pks`` of "Primary keys of
    the rows"), or a
    description or title anywhere in it does (:func:`secret_asked`: as written, as
    rendered and read through).
    Works on the MCP Tool's ``inputSchema`` as served (the MCP server's check) and on
    :meth:`.tool.Tool.input_schema` (the catalogue's).

    :param input_schema: an object schema with ``properties``.
    :return: (argument name, the words that ask) per asking argument, in order.
    """
    properties = (
        input_schema.get("properties") if isinstance(input_schema, dict) else None
    )
    if not isinstance(properties, dict):
        return ()
    found: List[Tuple[str, str]] = []
    for name, schema in properties.items():
        names = [str(name)]
        prose = []
        for at, text in json_texts(schema):
            if _key_of(None if at is None else at[0]) == "properties":
                names.append(text)
            elif _key_of(at) in ("description", "title"):
                prose.append(text)
        asked = next((s for s in map(secret_name_asked, names) if s), None) or next(
            (s for s in map(secret_asked, prose) if s), None
        )
        if asked and name_glossed_as_ordinary(asked, prose):
            asked = next((s for s in map(secret_asked, prose) if s), None)
        if asked:
            found.append((str(name), asked))
    return tuple(found)


def _quoted(texts: Sequence[str], count: Optional[int] = None) -> str:
    shown = ", ".join(repr(t) for t in texts[:MAX_QUOTED])
    more = (len(texts) if count is None else count) - MAX_QUOTED
    return shown + (f" and {more} more" if more > 0 else "")


def tool_text_problems(tool: Tool) -> Tuple[Problem, ...]:
    """The warnings about one tool's text (at most one of each code).

    :param tool: a tool as parsed (its text as published).
    :return: :data:`.problems.INVISIBLE_TEXT` (fields holding invisible characters,
        markup hiding text or combining marks :func:`.stacked_marks.marks_cut` cuts),
        :data:`.problems.INSTRUCTION_LIKE_TEXT` (phrases that address a model) and
        :data:`.problems.SECRET_ARGUMENT` (arguments that ask for a secret, a field
        at a time or their name, title and description read together:
        :func:`.secret_requests.every_secret_argument`) and
        :data:`.problems.SECRET_REQUEST` (its other text asks for one:
        :func:`.secret_requests.secret_request_problem`) warnings, in that order,
        each naming the tool and what to do.
    """
    hiding: Dict[Place, None] = {}
    phrases: List[str] = []
    # a tool repeats its keys and short strings ("type", "string"): each read once
    read: Dict[str, Tuple[bool, Tuple[str, ...]]] = {}
    for place, text in tool_texts(tool):
        if not text or text in SCHEMA_WORDS:
            continue
        if text not in read:
            hides = bool(
                _INVISIBLE.search(text)
                or render_hidden_kinds(strip_invisible(text))
                or has_marks_to_cut(strip_invisible(text))
            )
            read[text] = (hides, instruction_phrases(text))
        hides, found = read[text]
        if hides:
            hiding[place] = None
        phrases.extend(found)
    invisible = [pointer_of(p)[1:] for p in list(hiding)[:MAX_QUOTED]]
    name = ascii(label_for_model(tool.name))
    problems = []
    if invisible:
        problems.append(
            warning(
                INVISIBLE_TEXT,
                f"tool {name}: {len(hiding)} text field(s) hold invisible or control "
                "characters, markup that hides text when rendered (raw HTML, images, "
                "link titles, links without text, link definitions, references to "
                "invisible characters), or combining marks drawn over other text "
                f"(more than {MAX_MARKS_PER_BASE} on one character, one repeated, or "
                "on no visible character) "
                f"({_quoted(invisible, len(hiding))}); invisible characters are "
                "removed, markup is shown as plain text and marks past those are cut "
                "wherever the text is shown to a model. Publish visible plain text "
                "only.",
            )
        )
    # the secret and order checks read this module's: imported here, not at its top
    # pylint: disable-next=import-outside-toplevel,cyclic-import
    from mech_catalogue_core.model import secret_requests, withheld_text

    # what the name and the payments add: the MCP server does not offer the tool
    refused_said = (
        withheld_text.NAME_ORDERS_SAID
        if withheld_text.name_placeholder(tool.name)
        else ""
    ) + _payments_said(tuple(read), phrases)
    if phrases or refused_said:
        distinct = [payees_withheld(p) for p in dict.fromkeys(phrases)]
        problems.append(
            warning(
                INSTRUCTION_LIKE_TEXT,
                f"tool {name}: its text reads like instructions to a model"
                f"{f' ({_quoted(distinct)})' if distinct else ''}; it is shown as the "
                "mech's untrusted description. "
                + refused_said
                + "Describe what the tool does, not what the reader must do.",
            )
        )

    asking = secret_requests.every_secret_argument(
        {
            "properties": {
                a.identifier: {
                    **(_decoded(a.schema_json) or {}),
                    "description": a.description,
                }
                for a in tool.arguments
            }
        }
    )
    if asking:
        problems.append(
            warning(
                SECRET_ARGUMENT,
                f"tool {name}: argument(s) ask for a secret "
                f"({_quoted([f'{a} ({s})' for a, s in asking])}); the MCP server does "
                "not offer the tool. A mech never needs its caller's secrets: remove them.",
            )
        )
    request = secret_requests.secret_request_problem(tool)
    return tuple(problems) + ((request,) if request else ())


def _payments_said(texts: Tuple[str, ...], phrases: List[str]) -> str:
    """Add what the MCP server refuses as a payment put on a model to ``phrases``.

    :param texts: a tool's texts (:func:`.assistant_duties.payments_put_on_model`).
    :param phrases: the instruction phrases found (extended in place).
    :return: :data:`.assistant_duties.PAYMENT_ORDERS_SAID` when any, else "".
    """
    # pylint: disable-next=import-outside-toplevel,cyclic-import
    from mech_catalogue_core.model import assistant_duties

    found = assistant_duties.payments_put_on_model(texts)
    phrases.extend(found)
    return assistant_duties.PAYMENT_ORDERS_SAID if found else ""


def tools_text_problems(tools: Sequence[Tool]) -> Tuple[Problem, ...]:
    """The text warnings of a manifest's tools (:func:`tool_text_problems` of each).

    :param tools: the manifest's offered tools.
    :return: the warnings, tool by tool in manifest order.
    """
    return tuple(p for tool in tools for p in tool_text_problems(tool))


#: text warnings that stop a manifest from being published: the MCP server refuses a
#: tool whose text asks for a secret, so no agent would ever be offered it
UNPUBLISHABLE_CODES: Tuple[str, ...] = (SECRET_ARGUMENT, SECRET_REQUEST)


def publish_refusals(problems: Sequence[Problem]) -> Tuple[Problem, ...]:
    """The text warnings that stop a manifest from being published, as errors.

    :param problems: a manifest's problems (e.g. :func:`tools_text_problems` of its tools).
    :return: each one whose code is in :data:`UNPUBLISHABLE_CODES`, with severity
        ``error`` and its message (which names the tool, the arguments and what to
        remove) kept.
    """
    return tuple(
        replace(p, severity=SEVERITY_ERROR)
        for p in problems
        if p.code in UNPUBLISHABLE_CODES
    )
