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

"""A journalled request sent again after a restart reverts when mined: the call ends (adv29t).

Severity: LOW (one call ends with an error instead of trying the next offer; nothing
is paid twice, and the next call moves on).

A server killed between journalling a signed request and its receipt leaves a
``prepared`` entry; the next call broadcasts those same bytes again
(``ensure_sent``, its nonce still free). When the mech reverts for the marketplace
only when mined, that broadcast raises ``RequestReverted``, which the fresh-send path
turns into a :class:`RevertRefusal` (the next offer tried) but this path does not.

Observed on main (without a chain, the sender with a stand-in marketplace):
``ensure_sent`` raises ``RequestReverted``; ``call_tool`` turns any ``MarketError``
into the call's error ("the request transaction ... reverted"), the tool's other
offers untried and the mech not remembered; the next call sends the mech a new request
first (gas again) before moving on.

Expected: as for a fresh request, a refusal of this offer (only gas was spent), the
mech remembered and the next offer tried.
"""

from pathlib import Path
from typing import Any, Optional

import anyio

from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import STATUS_DOES_NOT_EXIST
from mech_catalogue_cli.mcp_server.offchain_sending import PriceRefusal
from mech_catalogue_cli.mcp_server.settings import PhaseTimer
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_refused_offers import MECH, PRICE, _Market, _sender, _tool

KEY = "0" * 64


class _Restarted(_Market):
    """A marketplace after a restart: the journalled request unmined, its nonce free."""

    def status(self, _request_id: str, _block: Optional[int] = None) -> int:
        """The request is unknown."""
        return STATUS_DOES_NOT_EXIST

    def mined_request_id(self, _tx_hash: str, _data: str) -> Optional[str]:
        """No receipt: no other id."""
        return None

    def confirmed_nonce(self) -> int:
        """The entry's account nonce (3) is free."""
        return 3


def test_a_resent_request_reverting_when_mined_refuses_the_offer(
    tmp_path: Path,
) -> None:
    """The journalled bytes sent again revert when mined: a refusal, not an exception.

    :param tmp_path: the journal folder.
    """
    market = _Restarted(None, [PRICE])
    sender = _sender(tmp_path, market)
    Journal(tmp_path).save(
        JournalEntry(
            key=KEY,
            tool="tool",
            mech=MECH,
            price=PRICE,
            payment_type=offer(MECH, 1, price=PRICE).payment_type,
            cid="Qm" + "1" * 44,
            data="0x" + "12" * 32,
            market_nonce=7,
            request_id="0x" + "77" * 32,
            from_block=100,
            tx_hash="0x" + "99" * 32,
            status="prepared",
            raw_tx="0x02",
            account_nonce=3,
        )
    )
    said: Any = anyio.run(
        sender.ensure_sent,
        _tool(),
        offer(MECH, 1, price=PRICE),
        {},
        KEY,
        PhaseTimer(),
        [offer(MECH, 1, price=PRICE)],
    )
    assert market.broadcasts == ["0x02"]  # premise: the same bytes sent again
    assert isinstance(said, PriceRefusal), said
