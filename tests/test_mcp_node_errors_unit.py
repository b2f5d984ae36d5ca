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


"""A node's error at any read of the marketplace is one typed error, said in words.

web3 7 raises a node's JSON-RPC error as ``Web3RPCError`` (no ``ValueError``), a lost
connection or a slow node as a ``requests`` error, an answer that is not JSON-RPC as
another ``Web3Exception``; ``Marketplace.head`` (read by the send, the off-chain
requests, the fate and revert reads and the delivery read), the chain id, the balance
and a log's transaction let them through raw, so a call's caller saw an exception it
does not handle (the MCP SDK's "Internal server error"), or a request was taken for
none. Every kind here, at every read, is a ``MarketError`` that names what was read and
the node (its URL redacted), never the URL itself; the callers that read the head after
a request was paid keep the request counted and say how to resume.
"""

import time
from typing import Any, Callable, Dict, List

import pytest
import requests
from web3 import Web3
from web3.providers import BaseProvider
from web3.types import RPCEndpoint, RPCResponse

from mech_catalogue_cli.adapters.http import DeadlineExceeded
from mech_catalogue_cli.mcp_server.dropped import chain_fate
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import MarketError, Marketplace
from mech_catalogue_cli.mcp_server.market_abi import REQUEST_TOPICS
from mech_catalogue_cli.mcp_server.mined_reverts import (
    final_revert_seen,
    record_never_paid,
)
from tests.test_mcp_paid_answer_unit import KEY, REQUESTER, _entry
from tests.test_mcp_refused_offers import (  # noqa: F401  # pylint: disable=unused-import
    PRICE,
    _Market,
    _no_upload,
    _sender,
    _sent,
)

#: the node's URL, with a secret in it (an API key): never in an error
NODE = "https://rpc.example/v2/s3cr3t-api-key"
MARKET = "0x" + "84" * 20
#: the old MarketplaceRequest shape, whose request data is read from its transaction
OLD_SHAPE = next(topic for topic, (_, datas) in REQUEST_TOPICS.items() if not datas)


def _rpc_error() -> Any:
    return {"error": {"code": -32005, "message": "limit exceeded"}}


def _raise(exc: BaseException) -> Callable[[], Any]:
    def fail() -> Any:
        raise exc

    return fail


#: how a node fails one read: what the provider answers or raises, and a word said
FAILURES: Dict[str, Any] = {
    "json_rpc_error": (_rpc_error, "limit exceeded"),
    "no_result": (lambda: {"jsonrpc": "2.0", "id": 1}, "Response"),
    "connection": (_raise(requests.ConnectionError("refused")), "ConnectionError"),
    "read_timeout": (_raise(requests.ReadTimeout("read timed out")), "ReadTimeout"),
    "deadline": (_raise(DeadlineExceeded(30)), "did not finish within 30 s"),
    "not_json": (_raise(ValueError("Expecting value")), "ValueError"),
}


class FailingNode(BaseProvider):
    """A node answering every read, ``failing`` its way (chain id 100, Gnosis).

    :param failing: the JSON-RPC methods that fail.
    :param failure: a key of :data:`FAILURES`.
    """

    def __init__(self, failing: List[str], failure: str) -> None:
        """Keep what fails and how."""
        super().__init__()
        self.failing, self.failure = failing, failure
        self.logs: List[Dict[str, Any]] = []

    def make_request(self, method: RPCEndpoint, params: Any) -> RPCResponse:
        """Answer one read, or fail it."""
        if method in self.failing:
            answer = FAILURES[self.failure][0]()
            return {"jsonrpc": "2.0", "id": 1, **answer}
        results: Dict[str, Any] = {
            "eth_blockNumber": hex(1000),
            "eth_chainId": hex(100),
            "eth_getBalance": hex(5),
            "eth_getTransactionCount": hex(9),
            "eth_call": "0x" + "00" * 32,
            "eth_getTransactionReceipt": None,
            "eth_getLogs": self.logs,
            "eth_getBlockByNumber": {"number": hex(936), "hash": "0x" + "ab" * 32},
        }
        if method not in results:
            raise AssertionError(f"not read here: {method}")
        return {"jsonrpc": "2.0", "id": 1, "result": results[method]}

    def is_connected(self, show_traceback: bool = False) -> bool:
        """Always reachable: the node is this object."""
        return True


def _market(failing: List[str], failure: str) -> Marketplace:
    market = Marketplace(NODE, MARKET, "0x" + "01" * 32)
    setattr(market, "w3", Web3(FailingNode(failing, failure)))
    return market


#: each read of the marketplace, and the JSON-RPC method it makes
READS: Dict[str, Any] = {
    "head": ("eth_blockNumber", lambda m: m.head(), "the latest block number"),
    "chain_id": ("eth_chainId", lambda m: m.chain_id(), "the chain id"),
    "balance": ("eth_getBalance", lambda m: m.balance(), "the requester's balance"),
    "confirmed_nonce": (
        "eth_getTransactionCount",
        lambda m: m.confirmed_nonce(),
        "the account's transaction count",
    ),
    "receipt_now": (
        "eth_getTransactionReceipt",
        lambda m: m.receipt_now("0x" + "ef" * 32),
        "the receipt of transaction 0x" + "ef" * 32,
    ),
    "final_block": (
        "eth_blockNumber",
        lambda m: m.final_block(64),
        "the latest block number",
    ),
    "request_transaction": (
        "eth_chainId",
        lambda m: m.request_transaction(
            "0x" + "11" * 20, b"\x01" * 32, 10, "0x" + "00" * 32, 300
        ),
        "the chain id",
    ),
    "market_nonce": ("eth_call", lambda m: m.market_nonce(), "mapNonces failed"),
}


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("read", sorted(READS))
def test_every_read_s_node_error_is_a_market_error_in_words(
    read: str, failure: str
) -> None:
    """Each read, each way a node fails: a MarketError naming what, never the URL.

    :param read: a key of :data:`READS`.
    :param failure: a key of :data:`FAILURES`.
    """
    method, reading, what = READS[read]
    market = _market([method], failure)
    with pytest.raises(MarketError) as raised:
        reading(market)
    said = str(raised.value)
    assert what in said, said
    assert "s3cr3t" not in said and "rpc.example/v2" not in said, said
    if read != "market_nonce":  # a contract call names the error's type only
        assert FAILURES[failure][1] in said, said


