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

"""adv29zq2 S1: a slow node holds the MCP server's start (``initialize``) without bound.

Severity: LOW (issue #29 (e): a stall at start, nothing paid. The node is the RPC the
user configured, often a public one run by a stranger.)

fix29zp bounds every node read of a paid call by the call's ``--timeout``; the
catalogue's own reads (``source.py``: the registries, the marketplace's mechs and
their facts, ``tenure.py``) are made for no call and keep their own per-request
timeout (``rpc_timeout``, 10 s), and ``mcp_run.start`` makes the first catalogue read
(``app.refresh()``) before it answers anything over stdio. Their number grows with
the registries; no bound holds their sum.

Observed on lead29zz 02021e43 (devnet, the SDK's client over stdio, the proxy holding
every JSON-RPC call before forwarding it): 26 reads before the first ``tools/list``;
held 1.0 s each, start to listed 32.1 s (6.1 s with no hold); held 3.0 s each (this
test), 82.7 s (26 reads); each read may be held just under its 10 s timeout (~26 x 10 s:
four minutes and more) while the client waits for ``initialize`` (MCP hosts give up
on a server that has not initialised in about a minute). Once started, ``tools/list``
answered in 0.00-0.03 s while a paid call's reads were held (the background poll does
not hold it: held).

Expected: the server's start bounded whatever the node's pace (the first read within
a budget of its own, or ``initialize`` answered and the catalogue announced with
``list_changed`` once read). Fix direction: a whole-read deadline for the catalogue's
reads (as :mod:`mech_catalogue_cli.mcp_server.node_deadline` for a call, or as ``CODE_READ_BUDGET_TIMEOUTS`` for the
code pointers), and/or serving before the first read completes.

Fixed (fix29zy): the start waits ``--start-wait`` for the first read, then serves with
none listed (said in ``tools/list``'s ``_meta``) and announces the catalogue once read;
this test gives a 4 s wait and lets the node answer at once after the first listing.
"""

import threading
import time
from pathlib import Path
from typing import Any, Dict, Optional

import anyio
import pytest

from mech_catalogue_cli.mcp_server.first_read import CATALOGUE_META_KEY, READING_NOTE
from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.devnet.mcp_helpers import stdio_client

pytestmark = pytest.mark.devnet

#: how long the node holds each call (a third of the catalogue's 10 s per-request bound)
HOLD = 3.0
#: the server's ``--start-wait``: seconds its start waits for the first read
START_WAIT = 4.0
#: how long a client may wait for the server's start and first listing (the
#: process's own start, then ``START_WAIT``)
START_BOUND = 20.0
#: how long the rest of the read may take once the node answers at once
READ_BOUND = 30.0


class SlowNode:  # pylint: disable=too-few-public-methods
    """The proxy's ``rpc_answer``: every call held :data:`HOLD` while slow, then forwarded."""

    def __init__(self) -> None:
        """Count the calls held."""
        self.held = 0
        self.slow = True
        self.lock = threading.Lock()

    def __call__(  # pylint: disable=useless-return
        self, call: Dict[str, Any]
    ) -> Optional[Dict[str, Any]]:
        """Hold, then forward."""
        del call
        if not self.slow:
            return None
        with self.lock:
            self.held += 1
        time.sleep(HOLD)
        return None


def test_a_slow_node_holds_no_start_past_its_wait(
    chain_snapshot: Devnet, tmp_path: Path, proxy: LoopbackProxy
) -> None:
    """Listed within --start-wait (nothing yet, said so); the catalogue announced once read.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    :param proxy: the proxy in front of the devnet's node.
    """
    node = SlowNode()
    proxy.rpc_answer = node

    async def main() -> Any:
        began = time.monotonic()
        client = stdio_client(
            chain_snapshot,
            tmp_path,
            "--rpc",
            proxy.url,
            "--start-wait",
            str(START_WAIT),
        )
        async with client:
            first = await client.list_tools(cache_mode="refresh")
            took = time.monotonic() - began
            async with client.listen(tools_list_changed=True) as events:
                node.slow = False  # the node answers at once from now on
                with anyio.fail_after(READ_BOUND):
                    async for _ in events:
                        break
            read = await client.list_tools(cache_mode="refresh")
            return first, took, read, time.monotonic() - began

    first, took, read, total = anyio.run(main)
    assert took <= START_BOUND, f"{took:.1f} s to the first listing, {node.held} reads"
    assert not first.tools, [tool.name for tool in first.tools]
    assert (first.meta or {}).get(CATALOGUE_META_KEY) == READING_NOTE, first.meta
    assert read.tools, f"nothing listed once read ({total:.1f} s)"
    assert CATALOGUE_META_KEY not in (read.meta or {}), read.meta
