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

"""The paid path's reads never take the default worker pool; one per request (no chain).

A re-read of a paid call that the client gives up on leaves its blocking read running
until ``--io-timeout``; forty of them in anyio's default pool stalled the server
(adv29q). :mod:`mech_catalogue_cli.mcp_server.paid_reads` runs them on a limiter of their
own and lets one read per request be in flight.
"""

import contextlib
import http.server
import threading
import time
from types import SimpleNamespace
from typing import Any, Iterator, List

import anyio
import pytest

from mech_catalogue_cli.mcp_server.delivery import DeliveryReader
from mech_catalogue_cli.mcp_server.ipfs import IpfsError
from mech_catalogue_cli.mcp_server.journal import JournalEntry
from mech_catalogue_cli.mcp_server.market import Delivered
from mech_catalogue_cli.mcp_server.paid_reads import PAID_READ_THREADS, PaidReads
from mech_catalogue_cli.mcp_server.settings import CallSettings, PhaseTimer

#: re-reads of one request, more than anyio's default pool of 40 threads
RE_READS = 45
#: seconds a client waits before giving up and calling again
GIVE_UP = 0.2
#: seconds a default-pool job (the stdio transport reading a line) may take meanwhile
PROMPT = 1.0
#: the server's default --io-timeout
IO_TIMEOUT = 30.0
REQUESTER = "0x" + "ab" * 20


async def default_pool_seconds(bound: float) -> float:
    """Run a no-op in anyio's default pool, as the transport and journal reads do.

    :param bound: seconds to wait at most.
    :return: seconds it took (``bound`` when it did not run in time).
    """
    began = time.monotonic()
    with anyio.move_on_after(bound):
        await anyio.to_thread.run_sync(lambda: None)
        return time.monotonic() - began
    return bound


