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

"""A fee spike, or a node lying about fees, is not paid as is (devnet, stdio; fix29zd).

``--max-fee-per-gas`` had no default: a base fee raised tenfold was paid, and the fee
signed was twice the node's ``eth_gasPrice``, whatever the node said. Now the default
is the chain's (100 gwei on the devnet, ``chain/presets.py``) and the fee signed is
twice the latest block's base fee within it, no tip. Through the MCP SDK's client
over stdio, the devnet's responder answering: a base fee raised to 250 gwei
(``anvil_setNextBlockBaseFeePerGas``) refuses the call in words, nothing signed;
typed higher, it pays; a node whose ``eth_gasPrice``, ``eth_maxPriorityFeePerGas`` and
``eth_feeHistory`` lie (a thousand times the truth, through a loopback proxy) moves
nothing signed.
"""

import json
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator, Tuple

import pytest
from web3 import Web3
from web3.types import RPCEndpoint

from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import market_nonce, requester
from tests.test_mcp_gas_bound_devnet import _calls, _record, _text

pytestmark = pytest.mark.devnet

GWEI = 10**9
SPIKE = 250 * GWEI  # over the devnet's default cap, 100 gwei
LIE = 1_000 * 1_000 * GWEI  # what the lying node suggests: a million gwei


@pytest.fixture(name="spiked")
def _spiked(chain_snapshot: Devnet) -> Iterator[Tuple[Devnet, int]]:
    """The devnet with a block whose base fee is :data:`SPIKE` mined; its number.

    Anvil's ``evm_revert`` does not give back the next block's base fee (measured:
    reverted to block 0 at 1 gwei, its next block still came at 218.75 gwei), so the
    next block's base fee is set back to what it was before, then the chain reverted
    (``chain_snapshot``): the session's later tests meet the devnet as it was.

    :param chain_snapshot: the devnet, reverted afterwards.
    :yield: the devnet and the spiked block's number.
    """
    devnet = chain_snapshot

    def request(method: str, params: Any) -> Any:
        return devnet.w3.provider.make_request(RPCEndpoint(method), params)

    before = int(devnet.w3.eth.get_block("pending")["baseFeePerGas"])
    request("anvil_setNextBlockBaseFeePerGas", [hex(SPIKE)])
    request("evm_mine", [])
    try:
        block = devnet.w3.eth.get_block("latest")
        assert int(block["baseFeePerGas"]) == SPIKE
        yield devnet, int(block["number"])
    finally:
        request("anvil_setNextBlockBaseFeePerGas", [hex(before)])


def test_a_base_fee_spike_is_refused_by_the_default_cap_in_words(
    spiked: Tuple[Devnet, int], tmp_path: Path
) -> None:
    """250 gwei under the default 100 gwei: refused, both said, nothing signed or paid.

    :param spiked: the devnet and its spiked block.
    :param tmp_path: the server's state folder.
    """
    devnet, number = spiked
    account = Web3.to_checksum_address(requester(devnet))
    nonce = devnet.w3.eth.get_transaction_count(account)
    market = market_nonce(devnet)
    results, receipts = _calls(devnet, tmp_path, ["fix29zd spike"], "--timeout", "10")
    text = _text(results)
    assert results[0].is_error and not receipts, text
    assert f"the base fee of block {number}" in text, text
    assert "is 250 gwei (250,000,000,000 wei) per gas" in text, text
    assert "over --max-fee-per-gas 100 gwei (100,000,000,000 wei)" in text, text
    assert "nothing was signed nor sent" in text
    assert devnet.w3.eth.get_transaction_count(account) == nonce
    assert market_nonce(devnet) == market


