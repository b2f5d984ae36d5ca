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

"""A request settled after its date counts from when its passing was seen (adv29g).

The marketplace charges an off-chain request when its mech settles it, which this
server does not see; it sees the requester's nonce past the request. The rule
(:meth:`SpendLedger.count_journal`, :func:`record_passed`): a record whose nonce passed
counts until the server recorded when it first saw that (at or after the settlement),
then within ``--spend-window`` from that time; never when the chain showed it never
settled. Real journal files; the marketplace is the stand-in of
``tests/test_mcp_offchain_release.py`` (facts per block set by the test: a settlement
at a chosen moment, an unreadable RPC), which the devnet cannot show on demand. The
devnet run is ``tests/adversary/test_adv29g_offchain_late_settlement_window.py``.
"""

import logging
import os
import time
from pathlib import Path
from typing import Any, Dict, Tuple

import pytest
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import STATUS_DELIVERED
from mech_catalogue_cli.mcp_server.offchain import (
    OffchainPoster,
    record_passed,
    release_unsettleable,
)
from mech_catalogue_cli.mcp_server.outstanding import PASSED_SEEN_KEY
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger, passed_unseen
from mech_catalogue_cli.mcp_server.spending import JournalIndex, journal_records
from tests.test_mcp_offchain_journal import OFFCHAIN
from tests.test_mcp_offchain_journal import entry as offchain_entry
from tests.test_mcp_offchain_release import Chain

WINDOW = 10.0
PRICE = 5 * 10**15  # the price of tests.test_mcp_offchain_journal.entry


def _signed(poster: OffchainPoster, key: str, accepted: bool) -> JournalEntry:
    """An entry at nonce 3 signed by the stand-in's requester, dated long ago."""
    # :param poster: the poster (its requester signs the id).
    # :param key: the call key.
    # :param accepted: accepted by its endpoint (paid_at long ago), else refused (402).
    # :return: the entry.
    offchain: Dict[str, Any] = dict(OFFCHAIN, accepted=accepted)
    if not accepted:
        offchain["refused"] = "402"
    written = offchain_entry(
        offchain, status=CallStatus.SENT if accepted else CallStatus.PREPARED
    )
    written.key = key
    written.request_id = poster.own_request_id(written)
    written.paid_at = 1000.0 if accepted else 0.0
    return written


def _old_journal(tmp_path: Path, accepted: bool) -> Tuple[Chain, Any, Any, str]:
    """One request at nonce 3, dated long before the window; its mech just settled it."""
    # :param tmp_path: the state folder.
    # :param accepted: see _signed.
    # :return: the chain, poster, journal and the request's key.
    chain = Chain(50, {50: 4})  # settled: the nonce moved past 3
    poster = OffchainPoster(chain, None)  # type: ignore[arg-type]
    journal = Journal(tmp_path)
    written = _signed(poster, "ab" * 32, accepted)
    chain.statuses[written.request_id] = STATUS_DELIVERED
    journal.save(written)
    os.utime(journal.folder / f"{written.key}.json", (1000.0, 1000.0))
    return chain, poster, journal, written.key


def _counted(records: Any, now: float, chain_nonce: int = 4) -> int:
    ledger = SpendLedger(max_spend=PRICE, window=WINDOW)
    ledger.count_journal(records, now, chain_nonce)
    return ledger.earlier


def _seen(journal: Journal, key: str) -> Dict[str, Any]:
    loaded = journal.load(key)
    assert loaded is not None
    return dict(loaded.extra["offchain"][PASSED_SEEN_KEY])


