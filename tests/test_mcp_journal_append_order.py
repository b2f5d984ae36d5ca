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

"""A journal save logs its key before the entry is put in place (issue 29, journal29e).

The invariant: every entry on disk is counted by every running server's index (no
stale record, no missing one), whatever step a save stops at (a real crash: a child
process dies with ``os._exit`` at the step), whatever fails (the append, the rename),
with other processes writing at the same time, and with the list compacted after a
crash. The truth each index is held to is :func:`journal_records`, which reads every
file. No chain: real journal files in a temporary folder.
"""

import errno
import os
import subprocess  # nosec B404: the test's own child processes
import sys
import threading
from pathlib import Path
from typing import Any, Dict, List, Tuple

import anyio
import pytest
from filelock import FileLock, Timeout

from mech_catalogue_cli.mcp_server import spending
from mech_catalogue_cli.mcp_server.journal import CHANGES_FILE, Journal, changes, store
from mech_catalogue_cli.mcp_server.sending import RequestSender
from mech_catalogue_cli.mcp_server.settings import CallSettings, PhaseTimer
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from mech_catalogue_cli.mcp_server.spending import JournalIndex, journal_records
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_spend_index import entry

ROOT = Path(__file__).resolve().parent.parent

#: the child: save entry argv[2] at price argv[3] into state argv[1], dying at argv[4]
CHILD = r"""
import os, sys
from pathlib import Path
from mech_catalogue_cli.mcp_server.journal import Journal, changes, store
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_spend_index import entry

state, number, price, step = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
real_append, real_replace = changes.append, store.os.replace

def append(folder, key):
    if step == "before_append":
        os._exit(9)
    real_append(folder, key)
    if step == "after_append":
        os._exit(9)

def replace(src, dst):
    real_replace(src, dst)
    if step == "after_rename":  # the write lock still held: the OS releases it
        os._exit(9)

changes.append = append
store.os.replace = replace
Journal(state).save(entry(number, price))
"""

STEPS = ["before_append", "after_append", "after_rename", "none"]

#: the writer: save entries argv[2]..argv[3) into state argv[1], slow between its line
#: and its rename (what a reader without the write lock would fall into)
WRITER = r"""
import sys, time
from pathlib import Path
from mech_catalogue_cli.mcp_server.journal import Journal, changes
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_spend_index import entry

real_append = changes.append

def slow_append(folder, key):
    real_append(folder, key)
    time.sleep(0.005)

changes.append = slow_append
journal = Journal(Path(sys.argv[1]))
for number in range(int(sys.argv[2]), int(sys.argv[3])):
    journal.save(entry(number, number))
"""


def _spent(records: List[spending.PaidRecord]) -> Dict[str, int]:
    assert not [r.problem for r in records if r.problem]
    return {r.request_id: r.price for r in records}


def _truth(journal: Journal) -> Dict[str, int]:
    return _spent(journal_records(journal.folder))


