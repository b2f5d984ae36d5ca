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

"""adv29zt2: one call, retried by its name after a restart, pays two mechs.

Severity: HIGH (issue #29 (c) and (a): a payment doubled, the second to a stranger's
mech; preconditions: a ground tag collision, ``test_adv29zt2_ground_tag_takes_name.py``,
and a broadcast slower than the call's ``--timeout``, which a slow node gives and the
node's operator can choose; then a restart of the server).

The two findings of this review meet: a call whose request was signed and journalled
but whose broadcast the call's end cut stays ``prepared``, and ``recall`` resumes only
``sent`` or ``delivered`` entries (``recall.PAID_STATUSES``), so a retry resolves the
MCP name in the catalogue served now; after a restart the name stands for the
stranger's tool (sort order), whose call key has no entry, and a new request is paid.

Observed on main 4594d36e (devnet, the SDK's client over stdio, a proxy in front of
anvil): server 1 lists T (``prediction-online-sentiment-..._44f6b137``) for the honest
tool of the deployed service's mech; the call by T (``--timeout 3``) is cut while the
node holds its ``eth_sendRawTransaction`` 8 s ("signed and journalled before its
broadcast ..."); the node forwards the bytes and the request is mined (5e15 wei to the
honest mech, marketplace nonce +1). The stranger's service then declares its ground
name. Server 2 on the same ``--state-dir`` lists T for the stranger's tool, and the
same call (same name, same arguments) signs and sends a new request: 1e16 wei to the
stranger's mech ("not delivered within 10 s"), marketplace nonce +2 for one call.

Expected: the retry resumes the journalled request (its key remembered for the name and
arguments, ``recall.NameIndex``, or its entry found by the signed bytes), one payment.

Fixed (fix29zzg): tags are 64 bits, so this name no longer moves here; the retry's
recall by a key remembered before the signing is tested with a moved name in
``tests/test_mcp_recall_signed.py``.

Fix direction: remember the name and arguments' key before the broadcast, and let
``recall`` resume a ``prepared`` entry that holds a signed request (it may be on chain)
before the name is resolved again; and the ground tag's own fix.
"""

import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import anyio
import pytest

from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.adversary.test_adv29zt2_ground_tag_takes_name import HONEST, NAME, STRANGER
from tests.adversary.test_adv29zt2_ground_tag_takes_name_devnet import _manifest
from tests.devnet.mcp_helpers import market_nonce, responder, stdio_client

pytestmark = pytest.mark.devnet

REQUEST_META = "io.olas/mech-request"


#: the result's ``_meta`` key naming the request paid


class Node:  # pylint: disable=too-few-public-methods
    """The proxy's ``rpc_answer``: holds the broadcast 8 s while armed."""

    def __init__(self) -> None:
        """Start unarmed."""
        self.hold_send = False

    def __call__(  # pylint: disable=useless-return
        self, call: Dict[str, Any]
    ) -> Optional[Dict[str, Any]]:
        """Hold the broadcast when armed, then forward every call."""
        if self.hold_send and call.get("method") == "eth_sendRawTransaction":
            time.sleep(8.0)
        return None


def _listed_as(listed: Any) -> str:
    """The mech tool the name T stands for in a listing."""
    (tool,) = [t for t in listed.tools if t.name == NAME]
    return str((tool.meta or {})["io.olas/mech-tool"]["mechToolName"])


def test_a_call_retried_by_its_name_after_a_restart_pays_once(  # pylint: disable=too-many-locals
    chain_snapshot: Devnet, tmp_path: Path, proxy: LoopbackProxy
) -> None:
    """Server 1 signs (broadcast cut), server 2 is asked again: one request in all.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: both servers' state folder.
    :param proxy: the proxy in front of the devnet's node.
    """
    devnet = chain_snapshot
    node = Node()
    proxy.rpc_answer = node
    mechs: List[Dict[str, Any]] = [
        m for m in devnet.info.mechs if m["kind"] == "marketplace"
    ]
    honest, stranger = mechs[2], mechs[0]
    _, digest = devnet.add_manifest(_manifest(HONEST))
    devnet.change_service_hash(honest["service_id"], digest)
    nonce = market_nonce(devnet)
    arguments = {"prompt": "adv29zt2: one call"}

    async def first() -> Any:
        async with stdio_client(
            devnet, tmp_path, "--rpc", proxy.url, "--timeout", "3"
        ) as client:
            listed = await client.list_tools(cache_mode="refresh")
            assert _listed_as(listed) == HONEST
            node.hold_send = True
            return await client.call_tool(NAME, arguments)

    cut = anyio.run(first)
    assert cut.is_error and "journalled" in cut.content[0].text, cut.content[0].text
    node.hold_send = False
    _, digest = devnet.add_manifest(_manifest(STRANGER))
    devnet.change_service_hash(stranger["service_id"], digest)
    deadline = time.monotonic() + 20
    while market_nonce(devnet) == nonce and time.monotonic() < deadline:
        time.sleep(0.2)
    assert market_nonce(devnet) == nonce + 1  # the cut call's request, mined

    async def second() -> Any:
        async with stdio_client(
            devnet, tmp_path, "--rpc", proxy.url, "--timeout", "10"
        ) as client:
            listed = await client.list_tools(cache_mode="refresh")
            return _listed_as(listed), await client.call_tool(NAME, arguments)

    with responder(devnet):
        moved_to, again = anyio.run(second)
    paid = (again.meta or {}).get(REQUEST_META) or {}
    assert market_nonce(devnet) == nonce + 1, (
        f"{NAME} stood for {moved_to!r} after the restart; the same call paid "
        f"{paid.get('price_wei')} wei to mech {paid.get('mech')} too (the stranger's "
        f"is {stranger['address']}): {again.content[0].text[:200]}"
    )
