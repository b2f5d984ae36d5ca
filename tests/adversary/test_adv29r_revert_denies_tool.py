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

"""One mech denies a tool to everyone by reverting for the marketplace (adv29r).

Severity: HIGH (issue #29 attack 7 generalised: any mech, created through the
marketplace's factories by whoever likes, that ranks first for a tool ends every
call of it with an error, so no honest offer of the tool is ever paid; it costs the
mech nothing, since nothing is sent to it).

A price moved or over the cap makes the server try the next offer; a request that
reverts for any other reason did not: ``Marketplace.sign``'s gas estimate reverts,
``sending`` re-raises its ``MarketError`` when the price and funds did not move, and
``MechToolServer.call_tool`` ends the call with ``error_result(f"{name}: {exc}")``.
On the devnet the chosen mech's code is replaced by a proxy that runs the mech's own
code for every caller but the marketplace and reverts when the marketplace calls it
(``test_adv29r_revert_reason_markup``'s helpers); one call through the MCP SDK's client
over stdio answers (observed on main)::

    prediction-online: the request transaction to 0x84eA…fEB failed:
    ContractLogicError: ('execution reverted: <!-- … -->price refused', '0x08c379a0…

and nothing is paid to the tool's other offer, which would have taken the request.

Expected: an offer whose request fails before anything is paid is skipped and the next
acceptable offer paid, within the caps; the result's ``_meta`` names the skipped offer
and why, the mech's reason shown inert (no raw revert string); the reverting mech is
tried after the others by later calls, and ``tools/list`` says so.
"""

from pathlib import Path
from typing import Any, Dict, List, Optional

import anyio
import pytest
from web3 import Web3

from mech_catalogue_cli.mcp_server import sending
from mech_catalogue_cli.mcp_server.ipfs import Uploaded
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import Marketplace, SignedRequest
from mech_catalogue_cli.mcp_server.sending import RequestSender
from mech_catalogue_cli.mcp_server.settings import CallSettings, PhaseTimer
from mech_catalogue_cli.mcp_server.source import ServedTool
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from scripts.devnet import Devnet
from tests.adversary.test_adv29r_revert_reason_markup import (
    MARKET,
    REASON,
    _raw_html,
    _revert_for_marketplace,
    _RevertingNode,
)
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.devnet.mcp_helpers import (
    final_once_sent,
    market_nonce,
    request_info,
    stdio_client,
)
from tests.devnet.reverting_mech import reverting_when_mined
from tests.devnet.test_mcp_server import TOOL
from tests.test_mcp_offer_choice import offer

REQUEST_META = "io.olas/mech-request"
TOOL_META = "io.olas/mech-tool"
PRICE = 5_000


class _RevertingMarket:
    """The marketplace calls a send makes; ``sign`` is the real one.

    Its node's gas estimate reverts with the mech's reason (``_RevertingNode``).
    """

    requester = "0x" + "0c" * 20
    address = MARKET

    def __init__(self) -> None:
        self.real = Marketplace("http://127.0.0.2:1", MARKET, "0x" + "01" * 32)
        self.real.w3 = Web3(_RevertingNode())

    def mech_price(self, _mech: str) -> Optional[int]:
        """The price, unchanged."""
        return PRICE

    def market_nonce(self) -> int:
        """The requester's marketplace nonce."""
        return 7

    def next_request_id(self, *_args: Any) -> str:
        """A request id."""
        return "0x" + "77" * 32

    def head(self) -> int:
        """The head block."""
        return 100

    def longest_response_timeout(self) -> int:
        """The marketplace's response timeout."""
        return 300

    def request_transaction(self, *_args: Any, **_value: Any) -> Dict[str, Any]:
        """The request transaction."""
        return {"from": self.real.requester, "to": MARKET, "data": "0x"}

    def sign(self, transaction: Dict[str, Any]) -> SignedRequest:
        """The real signing: its gas estimate reverts."""
        return self.real.sign(transaction)


