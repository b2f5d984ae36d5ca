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

"""The journal's index loses paid entries a cap must count (adversary adv29c).

No chain: real journal files in a temporary folder, as ``tests/test_mcp_spend_index.py``.

1. A torn line in ``calls/changes.log`` (a writer killed or out of disk space mid-write:
   ``write`` may write part of a line) glues itself to the next key written: the
   index reads ``<torn><key>``, not a call key, skips it, and never reads that entry.
   Every running server on the ``--state-dir`` then leaves the other process's payment
   out of ``--max-spend`` until it restarts.
2. Reading the folder (the first look, a restart, a rotated changes file) reads the first
   ``MAX_JOURNAL_ENTRIES`` entries in name order and silently drops the rest. Call keys
   are hashes, so which payments are dropped is arbitrary, recent ones included. The
   test lowers the constant to 3 (100,000 in the product) instead of writing 100,001
   files; the rule is the same.

Expected: a paid entry is always counted, or the cap refuses naming why (as an
unreadable entry does).
"""

from pathlib import Path

import pytest

from mech_catalogue_cli.mcp_server import spending
from mech_catalogue_cli.mcp_server.journal import CHANGES_FILE, Journal
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from mech_catalogue_cli.mcp_server.spending import JournalIndex
from tests.test_mcp_spend_index import entry

WINDOW = 3600.0


def _refusal(index: JournalIndex, price: int, cap: int) -> object:
    records = index.records()
    ledger = SpendLedger(max_spend=cap, window=WINDOW, asset="native")
    ledger.count_journal(records, max(r.written_at for r in records) + 1)
    return ledger.refusal(price)


def test_a_torn_line_in_the_changes_file_hides_the_next_payment(
    tmp_path: Path,
) -> None:
    """After a torn line, the next entry any process journals is still counted."""
    journal = Journal(tmp_path)
    journal.save(entry(1, price=10))
    index = JournalIndex(journal.folder)  # a running server's index
    assert len(index.records()) == 1
    with open(journal.folder / CHANGES_FILE, "a", encoding="ascii") as changes:
        changes.write(f"{7:064x}"[:20])  # a writer killed mid-line
    journal.save(entry(2, price=40))  # another server pays 40
    keys = {r.request_id for r in index.records()}
    # observed now: {0x...01}: entry 2 is never read, the cap counts 10 of 50 paid
    assert f"0x{2:064x}" in keys
    assert _refusal(index, price=1, cap=50) is not None


def test_a_journal_past_its_read_limit_drops_payments_silently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries past ``MAX_JOURNAL_ENTRIES`` are counted, or the cap refuses naming why."""
    monkeypatch.setattr(spending, "MAX_JOURNAL_ENTRIES", 3)
    journal = Journal(tmp_path)
    for number in (1, 2, 3):
        journal.save(entry(number, price=1))
    journal.save(entry(0xFF, price=40))  # the latest payment; its key sorts last
    index = JournalIndex(journal.folder)  # a restarted server
    # observed now: 3 records; 40 of 43 paid goes uncounted and a payment of 7 passes
    # a cap of 45 with no word said
    refusal = _refusal(index, price=7, cap=45)
    assert refusal is not None
