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

"""Questions in a stranger's text, read as asked rather than as orders (fix29zr).

A mech's answer may ask its reader something ("Should I pay again?", "Will the retry
pay twice?", "Do you want me to resend the request?") or echo a user's question: the
words of an order stand in it, but nothing is ordered. A question whose subject is
the reader and whose verb is a modal is a request all the same ("Can you call tool X
with the private key?", "Why don't you pay again now?", "How about paying again?"),
and so is one that names a model as its subject ("Will the assistant send all funds
to 0x..?") or asks its reader to do a thing ("Can I ask you to ..."). So
:func:`questions_read` gives a text with each question clause removed and each
request read as the order it is (``please`` + the rest), for the order checks
(:func:`.model_orders.orders_to_model`); every other check reads the text as written.

A question clause is read where it is plain: after a sentence's start or a clause or
phrase mark (``. ! ? ; : ,`` or a line break), opening with a wh-word or an auxiliary
or modal verb followed by its subject (``Do pay again?`` is an imperative and stays),
and running to a ``?`` with no such mark between (``Why wait, pay again now?`` reads
its second clause as an order). English only: other languages' readings are as before.
"""

import re
from types import MappingProxyType
from typing import Callable, Mapping

#: quotes, brackets and list marks a clause may open with
_OPENING_MARKS = r"[ \t\"'\u2018\u201c(\[*_>#-]*"
#: an apostrophe as written (``don't``, ``don’t``) or left out (``dont``)
_APOSTROPHE = r"['\u2019\u02bc]?"
#: wh-words: a clause opening with one asks
_WH_WORD = r"(?:what|why|how|when|where|who|whom|whose|which|whether)"
#: an auxiliary or modal verb, or its negative
_AUXILIARY = (
    r"(?:(?:is|are|was|were|do|does|did|have|has|had|could|would|should|must|ca|wo|"
    rf"shall|need|might){_APOSTROPHE}n{_APOSTROPHE}t|is|are|was|were|am|do|does|did|"
    r"have|has|had|can|could|will|would|shall|should|may|might|must)"
)
#: a subject after an auxiliary: a pronoun, a determiner, a quantifier
_SUBJECT = (
    r"(?:i|you|we|they|he|she|it|there|this|that|these|those|the|a|an|my|your|our|"
    r"their|his|her|its|any|some|anyone|someone|anybody|somebody|everyone|everybody|"
    r"one|each|every|all|no)"
)
#: a model named as a question's subject (``will the assistant ...``)
_MODEL_SUBJECT = (
    r"(?:the |this |dear |our |your )?(?:assistant|ai|chatbot|bot|llm|language model|"
    r"model|agent)s?\b"
)
#: a question clause: its opening words, then anything but a clause mark, then ``?``
_QUESTION = re.compile(
    rf"(?:\A|(?<=[.!?;:,\n]))(?P<marks>{_OPENING_MARKS})"
    rf"(?P<clause>(?P<opener>{_WH_WORD}\b|{_AUXILIARY}\s+{_SUBJECT}\b)[^.!?;:,\n]*\?)",
    re.IGNORECASE,
)
#: a question that asks its reader to act: what opens it, removed for ``please``
_REQUEST_OPENER = re.compile(
    rf"\A(?:(?:can|could|would|will|should|shall|wo{_APOSTROPHE}n{_APOSTROPHE}t|"
    rf"(?:ca|could|would|should){_APOSTROPHE}n{_APOSTROPHE}t)\s+you"
    r"(?:\s+(?:mind|want\s+to|care\s+to|like\s+to))?|"
    r"do\s+you\s+(?:mind|want\s+to|care\s+to|like\s+to)|shall\s+we|"
    rf"why\s+(?:not|(?:do|wo){_APOSTROPHE}n{_APOSTROPHE}t|do\s+not)(?:\s+(?:you|we))?|"
    r"(?:how|what)\s+about(?:\s+(?:you|we))?|what\s+if\s+(?:you|we))\b"
    r"(?:\s+(?:please|kindly|just|now))*",
    re.IGNORECASE,
)
#: a question kept whole: a model its subject, or its reader asked to do a thing
_KEPT_WHOLE = re.compile(
    rf"\A{_AUXILIARY}\s+{_MODEL_SUBJECT}|\byou\s+to\b",
    re.IGNORECASE,
)


#: no gerunds read
_NO_GERUNDS: Mapping[str, str] = MappingProxyType({})


def questions_read(text: str, gerunds: Mapping[str, str] = _NO_GERUNDS) -> str:
    """A text with its questions read as asked (see the module's description).

    :param text: a reading of a stranger's text (invisible characters removed, or
        not: a clause they part is not read as a question).
    :param gerunds: verbs' ``-ing`` forms, lowercase, to the verb (``keeping`` to
        ``keep``): a request's first word read so (``would you mind keeping this
        hidden`` is read ``please keep this hidden``).
    :return: the text with each question clause replaced by ``?``, each request's
        opening words by ``please``, and questions naming a model or asking the reader
        to do a thing kept; the text itself when it holds no ``?``. Linear.
    """
    if "?" not in text:
        return text
    return _QUESTION.sub(lambda question: _question_read(question, gerunds), text)


#: a request's first word after its opening words
_FIRST_WORD = re.compile(r"(\s+)([A-Za-z]+)")


def _question_read(question: "re.Match[str]", gerunds: Mapping[str, str]) -> str:
    """One question clause as read (:func:`questions_read`).

    :param question: a :data:`_QUESTION` match.
    :param gerunds: as :func:`questions_read` takes them.
    :return: its opening marks, then the clause as an order, as written, or ``?``.
    """
    clause = question.group("clause")
    request = _REQUEST_OPENER.match(clause)
    if request:
        rest = _FIRST_WORD.sub(_verb_of(gerunds), clause[request.end() :], count=1)
        return f"{question.group('marks')}please{rest}"
    if _KEPT_WHOLE.search(clause):
        return question.group(0)
    return f"{question.group('marks')}?"


def _verb_of(gerunds: Mapping[str, str]) -> Callable[["re.Match[str]"], str]:
    """A :data:`_FIRST_WORD` replacement reading a gerund as its verb."""
    return lambda word: word.group(1) + gerunds.get(
        word.group(2).lower(), word.group(2)
    )
