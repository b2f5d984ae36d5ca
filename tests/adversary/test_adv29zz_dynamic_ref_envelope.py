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

"""adv29zz E1: a ``$dynamicRef`` in a mech's output schema breaks inside the envelope.

Severity: HIGH (issue #29 (b): a paid, delivered answer never reaches the MCP SDK's
client, at every read; calling again (free, the journal's answer) raises again).

fix29zl lists a paid tool's output schema as the server's envelope
(``answer_envelope.envelope_schema``): the mech's schema moves to
``/properties/answer/anyOf/0``, only its ``$defs``/``definitions`` kept at the root.
``manifest.schema_refs`` rewrites every ``$ref`` into ``#/$defs/..`` (or inlines it),
so those still resolve; a ``$dynamicRef`` (JSON Schema 2020-12, which the server
validates with) is left as the mech wrote it. The server checks the delivered value
against the mech's schema alone (``results.structured_or_why`` ->
``response_checks.structured_content``, its ``client_refusal`` too against the mech's
schema, not the envelope): there ``#/properties/text`` or ``#`` resolve, it passes and
is returned as ``structuredContent`` inside the envelope. The SDK's client validates the
result against the listed envelope, where ``#/properties/text`` does not exist
(``Unresolvable`` -> ``RuntimeError("Invalid schema for tool ..")``) and ``#`` is the
envelope (``RuntimeError("Invalid structured content returned by tool ..")``).

Observed on main (unit: the server's own composition and its ``client_refusal`` of the
listed envelope): "checking its served form failed (_WrappedReferencingError), so MCP
clients would refuse it"; for ``#``, "does not match the output schema served
('anyOf' at schema path properties/answer/anyOf)". On the devnet the SDK's client
raises on the paid call and again on the free re-read (test_adv29zz_dynamic_ref_devnet).

Expected: every structured value returned validates against the listed envelope (check
the envelope, not only the mech's schema, before returning it structured), or the
envelope rewrites/refuses ``$dynamicRef``/``$dynamicAnchor``/``$anchor``/``$id`` whose
targets move when nested (bundle them as ``$ref`` is, or drop such a schema).
"""

import json
from typing import Any, Dict

import pytest

from mech_catalogue_cli.mcp_server.response_checks import client_refusal
from tests.answer_shape import enveloped
from tests.test_mcp_answer_envelope import _answer, _tool

#: a sibling property's schema named by pointer (resolves in the mech's schema only)
SIBLING: Dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "result": {"$dynamicRef": "#/properties/text"},
    },
    "required": ["result"],
}
#: a tree whose items are the schema itself (``#`` is the envelope once nested)
TREE: Dict[str, Any] = {
    "type": "object",
    "properties": {
        "result": {"type": "string"},
        "more": {"type": "array", "items": {"$dynamicRef": "#"}},
    },
    "required": ["result"],
}


@pytest.mark.parametrize(
    "schema, delivered",
    [
        (SIBLING, {"result": "High tide at Brest 6.1 m"}),
        (TREE, {"result": "Brest", "more": [{"result": "Roscoff", "more": []}]}),
    ],
    ids=["sibling", "root"],
)
def test_the_structured_answer_matches_the_listed_envelope(
    schema: Dict[str, Any], delivered: Dict[str, Any]
) -> None:
    """What the server returns structured, the SDK's client accepts against the listing."""
    result = _answer(schema, json.dumps(delivered).encode())
    assert not result.is_error
    listed = _tool(schema).tool["outputSchema"]
    refused = client_refusal(listed, enveloped(result))
    # observed on main: "checking its served form failed (_WrappedReferencingError),
    # so MCP clients would refuse it" / "does not match the output schema served
    # ('anyOf' at schema path properties/answer/anyOf), so MCP clients would refuse it"
    assert refused == "", refused
