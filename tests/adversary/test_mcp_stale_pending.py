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

"""A signed, unmined request to a mech the call may no longer pay is cancelled, not resent.

Issue #29/#31: the journal keeps a call's signed request so that a retry re-broadcasts
the same bytes. A first server process pinned to mech A signs and broadcasts the request;
automine is off, so it is not mined, and the node then drops it (as a node restart or an
evicted transaction does). A second process on the same ``--state-dir`` is pinned to
mech B: A is no longer a mech the call may pay. Before, the retry re-broadcast A's
request and paid A. Now the request's nonce is taken by a zero-value transfer to the
paying account (journalled first), the result says so, and B is paid once (once the
cancellation is final, adv29u F7: blocks are mined here while the call waits). On the
session devnet (anvil with the marketplace's real bytecode), through the MCP SDK's own
client.
"""

import json
from pathlib import Path
from typing import Any, Dict

import anyio

from scripts.devnet import Devnet
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.adversary.test_mcp_unseen_revert import IO_TIMEOUT, _rpc
from tests.devnet.mcp_helpers import (
    checksum,
    final_once_sent,
    market_nonce,
    request_info,
    requester,
    stdio_client,
)
from tests.devnet.test_mcp_server import TOOL

REQUEST_META = "io.olas/mech-request"


def _status(devnet: Devnet, request_id: str) -> int:
    market = devnet.contract("MechMarketplace")
    return int(market.functions.getRequestStatus(bytes.fromhex(request_id[2:])).call())


def test_an_unmined_request_to_a_mech_no_longer_pinned_is_cancelled_not_resent(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Pinned to A, unmined and dropped; restarted pinned to B: A is never paid, B once."""
    devnet = chain_snapshot
    first_mech, other_mech, _ = _paid_mechs(devnet)
    arguments = {"prompt": "will the pending request be cancelled?"}
    out: Dict[str, Any] = {}
    nonce = market_nonce(devnet)

    async def first() -> None:
        async with stdio_client(
            devnet,
            tmp_path,
            "--mech",
            first_mech,
            "--timeout",
            "3",
            "--io-timeout",
            IO_TIMEOUT,
        ) as client:
            _rpc(devnet, "evm_setAutomine", False)
            try:
                out["first"] = await client.call_tool(TOOL, arguments)
            finally:
                path = next((tmp_path / "calls").glob("*.json"))
                out["entry"] = json.loads(path.read_text(encoding="utf-8"))
                _rpc(devnet, "anvil_dropTransaction", out["entry"]["tx_hash"])
                _rpc(devnet, "evm_setAutomine", True)

    async def second() -> None:
        sent_before = devnet.w3.eth.get_transaction_count(checksum(requester(devnet)))
        async with stdio_client(
            devnet, tmp_path, "--mech", other_mech, "--timeout", "10"
        ) as client:
            async with anyio.create_task_group() as group:
                # the cancellation made final (adv29u F7): B is paid within the call
                group.start_soon(final_once_sent, devnet, sent_before)
                out["second"] = await client.call_tool(TOOL, arguments)

    anyio.run(first)
    entry = out["entry"]
    assert "not mined within" in out["first"].content[0].text  # within its 3 s
    assert entry["mech"] == first_mech.lower() and entry["status"] == "prepared"
    assert market_nonce(devnet) == nonce  # nothing mined yet

    anyio.run(second)
    result = out["second"]
    text = result.content[0].text
    assert "was not delivered within" in text, text[:400]  # B paid, no responder here
    assert _status(devnet, entry["request_id"]) == 0  # A's request never reached chain
    assert market_nonce(devnet) == nonce + 1
    meta = result.meta[REQUEST_META]
    assert request_info(devnet, meta["request_id"])["priorityMech"].lower() == (
        other_mech.lower()
    )
    cancelled = meta["cancelled_request"]
    assert cancelled["request_id"] == entry["request_id"]
    assert cancelled["mech"] == first_mech.lower()
    assert "no longer among the offers" in cancelled["reason"]
    cancel_tx = devnet.w3.eth.get_transaction(cancelled["cancel_tx"])
    account = checksum(requester(devnet))
    assert cancel_tx["to"] == account and cancel_tx["value"] == 0
    assert cancel_tx["nonce"] == entry["account_nonce"]
