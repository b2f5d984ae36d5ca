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

"""Every network read the CLI makes ends by one deadline for the whole answer (adv29q's kind).

``requests``' ``timeout`` bounds each socket read: a server that sends a byte more
often than that held a read for as long as it liked (a delivery read for days, a chain
read, a manifest read holding the catalogue refresh). Each adapter here is pointed at a
local server (:func:`serving`) that drips a byte every :data:`DRIP` s, in the body or in
the headers, and must fail by its deadline with an error naming the source; the same
adapter must still read an honest answer that is slow but ends within the deadline.
Nothing is mocked.
"""

import http.server
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable, Iterator, List

import pytest
from mech_catalogue_core.chain.registry import ChainReadError

from mech_catalogue_cli.adapters import http as plain_http
from mech_catalogue_cli.adapters.http import (
    AnswerError,
    DeadlineExceeded,
    DeadlineSession,
    deadline,
    get_json,
    new_session,
    post_form_json,
    watched,
    watched_session,
)
from mech_catalogue_cli.adapters.ipfs import (
    IpfsTransportError,
    KuboRpc,
    gateway_answer,
    gateway_bytes,
    gateway_file,
    raw_block,
)
from mech_catalogue_cli.adapters.jsonrpc import JsonRpc
from mech_catalogue_cli.mcp_server import ipfs as server_ipfs
from mech_catalogue_cli.mcp_server.market import MarketError, Marketplace

#: seconds between dripped bytes (below every per-read timeout used here)
DRIP = 0.3
#: the deadline the adapters are given, seconds
DEADLINE = 1.0
#: how late after its deadline a read may end (the watchdog's step, the thread's wake)
SLACK = 1.0
#: an honest answer, what every adapter here accepts (JSON-RPC, a kubo line, a file),
#: sent in HONEST_PIECES pieces, one each DRIP s (1.5 s, within HONEST_DEADLINE)
HONEST = b'{"jsonrpc":"2.0","id":1,"result":"0x10"}'
HONEST_PIECES = 5
HONEST_DEADLINE = 6.0
#: any key: nothing is signed
KEY = "0x" + "42" * 32
CID = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"


