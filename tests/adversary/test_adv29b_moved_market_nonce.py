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

"""Adversarial review adv29b: a request id derived from a stale nonce loses the paid answer.

The server derives the request id before sending (``getRequestId(..., mapNonces
(requester))``), journals it, and after the receipt marks the entry ``sent`` without
reading the id the marketplace really gave (the receipt's ``MarketplaceRequest``
event). When any other request of the same account is mined between the nonce read and
the server's transaction (a second server, the user's mech-client or requester service
on the same key, ...), the server's request is mined under the next nonce, so under
another id: it is paid and delivered, but the server waits for an id that does not
exist. The call ends "not delivered ... It stays paid on chain; call again", and every
retry waits for the same non-existent id (``recall_paid`` returns the ``sent`` entry
first): the paid answer is never read.

The other request is injected right after the server's ``mapNonces`` read, by a proxy
in front of the RPC (so the interleaving is deterministic; any delay gives the same).

Expected (stated here; fails on main fb8e46c): the call returns the delivered answer of
the request it paid (the id read from the receipt), and the journal holds that id.
"""

import json
import threading
from pathlib import Path
from typing import Dict, Tuple

import anyio
from web3 import Web3

from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.devnet.mcp_helpers import requester, responder, stdio_client
from tests.devnet.test_mcp_offer_choice import REQUEST_META, TOOL, seed_mech

SELECTOR = Web3.keccak(text="mapNonces(address)")[:4].hex().removeprefix("0x")


class NonceRaceProxy(LoopbackProxy):
    """Forwards the RPC; once armed, mines another request of the account.

    The other request is mined after the first ``mapNonces`` read passes (the read
    answers the old nonce).
    """

    def __init__(self, upstream: str, devnet: Devnet) -> None:
        """Proxy ``upstream``; the other request goes to the ``deployed`` seed mech."""
        super().__init__(upstream)
        self.devnet = devnet
        self.armed = threading.Event()
        self.other_id = b""

    def forward(
        self, method: str, path: str, body: bytes, headers: Dict[str, str]
    ) -> Tuple[int, str, bytes]:
        """Forward; after an armed ``mapNonces`` read, send the other request."""
        answer = super().forward(method, path, body, headers)
        if self.armed.is_set() and SELECTOR in body.decode(errors="replace"):
            self.armed.clear()
            mech = seed_mech(self.devnet, "deployed")["address"]
            self.other_id = self.devnet.request_mech(
                mech, b"\x77" * 32, requester(self.devnet)
            )
        return answer


def test_a_request_mined_under_a_moved_nonce_keeps_its_paid_answer(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Another request of the account lands after the nonce read: the answer is lost.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    proxy = NonceRaceProxy(devnet.info.rpc_url, devnet)
    with proxy, responder(devnet):

        async def main() -> list:
            async with stdio_client(
                devnet, tmp_path, "--rpc", proxy.url, "--timeout", "20"
            ) as client:
                await client.list_tools()
                proxy.armed.set()
                first = await client.call_tool(TOOL, {"prompt": "Rain in Porto?"})
                again = await client.call_tool(TOOL, {"prompt": "Rain in Porto?"})
                return [first, again]

        first, again = anyio.run(main)
    assert proxy.other_id, "the other request was not sent"
    (entry,) = [json.loads(p.read_text()) for p in (tmp_path / "calls").glob("*.json")]
    journalled = entry["request_id"]
    market = devnet.contract("MechMarketplace")
    status = market.functions.getRequestStatus(bytes.fromhex(journalled[2:])).call()
    receipt = devnet.w3.eth.get_transaction_receipt(entry["tx_hash"])
    (event,) = market.events.MarketplaceRequest().process_receipt(receipt)
    real = bytes(event["args"]["requestIds"][0])
    real_status = market.functions.getRequestStatus(real).call()
    texts = [r.content[0].text[:200] for r in (first, again)]
    assert not first.is_error and not again.is_error, (
        f"journalled request {journalled} has marketplace status {status} "
        f"(0: does not exist); the request paid is 0x{real.hex()}, status "
        f"{real_status}; the call and its retry said: {texts}; "
        f"meta: {first.meta.get(REQUEST_META, {}).get('request_id')}"
    )
