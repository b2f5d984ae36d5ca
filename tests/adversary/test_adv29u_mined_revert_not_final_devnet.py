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

"""A mined revert holds its call until final, on the devnet (adv29u F6).

Severity: MEDIUM (see ``test_adv29u_mined_revert_not_final``: a reorg that puts the
reverted request before the front-running price raise mines it paid, and the next
offer was paid at once).

Observed on main (devnet, the MCP SDK's client over stdio): the chosen mech reverts
for the marketplace only when mined; the call's request to it is mined and reverts at
block B, and the same call pays the tool's next offer at once, B one block deep (the
marketplace nonce moves by one, the account sends two transactions).

Expected: the call pays nothing else while B is shallower than ``FINAL_DEPTH``: it
ends (``--timeout`` 2) saying so, naming block B + ``FINAL_DEPTH`` (its ``_meta``
``final_at``), one transaction sent, the marketplace nonce unmoved; once that block
is mined, a call with the same arguments pays the next offer, once.
"""

from pathlib import Path
from typing import Any, Dict

import anyio
from web3.types import RPCEndpoint

from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH
from scripts.devnet import Devnet
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.devnet.mcp_helpers import market_nonce, request_info, stdio_client
from tests.devnet.reverting_mech import reverting_when_mined
from tests.devnet.test_mcp_server import REQUEST_META, TOOL


def test_a_mined_revert_holds_the_call_until_its_block_is_final(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Reverted when mined: nothing else paid until final, then the next offer once.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    w3 = devnet.w3
    chosen, _, _ = _paid_mechs(devnet)
    nonce, account, before = reverting_when_mined(devnet, chosen)
    arguments = {"prompt": "tides at Vigo, adv29u"}
    seen: Dict[str, Any] = {}

    async def main() -> None:
        async with stdio_client(devnet, tmp_path, "--timeout", "2") as client:
            seen["held"] = await client.call_tool(TOOL, arguments)
            seen["sent"] = w3.eth.get_transaction_count(account) - before
            seen["head"] = w3.eth.block_number
            w3.provider.make_request(RPCEndpoint("anvil_mine"), [FINAL_DEPTH])
            seen["paid"] = await client.call_tool(TOOL, arguments)

    anyio.run(main)
    held, paid = seen["held"], seen["paid"]
    text = str(held.content[0].text)
    # the revert's block: the only transaction of the account in the held call
    reverted_at = seen["head"]
    assert held.is_error and seen["sent"] == 1, text
    assert "mined and reverted" in text, text
    assert f"until block {reverted_at + FINAL_DEPTH}" in text, text
    assert held.meta[REQUEST_META]["final_at"] == reverted_at + FINAL_DEPTH
    assert market_nonce(devnet) == nonce + 1  # the second call's request only
    meta = paid.meta[REQUEST_META]
    assert request_info(devnet, meta["request_id"])["priorityMech"].lower() != (
        chosen.lower()
    )
    assert w3.eth.get_transaction_count(account) - before == 2
