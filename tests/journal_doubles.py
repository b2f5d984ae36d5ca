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

"""Journal test doubles: two paid entries, a list read that fails, the cap's count after.

Shared by the journal tests and the adversary reproductions (adv29k, adv29l) that make
one look at the journal fail and check that the next look still has every entry.
"""

import errno
import time
from typing import Any, Dict, List, Sequence, Tuple

from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.spend_cap import PaidRecord, SpendLedger
from mech_catalogue_cli.mcp_server.spending import JournalIndex
from tests.test_mcp_offchain_journal import OFFCHAIN
from tests.test_mcp_offchain_journal import entry as offchain_entry

PRICE = 5 * 10**15  # wei: the price of tests.test_mcp_offchain_journal.entry


class FailingReads:
    """A file object whose reads numbered in ``failing`` (from 1) raise ``EIO``."""

    def __init__(self, handle: Any, count: Dict[str, int], failing: List[int]) -> None:
        """Wrap ``handle``.

        :param handle: the real file object.
        :param count: ``{"reads": n}``, counted up by every read (shared with the test).
        :param failing: the read numbers that fail.
        """
        self._handle, self._count, self._failing = handle, count, failing

    def __enter__(self) -> "FailingReads":
        """Use as the file's context manager.

        :return: itself.
        """
        return self

    def __exit__(self, *exc: Any) -> None:
        """Close the real file."""
        self._handle.close()

    def fileno(self) -> int:
        """The real file's descriptor (for ``os.fstat``)."""
        return int(self._handle.fileno())

    def seek(self, offset: int) -> int:
        """Seek the real file."""
        return int(self._handle.seek(offset))

    def read(self, size: int) -> bytes:
        """Read the real file, unless this read is one that fails."""
        self._count["reads"] += 1
        if self._count["reads"] in self._failing:
            raise OSError(errno.EIO, "Input/output error")
        return bytes(self._handle.read(size))


def two_paid_entries(journal: Journal) -> Tuple[JournalEntry, JournalEntry]:
    """Save two accepted off-chain payments, 60 s and 30 s ago (keys 33… and cd…).

    :param journal: the journal.
    :return: the first and second entries saved.
    """
    first = offchain_entry(dict(OFFCHAIN, accepted=True))
    first.paid_at = time.time() - 60.0
    journal.save(first)
    second = offchain_entry(dict(OFFCHAIN, accepted=True))
    second.key, second.request_id = "cd" * 32, "0x" + "cd" * 32
    second.paid_at = time.time() - 30.0
    journal.save(second)
    return first, second


def assert_both_counted(
    index: JournalIndex, failed: Sequence[PaidRecord], entries: Sequence[JournalEntry]
) -> None:
    """The look after a failed one has every entry, and the cap counts every payment.

    :param index: the journal's index, after the failed look.
    :param failed: what the failed look returned.
    :param entries: the entries saved.
    """
    records = index.records()  # the next paid call's count
    ledger = SpendLedger(max_spend=3 * PRICE, window=3600.0)
    ledger.count_journal(records, time.time())
    observed = (
        f"failed look {[r.problem for r in failed]!r}; then "
        f"{sorted(r.request_id for r in records)}; counted {ledger.earlier} wei"
    )
    assert sorted(r.request_id for r in records) == sorted(
        e.request_id for e in entries
    ), observed
    assert ledger.earlier == len(entries) * PRICE, observed
