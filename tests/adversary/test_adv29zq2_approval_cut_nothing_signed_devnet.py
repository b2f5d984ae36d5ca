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

"""adv29zq2 W1: a token approval sent, then the request's estimate cut: "nothing was signed".

Severity: LOW-MEDIUM (issue #29 (d)/(b): the words a model reads after a cut are
false. A token offer approves exactly the shortfall first (``TokenPayer.ensure_allowance``:
signed, journalled in the call's prepared entry, broadcast, mined); then the request is
estimated. A node holding that estimate past the call's ``--timeout`` cuts it
(fix29zp, ``CallTimeSpent``); the estimate's handler reads the price again, which the
spent call refuses, and :func:`.call_end_words.cut_words` adds
:func:`.call_end_words.unresumed_words` of the journalled entry: the entry has no
``raw_tx`` (the request was never signed), so it says ``NOTHING_SIGNED``, though the
account signed and sent (and paid gas for) an ERC-20 ``approve`` to the tracker for
this very call. Nothing is paid twice (the retry reuses the approval record), but the
user and the model are told the account did nothing; an agent that reads "nothing was
signed nor sent" may reasonably move to another server/account and approve again.)

Observed on lead29zz 02021e43 (devnet, the SDK's client over stdio, ``--mech`` the
OLAS mech, ``--timeout 5``, the proxy holding the marketplace's ``eth_estimateGas``
8 s once, after the listing): the call ends at ~5.1 s with "mech 0x..'s price was not
read: this call's --timeout (5 s) ended before the node answered; nothing was signed
nor sent for this call: call again with the same arguments", while the requester's
account nonce moved by one (the approval, mined) and the allowance to the tracker
is the price. The call again (no hold) pays once and approves nothing more (held).

Expected: the words say the approval (its tx hash, token, spender, amount) was signed
and sent for this call, and that calling again reuses it; never "nothing was signed".
Fix direction: ``unresumed_words`` (and the ``NOTHING_SIGNED`` appended in
``prepare_and_send``) consult ``entry.extra["approval"]`` as well as ``raw_tx``.

Fixed by fix29zw (``call_end_words.approval_words``): the words name the approval.
"""

import threading
import time
from pathlib import Path
from typing import Any, Dict, Optional

import anyio
import pytest

from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.devnet.mcp_helpers import (
    market_nonce,
    marketplace_mech_of,
    responder,
    stdio_client,
)
from tests.devnet.test_mcp_token_payments import ARGUMENTS, TOOL, holdings

pytestmark = pytest.mark.devnet

#: the call's --timeout, seconds
TIMEOUT = 5.0
#: how long the node holds the request's estimate (past the call's end)
HOLD = 8.0
#: what the server says when it signed nothing
NOTHING = "nothing was signed nor sent for this call"


class EstimateHolder:  # pylint: disable=too-few-public-methods
    """The proxy's ``rpc_answer``: the first estimate to the marketplace held, once armed.

    :param marketplace: the MechMarketplace address.
    """

    def __init__(self, marketplace: str) -> None:
        """Start unarmed."""
        self.marketplace = marketplace.lower()
        self.armed = threading.Event()
        self.held = 0

    def __call__(self, call: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """Hold the request's estimate once; forward everything else."""
        if not self.armed.is_set() or call.get("method") != "eth_estimateGas":
            return None
        params = call.get("params") or [{}]
        if str(params[0].get("to", "")).lower() != self.marketplace or self.held:
            return None
        self.held += 1
        time.sleep(HOLD)
        return None


def test_an_approval_sent_then_a_cut_never_says_nothing_was_signed(
    chain_snapshot: Devnet, tmp_path: Path, proxy: LoopbackProxy
) -> None:
    """The first call approves, its request's estimate is cut: its words name the approval."""
    devnet = chain_snapshot
    node = EstimateHolder(devnet.info.contracts["MechMarketplace"])
    proxy.rpc_answer = node
    before, nonce = holdings(devnet, "olas"), market_nonce(devnet)
    flags = (
        *("--rpc", proxy.url, "--timeout", str(TIMEOUT)),
        *("--mech", marketplace_mech_of(devnet, "olas")),
    )

    async def main() -> Any:
        async with stdio_client(devnet, tmp_path, *flags) as client:
            await client.list_tools()
            node.armed.set()
            began = time.monotonic()
            first = await client.call_tool(TOOL, ARGUMENTS)
            took = time.monotonic() - began
            cut = holdings(devnet, "olas")
            second = await client.call_tool(TOOL, ARGUMENTS)
            return first, took, cut, second

    with responder(devnet):
        first, took, cut, second = anyio.run(main)
    text = str(first.content[0].text)
    # the facts of the run (held on main): one approval mined by the first call, one
    # request paid by the second, no approval again
    assert node.held == 1 and first.is_error, text
    assert cut["account_nonce"] == before["account_nonce"] + 1, (cut, before, text)
    assert cut["allowance"] > 0 and market_nonce(devnet) == nonce + 1, cut
    paid = holdings(devnet, "olas")["account_nonce"]
    assert paid == before["account_nonce"] + 2, (paid, second)
    assert took < TIMEOUT + 3, took
    # what fails on main: the words say the account signed and sent nothing
    assert NOTHING not in text, f"{took:.1f} s: {text}"
    assert "approv" in text.lower(), text
