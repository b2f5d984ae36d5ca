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

"""Whose nonce a request holds, the passed marks read strictly, a recorded save (fix29g).

No chain here: the journal on disk and the pure decisions of ``.outstanding`` and
``.spend_cap`` (the devnet runs are ``tests/adversary/test_adv29e_*``).
"""

import time
from pathlib import Path
from typing import Any, Dict

import anyio
import pytest
from filelock import FileLock
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.journal import (
    Journal,
    JournalEntry,
    JournalError,
    recorded,
)
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE
from mech_catalogue_cli.mcp_server.outstanding import (
    Hold,
    blocking_hold,
    held_behind,
    holds_of,
    owner_text,
    remember_attempt,
)
from mech_catalogue_cli.mcp_server.spend_cap import PaidRecord, SpendLedger
from mech_catalogue_cli.mcp_server.spending import journal_records
from tests.adversary.test_adv29e_journal_forged_passed import KEY, PRICE
from tests.adversary.test_adv29e_journal_forged_passed import entry as entry_with_extra

ME = "0x" + "a1" * 20
SOMEONE = "0x" + "b2" * 20
MINE = owner_text(ME, 100)


def entry(offchain: Dict[str, Any], status: str, **extra: Any) -> JournalEntry:
    """An off-chain call's entry at nonce 3 (``extra`` beside its ``offchain``)."""
    # :param offchain: its ``extra.offchain``.
    # :param status: its status.
    # :param extra: more of its ``extra``.
    return entry_with_extra({"offchain": offchain, **extra}, status)


def signed(**more: Any) -> Dict[str, Any]:
    """An accepted request's ``extra.offchain`` (``more`` added)."""
    return {"endpoint": "http://127.0.0.1:8010", "signature": "0x" + "44" * 65, **more}


def test_a_hold_names_its_requester_and_chain_and_only_that_owner_heeds_it() -> None:
    """Another account's or chain's request holds nothing of this requester's."""
    (ours,) = holds_of(entry(signed(requester=ME, chain_id=100), CallStatus.SENT))
    (theirs,) = holds_of(
        entry(signed(requester=SOMEONE, chain_id=100), CallStatus.SENT)
    )
    (other_chain,) = holds_of(entry(signed(requester=ME, chain_id=1), CallStatus.SENT))
    assert ours.owner == MINE and ours.held_by(MINE)
    assert not theirs.held_by(MINE) and not other_chain.held_by(MINE)
    mine = [h for h in (ours, theirs, other_chain) if h.held_by(MINE)]
    assert blocking_hold(mine, 3, 1100.0, 300.0) == ours


@pytest.mark.parametrize(
    "offchain",
    [signed(), signed(requester=ME), signed(requester=ME, chain_id="100")],
    ids=["neither", "no chain", "chain not an integer"],
)
def test_an_entry_that_does_not_say_whose_is_read_as_this_requesters(
    offchain: Dict[str, Any],
) -> None:
    """The safe reading: it holds this requester's nonce (and counts), as before."""
    (hold,) = holds_of(entry(offchain, CallStatus.SENT))
    assert hold.owner == "" and hold.held_by(MINE)


def test_an_earlier_attempt_keeps_whose_it_is() -> None:
    """Re-signed, the earlier request keeps its requester and chain."""
    previous = entry(signed(requester=ME, chain_id=100, accepted=False), "prepared")
    again = entry(signed(requester=ME, chain_id=100), "prepared")
    again.request_id = "0x" + "66" * 32
    remember_attempt(again, previous)
    assert [hold.owner for hold in holds_of(again)] == [MINE, MINE]


def test_an_old_request_of_another_account_counts_whatever_this_nonce() -> None:
    """Past the window, a hold is compared only with its own requester's nonce."""
    old = time.time() - 1000
    records = [
        PaidRecord(
            "0x" + "77" * 32,
            PRICE,
            old,
            holds=(
                Hold(
                    KEY,
                    "0x" + "77" * 32,
                    3,
                    "0x" + "11" * 20,
                    True,
                    old,
                    PRICE,
                    owner_text(SOMEONE, 100),
                ),
            ),
            passed_seen_at=old,  # its passing seen long ago (adv29g: else it counts)
        )
    ]
    ledger = SpendLedger(max_spend=PRICE, window=60.0)
    ledger.count_journal(records, time.time(), 9, MINE)  # our nonce 9 passed 3
    assert ledger.earlier == PRICE  # not ours: its nonce unread, it counts
    ledger.count_journal(records, time.time(), 9, owner_text(SOMEONE, 100))
    assert ledger.earlier == 0  # its own requester's nonce passed it


