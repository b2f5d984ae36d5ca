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

"""The incumbent is paid when the facts read left its price unread (adv29zz I2).

Strangers' failing getters beside an honest mech can leave its facts unread in a read;
its offer was then refused "price unread" and a stranger's offer of the same tool paid.
Now an unread price refuses nothing by itself: every offer's price is read alone right
before sending (``Marketplace.mech_price``), and only an offer whose own read fails
then is skipped, the next offer tried and the reason said. In-process server with the
stand-in marketplace of ``tests/adversary/test_mcp_price_fallback.py`` (a devnet read
leaving one mech's price unread takes burning mechs and minutes: the facts read's
side is ``mech_catalogue_core/tests/chain/test_isolation_shared_fairly.py``).
"""

from pathlib import Path
from typing import Any, Optional

import anyio
import pytest

from mech_catalogue_cli.mcp_server import sending as sending_module
from mech_catalogue_cli.mcp_server.ipfs import Uploaded
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import MarketError
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE, Offer
from mech_catalogue_cli.mcp_server.results import REQUEST_META_KEY
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import (
    ServedCatalogue,
    ServedTool,
    cost_facts,
)
from tests.adversary.test_mcp_price_fallback import INCUMBENT, NEXT, MovingPrices

CAP = 100


class IncumbentUnread:  # pylint: disable=too-few-public-methods
    """One tool, two offers: the incumbent's price unread in the facts read."""

    def __init__(self, next_price: Optional[int] = 80) -> None:
        """Set the stranger's listed price.

        :param next_price: the newcomer's listed price (None: unread too).
        """
        self.next_price = next_price

    def read(self) -> ServedCatalogue:
        """Return the catalogue.

        :return: the incumbent (first delivery at block 8 since it declared the tool at
            block 5: logs, not the facts read) listed with every fact unread, a newcomer
            (declared at block 15, delivered its own requests) at ``next_price``.
        """
        unread = (None, NATIVE_PAYMENT_TYPE, None, None, None, True, 9, 4)
        offers = (
            Offer("a", INCUMBENT, *unread, declared_block=5, first_delivery_block=8),
            Offer(
                "b",
                NEXT,
                self.next_price,
                NATIVE_PAYMENT_TYPE,
                *(9, 9, 99, True, 9, 20),
                declared_block=15,
            ),
        )
        entry = {"name": "t", "inputSchema": {"type": "object"}}
        return ServedCatalogue("d", (ServedTool("t", "t", entry, offers),))


def _app(tmp_path: Path, source: Any) -> MechToolServer:
    settings = CallSettings(
        gateway_url="",
        ipfs_api_url="",
        max_price=CAP,
        io_timeout=0.1,
        timeout=0.1,
        delivery_poll=0.05,
    )
    app = MechToolServer(
        source, settings, MovingPrices(), Journal(tmp_path)  # type: ignore[arg-type]
    )
    app.refresh()
    return app


@pytest.fixture(autouse=True)
def _no_ipfs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        sending_module,
        "upload_json",
        lambda url, payload, timeout: Uploaded("Qm", "0x" + "ab" * 32, 1),
    )


def _call(app: MechToolServer) -> Any:
    async def main() -> Any:
        try:
            return await app.call("t", {"prompt": "same"})
        except MarketError as exc:  # the stand-in's receipt never comes
            return exc

    return anyio.run(main)


def test_the_incumbent_with_an_unread_price_is_paid_its_price_now(
    tmp_path: Path,
) -> None:
    """Listed unread, read 50 wei right before sending: the incumbent is paid 50."""
    app = _app(tmp_path, IncumbentUnread())
    market: MovingPrices = app.market  # type: ignore[assignment]
    _call(app)
    assert market.paid == [(INCUMBENT, 50)]


def test_an_unread_price_over_the_cap_now_is_not_paid(tmp_path: Path) -> None:
    """Listed unread, read over --max-price right before sending: the next is paid."""
    app = _app(tmp_path, IncumbentUnread())
    market: MovingPrices = app.market  # type: ignore[assignment]
    market.prices[INCUMBENT] = CAP + 1
    _call(app)
    assert market.paid == [(NEXT, 80)]


def test_an_offer_whose_own_price_read_fails_is_skipped_saying_why(
    tmp_path: Path,
) -> None:
    """Its read fails at send time too: skipped; when no offer is left, each named."""
    app = _app(tmp_path, IncumbentUnread())
    market: MovingPrices = app.market  # type: ignore[assignment]
    market.prices[INCUMBENT] = None
    _call(app)
    assert market.paid == [(NEXT, 80)]

    app = _app(tmp_path / "2", IncumbentUnread(next_price=None))
    market = app.market  # type: ignore[assignment]
    market.prices.update({INCUMBENT: None, NEXT: None})
    result = _call(app)
    text = result.content[0].text
    assert result.is_error and "nothing was sent" in text
    assert f"mech {INCUMBENT}'s price could not be read right before sending" in text
    assert "(listed at an unread price)" in text
    skipped = result.meta[REQUEST_META_KEY]["skipped"]
    assert [item["address"] for item in skipped] == [INCUMBENT, NEXT]
    assert not market.paid and app.ledger.spent == 0


def test_a_listed_unread_price_says_it_is_read_before_sending() -> None:
    """The server's facts paragraph never says "None wei"."""
    unread = Offer("a", INCUMBENT, None, NATIVE_PAYMENT_TYPE, 1, 1, 0, True)
    words = cost_facts(unread)
    assert "None" not in words
    assert "not read in the last facts read" in words
    assert "paid only within --max-price" in words
