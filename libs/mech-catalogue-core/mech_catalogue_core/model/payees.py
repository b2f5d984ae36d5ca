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

"""Payees a stranger wrote: found in any text, withheld from a tool's prose (adv29zu2).

A payment put on a model needs someone to pay. Phrase lists lose the race against the
grammar that puts it there (a passive, a noun, another verb, the address in another
field: adv29zu2), so the payee itself is what never reaches a model in a tool's prose:
:func:`payees_withheld` replaces each by :data:`ADDRESS_PLACEHOLDER`. A payee is:

- an EVM address: ``0x`` and 40 hexadecimal digits (EIP-55 mixed case too), or 40
  such digits standing alone as a word; after ``0x`` one separator (space, ``-``,
  ``_``, ``.``, ``:``) may stand between digits (``0xabab abab ...``);
- an ENS name (``name.eth``, subdomains too: ENS's ``.eth`` names);
- a bech32 address (BIP-173: a lowercase or uppercase human part, ``1``, 38 or more
  data characters: ``bc1q...``, ``tb1...``, ``ltc1...``, ``cosmos1...``);
- a base58 address (Bitcoin's legacy, Solana's, Tron's): 25 to 44 characters of the
  base58 alphabet, with a digit, a capital and a small letter.

Each is read with look-alike letters folded (:func:`.letter_forms.folded`: a Cyrillic
``а``, a full-width ``０``) and, for hexadecimal, the letters a person reads as digits
(``O`` and ``o`` as ``0``; ``l``, ``I``, ``i`` and ``|`` as ``1``); invisible
characters and combining marks inside one are skipped (they are removed before a model
reads it anyway). Structural text (an ``enum`` value, a property name, a tool's name)
keeps its payee: the MCP server refuses such a tool when its text speaks of paying
(``definition_checks.payee_refusal``).
"""

import re
from typing import List, Optional, Tuple

from mech_catalogue_core.model.hidden_characters import INVISIBLE
from mech_catalogue_core.model.letter_forms import folded

#: what replaces a payee in a tool's prose
ADDRESS_PLACEHOLDER = "(withheld by this server: an address)"
#: the placeholder as clause words read it (``short_secret_words.words_of``)
ADDRESS_PLACEHOLDER_WORDS = "withheld by this server an address"

_HEX = r"[0-9a-fA-FOoIil|]"
_SEPARATOR = r"[ \-_.:]"
#: an EVM address: ``0x`` and 40 digits (a separator allowed between two), or 40
#: digits alone; never a longer run (a hash)
_EVM = (
    rf"(?<![0-9A-Za-z|])[0Oo][xX](?:{_SEPARATOR}?{_HEX}){{39}}{_HEX}(?![0-9A-Za-z|])"
    r"|(?<![0-9A-Za-z|])[0-9a-fA-F]{40}(?![0-9A-Za-z])"
)
#: an ENS name: labels of letters, digits and hyphens, then ``.eth`` ending the word
_ENS = r"(?<![0-9A-Za-z.-])(?:[0-9A-Za-z-]+\.)+[eE][tT][hH](?![0-9A-Za-z-])"
#: a bech32 address (BIP-173 data alphabet), all small or all capital letters
_BECH32 = (
    r"(?<![0-9A-Za-z])(?:[a-z]{1,16}1[02-9ac-hj-np-z]{38,90}"
    r"|[A-Z]{1,16}1[02-9AC-HJ-NP-Z]{38,90})(?![0-9A-Za-z])"
)
#: a base58 address: a digit, a capital and a small letter among 25 to 44 characters
_BASE58 = (
    r"(?<![0-9A-Za-z])(?=[1-9A-HJ-NP-Za-km-z]*[1-9])(?=[1-9A-HJ-NP-Za-km-z]*[A-Z])"
    r"(?=[1-9A-HJ-NP-Za-km-z]*[a-z])[1-9A-HJ-NP-Za-km-z]{25,44}(?![0-9A-Za-z])"
)
_PAYEE = re.compile(f"{_EVM}|{_ENS}|{_BECH32}|{_BASE58}")
#: characters a payee may have: a text without any is read at once
_MAY_HOLD = re.compile(r"[0-9A-Za-z|]{25}|[xX][ \-_.:]?[0-9a-fA-F]|\.[eE][tT][hH]")


