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

"""A dropped request whose account nonce another call took is waited for forever (adv29t).

Severity: LOW-MEDIUM (nothing is paid twice, but the call is stuck for good, each call
with its arguments waiting ``--timeout`` and saying the request "stays paid on chain";
it takes a reorg that drops the request without putting it back, as adv29p's).

adv29p's fix sends a dropped request again only while its account nonce is free
(``dropped.dropped_from_chain``: the account's mined nonce at most the entry's). The
server's very next request with *other* arguments takes that nonce (the node's count
went back with the reorg), so the dropped request's nonce is used, it is never "gone",
and it is waited for as before the fix.

Observed on main (devnet, the MCP SDK's client over stdio): the agent calls A (mined,
not delivered in 5 s), ``anvil_reorg`` drops it; the agent then calls B (other
arguments: sent at A's account nonce, answered), then A again twice: each waits 5 s and
says "was not delivered ... it stays paid on chain"; the marketplace nonce moved once
(B's request only).

Expected: A's request, unknown to the marketplace with no receipt, is not waited for
forever once its nonce went to another transaction, final (``FINAL_DEPTH`` blocks
mined here): it is sent (once) and answered, so the marketplace nonce moves by two in
the end (one request per call).
"""

from pathlib import Path
from typing import Any, Dict

import anyio
from web3 import Web3
from web3.types import RPCEndpoint

from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH
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


def test_a_dropped_request_whose_nonce_was_taken_is_not_waited_for_forever(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A paid and dropped by a reorg, B sent at its nonce: A answered in the end.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    w3 = devnet.w3
    first = {"prompt": "Dropped by a reorg, adv29t?", "temperature": 0.5}
    other = {"prompt": "Sent after the reorg, adv29t", "temperature": 0.5}
    nonce = market_nonce(devnet)
    account = Web3.to_checksum_address(requester(devnet))
    seen: Dict[str, Any] = {}

    async def main() -> None:
        options = ("--timeout", "5")
        async with stdio_client(devnet, tmp_path, *options) as client:
            seen["first"] = await client.call_tool(TOOL, first)
        request = seen["first"].meta[REQUEST_META]
        seen["tx nonce"] = w3.eth.get_transaction(request["tx_hash"])["nonce"]
        mined = w3.eth.get_transaction(request["tx_hash"])["blockNumber"]
        w3.provider.make_request(
            RPCEndpoint("anvil_reorg"), [w3.eth.block_number - mined + 1, []]
        )
        seen["requester after"] = request_info(devnet, request["request_id"])[
            "requester"
        ]
        with responder(devnet):
            async with stdio_client(devnet, tmp_path, *options) as client:
                seen["other"] = await client.call_tool(TOOL, other)
                other_tx = seen["other"].meta[REQUEST_META]["tx_hash"]
                seen["other nonce"] = w3.eth.get_transaction(other_tx)["nonce"]
                # time passing: the other request's nonce final (FINAL_DEPTH deep)
                w3.provider.make_request(RPCEndpoint("anvil_mine"), [FINAL_DEPTH])
                seen["again"] = await client.call_tool(TOOL, first)
                seen["third"] = await client.call_tool(TOOL, first)
        seen["account nonce"] = w3.eth.get_transaction_count(account)

    anyio.run(main)
    observed = (
        f"first tx nonce {seen['tx nonce']}, other's {seen.get('other nonce')}; "
        f"other error {seen['other'].is_error}; again: "
        f"{seen['again'].content[0].text[:260]!r}; third error "
        f"{seen['third'].is_error}; market nonce {nonce} -> {market_nonce(devnet)}"
    )
    # premise: dropped, and the other call's request took its account nonce
    assert seen["requester after"] == NOBODY, observed
    assert not seen["other"].is_error, observed
    assert seen["other nonce"] == seen["tx nonce"], observed
    # observed on main: "... was not delivered within 5 s (...; it stays paid on
    # chain)", each time
    assert not seen["again"].is_error, observed
    assert "devnet stand-in" in str(seen["again"].content[0].text), observed
    assert market_nonce(devnet) == nonce + 2, observed