def test_a_cap_typed_over_the_spike_pays_it_and_no_more(
    spiked: Tuple[Devnet, int], tmp_path: Path
) -> None:
    """``--max-fee-per-gas 400e9``: paid at the block's base fee, signed at most 400 gwei.

    :param spiked: the devnet and its spiked block.
    :param tmp_path: the server's state folder.
    """
    devnet, _ = spiked
    results, receipts = _calls(
        devnet,
        tmp_path,
        ["fix29zd typed"],
        "--timeout",
        "60",
        "--max-fee-per-gas",
        "400e9",
    )
    assert not results[0].is_error, _text(results)
    assert len(receipts) == 1, receipts
    receipt = receipts[0]
    tx = devnet.w3.eth.get_transaction(receipt["transactionHash"])
    assert (
        int(tx["maxFeePerGas"]) <= 400 * GWEI and int(tx["maxPriorityFeePerGas"]) == 0
    )
    base = int(devnet.w3.eth.get_block(receipt["blockNumber"])["baseFeePerGas"])
    assert int(receipt["effectiveGasPrice"]) == base < SPIKE  # decayed a block or two
    gas = _record(results[0])["gas"]
    assert gas["fee_per_gas_wei"] == str(base)


class _LyingNode:  # pylint: disable=too-few-public-methods
    """A loopback JSON-RPC proxy to the devnet whose fee suggestions lie.

    ``eth_gasPrice`` and ``eth_maxPriorityFeePerGas`` answer :data:`LIE`, and
    ``eth_feeHistory`` every base fee and reward as :data:`LIE`; everything else is the
    devnet's answer. ``asked`` counts the lying methods asked.
    """

    LYING = ("eth_gasPrice", "eth_maxPriorityFeePerGas", "eth_feeHistory")

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.asked: dict = {}
        node = self

        class Handler(BaseHTTPRequestHandler):
            """Forward, then lie."""

            def log_message(self, *_args: Any) -> None:
                """Quiet."""

            def do_POST(self) -> None:  # pylint: disable=invalid-name
                """One JSON-RPC call or batch."""
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = urllib.request.Request(
                    node.upstream, body, {"Content-Type": "application/json"}
                )
                with urllib.request.urlopen(request, timeout=30) as answer:  # nosec
                    upstream = json.loads(answer.read())
                calls = json.loads(body)
                lied = (
                    [node.lie(c, a) for c, a in zip(calls, upstream)]
                    if isinstance(calls, list)
                    else node.lie(calls, upstream)
                )
                data = json.dumps(lied).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def lie(self, call: Any, answer: Any) -> Any:
        """The devnet's answer, or the lie for a fee suggestion."""
        method = call.get("method") if isinstance(call, dict) else None
        if method not in self.LYING or not isinstance(answer, dict):
            return answer
        self.asked[method] = self.asked.get(method, 0) + 1
        if method == "eth_feeHistory":
            blocks = int(str(call["params"][0]), 0)
            return {
                **answer,
                "result": {
                    "oldestBlock": "0x1",
                    "baseFeePerGas": [hex(LIE)] * (blocks + 1),
                    "gasUsedRatio": [1.0] * blocks,
                    "reward": [[hex(LIE)]] * blocks,
                },
            }
        return {**answer, "result": hex(LIE)}


@pytest.fixture(name="lying_node")
def _lying_node(chain_snapshot: Devnet) -> Iterator[_LyingNode]:
    node = _LyingNode(chain_snapshot.info.rpc_url)
    yield node
    node.server.shutdown()


def test_a_node_lying_about_fees_moves_nothing_signed(
    chain_snapshot: Devnet, tmp_path: Path, lying_node: _LyingNode
) -> None:
    """Its suggestions are a million gwei: the request is signed at twice the base fee.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    :param lying_node: the proxy the server is given as ``--rpc``.
    """
    devnet = chain_snapshot
    results, receipts = _calls(
        devnet, tmp_path, ["fix29zd lying node"], "--rpc", lying_node.url
    )
    assert not results[0].is_error, _text(results)
    assert len(receipts) == 1, receipts
    receipt = receipts[0]
    tx = devnet.w3.eth.get_transaction(receipt["transactionHash"])
    assert int(tx["maxPriorityFeePerGas"]) == 0
    assert int(tx["maxFeePerGas"]) <= 100 * GWEI  # not twice the lie: the cap at most
    base = int(devnet.w3.eth.get_block(receipt["blockNumber"])["baseFeePerGas"])
    assert int(receipt["effectiveGasPrice"]) == base
