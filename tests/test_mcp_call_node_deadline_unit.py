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

"""Every node read of a paid call ends within what is left of its ``--timeout`` (adv29zx D1).

The node is a loopback JSON-RPC server that answers each method after a hold of its
own (:class:`SlowNode`), with canned answers; the marketplace is the real
``Marketplace`` on it, its per-request timeout 30 s as the server's. For each phase of
a call (the reads before signing, a broadcast begun, the delivery wait, the reads after
a cancellation's broadcast) the call ends by its ``--timeout`` plus a margin, and says
in words what was signed and what to do; a read asked once the call's time ended is
never sent. Reads made for no call keep the per-request timeout.
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Tuple

import anyio
import pytest

from mech_catalogue_cli.mcp_server.call_end_words import NOTHING_SIGNED, cut_words
from mech_catalogue_cli.mcp_server.cancel import CANCEL_KEY, record_cancel
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import MarketError, Marketplace, SignedRequest
from mech_catalogue_cli.mcp_server.node_deadline import (
    CallTimeSpent,
    reads_until,
    reads_within,
    time_spent,
)
from mech_catalogue_cli.mcp_server.sending import RequestSender
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.settings import PhaseTimer
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from tests.test_mcp_paid_answer_unit import KEY, OneTool, _entry

#: how long the slow node holds a held method's answer, seconds
HOLD = 3.0
#: the call's --timeout in these tests, seconds
TIMEOUT = 1.5
#: how late after its end a call may return (the watchdog, a thread's wake, a read's
#: connection): well under one HOLD
MARGIN = 0.8
#: what the slow node answers, by method (a method not here: null)
ANSWERS: Dict[str, Any] = {
    "eth_blockNumber": "0x20",
    "eth_chainId": "0x1",
    "eth_getTransactionCount": "0x3",
    "eth_estimateGas": "0x5208",
    "eth_sendRawTransaction": "0x" + "cc" * 32,
    "eth_getBlockByNumber": {"number": "0x20", "baseFeePerGas": "0x1"},
    # getRequestStatus / maxDeliveryRate: 1 (requested, not delivered; 1 wei)
    "eth_call": "0x" + "00" * 31 + "01",
    "eth_getTransactionReceipt": None,
}
MARKETPLACE = "0x" + "84" * 20
MECH = "0x" + "11" * 20


class SlowNode:
    """A loopback JSON-RPC node holding the answers of some methods.

    :param held: the methods held :data:`HOLD` s each (the others answer at once).
    """

    def __init__(self, held: Tuple[str, ...]) -> None:
        """Serve on a free loopback port (:meth:`close` stops it)."""
        self.held = held
        self.asked: List[str] = []
        node = self

        class Handler(BaseHTTPRequestHandler):
            """One JSON-RPC call: held when its method is, then answered."""

            def do_POST(self) -> None:  # pylint: disable=invalid-name
                """Answer the call."""
                call = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                node.asked.append(call["method"])
                if call["method"] in node.held:
                    time.sleep(HOLD)
                body = json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": call["id"],
                        "result": ANSWERS.get(call["method"]),
                    }
                ).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the client cut the read at its deadline

            def log_message(self, *args: Any) -> None:
                """Quiet."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def market(self) -> Marketplace:
        """The real marketplace on this node, its per-request timeout the server's."""
        return Marketplace(self.url, MARKETPLACE, "0x" + "01" * 32, timeout=30.0)

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(name="start_node")
def _start_node() -> Iterator[Callable[..., SlowNode]]:
    """Start slow nodes: ``start_node(*held)`` (no method named: every one held).

    :yield: the starter (every node it started is stopped after the test).
    """
    started: List[SlowNode] = []

    def start(*held: str) -> SlowNode:
        started.append(SlowNode(held or tuple(ANSWERS)))
        return started[-1]

    try:
        yield start
    finally:
        for node in started:
            node.close()


def _timed(read: Any, *args: Any) -> Tuple[Any, float]:
    """``read(*args)``'s value or error, and the seconds it took."""
    began = time.monotonic()
    try:
        value: Any = read(*args)
    except Exception as exc:  # pylint: disable=broad-exception-caught
        value = exc
    return value, time.monotonic() - began


# --- the one place: a read's timeout is what is left of the call ----------------------


