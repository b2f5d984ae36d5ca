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

"""A block's numbers read raw (``mcp_server/raw_blocks.py``), whatever else it holds."""

import time
from typing import Any, Dict, List

import pytest
from web3 import Web3
from web3.providers import BaseProvider

from mech_catalogue_cli.mcp_server.raw_blocks import BlockUnread, block_numbers
from mech_catalogue_cli.mcp_server.unmined import block_time

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
