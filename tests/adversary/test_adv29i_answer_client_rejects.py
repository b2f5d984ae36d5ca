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

"""A structured answer the MCP SDK's client refuses: the paid answer never reaches it (adv29i).

Severity: HIGH (a paid answer lost, at every read: the client raises instead of
returning it; nothing says the server, not the mech, changed the value).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the devnet's
stand-in operator :class:`scripts.devnet.responder.Responder`, which delivers the
standard document ``{"requestId": <the 77-digit request id>, "result", ...}``) with the
MCP SDK's client launching ``mech-catalogue mcp --mech M`` over stdio, one agent, one
on-chain call.

The mech's manifest declares a tool whose output schema says ``requestId`` is an
integer and not a string (``{"type": "integer", "not": {"type": "string"}}``): a valid
JSON Schema, met by every honest delivery. The server checks the delivered document
against it (it passes), then gives the 77-digit ``requestId`` as a decimal string
(``js_integers.integers_as_text``, for JavaScript clients) and returns that as
``structuredContent`` with ``isError`` false. The schema it serves
(``schema_with_integer_text``) adds ``string`` to ``type`` but keeps ``not``: the
returned value no longer matches the served ``outputSchema``. The SDK's client
validates every non-error result against the tool's ``outputSchema`` and raises
``RuntimeError("Invalid structured content returned by tool ...")``: the caller gets no
result, calling again (free: the journal's answer) raises again. Any keyword that a
number passes and its decimal string fails does the same (``maxLength`` or ``pattern``
on an untyped property, ``uniqueItems`` over ``[2**60, "1152921504606846976"]``, ``not``,
``if``/``then``).

Expected: every result the server returns validates against the ``outputSchema`` it
serves (when the rewritten value does not, the answer is returned as text with a
warning, as an unstructurable one is), so the SDK's client returns the paid answer.
"""

import json
from pathlib import Path
from typing import Any, Dict, List

import anyio

from mech_catalogue_cli.mcp_server.answer_envelope import answer_schema_of
from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import declare_tool, responder, stdio_client
from tests.devnet.test_mcp_offchain import native_mech

#: the mech tool the manifest adds (its own name: no other mech offers it)
MECH_TOOL = "adv29i-forecast"


#: the output schema's ``requestId``: a string id (as the server relays it) is refused
REQUEST_ID_SCHEMA = {
    "type": "integer",
    "not": {"type": "string"},
    "description": "the marketplace request id",
}


def test_a_structured_answer_reaches_the_sdk_client(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """One paid call of a tool whose output schema refuses a string requestId.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    declare_tool(devnet, service_id, MECH_TOOL, {"requestId": REQUEST_ID_SCHEMA})
    seen: Dict[str, Any] = {}
    failures: List[str] = []

    async def main() -> None:
        async with stdio_client(
            devnet, tmp_path, "--mech", mech, "--timeout", "60"
        ) as client:
            listed = await client.list_tools()
            (tool,) = [t for t in listed.tools if MECH_TOOL in t.name]
            seen["served"] = tool.output_schema
            for attempt in ("first", "again"):
                try:
                    seen[attempt] = await client.call_tool(
                        tool.name, {"prompt": "Will the client read it?"}
                    )
                except RuntimeError as exc:  # the SDK's validation of the result
                    failures.append(f"{attempt}: {exc}"[:300])

    with responder(devnet):
        anyio.run(main)
    mechs_schema = answer_schema_of(seen["served"]) or {}  # inside the envelope
    served = json.dumps(mechs_schema["properties"]["requestId"])
    observed = f"served requestId schema {served}; client errors {failures}"
    # observed on main: both calls raise "Invalid structured content returned by tool
    # ...: '...' should not be valid under {'type': 'string'}"
    assert not failures, observed
    for attempt in ("first", "again"):
        result = seen[attempt]
        assert "devnet stand-in" in str(result.content[0].text), observed
