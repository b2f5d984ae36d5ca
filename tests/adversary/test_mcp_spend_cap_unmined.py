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

"""--max-spend must count a request whose send failed after it may have been broadcast.

Before the fix the run ledger was charged only after ``Marketplace.send`` returned; a
transaction broadcast but not mined within the wait (a slow or congested chain) raised,
was never counted, and later calls paid on top of it past ``--max-spend`` once it was
mined. The marketplace and IPFS here are in-process stand-ins (a receipt that never comes
cannot be ordered from anvil per transaction in a unit test; kubo is not needed to count
payments): the stand-in records every transaction "broadcast".
"""

from pathlib import Path
from typing import Any, Dict, List

import anyio
import pytest

from mech_catalogue_cli.mcp_server import sending as sending_module
from mech_catalogue_cli.mcp_server.ipfs import Uploaded
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import (
    STATUS_DOES_NOT_EXIST,
    STATUS_REQUESTED_PRIORITY,
    MarketError,
    RequestReverted,
    SignedRequest,
)
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE, Offer
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import ServedCatalogue, ServedTool

PRICE = 10


class UnminedMarket:
    """Broadcasts every transaction; its receipt never comes in time (MarketError)."""

    requester = "0x" + "22" * 20

    def __init__(self) -> None:
        """No request yet."""
        self.sent: List[Dict[str, Any]] = []
        self.ids: List[str] = []

    def market_nonce(self) -> int:
        """Return the count of requests broadcast.

        :return: the nonce.
        """
        return len(self.sent)

    def next_request_id(self, *args: Any) -> str:
        """Return a distinct id per nonce.

        :param args: ignored but the nonce (last).
        :return: 0x + 64 hex.
        """
        return "0x" + f"{args[-1] + 1:064x}"

    def own_request(self, data: str) -> None:
        """No request is found on chain for a call without a journal entry.

        :param data: the request data.
        """
        del data

    def head(self) -> int:
        """Return block 1.

        :return: 1.
        """
        return 1

    def longest_response_timeout(self) -> int:
        """Return a marketplace's longest response timeout.

        :return: seconds.
        """
        return 3600

    def mech_price(self, mech: str) -> int:
        """The mech's price now: it never moves here.

        :param mech: the mech.
        :return: :data:`PRICE`.
        """
        del mech
        return PRICE

    def request_transaction(self, *args: Any) -> Dict[str, Any]:
        """Return the transaction.

        :param args: mech, data, price, payment type, timeout.
        :return: a dict.
        """
        return {"mech": args[0], "value": args[2]}

    def sign(self, transaction: Dict[str, Any]) -> SignedRequest:
        """Sign at the next pending account nonce (one per transaction broadcast).

        :param transaction: the transaction.
        :return: the signed request.
        """
        del transaction  # a stand-in: only the nonce tells transactions apart
        nonce = len(self.sent)
        return SignedRequest(f"0x{nonce:04x}", "0x" + f"{nonce + 100:064x}", nonce)

    def confirmed_nonce(self) -> int:
        """Nothing is ever mined.

        :return: 0.
        """
        return 0

    def broadcast(self, signed: SignedRequest, wait: float) -> str:
        """Broadcast, then time out waiting for the receipt.

        :param signed: the signed request.
        :param wait: seconds.
        :raises MarketError: always (not mined in time).
        """
        if signed.raw_tx not in {t["raw"] for t in self.sent}:
            self.sent.append({"raw": signed.raw_tx})
            self.ids.append("0x" + f"{len(self.sent):064x}")
        raise MarketError(f"not mined within {wait:g} s")

    def status(self, request_id: str) -> int:
        """Broadcast requests are (eventually) on chain.

        :param request_id: the id.
        :return: the status.
        """
        if request_id in self.ids:
            return STATUS_REQUESTED_PRIORITY
        return STATUS_DOES_NOT_EXIST


class OneTool:  # pylint: disable=too-few-public-methods
    """A catalogue of one payable tool."""

    def read(self) -> ServedCatalogue:
        """Return it.

        :return: the catalogue.
        """
        offer = Offer("k", "0x" + "11" * 20, PRICE, NATIVE_PAYMENT_TYPE, 1, 1, 1, True)
        entry = {"name": "t", "inputSchema": {"type": "object"}}
        return ServedCatalogue("d", (ServedTool("t", "t", entry, (offer,)),))


