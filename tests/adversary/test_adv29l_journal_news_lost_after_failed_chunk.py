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

"""A failure reading the list of writes past its first chunk loses that chunk (adv29l).

Severity: HIGH when it happens (adv29k's class: the cap no longer counts a payment,
so this process can pay ``--max-spend`` again, and the call's nonce hold is forgotten);
no attacker seen here causes it at will: it needs more than one chunk (1 MiB, about
16,000 lines) of news since the index last looked, as another server process on the
same folder writes, and one ``OSError`` (``EIO``) reading the list after its first chunk.

``ChangesReader.since`` reads the list of writes in chunks of ``changes._CHUNK`` bytes
and moves its ``offset`` past each chunk as it reads it, before it returns any key. An
``OSError`` reading a later chunk goes through ``JournalIndex._update`` (which resets the
reader only when reading an *entry* fails, adv29k) to ``records``: it returns "could not
be read: call again", but the reader's offset stays past the first chunk, whose keys
were never returned. The next look reads from there: the entries named only in the first
chunk are never read in this process.

Here the index has read an empty journal; paid entries ``33…`` and ``cd…`` are saved;
16,200 more lines are appended to the list naming ``cd…`` again (what its later saves
append, or another server's entries': the list is then more than one chunk, ``33…``
named only in the first). During the
next look the list's second chunk read raises ``OSError(EIO)`` once (the file object
``changes`` opens is wrapped: it stands in for a disk error).

Expected: the look after returns both entries, and the cap counts both payments.
Observed on main: only ``cd…``; ``33…``'s payment is not counted.
"""

from pathlib import Path
from typing import Any, Dict

import pytest

from mech_catalogue_cli.mcp_server.journal import Journal, changes
from mech_catalogue_cli.mcp_server.spending import JournalIndex
from tests.journal_doubles import (
    FailingReads,
    assert_both_counted,
    two_paid_entries,
)


def test_news_before_a_failed_chunk_are_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list's second chunk fails once; the next look still has both entries.

    :param tmp_path: the journal's folder.
    :param monkeypatch: wraps the list's file object (one failure).
    """
    journal = Journal(tmp_path)
    index = JournalIndex(journal.folder)
    assert not index.records()  # the first whole read: nothing yet
    first, second = two_paid_entries(journal)
    lines = (changes._CHUNK // (len(second.key) + 1)) + 100  # pylint: disable=W0212
    with open(journal.folder / changes.CHANGES_FILE, "a", encoding="ascii") as log:
        log.write(f"{second.key}\n" * lines)  # its saves again: past one chunk
    reads: Dict[str, int] = {"reads": 0}
    real_open = open

    def open_failing(path: Any, *args: Any, **kwargs: Any) -> Any:
        # returned: closed by the caller's with, through the wrapper
        handle = real_open(path, *args, **kwargs)  # pylint: disable=R1732
        if Path(path).name == changes.CHANGES_FILE and "b" in (args or ("",))[0]:
            return FailingReads(handle, reads, [2])
        return handle

    monkeypatch.setattr(changes, "open", open_failing, raising=False)
    failed = index.records()  # the failing look: says "call again"
    monkeypatch.setattr(changes, "open", real_open, raising=False)
    assert reads["reads"] >= 2, "the failure was not met"
    assert failed and failed[0].problem, failed  # it did say so
    # observed on main: then ['0xcdcd…']; counted 5000000000000000 wei
    assert_both_counted(index, failed, (first, second))
