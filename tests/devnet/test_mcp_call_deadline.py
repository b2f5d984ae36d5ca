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

"""A paid call ends within its ``--timeout``, a finality wait before its payment included.

On the devnet, through the MCP SDK's client over stdio: the chosen mech reverts for
the marketplace only when mined, so the call's first request is mined and reverts and
the call waits for that block to be final (adv29u) before paying the next offer. The
test mines the depth some seconds later; no mech delivers. The call used to wait a
whole ``--timeout`` more for the delivery once it paid (twice its timeout in all); it
now ends by its timeout saying which request was paid, and a call with the same
arguments, a mech now answering, returns the answer without paying again.
"""

import time
from pathlib import Path
from typing import Any, Dict

import anyio
from web3 import Web3
from web3.types import RPCEndpoint

from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH
from scripts.devnet import Devnet
from tests.adversary.test_mcp_paid_answer import _paid_mechs, _with_safe
from tests.devnet.mcp_helpers import (
    market_nonce,
    request_info,
    requester,
    responder,
    stdio_client,
)
from tests.devnet.reverting_mech import reverting_when_mined
from tests.devnet.test_mcp_server import REQUEST_META, TOOL

#: the call's --timeout, seconds
TIMEOUT = 10.0
#: seconds after the reverted request is mined when the test makes it final
FINAL_AFTER = 4.0
#: what the server may add beyond the timeout: one delivery read after the time is
#: up, the result's composition, the stdio round trip on a loaded 2-CPU machine
SLACK = 2.0


async def _final_later(devnet: Devnet, sent_before: int, after: float) -> None:
    """Mine ``FINAL_DEPTH`` blocks ``after`` seconds after the account's next transaction.

    :param devnet: the running devnet.
    :param sent_before: the requester's mined transaction count before the call.
    :param after: seconds to let the call wait for finality first.
    """
    account = Web3.to_checksum_address(requester(devnet))
    give_up = time.monotonic() + 60
    while await anyio.to_thread.run_sync(
        devnet.w3.eth.get_transaction_count, account
    ) <= int(sent_before):
        assert time.monotonic() < give_up, "the reverting request was never mined"
        await anyio.sleep(0.1)
    await anyio.sleep(after)
    devnet.w3.provider.make_request(RPCEndpoint("anvil_mine"), [FINAL_DEPTH])


def test_a_payment_after_a_finality_wait_ends_within_the_calls_timeout(  # pylint: disable=too-many-locals
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Held for finality, then paid: the call ends by its timeout; the retry is free.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    w3 = devnet.w3
    chosen, _, _ = _paid_mechs(devnet)
    nonce, account, before = reverting_when_mined(devnet, chosen)
    arguments = {"prompt": "tides at Brest, fix29yb"}
    answering = responder(devnet)  # answers requests from this block on, once entered
    seen: Dict[str, Any] = {}

    async def main() -> None:
        async with stdio_client(
            devnet, tmp_path, "--timeout", f"{TIMEOUT:g}"
        ) as client:
            async with anyio.create_task_group() as group:
                group.start_soon(_final_later, devnet, before, FINAL_AFTER)
                started = time.monotonic()
                seen["paid"] = await client.call_tool(TOOL, arguments)
                seen["took"] = time.monotonic() - started
            seen["sent"] = w3.eth.get_transaction_count(account) - before
            # the paid mech's service given a Safe, so the stand-in operator delivers
            _with_safe(devnet, seen["paid"].meta[REQUEST_META]["mech"])
            with answering:
                seen["answer"] = await client.call_tool(TOOL, arguments)

    anyio.run(main)
    paid, answer, took = seen["paid"], seen["answer"], seen["took"]
    text = str(paid.content[0].text)
    observed = f"took {took:.1f} s of --timeout {TIMEOUT:g}: {text[:600]!r}"
    # the revert, its finality wait, then the next offer paid within the same call
    assert paid.is_error and seen["sent"] == 2, observed
    assert FINAL_AFTER < took < TIMEOUT + SLACK, observed  # before: about 15 s
    meta = paid.meta[REQUEST_META]
    assert request_info(devnet, meta["request_id"])["priorityMech"].lower() != (
        chosen.lower()
    )
    assert f"request {meta['request_id']} to mech {meta['mech']}" in text, observed
    assert f"was not delivered within {TIMEOUT:g} s, this call's --timeout" in text
    assert "it stays paid on chain" in text and meta["tx_hash"] in text, observed
    assert "Call again with the same arguments" in text, observed
    # the same arguments again: the paid answer, nothing paid or sent again
    assert not answer.is_error, (answer.content[0].text, answering.errors)
    assert answer.meta[REQUEST_META]["request_id"] == meta["request_id"]
    assert market_nonce(devnet) == nonce + 1
    assert w3.eth.get_transaction_count(account) - before == 2
