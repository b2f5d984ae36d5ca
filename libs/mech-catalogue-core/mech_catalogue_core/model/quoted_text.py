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

"""Untrusted text as a block of one's own text quotes it, so it cannot end itself (pure)."""


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
