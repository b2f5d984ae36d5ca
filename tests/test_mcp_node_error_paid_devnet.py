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


"""A node failing ``eth_blockNumber`` around a paid call, and the tip signed, on the devnet.

The MCP server runs over stdio (the SDK's client) with its ``--rpc`` on
``scripts/loopback_proxy.py`` in front of anvil. Once the call is made, the proxy
answers every ``eth_blockNumber`` with a JSON-RPC error (a public RPC's rate limit,
-32005): from the start of the call (before anything is signed), or only once the
request transaction passed it (after the broadcast). Before, the head's
``Web3RPCError`` left the server raw; now the call ends with the server's sentence:
nothing signed in the first case, the paid request named with how to read its answer
in the second, where calling again with the node well reads it without paying again.
The last test sends a transaction with Polygon's least tip (25 gwei) to anvil and
reads it back as mined.
"""

import threading
from pathlib import Path
from typing import Any, Dict, Optional

import anyio
import pytest
from web3 import Web3

from mech_catalogue_cli.mcp_server.market import Marketplace
from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.devnet.mcp_helpers import market_nonce, requester, responder, stdio_client
from tests.devnet.test_mcp_server import REQUEST_META, TOOL

pytestmark = pytest.mark.devnet

GWEI = 10**9
#: a public RPC's rate limit
LIMITED = {"code": -32005, "message": "limit exceeded"}


class HeadFault:  # pylint: disable=too-few-public-methods
    """The proxy's ``rpc_answer``: ``eth_blockNumber`` refused while armed.

    :param after_send: armed only once an ``eth_sendRawTransaction`` passed.
    """

    def __init__(self, after_send: bool) -> None:
        """Start unarmed (the server reads its catalogue first)."""
        self.after_send = after_send
        self.armed = threading.Event()
        self.sent = threading.Event()
        self.refused = 0

    def __call__(self, call: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """Refuse the head's read when armed; forward everything else."""
        method = call.get("method")
        if method == "eth_sendRawTransaction" and self.armed.is_set():
            self.sent.set()
        if method != "eth_blockNumber" or not self.armed.is_set():
            return None
        if self.after_send and not self.sent.is_set():
            return None
        self.refused += 1
        return {"error": LIMITED}


def _call(
    devnet: Devnet, tmp_path: Path, proxy: LoopbackProxy, fault: Optional[HeadFault]
) -> Any:
    """One paid call through the SDK's client, the fault armed once the server is up.

    :param devnet: the devnet.
    :param tmp_path: the server's state folder.
    :param proxy: the server's ``--rpc``.
    :param fault: the head's fault (None: the node answers).
    :return: the ``CallToolResult``.
    """
    proxy.rpc_answer = fault

    async def main() -> Any:
        flags = ("--rpc", proxy.url, "--timeout", "60")
        async with stdio_client(devnet, tmp_path, *flags) as client:
            if fault is not None:
                fault.armed.set()
            return await client.call_tool(TOOL, {"prompt": "a head unread, paid?"})

    with responder(devnet):
        return anyio.run(main)


def test_a_head_refused_before_signing_ends_the_call_with_nothing_paid(
    chain_snapshot: Devnet, tmp_path: Path, proxy: LoopbackProxy
) -> None:
    """eth_blockNumber refused from the call's start: nothing signed, said so.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    :param proxy: the server's node.
    """
    devnet = chain_snapshot
    account = Web3.to_checksum_address(requester(devnet))
    sent, nonce = devnet.w3.eth.get_transaction_count(account), market_nonce(devnet)
    fault = HeadFault(after_send=False)
    result = _call(devnet, tmp_path, proxy, fault)
    text = str(result.content[0].text)
    assert result.is_error and fault.refused, text
    assert "the latest block number could not be read" in text, text
    assert "limit exceeded" in text and "Internal" not in text, text
    assert "nothing was signed nor sent for this call" in text, text
    assert "call again with the same arguments" in text
    assert devnet.w3.eth.get_transaction_count(account) == sent
    assert market_nonce(devnet) == nonce


def test_a_head_refused_after_the_broadcast_names_the_paid_request_and_a_retry_reads_it(
    chain_snapshot: Devnet, tmp_path: Path, proxy: LoopbackProxy
) -> None:
    """eth_blockNumber refused once the request was sent: paid, named, read again once.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    :param proxy: the server's node.
    """
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    fault = HeadFault(after_send=True)
    first = _call(devnet, tmp_path, proxy, fault)
    text = str(first.content[0].text)
    assert fault.sent.is_set() and fault.refused, text
    assert first.is_error and "Internal" not in text, text
    request_id = (first.meta or {})[REQUEST_META]["request_id"]
    assert f"request {request_id}" in text and "is paid" in text, text
    assert "the latest block number could not be read" in text, text
    assert "Call again with the same arguments to read it" in text, text
    assert market_nonce(devnet) == nonce + 1  # paid once
    proxy.reset_counters()
    second = _call(devnet, tmp_path, proxy, None)
    assert not second.is_error, second.content[0].text
    assert (second.meta or {})[REQUEST_META]["request_id"] == request_id
    assert market_nonce(devnet) == nonce + 1  # not paid again
    assert proxy.counters.rpc_methods.get("eth_sendRawTransaction", 0) == 0


def test_the_tip_signed_is_the_chain_s_least_and_is_mined(
    chain_snapshot: Devnet,
) -> None:
    """A transaction signed with Polygon's 25 gwei tip is mined with that tip.

    :param chain_snapshot: the devnet, reverted afterwards.
    """
    devnet = chain_snapshot
    key = str(devnet.info.accounts["stranger"]["private_key"])
    market = Marketplace(
        devnet.info.rpc_url, devnet.info.contracts["MechMarketplace"], key
    )
    market.tips.least = 25 * GWEI
    account = market.requester
    tx_hash = market.send(
        {
            "from": account,
            "to": account,
            "value": 0,
            "data": "0x",
            "chainId": market.chain_id(),
        },
        wait=30,
    )
    mined = devnet.w3.eth.get_transaction(tx_hash)  # type: ignore[arg-type]
    receipt = devnet.w3.eth.get_transaction_receipt(tx_hash)  # type: ignore[arg-type]
    base = int(devnet.w3.eth.get_block(receipt["blockNumber"])["baseFeePerGas"])
    assert int(mined["maxPriorityFeePerGas"]) == 25 * GWEI
    assert int(mined["maxFeePerGas"]) >= base + 25 * GWEI
    assert int(receipt["effectiveGasPrice"]) == base + 25 * GWEI
