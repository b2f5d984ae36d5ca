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

"""adv29zx R1: a node's block time is believed whatever it is, for whichever block.

Severity: LOW (issue #29 (e), with a public RPC whose operator is a stranger: one
paid request's price is counted against ``--max-spend`` for ever; a few calls' worth
and the cap refuses every call until the user moves journal entries by hand. No
funds move).

``raw_blocks.block_numbers`` checks that each field read is a hex quantity of at most
64 digits; it does not check that the block answered is the one asked for, nor that
a time is a time. ``unmined.block_time`` takes the mined block's ``timestamp`` as the
request's paid time (``record_mined``), and ``spending.read_record`` dates the
payment ``max(paid_at, mined_at)``; ``spend_cap`` counts a record while
``written_at >= now - window``: a time in the future is inside every window.

Observed on main (a node answering ``eth_getBlockByNumber(0x64)`` with block 0x65
and a timestamp of 2^64 - 1 seconds): ``block_time`` returns 1.8e19 (584 billion
years on), and ``block_numbers`` returns the other block's numbers as block
100's.

Expected: a block whose ``number`` is not the one asked is no answer (``BlockUnread``,
so "now" is used, the safe side ``block_time`` already has), and a mined time past
the server's clock (beyond a small skew) is not believed.
"""

import time
from types import SimpleNamespace
from typing import Any

import pytest
from web3 import Web3
from web3.providers import BaseProvider
from web3.types import RPCEndpoint, RPCResponse

from mech_catalogue_cli.mcp_server.unmined import block_time
from mech_catalogue_cli.raw_blocks import BlockUnread, block_numbers

ASKED = 100
#: the answer: another block, its time past any window
ANSWERED = {"number": hex(ASKED + 1), "timestamp": hex(2**64 - 1)}
#: a node's clock ahead of the server's that is still believed
SKEW = 3600


class LyingNode(BaseProvider):
    """A public RPC answering every block read with the same other block."""

    def make_request(self, method: RPCEndpoint, params: Any) -> RPCResponse:
        """Answer ``eth_getBlockByNumber`` with :data:`ANSWERED`."""
        assert method == "eth_getBlockByNumber", method
        return {"jsonrpc": "2.0", "id": 1, "result": ANSWERED}  # type: ignore[typeddict-item]  # fmt: skip

    def is_connected(self, show_traceback: bool = False) -> bool:
        """Always reachable."""
        return True


def test_a_mined_time_is_not_past_now() -> None:
    """The request's mined time is at most the server's clock plus a skew."""
    market = SimpleNamespace(w3=Web3(LyingNode()))
    assert block_time(market, ASKED) <= time.time() + SKEW  # type: ignore[arg-type]


def test_another_block_is_no_answer() -> None:
    """A block whose number is not the one asked is refused."""
    with pytest.raises(BlockUnread):
        block_numbers(Web3(LyingNode()), ASKED, ("number", "timestamp"))