def _capped_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, market: UnminedMarket
) -> MechToolServer:
    """A server of :class:`OneTool` over ``market``, ``--max-spend 15``, uploads stood in.

    :param tmp_path: the journal's folder.
    :param monkeypatch: pytest's monkeypatch (the IPFS upload stand-in).
    :param market: the marketplace stand-in.
    :return: the server, its catalogue read.
    """
    monkeypatch.setattr(
        sending_module,
        "upload_json",
        lambda url, payload, timeout: Uploaded("Qm", "0x" + "ab" * 32, 1),
    )
    settings = CallSettings(
        gateway_url="", ipfs_api_url="", max_spend=15, io_timeout=0.1, timeout=0.1
    )
    app = MechToolServer(OneTool(), settings, market, Journal(tmp_path))  # type: ignore
    app.refresh()
    return app


def test_an_unmined_send_counts_against_max_spend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cap 15, price 10: after a send that timed out, a second call is refused."""
    market = UnminedMarket()
    app = _capped_server(tmp_path, monkeypatch, market)

    async def main() -> List[Any]:
        results: List[Any] = []
        for prompt in ("first", "second"):
            try:
                results.append(await app.call("t", {"prompt": prompt}))
            except MarketError as exc:
                results.append(exc)
        return results

    first, second = anyio.run(main)
    assert isinstance(first, MarketError)
    assert len(market.sent) == 1, "paid past --max-spend after an unmined send"
    assert second.is_error and "--max-spend 15 wei" in second.content[0].text


class FrontRunMarket(UnminedMarket):
    """Every request is mined and reverts: its mech raised the price by 1 wei meanwhile.

    What an adversarial review did on the devnet (automine off, the mech's Safe raising
    the price with a higher tip once the user's request was pending).
    """

    def __init__(self) -> None:
        """No request yet; prices as listed."""
        super().__init__()
        self.raised: Dict[str, int] = {}

    def mech_price(self, mech: str) -> int:
        """The price now: raised by 1 wei once a request to the mech is pending.

        :param mech: the mech.
        :return: wei.
        """
        return self.raised.get(mech, PRICE)

    def broadcast(self, signed: SignedRequest, wait: float) -> str:
        """Mine the request; it reverts, the mech's price having moved.

        :param signed: the signed request.
        :param wait: seconds.
        :raises RequestReverted: always.
        """
        del wait
        self.sent.append({"raw": signed.raw_tx})
        self.raised["0x" + "11" * 20] = PRICE + 1
        raise RequestReverted(f"the request transaction {signed.tx_hash} reverted")

    def confirmed_nonce(self) -> int:
        """Every transaction broadcast was mined.

        :return: the count of transactions.
        """
        return len(self.sent)

    def status(self, request_id: str) -> int:
        """A reverted request is not on chain.

        :param request_id: the id.
        :return: the status.
        """
        del request_id
        return STATUS_DOES_NOT_EXIST

    def mined_block(self, tx_hash: str) -> int:
        """Every request is mined at the head.

        :param tx_hash: the request's transaction.
        :return: the block.
        """
        del tx_hash
        return self.head()


def test_a_front_run_price_raise_spends_no_cap_and_is_said_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reverted request is refused in words naming both prices; counted until final.

    Before, the error only said "reverted". Its price counts against --max-spend
    until its block is final (adv29yp C1: a reorg could still mine it paid), then no
    more (``tests/test_mcp_revert_memory.py``); the call's error does not blame the cap.

    :param tmp_path: pytest's temporary folder (the journal).
    :param monkeypatch: pytest's monkeypatch (IPFS upload stand-in).
    """
    app = _capped_server(tmp_path, monkeypatch, FrontRunMarket())
    result = anyio.run(app.call, "t", {"prompt": "first"})
    text = str(getattr(result.content[0], "text", ""))
    assert result.is_error and f"from {PRICE} wei to {PRICE + 1} wei" in text
    assert app.ledger.spent == PRICE and len(app.ledger.requests) == 1
    assert "--max-spend" not in text
