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


"""Which block is final: the node's ``finalized`` block first, else the depth (no chain).

The MCP server reads ``eth_getBlockByNumber("finalized")`` before the head and uses it
when the node answers a block number at most its head; an error, ``null`` or
something that is not a block number gives ``head - final_depth`` as before, and so
does an answer past the head (a hostile node must not release a mined revert's price,
or free a call key, before the depth). ``--final-depth`` given skips the tag. The
release of a reverted request's price and the held call's sentence follow the same
block. The devnet's answers (anvil: ``head - 64``) and a node refusing the tag are in
``tests/test_mcp_finalized_tag_devnet.py``.
"""

import logging
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
from requests.exceptions import ConnectionError as RequestsConnectionError
from web3 import Web3
from web3.providers import BaseProvider
from web3.types import RPCEndpoint, RPCResponse

from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH, NotFinal, not_final_yet
from mech_catalogue_cli.mcp_server.finality import (
    FinalBlock,
    final_block,
    finalized_number,
)
from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import MarketError, Marketplace
from mech_catalogue_cli.mcp_server.mined_reverts import own_revert
from mech_catalogue_cli.mcp_server.spending import read_record
from tests.adversary.test_adv29u_mined_revert_not_final import HEAD
from tests.test_mcp_refused_offers import (  # noqa: F401 # pylint: disable=unused-import
    HONEST,
    PRICE,
    _no_upload,
)
from tests.test_mcp_revert_memory import _held_then_refused, _ranked_call
from tests.test_mcp_reverted_for_call import Chain

NODE_HEAD = 1_000
BLOCK_FIELDS = {"hash": "0x" + "ab" * 32, "parentHash": "0x" + "cd" * 32}

# --- the rule -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("finalized", "head", "expected"),
    [
        (936, 1000, FinalBlock(936, 1000, True)),  # the node's block, not 1000 - 64
        (990, 1000, FinalBlock(990, 1000, True)),  # shallower than the depth too
        (1000, 1000, FinalBlock(1000, 1000, True)),  # the head itself (a dev node)
        (0, 10, FinalBlock(0, 10, True)),  # a young chain: its genesis
        (None, 1000, FinalBlock(936, 1000, False)),  # no tag: head - depth
        (None, 10, FinalBlock(0, 10, False)),  # no tag, young: the genesis
        (1001, 1000, FinalBlock(936, 1000, False)),  # past the head: not believed
        (10**30, 1000, FinalBlock(936, 1000, False)),
    ],
)
def test_the_final_block_is_the_nodes_unless_past_its_head(
    finalized: Optional[int], head: int, expected: FinalBlock
) -> None:
    """The tag when at most the head; the depth otherwise.

    :param finalized: the node's answer (None: none).
    :param head: the node's head.
    :param expected: the final block.
    """
    assert final_block(finalized, head, FINAL_DEPTH) == expected
    assert expected.depth == head - expected.number


def test_an_answer_past_the_head_is_said_in_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The warning names both numbers and the depth used instead.

    :param caplog: pytest's.
    """
    with caplog.at_level(logging.WARNING, logger="mech_catalogue.mcp"):
        final_block(5000, 1000, 64)
    assert "5000" in caplog.text and "1000" in caplog.text and "64" in caplog.text


# --- the node's answer ----------------------------------------------------------------


class TaggedNode(BaseProvider):
    """A node answering ``finalized`` as told; the head ``NODE_HEAD``; counts kept.

    :param answer: the JSON-RPC members answered for the tag (``{"result": ...}`` or
        ``{"error": ...}``); an exception instance is raised instead.
    """

    def __init__(self, answer: Any) -> None:
        """Keep the answer."""
        super().__init__()
        self.answer = answer
        self.asked: List[Any] = []  # the blocks the account's count was read at

    def make_request(self, method: RPCEndpoint, params: Any) -> RPCResponse:
        """Answer the three reads :meth:`Marketplace.final_nonce` makes."""
        if method == "eth_getBlockByNumber":
            assert params[0] == "finalized", params
            if isinstance(self.answer, Exception):
                raise self.answer
            return {"jsonrpc": "2.0", "id": 1, **self.answer}  # type: ignore[typeddict-item]  # fmt: skip
        if method == "eth_blockNumber":
            return {"jsonrpc": "2.0", "id": 1, "result": hex(NODE_HEAD)}
        if method == "eth_getTransactionCount":
            self.asked.append(int(params[1], 16))
            return {"jsonrpc": "2.0", "id": 1, "result": "0x7"}
        raise AssertionError(f"not read here: {method}")

    def is_connected(self, show_traceback: bool = False) -> bool:
        """Always reachable: the node is this object."""
        return True


def _block(number: Any) -> Dict[str, Any]:
    return {"result": {**BLOCK_FIELDS, "number": number}}


#: the node's answers for the tag, and the block number read from them (None: none)
ANSWERS = {
    "a block": (_block(hex(936)), 936),
    "the genesis": (_block("0x0"), 0),
    "null (no such block yet)": ({"result": None}, None),
    "an error (the tag unknown)": (
        {"error": {"code": -32602, "message": "invalid block tag finalized"}},
        None,
    ),
    "a method not found": (
        {"error": {"code": -32601, "message": "the method does not exist"}},
        None,
    ),
    "a number that is not hex": (_block("0xzz"), None),
    "a block without a number": ({"result": dict(BLOCK_FIELDS)}, None),
    "a number as a list": (_block([1]), None),
    "a string, not a block": ({"result": "finalized"}, None),
    "a negative number": (_block("-0x1"), None),
    "a number as an int": (_block(936), None),
    "a number of 65 hex digits": (_block("0x1" + "0" * 64), None),
    "a proof-of-authority block (97 bytes of extraData)": (
        {"result": {**BLOCK_FIELDS, "number": hex(936), "extraData": "0x" + "ab" * 97}},
        936,
    ),
    "the largest number": (_block("0x" + "f" * 64), 2**256 - 1),
}


@pytest.mark.parametrize("answer", sorted(ANSWERS))
def test_the_nodes_answer_is_a_block_number_or_none(answer: str) -> None:
    """Only a block with a non-negative number counts; anything else is no answer.

    :param answer: a key of :data:`ANSWERS`.
    """
    members, expected = ANSWERS[answer]
    assert finalized_number(Web3(TaggedNode(members))) == expected


def _market(node: TaggedNode) -> Marketplace:
    market = Marketplace("http://127.0.0.2:1", "0x" + "84" * 20, "0x" + "01" * 32)
    market.w3 = Web3(node)
    return market


@pytest.mark.parametrize("answer", sorted(ANSWERS))
def test_the_account_count_is_read_at_the_final_block(answer: str) -> None:
    """At the node's finalized block when it answers one at most its head, else the depth.

    :param answer: a key of :data:`ANSWERS`.
    """
    members, expected = ANSWERS[answer]
    node = TaggedNode(members)
    market = _market(node)
    assert market.final_nonce(FINAL_DEPTH) == 7
    believed = expected is not None and expected <= NODE_HEAD
    assert node.asked == [expected if believed else NODE_HEAD - FINAL_DEPTH]
    assert market.final_block(FINAL_DEPTH).tagged is believed


def test_a_depth_given_on_the_command_line_skips_the_tag() -> None:
    """``--final-depth``: the node's finalized block not used, not even asked."""
    node = TaggedNode(_block(hex(990)))
    market = _market(node)
    market.finalized_tag = False
    node.answer = AssertionError("the tag was asked")
    assert market.final_block(10) == FinalBlock(NODE_HEAD - 10, NODE_HEAD, False)
    market.final_nonce(10)
    assert node.asked == [NODE_HEAD - 10]


