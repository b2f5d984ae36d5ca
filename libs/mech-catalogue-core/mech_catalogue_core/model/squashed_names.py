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

"""A tool's name read with its separators removed (adv29zr2 4).

A name is read as words split at separators and case changes
(:func:`.withheld_text.name_placeholder`); a name written in one case without
separators (``ignorepreviousinstructions``, ``pasteyourseedphrasehere``) has no such
splits, yet a model reads it as the words it is made of. So a name's letters and digits,
lowercase, separators removed (:func:`squashed`), are matched against phrases of two
words or more with their spaces removed:

- :data:`ORDER_PHRASES`: orders to a model, funds moved, allowances given, calls repeated
  and paid again (``pay each time``, ``call twice``, ``retry and pay``);
- :data:`SECRET_NOUNS`: secrets a mech never needs; a name holding one asks for it
  whatever its verb (``wallet_mnemonic_goes_here``), unless the words after it make it
  a subject (:data:`SECRET_SUBJECTS`: ``seed-phrase-validator``, ``mnemonic-generator``).

One word is never matched alone: ``pay`` inside ``payload``, ``key`` inside
``keyvaluestore`` or ``password`` inside ``passwordstrength`` are names, not orders.
"""

import re
from typing import Optional

#: orders to a model of two words or more, matched without their spaces
ORDER_PHRASES = (
    # the frame disregarded, the model renamed or told to hide things
    "ignore previous",
    "ignore prior",
    "ignore all previous",
    "ignore your instructions",
    "ignore the above",
    "disregard previous",
    "disregard prior",
    "disregard the above",
    "forget previous",
    "forget your instructions",
    "previous instructions",
    "prior instructions",
    "system prompt",
    "you are now",
    "you must",
    "the assistant must",
    "do not tell",
    "dont tell",
    "without telling",
    "hide from the user",
    # funds moved, allowances given
    "send all funds",
    "send all your",
    "send all eth",
    "send all tokens",
    "send your funds",
    "all funds to",
    "all your funds",
    "funds to 0x",
    "eth to 0x",
    "transfer all funds",
    "transfer all your",
    "withdraw all funds",
    "drain the wallet",
    "drain wallet",
    "drain your",
    "drain all funds",
    "drain funds",
    "empty the wallet",
    "empty your wallet",
    "sweep the wallet",
    "sweep all funds",
    "approve unlimited",
    "unlimited spending",
    "unlimited allowance",
    "unlimited approval",
    "infinite approval",
    "infinite allowance",
    "set approval for all",
    # a call repeated and paid again
    "pay each time",
    "pay every time",
    "pay until",
    "pay twice",
    "pay again",
    "pay more",
    "pay extra",
    "pays twice",
    "call twice",
    "call me twice",
    "call again",
    "call it again",
    "retry and pay",
    "retry until",
    "raise your max",
    "raise the max",
    # a secret handed over
    "send me your",
    "send us your",
    "give me your",
    "reveal your",
    "print your",
    "paste your",
    "enter your",
)
#: secrets a mech never needs, matched without their spaces
SECRET_NOUNS = (
    "seed phrase",
    "seed words",
    "recovery phrase",
    "secret recovery",
    "mnemonic",
    "private key",
    "wallet key",
    "secret key",
    "wallet password",
)
#: words after a secret that make it a name's subject, not a thing asked for
SECRET_SUBJECTS = (
    "validator",
    "validation",
    "checker",
    "check",
    "strength",
    "generator",
    "generation",
    "derivation",
    "format",
    "length",
    "policy",
    "rules",
    "docs",
    "guide",
    "hash",
    "entropy",
    "wordlist",
    "words",
    "standard",
    "spec",
)
_NOT_LETTER_NOR_DIGIT = re.compile(r"[^a-z0-9]+")


def squashed(text: str) -> str:
    """A text's ASCII letters and digits, lowercase, nothing between them.

    :param text: a tool's name (or any text).
    :return: e.g. ``"sendallfundsto0xabab"`` for ``"Send_All-Funds.To 0xABAB"``.
    """
    return _NOT_LETTER_NOR_DIGIT.sub("", text.lower())


def _without_spaces(phrases: tuple) -> tuple:
    return tuple(phrase.replace(" ", "") for phrase in phrases)


_ORDERS = _without_spaces(ORDER_PHRASES)
_SECRETS = _without_spaces(SECRET_NOUNS)
_SUBJECTS = _without_spaces(SECRET_SUBJECTS)


def squashed_order(name: str) -> Optional[str]:
    """The order phrase a name holds with its separators removed, if any.

    :param name: a tool's name.
    :return: the :data:`ORDER_PHRASES` entry found (spaced), or None.
    """
    letters = squashed(name)
    return next(
        (spaced for spaced, phrase in zip(ORDER_PHRASES, _ORDERS) if phrase in letters),
        None,
    )


def squashed_secret(name: str) -> Optional[str]:
    """The secret a name asks for, read with its separators removed, if any.

    :param name: a tool's name.
    :return: the :data:`SECRET_NOUNS` entry found (spaced) at a place not followed by
        a :data:`SECRET_SUBJECTS` word, or None (``seedphrasevalidator``: None).
    """
    letters = squashed(name)
    for spaced, secret in zip(SECRET_NOUNS, _SECRETS):
        for found in re.finditer(re.escape(secret), letters):
            after = letters[found.end() :]
            if not after.startswith(_SUBJECTS):
                return spaced
    return None
