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

"""adv29zq B1: a node's JSON-RPC error while an old request's fate is read escapes the call.

Severity: MEDIUM (issue #29 (e): while the node answers one read with a JSON-RPC error,
every paid call of the server fails before it pays, answered by the MCP SDK's own error
handling instead of a sentence of the server's; nothing is paid, nothing lost).

``unmined.learn_fates`` (fix29ze) runs under the send lock before every paid call
whenever the journal holds a signed request older than ``--spend-window`` whose fate
is not recorded (a crash before its receipt, a request given up unmined). It catches
``MarketError``, ``ValueError`` and ``OSError`` from ``Marketplace.confirmed_nonce``,
``final_nonce`` and ``receipt_now``; but web3 7 raises a node's JSON-RPC error as
``Web3RPCError`` (a ``Web3Exception``, no ``ValueError``), which ``receipt_now`` and
``confirmed_nonce`` pass on unwrapped. A geth node answers every
``eth_getTransactionReceipt`` with "transaction indexing is in progress" for hours
after a restart (web3 even names it ``TransactionIndexingInProgress``); a public RPC
answers a rate limit with code -32005. ``sending.RequestSender`` (``fates_learnt``)
and ``server.MechToolServer.call`` (which catches ``MarketError``, ``IpfsError``,
``SourceError``) let it through to the MCP SDK (not checked here how the SDK words
it: without a chain, the escape from ``learn_fates`` is the reproduction).

Observed on main: ``learn_fates`` raises ``TransactionIndexingInProgress`` (receipt)
and ``Web3RPCError`` (the account's nonce) through a real ``Marketplace`` over a node
answering those errors.

Expected: as for a node that cannot be reached, the fate is not learnt, a warning is
logged, the request keeps counting (``learn_fates`` returns False) and the call goes
on (or says the node's error in the server's own, cleaned words).
"""

import time
from typing import Any, Optional

import pytest
from web3 import Web3
from web3.providers import BaseProvider
from web3.types import RPCEndpoint, RPCResponse

from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import Marketplace
from mech_catalogue_cli.mcp_server.spending import journal_records
from mech_catalogue_cli.mcp_server.unmined import learn_fates
from tests.test_mcp_spend_fates import GNOSIS, REQUESTER, WINDOW, _signed
from tests.test_mcp_spend_run_reconciled import KEY_A

#: JSON-RPC error members a node answers (geth during indexing; a rate limit)
INDEXING = {"code": -32000, "message": "transaction indexing is in progress"}
LIMITED = {"code": -32005, "message": "limit exceeded"}


class ErringNode(BaseProvider):
    """The reads of ``learn_fates``: the nonce passed and final, one method erring.

    :param failing: the JSON-RPC method answered with ``error``.
    :param error: the error members.
    """

    def __init__(self, failing: str, error: Any) -> None:
        """Keep the failing method and its error."""
        super().__init__()
        self.failing, self.error = failing, error

    def make_request(self, method: RPCEndpoint, params: Any) -> RPCResponse:
        """Answer as a node on Gnosis whose account nonce passed the request's."""
        if method == self.failing:
            return {"jsonrpc": "2.0", "id": 1, "error": self.error}
        result: Optional[Any] = None
        if method == "eth_getTransactionCount":
            result = "0x9"
        elif method == "eth_blockNumber":
            result = hex(1000)
        elif method == "eth_getBlockByNumber":
            result = {"number": hex(936), "hash": "0x" + "ab" * 32}
        else:
            raise AssertionError(f"not read here: {method}")
        return {"jsonrpc": "2.0", "id": 1, "result": result}

    def is_connected(self, show_traceback: bool = False) -> bool:
        """Always reachable: the node is this object."""
        return True


@pytest.mark.parametrize(
    "failing, error",
    [("eth_getTransactionReceipt", INDEXING), ("eth_getTransactionCount", LIMITED)],
)
def test_a_node_error_learns_nothing_and_counts(
    tmp_path: Any, failing: str, error: Any
) -> None:
    """A signed request two windows old, no fate: the node errs on one read."""
    journal = Journal(tmp_path)
    journal.save(_signed(KEY_A, "0x" + "01" * 32, 2 * WINDOW))
    market = Marketplace("http://127.0.0.2:1", "0x" + "84" * 20, "0x" + "01" * 32)
    market.w3 = Web3(ErringNode(failing, error))
    market.requester = Web3.to_checksum_address(REQUESTER)
    records = journal_records(journal.folder)
    since = time.time() - WINDOW
    # observed on main: Web3RPCError (TransactionIndexingInProgress) raised
    written = learn_fates(market, journal, records, since=since, owner=GNOSIS, depth=64)
    assert not written
