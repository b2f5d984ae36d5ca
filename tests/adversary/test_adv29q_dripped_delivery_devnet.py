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

"""A delivery dripped a byte at a time holds the paid call past every bound (adv29q, devnet).

Severity: HIGH (STALL: a paid call never returns, and each free re-read of it holds one
more of the server's worker threads for as long, with no key and no money: the
delivering mech serves its response's blocks slowly, and a public gateway streams what
it gets; kubo's gateway streams a UnixFS file chunk by chunk as its blocks arrive).

``ipfs.fetch_response`` reads the response through ``adapters.ipfs.gateway_bytes``,
whose ``timeout`` is "seconds per socket read": a body that sends one byte more often
than ``--io-timeout`` is read until its 1 MiB cap (at a byte a second, 12 days). The
read runs in an anyio worker thread (``DeliveryReader``), outside ``--timeout`` (which
bounds only the wait for ``Delivered``), and the thread cannot be cancelled.

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
operator) with the MCP SDK's client over Streamable HTTP, one agent; the server's
gateway is a proxy to kubo's (:class:`DrippingGateway`) that, once armed, answers every
GET with ``200`` and one byte each 0.5 s (``--io-timeout 3``, ``--timeout 20``):

- the agent calls ``prediction-online``; the request is paid and delivered;
- observed on main: the call has not returned after 90 s (the test's bound; it would
  read for about 6 days), while ``tools/list`` from another session still answers.

Each free re-read of that call (the agent's client giving up after 1.5 s and calling
again, over stdio) starts one more such read in a worker thread of its own; anyio's
default pool has 40, and the SDK's stdio transport reads each request line in one of
them: observed on main, ``tools/list`` answered in 0.005 s after 30 re-reads and did not
answer within 30 s after 40 (the server stalled for every client and call, for as long as
the drip lasts).

Expected: a paid call ends within its bounds (``--timeout`` plus a few
``--io-timeout``): an ``isError`` naming the paid request that says a call again reads
it without paying; with an honest gateway again, the same call returns the delivered
answer, one request on chain.
"""

import contextlib
import http.server
import json
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, List

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mech_catalogue_cli.devnet.state import STATE_FILE
from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import (
    free_port,
    http_server,
    market_nonce,
    responder,
    stdio_client,
)
from tests.devnet.test_mcp_server import TOOL

#: seconds between the dripped bytes (below --io-timeout)
DRIP = 0.5
#: the server's bounds: seconds per IPFS read, seconds a call waits for its delivery
IO_TIMEOUT, TIMEOUT = 3, 20
#: how long the test waits for the paid call (its bounds, with room)
BOUND = TIMEOUT + 10 * IO_TIMEOUT + 40


class DrippingGateway:
    """A proxy to kubo's gateway that, once armed, drips every answer forever.

    :param upstream: kubo's gateway URL.
    """

    def __init__(self, upstream: str) -> None:
        """Bind a free loopback port (serve with :meth:`running`)."""
        self.armed = threading.Event()
        self.stop = threading.Event()
        self.dripped: List[str] = []
        gateway = self

        class Handler(http.server.BaseHTTPRequestHandler):
            """Proxy a GET, or drip it."""

            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # pylint: disable=invalid-name
                """Answer one GET."""
                if gateway.armed.is_set():
                    gateway.dripped.append(self.path)
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Content-Length", str(1 << 30))
                    self.end_headers()
                    while not gateway.stop.wait(DRIP):
                        self.wfile.write(b"\0")
                        self.wfile.flush()
                    return
                try:
                    with urllib.request.urlopen(  # nosec: loopback kubo
                        upstream.rstrip("/") + self.path, timeout=30
                    ) as answer:
                        data, status = answer.read(), answer.status
                except urllib.error.HTTPError as refused:
                    data, status = refused.read(), refused.code
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(
                self, *args: Any
            ) -> None:  # pylint: disable=arguments-differ
                """Quiet."""

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    @contextlib.contextmanager
    def running(self) -> Iterator["DrippingGateway"]:
        """Serve in a thread; stop every drip on exit.

        :yield: the gateway.
        """
        thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.stop.set()
            self.server.shutdown()
            self.server.server_close()


def devnet_dir_with_gateway(devnet: Devnet, folder: Path, gateway_url: str) -> Path:
    """A copy of the devnet's ``devnet.json`` whose IPFS gateway is ``gateway_url``.

    :param devnet: the devnet.
    :param folder: where to write it.
    :param gateway_url: the gateway.
    :return: the folder (for ``--devnet-dir``).
    """
    folder.mkdir(parents=True, exist_ok=True)
    data = json.loads((Path(devnet.info.state_dir) / STATE_FILE).read_text())
    data["ipfs_gateway_url"] = gateway_url
    (folder / STATE_FILE).write_text(json.dumps(data))
    return folder