def _child(script: str, *args: Any) -> subprocess.CompletedProcess:
    return subprocess.run(  # nosec B603: this interpreter, this test's script
        [sys.executable, "-c", script, *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _leftovers(journal: Journal) -> List[str]:
    return sorted(p.name for p in journal.folder.glob("*.tmp"))


@pytest.mark.parametrize("rewrite", [False, True], ids=["new", "rewrite"])
@pytest.mark.parametrize("step", STEPS)
def test_a_save_killed_at_any_step_leaves_every_entry_on_disk_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str, rewrite: bool
) -> None:
    """A child dies at ``step`` of a save (new entry, or a rewrite raising its price).

    The index read before and a fresh one count exactly what is on disk; the dead
    writer's write lock is released (the next save does not wait); a compaction then
    lists only entries in place.

    :param tmp_path: the state folder.
    :param monkeypatch: shortens the write lock's wait (a lock left held fails fast).
    :param step: where the child dies.
    :param rewrite: whether the entry existed (price 5) before the child's save.
    """
    monkeypatch.setattr(changes, "WRITE_LOCK_WAIT", 2.0)
    journal = Journal(tmp_path)
    journal.save(entry(1, 10))
    if rewrite:
        journal.save(entry(2, 5))
    running = JournalIndex(journal.folder)
    assert _spent(running.records()) == _truth(journal)
    done = _child(CHILD, tmp_path, 2, 40, step)
    assert done.returncode == (0 if step == "none" else 9), done.stderr[-2000:]
    on_disk = _truth(journal)
    placed = step in ("after_rename", "none")
    assert on_disk.get(f"0x{2:064x}") == (40 if placed else 5 if rewrite else None)
    assert _spent(running.records()) == on_disk
    assert _spent(JournalIndex(journal.folder).records()) == on_disk
    # the journal goes on at once: the dead writer's lock went with it
    journal.save(entry(3, 30))
    on_disk[f"0x{3:064x}"] = 30
    assert _spent(running.records()) == on_disk
    # a compaction after the crash lists what is in place; every reader agrees
    changes.compact(journal.folder)
    keys = (journal.folder / CHANGES_FILE).read_text(encoding="ascii").split()
    assert sorted(keys) == sorted(k[2:] for k in on_disk)
    assert _spent(running.records()) == on_disk
    assert _spent(JournalIndex(journal.folder).records()) == on_disk


def test_a_failing_append_puts_nothing_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ENOSPC`` on the line: the save raises, no entry, no temporary file left."""
    journal = Journal(tmp_path)
    journal.save(entry(1, 10))
    journal.save(entry(2, 5))
    running = JournalIndex(journal.folder)
    before = _spent(running.records())

    def full_disk(folder: Path, key: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(changes, "append", full_disk)
    with pytest.raises(OSError, match="No space"):
        journal.save(entry(3, 40))  # a new entry: nothing of it may be sent
    with pytest.raises(OSError, match="No space"):
        journal.save(entry(2, 40))  # a rewrite: the version counted stays
    monkeypatch.undo()
    assert not (journal.folder / f"{3:064x}.json").exists()
    assert _truth(journal) == before == _spent(running.records())
    assert not _leftovers(journal)
    journal.save(entry(3, 40))  # room again: saved and counted
    assert _spent(running.records())[f"0x{3:064x}"] == 40


def test_a_failing_rename_leaves_a_logged_key_without_an_entry_harmlessly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line is written, the rename fails: the save raises; readers count the rest."""
    journal = Journal(tmp_path)
    journal.save(entry(1, 10))
    running = JournalIndex(journal.folder)
    running.records()

    def no_rename(src: str, dst: str) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(store.os, "replace", no_rename)
    with pytest.raises(OSError, match="Input/output"):
        journal.save(entry(2, 40))
    monkeypatch.undo()
    lines = (journal.folder / CHANGES_FILE).read_text(encoding="ascii").split()
    assert lines[-1] == f"{2:064x}"  # logged, not in place
    assert not _leftovers(journal)
    assert _spent(running.records()) == _truth(journal) == {f"0x{1:064x}": 10}
    journal.save(entry(2, 40))  # the same key, saved later: counted
    assert _spent(running.records()) == _truth(journal)
    assert _truth(journal)[f"0x{2:064x}"] == 40


@pytest.mark.parametrize("compacting", [False, True], ids=["reading", "compacting"])
def test_concurrent_writers_and_a_reader_never_lose_an_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compacting: bool
) -> None:
    """Three processes write (slowly between line and rename) while an index reads.

    A reader that read a line before its entry was in place would drop that key and
    never read it again (its line is behind the offset): the index would end short.
    Compacting between looks (every time: the thresholds lowered), the list must end
    naming every entry on disk: a save's line and rename never straddle a compaction.

    :param tmp_path: the state folder.
    :param monkeypatch: lowers the compaction's thresholds.
    :param compacting: whether the reader compacts the list after each look.
    """
    monkeypatch.setattr(changes, "COMPACT_MIN_LINES", 1)
    monkeypatch.setattr(changes, "COMPACT_RATIO", 1)
    journal = Journal(tmp_path)
    running = JournalIndex(journal.folder)
    running.records()
    writers = [
        subprocess.Popen(  # pylint: disable=consider-using-with  # nosec B603
            [sys.executable, "-c", WRITER, str(tmp_path), str(s), str(s + 40)],
            cwd=ROOT,
            stderr=subprocess.PIPE,
        )
        for s in (100, 200, 300)
    ]
    looks = 0
    compactions = 0
    while any(w.poll() is None for w in writers) or looks == 0:
        running.records()  # reading while they write
        looks += 1
        if compacting:
            compactions += running.compact_if_due()
    for writer in writers:
        assert writer.wait() == 0, writer.stderr.read() if writer.stderr else ""
    on_disk = _truth(journal)
    assert len(on_disk) == 120
    assert _spent(running.records()) == on_disk
    assert _spent(JournalIndex(journal.folder).records()) == on_disk
    listed = set((journal.folder / CHANGES_FILE).read_text(encoding="ascii").split())
    assert {key[2:] for key in on_disk} <= listed
    assert looks > 1 and (compactions > 1 or not compacting)


