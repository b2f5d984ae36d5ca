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

r"""adv29zy F2: one stranger's output ``pattern`` stops every listing of TypeScript clients.

Severity: MEDIUM (denial: with the TypeScript SDK's first major, the MCP Inspector 0.15.0
and Node agents on ``@modelcontextprotocol/sdk`` 1.x, no tool of the server can be
listed, so none can be called, while one stranger's tool is offered; with the second
major that tool cannot be called).

Observed on main: a ``pattern`` is checked as a Python regular expression only, so one
that ECMA-262 (``u`` flag, as Ajv compiles it) refuses is listed in the tool's
``outputSchema``: ``^\d+\Z``, ``(?P<port>\w+)``, ``(?i)brest``,
``a{,3}``, in a ``patternProperties`` key or a ``propertyNames`` pattern too, and an
empty ``enum`` (2020-12's metaschema takes it, Ajv throws "enum must have non-empty
array"). The first major's ``Client.listTools()`` compiles every listed
``outputSchema`` (``cacheToolMetadata``) and throws "Invalid regular expression" out
of the listing itself: the honest tool beside it is never seen. The second major
catches it per tool and refuses every call of that tool before sending it.

Expected: a schema whose ``pattern`` is no ECMA-262 regular expression (the JSON Schema
dialect's own: Validation section 6.3.3) is refused where the manifest is checked, or
the tool is listed without it, so a listing never holds what a client cannot compile.
"""

from typing import Any, Dict, List

import pytest

from tests.adversary.adv29zy_ts_clients import ts_client
from tests.test_mcp_withheld_and_names import _listed, _typed

#: patterns Python's ``re`` compiles and ECMA-262 refuses
PATTERNS = ["^\\d+\\Z", "(?P<port>\\w+)", "(?i)brest", "a{,3}"]
#: output schemas the server's checks take and Ajv does not compile
OUTPUTS: Dict[str, Dict[str, Any]] = {
    **{
        f"pattern {p}": {
            "type": "object",
            "properties": {"port": {"type": "string", "pattern": p}},
            "required": ["port"],
        }
        for p in PATTERNS
    },
    "a patternProperties key": {
        "type": "object",
        "patternProperties": {"(?i)^port": {"type": "string"}},
    },
    "a propertyNames pattern": {
        "type": "object",
        "propertyNames": {"pattern": "^[a-z]+\\Z"},
    },
    # 2020-12's metaschema takes an empty enum (a property never present); Ajv throws
    # "enum must have non-empty array"
    "an empty enum": {
        "type": "object",
        "properties": {"port": {"type": "string"}, "legacy": {"enum": []}},
    },
}


def _listing(output: Dict[str, Any]) -> List[Dict[str, Any]]:
    """What tools/list serves: an honest tool, and a stranger's with ``output``."""
    honest = _typed("tide-table", {"type": "string"})
    stranger = _typed("port-code", {"type": "string"}, output=output)
    listed = _listed(honest, stranger)
    return [listed[name].tool for name in ("tide-table", "port-code")]


@pytest.mark.parametrize("case", sorted(OUTPUTS))
def test_a_listing_never_holds_a_pattern_typescript_clients_cannot_compile(
    case: str,
) -> None:
    """Either the schema is not listed, or the first major lists the tools."""
    tools = _listing(OUTPUTS[case])
    if "outputSchema" not in tools[1]:
        return  # not listed with it: nothing to compile
    seen = ts_client("v1", tools, "tide-table")
    assert seen["listed"] == "", seen["listed"]


def test_the_second_major_can_call_the_tool() -> None:
    """Its compile of the listed ``outputSchema`` must not fail."""
    tools = _listing(OUTPUTS[f"pattern {PATTERNS[0]}"])
    if "outputSchema" not in tools[1]:
        return
    seen = ts_client("v2", tools, "port-code")
    assert seen["compiled"] == "", seen["compiled"]