def test_the_same_reads_answer_when_the_node_does() -> None:
    """The stand-in node's honest answers are read (the premise of the test above)."""
    market = _market([], "json_rpc_error")
    assert (market.head(), market.chain_id(), market.balance()) == (1000, 100, 5)
    assert (
        market.confirmed_nonce() == 9 and market.receipt_now("0x" + "ef" * 32) is None
    )
    assert market.final_block(64).number == 936


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_a_log_whose_transaction_is_unread_is_no_request_taken_for_none(
    failure: str,
) -> None:
    """own_request over an old-shaped log: its data unread is an error, not "none".

    Taken for no request, a call with no journal entry would pay a second request.

    :param failure: a key of :data:`FAILURES`.
    """
    market = _market(["eth_getTransactionByHash"], failure)
    requester_topic = "0x" + "00" * 12 + market.requester[2:].lower()
    node = market.w3.provider
    assert isinstance(node, FailingNode)
    node.logs = [
        {
            "address": MARKET,
            "topics": [OLD_SHAPE, "0x" + "00" * 12 + "11" * 20, requester_topic],
            "data": "0x"
            + "00" * 31
            + "01"  # numRequests
            + "00" * 31
            + "40"  # the offset of the ids
            + "00" * 31
            + "01"
            + "77" * 32,
            "blockNumber": hex(990),
            "transactionHash": "0x" + "99" * 32,
            "transactionIndex": "0x0",
            "blockHash": "0x" + "98" * 32,
            "logIndex": "0x0",
            "removed": False,
        }
    ]
    with pytest.raises(MarketError) as raised:
        market.own_request("0x" + "cd" * 32)
    assert "the request transaction of a" in str(raised.value)
    # the receipt's reading of the same log: unread, the id derived is kept (None)
    assert market.mined_request_id("0x" + "99" * 32, "0x" + "cd" * 32) is None


@pytest.mark.parametrize("failure", ["json_rpc_error", "connection", "deadline"])
def test_a_mined_request_id_unread_for_a_json_rpc_error_is_none(failure: str) -> None:
    """The receipt's read of the id mined: a node error is logged, never raised.

    :param failure: a key of :data:`FAILURES`.
    """
    market = _market(["eth_getTransactionReceipt"], failure)
    assert market.mined_request_id("0x" + "ef" * 32, "0x" + "cd" * 32) is None


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_the_fate_and_revert_reads_keep_a_paid_request_counted(
    tmp_path: Any, failure: str
) -> None:
    """The head unread after payment: nothing recorded, the request still counts.

    ``record_never_paid`` writes nothing (the next call reads again),
    ``final_revert_seen`` says "not final", ``chain_fate`` says "not known gone"
    (never a reason to send again).

    :param tmp_path: the journal folder.
    :param failure: a key of :data:`FAILURES`.
    """
    journal = Journal(tmp_path)
    entry = _entry()
    journal.save(entry)
    files = sorted(journal.folder.iterdir())
    written = [path.stat().st_mtime_ns for path in files]
    market = _market(["eth_blockNumber"], failure)
    market.requester = Web3.to_checksum_address(REQUESTER)
    time.sleep(0.01)
    record_never_paid(market, journal, entry, False, 64)
    assert [path.stat().st_mtime_ns for path in files] == written
    assert sorted(journal.folder.iterdir()) == files
    assert journal.load(KEY) == entry  # no fate recorded: its price still counts
    assert final_revert_seen(market, entry, 64) is None
    assert chain_fate(market, entry, 64) is None


class _HeadlessMarket(_Market):
    """The send's marketplace, its head unread: the node's error as the client says it."""

    def head(self) -> int:
        """The head's read failing as ``Marketplace.head`` says it."""
        raise MarketError(
            "the latest block number could not be read from https://rpc.example/…: "
            "Web3RPCError: limit exceeded"
        )


@pytest.mark.usefixtures("no_upload")
def test_a_head_unread_before_signing_says_nothing_was_signed(tmp_path: Any) -> None:
    """The send's head read fails before signing: nothing journalled, signed or sent.

    :param tmp_path: the journal's folder.
    """
    market = _HeadlessMarket(None, [PRICE])
    sender = _sender(tmp_path, market, cap=10 * PRICE)
    with pytest.raises(MarketError) as raised:
        _sent(sender)
    said = str(raised.value)
    assert "the latest block number could not be read" in said, said
    assert "nothing was signed nor sent for this call" in said, said
    assert "call again with the same arguments" in said
    assert not market.broadcasts and market.signed == 0
    assert not list(Journal(tmp_path).folder.glob("*.json"))
    assert sender.ledger.spent == 0  # nothing counted against --max-spend