def test_a_held_read_is_cut_at_the_call_s_end_in_the_server_s_words(
    start_node: Callable[..., SlowNode],
) -> None:
    """The head held 3 s, the call 1.5 s: cut at 1.5 s, said as the call's time.

    :param start_node: starts the node.
    """
    slow_node = start_node()
    market = slow_node.market()
    with reads_until(time.monotonic(), TIMEOUT):
        error, seconds = _timed(market.head)
    assert isinstance(error, MarketError), error
    assert seconds < TIMEOUT + MARGIN, seconds
    assert time_spent(error)
    assert f"this call's --timeout ({TIMEOUT:g} s) ended" in str(error), error
    assert "the node said" not in str(error)  # the server's words, not the node's


def test_no_read_is_sent_once_the_call_s_time_ended(
    start_node: Callable[..., SlowNode],
) -> None:
    """A read asked after the call's end is refused at once, the node never asked.

    :param start_node: starts the node.
    """
    slow_node = start_node()
    market = slow_node.market()
    with reads_until(time.monotonic() - 2 * TIMEOUT, TIMEOUT):
        for read in (market.head, market.chain_id, market.confirmed_nonce):
            error, seconds = _timed(read)
            assert isinstance(error, MarketError) and time_spent(error), error
            assert seconds < 0.2, seconds
    assert not slow_node.asked


def test_reads_within_the_call_s_time_are_answered(
    start_node: Callable[..., SlowNode],
) -> None:
    """An honest node answering at once: the call's bound changes nothing.

    :param start_node: starts the node (holding nothing).
    """
    slow_node = start_node("__none__")
    market = slow_node.market()
    with reads_until(time.monotonic(), TIMEOUT):
        assert market.head() == 0x20
        assert market.chain_id() == 1
        assert market.mech_price(MECH) == 1
    assert {"eth_blockNumber", "eth_chainId", "eth_call"} == set(slow_node.asked)


def test_a_read_for_no_call_keeps_its_own_timeout(
    start_node: Callable[..., SlowNode],
) -> None:
    """Outside a call (the catalogue's reads) the node's hold is waited out.

    :param start_node: starts the node (holding the head 3 s).
    """
    slow_node = start_node("eth_blockNumber")
    value, seconds = _timed(slow_node.market().head)
    assert value == 0x20 and seconds >= HOLD, (value, seconds)


def test_a_price_cut_at_the_call_s_end_is_an_error_not_an_unread_price(
    start_node: Callable[..., SlowNode],
) -> None:
    """``mech_price`` says None for a mech's failing getter, but raises the call's end.

    A price unread is the mech's doing (the offer is refused, the next tried); the
    call's time ending is not: every other offer would be refused the same way.

    :param start_node: starts the node (holding eth_call 3 s).
    """
    slow_node = start_node("eth_call")
    market = slow_node.market()
    with reads_until(time.monotonic(), TIMEOUT):
        error, seconds = _timed(market.mech_price, MECH)
    assert isinstance(error, MarketError) and time_spent(error), error
    assert seconds < TIMEOUT + MARGIN
    fast = Marketplace(slow_node.url, MARKETPLACE, "0x" + "01" * 32, timeout=0.5)
    assert fast.mech_price(MECH) is None  # its own timeout, for no call: unread


# --- before the signature --------------------------------------------------------------


def test_the_reads_before_signing_end_at_the_call_s_end(
    start_node: Callable[..., SlowNode],
) -> None:
    """The nonce answered, the estimate held: nothing signed, cut by the call's end.

    :param start_node: starts the node (holding the estimate and the block 3 s each).
    """
    slow_node = start_node("eth_estimateGas", "eth_getBlockByNumber")
    market = slow_node.market()
    transaction = {
        "from": market.requester,
        "to": MARKETPLACE,
        "value": 0,
        "data": "0x",
    }
    with reads_until(time.monotonic(), TIMEOUT):
        error, seconds = _timed(market.sign, {**transaction, "chainId": 1})
    assert isinstance(error, MarketError) and time_spent(error), error
    assert seconds < TIMEOUT + MARGIN, seconds
    assert "eth_getBlockByNumber" not in slow_node.asked  # never asked after the end


def _sender(tmp_path: Path, market: Any) -> RequestSender:
    settings = CallSettings(
        gateway_url="", ipfs_api_url="", timeout=TIMEOUT, io_timeout=30.0
    )
    return RequestSender(market, Journal(tmp_path), settings, SpendLedger(None))


