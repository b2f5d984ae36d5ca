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

"""adv29zt2: a signed call retried in a restarted server's start window: "no tool named".

A call retried in a restarted server's ``--start-wait`` window, its request signed and
journalled before a cut broadcast, is told its tool is not served.

Severity: LOW (issue #29 (b), words and delay only: nothing is paid twice and the
answer is returned once the catalogue is read; meanwhile the model is told the tool
is gone while the request it paid is mined).

Observed on main 4594d36e (devnet, the SDK's client over stdio, a proxy in front of
anvil): server A's call (``--timeout 3``) journals its signed request, the node holds
``eth_sendRawTransaction`` 8 s, the call ends "signed and journalled before its
broadcast, which ended ..."; the node then forwards the bytes (marketplace nonce +1).
Server B starts on the same ``--state-dir`` while the node holds the catalogue's
``eth_getLogs`` (from blocks before the call), ``--start-wait 3``: its first
``tools/list`` (7.7 s) lists nothing with the "still being read" note, and the same
call (same tool, same arguments) answers at once ``no tool named "prediction-online"
is served now; list the tools again``. A call whose entry was ``sent`` (receipt read
before the cut) is answered from the journal in the same window (``recall``: 0.2 s
after the listing, paid once); a ``prepared`` entry holding signed bytes is not
recalled (``recall.PAID_STATUSES``), and the tool lookup fails for want of a
catalogue.

Expected: a call whose journal entry holds a signed request is resumed in the window
(its bytes broadcast again or its receipt read, the answer awaited, as after the
catalogue is read), or at least told that the catalogue is still being read and that
its signed request is kept (its request id), never that its tool is not served.

Fixed (fix29zzg): the call's key is remembered before it signs, and a signed entry
found by it is resumed before the name is looked up (its request read on chain).

Fix direction: recall a ``prepared`` entry that carries ``raw_tx`` (or an off-chain
signature) as a paid one (ensure_sent needs only the entry and the market), or make
``_call``'s unknown-name words say the catalogue is being read when
``first_read`` is running, naming a journalled request for the call's key.
"""

import time
from pathlib import Path
from typing import Any, Dict, Optional

import anyio
import pytest

from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.devnet.mcp_helpers import market_nonce, responder, stdio_client
from tests.devnet.test_mcp_server import TOOL

pytestmark = pytest.mark.devnet

#: seconds the node holds the first call's broadcast (past its --timeout)
SEND_HOLD = 8.0
#: seconds the node holds each catalogue log read while the second server starts
LOG_HOLD = 12.0


class Node:  # pylint: disable=too-few-public-methods
    """The proxy's ``rpc_answer``: holds the broadcast, then the catalogue's log reads."""

    def __init__(self) -> None:
        """Hold the broadcast first; no log read held yet."""
        self.hold_send = True
        self.below: Optional[int] = None

    def __call__(  # pylint: disable=useless-return
        self, call: Dict[str, Any]
    ) -> Optional[Dict[str, Any]]:
        """Hold, then forward."""
        method, params = call.get("method"), call.get("params") or []
        if self.hold_send and method == "eth_sendRawTransaction":
            time.sleep(SEND_HOLD)
        below = self.below
        if below is not None and method == "eth_getLogs":
            start = params[0].get("fromBlock") if params else None
            if isinstance(start, str) and start.startswith("0x"):
                if int(start, 16) < below:
                    time.sleep(LOG_HOLD)
        return None


def test_a_signed_call_retried_in_the_start_wait_window_is_resumed(
    chain_snapshot: Devnet, tmp_path: Path, proxy: LoopbackProxy
) -> None:
    """Server B, its catalogue unread, resumes the call server A signed: paid once.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: both servers' state folder.
    :param proxy: the proxy in front of the devnet's node.
    """
    devnet = chain_snapshot
    node = Node()
    proxy.rpc_answer = node
    arguments = {"prompt": "adv29zt2: retried while the catalogue is read"}
    nonce = market_nonce(devnet)
    head = devnet.w3.eth.block_number

    async def first() -> Any:
        async with stdio_client(
            devnet, tmp_path, "--rpc", proxy.url, "--timeout", "3"
        ) as client:
            return await client.call_tool(TOOL, arguments)

    cut = anyio.run(first)
    assert cut.is_error, cut.content[0].text[:300]
    assert "journalled" in cut.content[0].text, cut.content[0].text[:300]
    node.hold_send = False
    node.below = head

    async def second() -> Any:
        async with stdio_client(
            devnet,
            tmp_path,
            "--rpc",
            proxy.url,
            "--timeout",
            "30",
            "--start-wait",
            "3",
        ) as client:
            listed = await client.list_tools(cache_mode="refresh")
            retried = await client.call_tool(TOOL, arguments)
            return listed, retried

    with responder(devnet):
        listed, retried = anyio.run(second)
    deadline = time.monotonic() + 20
    while market_nonce(devnet) == nonce and time.monotonic() < deadline:
        time.sleep(0.2)  # the held bytes reach the node after SEND_HOLD
    assert not listed.tools  # the window: nothing listed yet
    assert market_nonce(devnet) == nonce + 1  # held: one request, not two
    text = retried.content[0].text
    assert "no tool named" not in text, text[:300]
    # resumed in the window, or (when its request was not yet seen on chain, as on a
    # loaded machine) told the catalogue is being read and what was signed, paying
    # no other tool: the two outcomes the expectation above allows
    told = "still being read" in text and "was signed and journalled" in text
    assert not retried.is_error or told, text[:300]
