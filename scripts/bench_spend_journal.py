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

"""Benchmark of ``--max-spend``'s journal read per payment: every file vs the index.

Not a test (performance is measured, not asserted). A journal of ``--entries`` entries
(default 10,000; native, OLAS and USDC in turn) is written in a temporary folder with
``journal.Journal``; then ``--payments`` payments are simulated, each journalling one new
entry (as a paid request does) and then counting the window for the next one:

- ``reread``: :func:`mech_catalogue_cli.mcp_server.spending.journal_records`, every
  entry read and checked before each payment (the server before the index);
- ``index``: :meth:`~mech_catalogue_cli.mcp_server.spending.JournalIndex.records`, the
  entries named in the changes file since the last payment (the first read, of the
  whole folder, is timed apart as ``index first read``).

Each is followed by the same ``SpendLedger.count_journal``. Printed: p50 and max wall
time per payment and the CPU time of the run (the machine may be shared), and the ratio
reread/index of the p50s, both from this one run.

Then, on the same journal (issue 29, journal29e):

- ``send lock held by the first count``: a server's first count read the whole folder
  under the send lock (``before``: a cold :meth:`JournalIndex.records`); it is now read
  before the lock (``sending.py``), and under it only what was written since, here one
  entry by another writer (``now``); ratio before/now;
- ``save``: ``--saves`` saves the way before journal29e (entry renamed into place, then
  its key appended, not flushed: re-enacted here as the baseline) against
  ``Journal.save`` now (key appended and flushed to disk, then the rename, both under
  the write lock), interleaved; p50 each and the ratio now/before.

Usage::

    python scripts/bench_spend_journal.py [--entries 10000] [--payments 20]
        [--saves 200] [--json]
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# pylint: disable=wrong-import-position
from mech_catalogue_cli.mcp_server.journal import (  # noqa: E402
    CHANGES_FILE,
    Journal,
    JournalEntry,
)
from mech_catalogue_cli.mcp_server.spend_cap import (  # noqa: E402
    PaidRecord,
    SpendLedger,
)
from mech_catalogue_cli.mcp_server.spending import (  # noqa: E402
    JournalIndex,
    journal_records,
)

TYPES = (
    "0xba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1",  # native
    "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9",  # OLAS
    "0x6406bb5f31a732f898e1ce9fdd988a80a808d36ab5d9a4a4805a8be8d197d5e3",  # USDC
)


def _entry(number: int) -> JournalEntry:
    return JournalEntry(
        key=f"{number:064x}",
        tool="prediction-online",
        mech="0x" + "11" * 20,
        price=10**15 + number,
        payment_type=TYPES[number % 3],
        cid="QmW2WQi7j6c7UgJTarActp7tDNikE4B2qXtFCfLPdsgaTQ",
        data="0x" + "cd" * 32,
        market_nonce=number,
        request_id=f"0x{number:064x}",
        from_block=5,
        tx_hash="0x" + "ef" * 32,
        status="delivered",
        response_cid="QmW2WQi7j6c7UgJTarActp7tDNikE4B2qXtFCfLPdsgaTQ",
        raw_tx="0x02f8" + "ab" * 120,
        account_nonce=number,
    )


def _payments(
    journal: Journal, first: int, count: int, read: Callable[[], List[PaidRecord]]
) -> List[float]:
    """Seconds of each payment's journal count, each after journalling one entry."""
    ledger = SpendLedger(max_spend=10**30, window=24 * 3600.0)
    seconds = []
    for number in range(first, first + count):
        journal.save(_entry(number))
        start = time.perf_counter()
        ledger.count_journal(read(), time.time())
        seconds.append(time.perf_counter() - start)
    return seconds


def _save_before(journal: Journal, entry: JournalEntry) -> None:
    """The baseline: a save as before journal29e (rename, then the key's line)."""
    fd, tmp = tempfile.mkstemp(dir=journal.folder, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(asdict(entry), handle, indent=1)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, journal.folder / f"{entry.key}.json")
    with open(journal.folder / CHANGES_FILE, "a", encoding="ascii") as changes:
        changes.write(f"{entry.key}\n")


