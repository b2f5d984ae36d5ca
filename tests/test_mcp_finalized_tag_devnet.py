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


"""The node's ``finalized`` block on the devnet: anvil's answer, a node without it, a liar.

anvil answers ``eth_getBlockByNumber("finalized")`` with the block 64 below its head
(the genesis on a younger chain): the devnet's final block is the same with the tag as
with the default depth, and its revert reproductions mine ``FINAL_DEPTH`` blocks
either way. Through ``scripts/loopback_proxy.py`` (``rpc_answer``) the node answers
the tag with an error (the depth is used), with a block past its head (not believed:
the depth), or with its head (every mined block final). The MCP server is run over
stdio with its ``--rpc`` on the proxy for the last two, its chosen mech reverting
only when mined (``tests/devnet/reverting_mech.py``).
"""

from pathlib import Path
from typing import Any, Callable, Dict, Optional, Tuple

import anyio
import pytest
from web3 import Web3
from web3.types import RPCEndpoint, Wei

from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH
from mech_catalogue_cli.mcp_server.market import Marketplace
from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.devnet.mcp_helpers import market_nonce, price_of, requester, stdio_client
from tests.devnet.reverting_mech import reverting_when_mined
from tests.devnet.test_mcp_server import REQUEST_META, TOOL

#: anvil's finalized block trails its head by two epochs of 32 slots
ANVIL_FINALIZED_LAG = 64


def _rpc(devnet: Devnet, method: str, *params: Any) -> Any:
    return devnet.w3.provider.make_request(RPCEndpoint(method), list(params))


def _mine(devnet: Devnet, blocks: int) -> None:
    _rpc(devnet, "anvil_mine", hex(blocks))


def _market(devnet: Devnet, rpc: str) -> Marketplace:
    key = str(devnet.info.accounts["stranger"]["private_key"])
    return Marketplace(rpc, devnet.info.contracts["MechMarketplace"], key)


def _one_transaction(devnet: Devnet) -> int:
    """The requester sends itself nothing, mined: its count moves by one.

    :param devnet: the devnet.
    :return: the block it was mined in.
    """
    account = Web3.to_checksum_address(requester(devnet))
    tx = devnet.w3.eth.send_transaction(
        {"from": account, "to": account, "value": Wei(0)}
    )
    return int(devnet.w3.eth.wait_for_transaction_receipt(tx)["blockNumber"])