class Dripper:  # pylint: disable=too-few-public-methods
    """What the local server does: drip forever (body or headers), or answer slowly.

    :param mode: ``body`` (headers at once, then a one-byte chunk each DRIP s
        forever),
        ``headers`` (a header line a byte each DRIP s, forever) or ``honest``
        (:data:`HONEST`, a byte each DRIP s, then the end).
    """

    def __init__(self, mode: str) -> None:
        """Keep the mode; count the requests.

        :param mode: see the class.
        """
        self.mode = mode
        self.requests: List[str] = []
        self.stop = threading.Event()

    def answer(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        """Answer one request as the mode says.

        :param handler: the request's handler.
        """
        self.requests.append(handler.command + " " + handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        if length:
            handler.rfile.read(length)
        if self.mode == "headers":
            handler.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
            while not self.stop.wait(DRIP):
                handler.wfile.write(b"a")
                handler.wfile.flush()
            return
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        if self.mode == "honest":
            handler.send_header("Content-Length", str(len(HONEST)))
            handler.end_headers()
            step = -(-len(HONEST) // HONEST_PIECES)
            for index in range(0, len(HONEST), step):
                if self.stop.wait(DRIP):
                    return
                handler.wfile.write(HONEST[index : index + step])
                handler.wfile.flush()
            return
        handler.send_header("Transfer-Encoding", "chunked")  # no size to refuse
        handler.end_headers()
        while not self.stop.wait(DRIP):
            handler.wfile.write(b"1\r\n \r\n")
            handler.wfile.flush()


@contextmanager
def serving(mode: str) -> Iterator[Any]:
    """Serve GET and POST on 127.0.0.1 as :class:`Dripper` says, in threads.

    :param mode: the :class:`Dripper` mode.
    :yield: ``(base URL, the dripper)``.
    """
    dripper = Dripper(mode)

    class Handler(http.server.BaseHTTPRequestHandler):
        """Hand every request to the dripper."""

        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # pylint: disable=invalid-name
            """Answer a GET."""
            try:
                dripper.answer(self)
            except OSError:
                pass  # the client gave up

        do_POST = do_GET

        def log_message(self, *args: Any) -> None:  # pylint: disable=arguments-differ
            """Quiet."""

    class Server(http.server.ThreadingHTTPServer):
        """Room in the listen queue for forty readers at once."""

        request_queue_size = 64

    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", dripper
    finally:
        dripper.stop.set()
        server.shutdown()
        server.server_close()


def timed(read: Callable[[], Any]) -> Any:
    """Run ``read``; return what it returned or raised, and its seconds.

    :param read: the read.
    :return: ``(result or exception, seconds)``.
    """
    began = time.monotonic()
    try:
        outcome: Any = read()
    except Exception as exc:  # pylint: disable=broad-except
        outcome = exc
    return outcome, time.monotonic() - began


def kubo_read(url: str, seconds: float) -> Any:
    """``cat`` through :class:`KuboRpc` (a session of its own a call).

    :param url: the node.
    :param seconds: the deadline.
    :return: the bytes.
    """
    return KuboRpc(url, seconds).read("cat", {"arg": CID}, 1000)


def kubo_add(url: str, seconds: float) -> Any:
    """``add`` through :class:`KuboRpc` on a caller's plain session.

    :param url: the node.
    :param seconds: the deadline.
    :return: kubo's entries.
    """
    return KuboRpc(url, seconds, plain_http.requests.Session()).add(
        {}, {"file": ("f", b"x")}
    )


def ipfs_gateway_bytes(url: str, seconds: float) -> Any:
    """A capped gateway GET (the delivery read's).

    :param url: the gateway.
    :param seconds: the deadline.
    :return: the body.
    """
    return gateway_bytes(new_session(), url, f"ipfs/{CID}", seconds, 1 << 20)


def jsonrpc_call(url: str, seconds: float) -> Any:
    """``eth_blockNumber`` through :class:`JsonRpc`.

    :param url: the node.
    :param seconds: the deadline.
    :return: the result.
    """
    return JsonRpc(url, seconds).call("eth_blockNumber", [])


#: the raising reads: (name, read, the error's type, what its message names)
RAISING = [
    ("gateway_bytes", ipfs_gateway_bytes, IpfsTransportError, f"GET /ipfs/{CID} from"),
    ("kubo cat", kubo_read, IpfsTransportError, "cat on the IPFS node at"),
    ("kubo add", kubo_add, IpfsTransportError, "add on the IPFS node at"),
    ("json-rpc", jsonrpc_call, ChainReadError, "eth_blockNumber to"),
    (
        "agent API",
        lambda url, s: get_json(watched_session(), url, s, 1 << 20, 64),
        AnswerError,
        "",
    ),
    (
        "off-chain mech",
        lambda url, s: post_form_json(
            watched_session(), url, {"a": "b"}, s, 1 << 20, 64
        ),
        AnswerError,
        "",
    ),
]


@pytest.mark.parametrize("mode", ["body", "headers"])
@pytest.mark.parametrize(
    "read,error,names", [r[1:] for r in RAISING], ids=[r[0] for r in RAISING]
)
def test_a_dripped_answer_ends_by_the_deadline_naming_its_source(
    mode: str, read: Callable[[str, float], Any], error: type, names: str
) -> None:
    """Dripped body or headers: the read fails by its deadline, naming the source.

    :param mode: where the drip is.
    :param read: the adapter's read.
    :param error: the error it raises.
    :param names: what the message names (the request and the source).
    """
    with serving(mode) as (url, _):
        outcome, seconds = timed(lambda: read(url, DEADLINE))
    assert isinstance(outcome, error), outcome
    assert seconds < DEADLINE + SLACK, seconds
    text = str(outcome)
    assert names in text and "127.0.0.1" in text or not names, text
    assert "within 1 s" in text, text


@pytest.mark.parametrize("read", [r[1] for r in RAISING], ids=[r[0] for r in RAISING])
def test_an_honest_slow_answer_within_the_deadline_is_read(
    read: Callable[[str, float], Any],
) -> None:
    """An answer trickled over 1.5 s, under a 6 s deadline (per-read waits 0.3 s): read.

    :param read: the adapter's read.
    """
    with serving("honest") as (url, _):
        outcome, seconds = timed(lambda: read(url, HONEST_DEADLINE))
    assert not isinstance(outcome, Exception), outcome
    assert seconds >= HONEST_PIECES * DRIP * 0.9, seconds  # premise: it trickled


@pytest.mark.parametrize("mode", ["body", "headers"])
def test_a_dripped_manifest_or_file_read_is_failure_text_by_the_deadline(
    mode: str,
) -> None:
    """The catalogue's and ``--source``'s gateway reads return the deadline as failure.

    :param mode: where the drip is.
    """
    with serving(mode) as (url, _):
        answer, answered_in = timed(
            lambda: gateway_answer(new_session(), url, CID, DEADLINE, 1000)
        )
        file, file_in = timed(lambda: gateway_file(url, CID, DEADLINE, 1000))
        block, block_in = timed(
            lambda: raw_block(new_session(), url, CID, DEADLINE, 1000)
        )
    assert answer[0] is None and answer[1] == "did not finish within 1 s", answer
    assert file == (None, "did not finish within 1 s"), file
    assert block is None
    assert max(answered_in, file_in, block_in) < DEADLINE + SLACK


def test_a_dripped_rpc_answer_ends_a_web3_read_once_by_the_deadline() -> None:
    """web3 (the paid call's chain reads): one POST, ended by the deadline, not retried."""
    with serving("body") as (url, dripper):
        market = Marketplace(url, "0x" + "11" * 20, KEY, timeout=DEADLINE)
        outcome, seconds = timed(market.head)
    # said as the server's error, the deadline its cause (a node's error is one kind)
    assert isinstance(outcome, MarketError), outcome
    assert isinstance(outcome.__cause__, DeadlineExceeded), outcome.__cause__
    assert "did not finish within 1 s" in str(outcome), outcome
    assert seconds < DEADLINE + SLACK, seconds
    assert len(dripper.requests) == 1, dripper.requests  # web3 retries Timeout 5 times


def test_an_honest_slow_rpc_answer_is_read_by_web3() -> None:
    """A JSON-RPC answer trickled within the deadline is read."""
    with serving("honest") as (url, _):
        session = DeadlineSession(HONEST_DEADLINE)
        response = session.post(url, data=b"{}", timeout=DRIP * 3)
    assert response.content == HONEST


def test_forty_readers_of_a_drip_are_all_released_by_the_deadline() -> None:
    """A pool's 40 threads each reading a drip are all free again by the deadline."""
    with serving("body") as (url, dripper):
        with ThreadPoolExecutor(max_workers=40) as pool:
            began = time.monotonic()
            outcomes = list(
                pool.map(
                    lambda _: timed(lambda: ipfs_gateway_bytes(url, DEADLINE))[0],
                    range(40),
                )
            )
            seconds = time.monotonic() - began
    assert len(dripper.requests) == 40
    assert all(isinstance(o, IpfsTransportError) for o in outcomes), outcomes
    assert seconds < DEADLINE + 2 * SLACK, seconds


def test_the_delivery_fetch_shares_one_deadline_across_its_gets() -> None:
    """A GET not started before the fetch's deadline is not sent, and says why."""
    with serving("honest") as (url, dripper):
        with pytest.raises(server_ipfs.IpfsError) as raised:
            server_ipfs._get(  # pylint: disable=protected-access
                new_session(), url, f"ipfs/{CID}", (3.0, time.monotonic() - 0.1)
            )
    assert "did not finish within 3 s" in str(raised.value)
    assert "127.0.0.1" in str(raised.value)
    assert not dripper.requests


def test_a_delivery_fetch_from_a_drip_ends_within_io_timeout() -> None:
    """``fetch_response`` (the paid call's read) fails by ``--io-timeout`` in all."""
    with serving("body") as (url, _):
        outcome, seconds = timed(
            lambda: server_ipfs.fetch_response(url, b"\x11" * 32, 7, DEADLINE)
        )
    assert isinstance(outcome, server_ipfs.IpfsError), outcome
    assert "did not finish within 1 s" in str(outcome)
    assert seconds < DEADLINE + SLACK


def test_nested_deadlines_each_end_their_block() -> None:
    """An inner deadline shorter than the outer one ends the read at the inner one."""
    with serving("body") as (url, _):
        session = watched_session()
        began = time.monotonic()
        with pytest.raises(DeadlineExceeded) as raised:
            with deadline(5.0):
                with deadline(DEADLINE):
                    session.get(url, timeout=5.0).content  # pylint: disable=W0106
        seconds = time.monotonic() - began
    assert raised.value.seconds == DEADLINE
    assert seconds < DEADLINE + SLACK


def test_a_block_that_ends_in_time_raises_nothing_and_leaves_no_watch() -> None:
    """A fast read inside a deadline: its answer, and no socket left recorded."""
    with serving("honest") as (url, _):
        with deadline(HONEST_DEADLINE):
            text = watched_session().get(url, timeout=1.0).content
    assert text == HONEST
    assert not getattr(plain_http._SENDING, "watched", [])  # pylint: disable=W0212


def test_watched_mounts_watched_transports_on_a_plain_session_only() -> None:
    """A plain session gets watched transports; a pinned one and a stand-in are kept."""
    plain = watched(plain_http.requests.Session())
    assert isinstance(plain.get_adapter("https://x"), plain_http.WatchedAdapter)
    pinned = plain_http.pinned_session(["127.0.0.1"])
    adapter = pinned.get_adapter("http://x")
    assert watched(pinned).get_adapter("http://x") is adapter
    stand_in = object()
    assert watched(stand_in) is stand_in
