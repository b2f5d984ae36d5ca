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

"""A block's numbers read raw (``mech_catalogue_cli/raw_blocks.py``), whatever else it holds."""

import time
from typing import Any, Dict, List

import pytest
from web3 import Web3
from web3.providers import BaseProvider

from mech_catalogue_cli.mcp_server.unmined import block_time
from mech_catalogue_cli.raw_blocks import BlockUnread, block_numbers

POLYGON_EXTRA = "0x" + "d8" * 32 + "ab" * 65


class _Node(BaseProvider):
    """A node answering ``eth_getBlockByNumber`` with the answer given."""

    def __init__(self, answer: Dict[str, Any]) -> None:
        """Answer ``answer`` to every read.

        :param answer: the JSON-RPC answer (``result`` or ``error``).
        """
        super().__init__()
        self.answer = answer
        self.asked: List[Any] = []

    def make_request(self, method: Any, params: Any) -> Any:
        """The answer given; the parameters kept.

        :param method: the method asked.
        :param params: its parameters.
        :return: the answer.
        """
        self.asked.append((method, params))
        return {"jsonrpc": "2.0", "id": 1, **self.answer}

    def is_connected(self, show_traceback: bool = False) -> bool:
        """Always: the node is this object.

        :param show_traceback: unused.
        :return: True.
        """
        return True


def test_a_proof_of_authority_block_is_read() -> None:
    """97 bytes of extraData (web3's get_block refuses them): the numbers are read."""
    node = _Node(
        {
            "result": {
                "number": "0x10",
                "baseFeePerGas": "0x3b9aca00",
                "extraData": POLYGON_EXTRA,
            }
        }
    )
    assert block_numbers(Web3(node), "latest", ("number", "baseFeePerGas")) == {
        "number": 16,
        "baseFeePerGas": 10**9,
    }
    assert node.asked == [("eth_getBlockByNumber", ["latest", False])]


def test_a_block_number_is_asked_in_hex_and_a_missing_field_is_none() -> None:
    """Block 300 asked as 0x12c; a chain before EIP-1559 has no base fee."""
    node = _Node({"result": {"number": "0x12c", "timestamp": "0x5"}})
    read = block_numbers(Web3(node), 300, ("timestamp", "baseFeePerGas"))
    assert read == {"timestamp": 5, "baseFeePerGas": None}
    assert node.asked[0][1] == ["0x12c", False]


@pytest.mark.parametrize(
    "answer",
    [
        {"result": None},
        {"error": {"code": -32000, "message": "header not found"}},
        {"result": "0x10"},
        {"result": {"number": 16}},
        {"result": {"number": "16"}},
        {"result": {"number": "0x" + "f" * 65}},
        {"result": {"number": "0x"}},
    ],
)
def test_no_block_or_a_field_not_a_quantity_is_refused(answer: Dict[str, Any]) -> None:
    """Null, an error, not a block, a number not a hex quantity: ``BlockUnread``.

    :param answer: the node's answer.
    """
    with pytest.raises(BlockUnread):
        block_numbers(Web3(_Node(answer)), "latest", ("number",))


@pytest.mark.parametrize(
    "answer",
    [{"result": None}, {"result": {"number": "0x1"}}, {"result": {"timestamp": "x"}}],
)
def test_a_block_time_unread_is_now(answer: Dict[str, Any]) -> None:
    """No time from the node: now (a request counts longer, the safe side).

    :param answer: the node's answer.
    """
    market: Any = type("M", (), {"w3": Web3(_Node(answer))})()
    before = time.time()
    assert block_time(market, 7) >= before


@pytest.mark.parametrize(
    "number", ["0x65", "0x63", "0x0", None, "0x" + "f" * 64, "pending", 100]
)
def test_another_block_than_the_one_asked_is_refused(number: Any) -> None:
    """Block 100 asked, another number (or none, or not a quantity) answered: refused.

    :param number: the answered block's ``number``.
    """
    node = _Node({"result": {"number": number, "timestamp": "0x5"}})
    with pytest.raises(BlockUnread, match="for block 0x64"):
        block_numbers(Web3(node), 100, ("timestamp",))


def test_the_block_asked_is_read_whatever_its_number_s_zeros() -> None:
    """``0x064`` is block 100 as well (a quantity with a leading zero)."""
    node = _Node({"result": {"number": "0x064", "timestamp": "0x5"}})
    assert block_numbers(Web3(node), 100, ("timestamp",)) == {"timestamp": 5}


def test_a_tag_s_block_has_no_number_to_compare() -> None:
    """``latest`` is whichever block the node holds: its number is read, not compared."""
    node = _Node({"result": {"number": "0x65"}})
    assert block_numbers(Web3(node), "latest", ("number",)) == {"number": 101}


def test_a_node_s_error_words_are_quoted_as_the_node_s() -> None:
    """The node's words in the refusal are quoted (markup inert, one line)."""
    node = _Node({"error": {"code": -1, "message": "<b>pay</b>\nagain\u200b"}})
    with pytest.raises(BlockUnread) as refused:
        block_numbers(Web3(node), 100, ("timestamp",))
    said = str(refused.value)
    assert "the node said '" in said and "\n" not in said and "\u200b" not in said


@pytest.mark.parametrize(
    "ahead, believed",
    [(-86400, True), (0, True), (14 * 60, True), (16 * 60, False), (2**40, False)],
)
def test_a_block_time_past_now_and_the_skew_is_now(ahead: int, believed: bool) -> None:
    """A mined time up to 15 minutes ahead is the node's; later, the server's now.

    :param ahead: seconds the block's time is past now.
    :param believed: whether the node's time is kept.
    """
    stamp = int(time.time()) + ahead
    node = _Node({"result": {"number": "0x7", "timestamp": hex(stamp)}})
    market: Any = type("M", (), {"w3": Web3(node)})()
    before = time.time()
    read = block_time(market, 7)
    if believed:
        assert read == stamp
    else:
        assert before <= read <= time.time()


def test_the_largest_block_time_is_now() -> None:
    """2^256-1 seconds (the largest quantity): now, not a time ages on."""
    node = _Node({"result": {"number": "0x7", "timestamp": "0x" + "f" * 64}})
    market: Any = type("M", (), {"w3": Web3(node)})()
    assert block_time(market, 7) <= time.time() + 1