@pytest.mark.parametrize("accepted", [True, False])
def test_a_settlement_not_yet_seen_counts_then_its_window_ends_it(
    tmp_path: Path, accepted: bool
) -> None:
    """Both reproduction cases: counted when first seen passed, then for one window."""
    chain, poster, journal, key = _old_journal(tmp_path, accepted)
    now = time.time()
    # before anything is recorded: its nonce passed, it may have been charged just now
    assert _counted(journal_records(journal.folder), now) == PRICE
    # the refused one is not released: the chain shows it settled
    assert not release_unsettleable(poster, journal, journal_records(journal.folder))
    (done,) = record_passed(poster, journal, journal_records(journal.folder))
    seen = _seen(journal, done.key)
    assert seen["settled"] is True and (seen["block"], seen["market_nonce"]) == (50, 4)
    assert now <= seen["at"] <= time.time()
    records = journal_records(journal.folder)
    assert _counted(records, now + WINDOW - 1) == PRICE  # within the window from then
    assert _counted(records, seen["at"] + WINDOW + 1) == 0  # the window ends it
    assert not passed_unseen(records, time.time())  # read once: no chain read after
    reads = list(chain.status_blocks)
    assert not record_passed(poster, journal, records)
    assert chain.status_blocks == reads and set(reads) == {50}
    assert key == done.key


def test_a_restart_and_a_second_server_read_the_time_recorded(tmp_path: Path) -> None:
    """The time is in the entry: a new index, or another server's, counts the same."""
    _, poster, journal, key = _old_journal(tmp_path, accepted=True)
    other = JournalIndex(journal.folder)  # another server on the folder, read before
    assert _counted(other.records(), time.time()) == PRICE
    record_passed(poster, journal, journal_records(journal.folder))
    at = _seen(journal, key)["at"]
    restarted = JournalIndex(journal.folder)
    for index in (other, restarted):
        (record,) = index.records()
        assert record.passed_seen_at == at
        assert _counted([record], at + 1) == PRICE
        assert _counted([record], at + WINDOW + 1) == 0


def test_a_second_server_does_not_record_it_again(tmp_path: Path) -> None:
    """Recorded by one server meanwhile: the other's stale records write nothing."""
    _, poster, journal, key = _old_journal(tmp_path, accepted=True)
    stale = journal_records(journal.folder)
    record_passed(poster, journal, stale)
    first = _seen(journal, key)
    assert not record_passed(poster, journal, stale)
    assert _seen(journal, key) == first


def test_a_released_request_counts_nothing(tmp_path: Path) -> None:
    """Refused and never settled (the nonce passed, the request absent): released, 0."""
    chain, poster, journal, _ = _old_journal(tmp_path, accepted=False)
    chain.statuses.clear()
    assert release_unsettleable(poster, journal, journal_records(journal.folder))
    records = journal_records(journal.folder)
    assert not passed_unseen(records, time.time())  # nothing left to date
    assert _counted(records, time.time() + WINDOW + 1) == 0


def test_an_accepted_request_seen_never_settled_counts_nothing(tmp_path: Path) -> None:
    """Accepted, its nonce passed without it: recorded unsettled, counted 0 once old."""
    chain, poster, journal, key = _old_journal(tmp_path, accepted=True)
    chain.statuses.clear()
    record_passed(poster, journal, journal_records(journal.folder))
    assert _seen(journal, key)["settled"] is False
    assert _counted(journal_records(journal.folder), time.time()) == 0


def test_a_request_whose_nonce_has_not_passed_is_not_dated(tmp_path: Path) -> None:
    """The nonce at it: outstanding, counted whatever its age, and nothing written."""
    chain, poster, journal, key = _old_journal(tmp_path, accepted=True)
    chain.nonces[50] = 3
    assert not record_passed(poster, journal, journal_records(journal.folder))
    loaded = journal.load(key)
    assert loaded is not None and PASSED_SEEN_KEY not in loaded.extra["offchain"]
    assert _counted(journal_records(journal.folder), time.time(), 3) == PRICE


