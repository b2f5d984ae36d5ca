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

"""What of a delivered answer may reach a model: pure checks on the shown text and value.

A mech's answer is untrusted text like a manifest's. :func:`shown_answer` caps the text
a model reads (:data:`MAX_ANSWER_BYTES`); :func:`hidden_in_value` looks for invisible
characters in the final structured value (a ``result`` JSON-encoded twice carries tag
characters as escapes that only the second decoding reveals); :func:`answer_instructions`
runs the library's instruction check (``untrusted_text.instruction_phrases``, the one
function manifests are checked with) on the answer.
"""

from typing import Any, Tuple

from mech_catalogue_core.model.untrusted_text import hidden_in, instruction_phrases

#: bytes of a delivered answer shown to a model (64 KiB, UTF-8); the rest stays at the
#: response's CID. Mech answers are a prediction or a short text; 64 KiB is about 16,000
#: tokens, what a model can still read without the answer crowding out the conversation
MAX_ANSWER_BYTES = 64 * 1024


def shown_answer(text: str, limit: int = MAX_ANSWER_BYTES) -> Tuple[str, int]:
    """Cut an answer to at most ``limit`` UTF-8 bytes, on a character boundary.

    :param text: the answer as it would be shown.
    :param limit: bytes shown at most.
    :return: ``(shown text, the answer's size in bytes when it was cut, else 0)``.
    """
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text, 0
    return data[:limit].decode("utf-8", "ignore"), len(data)


def hidden_in_value(value: Any) -> Tuple[str, ...]:
    """Where the final structured value holds invisible characters (JSON pointers).

    :param value: the ``structuredContent`` about to be returned (None: none).
    :return: up to 5 JSON pointers (``untrusted_text.hidden_in``); () when clean.
    """
    return () if value is None else hidden_in(value)


def answer_instructions(text: str) -> Tuple[str, ...]:
    """Phrases of an answer that address a model (the library's manifest check).

    :param text: the answer as shown (a JSON document's text included).
    :return: the distinct phrases, lowercase, in order (() when none).
    """
    return instruction_phrases(text)
