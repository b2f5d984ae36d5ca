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

"""adv29zv P1 on the devnet: blocks with Polygon's 97-byte ``extraData`` refuse every call.

Severity: MEDIUM (issue #29 (e); see ``test_adv29zv_poa_base_fee.py``).

The MCP server runs over stdio, driven by the MCP SDK's client, its ``--rpc`` on
``scripts/loopback_proxy.py`` in front of the devnet's anvil: every
``eth_getBlockByNumber`` is forwarded and answered with the block's ``extraData``
made 97 bytes long (a 32-byte vanity and a 65-byte seal, as Polygon PoS's Bor blocks
carry); nothing else changes.

Observed on main: ``tools/list`` offers the tool, and its call ends with "the request
transaction to <marketplace> failed: ExtraDataLengthError ... POA chain", nothing
sent (the marketplace nonce unmoved): no paid call can be made.

Expected: the call pays its mech and returns the framed answer, as it does without
the proxy (the base fee read from ``baseFeePerGas`` whatever ``extraData`` holds).
"""

from pathlib import Path
from typing import Any, Dict, Optional

import anyio
import requests

from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.devnet.mcp_helpers import market_nonce, responder, stdio_client
from tests.devnet.test_mcp_server import REQUEST_META, TOOL

#: a Bor block's extraData: 32 bytes of vanity, 65 of seal
POA_EXTRA_DATA = "0x" + "d8" * 32 + "ab" * 65


def _poa_blocks(devnet: Devnet) -> Any:
    """``rpc_answer``: each block read from anvil, its ``extraData`` made Polygon's."""

    def answer(call: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        if call.get("method") != "eth_getBlockByNumber":
            return None
        upstream = requests.post(devnet.info.rpc_url, json=call, timeout=10).json()
        block = upstream.get("result")
        if not isinstance(block, dict):
            return {k: v for k, v in upstream.items() if k in ("result", "error")}
        return {"result": {**block, "extraData": POA_EXTRA_DATA}}

    return answer


def test_a_paid_call_over_poa_blocks(
    chain_snapshot: Devnet, tmp_path: Path, proxy: LoopbackProxy
) -> None:
    """The SDK's client calls the tool once: it is paid and answered.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the state folder.
    :param proxy: the server's node.
    """
    devnet = chain_snapshot
    proxy.rpc_answer = _poa_blocks(devnet)
    before = market_nonce(devnet)
    seen: Dict[str, Any] = {}

    async def main() -> None:
        async with stdio_client(
            devnet, tmp_path, "--rpc", proxy.url, "--timeout", "30"
        ) as client:
            listed = await client.list_tools()
            seen["listed"] = [tool.name for tool in listed.tools]
            seen["result"] = await client.call_tool(
                TOOL, {"prompt": "adv29zv: a Polygon-like chain"}
            )

    with responder(devnet):  # the devnet's mechs answer
        anyio.run(main)
    result = seen["result"]
    text = str(result.content[0].text)
    print(text)  # what the person and the model read
    assert TOOL in seen["listed"]  # premise: the catalogue is read through the proxy
    assert proxy.counters.faults > 0  # premise: blocks were answered as Polygon's
    paid = (result.meta or {}).get(REQUEST_META) or {}
    assert not result.is_error and paid.get("request_id"), text
    assert market_nonce(devnet) == before + 1, text