@pytest.mark.parametrize(
    "journalled, said",
    [
        (None, NOTHING_SIGNED),
        ({"raw_tx": ""}, NOTHING_SIGNED),  # prepared, nothing signed yet
        ({"raw_tx": "0x02f8", "tx_hash": "0x" + "ef" * 32}, "signed and journalled"),
    ],
)
def test_a_send_cut_before_signing_says_what_the_call_signed(
    tmp_path: Path, journalled: Any, said: str
) -> None:
    """Cut before its signature: nothing signed, or the earlier request and how to read it.

    :param tmp_path: the state folder.
    :param journalled: the call's entry before it (None: none).
    :param said: what the words say of it.
    """
    journal = Journal(tmp_path)
    if journalled is not None:
        journal.save(_entry(**journalled))
    error = MarketError("the latest block could not be read")
    error.__cause__ = CallTimeSpent(1)
    words = anyio.run(cut_words, error, journal, KEY)
    assert words is not None and said in words, words
    assert "call again with the same arguments" in words


def test_an_error_naming_its_signed_request_or_not_the_call_s_end_is_kept(
    tmp_path: Path,
) -> None:
    """Errors that say their request already, or are no time ending, get no words.

    :param tmp_path: the state folder.
    """
    journal = Journal(tmp_path)
    entry = _entry(raw_tx="0x02f8", tx_hash="0x" + "ef" * 32)
    journal.save(entry)
    named = MarketError(f"tx {entry.tx_hash} was not mined within 1 s")
    named.__cause__ = CallTimeSpent(1)
    said = MarketError(f"the nonce could not be read; {NOTHING_SIGNED}")
    said.__context__ = CallTimeSpent(1)
    for error in (named, said, MarketError("rpc down")):
        assert anyio.run(cut_words, error, journal, KEY) is None, error


# --- a broadcast begun ------------------------------------------------------------------


def test_a_broadcast_begun_at_the_call_s_end_is_sent_and_given_its_wait(
    start_node: Callable[..., SlowNode],
) -> None:
    """Signed and journalled when the call's time ended: its bytes still go out.

    The broadcast's own bound (the call's :meth:`receipt_wait`, 1 s at least) is its
    reads' end; after it the call's end holds again.

    :param start_node: starts the node (holding the receipt 3 s).
    """
    slow_node = start_node("eth_getTransactionReceipt")
    market = slow_node.market()
    signed = SignedRequest("0x02f8", "0x" + "cc" * 32, 3)
    with reads_until(time.monotonic() - 2 * TIMEOUT, TIMEOUT):
        error, seconds = _timed(market.broadcast, signed, 1.0)
        assert "eth_sendRawTransaction" in slow_node.asked  # sent, not refused
        assert isinstance(error, MarketError), error
        assert "was not mined within 1 s" in str(error), error
        assert "call again with the same arguments" in str(error)
        assert 1.0 <= seconds < 1.0 + MARGIN, seconds
        after, _ = _timed(market.head)
        assert isinstance(after, MarketError) and time_spent(after), after


def test_reads_within_outside_a_call_bounds_its_block_alone() -> None:
    """A wait's bound outside any call: its reads end with it, the block's end restores."""
    node = SlowNode(("eth_blockNumber",))
    try:
        market = node.market()
        with reads_within(0.5):
            error, seconds = _timed(market.head)
        assert isinstance(error, MarketError) and seconds < 0.5 + MARGIN, error
    finally:
        node.close()


# --- after a cancellation's broadcast ---------------------------------------------------


def test_the_reads_after_a_cancellation_end_at_the_call_s_end(
    tmp_path: Path, start_node: Callable[..., SlowNode]
) -> None:
    """The cancellation sent, its receipt and the request's status held: said, in time.

    :param tmp_path: the state folder.
    :param start_node: starts the node (holding the receipt and eth_call 3 s each).
    """
    slow_node = start_node("eth_getTransactionReceipt", "eth_call")
    entry = _entry(raw_tx="0x02f8", tx_hash="0x" + "ef" * 32, account_nonce=3)
    record_cancel(entry, SignedRequest("0x02f9", "0x" + "cc" * 32, 3), "stale")
    sender = _sender(tmp_path, slow_node.market())
    with reads_until(time.monotonic(), TIMEOUT):
        error, seconds = _timed(sender.cancel_request, entry, "", 1.0)
    assert isinstance(error, MarketError), error
    assert seconds < TIMEOUT + MARGIN, seconds
    text = str(error)
    assert "is being cancelled" in text and "0x" + "cc" * 32 in text, text
    assert "ended before the node answered" in text, text
    assert "the cancellation is sent again, never the request" in text
    assert "eth_sendRawTransaction" in slow_node.asked
    assert CANCEL_KEY in entry.extra


# --- the delivery wait ------------------------------------------------------------------


