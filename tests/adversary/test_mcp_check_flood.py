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

"""A flood of calls with a backtracking pattern: checks run in a fixed pool (issue 29.9).

Before, each ``tools/call`` started its own checker process: 120 concurrent calls ran
about 43 at once (load 15 on 2 CPUs). The real forkserver children run here; the server
runs in-process with a dry run (no chain, no IPFS: only the checks are under test).
"""

import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from mech_catalogue_cli.mcp_server import bounded
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE, Offer
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import ServedCatalogue, ServedTool

EVIL_SCHEMA = {
    "type": "object",
    "properties": {"word": {"type": "string", "pattern": "^(b+)+c$"}},
}
SLOW_WORD = "b" * 40 + "!"  # backtracks far past any check deadline
ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "libs" / "mech-catalogue-core"


def test_no_more_checks_run_at_once_than_the_pool_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Six checks started together: at most MAX_CHECKS children run at once; all finish."""
    bounded.warm_up()
    lock = threading.Lock()
    running = [0, 0]  # now, most
    original = bounded._run_child  # pylint: disable=protected-access

    def counted(*args: Any) -> Any:
        with lock:
            running[0] += 1
            running[1] = max(running)
        try:
            return original(*args)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(bounded, "_run_child", counted)
    finished: List[Any] = []
    threads = [
        threading.Thread(
            target=lambda: finished.append(bounded.run_bounded(time.sleep, (0.8,)))
        )
        for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(finished) == 6
    assert running[1] == bounded.MAX_CHECKS


def test_a_check_waiting_past_the_queue_deadline_is_busy_not_run() -> None:
    """With every slot held, a check gives up after its queue deadline, unrun."""
    bounded.warm_up()
    holders = [
        threading.Thread(target=bounded.run_bounded, args=(time.sleep, (2.5,)))
        for _ in range(bounded.MAX_CHECKS)
    ]
    for thread in holders:
        thread.start()
    time.sleep(0.5)
    began = time.monotonic()
    with pytest.raises(bounded.CheckBusy, match="no slot came free within 0.4 s"):
        bounded.run_bounded(time.sleep, (0,), queue_seconds=0.4)
    assert time.monotonic() - began < 1.5
    for thread in holders:
        thread.join(30)


class _Source:  # pylint: disable=too-few-public-methods
    def __init__(self, tools: Tuple[ServedTool, ...]) -> None:
        self.served = ServedCatalogue("d", tools)

    def read(self) -> ServedCatalogue:
        """Return the catalogue."""
        return self.served


def _tool(name: str, schema: Dict[str, Any]) -> ServedTool:
    offer = Offer("k", "0x" + "12" * 20, 10, NATIVE_PAYMENT_TYPE, 1, 1, 1, True)
    return ServedTool(name, name, {"name": name, "inputSchema": schema}, (offer,))


def test_a_flood_of_slow_checks_leaves_tools_list_prompt_and_says_busy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Eight slow calls at once: tools/list answers at once, the overflow is told busy."""
    monkeypatch.setattr(bounded, "QUEUE_SECONDS", 1.0)
    bounded.warm_up()
    settings = CallSettings(gateway_url="http://127.0.0.1:9", ipfs_api_url="")
    server = MechToolServer(
        _Source((_tool("evil", EVIL_SCHEMA), _tool("plain", {"type": "object"}))),
        CallSettings(**{**settings.__dict__, "dry_run": True}),
        None,
        None,
    )
    server.refresh()
    texts: List[str] = []
    listing: List[float] = []

    async def call() -> None:
        result = await server.call("evil", {"word": SLOW_WORD})
        texts.append(str(getattr(result.content[0], "text", "")))

    async def main() -> None:
        async with anyio.create_task_group() as group:
            for _ in range(8):
                group.start_soon(call)
            await anyio.sleep(0.3)
            began = time.monotonic()
            await server.list_tools(_Context(), None)
            listing.append(time.monotonic() - began)

    anyio.run(main)
    assert listing[0] < 0.5
    busy = [t for t in texts if "checking as many calls as it runs at once" in t]
    timed_out = [t for t in texts if "could not be checked" in t]
    assert len(busy) + len(timed_out) == 8
    assert len(timed_out) <= bounded.MAX_CHECKS and busy
    assert all("nothing was sent" in t for t in texts)


class _Context:  # pylint: disable=too-few-public-methods
    """A request context with only what list_tools reads."""

    protocol_version = "2026-07-28"
    session = None


#: concurrent slow calls over stdio: more than anyio's 40 worker threads
STDIO_FLOOD = 60


def test_a_flood_of_slow_calls_over_stdio_does_not_hold_tools_list() -> None:
    """60 slow calls over stdio with the SDK's client: tools/list answers meanwhile.

    The SDK's stdio transport reads each request line in one of anyio's worker threads
    (40 by default). Before, every queued check held such a thread while waiting for a
    slot, so the ``tools/list`` line was not even read until checks finished (12 s
    here). The server is a real process (``tests/adversary/check_flood_server.py``);
    ``tools/list`` is asked once the calls are in, and must answer before any of them
    finishes (the first finish when a check reaches its 12 s limit).
    """
    params = StdioServerParameters(
        command=sys.executable,
        # -c, not -m: the checker children then have no main module to re-import
        args=["-c", "from tests.adversary.check_flood_server import main; main()"],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (ROOT, CORE)))},
        cwd=str(ROOT),
    )
    finished: List[float] = []
    texts: List[str] = []
    listing: Dict[str, float] = {}

    async def call(client: Client) -> None:
        result = await client.call_tool("slow", {"word": "d" * 40 + "!"})
        finished.append(time.monotonic())
        texts.append(str(getattr(result.content[0], "text", "")))

    async def main() -> None:
        async with Client(params, read_timeout_seconds=120) as client:
            await client.list_tools()
            async with anyio.create_task_group() as group:
                for _ in range(STDIO_FLOOD):
                    group.start_soon(call, client)
                await anyio.sleep(2.0)  # every call sent, checks queued
                began = time.monotonic()
                listed = await client.list_tools()
                listing["seconds"] = time.monotonic() - began
                listing["at"] = time.monotonic()
                listing["tools"] = len(listed.tools)

    anyio.run(main)
    print(f"tools/list under {STDIO_FLOOD} slow calls: {listing['seconds']:.2f} s")
    assert listing["tools"] == 2
    assert len(finished) == STDIO_FLOOD
    assert listing["at"] < min(finished), "tools/list waited behind the checks"
    assert all("nothing was sent" in text for text in texts)
    assert any("checking as many calls as it runs at once" in t for t in texts)
