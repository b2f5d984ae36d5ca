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

"""A server SIGKILLed at each step of a paid call, restarted, called again (adv29q, devnet).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
operator) with the MCP SDK's client, one agent. The server reads the chain through a
JSON-RPC tap in front of anvil (:class:`RpcTap`), which holds the first request of a
given method unanswered and tells the test, so the kill lands on the event, not on a
timer:

- ``before the send``: the tap holds ``eth_sendRawTransaction`` (the journal already
  holds the signed request) without passing it on;
- ``after the send``: the tap passes ``eth_sendRawTransaction`` to anvil (mined at once)
  and holds its answer (no receipt read);
- ``while delivering``: the operator answers; the tap holds the first ``eth_getLogs``
  after the send (the ``Deliver`` log read).

The server (HTTP) is SIGKILLed on the event, started again on the same state folder
and port reading anvil directly, and the agent calls again with the same arguments over
HTTP in a session, over sessionless 2026-07-28 HTTP and over stdio, and once with other
arguments.

Expected, at every step: one request on chain for the arguments (the marketplace's
nonce moves by one, and one more for the other arguments), every call with the same
arguments answers the delivered document for those arguments, the other arguments'
call answers its own.
"""

import contextlib
import http.server
import json
import os
import signal
import subprocess  # nosec: runs our own CLI
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mech_catalogue_cli.devnet.state import STATE_FILE
from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import (
    ROOT,
    _env,
    command,
    free_port,
    http_server,
    market_nonce,
    responder,
    stdio_client,
)
from tests.devnet.test_mcp_server import TOOL

#: the protocol without sessions over HTTP
MODERN = sorted(MODERN_PROTOCOL_VERSIONS)[-1]
#: how long the tap waits for the server to reach the step
STEP_WAIT = 90.0


class RpcTap:
    """A JSON-RPC proxy to anvil that holds the first request of one method.

    :param upstream: anvil's URL.
    :param method: the JSON-RPC method to hold (e.g. ``eth_sendRawTransaction``).
    :param forward: pass the held request to anvil before holding its answer.
    :param after: hold only once a request of this method was passed on (or "").
    """

    def __init__(self, upstream: str, method: str, forward: bool, after: str) -> None:
        """Serve on a free loopback port (start with :meth:`running`)."""
        self.upstream, self.method, self.forward = upstream, method, forward
        self.after = threading.Event()
        self.after_method = after
        self.armed = threading.Event()
        self.reached = threading.Event()
        self.release = threading.Event()
        tap = self

        class Handler(http.server.BaseHTTPRequestHandler):
            """Forward a POST; hold the armed method."""

            def do_POST(self) -> None:  # pylint: disable=invalid-name
                """Forward one JSON-RPC request (or batch)."""
                body = self.rfile.read(int(self.headers["Content-Length"]))
                document = json.loads(body)
                calls = document if isinstance(document, list) else [document]
                methods = {c.get("method") for c in calls}
                held = (
                    tap.armed.is_set()
                    and tap.method in methods
                    and (not tap.after_method or tap.after.is_set())
                )
                if held and not tap.forward:
                    tap.armed.clear()
                    tap.reached.set()
                    tap.release.wait()
                    return
                request = urllib.request.Request(  # nosec: loopback anvil
                    tap.upstream, body, {"Content-Type": "application/json"}
                )
                with urllib.request.urlopen(request, timeout=30) as answer:  # nosec
                    data = answer.read()
                if tap.armed.is_set() and tap.after_method in methods:
                    tap.after.set()
                if held:
                    tap.armed.clear()
                    tap.reached.set()
                    tap.release.wait()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
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
    def running(self) -> Iterator["RpcTap"]:
        """Serve in a thread.

        :yield: the tap.
        """
        thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.release.set()
            self.server.shutdown()
            self.server.server_close()


def tapped_devnet_dir(devnet: Devnet, folder: Path, rpc_url: str) -> Path:
    """A copy of the devnet's ``devnet.json`` whose RPC is ``rpc_url``.

    :param devnet: the devnet.
    :param folder: where to write it.
    :param rpc_url: the tap's URL.
    :return: the folder (for ``--devnet-dir``).
    """
    folder.mkdir(parents=True, exist_ok=True)
    data = json.loads((Path(devnet.info.state_dir) / STATE_FILE).read_text())
    data["rpc_url"] = rpc_url
    (folder / STATE_FILE).write_text(json.dumps(data))
    return folder


