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

"""A publisher's tools flip ``auto`` discovery off: a paid ``call_tool`` is unreadable.

Severity: MEDIUM (adv29p; a paid answer no longer readable the way it was paid, and the
way the server then points to can pay again; any publisher whose tools are listed
flips the mode, without the user's key, by adding or removing tools around 40).

With the default ``--discovery auto``, ``tools/list`` gives the three discovery tools
while more than 40 tools are listed, the catalogue otherwise, and ``call_tool`` is
handled only while the server is in search mode (``Discovery.handles``: ``name in
_INPUTS and self.active()``). On the devnet (anvil with the real MechMarketplace
bytecode, kubo, the stand-in operator) with the MCP SDK's client over stdio, one agent:

- the native mech's manifest lists 40 more tools beside its own (the server, ``--mech``
  that mech, lists 42: search mode); the agent calls ``call_tool`` of
  ``prediction-online``: paid on chain; no delivery comes within ``--timeout``, so the
  answer is "pending: call again";
- the manifest drops the 40 tools (its author, or any publisher whose tools were
  listed); at the next catalogue read the server lists the catalogue;
- the operator delivers; the agent calls ``call_tool`` again with the same arguments, as
  the pending answer said: the server takes ``call_tool`` for a mech tool's name and
  answers "no tool named 'call_tool' is served now; list the tools again". The journal
  holds the paid request under ``prediction-online``'s call key; the agent that passed
  ``idempotency_key`` to ``call_tool`` and now calls ``prediction-online`` itself, as
  listed (no ``idempotency_key`` argument there), pays a second request (checked
  on main: the marketplace nonce went from 4 to 5).

Expected: a call paid through ``call_tool`` stays readable through ``call_tool`` in every
mode (its name is reserved in every mode: it can mean nothing else), paying nothing more.
"""

import copy
import json
import time
from pathlib import Path
from typing import Any, Dict, List

import anyio

from mech_catalogue_cli.mcp_server.discovery import CALL_TOOL
from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import FIXTURES_DIR
from scripts.devnet.responder import Responder
from tests.devnet.mcp_helpers import market_nonce, stdio_client
from tests.devnet.test_mcp_offchain import native_mech
from tests.devnet.test_mcp_server import TOOL

#: tools the manifest adds to reach search mode (with the mech's own two: 42)
FILLERS = 40


def _declare(devnet: Devnet, service_id: int, fillers: int) -> None:
    """The service's manifest: the seed fixture plus ``fillers`` copies of TOOL.

    :param devnet: the devnet.
    :param service_id: the service of the mech.
    :param fillers: how many tools to add (named ``adv29p-filler-<i>``).
    """
    manifest = json.loads(
        (FIXTURES_DIR / "service_input_schema.json").read_text(encoding="utf-8")
    )
    manifest.pop("url", None)
    for index in range(fillers):
        tool = copy.deepcopy(manifest["toolMetadata"][TOOL])
        tool["name"] = f"adv29p-filler-{index}"
        manifest["tools"].append(tool["name"])
        manifest["toolMetadata"][tool["name"]] = tool
    _, digest = devnet.add_manifest(json.dumps(manifest).encode("utf-8"))
    devnet.change_service_hash(service_id, digest)


def test_a_call_paid_through_call_tool_is_read_after_the_mode_flips(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Paid through call_tool in search mode, read through call_tool in list mode.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    _declare(devnet, service_id, FILLERS)
    nonce = market_nonce(devnet)
    start = devnet.w3.eth.block_number  # the operator answers the request sent next
    arguments = {
        "name": TOOL,
        "arguments": {"prompt": "Read after the flip?", "temperature": 0.5},
        "idempotency_key": "adv29p-flip",
    }
    seen: Dict[str, Any] = {}
    modes: List[List[str]] = []

    async def names(client: Any) -> List[str]:
        return [tool.name for tool in (await client.list_tools()).tools]

    async def main() -> None:
        options = ("--mech", mech, "--poll", "1", "--timeout", "5")
        async with stdio_client(devnet, tmp_path, *options) as client:
            modes.append(await names(client))
            seen["pending"] = await client.call_tool(CALL_TOOL, arguments)
            seen["nonce after the first"] = market_nonce(devnet)
            _declare(devnet, service_id, 0)
            deadline = time.monotonic() + 30
            while CALL_TOOL in await names(client):
                assert time.monotonic() < deadline, "the catalogue was not re-read"
                await anyio.sleep(0.5)
            modes.append(await names(client))
            with Responder(devnet.info, [mech], from_block=start, interval=0.3):
                await anyio.sleep(3)  # delivered meanwhile
                seen["again"] = await client.call_tool(CALL_TOOL, arguments)

    anyio.run(main)
    again = seen["again"]
    observed = (
        f"tools listed {modes}; first call: {seen['pending'].content[0].text[:200]!r}; "
        f"nonce {nonce} -> {seen['nonce after the first']} -> {market_nonce(devnet)}; "
        f"again: error {again.is_error} {again.content[0].text[:200]!r}"
    )
    # premise: search mode (the three tools), then list mode (the mech's own tools)
    assert CALL_TOOL in modes[0] and TOOL in modes[1], observed
    assert seen["nonce after the first"] == nonce + 1, observed  # premise: paid once
    # observed on main: "no tool named 'call_tool' is served now; list the tools again"
    assert not again.is_error, observed
    assert "devnet stand-in" in str(again.content[0].text), observed
    assert market_nonce(devnet) == nonce + 1, observed
