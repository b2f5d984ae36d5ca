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

"""The list of writes is consumed only once its keys were used (adv29l), on real files.

``ChangesReader.since`` never moves the reader; ``consumed`` does, after the caller
read every entry the keys name. Whatever fails on the way (opening the list, reading
its first or a later chunk, reading an entry it names), the next look returns every key
since the last complete use. The chunk is made 100 bytes here (lines are 65), so chunk
ends fall inside lines; a failing read is a wrapped file object standing in for a disk
error (``EIO``).
"""

import errno
import os
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from mech_catalogue_cli.mcp_server import spending
from mech_catalogue_cli.mcp_server.journal import Journal, changes
from mech_catalogue_cli.mcp_server.journal.changes import CHANGES_FILE, ChangesReader
from mech_catalogue_cli.mcp_server.spending import JournalIndex
from tests.journal_doubles import FailingReads
from tests.test_mcp_offchain_journal import OFFCHAIN
from tests.test_mcp_offchain_journal import entry as offchain_entry

CHUNK = 100  # bytes: a chunk ends inside the second line


def _keys(first: int, count: int) -> List[str]:
    return [f"{number:064x}" for number in range(first, first + count)]


def _write(folder: Path, keys: List[str], tail: str = "") -> None:
    with open(folder / CHANGES_FILE, "a", encoding="ascii") as log:
        log.write("".join(f"{key}\n" for key in keys) + tail)


@pytest.fixture(name="small_chunks")
def fixture_small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of :data:`CHUNK` bytes (the list is read in several)."""
    monkeypatch.setattr(changes, "_CHUNK", CHUNK)


def _failing_reads(
    monkeypatch: pytest.MonkeyPatch, failing: List[int]
) -> Dict[str, int]:
    count = {"reads": 0}
    real_open = open

    def open_failing(path: Any, *args: Any, **kwargs: Any) -> Any:
        # returned: closed by the caller's with, through the wrapper
        handle = real_open(path, *args, **kwargs)  # pylint: disable=R1732
        if Path(path).name == CHANGES_FILE:
            return FailingReads(handle, count, failing)
        return handle

    monkeypatch.setattr(changes, "open", open_failing, raising=False)
    return count


def _started(folder: Path) -> ChangesReader:
    reader = ChangesReader(folder)
    reader.start()
    return reader


def _used(reader: ChangesReader) -> Optional[List[str]]:
    news = reader.since()
    if news is None:
        return None
    reader.consumed(news)
    return news.keys


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize("failing", [1, 2, 3], ids=["first", "second", "third"])
def test_a_chunk_that_fails_leaves_the_reader_where_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: int
) -> None:
    """A read of the first, second or third chunk fails: the next look has every key.

    :param tmp_path: the journal folder.
    :param monkeypatch: the failing file object.
    :param failing: which read of the list fails.
    """
    reader = _started(tmp_path)
    keys = _keys(1, 5)
    _write(tmp_path, keys)
    count = _failing_reads(monkeypatch, [failing])
    with pytest.raises(OSError):
        reader.since()
    assert count["reads"] == failing
    assert reader.offset == 0
    assert _used(reader) == keys  # the read after: none lost, none doubled
    assert _used(reader) == []


@pytest.mark.usefixtures("small_chunks")
def test_a_failure_after_earlier_news_were_used_returns_only_what_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """News used, more appended, a later chunk fails: the next look has the later ones.

    :param tmp_path: the journal folder.
    :param monkeypatch: the failing file object.
    """
    reader = _started(tmp_path)
    _write(tmp_path, _keys(1, 2))
    assert _used(reader) == _keys(1, 2)
    used_up_to = reader.offset
    _write(tmp_path, _keys(3, 4))
    _failing_reads(monkeypatch, [2])
    with pytest.raises(OSError):
        reader.since()
    assert reader.offset == used_up_to
    assert _used(reader) == _keys(3, 4)


@pytest.mark.usefixtures("small_chunks")
def test_news_not_consumed_are_returned_again(tmp_path: Path) -> None:
    """The caller failed using the news (an entry unread): it gets them again.

    :param tmp_path: the journal folder.
    """
    reader = _started(tmp_path)
    _write(tmp_path, _keys(1, 3))
    news = reader.since()
    assert news is not None and news.keys == _keys(1, 3)
    _write(tmp_path, _keys(4, 1))
    assert _used(reader) == _keys(1, 4)


def test_opening_the_list_fails_then_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Out of file descriptors opening the list: raised, the next look has the keys.

    :param tmp_path: the journal folder.
    :param monkeypatch: the failing ``open``.
    """
    reader = _started(tmp_path)
    _write(tmp_path, _keys(1, 2))

    def no_descriptors(*_: Any, **__: Any) -> Any:
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(changes, "open", no_descriptors, raising=False)
    with pytest.raises(OSError):
        reader.since()
    monkeypatch.undo()
    assert _used(reader) == _keys(1, 2)


