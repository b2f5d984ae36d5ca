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

"""A request a reorg dropped is waited for forever, said "paid on chain" (adv29p, devnet).

Severity: LOW-MEDIUM (nothing is paid, but the call is stuck for good: each call with
the same arguments waits ``--timeout`` for a request that does not exist and says it
"stays paid on chain" (whether ``--max-spend`` still counts its price was not
measured). It takes a reorg that drops the request's transaction without putting it
back, or a hostile RPC).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
operator) with the MCP SDK's client over stdio, one agent:

- the agent calls ``prediction-online``: sent, mined (the journal says SENT), not
  delivered within ``--timeout`` (5 s): "call again ... (that will not pay again)";
- ``anvil_reorg`` replaces the blocks from the request's on: the request is gone
  (``mapRequestIdInfos`` all zero, ``mapNonces`` and the account's nonce back by one);
  the transaction is not put back;
- the stand-in operator runs; the agent calls again twice with the same arguments: each
  time the server (``call``: "paid already (its receipt was seen): only wait")
  waits 5 s and answers that the request "was not delivered ... it stays paid on
  chain". ``corrected_request_id`` reads the request's status (it does not exist) but
  only looks for another id in the receipt, which is gone too.

Expected: a request that does not exist, whose transaction is no longer on chain and
whose account nonce is free again, is not waited for: the call says so and is sent
again (the same account nonce, so at most one of the two can be mined), and the
answer is read, one request on chain in the end.
"""

from pathlib import Path
from typing import Any, Dict

import anyio
from web3 import Web3
from web3.types import RPCEndpoint

from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import (
    market_nonce,
    request_info,
    requester,
    responder,
    stdio_client,
)
from tests.devnet.test_mcp_server import REQUEST_META, TOOL

#: no requester: a request id the marketplace does not hold
NOBODY = "0x" + "0" * 40


def test_a_request_dropped_by_a_reorg_is_not_waited_for_forever(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Paid, mined, dropped by a reorg: calling again sends it again and reads it.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    w3 = devnet.w3
    arguments = {"prompt": "Dropped by a reorg?", "temperature": 0.5}
    nonce = market_nonce(devnet)
    account = Web3.to_checksum_address(requester(devnet))
    seen: Dict[str, Any] = {}

    async def main() -> None:
        options = ("--timeout", "5")
        async with stdio_client(devnet, tmp_path, *options) as client:
            seen["first"] = await client.call_tool(TOOL, arguments)
        request = seen["first"].meta[REQUEST_META]
        seen["account nonce"] = [w3.eth.get_transaction_count(account)]
        mined = w3.eth.get_transaction(request["tx_hash"])["blockNumber"]
        w3.provider.make_request(
            RPCEndpoint("anvil_reorg"), [w3.eth.block_number - mined + 1, []]
        )
        seen["account nonce"].append(w3.eth.get_transaction_count(account))
        seen["requester after"] = request_info(devnet, request["request_id"])[
            "requester"
        ]
        with responder(devnet):
            async with stdio_client(devnet, tmp_path, *options) as client:
                seen["again"] = await client.call_tool(TOOL, arguments)
                seen["third"] = await client.call_tool(TOOL, arguments)

    anyio.run(main)
    observed = (
        f"first: {seen['first'].content[0].text[:120]!r}; account nonce "
        f"{seen['account nonce']}; requester after the reorg {seen['requester after']}"
        f"; again: {seen['again'].content[0].text[:260]!r}; third error "
        f"{seen['third'].is_error}; market nonce {nonce} -> {market_nonce(devnet)}"
    )
    # premise: sent and mined, then dropped with its account nonce
    assert seen["first"].is_error and "not delivered" in str(
        seen["first"].content[0].text
    ), observed
    assert seen["requester after"] == NOBODY, observed
    assert seen["account nonce"][1] == seen["account nonce"][0] - 1, observed
    # observed on main: "... was not delivered within 5 s (tx ...; it stays paid on
    # chain). Call again with the same arguments to keep waiting", each time
    assert not seen["again"].is_error, observed
    assert "devnet stand-in" in str(seen["again"].content[0].text), observed
    assert market_nonce(devnet) == nonce + 1, observed
