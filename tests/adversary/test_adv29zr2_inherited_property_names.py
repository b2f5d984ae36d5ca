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

"""adv29zr2: an optional property named ``constructor`` loses every paid answer in TS clients.

Severity: MEDIUM (a paid answer lost, at the call and at every free re-read, for every
client built on the TypeScript MCP SDK, both majors; a stranger's choice or an honest
mech's: ``constructor`` is a plain word for a tool about contracts).

Observed on main: fix29zu lists ``properties`` as portable. Ajv, as the SDK builds it
(no ``ownProperties``), tests an optional property as ``data[name] !== undefined`` and
so reads the names every JavaScript object inherits (``constructor``, ``toString``,
``hasOwnProperty``, ``valueOf``...) as present in every object: it checks the inherited
function against the property's schema. A mech whose schema is ``{"properties":
{"constructor": {"type": "string"}, "port": {"type": "string"}}, "required": ["port"]}``
answers ``{"port": "Brest"}``; ``jsonschema`` accepts it, the server delivers it
structured, and both TypeScript majors throw "Structured content does not match the
tool's output schema" ("data/answer/constructor must be string").

Expected: a structured answer is delivered only when every client accepts it: a
property named as an ``Object.prototype`` member is left out of the listed
``properties`` (the server checks it), or such an answer is given as text.
"""

import json
from typing import Any, Dict

import anyio
import pytest

from mech_catalogue_cli.mcp_server.results import structured_or_why
from tests.adversary.adv29zy_ts_clients import ts_client
from tests.test_mcp_withheld_and_names import _listed, _typed


def _schema(name: str) -> Dict[str, Any]:
    """An output schema with an optional property ``name`` beside a required port."""
    return {
        "type": "object",
        "properties": {name: {"type": "string"}, "port": {"type": "string"}},
        "required": ["port"],
    }


def _delivered(name: str) -> Dict[str, Any]:
    """The listed tool and the structured answer the server delivers (None: text)."""
    tool = _listed(_typed("tide-table", {"type": "string"}, output=_schema(name)))[
        "tide-table"
    ]
    body = json.dumps({"port": "Brest"}).encode()
    structured, why = anyio.run(structured_or_why, tool, body)
    return {"tool": tool.tool, "structured": structured, "why": why}


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("name", ["constructor", "toString"])
def test_an_answer_without_an_inherited_name_is_accepted(
    name: str, version: str
) -> None:
    """Delivered structured, so each TypeScript client must accept it."""
    seen = _delivered(name)
    if seen["structured"] is None:
        return  # given as text: every client accepts the envelope's string branch
    value = {"server_note": "the server's note", "answer": seen["structured"]}
    refused = ts_client(version, [seen["tool"]], "tide-table", value)
    assert refused == {"listed": "", "compiled": "", "refused": ""}, refused