@pytest.mark.usefixtures("small_chunks")
def test_a_partial_line_at_a_chunk_end_and_at_the_end_of_the_list(
    tmp_path: Path,
) -> None:
    """Lines cut by chunk ends are read whole; the last, half written, once complete.

    :param tmp_path: the journal folder.
    """
    reader = _started(tmp_path)
    last = _keys(9, 1)[0]
    _write(tmp_path, _keys(1, 4), tail=last[:30])
    assert _used(reader) == _keys(1, 4)  # each line once, whatever the chunk ends
    assert reader.offset == 4 * changes.LINE_BYTES
    assert _used(reader) == []  # the half line waits
    with open(tmp_path / CHANGES_FILE, "a", encoding="ascii") as log:
        log.write(last[30:] + "\n")
    assert _used(reader) == [last]


@pytest.mark.usefixtures("small_chunks")
def test_a_chunk_without_a_line_end_reads_the_folder_again(tmp_path: Path) -> None:
    """A whole chunk with no line end is no list this server wrote: None, not a stall.

    :param tmp_path: the journal folder.
    """
    reader = _started(tmp_path)
    _write(tmp_path, [], tail="x" * (CHUNK + 10) + "\n")
    assert reader.since() is None
    assert reader.offset == 0  # unmoved: the caller reads the folder (start again)


def test_a_list_truncated_or_replaced_between_reads(tmp_path: Path) -> None:
    """Shorter, or another file (even longer): None, so the folder is read again.

    :param tmp_path: the journal folder.
    """
    _write(tmp_path, _keys(1, 3))
    reader = _started(tmp_path)
    path = tmp_path / CHANGES_FILE
    with open(path, "r+", encoding="ascii") as log:
        log.truncate(changes.LINE_BYTES)
    assert reader.since() is None

    reader = _started(tmp_path)
    replacement = tmp_path / "replacement"
    replacement.write_text("".join(f"{k}\n" for k in _keys(1, 6)), encoding="ascii")
    os.replace(replacement, path)
    assert reader.since() is None

    # replaced after the news were read but before they were used: the next look
    # still sees another file
    reader = _started(tmp_path)
    _write(tmp_path, _keys(7, 1))
    news = reader.since()
    assert news is not None and news.keys == _keys(7, 1)
    os.replace(path, tmp_path / "old")
    _write(tmp_path, _keys(1, 8))
    reader.consumed(news)
    assert reader.since() is None


def test_no_list_yet_then_one(tmp_path: Path) -> None:
    """Started with no list: nothing new; a list created later is read from its start.

    :param tmp_path: the journal folder.
    """
    reader = _started(tmp_path)
    assert _used(reader) == []
    _write(tmp_path, _keys(1, 2))
    assert _used(reader) == _keys(1, 2)
    (tmp_path / CHANGES_FILE).unlink()
    assert reader.since() is None  # it went away: the folder again


def test_an_entry_that_fails_to_read_is_read_at_the_next_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index: an entry named by the news fails once; the next look counts both.

    :param tmp_path: the state folder.
    :param monkeypatch: ``spending.read_record`` failing once.
    """
    journal = Journal(tmp_path)
    index = JournalIndex(journal.folder)
    assert not index.records()
    saved = []
    for byte in ("33", "cd"):
        paid = offchain_entry(dict(OFFCHAIN, accepted=True))
        paid.key, paid.request_id = byte * 32, "0x" + byte * 32
        paid.paid_at = time.time() - 60.0
        journal.save(paid)
        saved.append(paid.request_id)
    real = spending.read_record
    calls = {"n": 0}

    def failing_second(path: Path) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(errno.EIO, "Input/output error")
        return real(path)

    monkeypatch.setattr(spending, "read_record", failing_second)
    failed = index.records()
    assert len(failed) == 1 and "could not be read" in failed[0].problem
    assert sorted(record.request_id for record in index.records()) == saved
