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

"""A first journal read that fails is never made again: the cap forgets the window (adv29j).

Severity: HIGH when it happens (``--max-spend`` over ``--spend-window`` no longer
counts what earlier runs paid: a restart can pay the cap again), though no attacker
seen here can cause the failure at will (it needs an ``OSError`` listing the state
folder, e.g. ``EMFILE`` when the process is out of file descriptors, or ``EIO``).

``server.read_journal_in_background`` says: "A failure is logged, never raised: the
first paid call reads the journal again, and says why when it cannot". It does not:
``JournalIndex._read_all`` marks the index read (``ChangesReader.start``: ``offset``
from -1 to the list's size, so ``has_read`` is true) *before* it lists the folder
(``entry_names``). When that listing raises, the index keeps no record and believes it
read them all; every later ``records()`` reads only the entries written since
(``ChangesReader.since``), so the entries of earlier runs within the window are never
counted again in this process: ``SpendLedger.count_journal`` finds nothing and the
cap lets this run pay ``--max-spend`` once more.

Here a real journal holds one entry paid a minute ago (price P); the server's cap is
P (``--spend-window 1h``): a second payment must be refused. The first read (the
background read at start) meets one ``OSError`` from the folder listing
(``spending.entry_names`` wrapped to raise it once: it stands in for a transient
``EMFILE``); the next ``records()`` (the first paid call's) is then counted.

Expected: after a failed first read, the next ``records()`` reads the whole folder
again (the index is marked read only once the read succeeded), so the paid entry
counts and paying P more is refused.
"""

import errno
import threading
import time
from pathlib import Path
from typing import Any, Dict

import pytest

from mech_catalogue_cli.mcp_server import spending
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.server import read_journal_in_background
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from mech_catalogue_cli.mcp_server.spending import JournalIndex
from tests.test_mcp_offchain_journal import OFFCHAIN
from tests.test_mcp_offchain_journal import entry as offchain_entry

PRICE = 5 * 10**15  # the price of tests.test_mcp_offchain_journal.entry


def test_a_failed_first_read_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first read's listing fails once; the first paid call's count still sees P.

    :param tmp_path: the journal's folder.
    :param monkeypatch: wraps ``spending.entry_names`` (one failure).
    """
    journal = Journal(tmp_path)
    paid = offchain_entry(dict(OFFCHAIN, accepted=True))
    paid.paid_at = time.time() - 60.0
    journal.save(paid)
    real_names = spending.entry_names
    failures: Dict[str, Any] = {"left": 1}

    def names_once_failing(folder: Path) -> Any:
        if failures["left"]:
            failures["left"] -= 1
            raise OSError(errno.EMFILE, "Too many open files")
        return real_names(folder)

    monkeypatch.setattr(spending, "entry_names", names_once_failing)
    index = JournalIndex(journal.folder)
    read_journal_in_background(index)  # at start: the failure is logged
    for thread in threading.enumerate():
        if thread.name == "journal first read":
            thread.join(30)  # a bound, not a timing: the read is milliseconds
    assert not failures["left"], "the first read did not list the folder"
    records = index.records()  # the first paid call's count
    now = time.time()
    ledger = SpendLedger(max_spend=PRICE, window=3600.0)
    ledger.count_journal(records, now)
    refusal = ledger.refusal(PRICE)
    observed = (
        f"has_read {index.has_read}; records {len(records)}; counted "
        f"{ledger.earlier} wei; refusal {refusal!r}"
    )
    # observed on main: has_read True; records 0; counted 0 wei; refusal None
    assert [r.request_id for r in records] == [paid.request_id], observed
    assert refusal is not None, observed
