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

"""The compaction of the journal's list of writes (``calls/changes.log``).

The list grew by one line per journal write, for ever. It is now replaced, under the send
lock, by one line per entry when it holds many more lines than entries; a crash at any
step must leave a journal whose every payment ``--max-spend`` counts, for a server that
starts afresh and for one that had read the list before. The crashes are real: a child
process compacts the journal and dies (``os._exit``, no clean-up) at one step.
"""

import subprocess  # nosec B404: the test's own child process
import sys
from pathlib import Path
from typing import Dict, List

import pytest

from mech_catalogue_cli.mcp_server.journal import CHANGES_FILE, Journal, changes
from mech_catalogue_cli.mcp_server.spending import JournalIndex
from tests.test_mcp_spend_index import entry

ROOT = Path(__file__).resolve().parent.parent

#: the child: compact the journal of argv[1], dying at step argv[2]
CHILD = r"""
import os, sys
from pathlib import Path
from mech_catalogue_cli.mcp_server.journal import changes

folder, step = Path(sys.argv[1]), sys.argv[2]
real_fdopen, real_fsync, real_replace = os.fdopen, os.fsync, os.replace
fsyncs = []

class HalfWritten:
    def __init__(self, handle):
        self.handle = handle
    def __enter__(self):
        return self
    def __exit__(self, *args):
        return False
    def write(self, text):
        self.handle.write(text[: len(text) // 2])
        self.handle.flush()
        os._exit(9)

def opening(fd, *args, **kwargs):
    handle = real_fdopen(fd, *args, **kwargs)
    return HalfWritten(handle) if step == "write" else handle

def fsync(fd):
    fsyncs.append(fd)
    if (step == "fsync_file" and len(fsyncs) == 1) or step == "fsync_folder" and len(fsyncs) == 2:
        os._exit(9)
    real_fsync(fd)

def replace(src, dst):
    if step == "rename":
        os._exit(9)
    real_replace(src, dst)
    if step == "after_rename":
        os._exit(9)

os.fdopen = opening
changes.os.fsync = fsync
changes.os.replace = replace
changes.compact(folder)
"""

STEPS = ["write", "fsync_file", "rename", "after_rename", "fsync_folder", "none"]


def _spent(index: JournalIndex) -> Dict[str, int]:
    return {r.request_id: r.price for r in index.records()}


def _journal(tmp_path: Path, keys: int, rewrites: int) -> Journal:
    journal = Journal(tmp_path)
    for _ in range(rewrites):
        for number in range(keys):
            journal.save(entry(number, 10 + number))
    return journal


def _lines(journal: Journal) -> List[str]:
    return (journal.folder / CHANGES_FILE).read_text(encoding="ascii").split()


def test_a_short_list_or_one_as_long_as_its_entries_is_not_compacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below the minimum, or under the ratio: left alone; no list at all: nothing to do."""
    assert not changes.compaction_due(tmp_path)
    journal = _journal(tmp_path, 30, 1)
    index = JournalIndex(journal.folder)
    index.records()
    assert not index.compact_if_due()  # 30 lines: far under the minimum
    monkeypatch.setattr(changes, "COMPACT_MIN_LINES", 20)
    assert not index.compact_if_due()  # 30 lines for 30 entries: under the ratio
    assert len(_lines(journal)) == 30


def test_a_long_list_is_compacted_and_every_reader_counts_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compacted to one line per entry; readers before and after count every payment."""
    monkeypatch.setattr(changes, "COMPACT_MIN_LINES", 20)
    journal = _journal(tmp_path, 5, 10)  # 50 lines, 5 entries
    before = JournalIndex(journal.folder)
    expected = _spent(before)
    assert len(expected) == 5
    # another process's reader, not run through compaction, holding an offset
    other = JournalIndex(journal.folder)
    other.records()
    assert before.compact_if_due()
    assert sorted(_lines(journal)) == sorted(f"{n:064x}" for n in range(5))
    assert not (journal.folder / changes.COMPACT_TMP).exists()
    assert not before.compact_if_due()  # 5 lines now
    # a write after the compaction, seen by both readers and a fresh one
    journal.save(entry(7, 70))
    expected[f"0x{7:064x}"] = 70
    assert _spent(before) == expected
    assert _spent(other) == expected
    assert _spent(JournalIndex(journal.folder)) == expected


def test_an_append_to_the_replaced_list_is_still_counted(tmp_path: Path) -> None:
    """A writer whose append lands in the old list after the rename: its entry counts."""
    journal = _journal(tmp_path, 3, 2)
    reader = JournalIndex(journal.folder)
    reader.records()
    old_list = open(  # pylint: disable=consider-using-with
        journal.folder / CHANGES_FILE, "a", encoding="ascii"
    )
    changes.compact(journal.folder)
    journal.save(entry(9, 90))  # its own append goes to the new list ...
    # ... and a late writer that had opened the old list before the rename appends there
    late = entry(8, 80)
    (journal.folder / f"{late.key}.json").write_text(
        (journal.folder / f"{entry(9, 90).key}.json")
        .read_text(encoding="utf-8")
        .replace(f"{9:064x}", f"{8:064x}")
        .replace('"price": 90', '"price": 80'),
        encoding="utf-8",
    )
    old_list.write(f"{late.key}\n")
    old_list.close()
    spent = _spent(reader)
    assert spent[f"0x{8:064x}"] == 80 and spent[f"0x{9:064x}"] == 90
    assert len(spent) == 5


@pytest.mark.parametrize("step", STEPS)
def test_a_crash_at_any_step_of_compaction_leaves_every_payment_counted(
    tmp_path: Path, step: str
) -> None:
    """The child dies at ``step``: fresh and earlier readers count every payment."""
    journal = _journal(tmp_path, 6, 4)
    earlier = JournalIndex(journal.folder)
    expected = _spent(earlier)
    done = subprocess.run(  # nosec B603: this interpreter, this test's script
        [sys.executable, "-c", CHILD, str(journal.folder), step],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == (0 if step == "none" else 9), done.stderr[-2000:]
    assert _spent(JournalIndex(journal.folder)) == expected
    assert _spent(earlier) == expected
    # the journal goes on: a payment after the crash is counted by both
    journal.save(entry(11, 110))
    expected[f"0x{11:064x}"] = 110
    assert _spent(earlier) == expected
    assert _spent(JournalIndex(journal.folder)) == expected
    # and the next compaction completes over whatever was left
    changes.compact(journal.folder)
    assert not (journal.folder / changes.COMPACT_TMP).exists()
    assert sorted(_lines(journal)) == sorted(f"{n:064x}" for n in (*range(6), 11))
    assert _spent(earlier) == expected
    assert _spent(JournalIndex(journal.folder)) == expected


def test_a_reader_finds_the_list_replaced_even_when_it_grew_past_its_offset(
    tmp_path: Path,
) -> None:
    """Compacted, then written past the reader's offset: the writes before it still count.

    A reader keeping only a byte offset would read on from there in the new list and
    miss the entries written between the compaction and that offset.

    :param tmp_path: the state folder.
    """
    journal = _journal(tmp_path, 3, 2)  # 6 lines
    reader = JournalIndex(journal.folder)
    reader.records()
    changes.compact(journal.folder)  # 3 lines
    for number in range(20, 24):  # 7 lines: past the reader's 6
        journal.save(entry(number, number))
    spent = _spent(reader)
    assert all(spent[f"0x{n:064x}"] == n for n in range(20, 24))
    assert len(spent) == 7
