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

"""Untrusted text quoted in one's own sentences and blocks, so it cannot end itself (pure)."""

import json
from typing import Any, List

from mech_catalogue_core.model.hidden_characters import PLAIN_TEXT as _PLAIN_SENTENCE
from mech_catalogue_core.model.stacked_marks import marks_cut
from mech_catalogue_core.model.untrusted_text import (
    MAX_LABEL_CHARS,
    for_model,
    inert_markup,
    strip_invisible,
)


def quoted_for_model(text: Any, cap: int = MAX_LABEL_CHARS, quote: str = "'") -> str:
    r"""Untrusted text as a sentence of one's own quotes it: as ``tools/list`` shows it.

    For a schema's pattern, enum value or property name, a JSON pointer, a mech's revert
    reason... quoted in an error, a note or a warning (adv29o). Escaped as a JSON string
    is (backslashes, both quotes, line breaks, control characters): one line ending
    where the quoting sentence says, never earlier (adv29zt Z4).

    :param text: the quoted text (any value: its ``str``).
    :param cap: characters at most (:data:`MAX_LABEL_CHARS` for a name or pointer,
        :data:`MAX_TEXT_CHARS` for a message).
    :param quote: ``'`` (as ``repr`` quotes a plain name) or ``"`` (a JSON string).
    :return: :func:`for_model` of it (cut past ``cap``), escaped, between two ``quote``:
        ``'prompt'``, ``'it\'s'``, ``'a\nb'`` (``\n`` the two characters).
    :raises ValueError: for another quote character.
    """
    if quote not in ("'", '"'):
        raise ValueError(f"quote must be ' or \", not {quote!r}")
    inner = json.dumps(for_model(str(text), cap), ensure_ascii=False)[1:-1]
    return quote + (inner.replace("'", "\\'") if quote == "'" else inner) + quote


def sentence_for_model(sentence: str) -> str:
    """A sentence of one's own, as a person and a model read it alike.

    The one pass every error, note, warning, progress message and ``_meta`` reason of
    the MCP server goes through (adv29o): whatever it quotes of a manifest or a mech
    (a jsonschema message quoting a ``pattern``, a schema path holding a property
    name) is shown as :func:`for_model` shows it, invisible characters removed and
    markup inert, even where the quotation was not made with :func:`quoted_for_model`.
    Nothing is capped here (a sentence caps what it quotes). Idempotent.

    :param sentence: the sentence composed.
    :return: :func:`inert_markup` of :func:`.stacked_marks.marks_cut` of
        :func:`strip_invisible` of it (the sentence itself when it holds no character
        these would change: :data:`_PLAIN_SENTENCE`).
    """
    if _PLAIN_SENTENCE.fullmatch(sentence):
        return sentence
    return inert_markup(marks_cut(strip_invisible(sentence)))


#: the keys under which a JSON value carries sentences of one's own (a warning's
#: ``message``, a refusal's ``reason``, a choice's ``why``)
REASON_KEYS = ("message", "reason", "why")


def reasons_for_model(value: Any) -> Any:
    """A JSON value with every sentence in it shown as ``tools/list`` shows text.

    For an MCP result's or Tool's ``_meta``: its warnings quote a manifest's field
    names, a price refusal's reason a token's symbol, which its contract chose (adv29o).

    :param value: a JSON value (changed in place).
    :return: ``value``, each string under a :data:`REASON_KEYS` key at any depth passed
        through :func:`sentence_for_model`; every other string (addresses, amounts,
        codes) as it was. Idempotent.
    """
    stack: List[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            for key, item in node.items():
                if key in REASON_KEYS and isinstance(item, str):
                    node[key] = sentence_for_model(item)
                else:
                    stack.append(item)
    return value


def quoted_lines(text: str) -> str:
    r"""Untrusted text as a block of one's own text quotes it: every line behind ``> ``.

    As e-mail quotes (and Markdown renders it as one block quote): the quotation ends
    at the first line without the mark, which only the quoting text writes, so no line
    of the quoted text can close it and speak after it, however many blank lines,
    fences or headings it holds (adv29zt Z3). Every line break Python reads
    (``str.splitlines``: ``\r``, U+2028, ...) starts a quoted line.

    :param text: the text, already cleaned for its reader (:func:`for_model`).
    :return: its lines, each ``> line`` (``>`` for a blank one), joined by ``\n``;
        "" for an empty text.
    """
    return "\n".join(f"> {line}".rstrip() for line in text.splitlines())
