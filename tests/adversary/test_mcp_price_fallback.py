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

"""Falling back to the next offer on price never pays twice (issue #29, attack 7).

The incumbent's price jumps over ``--max-price`` at send time, the next offer is sent
and its receipt does not come in time; then the incumbent's price comes back down and
the client calls again with the same arguments. The retry must wait for the request
already sent, never pay the incumbent as well. The marketplace and IPFS are the
in-process stand-ins of ``test_mcp_spend_cap_unmined.py`` (a receipt that never comes
cannot be ordered from anvil per transaction); the devnet side of the fallback is in
``tests/devnet/test_mcp_offer_choice.py``.
"""

from pathlib import Path
from typing import Any, Dict, List

import anyio
import pytest

from mech_catalogue_cli.mcp_server import sending as sending_module
from mech_catalogue_cli.mcp_server.ipfs import Uploaded
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import MarketError
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE, Offer
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import ServedCatalogue, ServedTool
from tests.adversary.test_mcp_spend_cap_unmined import UnminedMarket

INCUMBENT, NEXT = "0x" + "0a" * 20, "0x" + "0b" * 20
CAP = 100


class MovingPrices(UnminedMarket):
    """The stand-in marketplace, with each mech's price now set by the test."""

    def __init__(self) -> None:
        """Both mechs at their listed price."""
        super().__init__()
        self.prices: Dict[str, Any] = {INCUMBENT: 50, NEXT: 80}
        self.paying: Any = ("", 0)  # (mech, wei) of the transaction being built
        self.paid: List[Any] = []  # (mech, wei) of each transaction broadcast

    def mech_price(self, mech: str) -> Any:
        """The mech's price now.

        :param mech: the mech.
        :return: wei, or None (unread).
        """
        return self.prices[mech]

    def request_transaction(self, *args: Any) -> Dict[str, Any]:
        """Return the transaction, remembering whom it pays.

        :param args: mech, data, price, payment type, timeout.
        :return: a dict.
        """
        self.paying = (
            args[0],
            args[2],
        )  # pylint: disable=attribute-defined-outside-init
        return super().request_transaction(*args)

    def broadcast(self, signed: Any, wait: float) -> str:
        """Record whom a new broadcast pays, then time out as the stand-in does.

        :param signed: the signed request.
        :param wait: seconds.
        :return: never.
        """
        if signed.raw_tx not in {t["raw"] for t in self.sent}:
            self.paid.append(self.paying)
        return super().broadcast(signed, wait)

    def delivery(self, request_id: str, from_block: int) -> None:
        """Nothing is delivered here (a retry only waits).

        :param request_id: the request.
        :param from_block: where to look from.
        """
        del request_id, from_block


class TwoOffers:  # pylint: disable=too-few-public-methods
    """One tool offered by two mechs, the incumbent created first."""

    def read(self) -> ServedCatalogue:
        """Return it.

        :return: the catalogue.
        """
        offers = (
            Offer("a", INCUMBENT, 50, NATIVE_PAYMENT_TYPE, 9, 9, 9, True, 9, 10),
            Offer("b", NEXT, 80, NATIVE_PAYMENT_TYPE, 1, 1, 0, True, 9, 20),
        )
        entry = {"name": "t", "inputSchema": {"type": "object"}}
        return ServedCatalogue("d", (ServedTool("t", "t", entry, offers),))


@pytest.fixture(name="app")
def _app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MechToolServer:
    monkeypatch.setattr(
        sending_module,
        "upload_json",
        lambda url, payload, timeout: Uploaded("Qm", "0x" + "ab" * 32, 1),
    )
    settings = CallSettings(
        gateway_url="",
        ipfs_api_url="",
        max_price=CAP,
        io_timeout=0.1,
        timeout=0.1,
        delivery_poll=0.05,
    )
    market = MovingPrices()
    app = MechToolServer(TwoOffers(), settings, market, Journal(tmp_path))  # type: ignore
    app.refresh()
    return app


def _call(app: MechToolServer) -> Any:
    async def main() -> Any:
        try:
            return await app.call("t", {"prompt": "same"})
        except MarketError as exc:  # the receipt did not come: the call says so
            return exc

    return anyio.run(main)


def test_a_retry_after_falling_back_waits_and_never_pays_the_incumbent(
    app: MechToolServer,
) -> None:
    """Over the cap at send time -> the next offer; its price back -> still no payment."""
    market: MovingPrices = app.market  # type: ignore[assignment]
    market.prices[INCUMBENT] = CAP + 1
    assert isinstance(_call(app), MarketError)  # sent to NEXT, not mined in time
    assert market.paid == [(NEXT, 80)]
    market.prices[INCUMBENT] = 50
    for _ in range(3):
        retry = _call(app)
        assert "was not delivered within" in retry.content[0].text
    assert market.paid == [(NEXT, 80)], "paid again after a fallback"
    assert app.ledger.spent == 80


def test_an_unread_price_is_never_paid_and_the_next_offer_is_tried(
    app: MechToolServer,
) -> None:
    """The incumbent's price call fails at send time: it is skipped, said, not paid."""
    market: MovingPrices = app.market  # type: ignore[assignment]
    market.prices[INCUMBENT] = None
    _call(app)
    assert market.paid == [(NEXT, 80)]


def test_every_offer_refused_sends_nothing_and_names_each(app: MechToolServer) -> None:
    """Both over the cap at send time: one error naming both prices, nothing paid."""
    market: MovingPrices = app.market  # type: ignore[assignment]
    market.prices.update({INCUMBENT: CAP + 5, NEXT: None})
    result = _call(app)
    text = result.content[0].text
    assert result.is_error and "nothing was sent" in text
    assert f"from 50 wei (listed) to {CAP + 5} wei (now)" in text
    assert "could not be read right before sending (listed at 80 wei)" in text
    assert not market.paid and app.ledger.spent == 0
