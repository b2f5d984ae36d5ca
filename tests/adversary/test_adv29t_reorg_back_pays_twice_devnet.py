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

"""A dropped request cancelled, another paid, then the reorg undone: one call paid twice.

Severity: LOW (pay twice; it takes a reorg that drops the request, the mech's price
moving over ``--max-price`` meanwhile, then a reorg back to the fork that held the
request, which is what a short reorg often is).

adv29p's fix acts on the first head that lacks a mined request: when its mech may no
longer be paid (``_stale``) it cancels the request's account nonce
(``sent_again_if_dropped``), and the next call with the same arguments pays another
offer at the next nonce. If the chain goes back to the fork that mined the request,
the cancellation is void (its nonce was used by the request) and the new request,
still valid at the next nonce, is mined as well: one call, two paid requests. Before
the fix the call only waited (never paid again).

Observed on main (devnet, the MCP SDK's client over stdio, ``--max-price 0.01 ETH``):
call A, mined at account nonce N and not delivered; ``anvil_reorg`` drops it; the
mech's rate goes to 1 ETH; A again: "no longer on chain ... not sent again ... account
nonce was taken by cancellation"; A again: paid to another mech at nonce N + 1;
``anvil_reorg`` back over the cancellation with A's and the new request's signed bytes:
both transactions are mined and succeed, the marketplace nonce moved by two for one
call (3 -> 5): two mechs paid their price for one call.

Expected: one call's arguments pay one request, whatever the reorgs: the marketplace
holds at most one request of this requester for the call in the end (the call after
the cancellation pays no other mech while the cancellation is not final, and says so).
"""

from pathlib import Path
from typing import Any, Dict

import anyio
from web3.types import RPCEndpoint

from scripts.devnet import Devnet
from tests.adversary.test_mcp_paid_answer import _with_safe
from tests.devnet.mcp_helpers import market_nonce, request_info, stdio_client
from tests.devnet.test_mcp_server import REQUEST_META, TOOL

#: no requester: a request id the marketplace does not hold
NOBODY = "0x" + "0" * 40


def test_a_reorg_back_after_a_cancelled_drop_pays_once(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A dropped, cancelled, paid to another; the reorg undone: one request in the end.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    w3 = devnet.w3

    def rpc(method: str, *params: Any) -> Any:
        return w3.provider.make_request(RPCEndpoint(method), list(params))

    arguments = {"prompt": "Dropped, cancelled, re-mined, adv29t?", "temperature": 0.5}
    nonce = market_nonce(devnet)
    seen: Dict[str, Any] = {}
    options = ("--timeout", "5", "--max-price", str(10**16))

    async def call() -> Any:
        async with stdio_client(devnet, tmp_path, *options) as client:
            return await client.call_tool(TOOL, arguments)

    seen["first"] = anyio.run(call)
    first = seen["first"].meta[REQUEST_META]
    first_raw = "0x" + bytes(w3.eth.get_raw_transaction(first["tx_hash"])).hex()
    mined = w3.eth.get_transaction(first["tx_hash"])["blockNumber"]
    rpc("anvil_reorg", w3.eth.block_number - mined + 1, [])
    seen["dropped"] = request_info(devnet, first["request_id"])["requester"]
    fork = w3.eth.block_number  # the blocks after it are undone below
    _with_safe(devnet, first["mech"])
    devnet.change_max_delivery_rate(first["mech"], 10**18)
    seen["cancelled"] = anyio.run(call)
    seen["replaced"] = anyio.run(call)
    second = (seen["replaced"].meta or {}).get(REQUEST_META, {})
    sent = [first_raw]  # a replacement, when one was paid, re-mined after it
    if second.get("tx_hash"):
        sent.append("0x" + bytes(w3.eth.get_raw_transaction(second["tx_hash"])).hex())
    # back to a fork holding the first request, the replacement still valid after it
    back = rpc("anvil_reorg", w3.eth.block_number - fork, [[raw, 0] for raw in sent])
    assert "error" not in back, back
    # the second's request id moves with the marketplace nonce: read the receipts
    on_chain = [
        w3.eth.get_transaction_receipt(r["tx_hash"])["status"] == 1
        for r in (first, second)
        if r.get("tx_hash")
    ]
    observed = (
        f"dropped requester {seen['dropped']}; cancelled: "
        f"{seen['cancelled'].content[0].text[:200]!r}; replaced by "
        f"{second.get('mech')} ({second.get('request_id')}); mined and not reverted {on_chain}; "
        f"market nonce {nonce} -> {market_nonce(devnet)}"
    )
    assert seen["dropped"] == NOBODY, observed  # premise: the reorg dropped it
    assert "cancel" in seen["cancelled"].content[0].text, observed
    # no replacement while the cancellation is not final (said), or another request
    replaced_text = str(seen["replaced"].content[0].text)
    assert second.get("request_id") != first["request_id"], observed
    assert second or "not final" in replaced_text, observed
    # observed on main: both on chain, the marketplace nonce moved by two
    assert on_chain.count(True) <= 1, observed
    assert market_nonce(devnet) <= nonce + 1, observed
