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

"""adv29zp C4: a signed request still unmined stops counting once older than the window.

Severity: LOW-MEDIUM (spending over ``--max-spend``: one price per request still
unmined after ``--spend-window``; no stranger needs to pay anything, and the mech the
request pays gains from it being mined late: the signed transaction is public, anyone
can broadcast it again once the base fee is under its fee cap).

docs/mcp.md ("Spending cap"): "A request counts from the moment it is sent, even when
its receipt does not come in time (it may still be mined)", and an off-chain request
still outstanding counts "whatever its age". An on-chain request is counted by its
entry's ``paid_at`` only (``spend_cap._counted``: ``holds`` are off-chain only): once
that date leaves the window it counts nothing, though its account nonce is unmined and
the request can still be mined, and charged, at any later time. fix29yh makes such
waits ordinary: a request is signed at most at ``--max-fee-per-gas`` ("a transaction
signed under it would wait unmined"), so a base fee above the cap keeps it pending
for as long as the fees stay high; with ``--spend-window 90m`` (the docs' example) an
afternoon is enough.

Observed on main 3f9bf80e (no chain: a stand-in whose first request is never mined,
``--max-spend`` one price, window 3600 s): call A's request is signed, journalled and
broadcast, its receipt does not come (the call says so); two windows later, its
account nonce still unmined, call B is paid (a second price), both by the same process
and by a restarted one, while request A may still be mined.

Expected: a journalled on-chain request whose account nonce is not mined counts
whatever its age (as an outstanding off-chain request), until the chain shows its
nonce taken (mined, or by another transaction); call B is refused by the cap meanwhile.
"""

import time
from pathlib import Path
from typing import Any, Dict, Optional

import anyio
import pytest

from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import (
    STATUS_DOES_NOT_EXIST,
    MarketError,
    SignedRequest,
)
from mech_catalogue_cli.mcp_server.sending import RequestSender
from mech_catalogue_cli.mcp_server.settings import PhaseTimer
from tests.adversary.test_adv29yp_revert_memory_restart import _tool
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_refused_offers import (  # noqa: F401 # pylint: disable=unused-import
    HONEST,
    PRICE,
    _Market,
    _no_upload,
    _sender,
)

CALL_A, CALL_B = "a" * 64, "b" * 64
WINDOW = 3600.0  # the window ``_sender`` gives its ledger
EARLIER = 3  # the account's transactions mined before the calls


class StuckChain(_Market):
    """The first request broadcast is never mined (a base fee over its fee cap)."""

    def __init__(self) -> None:
        """Nothing signed yet."""
        super().__init__(None, [PRICE])
        self.mined = 0
        self.ids = 0

    def next_request_id(self, *_args: Any) -> str:
        """A new id per request."""
        self.ids += 1
        return "0x" + f"{self.ids:064x}"

    def sign(self, _transaction: Dict[str, Any]) -> SignedRequest:
        """Sign at the account's pending nonce."""
        self.signed += 1
        nonce = EARLIER + self.signed - 1
        return SignedRequest(f"0x0{nonce}", "0x" + f"{nonce:02x}" * 32, nonce)

    def broadcast(self, signed: SignedRequest, _wait: float) -> str:
        """The first request waits unmined; the later ones are mined paid."""
        self.broadcasts.append(signed.raw_tx)
        if signed.account_nonce == EARLIER:
            raise MarketError(f"{signed.tx_hash} not mined within 0.05 s")
        self.mined += 1
        return signed.tx_hash

    def status(self, _request_id: str, _block: Optional[int] = None) -> int:
        """Request A is not on chain."""
        return STATUS_DOES_NOT_EXIST

    def confirmed_nonce(self) -> int:
        """Request A's nonce is never mined."""
        return EARLIER

    def mined_request_id(self, _tx_hash: str, _data: str) -> Optional[str]:
        """No other id."""
        return None

    def transaction_reverted(self, _tx_hash: str) -> Optional[bool]:
        """No receipt."""
        return None

    def mined_block(self, _tx_hash: str) -> Optional[int]:
        """Not mined."""
        return None


def _call(sender: RequestSender, key: str) -> Any:
    offers = [offer(HONEST, 2, price=PRICE)]
    try:
        return anyio.run(
            sender.ensure_sent, _tool(), offers[0], {}, key, PhaseTimer(), offers
        )
    except MarketError as exc:
        return exc


def _two_windows_ago(tmp_path: Path) -> None:
    """Call A's request was signed two windows ago (its entry's date)."""
    journal = Journal(tmp_path)
    entry = journal.load(CALL_A)
    assert entry is not None and entry.raw_tx and entry.account_nonce == EARLIER
    entry.paid_at = time.time() - 2 * WINDOW
    journal.save(entry)


@pytest.mark.parametrize("restarted", [False, True])
@pytest.mark.usefixtures("no_upload")
def test_an_unmined_request_counts_whatever_its_age(
    tmp_path: Path, restarted: bool
) -> None:
    """Cap of one price: call B is refused while call A's request may still be mined."""
    chain = StuckChain()
    sender = _sender(tmp_path, chain, cap=PRICE)
    first = _call(sender, CALL_A)
    assert isinstance(first, MarketError) and "journalled" in str(first), first
    _two_windows_ago(tmp_path)
    if restarted:
        sender = _sender(tmp_path, chain, cap=PRICE)
    second = _call(sender, CALL_B)
    assert not isinstance(second, JournalEntry), (
        f"call B paid ({chain.mined} request mined) while call A's request (nonce "
        f"{EARLIER}, signed two windows ago) is unmined and may still be mined: two "
        "prices under a cap of one"
    )


@pytest.mark.usefixtures("no_upload")
def test_control_within_the_window_call_b_is_refused(tmp_path: Path) -> None:
    """Control: the same, call A signed just now: the cap refuses call B."""
    chain = StuckChain()
    sender = _sender(tmp_path, chain, cap=PRICE)
    assert isinstance(_call(sender, CALL_A), MarketError)
    second = _call(sender, CALL_B)
    assert isinstance(second, str) and "over --max-spend" in second, second
    assert chain.mined == 0