@pytest.fixture(name="dripping_gateway")
def dripping_gateway_fixture() -> Iterator[Any]:
    """A gateway answering every GET ``200`` and a byte every 0.2 s, counting GETs.

    :yield: an object with ``url``, ``gets`` (the paths asked, in order) and ``stop``
        (set: every answer ends, cut short).
    """
    stop = threading.Event()
    gets: List[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        """Drip."""

        def do_GET(self) -> None:  # pylint: disable=invalid-name
            """Answer with a body that never ends in time."""
            gets.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", str(1 << 30))
            self.end_headers()
            while not stop.wait(0.2):
                try:
                    self.wfile.write(b"\0")
                    self.wfile.flush()
                except OSError:
                    return

        def log_message(self, *args: Any) -> None:  # pylint: disable=arguments-differ
            """Quiet."""

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()

    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield SimpleNamespace(url=url, gets=gets, stop=stop)
    finally:
        stop.set()
        server.shutdown()
        server.server_close()


class _Market:  # pylint: disable=too-few-public-methods
    """The one attribute a response read asks of the marketplace."""

    requester = REQUESTER


def test_re_reads_of_a_dripped_response_hold_one_read_and_not_the_default_pool(
    dripping_gateway: Any,
) -> None:
    """45 re-reads given up after 0.2 s, at --io-timeout 30: one GET, the pool free.

    The server's own response read (:meth:`DeliveryReader.delivered_result`, the real
    gateway read) against a gateway that drips.

    :param dripping_gateway: the gateway.
    """
    settings = CallSettings(
        gateway_url=dripping_gateway.url, ipfs_api_url="", io_timeout=IO_TIMEOUT
    )
    reader = DeliveryReader(_Market(), object(), settings)  # type: ignore[arg-type]
    entry = JournalEntry(
        key="k",
        tool="t",
        mech="0x" + "01" * 20,
        price=1,
        payment_type="",
        cid="",
        data="",
        market_nonce=0,
        request_id="0x" + "07" * 32,
        from_block=0,
    )
    delivered = Delivered(b"\x11" * 32, entry.mech, 1, REQUESTER)
    seen: List[float] = []

    async def re_read() -> None:
        # the client gives up, the server reads on (until the gateway is stopped)
        with anyio.move_on_after(GIVE_UP), contextlib.suppress(IpfsError):
            await reader.delivered_result(
                None, entry, delivered, (PhaseTimer(), None), {}  # type: ignore
            )

    async def main() -> None:
        async with anyio.create_task_group() as calls:
            for _ in range(RE_READS):
                calls.start_soon(re_read)
                await anyio.sleep(GIVE_UP / 4)
            seen.append(await default_pool_seconds(3 * PROMPT))
            seen.append(reader.paid_reads.limiter.borrowed_tokens)
            dripping_gateway.stop.set()  # the one read still going ends

    began = time.monotonic()
    anyio.run(main)
    # observed before: each re-read started a GET of its own in the default pool, and
    # once 40 were going the no-op above waited for one of them to end
    assert len(dripping_gateway.gets) == 1, dripping_gateway.gets
    assert seen[0] < PROMPT, seen
    assert seen[1] == 1, seen
    assert time.monotonic() - began < IO_TIMEOUT / 2


def test_a_failed_read_is_every_waiters_failure_and_never_kept() -> None:
    """Callers waiting on a read that fails get its error; the next call reads again."""
    reads: List[int] = []
    release = threading.Event()

    def failing_then_answering() -> str:
        reads.append(1)
        if len(reads) == 1:
            release.wait(5)
            raise OSError("gateway reset")
        return "answer"

    paid = PaidReads()
    outcomes: List[str] = []

    async def call() -> None:
        try:
            outcomes.append(await paid.once("r", failing_then_answering))
        except OSError as exc:
            outcomes.append(f"error: {exc}")

    async def main() -> None:
        async with anyio.create_task_group() as calls:
            for _ in range(3):
                calls.start_soon(call)
            await anyio.sleep(0.2)
            release.set()
        await call()

    anyio.run(main)
    assert outcomes == ["error: gateway reset"] * 3 + ["answer"], outcomes
    assert len(reads) == 2
    assert not paid.in_flight


def test_a_leader_cancelled_before_its_read_ran_hands_it_to_a_waiter() -> None:
    """Cancelled while waiting for a thread, the first caller's read is started again."""
    paid = PaidReads(threads=1)
    busy = threading.Event()
    outcomes: List[str] = []

    async def leader() -> None:
        with anyio.move_on_after(0.1):  # gives up waiting for the thread
            outcomes.append(await paid.once("r", lambda: "first"))

    async def waiter() -> None:
        outcomes.append(await paid.once("r", lambda: "again"))

    async def main() -> None:
        async with anyio.create_task_group() as calls:
            calls.start_soon(paid.run, busy.wait, 5)  # the only thread, taken
            await anyio.sleep(0.02)
            calls.start_soon(leader)
            await anyio.sleep(0.02)
            calls.start_soon(waiter)
            await anyio.sleep(0.3)
            busy.set()

    anyio.run(main)
    assert outcomes == ["again"], outcomes


def test_paid_reads_never_run_more_than_their_threads_at_once() -> None:
    """Reads of distinct requests beyond the bound wait; the default pool stays free."""
    paid = PaidReads(threads=2)
    running: List[int] = []
    most: List[int] = [0]
    lock = threading.Lock()

    def read() -> None:
        with lock:
            running.append(1)
            most[0] = max(most[0], len(running))
        time.sleep(0.2)
        with lock:
            running.pop()

    seen: List[float] = []

    async def main() -> None:
        async with anyio.create_task_group() as calls:
            for key in range(6):
                calls.start_soon(paid.once, key, read)
            await anyio.sleep(0.05)
            seen.append(await default_pool_seconds(3 * PROMPT))

    anyio.run(main)
    assert most[0] == 2
    assert seen[0] < PROMPT / 4, seen
    assert PAID_READ_THREADS < 40  # below anyio's default pool, which must stay free