def start_http(argv: List[str], port: int, log: Path) -> "subprocess.Popen[bytes]":
    """Start ``mech-catalogue mcp --transport http`` and wait for its port.

    :param argv: its command line.
    :param port: its port.
    :param log: its output file.
    :return: the process.
    :raises RuntimeError: when it does not listen within 60 s.
    """
    out = open(log, "ab")  # pylint: disable=consider-using-with
    process = subprocess.Popen(  # nosec  # pylint: disable=consider-using-with
        argv, env=_env(), cwd=str(ROOT), stdout=out, stderr=out
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(  # nosec
                f"http://127.0.0.1:{port}/mcp", timeout=1
            ):
                pass
        except urllib.error.HTTPError:
            return process
        except OSError:
            time.sleep(0.2)
            continue
        return process
    raise RuntimeError(log.read_text(errors="replace")[-2000:])


def text_of(result: Any) -> str:
    """The first text block of a result.

    :param result: a ``CallToolResult``.
    :return: its text.
    """
    return str(result.content[0].text) if result.content else ""


#: step: (method held, passed on first, held only after this method, operator answers)
STEPS = {
    "before the send": ("eth_sendRawTransaction", False, "", False),
    "after the send": ("eth_sendRawTransaction", True, "", False),
    "mined, not delivered": ("eth_call", True, "eth_getTransactionReceipt", False),
    "while delivering": ("eth_getLogs", True, "eth_sendRawTransaction", True),
}


@pytest.mark.parametrize("step", list(STEPS))
def test_a_server_killed_mid_payment_pays_once_and_answers(  # pylint: disable=R0914,R0915
    chain_snapshot: Devnet, tmp_path: Path, step: str
) -> None:
    """Killed at ``step``, restarted: one request per arguments, each answered as asked.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder and logs.
    :param step: where the kill lands.
    """
    devnet = chain_snapshot
    method, forward, after, answering = STEPS[step]
    state = tmp_path / "state"
    state.mkdir()
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    options = ("--timeout", "20", "--delivery-poll", "0.3")
    arguments: Dict[str, Any] = {"prompt": f"Killed {step}?", "temperature": 0.25}
    other: Dict[str, Any] = {"prompt": f"Other question {step}", "temperature": 0.75}
    nonce = market_nonce(devnet)
    seen: Dict[str, Any] = {"errors": []}
    tap = RpcTap(devnet.info.rpc_url, method, forward, after)
    devnet_dir = tapped_devnet_dir(devnet, tmp_path / "tapped", tap.url)
    argv = command(devnet, state, "--transport", "http", "--port", str(port), *options)
    argv[argv.index("--devnet-dir") + 1] = str(devnet_dir)
    killed_at: Optional[float] = None

    async def first_call() -> None:
        try:
            with anyio.fail_after(STEP_WAIT + 30):
                async with Client(streamable_http_client(url), mode="legacy") as client:
                    await client.list_tools()
                    tap.armed.set()
                    seen["killed call"] = await client.call_tool(TOOL, arguments)
        except BaseException as exc:  # pylint: disable=broad-except
            # the server dies under the call: the client fails in its own way
            seen["killed call"] = repr(exc)[:200]

    def killer(process: "subprocess.Popen[bytes]") -> None:
        nonlocal killed_at
        if tap.reached.wait(STEP_WAIT):
            killed_at = time.monotonic()
            os.kill(process.pid, signal.SIGKILL)

    async def calls_again() -> None:
        async with Client(streamable_http_client(url), mode="legacy") as client:
            seen["session"] = await client.call_tool(TOOL, arguments)
        async with Client(streamable_http_client(url), mode=MODERN) as client:
            seen["sessionless"] = await client.call_tool(TOOL, arguments)
            seen["other"] = await client.call_tool(TOOL, other)
        async with stdio_client(devnet, state, *options) as client:
            seen["stdio"] = await client.call_tool(TOOL, arguments)

    with tap.running(), contextlib.ExitStack() as stack:
        if answering:
            stack.enter_context(responder(devnet))
        process = start_http(argv, port, tmp_path / "killed.log")
        watcher = threading.Thread(target=killer, args=(process,), daemon=True)
        watcher.start()
        anyio.run(first_call)
        watcher.join(5)
        process.wait(10)
        seen["nonce after the kill"] = market_nonce(devnet)
        with contextlib.ExitStack() as answering_stack:
            if not answering:
                answering_stack.enter_context(responder(devnet))
            with http_server(devnet, state, *options, port=port):
                anyio.run(calls_again)
    observed = (
        f"killed at the event: {killed_at is not None}; killed call "
        f"{str(seen.get('killed call'))[:120]!r}; market nonce {nonce} -> "
        f"{seen['nonce after the kill']} after the kill -> {market_nonce(devnet)}; "
        + "; ".join(
            f"{k}: error {seen[k].is_error} {text_of(seen[k])[:200]!r}"
            for k in ("session", "sessionless", "stdio", "other")
            if k in seen
        )
    )
    assert killed_at is not None, observed  # premise: the step was reached
    assert market_nonce(devnet) == nonce + 2, observed
    for client in ("session", "sessionless", "stdio"):
        assert not seen[client].is_error, observed
        assert arguments["prompt"] in text_of(seen[client]), observed
        assert other["prompt"] not in text_of(seen[client]), observed
    assert not seen["other"].is_error, observed
    assert other["prompt"] in text_of(seen["other"]), observed