def test_a_held_write_lock_refuses_and_does_not_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process stuck holding the write lock: the cap refuses, a save raises.

    Nothing is put in place; once the lock is released both go on.

    :param tmp_path: the state folder.
    :param monkeypatch: shortens the write lock's wait.
    """
    monkeypatch.setattr(changes, "WRITE_LOCK_WAIT", 0.2)
    journal = Journal(tmp_path)
    journal.save(entry(1, 10))
    running = JournalIndex(journal.folder)
    running.records()
    journal.save(entry(2, 20))  # news for the running index
    stuck = FileLock(journal.folder / changes.WRITE_LOCK, thread_local=False)
    with stuck:
        problems = [r.problem for r in running.records()]
        assert len(problems) == 1 and "write lock" in problems[0], problems
        with pytest.raises(Timeout):
            journal.save(entry(3, 30))
    assert not (journal.folder / f"{3:064x}.json").exists() and not _leftovers(journal)
    assert (
        _spent(running.records())
        == _truth(journal)
        == {
            f"0x{1:064x}": 10,
            f"0x{2:064x}": 20,
        }
    )


def test_over_the_limit_the_refusal_lifts_when_entries_are_moved_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Moved away while the server runs: payments go on; over again: refused again.

    While refused, a look counts names only (no entry is parsed).

    :param tmp_path: the state folder.
    :param monkeypatch: lowers the limit to 3 and counts the entries parsed.
    """
    monkeypatch.setattr(spending, "MAX_JOURNAL_ENTRIES", 3)
    journal = Journal(tmp_path)
    for number in range(1, 6):
        journal.save(entry(number, number))
    running = JournalIndex(journal.folder)
    parsed: List[Path] = []
    real_read = spending.read_record

    def counting(path: Path) -> Any:
        parsed.append(path)
        return real_read(path)

    monkeypatch.setattr(spending, "read_record", counting)
    for _ in range(3):
        problems = [r.problem for r in running.records()]
        assert len(problems) == 1 and "holds 5 entries" in problems[0], problems
        assert "no restart needed" in problems[0]
    assert not parsed
    old = tmp_path / "old"
    old.mkdir()
    for number in (1, 2, 3):
        os.replace(journal.folder / f"{number:064x}.json", old / f"{number:064x}.json")
    assert _spent(running.records()) == {f"0x{4:064x}": 4, f"0x{5:064x}": 5}
    journal.save(entry(6, 6))  # 3 entries: still within
    assert len(_spent(running.records())) == 3
    journal.save(entry(7, 7))  # 4: over again
    problems = [r.problem for r in running.records()]
    assert len(problems) == 1 and "holds 4 entries" in problems[0], problems


def test_a_first_read_in_one_thread_and_a_look_in_another_agree(
    tmp_path: Path,
) -> None:
    """The first read (``prime``) may run outside the send lock while calls read too.

    :param tmp_path: the state folder.
    """
    journal = Journal(tmp_path)
    for number in range(60):
        journal.save(entry(number, number))
    index = JournalIndex(journal.folder)
    results: List[Tuple[int, Dict[str, int]]] = []

    def look() -> None:
        results.append((0, _spent(index.records())))

    threads = [threading.Thread(target=index.prime)]
    threads += [threading.Thread(target=look) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert index.has_read
    assert all(spent == _truth(journal) for _, spent in results)
    assert len(results) == 4


@pytest.mark.parametrize("cap", [100, None], ids=["capped", "uncapped"])
def test_a_server_reads_the_journal_before_it_waits_for_the_send_lock(
    tmp_path: Path, cap: Any
) -> None:
    """Another server holds the send lock: a capped server's first read is done anyway.

    The marketplace is never reached (nothing is sent without the lock): a stand-in.

    :param tmp_path: the state folder.
    :param cap: ``--max-spend`` (None: no cap, so the journal is not read at all).
    """
    journal = Journal(tmp_path)
    for number in range(20):
        journal.save(entry(number, number))
    settings = CallSettings("g", "a", io_timeout=0.05, max_spend=cap)
    ledger = SpendLedger(max_spend=cap, window=3600.0)
    sender = RequestSender(object(), journal, settings, ledger)  # type: ignore[arg-type]
    no_tool: Any = None  # not reached: nothing is sent without the lock
    payload: Dict[str, Any] = {}
    other = journal.send_lock(5.0)  # another server sending
    with other:
        said = anyio.run(
            sender.ensure_sent,
            no_tool,
            offer("0x" + "0a" * 20, 1),
            payload,
            f"{99:064x}",
            PhaseTimer(),
        )
    assert "held its lock" in str(said)
    assert sender.index is not None and sender.index.has_read == (cap is not None)
