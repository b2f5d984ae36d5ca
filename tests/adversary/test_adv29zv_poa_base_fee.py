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

"""adv29zv P1: on Polygon no request and no cancellation can be signed (base fee read).

Severity: MEDIUM (issue #29 (e): on a chain of the presets, every paid on-chain call is
refused before it pays, and a stale signed request can never be cancelled, so the
call holding it stays held; nothing is paid, nothing lost).

fix29zd signs ``maxFeePerGas`` = twice the latest base fee, read by
``Marketplace._base_fee`` with ``w3.eth.get_block("latest")``. Polygon PoS (Bor) blocks
carry 97 bytes of ``extraData`` (a 32-byte vanity and a 65-byte seal), and web3's
default validation refuses any block whose ``extraData`` is over 32 bytes
(``ExtraDataLengthError``: "It is quite likely that you are connected to a POA
chain") unless ``ExtraDataToPOAMiddleware`` is injected, which the server never does.
fix29zc already reads the ``finalized`` block raw for this very reason
(``finality.finalized_number``), but the base fee read of fix29zd is not raw.
``Marketplace.sign`` turns the error into ``MarketError`` ("the request transaction
... failed: ExtraDataLengthError"), so every request, approval and deposit is refused;
``Marketplace.sign_cancel`` too ("the cancellation ... could not be signed").

Observed on main (a real ``Marketplace`` over a node answering a Polygon-like block,
``--chain polygon``'s 1,000 gwei cap): ``sign`` and ``sign_cancel`` raise
``MarketError`` naming ``ExtraDataLengthError``.

Expected: the base fee is read from the block's ``baseFeePerGas`` whatever its
``extraData`` (raw, as ``finalized_number`` does, or with the PoA middleware on
such chains); the request is signed at twice it, the cancellation at its rule.
"""

from typing import Any, List

from eth_account import Account
from web3 import Web3
from web3.providers import BaseProvider
from web3.types import RPCEndpoint, RPCResponse

from mech_catalogue_cli.mcp_server.market import Marketplace, SignedRequest

KEY = "0x" + "01" * 32
REQUESTER = Account.from_key(KEY).address  # pylint: disable=no-value-for-parameter
#: 30 gwei, a Polygon base fee of an ordinary day
BASE_FEE = 30 * 10**9
POLYGON_CAP = 1_000 * 10**9
#: a Bor block as Polygon's public RPC answers it (97 bytes of extraData)
POLYGON_BLOCK = {
    "number": hex(70_000_000),
    "hash": "0x" + "11" * 32,
    "parentHash": "0x" + "22" * 32,
    "extraData": "0x" + "d8" * 32 + "ab" * 65,
    "baseFeePerGas": hex(BASE_FEE),
    "timestamp": hex(1_764_800_000),
    "gasLimit": hex(30_000_000),
    "gasUsed": hex(15_000_000),
    "miner": "0x" + "00" * 20,
    "transactions": [],
    "uncles": [],
    "nonce": "0x0000000000000000",
    "difficulty": "0x1",
    "logsBloom": "0x" + "00" * 256,
    "sha3Uncles": "0x" + "33" * 32,
    "stateRoot": "0x" + "44" * 32,
    "transactionsRoot": "0x" + "55" * 32,
    "receiptsRoot": "0x" + "66" * 32,
    "size": hex(4096),
    "mixHash": "0x" + "00" * 32,
}


class PolygonNode(BaseProvider):
    """A node answering what signing reads, its blocks as Polygon's."""

    def __init__(self) -> None:
        """Keep the methods asked."""
        super().__init__()
        self.asked: List[str] = []

    def make_request(self, method: RPCEndpoint, params: Any) -> RPCResponse:
        """Answer the chain id, the nonce, the estimate and the latest block."""
        self.asked.append(str(method))
        answers = {
            "eth_chainId": hex(137),
            "eth_getTransactionCount": hex(7),
            "eth_estimateGas": hex(100_000),
            "eth_getBlockByNumber": POLYGON_BLOCK,
            "eth_blockNumber": POLYGON_BLOCK["number"],
        }
        if method not in answers:
            raise AssertionError(f"not read here: {method}")
        return {"jsonrpc": "2.0", "id": 1, "result": answers[method]}  # type: ignore[typeddict-item]  # fmt: skip

    def is_connected(self, show_traceback: bool = False) -> bool:
        """Always reachable: the node is this object."""
        return True


def _market() -> Marketplace:
    market = Marketplace(
        "http://127.0.0.2:1",
        "0x" + "84" * 20,
        KEY,
        gas_bounds=(500_000, POLYGON_CAP),
    )
    market.w3 = Web3(PolygonNode())
    return market


def test_a_request_is_signed_on_polygon() -> None:
    """A request transaction is signed at twice the base fee, under the preset's cap."""
    market = _market()
    signed = market.sign(
        {
            "from": REQUESTER,
            "to": "0x" + "84" * 20,
            "value": 0,
            "data": "0x",
            "chainId": 137,
        }
    )
    assert signed.account_nonce == 7
    assert signed.raw_tx.startswith("0x02")


def test_a_cancellation_is_signed_on_polygon() -> None:
    """A stale request signed at twice the base fee can be cancelled under the cap."""
    market = _market()
    pending = Account.sign_transaction(  # pylint: disable=no-value-for-parameter
        {
            "to": "0x" + "84" * 20,
            "value": 0,
            "data": "0x",
            "nonce": 7,
            "gas": 120_000,
            "maxFeePerGas": 2 * BASE_FEE,
            "maxPriorityFeePerGas": 0,
            "chainId": 137,
        },
        KEY,
    )
    signed = market.sign_cancel(
        SignedRequest(
            "0x" + bytes(pending.raw_transaction).hex(),
            "0x" + bytes(pending.hash).hex(),
            7,
        )
    )
    assert signed.account_nonce == 7


def test_the_finalized_block_is_read_on_polygon() -> None:
    """Control: fix29zc's raw read of the same block answers its number."""
    market = _market()
    assert market.final_block(256).tagged