def test_an_unreadable_chain_records_nothing_and_it_keeps_counting(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The RPC fails: nothing written, the request counts (the safe side), logged."""
    chain, poster, journal, _ = _old_journal(tmp_path, accepted=True)
    chain.fail = True
    with caplog.at_level(logging.WARNING, logger="mech_catalogue.mcp"):
        assert not record_passed(poster, journal, journal_records(journal.folder))
    assert "keep counting against --max-spend" in caplog.text
    assert _counted(journal_records(journal.folder), time.time() + 3 * WINDOW) == PRICE


def _with_seen(journal: Journal, key: str, seen: Any) -> None:
    loaded = journal.load(key)
    assert loaded is not None
    loaded.extra["offchain"][PASSED_SEEN_KEY] = seen
    journal.save(loaded)
    os.utime(journal.folder / f"{key}.json", (1000.0, 1000.0))


def test_a_time_already_written_is_counted_from(tmp_path: Path) -> None:
    """Written by an earlier run: counted within the window from it, no chain read."""
    chain, poster, journal, key = _old_journal(tmp_path, accepted=False)
    at = 5000.0
    _with_seen(
        journal, key, {"at": at, "block": 50, "market_nonce": 4, "settled": True}
    )
    records = journal_records(journal.folder)
    assert _counted(records, at + WINDOW - 1) == PRICE
    assert _counted(records, at + WINDOW + 1) == 0
    assert not record_passed(poster, journal, records)
    assert not chain.status_blocks


def test_a_time_from_the_future_counts_as_now_and_is_written_again(
    tmp_path: Path,
) -> None:
    """A forged time after now: counted now, then replaced by now (never for ever)."""
    _, poster, journal, key = _old_journal(tmp_path, accepted=True)
    forged = time.time() + 10**9
    _with_seen(
        journal, key, {"at": forged, "block": 50, "market_nonce": 4, "settled": False}
    )
    records = journal_records(journal.folder)
    assert _counted(records, time.time()) == PRICE  # not "never settled" either
    assert passed_unseen(records, time.time())
    record_passed(poster, journal, records)
    seen = _seen(journal, key)
    assert seen["at"] <= time.time() and seen["settled"] is True
    assert _counted(journal_records(journal.folder), seen["at"] + WINDOW + 1) == 0


@pytest.mark.parametrize(
    "seen", [{"at": "soon", "settled": True}, {"at": 5000.0}, [1], float("nan")]
)
def test_a_malformed_time_is_read_as_not_seen(tmp_path: Path, seen: Any) -> None:
    """Not the form this server writes: counted (the safe side) and written again."""
    _, poster, journal, key = _old_journal(tmp_path, accepted=True)
    _with_seen(journal, key, seen)
    records = journal_records(journal.folder)
    assert _counted(records, time.time()) == PRICE
    assert record_passed(poster, journal, records)
    assert isinstance(_seen(journal, key)["at"], float)


def test_a_delivered_entry_is_dated_by_its_last_write(tmp_path: Path) -> None:
    """Its answer was read: the settlement was seen by the write that says so."""
    _, _, journal, key = _old_journal(tmp_path, accepted=True)
    loaded = journal.load(key)
    assert loaded is not None
    loaded.status = CallStatus.DELIVERED
    journal.save(loaded)
    delivered_at = 7000.0
    os.utime(journal.folder / f"{key}.json", (delivered_at, delivered_at))
    records = journal_records(journal.folder)
    assert not passed_unseen(records, time.time())
    assert _counted(records, delivered_at + WINDOW - 1) == PRICE
    assert _counted(records, delivered_at + WINDOW + 1) == 0


def test_a_delivered_entry_written_in_the_future_is_dated_now(tmp_path: Path) -> None:
    """Its file's time later than now (a clock moved back): recorded at now, then ends."""
    _, poster, journal, key = _old_journal(tmp_path, accepted=True)
    loaded = journal.load(key)
    assert loaded is not None
    loaded.status = CallStatus.DELIVERED
    journal.save(loaded)
    later = time.time() + 10**9
    os.utime(journal.folder / f"{key}.json", (later, later))
    records = journal_records(journal.folder)
    assert passed_unseen(records, time.time())
    assert record_passed(poster, journal, records)
    seen = _seen(journal, key)
    assert seen["at"] <= time.time()
    assert _counted(journal_records(journal.folder), seen["at"] + WINDOW + 1) == 0