def _finalized_answer(devnet: Devnet, past_head: int) -> Callable[..., Any]:
    """A node whose ``finalized`` block is its head plus ``past_head`` (a real block).

    :param devnet: the devnet (its head read at each call).
    :param past_head: blocks past the head said final (0: the head itself).
    :return: the proxy's ``rpc_answer``.
    """

    def answer(call: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        if call.get("method") != "eth_getBlockByNumber" or call["params"][0] != (
            "finalized"
        ):
            return None
        block = _rpc(devnet, "eth_getBlockByNumber", "latest", False)["result"]
        return {
            "result": {**block, "number": hex(int(block["number"], 16) + past_head)}
        }

    return answer


def _no_tag(call: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    if (
        call.get("method") == "eth_getBlockByNumber"
        and call["params"][0] == "finalized"
    ):
        return {"error": {"code": -32602, "message": "invalid block tag finalized"}}
    return None


def test_anvil_answers_its_head_minus_64_and_the_count_is_read_there(
    chain_snapshot: Devnet,
) -> None:
    """The tag is read (not the depth asked); a transaction is final 64 blocks on.

    :param chain_snapshot: the devnet, reverted afterwards.
    """
    devnet = chain_snapshot
    account = Web3.to_checksum_address(requester(devnet))

    def count_at(block: int) -> int:
        return int(devnet.w3.eth.get_transaction_count(account, block))

    market = _market(devnet, devnet.info.rpc_url)
    mined_in = _one_transaction(devnet)
    _mine(devnet, 10)  # 10 deep: final by a depth of 10, not by anvil's tag
    final = market.final_block(10)
    assert final.tagged and final.number == final.head - ANVIL_FINALIZED_LAG, final
    assert market.final_nonce(10) == count_at(final.number) < count_at(mined_in)
    market.finalized_tag = False  # --final-depth 10 given: the depth, not the tag
    assert market.final_block(10).number == final.head - 10
    assert market.final_nonce(10) == count_at(mined_in)
    market.finalized_tag = True
    _mine(devnet, mined_in + ANVIL_FINALIZED_LAG - devnet.w3.eth.block_number)
    assert market.final_block(10).number == mined_in
    assert market.final_nonce(10) == count_at(mined_in)


def test_a_node_refusing_the_tag_gives_the_depth(
    chain_snapshot: Devnet, proxy: LoopbackProxy
) -> None:
    """The tag answered with an error: ``head - depth``, the count read there.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param proxy: the node's answers.
    """
    devnet = chain_snapshot
    proxy.rpc_answer = _no_tag
    market = _market(devnet, proxy.url)
    final = market.final_block(10)
    assert not final.tagged and final.number == final.head - 10, final
    mined_in = _one_transaction(devnet)
    count = devnet.w3.eth.get_transaction_count(
        Web3.to_checksum_address(requester(devnet))
    )
    _mine(devnet, 9)
    assert market.final_block(10).number == mined_in - 1
    assert market.final_nonce(10) == count - 1  # 9 deep: not final
    _mine(devnet, 1)
    assert market.final_nonce(10) == count
    assert proxy.counters.faults >= 3  # premise: the tag was asked and refused


@pytest.mark.parametrize("past_head", [1, 1000])
def test_a_finalized_block_past_the_head_is_not_believed(
    chain_snapshot: Devnet, proxy: LoopbackProxy, past_head: int
) -> None:
    """A node saying blocks past its head are final: the depth holds.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param proxy: the node's answers.
    :param past_head: blocks past the head it says are final.
    """
    devnet = chain_snapshot
    proxy.rpc_answer = _finalized_answer(devnet, past_head)
    market = _market(devnet, proxy.url)
    final = market.final_block(FINAL_DEPTH)
    assert not final.tagged and final.number == final.head - FINAL_DEPTH, final
    mined_in = _one_transaction(devnet)
    count = devnet.w3.eth.get_transaction_count(
        Web3.to_checksum_address(requester(devnet))
    )
    assert market.final_block(FINAL_DEPTH).number == mined_in - FINAL_DEPTH
    assert market.final_nonce(FINAL_DEPTH) < count  # not final at once


def _calls(
    devnet: Devnet,
    tmp_path: Path,
    proxy: LoopbackProxy,
    *names: str,
    flags: Tuple[str, ...] = (),
) -> Dict[str, Any]:
    """Calls in turn, the first to a mech reverting when mined, under a cap of one price.

    :param devnet: the devnet.
    :param tmp_path: the state folder.
    :param proxy: the server's ``--rpc``.
    :param names: the calls' names (their prompts differ).
    :param flags: more server options.
    :return: the answers, and the marketplace nonce and account's count after each.
    """
    chosen, same, _ = _paid_mechs(devnet)
    cap = max(price_of(devnet, chosen), price_of(devnet, same))
    before = reverting_when_mined(devnet, chosen)
    seen: Dict[str, Any] = {"before": before}
    flags = ("--rpc", proxy.url, "--timeout", "4", "--max-spend", str(cap), *flags)

    async def main() -> None:
        async with stdio_client(devnet, tmp_path, *flags) as client:
            for name in names:
                prompt = {"prompt": f"finalized tag, call {name}"}
                seen[name] = await client.call_tool(TOOL, prompt)
                seen[f"{name}_nonce"] = market_nonce(devnet)
                seen[f"{name}_sent"] = devnet.w3.eth.get_transaction_count(
                    before.account
                )

    anyio.run(main)
    return seen


def test_a_lying_finalized_block_releases_no_reverted_price(
    chain_snapshot: Devnet, tmp_path: Path, proxy: LoopbackProxy
) -> None:
    """The node says 1000 blocks past its head are final: call A held, call B refused.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the state folder.
    :param proxy: the server's node.
    """
    devnet = chain_snapshot
    proxy.rpc_answer = _finalized_answer(devnet, 1000)
    seen = _calls(devnet, tmp_path, proxy, "a", "b")
    before = seen["before"]
    text_a, text_b = (str(seen[c].content[0].text) for c in ("a", "b"))
    assert seen["a"].is_error and "not final yet" in text_a, text_a
    assert seen["a_sent"] == before.sent + 1 and seen["a_nonce"] == before.market_nonce
    assert seen["b_nonce"] == before.market_nonce, text_b  # nothing paid
    assert "max-spend" in text_b, text_b


def test_a_node_finalizing_its_head_frees_the_call_at_once(
    chain_snapshot: Devnet, tmp_path: Path, proxy: LoopbackProxy
) -> None:
    """The node's finalized block is its head: the revert is final, the next offer paid.

    Read from the node, not from the 64-block depth: call A pays the tool's other
    offer within its own call (before, it was held until 64 blocks were mined).

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the state folder.
    :param proxy: the server's node.
    """
    devnet = chain_snapshot
    proxy.rpc_answer = _finalized_answer(devnet, 0)
    seen = _calls(devnet, tmp_path, proxy, "a")
    before = seen["before"]
    text_a = str(seen["a"].content[0].text)
    paid = (seen["a"].meta or {}).get(REQUEST_META) or {}
    assert paid.get("request_id"), text_a
    assert seen["a_nonce"] == before.market_nonce + 1, text_a
    assert seen["a_sent"] == before.sent + 2, text_a  # the revert, then the payment


def test_a_final_depth_given_is_used_instead_of_the_nodes_finalized_block(
    chain_snapshot: Devnet, tmp_path: Path, proxy: LoopbackProxy
) -> None:
    """``--final-depth 64`` given: the node finalizing its head is not asked; A held.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the state folder.
    :param proxy: the server's node.
    """
    devnet = chain_snapshot
    proxy.rpc_answer = _finalized_answer(devnet, 0)
    proxy.reset_counters()
    seen = _calls(devnet, tmp_path, proxy, "a", flags=("--final-depth", "64"))
    before = seen["before"]
    text_a = str(seen["a"].content[0].text)
    assert seen["a"].is_error and "fewer than 64 blocks deep" in text_a, text_a
    assert seen["a_nonce"] == before.market_nonce and seen["a_sent"] == before.sent + 1
    assert proxy.counters.faults == 0  # the tag never asked
