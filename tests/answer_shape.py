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


"""What a delivered answer's ``structuredContent`` holds, read the way tests assert it.

Every delivered answer's structured value is the server's envelope
(``mcp_server.answer_envelope``): ``{"server_note": <the server's line>, "answer":
<the mech's structured value, or the answer's text>}``, the note first.
"""

from typing import Any, Dict

from mech_catalogue_cli.mcp_server.answer_envelope import ANSWER_KEY, NOTE_KEY


def enveloped(result: Any) -> Dict[str, Any]:
    """The result's ``structuredContent``, asserted to be the server's envelope.

    :param result: a ``CallToolResult`` (or its wire JSON: ``structuredContent``).
    :return: the envelope (note first, then the answer; no other key).
    """
    raw = (
        result.get("structuredContent")
        if isinstance(result, dict)
        else result.structured_content
    )
    assert isinstance(raw, dict) and list(raw) == [NOTE_KEY, ANSWER_KEY], raw
    value = dict(raw)
    assert "was paid" in value[NOTE_KEY] and "the mech's data" in value[NOTE_KEY]
    return value


def answer_of(result: Any) -> Any:
    """The mech's structured value a result returns; None when it gives the text.

    :param result: a ``CallToolResult`` of a delivered answer (or its wire JSON).
    :return: ``answer`` when it is structured, None when the envelope says "as text".
    """
    value = enveloped(result)
    as_text = "answer as text is" in value[NOTE_KEY]
    assert as_text == isinstance(value[ANSWER_KEY], str), value
    return None if as_text else value[ANSWER_KEY]


def listed_mech_properties(output_schema: Any) -> Dict[str, Any]:
    """The properties of the mech's own output schema inside a listed envelope.

    :param output_schema: a paid tool's listed ``outputSchema`` (None: none listed).
    :return: ``properties`` of the mech's schema, the first arm of ``answer``'s
        ``anyOf`` (the other is the answer as text).
    """
    answer = (output_schema or {})["properties"][ANSWER_KEY]
    return dict(answer["anyOf"][0]["properties"])
