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

"""A sessionless HTTP client listed before a restart loses the answer paid after (adv29l).

Severity: HIGH (a paid answer lost at every read: the MCP SDK's client raises instead
of returning it, as in adv29j, until the agent happens to list again).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the devnet's
stand-in operator :class:`scripts.devnet.responder.Responder`) with the MCP SDK's client
over Streamable HTTP at protocol 2026-07-28 (no session: every request stands alone),
one agent, one on-chain call.

fix29m remembers per session the output schema each client was listed
(``mcp_server/listed_schemas.py``); 2026-07-28 HTTP requests share one record
(``ANONYMOUS``) holding the last four schemas served. That record lives in the server's
memory: after a restart it is empty, and ``ListedSchemas.held`` then answers
``NEVER_LISTED`` ("its client lists when it validates"), so the answer is checked against
the current schema only. A sessionless client is not restarted with the server (it has
no session to lose) and keeps the schema it cached at its listing before the restart
(``ClientSession._tool_output_schemas``); it lists again only for a name it never listed.

- the server runs over HTTP; the agent's client lists the tool: its output schema says
  ``result`` is a string of at most 3 characters (every honest answer is longer);
- the server stops; the manifest's author (the paid mech, or the tool's first offer)
  changes the schema to the seed's (``result`` any string); the server starts again on
  the same port and state folder (another client, handshake-era and thus in a session of
  its own, checks that the new schema is served);
- the agent calls the tool with the same client: paid, delivered, checked against the new
  schema only, returned structured; the client validates it against the schema it
  listed and raises ``RuntimeError("Invalid structured content ...")``; calling again
  (free: the journal's answer) raises again.

Reproduced in about 50 s (devnet start included; one request on chain).

Expected: the paid answer reaches the client (for instance: after a restart, a
sessionless client's answer is structured only if it cannot have been listed another
schema, else text saying why, as it is for a version past the four remembered).
"""

import contextlib
import json
from pathlib import Path
from typing import Any, Dict, List

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from scripts.devnet import Devnet
from tests.answer_shape import listed_mech_properties
from tests.devnet.mcp_helpers import (
    declare_tool,
    free_port,
    http_server,
    market_nonce,
    responder,
)
from tests.devnet.test_mcp_offchain import native_mech

#: the mech tool the manifest adds (its own name: no other mech offers it)
MECH_TOOL = "adv29l-forecast"
#: the protocol without sessions over HTTP
MODERN = sorted(MODERN_PROTOCOL_VERSIONS)[-1]
#: the checking client negotiates a handshake-era protocol (a session of its own)
HANDSHAKE = "legacy"


def test_a_sessionless_client_reads_an_answer_paid_after_a_restart(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Listed before a restart, paid after it under a new schema: the client reads it.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    declare_tool(
        devnet, service_id, MECH_TOOL, {"result": {"type": "string", "maxLength": 3}}
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    options = ("--mech", mech, "--timeout", "60", "--poll", "1")
    nonce = market_nonce(devnet)
    seen: Dict[str, Any] = {}
    failures: List[str] = []

    async def served_result_schema() -> Any:
        async with Client(streamable_http_client(url), mode=HANDSHAKE) as other:
            listed = await other.list_tools()
            (tool,) = [t for t in listed.tools if MECH_TOOL in t.name]
            return listed_mech_properties(tool.output_schema)["result"]

    async def main() -> None:
        async with contextlib.AsyncExitStack() as stack:
            with http_server(devnet, tmp_path, *options, port=port):
                agent = await stack.enter_async_context(
                    Client(streamable_http_client(url), mode=MODERN)
                )
                listed = await agent.list_tools()
                (tool,) = [t for t in listed.tools if MECH_TOOL in t.name]
                seen["listed"] = listed_mech_properties(tool.output_schema)["result"]
            declare_tool(devnet, service_id, MECH_TOOL, {"result": {"type": "string"}})
            with http_server(devnet, tmp_path, *options, port=port), responder(devnet):
                seen["served after the restart"] = await served_result_schema()
                for attempt in ("first", "again"):
                    try:
                        seen[attempt] = await agent.call_tool(
                            tool.name, {"prompt": "Will the client read it?"}
                        )
                    except RuntimeError as exc:  # the SDK's validation of the result
                        failures.append(f"{attempt}: {exc}"[:300])

    anyio.run(main)
    observed = (
        f"listed result schema {json.dumps(seen['listed'])}; served after the restart "
        f"{json.dumps(seen['served after the restart'])}; client errors {failures}"
    )
    assert seen["listed"] == {"type": "string", "maxLength": 3}, observed
    assert seen["served after the restart"] == {"type": "string"}, observed  # premise
    assert market_nonce(devnet) == nonce + 1, observed  # one request: the again is free
    # observed on main: both calls raise "Invalid structured content returned by tool
    # ...: '...' is too long"
    assert not failures, observed
    for attempt in ("first", "again"):
        assert "devnet stand-in" in str(seen[attempt].content[0].text), observed
