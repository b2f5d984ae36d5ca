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

"""An output schema changed after the client listed it: the paid answer is refused (adv29j).

Severity: HIGH (a paid answer lost at every read of that session: the MCP SDK's client
raises instead of returning it).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the devnet's
stand-in operator :class:`scripts.devnet.responder.Responder`, which delivers the
standard document ``{"requestId", "result", "prompt", ...}``) with the MCP SDK's client
launching ``mech-catalogue mcp --mech M --poll 1`` over stdio, one agent, one on-chain
call.

fix29j returns a structured answer only when ``response_checks.client_refusal``
accepts it against the output schema the server serves *now*. The SDK's client does
not validate against that: it validates against the schema it cached at its last
``tools/list`` (``ClientSession._tool_output_schemas``, re-listed only for a name it
never listed), and nothing in the SDK re-lists on ``notifications/tools/list_changed``.
Anyone who publishes the tool's manifest (the paid mech itself, or the tool's first
offer, whose schema is the one served) can change it between the agent's list and its
call:

- listed: the tool's output schema says ``result`` is a string of at most 3 characters
  (every honest answer is longer: listed that way, the server would return it as text);
- the manifest is changed to the seed's schema (``result`` any string); the server reads
  it within ``--poll`` and says the list changed (the client's ``listen`` stream, protocol
  2026-07-28, receives it: the test waits for it, the agent has not re-listed yet);
- the agent calls the tool: paid, delivered, the server checks the answer against the
  new schema (it matches) and returns it structured with ``isError`` false; the client
  validates it against the schema it listed and raises ``RuntimeError("Invalid
  structured content returned by tool ...")``; calling again (free: the journal's
  answer) raises again. Only a client that re-lists reads it (free, from the
  journal): the SDK's ``ClientSession`` never does on its own, and an agent that does
  loses every call made between the change and its re-list.

Reproduced in 13 s (the change seen within ``--poll 1``).

Expected: the paid answer reaches the SDK's client (for instance: a structured answer
only under the schema the session was last served, or the answer as text with a
warning whenever the tool's served output schema changed during the session).
"""

import json
from pathlib import Path
from typing import Any, Dict, List

import anyio

from scripts.devnet import Devnet
from tests.answer_shape import listed_mech_properties
from tests.devnet.mcp_helpers import declare_tool, responder, stdio_client
from tests.devnet.test_mcp_offchain import native_mech

#: the mech tool the manifest adds (its own name: no other mech offers it)
MECH_TOOL = "adv29j-forecast"
#: seconds waited at most for the server's tools/list_changed (a bound, not a timing)
CHANGE_WAIT = 60.0


def test_an_answer_paid_after_the_schema_changed_reaches_the_sdk_client(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Listed under one schema, paid and delivered under another: the client reads it.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    declare_tool(
        devnet, service_id, MECH_TOOL, {"result": {"type": "string", "maxLength": 3}}
    )
    seen: Dict[str, Any] = {}
    failures: List[str] = []

    async def main() -> None:
        async with stdio_client(
            devnet,
            tmp_path,
            "--mech",
            mech,
            "--timeout",
            "60",
            "--poll",
            "1",
        ) as client:
            listed = await client.list_tools()
            (tool,) = [t for t in listed.tools if MECH_TOOL in t.name]
            seen["listed"] = listed_mech_properties(tool.output_schema)["result"]
            seen["list_changed received"] = False
            async with client.listen(tools_list_changed=True) as events:
                declare_tool(
                    devnet, service_id, MECH_TOOL, {"result": {"type": "string"}}
                )
                with anyio.move_on_after(CHANGE_WAIT):
                    async for _ in events:
                        seen["list_changed received"] = True
                        break
            for attempt in ("first", "again"):
                try:
                    seen[attempt] = await client.call_tool(
                        tool.name, {"prompt": "Will the client read it?"}
                    )
                except RuntimeError as exc:  # the SDK's validation of the result
                    failures.append(f"{attempt}: {exc}"[:300])

    with responder(devnet):
        anyio.run(main)
    observed = (
        f"listed result schema {json.dumps(seen['listed'])}; list_changed received "
        f"{seen['list_changed received']}; client errors {failures}"
    )
    assert seen["list_changed received"], observed  # the premise: the server changed
    # observed on main: both calls raise "Invalid structured content returned by tool
    # ...: '...' is too long"
    assert not failures, observed
    for attempt in ("first", "again"):
        result = seen[attempt]
        assert "devnet stand-in" in str(result.content[0].text), observed
