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

"""adv29zp C5: a token offer refused unsent still counts its price against ``--max-spend``.

Severity: LOW-MEDIUM (denial of paid calls in a token: nothing is overpaid; a
stranger's OLAS or USDC mech that burns gas in its request (or reverts at the gas
estimate) takes one price of the user's token ``--max-spend`` for ``--spend-window``
(24 h) each time the user's allowance is short, which it is after each honest token
call (the request spends the allowance approved for it); a restart does not clear it).

A token offer approves the shortfall before its request can be estimated
(``RequestSender._ready_to_pay`` -> ``TokenPayer.ensure_allowance``), and the approval
is journalled in the call's prepared entry ("before the broadcast"): that entry, with
the offer's price and no request signed, is on disk. Then the request's estimate is
over ``--max-gas`` (fix29yh, ``GasOverBound``) and the offer is refused, "not signed,
nothing was sent"; when no other offer pays the call, the entry stays. The journal
counts every entry at its price (``spending.read_record``: ``counted_price`` is
``entry.price`` for an on-chain entry, whether or not a request was ever signed), so
this run and every other process count a price that was never sent.

Observed on main 3f9bf80e (no chain: the stand-in marketplace of
``tests/test_mcp_refused_offers``, its ``sign`` raising ``GasOverBound`` with
10,282,093 gas, and a payer stand-in that approves and journals as ``TokenPayer`` does;
OLAS ``--max-spend`` one price): call A's only offer is refused ("... over --max-gas
1,000,000 ...: not signed, nothing was sent"); call B's offer is then refused by the
cap: "paying 0.000000000000005 OLAS (5000 smallest units) would bring the olas spending
of the last 3600 s (--spend-window) to ... 10000 smallest units), over --max-spend
olas=5000 (... 5000 smallest units) on 1 journalled request(s) ...)", both by the same
process and by a restarted one. The same entry stays when the request reverts at its
estimate instead (``EstimateReverted``, before fix29yh too).

Expected: a call whose request was never signed counts nothing against
``--max-spend`` (its approval is no payment: the allowance stays the user's), so
call B gets as far as its own offer.
"""

from pathlib import Path
from typing import Any, Optional

import anyio
import pytest
from mech_catalogue_core.model.payment import ASSET_OLAS

from mech_catalogue_cli.mcp_server.journal import JournalEntry
from mech_catalogue_cli.mcp_server.market import DEFAULT_MAX_GAS, GasOverBound
from mech_catalogue_cli.mcp_server.refused_offers import RevertRefusal
from mech_catalogue_cli.mcp_server.sending import RequestSender
from mech_catalogue_cli.mcp_server.settings import PhaseTimer
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from tests.adversary.test_adv29yp_revert_memory_restart import _tool
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_refused_offers import (  # noqa: F401 # pylint: disable=unused-import
    HONEST,
    MECH,
    PRICE,
    _Market,
    _no_upload,
    _sender,
)

#: MechFixedPriceToken's PAYMENT_TYPE (OLAS)
OLAS_PAYMENT_TYPE = "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9"
CALL_A, CALL_B = "a" * 64, "b" * 64


class _ApprovingPayer:  # pylint: disable=too-few-public-methods
    """``TokenPayer.ensure_allowance`` as it runs when the allowance is short."""

    def ensure_allowance(
        self,
        entry: JournalEntry,
        _previous: Optional[JournalEntry],
        save: Any,
        _w: float,
    ) -> str:
        """Approve exactly the price, journalled in the entry, mined; payable now."""
        entry.extra["approval"] = {
            "token": "0x" + "cc" * 20,
            "tracker": "0x" + "dd" * 20,
            "amount": entry.price,
            "raw_tx": "0x02",
            "tx_hash": "0x" + "98" * 32,
            "account_nonce": 3,
        }
        save(entry)  # before the broadcast, as TokenPayer does
        return ""


def _olas_sender(tmp_path: Path) -> RequestSender:
    market = _Market(
        GasOverBound("0x" + "84" * 20, 10_282_093, DEFAULT_MAX_GAS), [PRICE]
    )
    sender = _sender(tmp_path, market)
    sender.token_ledgers = {
        ASSET_OLAS: SpendLedger(max_spend=PRICE, window=3600.0, asset=ASSET_OLAS)
    }
    sender.payer = _ApprovingPayer()  # type: ignore[assignment]
    return sender


def _call(sender: RequestSender, key: str, mech: str) -> Any:
    chosen = offer(mech, 1, price=PRICE, payment_type=OLAS_PAYMENT_TYPE)
    return anyio.run(
        sender.ensure_sent, _tool(), chosen, {}, key, PhaseTimer(), [chosen]
    )


@pytest.mark.parametrize("restarted", [False, True])
@pytest.mark.usefixtures("no_upload")
def test_an_unsigned_token_request_counts_nothing(
    tmp_path: Path, restarted: bool
) -> None:
    """OLAS cap one price: call A refused unsigned; call B is not refused by the cap."""
    sender = _olas_sender(tmp_path)
    first = _call(sender, CALL_A, MECH)
    # its approval was sent: the request alone is said unsigned (fix29zzd)
    assert isinstance(first, RevertRefusal) and "request not signed" in first, first
    assert "nothing was sent" not in first, first
    if restarted:
        sender = _olas_sender(tmp_path)
    second = _call(sender, CALL_B, HONEST)
    assert "over --max-spend" not in str(
        second
    ), f"call B refused by the cap though call A sent nothing: {second}"


@pytest.mark.usefixtures("no_upload")
def test_control_without_an_approval_nothing_is_counted(tmp_path: Path) -> None:
    """Control: the allowance already covers the price (no approval journalled)."""
    sender = _olas_sender(tmp_path)
    sender.payer = None  # no approval: nothing journalled before the estimate
    first = _call(sender, CALL_A, MECH)
    assert isinstance(first, RevertRefusal) and "nothing was sent" in first, first
    second = _call(sender, CALL_B, HONEST)
    assert "over --max-spend" not in str(second), second
