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

"""adv29zx D1 on the devnet: a slow node holds no paid call past its ``--timeout``.

D1 severity: LOW-MEDIUM (issue #29 (e): a node that answers every read just inside the
server's fixed 30 s per-request RPC timeout holds each paid call many times its
``--timeout``; the agent's own timeout then ends the call, and a call again waits the
same).

``--timeout`` is "how long one call may take, from its start to its answer"; fix29zi
shares it among the broadcast, re-send, cancellation and answer fetch. The reads
before the send (the head, the own-request scan, the price, the nonce, the chain id,
the estimate, the base fee: each on ``Marketplace``'s own 30 s per-request timeout,
which ``--timeout`` does not change) are not bounded by it.

Observed on main (the SDK's client over stdio, ``--timeout 5``, a proxy holding every
JSON-RPC call 3 s once the server is up): the call took 90.7 s (18 times its
timeout; 41 JSON-RPC calls held, the server's background reads included), ending
with the request signed and journalled and its broadcast "not mined within" its
time.

Expected: every node read of a call is within what is left of its ``--timeout``
(one read in flight at the end at most), the call then ending in words.

Fixed (fix29zp, :mod:`mech_catalogue_cli.mcp_server.node_deadline`): 5.05 s, 2 reads
held, ending "this call's --timeout (5 s) ended before the node answered; nothing was
signed nor sent for this call: call again with the same arguments" (main: 90.4 s, 41).

"""

import threading
import time
from pathlib import Path
from typing import Any, Dict, Optional

import anyio
import pytest

from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.devnet.mcp_helpers import responder, stdio_client
from tests.devnet.test_mcp_server import TOOL

pytestmark = pytest.mark.devnet

#: the call's --timeout, seconds
TIMEOUT = 5.0
#: how long the node holds each call once armed
HOLD = 3.0
#: what the server may add: one read in flight when the time is up, the stdio round trip
SLACK = HOLD + 3.0


class SlowNode:  # pylint: disable=too-few-public-methods
    """The proxy's ``rpc_answer``: each call held once armed."""

    def __init__(self) -> None:
        """Start unarmed (the server reads its catalogue first)."""
        self.armed = threading.Event()
        self.held = 0

    def __call__(self, call: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """Hold the call when armed; then forward it."""
        del call
        if not self.armed.is_set():
            return None
        self.held += 1
        time.sleep(HOLD)
        return None


def paid_call_through(
    devnet: Devnet, tmp_path: Path, proxy: LoopbackProxy, node: Any
) -> Any:
    """One paid call through the SDK's client, the node armed once the server is up.

    :param devnet: the devnet.
    :param tmp_path: the server's state folder.
    :param proxy: the loopback proxy in front of anvil (``--rpc``).
    :param node: the proxy's ``rpc_answer``, with an ``armed`` event (a :class:`SlowNode`).
    :return: (the call's result, its seconds).
    """
    proxy.rpc_answer = node

    async def main() -> Any:
        flags = ("--rpc", proxy.url, "--timeout", str(TIMEOUT))
        async with stdio_client(devnet, tmp_path, *flags) as client:
            node.armed.set()
            start = time.monotonic()
            result = await client.call_tool(TOOL, {"prompt": "a slow node, paid?"})
            return result, time.monotonic() - start

    with responder(devnet):
        return anyio.run(main)


def test_a_slow_node_holds_no_call_past_its_timeout(
    chain_snapshot: Devnet, tmp_path: Path, proxy: LoopbackProxy
) -> None:
    """The call ends within its --timeout and one read in flight."""
    node = SlowNode()
    result, took = paid_call_through(chain_snapshot, tmp_path, proxy, node)
    text = str(result.content[0].text)[:300]
    assert took <= TIMEOUT + SLACK, f"{took:.1f} s, {node.held} reads held: {text}"
