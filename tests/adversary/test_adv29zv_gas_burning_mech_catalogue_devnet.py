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

"""adv29zv G1 on the devnet: one gas-burning mech, and the MCP server does not start.

Severity: HIGH by its effect, given a mech running code of its own (see
``test_adv29zv_gas_burning_mech_catalogue.py``).

The devnet's "template" mech (the second of its seven, a stranger's: it offers no
served tool) is given code that burns every gas it is given, whatever is called
(``anvil_setCode``: ``JUMPDEST; KECCAK256 of 32 KiB; JUMP 0``, about 1.2 s of anvil's
time per call). The MCP server is started over stdio by the MCP SDK's client.

Observed on main: the server exits before answering ``tools/list``, its stderr saying
``error [no_catalogue_source] cannot read the MechMarketplace through ...
(ChainReadError: eth_call ... returned an error: {'code': -32603, 'message': 'EVM
error OutOfGas'})``; the client sees "Connection closed". Without the burner the same
start lists 4 tools (``prediction-online`` among them) in about 5 s.

Expected: the server starts and lists the honest mechs' tools, the burning mech's facts
unread (its offers dropped or unpriced), and the time it costs bounded.
"""

from pathlib import Path
from typing import Any, Dict

import anyio
from web3.types import RPCEndpoint

from scripts.devnet import Devnet
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.devnet.mcp_helpers import stdio_client
from tests.devnet.test_mcp_server import TOOL

#: JUMPDEST; PUSH2 0x8000; PUSH1 0; KECCAK256; POP; PUSH1 0; JUMP: burns all its gas
BURNER_CODE = "0x5b61800060002050600056"


def test_the_server_lists_tools_beside_a_gas_burning_mech(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The SDK's client lists the honest mechs' tools.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the state folder.
    """
    devnet = chain_snapshot
    _, _, stranger = _paid_mechs(devnet)
    devnet.w3.provider.make_request(
        RPCEndpoint("anvil_setCode"), [stranger, BURNER_CODE]
    )
    seen: Dict[str, Any] = {}

    async def main() -> None:
        try:
            async with stdio_client(devnet, tmp_path) as client:
                listed = await client.list_tools()
                seen["tools"] = [tool.name for tool in listed.tools]
        except Exception as exc:  # pylint: disable=broad-exception-caught
            seen["error"] = repr(exc)  # the server went away

    anyio.run(main)
    assert "error" not in seen, seen["error"]
    assert TOOL in seen["tools"], seen["tools"]
