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

r"""adv29zy F1: a paid answer the server delivers structured, refused by TypeScript clients.

Severity: MEDIUM (a paid answer lost, at the call and at every free re-read, for every
client built on the TypeScript MCP SDK: the MCP Inspector, and any Node agent).

Observed on main: the server checks a structured answer as the Python SDK's client does
(``response_checks.client_refusal``: ``jsonschema`` 2020-12, formats not asserted) and
delivers ``{"server_note", "answer"}`` as ``structuredContent``, not an error. The
TypeScript SDK's clients check it with Ajv and ``ajv-formats`` (``validateFormats:
true``), and the first major (1.32.2, the Inspector's) with Ajv's draft-07 class, where
``items`` applies to every item and ``prefixItems`` is unknown. So a mech whose output
schema says ``"format": "date-time"`` and whose answer is ``{"when": "tomorrow"}`` (a
stranger's choice, or an honest mech's slip), or whose tuple is ``prefixItems:
[string], items: number`` (JSON Schema 2020-12's tuple, the dialect the server lists),
or whose ``pattern`` is ``^\w+$`` and answer ``{"city": "Zürich"}`` (Python's ``\w``
takes any letter, ECMA-262's ASCII ones only: an honest schema loses every accented
answer), is paid, delivered, and the client throws "Structured content does not match the
tool's output schema" instead of returning the answer; the envelope's text branch does
not help, the answer being an object. The server's own check says the client accepts it.

Expected: a structured answer is delivered only when every client the server serves
accepts it (formats asserted as Ajv's ``ajv-formats`` does, patterns matched as
ECMA-262 does, the listed schema read the same under draft-07 and 2020-12), else given as text (the
envelope's string branch) with the note saying why, as for any answer that does not
match.
"""

import json
from typing import Any, Dict

import pytest

from mech_catalogue_cli.mcp_server.answer_envelope import answer_schema_of
from mech_catalogue_cli.mcp_server.response_checks import client_refusal
from tests.adversary.adv29zy_ts_clients import ts_client
from tests.test_mcp_answer_envelope import _answer
from tests.test_mcp_withheld_and_names import _listed, _typed

#: output schemas as a mech publishes them, and an answer each mech delivers
CASES = {
    "date-time": (
        {
            "type": "object",
            "properties": {"when": {"type": "string", "format": "date-time"}},
            "required": ["when"],
        },
        {"when": "tomorrow at noon"},
    ),
    "email": (
        {
            "type": "object",
            "properties": {"contact": {"type": "string", "format": "email"}},
            "required": ["contact"],
        },
        {"contact": "harbour office"},
    ),
    "word": (
        {
            "type": "object",
            "properties": {"city": {"type": "string", "pattern": "^\\w+$"}},
            "required": ["city"],
        },
        {"city": "Zürich"},
    ),
    "tuple": (
        {
            "type": "object",
            "properties": {
                "tide": {
                    "type": "array",
                    "prefixItems": [{"type": "string"}],
                    "items": {"type": "number"},
                }
            },
            "required": ["tide"],
        },
        {"tide": ["Brest", 4.2]},
    ),
}


def _delivered(case: str) -> Dict[str, Any]:
    """The listed tool and the result the server gives for the mech's answer."""
    output, answer = CASES[case]
    listed = _listed(_typed("tide-table", {"type": "string"}, output=output))
    tool = listed["tide-table"].tool
    schema = answer_schema_of(tool["outputSchema"])
    assert schema is not None, tool["outputSchema"]
    result = _answer(schema, json.dumps(answer).encode())
    return {"tool": tool, "result": result, "answer": answer}


@pytest.mark.parametrize(
    "case,version",
    [
        ("date-time", "v1"),
        ("date-time", "v2"),
        ("email", "v2"),
        ("word", "v2"),
        ("tuple", "v1"),
    ],
)
def test_a_delivered_structured_answer_is_accepted_by_typescript_clients(
    case: str, version: str
) -> None:
    """The server delivers it, not an error; each client must accept it."""
    seen = _delivered(case)
    result = seen["result"]
    assert result.is_error is False
    structured: Dict[str, Any] = dict(result.structured_content or {})
    # the server says the Python SDK's client accepts it, and it is the mech's answer
    assert client_refusal(seen["tool"]["outputSchema"], structured) == ""
    if structured["answer"] != seen["answer"]:
        return  # given as text: every client accepts the string branch
    refused = ts_client(version, [seen["tool"]], "tide-table", structured)
    assert refused == {"listed": "", "compiled": "", "refused": ""}, refused