def test_the_delivery_wait_ends_at_the_call_s_end_said_undelivered(
    tmp_path: Path, start_node: Callable[..., SlowNode]
) -> None:
    """Each poll's status read held 3 s: the wait ends with the call, paid and resumable.

    :param tmp_path: the state folder.
    :param start_node: starts the node (holding eth_call 3 s).
    """
    slow_node = start_node("eth_call")
    settings = CallSettings(
        gateway_url="", ipfs_api_url="", timeout=TIMEOUT, delivery_poll=0.05
    )
    market = slow_node.market()
    app = MechToolServer(OneTool(), settings, market, Journal(tmp_path))
    app.refresh()
    tool, reader = app.catalogue.named("t"), app.reader
    assert reader is not None and tool is not None
    timer = PhaseTimer()

    async def wait() -> Any:
        with reads_until(timer.began, TIMEOUT):
            return await reader.await_result(tool, _entry(), timer, None)

    began = time.monotonic()
    result = anyio.run(wait)
    seconds = time.monotonic() - began
    text = result.content[0].text
    assert seconds < TIMEOUT + MARGIN, (seconds, text)
    assert result.is_error and "was not delivered within" in text, text
    assert "Call again with the same arguments to keep waiting" in text


def test_the_first_poll_after_the_call_s_end_is_still_made(
    tmp_path: Path, start_node: Callable[..., SlowNode]
) -> None:
    """A send that took the whole call: the marketplace is read once, 1 s at most.

    :param tmp_path: the state folder.
    :param start_node: starts the node (holding eth_call 3 s).
    """
    slow_node = start_node("eth_call")
    settings = CallSettings(gateway_url="", ipfs_api_url="", timeout=TIMEOUT)
    app = MechToolServer(OneTool(), settings, slow_node.market(), Journal(tmp_path))
    app.refresh()
    tool, reader = app.catalogue.named("t"), app.reader
    assert reader is not None and tool is not None
    timer = PhaseTimer(began=time.monotonic() - 2 * TIMEOUT)

    async def wait() -> Any:
        with reads_until(timer.began, TIMEOUT):
            return await reader.await_result(tool, _entry(), timer, None)

    began = time.monotonic()
    result = anyio.run(wait)
    seconds = time.monotonic() - began
    assert "eth_call" in slow_node.asked  # read once, though the time was spent
    assert 1.0 <= seconds < 1.0 + MARGIN, seconds
    assert "was not delivered within" in result.content[0].text


def _accepted_offchain_entry() -> Any:
    """A sent call whose off-chain request its mech's endpoint accepted, unsettled."""
    entry = _entry(tx_hash="", raw_tx="", account_nonce=-1, paid_at=time.time())
    entry.extra["offchain"] = {
        "endpoint": "http://127.0.0.1:9",
        "signature": "0x" + "aa" * 65,
        "accepted": True,
        "requester": "0x" + "22" * 20,
        "chain_id": 1,
    }
    return entry


@pytest.mark.parametrize("held", ["eth_blockNumber", "eth_call"])
def test_an_accepted_request_s_wait_cut_at_the_call_s_end_says_its_own_outcome(
    tmp_path: Path, start_node: Callable[..., SlowNode], held: str
) -> None:
    """The reads that choose which off-chain request to wait for, cut: still a wait.

    The head (or every status and nonce read) held 3 s, the call's time spent by its
    send: the call says its accepted request was not settled within its time, where it
    stands and how it is given up, never that its answer could not be read.

    :param tmp_path: the state folder.
    :param start_node: starts the node (holding ``held`` 3 s).
    :param held: the JSON-RPC method the node holds.
    """
    slow_node = start_node(held)
    settings = CallSettings(gateway_url="", ipfs_api_url="", timeout=TIMEOUT)
    app = MechToolServer(OneTool(), settings, slow_node.market(), Journal(tmp_path))
    app.refresh()
    tool, reader = app.catalogue.named("t"), app.reader
    assert reader is not None and tool is not None
    timer = PhaseTimer(began=time.monotonic() - 2 * TIMEOUT)

    async def wait() -> Any:
        with reads_until(timer.began, TIMEOUT):
            return await reader.await_result(
                tool, _accepted_offchain_entry(), timer, None
            )

    began = time.monotonic()
    result = anyio.run(wait)
    seconds = time.monotonic() - began
    text = result.content[0].text
    assert result.is_error and "was not delivered within" in text, text
    assert "posted to its endpoint and accepted" in text, text
    assert "could not be read now" not in text, text
    if held == "eth_blockNumber":  # the nonce read in the words' own look
        assert "from its acceptance" in text and "given up" in text, text
    assert "Call again with the same arguments to keep waiting" in text
    assert seconds < 3 * (1.0 + MARGIN), seconds  # a look each: choice, poll, words