@pytest.mark.parametrize(
    "offchain, status, extra",
    [
        (signed(passed=1), "prepared", {}),
        (signed(accepted=True, passed=True), CallStatus.DELIVERED, {}),
        (
            signed(accepted=True),
            CallStatus.SENT,
            {
                "offchain_attempts": {
                    "0x"
                    + "55"
                    * 32: {
                        "nonce": 4,
                        "price": PRICE,
                        "mech": "0x" + "11" * 20,
                        "payment_type": NATIVE_PAYMENT_TYPE,
                        "from_block": 10,
                        "passed": True,
                    }
                }
            },
        ),
        (
            signed(accepted=True),
            CallStatus.SENT,
            {
                "offchain_attempts": {
                    "0x"
                    + "55"
                    * 32: {
                        "nonce": 3,
                        "price": PRICE,
                        "mech": "0x" + "11" * 20,
                        "payment_type": NATIVE_PAYMENT_TYPE,
                        "from_block": 10,
                        "passed": "yes",
                    }
                }
            },
        ),
    ],
    ids=["not true", "delivered", "attempt after the current", "attempt not bool"],
)
def test_a_passed_mark_the_server_never_writes_is_an_error_naming_the_file(
    tmp_path: Path, offchain: Dict[str, Any], status: str, extra: Dict[str, Any]
) -> None:
    """The record is a problem (the cap refuses to pay) and the load raises."""
    journal = Journal(tmp_path)
    journal.save(entry(offchain, status, **extra))
    (record,) = journal_records(journal.folder)
    assert "passed mark" in record.problem and KEY in record.problem
    ledger = SpendLedger(max_spend=10 * PRICE, window=600.0)
    ledger.count_journal([record], time.time())
    assert ledger.refusal(1) is not None
    with pytest.raises(JournalError, match=KEY):
        journal.load(KEY)


def test_a_passed_mark_where_the_server_writes_one_counts_nothing(
    tmp_path: Path,
) -> None:
    """A prepared entry whose requests the nonce passed: read, counting 0."""
    journal = Journal(tmp_path)
    journal.save(entry(signed(accepted=True, passed=True), "prepared"))
    (record,) = journal_records(journal.folder)
    assert (record.problem, record.price) == ("", 0)
    assert journal.load(KEY) is not None


def test_a_recorded_save_under_a_lock_held_elsewhere_says_so_and_raises_nothing(
    tmp_path: Path,
) -> None:
    """The write lock held by another holder: "" never, a sentence, the old entry kept."""
    journal = Journal(tmp_path)
    first = entry(signed(accepted=True), CallStatus.SENT)
    journal.save(first)
    journal._write_lock.timeout = 0.2  # pylint: disable=protected-access  # not 30 s
    stuck = FileLock(journal.folder / ".write.lock", thread_local=False)
    stuck.acquire()
    try:
        later = entry(signed(accepted=True), CallStatus.DELIVERED)
        said = anyio.run(recorded, journal, later)
    finally:
        stuck.release()
    assert "could not be written" in said and "never paid again" in said
    loaded = journal.load(KEY)
    assert loaded is not None and loaded.status == CallStatus.SENT
    assert anyio.run(recorded, journal, later) == ""  # the lock free: written


def test_a_held_behind_refusal_names_the_request_in_its_progress() -> None:
    """The progress a waiting call sends names the request holding the nonce."""
    hold = Hold(KEY, "0x" + "77" * 32, 3, "0x" + "11" * 20, True, 0.0, PRICE, MINE)
    refusal = held_behind("the sentence", hold)
    assert refusal == "the sentence"
    assert f"request {hold.request_id} (nonce 3)" in refusal.progress
