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

"""adv29zr2: a portable ``multipleOf`` that TypeScript clients read otherwise for big numbers.

Severity: MEDIUM (a paid answer lost, at the call and at every free re-read, for every
client built on the TypeScript MCP SDK, first and second major: the kind of adv29zy F1,
through a keyword fix29zu lists as portable).

Observed on main: ``portable_schema.PORTABLE_VALUES`` keeps ``multipleOf`` in the listed
schema. ``jsonschema`` (the server's check of the whole schema and of each listed
envelope, and the Python SDK's client) tests ``instance % dB`` for an integer divisor and
``int(q) == q`` for a float one; Ajv (without ``multipleOfPrecision``, as the SDK builds
it) tests ``q !== parseInt(q)``, and ``parseInt`` reads the number's text: for a quotient
of 1e21 or more the text is ``1e+21`` and ``parseInt`` gives 1. So a mech whose schema is
``{"x": {"type": "number", "multipleOf": 1}}`` (or ``"integer"``, ``multipleOf: 2``)
answers ``{"x": 1e21}``: the server delivers it structured, the Python client accepts it,
and both TypeScript majors throw "Structured content does not match the tool's output
schema" ("must be multiple of 1") instead of returning the paid answer.

Expected: a structured answer is delivered only when every client accepts it: either
``multipleOf`` is left out of the listing (checked by the server only), or an answer
whose quotient is at least 1e21 (or not a safe integer) is given as text.
"""

import json
from typing import Any, Dict

import anyio
import pytest

from mech_catalogue_cli.mcp_server.results import structured_or_why
from tests.adversary.adv29zy_ts_clients import ts_client
from tests.test_mcp_withheld_and_names import _listed, _typed

#: output schemas as a mech publishes them, and the answer it delivers
CASES = {
    "number, multipleOf 1": (
        {
            "type": "object",
            "properties": {"x": {"type": "number", "multipleOf": 1}},
            "required": ["x"],
        },
        {"x": 1e21},
    ),
    "number, multipleOf 0.5": (
        {
            "type": "object",
            "properties": {"x": {"type": "number", "multipleOf": 0.5}},
            "required": ["x"],
        },
        {"x": 1e21},
    ),
    "integer, multipleOf 2": (
        {
            "type": "object",
            "properties": {"x": {"type": "integer", "multipleOf": 2}},
            "required": ["x"],
        },
        {"x": 1e22},
    ),
}


def _main_delivered(case: str) -> Dict[str, Any]:
    """The listed tool and the structured answer the server delivers (None: text)."""
    output, answer = CASES[case]
    tool = _listed(_typed("tide-table", {"type": "string"}, output=output))[
        "tide-table"
    ]
    structured, why = anyio.run(structured_or_why, tool, json.dumps(answer).encode())
    return {"tool": tool.tool, "structured": structured, "why": why}


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_structured_big_multiple_is_accepted_by_typescript_clients(
    case: str, version: str
) -> None:
    """Delivered structured, so each TypeScript client must accept it."""
    seen = _main_delivered(case)
    if seen["structured"] is None:
        return  # given as text: every client accepts the envelope's string branch
    assert seen["why"] == ""
    value = {"server_note": "the server's note", "answer": seen["structured"]}
    refused = ts_client(version, [seen["tool"]], "tide-table", value)
    assert refused == {"listed": "", "compiled": "", "refused": ""}, refused