def test_a_reverting_offer_is_refused_so_the_next_is_tried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a chain: the send says this offer is refused, it does not end the call.

    On main ``ensure_sent`` raised the estimate's ``MarketError`` (the call's end).

    :param tmp_path: the journal folder.
    :param monkeypatch: the payload's upload answers at once (no IPFS node).
    """
    uploaded = Uploaded("Qm" + "1" * 44, "0x" + "12" * 32, 2)
    monkeypatch.setattr(sending, "upload_json", lambda *_args: uploaded)
    settings = CallSettings("g", "a", io_timeout=0.05)
    sender = RequestSender(_RevertingMarket(), Journal(tmp_path), settings, SpendLedger())  # type: ignore[arg-type]  # fmt: skip
    sender.payer = None
    tool = ServedTool(TOOL, TOOL, {"name": TOOL, "inputSchema": {}}, ())
    said = anyio.run(
        sender.ensure_sent,
        tool,
        offer("0x" + "0a" * 20, 1, price=PRICE),
        {},
        "0" * 64,
        PhaseTimer(),
    )
    assert isinstance(said, sending.PriceRefusal), said  # the caller tries the next
    assert not _raw_html(said) and "<!--" not in said, said


def _texts(result: Any) -> List[str]:
    return [str(getattr(c, "text", "")) for c in result.content]


def test_a_mech_reverting_for_the_marketplace_does_not_deny_the_tool(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The chosen mech reverts for the marketplace: the next offer is paid, then first."""
    devnet = chain_snapshot
    chosen, _, _ = _paid_mechs(devnet)
    _revert_for_marketplace(devnet, chosen, REASON)
    nonce = market_nonce(devnet)

    async def main() -> Any:
        async with stdio_client(devnet, tmp_path, "--timeout", "2") as client:
            first = await client.call_tool(TOOL, {"prompt": "tides at Brest, adv29r"})
            listed = await client.list_tools()
            second = await client.call_tool(TOOL, {"prompt": "tides at Vigo, adv29r"})
            return first, listed, second

    first, listed, second = anyio.run(main)
    # observed on main: isError "... ContractLogicError: ('execution reverted: <!--"
    assert REQUEST_META in (first.meta or {}), _texts(first)
    meta = first.meta[REQUEST_META]
    paid = request_info(devnet, meta["request_id"])["priorityMech"]
    assert paid.lower() != chosen.lower()  # another offer took the request
    assert market_nonce(devnet) == nonce + 2  # one request per call, none to chosen
    (skipped,) = meta["skipped"]
    assert skipped["address"].lower() == chosen.lower()
    assert "reverted at its gas estimate" in skipped["why"]
    for text in [*_texts(first), skipped["why"], meta["choice"]["why"]]:
        assert not _raw_html(text) and "<!--" not in text, text
    # later: tried after the others, said in tools/list and in the choice
    (tool,) = [t for t in listed.tools if t.name == TOOL]
    last = (tool.meta or {})[TOOL_META]["tried_last"]
    assert [item["address"].lower() for item in last] == [chosen.lower()]
    again = second.meta[REQUEST_META]
    assert again["skipped"] == []
    assert [i["address"].lower() for i in again["choice"]["tried_last"]] == [chosen.lower()]  # fmt: skip


def test_a_request_mined_and_reverted_moves_on_too(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The mech reverts only in a mined transaction (its estimate passes): the next paid.

    The estimate runs at gas price 0, the mined transaction at the block's base fee, so
    a proxy reverting for the marketplace when ``tx.gasprice > 0`` passes the estimate.
    The next offer is paid once the revert's block is final (adv29u F6): the call waits
    for it within its ``--timeout`` while ``FINAL_DEPTH`` blocks are mined here.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    chosen, _, _ = _paid_mechs(devnet)
    nonce, _, sent_before = reverting_when_mined(devnet, chosen)

    async def main() -> Any:
        # the next offer is paid once the revert is final: within the call's --timeout
        async with stdio_client(devnet, tmp_path, "--timeout", "10") as client:
            async with anyio.create_task_group() as group:
                group.start_soon(final_once_sent, devnet, sent_before)
                return await client.call_tool(
                    TOOL, {"prompt": "tides at Cadiz, adv29r"}
                )

    result = anyio.run(main)
    assert REQUEST_META in (result.meta or {}), _texts(result)
    meta = result.meta[REQUEST_META]
    assert request_info(devnet, meta["request_id"])["priorityMech"].lower() != chosen.lower()  # fmt: skip
    assert market_nonce(devnet) == nonce + 1  # the reverted request never counted
    (skipped,) = meta["skipped"]
    assert skipped["address"].lower() == chosen.lower()
    assert "reverted when mined (only gas was spent)" in skipped["why"]
