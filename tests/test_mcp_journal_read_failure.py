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


"""A journal read that fails, and tools/list during a read (adv29j), on real folders.

A whole read of the folder is the index's only until it succeeds: one that fails
(an ``OSError`` listing or reading) leaves the index unread, each paid call's read
tries again and says which folder it cannot read; ``tools/list``
(``JournalIndex.records_read``) never waits for a read another thread holds, nor
reads a file itself.
"""

import errno
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest
from filelock import FileLock

from mech_catalogue_cli.mcp_server import spending
from mech_catalogue_cli.mcp_server.journal import Journal, changes
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from mech_catalogue_cli.mcp_server.spending import JournalIndex
from tests.test_mcp_offchain_journal import OFFCHAIN
from tests.test_mcp_offchain_journal import entry as offchain_entry

PRICE = 5 * 10**15  # the price of tests.test_mcp_offchain_journal.entry


def _journal(folder: Path, keys: List[str]) -> Journal:
    journal = Journal(folder)
    for key in keys:
        paid = offchain_entry(dict(OFFCHAIN, accepted=True))
        paid.key, paid.paid_at = key, time.time() - 60.0
        paid.request_id = "0x" + key
        journal.save(paid)
    return journal


def _failing(
    monkeypatch: pytest.MonkeyPatch, name: str, times: int, error: int
) -> Dict[str, int]:
    """Make ``spending.<name>`` raise ``OSError(error)`` its first ``times`` calls."""
    real = getattr(spending, name)
    left = {"left": times}

    def failing(*args: Any) -> Any:
        if left["left"]:
            left["left"] -= 1
            raise OSError(error, "injected")
        return real(*args)

    monkeypatch.setattr(spending, name, failing)
    return left


@pytest.mark.parametrize("error", [errno.EMFILE, errno.EIO])
def test_a_failed_listing_leaves_the_index_unread_and_names_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: int
) -> None:
    """Two failed reads: each a problem naming the folder; the third counts the entry."""
    journal = _journal(tmp_path, ["aa" * 32])
    left = _failing(monkeypatch, "entry_names", 2, error)
    index = JournalIndex(journal.folder)
    for _ in range(2):
        records = index.records()
        assert len(records) == 1 and not index.has_read
        assert str(journal.folder) in records[0].problem
        assert "could not be read" in records[0].problem
        ledger = SpendLedger(max_spend=10 * PRICE, window=3600.0)
        ledger.count_journal(records, time.time())
        refusal = ledger.refusal(PRICE)
        assert refusal and str(journal.folder) in refusal
        assert "check the entry" not in refusal  # no entry to check: the folder
    assert not left["left"]
    records = index.records()
    assert index.has_read and [r.key for r in records] == ["aa" * 32]
    assert not records[0].problem


def test_a_read_failing_after_the_listing_keeps_the_index_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A re-read (the list of writes replaced) failing mid-way keeps the old records."""
    journal = _journal(tmp_path, ["aa" * 32])
    index = JournalIndex(journal.folder)
    assert [r.key for r in index.records()] == ["aa" * 32]
    _journal(tmp_path, ["bb" * 32])
    (journal.folder / changes.CHANGES_FILE).unlink()  # replaced: a whole read is due
    _failing(monkeypatch, "read_record", 1, errno.EMFILE)
    failed = index.records()
    assert len(failed) == 1 and "could not be read" in failed[0].problem
    assert index.has_read  # the earlier whole read stands; the next one is made again
    assert sorted(r.key for r in index.records()) == ["aa" * 32, "bb" * 32]


def test_records_read_is_empty_until_a_whole_read_succeeded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tools/list's view never starts the first read, nor shows a failed one as whole."""
    journal = _journal(tmp_path, ["aa" * 32])
    index = JournalIndex(journal.folder)
    assert not index.records_read() and not index.has_read
    _failing(monkeypatch, "entry_names", 1, errno.EMFILE)
    index.records()
    assert not index.records_read() and not index.has_read
    index.records()
    assert [r.key for r in index.records_read()] == ["aa" * 32]


def test_records_read_reads_no_file(tmp_path: Path) -> None:
    """Entries written since are left to the next records(); a listing reads nothing."""
    journal = _journal(tmp_path, ["aa" * 32])
    index = JournalIndex(journal.folder)
    index.records()
    _journal(tmp_path, ["bb" * 32])
    assert [r.key for r in index.records_read()] == ["aa" * 32]
    assert sorted(r.key for r in index.records()) == ["aa" * 32, "bb" * 32]
    assert sorted(r.key for r in index.records_read()) == ["aa" * 32, "bb" * 32]


def test_records_read_does_not_wait_for_the_write_lock(tmp_path: Path) -> None:
    """Another process's hold on the write lock: the records as read, at once."""
    journal = _journal(tmp_path, ["aa" * 32])
    index = JournalIndex(journal.folder)
    index.records()
    other = FileLock(journal.folder / changes.WRITE_LOCK)  # another holder's handle
    with other:
        held = index.records_read()
    assert [r.key for r in held] == ["aa" * 32]


def test_records_read_returns_the_last_look_while_a_reader_holds_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read under way (held at its first entry): the listing gets the last look."""
    journal = _journal(tmp_path, ["aa" * 32])
    index = JournalIndex(journal.folder)
    index.records()
    _journal(tmp_path, ["bb" * 32])
    reading, listed = threading.Event(), threading.Event()
    real = spending.read_record

    def held(path: Path) -> Any:
        if threading.current_thread().name == "reader":
            reading.set()
            listed.wait(30)  # a bound, never reached when the listing returns
        return real(path)

    monkeypatch.setattr(spending, "read_record", held)
    reader = threading.Thread(target=index.records, name="reader")
    reader.start()
    assert reading.wait(30)
    during = index.records_read()
    listed.set()
    reader.join(30)
    assert [r.key for r in during] == ["aa" * 32]
    assert sorted(r.key for r in index.records_read()) == ["aa" * 32, "bb" * 32]
    during.clear()  # a caller's copy: the index's own list is not changed
    assert len(index.records_read()) == 2