def _skeleton(text: str) -> Tuple[str, List[int]]:
    """The text as its letters are read, and where each read character was written.

    :param text: any text.
    :return: the folded text without invisible characters or combining marks, and
        for each of its characters the index of the written character it comes from.
    """
    read: List[str] = []
    origin: List[int] = []
    for index, char in enumerate(text):
        if INVISIBLE.match(char):
            continue
        letters = char if char.isascii() else folded(char)
        read.append(letters)
        origin.extend([index] * len(letters))
    return "".join(read), origin


def payee_spans(text: str) -> Tuple[Tuple[int, int], ...]:
    """Where a text holds a payee (see the module's description).

    :param text: any text.
    :return: ``(start, end)`` of each payee in ``text`` as written, in order, not
        overlapping; () when none. Linear.
    """
    if text.isascii():
        if not _MAY_HOLD.search(text):
            return ()
        return tuple(m.span() for m in _PAYEE.finditer(text) if _is_payee(m.group(0)))
    if not _MAY_HOLD.search(folded(INVISIBLE.sub("", text))):  # a fold is quick
        return ()
    read, origin = _skeleton(text)
    return tuple(
        (origin[m.start()], origin[m.end() - 1] + 1)
        for m in _PAYEE.finditer(read)
        if _is_payee(m.group(0))
    )


def _is_payee(found: str) -> bool:
    """Whether a match is a payee: it starts with ``0x``, or holds a digit or a dot.

    :param found: a :data:`_PAYEE` match's text (a run of 40 of the letters ``a`` to
        ``f`` alone is no address).
    :return: True for a payee.
    """
    return found[1:2] in ("x", "X") or "." in found or any(c.isdigit() for c in found)


def payees_in(text: str) -> Tuple[str, ...]:
    """The payees a text holds, as written.

    :param text: any text.
    :return: each payee (:func:`payee_spans`), in order; () when none.
    """
    return tuple(text[start:end] for start, end in payee_spans(text))


def payees_withheld(text: str) -> str:
    """A text with each payee replaced by :data:`ADDRESS_PLACEHOLDER`. Idempotent.

    :param text: prose from a stranger (a description, a title, a default).
    :return: the text, each payee replaced; ``text`` itself when it holds none.
    """
    spans = payee_spans(text)
    if not spans:
        return text
    kept: List[str] = []
    done = 0
    for start, end in spans:
        kept += [text[done:start], ADDRESS_PLACEHOLDER]
        done = end
    kept.append(text[done:])
    return "".join(kept)


def holds_payee(text: str) -> bool:
    """Whether a text holds a payee, or the placeholder of one withheld.

    :param text: any text (a served definition's string or key).
    :return: True when it does.
    """
    return ADDRESS_PLACEHOLDER in text or bool(payee_spans(text))


def prose_for_model(text: str, cap: Optional[int] = None) -> str:
    """A stranger's prose as a model may read it: its payees withheld, then cleaned.

    For a tool's or a mech's description and title, an argument's or a schema's prose:
    :func:`payees_withheld` (before the cap, so the cut stays said), then
    :func:`.untrusted_text.for_model`. Idempotent. Names and values a call sends are
    never read through this.

    :param text: prose from a manifest.
    :param cap: characters at most (None: ``untrusted_text.MAX_TEXT_CHARS``).
    :return: the text, its payees withheld, cleaned and capped.
    """
    # pylint: disable-next=import-outside-toplevel,cyclic-import
    from mech_catalogue_core.model.untrusted_text import for_model

    withheld = payees_withheld(text)
    return for_model(withheld) if cap is None else for_model(withheld, cap)
