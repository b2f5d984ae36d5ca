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

"""A failure mid-way through reading the journal's news loses the entries after it (adv29k).

Severity: HIGH when it happens (the same class as adv29j's failed first read: the cap
no longer counts a payment, so this process can pay ``--max-spend`` again, and that
call's nonce hold is forgotten), though no attacker seen here causes it at will: it
needs one ``OSError`` other than "not found" from ``stat`` of an entry file (``EIO``).

``JournalIndex.records`` says an ``OSError`` reading the folder "leaves the index as it
was: the next call reads again". That holds for a whole read (adv29j fix) but not for
the news: ``_update`` takes the keys written since (``ChangesReader.since``, which moves
its offset past them), then reads them one by one (``_read_one``), whose
``path.stat()`` lets any ``OSError`` but ``FileNotFoundError`` through. ``records``
returns its "could not be read: call again" record, but the keys after the failing one
were consumed and are never read again in this process.

Here the index has read an empty journal; two paid entries are saved (keys ``ab…`` then
``cd…``); during the next look the entry ``ab…``'s second ``stat`` (in ``_read_one``)
raises ``OSError(EIO)`` once (``Path.stat`` wrapped: it stands in for a disk error).

Expected: the look after returns both entries, and the cap counts both payments.
Observed on main: only ``ab…``; ``cd…``'s payment is not counted.
"""

import errno
from pathlib import Path
from typing import Any, Dict

import pytest

from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.spending import JournalIndex
from tests.journal_doubles import assert_both_counted, two_paid_entries


def test_news_after_a_failed_stat_are_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first entry's stat fails once; the next look still has both entries.

    :param tmp_path: the journal's folder.
    :param monkeypatch: wraps ``Path.stat`` (one failure, on an entry file).
    """
    journal = Journal(tmp_path)
    index = JournalIndex(journal.folder)
    assert not index.records()  # the first whole read: nothing yet
    first, second = two_paid_entries(journal)
    real_stat = Path.stat
    stats: Dict[str, int] = {"entry": 0}

    def stat_failing_once(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self.suffix == ".json":
            stats["entry"] += 1
            if stats["entry"] == 2:  # read_record's stat, then _read_one's
                raise OSError(errno.EIO, "Input/output error")
        return real_stat(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", stat_failing_once)
    failed = index.records()  # the failing look: says "call again"
    monkeypatch.setattr(Path, "stat", real_stat)
    assert stats["entry"] >= 2, "the failure was not met"
    # observed on main: then ['0x3333…']; counted 5000000000000000 wei
    assert_both_counted(index, failed, (first, second))