def _lock_hold(journal: Journal, first: int) -> Dict[str, float]:
    """Seconds a server's first count holds the send lock, before and now."""
    cold = JournalIndex(journal.folder)
    start = time.perf_counter()
    cold.records()  # before: all of it under the send lock
    before = time.perf_counter() - start
    warm = JournalIndex(journal.folder)
    start = time.perf_counter()
    warm.records()  # now: before the send lock is taken
    primed = time.perf_counter() - start
    journal.save(_entry(first))  # another server's payment meanwhile
    start = time.perf_counter()
    warm.records()  # now: under the send lock
    now = time.perf_counter() - start
    return {"before": before, "primed": primed, "now": now, "ratio": before / now}


def _saves(journal: Journal, first: int, count: int) -> Dict[str, float]:
    """p50 seconds of a save before and now, interleaved."""
    before: List[float] = []
    now: List[float] = []
    for number in range(first, first + 2 * count, 2):
        start = time.perf_counter()
        _save_before(journal, _entry(number))
        before.append(time.perf_counter() - start)
        start = time.perf_counter()
        journal.save(_entry(number + 1))
        now.append(time.perf_counter() - start)
    p50_before, p50_now = statistics.median(before), statistics.median(now)
    return {"before": p50_before, "now": p50_now, "ratio": p50_now / p50_before}


def run(entries: int, payments: int, saves: int = 200) -> Dict[str, Any]:
    """Measure both ways on one journal.

    :param entries: journal entries written before the payments.
    :param payments: payments measured per way.
    :param saves: saves measured per way.
    :return: the figures (seconds).
    """
    with tempfile.TemporaryDirectory() as folder:
        journal = Journal(Path(folder))
        for number in range(entries):
            journal.save(_entry(number))
        cpu = time.process_time()
        reread = _payments(
            journal, entries, payments, lambda: journal_records(journal.folder)
        )
        reread_cpu = time.process_time() - cpu
        index = JournalIndex(journal.folder)
        start = time.perf_counter()
        index.records()
        first = time.perf_counter() - start
        cpu = time.process_time()
        indexed = _payments(journal, entries + payments, payments, index.records)
        index_cpu = time.process_time() - cpu
        lock_hold = _lock_hold(journal, entries + 2 * payments)
        save = _saves(journal, entries + 2 * payments + 1, saves)
    p50_reread, p50_index = statistics.median(reread), statistics.median(indexed)
    return {
        "entries": entries,
        "payments": payments,
        "reread": {"p50": p50_reread, "max": max(reread), "cpu": reread_cpu},
        "index": {"p50": p50_index, "max": max(indexed), "cpu": index_cpu},
        "index_first_read": first,
        "ratio_p50": p50_reread / p50_index,
        "send_lock_first_count": lock_hold,
        "save": save,
    }


def main() -> None:
    """Parse the options, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--payments", type=int, default=20)
    parser.add_argument("--saves", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    figures = run(options.entries, options.payments, options.saves)
    if options.json:
        print(json.dumps(figures, indent=1))
        return
    print(f"{figures['entries']} journal entries, {figures['payments']} payments each")
    for way in ("reread", "index"):
        one = figures[way]
        print(
            f"{way:7} p50 {one['p50'] * 1000:9.3f} ms  max {one['max'] * 1000:9.3f} ms"
            f"  cpu {one['cpu']:.3f} s"
        )
    print(f"index first read {figures['index_first_read'] * 1000:.1f} ms (once a run)")
    print(f"ratio reread/index (p50): {figures['ratio_p50']:.0f}x")
    hold = figures["send_lock_first_count"]
    print(
        f"send lock held by the first count: before {hold['before'] * 1000:.1f} ms,"
        f" now {hold['now'] * 1000:.3f} ms (read before the lock:"
        f" {hold['primed'] * 1000:.1f} ms); before/now {hold['ratio']:.0f}x"
    )
    save = figures["save"]
    print(
        f"save p50: before {save['before'] * 1000:.3f} ms, now"
        f" {save['now'] * 1000:.3f} ms; now/before {save['ratio']:.2f}x"
    )


if __name__ == "__main__":
    main()