def test_a_node_that_cannot_be_reached_is_a_market_error() -> None:
    """The tag's read failing to connect: ``MarketError`` (the caller's safe side)."""
    market = _market(TaggedNode(RequestsConnectionError("connection refused")))
    with pytest.raises(MarketError, match="final block could not be read"):
        market.final_block(FINAL_DEPTH)
    with pytest.raises(MarketError):
        market.final_nonce(FINAL_DEPTH)


# --- what follows the final block ------------------------------------------------------


@pytest.mark.usefixtures("no_upload")
def test_a_reverted_price_is_released_once_the_nodes_finalized_block_holds_it(
    tmp_path: Path,
) -> None:
    """The node finalizes the revert's block one block later: released then, not at 64.

    :param tmp_path: the state folder.
    """
    chain = Chain([PRICE])
    chain.finalized = HEAD - 1
    sender = _held_then_refused(tmp_path, chain)
    chain.head_block = HEAD + 1
    assert isinstance(_ranked_call(sender, "b" * 64), str)  # finalized HEAD - 1
    chain.finalized = HEAD  # the revert's block
    paid = _ranked_call(sender, "b" * 64)
    assert isinstance(paid, JournalEntry) and paid.mech == HONEST, paid
    revert = own_revert(Journal(tmp_path).load("a" * 64))  # type: ignore[arg-type]
    assert revert is not None and revert.final_at == HEAD + 1


@pytest.mark.usefixtures("no_upload")
@pytest.mark.parametrize("ahead", [1, FINAL_DEPTH, 10**9])
def test_a_finalized_block_past_the_head_releases_nothing_before_the_depth(
    tmp_path: Path, ahead: int, caplog: pytest.LogCaptureFixture
) -> None:
    """A hostile node says blocks past its head are final: the depth still holds.

    :param tmp_path: the state folder.
    :param ahead: blocks past the head the node says are final.
    :param caplog: pytest's.
    """
    chain = Chain([PRICE])
    sender = _held_then_refused(tmp_path, chain)
    for head in (HEAD + 1, HEAD + FINAL_DEPTH - 1):
        chain.head_block = head
        chain.finalized = head + ahead
        with caplog.at_level(logging.WARNING, logger="mech_catalogue.mcp"):
            refused = _ranked_call(sender, "b" * 64)
        assert isinstance(refused, str) and "max-spend" in refused, refused
        assert "not believed" in caplog.text
    record = read_record(tmp_path / "calls" / f"{'a' * 64}.json")
    assert record is not None and record.price == PRICE  # still counted
    chain.head_block = HEAD + FINAL_DEPTH  # final by the depth: released
    chain.finalized = chain.head_block + ahead
    assert isinstance(_ranked_call(sender, "b" * 64), JournalEntry)


@pytest.mark.usefixtures("no_upload")
def test_the_held_calls_sentence_names_the_nodes_finalized_block(
    tmp_path: Path,
) -> None:
    """Held: "past the node's finalized block F", until the revert + the node's lag.

    :param tmp_path: the state folder.
    """
    chain = Chain([PRICE])
    chain.finalized = HEAD - 10  # the node's finalized block trails by 10
    _held_then_refused(tmp_path, chain)
    entry = Journal(tmp_path).load("a" * 64)
    assert entry is not None
    said = not_final_yet(chain, entry, FINAL_DEPTH)  # type: ignore[arg-type]
    assert isinstance(said, NotFinal)
    assert f"past the node's finalized block {HEAD - 10}" in said, said
    assert said.final_at == HEAD + 10 and f"until block {HEAD + 10}" in said
    assert "64 blocks" not in said and "genesis" not in said
