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

"""Waiting for a nonce's finality never ends, and never says why (adv29u F9).

Severity: LOW (a call stuck, or answering "call again later" for ever; nothing paid).

``Marketplace.final_nonce`` reads the account's transaction count ``FINAL_DEPTH``
blocks below the head. A node that prunes state that far back answers that block
with an error (geth's "missing trie node"): ``final_nonce`` raises web3's own error
(no ``MarketError``), which ``dropped.chain_fate`` takes as "unsure" and the call
keeps waiting, for ever, without saying why. On a chain younger than the depth (the
devnet, a fresh testnet) only the genesis is final, and the answer says "not final
yet ... call again later" without saying until when.

Observed on main (without a chain): ``final_nonce`` against a node answering
``missing trie node`` raises ``Web3RPCError``; the sentence for a cancelled request at
head 10 names no block to wait for.

Expected: the pruned node's error is the server's own, naming the node (no URL path
or key), the block asked and what to do; the wait on a young chain says until which
block (the genesis final).
"""

from pathlib import Path
from typing import Any, List

import pytest
from web3.exceptions import Web3RPCError

from mech_catalogue_cli.mcp_server.cancel import CANCEL_KEY
from mech_catalogue_cli.mcp_server.dropped import DROPPED_KEY, FINAL_DEPTH
from mech_catalogue_cli.mcp_server.market import MarketError, Marketplace
from tests.test_mcp_dropped_request_unit import (  # noqa: F401 # pylint: disable=unused-import
    CANCEL_HASH,
    ReorgedMarket,
    _gone,
    _server,
    delivered_body,
)
from tests.test_mcp_nonce_finality import held

RPC = "https://pruned.example/v2/secret-api-key"
HEAD = 200


def _pruned(monkeypatch: pytest.MonkeyPatch, asked: List[Any]) -> Marketplace:
    market = Marketplace(RPC, "0x" + "84" * 20, "0x" + "11" * 32)

    def count(_account: str, block: Any) -> int:
        asked.append(block)
        raise Web3RPCError("{'code': -32000, 'message': 'missing trie node 5a1b'}")

    def no_finalized_tag(method: str, params: Any) -> Any:
        assert method == "eth_getBlockByNumber", method
        message = f"invalid block tag {params[0]}"
        return {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {"code": -32602, "message": message},
        }

    monkeypatch.setattr(market, "head", lambda: HEAD)
    monkeypatch.setattr(market.w3.eth, "get_transaction_count", count)
    monkeypatch.setattr(market.w3.provider, "make_request", no_finalized_tag)
    return market


def test_a_pruned_node_says_which_node_which_block_and_what_to_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The count FINAL_DEPTH deep refused: the server's error, not web3's.

    :param monkeypatch: the node's answers.
    """
    asked: List[Any] = []
    market = _pruned(monkeypatch, asked)
    with pytest.raises(MarketError) as raised:
        market.final_nonce(FINAL_DEPTH)
    said = str(raised.value)
    assert asked == [HEAD - FINAL_DEPTH]
    assert "pruned.example" in said and "secret-api-key" not in said, said
    assert f"block {HEAD - FINAL_DEPTH}" in said, said
    assert "archive" in said and "--final-depth" in said, said


def test_a_chain_younger_than_the_depth_says_until_which_block(tmp_path: Path) -> None:
    """Head 10, the cancellation mined at block 9: final at block 9 + depth, said.

    :param tmp_path: the state folder.
    """
    market: Any = ReorgedMarket(head=10, confirmed=5, final=4, blocks={CANCEL_HASH: 9})
    app = _server(tmp_path, market)
    entry = _gone()
    entry.extra[DROPPED_KEY] = {"request_id": entry.request_id}
    entry.extra[CANCEL_KEY] = {"tx_hash": CANCEL_HASH, "reason": "over the cap"}
    said = held(app, entry)
    assert f"until block {9 + FINAL_DEPTH}" in said, said
    assert "genesis" in said, said