def test_a_dripped_delivery_does_not_hold_the_paid_call(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A gateway dripping the response: the call ends within its bounds, then reads it.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    gateway = DrippingGateway(devnet.info.ipfs_gateway_url)
    dripping = devnet_dir_with_gateway(devnet, tmp_path / "dripping", gateway.url)
    state = tmp_path / "state"
    state.mkdir()
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    options = ["--timeout", str(TIMEOUT), "--io-timeout", str(IO_TIMEOUT)]
    options += ["--poll", "3600"]
    arguments = {"prompt": "Dripped delivery?", "temperature": 0.5}
    nonce = market_nonce(devnet)
    seen: Dict[str, Any] = {"list seconds": []}

    async def lists_meanwhile(done: anyio.Event) -> None:
        async with Client(streamable_http_client(url), mode="legacy") as other:
            while not done.is_set():
                began = time.monotonic()
                await other.list_tools()
                seen["list seconds"].append(round(time.monotonic() - began, 3))
                await anyio.sleep(2)

    async def paid_call() -> None:
        done = anyio.Event()
        async with anyio.create_task_group() as group:
            async with Client(streamable_http_client(url), mode="legacy") as client:
                await client.list_tools()
                gateway.armed.set()
                group.start_soon(lists_meanwhile, done)
                began = time.monotonic()
                with anyio.move_on_after(BOUND):
                    seen["dripped"] = await client.call_tool(TOOL, arguments)
                seen["call seconds"] = round(time.monotonic() - began, 1)
                done.set()

    async def honest_call() -> None:
        async with Client(streamable_http_client(url), mode="legacy") as client:
            seen["again"] = await client.call_tool(TOOL, arguments)

    with gateway.running(), responder(devnet):
        # the last --devnet-dir given wins: the dripping gateway's
        with http_server(
            devnet, state, *options, "--devnet-dir", str(dripping), port=port
        ):
            anyio.run(paid_call)
        gateway.stop.set()
    with responder(devnet), http_server(devnet, state, *options, port=port):
        anyio.run(honest_call)
    observed = (
        f"call returned: {'dripped' in seen}, after {seen['call seconds']} s (bound "
        f"{BOUND} s); dripped GETs {gateway.dripped[:3]}; tools/list meanwhile "
        f"{seen['list seconds']} s; market nonce {nonce} -> {market_nonce(devnet)}; "
        f"again: {str(seen['again'].content[0].text)[:160]!r}"
    )
    assert gateway.dripped, observed  # premise: the delivery was read through the drip
    # observed on main: not returned within the bound
    assert "dripped" in seen, observed
    assert seen["dripped"].is_error, observed
    said = str(seen["dripped"].content[0].text)
    assert "without paying" in said or "will not pay again" in said, observed
    assert not seen["again"].is_error, observed
    assert "devnet stand-in" in str(seen["again"].content[0].text), observed
    assert market_nonce(devnet) == nonce + 1, observed


#: free re-reads the agent makes, each given up after GIVE_UP s (anyio's pool: 40)
RE_READS, GIVE_UP = 41, 1.5
#: how long tools/list may take after them
LIST_BOUND = 5.0


def test_re_reads_of_a_dripped_delivery_do_not_stall_the_server(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Forty re-reads of a dripped delivery, each given up: tools/list still answers.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    gateway = DrippingGateway(devnet.info.ipfs_gateway_url)
    dripping = devnet_dir_with_gateway(devnet, tmp_path / "dripping", gateway.url)
    state = tmp_path / "state"
    state.mkdir()
    options = ["--timeout", str(TIMEOUT), "--io-timeout", str(IO_TIMEOUT)]
    options += ["--poll", "3600", "--devnet-dir", str(dripping)]
    nonce = market_nonce(devnet)
    seen: Dict[str, Any] = {"lists": []}

    async def main() -> None:
        async with stdio_client(devnet, state, *options) as client:
            await client.list_tools()
            gateway.armed.set()
            with anyio.move_on_after(4 * GIVE_UP):  # paid, delivered, read dripping
                await client.call_tool(TOOL, {"prompt": "Stalled?", "temperature": 0.5})
            for attempt in range(1, RE_READS + 1):
                with anyio.move_on_after(GIVE_UP):
                    await client.call_tool(
                        TOOL, {"prompt": "Stalled?", "temperature": 0.5}
                    )
                if attempt % 10 == 0 or attempt == RE_READS:
                    began = time.monotonic()
                    with anyio.move_on_after(6 * LIST_BOUND):
                        await client.list_tools()
                    seen["lists"].append((attempt, round(time.monotonic() - began, 3)))

    with gateway.running(), responder(devnet):
        anyio.run(main)
    observed = (
        f"tools/list seconds after (re-reads, seconds) {seen['lists']}; dripped GETs "
        f"{len(gateway.dripped)}; market nonce {nonce} -> {market_nonce(devnet)}"
    )
    assert market_nonce(devnet) == nonce + 1, observed  # premise: paid once
    assert len(gateway.dripped) > 10, observed  # premise: the re-reads read dripping
    # observed on main: [(10, 0.005), (20, 0.007), (30, 0.005), (40, 30.028), ...]
    for _, seconds in seen["lists"]:
        assert seconds < LIST_BOUND, observed
