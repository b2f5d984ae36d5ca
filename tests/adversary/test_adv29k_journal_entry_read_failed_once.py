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

"""An entry whose one read failed stays "not one this server wrote" until a restart (adv29k).

Severity: MEDIUM. No payment is made wrongly by itself (the cap refuses, it fails
closed), but every paid call under ``--max-spend`` is refused until the server
restarts, and the refusal tells the person to "check the entry, then move it away":
the entry is a good one (a payment), and moving it away makes the cap forget that
payment and frees its nonce hold. Trigger: one transient ``OSError`` (``EMFILE``, out
of file descriptors; ``EIO``) reading the entry, which no attacker seen here causes at
will.

The adv29j fix made a failed *listing* leave the index unread, so the next look reads
again. A failed *entry read* is still counted as a read: ``spending.read_record``
turns any ``OSError`` from ``read_text`` into a record with a ``problem`` ("journal
entry ... is not one this server wrote"), ``JournalIndex._read_one`` keeps it and
``ChangesReader.since`` has already moved past the entry's line, so the entry is never
read again unless it is written again (``_read_all`` reads again only files whose
``(inode, mtime, size)`` changed, and this one did not).

Here the index has read an empty journal; a paid entry is saved; the next read of that
entry's file meets one ``OSError(EMFILE)`` (``Path.read_text`` wrapped to raise it
once for that file: it stands in for the process being out of descriptors); the read
after that must see the entry as it is.

Expected: the second ``records()`` returns the entry without a problem, counted by the
cap. Observed on main: the problem stays, and the cap refuses with "move it away".
"""

import errno
import time
from pathlib import Path
from typing import Any, Dict

import pytest

from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from mech_catalogue_cli.mcp_server.spending import JournalIndex
from tests.test_mcp_offchain_journal import OFFCHAIN
from tests.test_mcp_offchain_journal import entry as offchain_entry

PRICE = 5 * 10**15  # the price of tests.test_mcp_offchain_journal.entry


def test_an_entry_read_failing_once_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entry's read fails once; the next look reads it whole.

    :param tmp_path: the journal's folder.
    :param monkeypatch: wraps ``Path.read_text`` (one failure, entry files only).
    """
    journal = Journal(tmp_path)
    index = JournalIndex(journal.folder)
    assert not index.records()  # the first whole read: nothing yet
    paid = offchain_entry(dict(OFFCHAIN, accepted=True))
    paid.paid_at = time.time() - 60.0
    journal.save(paid)
    real_read_text = Path.read_text
    failures: Dict[str, Any] = {"left": 1}

    def read_text_once_failing(self: Path, *args: Any, **kwargs: Any) -> str:
        if failures["left"] and self.suffix == ".json":
            failures["left"] -= 1
            raise OSError(errno.EMFILE, "Too many open files")
        return real_read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", read_text_once_failing)
    index.records()  # the failing look
    assert not failures["left"], "the entry was not read"
    records = index.records()  # the next paid call's count
    ledger = SpendLedger(max_spend=2 * PRICE, window=3600.0)
    ledger.count_journal(records, time.time())
    refusal = ledger.refusal(PRICE)
    observed = f"problems {[r.problem for r in records]!r}; refusal {refusal!r}"
    # observed on main: problems ['journal entry .../<key>.json is not one this server
    # wrote ([Errno 24] Too many open files)']; refusal '... check the entry, then
    # move it away'
    assert [r.problem for r in records] == [""], observed
    assert ledger.earlier == PRICE, observed
    assert refusal is None, observed
