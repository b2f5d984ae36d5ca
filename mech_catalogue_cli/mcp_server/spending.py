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

"""What the call journal says was paid: the input of ``--max-spend`` across restarts.

Each entry of ``<state-dir>/calls/`` (``journal.Journal``) is a
:class:`.spend_cap.PaidRecord`: its request id, price in its asset's smallest unit, the
asset (native, OLAS, USDC) and when it was paid (``paid_at``, else when the file was
last written). An entry this server did
not write (``journal.entry_from_json`` refuses it) is a record with a problem, so the cap
refuses to pay rather than guess its price. The decision is
:meth:`.spend_cap.SpendLedger.count_journal`.

:class:`JournalIndex` keeps the records in memory: the whole folder is read once, then
only the entries named by the lines appended to ``journal.CHANGES_FILE`` since (every
``Journal.save``, by this or another server process on the same folder, appends one), so
the cost of a payment does not grow with the journal. When that list is replaced (its
compaction: :meth:`JournalIndex.compact_if_due`), truncated or torn, the folder is read
again, but only the entry files whose inode, time or size changed are parsed. An entry
changed by other means than ``Journal.save`` (an editor) is seen at the next start of
the server, or at such a folder read.
"""

import logging
import os
import re
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from filelock import Timeout
from mech_catalogue_core.model.payment import payment_terms
from mech_catalogue_core.model.vocabulary import CallStatus

from .auto_prepay import deposit_counted
from .journal import changes, entry_from_json
from .journal.changes import ChangesReader
from .mined_reverts import mined_reverts, never_paid, own_revert
from .outstanding import (
    acceptances_of,
    counted_price,
    current_passed,
    holds_of,
    passed_seen,
)
from .spend_cap import PaidRecord
from .unmined import mined_fate, never_signed, owner_of_entry, unmined_nonce
from .unsettled import settled_requests

#: journal entries read at most for the cap: far more than a window's calls; a folder
#: holding more stops paying under a cap, naming the folder (none is left out unsaid)
MAX_JOURNAL_ENTRIES = 100_000
LOGGER = logging.getLogger("mech_catalogue.mcp")
_KEY = re.compile(r"[0-9a-f]{64}")


def read_record(path: Path) -> Optional[PaidRecord]:
    """Read one journal entry as a paid record (blocking file reads).

    :param path: ``<folder>/<key>.json``.
    :return: the record (its ``problem`` naming the file when it is not an entry this
        server wrote), or None when the file is gone. An ``OSError`` reading it now
        (out of file descriptors, an I/O error) comes through: it is no fact about the
        entry, so never kept as one (adv29k: a good payment read once in that state
        stayed "not one this server wrote" until a restart); the caller reads it again
        at its next look.
    """
    try:
        written_at = path.stat().st_mtime
        entry = entry_from_json(path.read_text(encoding="utf-8"), path.stem)
    except FileNotFoundError:  # moved away meanwhile
        return None
    except (UnicodeDecodeError, ValueError) as exc:
        return PaidRecord(
            "",
            0,
            path.stat().st_mtime if path.exists() else 0.0,
            f"journal entry {path} is not one this server wrote ({exc})",
            asset="",
        )
    try:
        # a call's automatic deposit (--auto-prepay) counts, at least its price
        deposit = deposit_counted(entry.extra)
    except ValueError as exc:
        return PaidRecord("", 0, written_at, f"journal entry {path}: {exc}", asset="")
    # an off-chain call counts the highest price of its requests that may still be
    # settled (.outstanding.counted_price): refused ones too, the mech holds them
    # signed, until the chain shows they no longer can be (the current one's release,
    # ``offchain.release_unsettleable``, or ``passed``: then only a deposit counts)
    offchain = entry.extra.get("offchain")
    unaccepted = isinstance(offchain, dict) and offchain.get("accepted") is not True
    # when the server saw its nonce passed: the marketplace charged it by then
    seen_at, settled = passed_seen(entry, written_at)
    # its own request mined and reverted: counted until final (a reorg may mine it
    # paid), then nothing (adv29yp C1); nothing either once its nonce went to another
    # transaction, final (journalled by the process that saw it)
    revert = own_revert(entry)
    final = never_paid(entry)
    # an on-chain request: nothing before it is signed (an approval is no payment,
    # adv29zp C5), nothing once its nonce went to another transaction (final)
    fated, mined_at = mined_fate(entry)
    unpaid = final or never_signed(entry) or (fated and mined_at is None)
    # dated by when it was paid (mined, when the chain showed it later: adv29zp C4);
    # entries older than ``paid_at`` by their file's time
    return PaidRecord(
        entry.request_id,
        max(0 if unpaid else counted_price(entry), deposit),
        max(entry.paid_at or written_at, mined_at or 0.0),
        asset=payment_terms(entry.payment_type).asset,
        key=entry.key,
        unsettled_nonce=(
            entry.market_nonce
            if unaccepted
            and not current_passed(entry)
            and entry.status == CallStatus.PREPARED
            else -1
        ),
        holds=holds_of(entry),
        passed_seen_at=seen_at,
        passed_settled=settled,
        deposit=deposit,
        acceptances=acceptances_of(entry),
        settled=settled_requests(entry),
        reverted=tuple(mined_reverts(entry.extra)),
        reverted_in=((revert.block or 0) if revert is not None and not final else None),
        owner=owner_of_entry(entry),
        unmined_nonce=unmined_nonce(entry),
    )


def entry_names(folder: Path) -> List[str]:
    """The names of a journal folder's entries, unsorted (one listing, no ``stat``).

    :param folder: ``journal.Journal.folder``.
    :return: every ``*.json`` name not starting with a dot (what ``glob`` matches),
        about 0.15 s at 100,000 entries where ``sorted(glob)`` took 3 s.
    """
    with os.scandir(folder) as listing:
        return [
            item.name
            for item in listing
            if item.name.endswith(".json") and not item.name.startswith(".")
        ]


def journal_records(folder: Path) -> List[PaidRecord]:
    """Read the journal folder's entries as paid records, every file (blocking).

    :param folder: ``journal.Journal.folder``.
    :return: one record per ``*.json`` entry (at most :data:`MAX_JOURNAL_ENTRIES`, in
        name order); an unreadable one has its ``problem`` naming the file.
    """
    records = (
        read_record(path)
        for path in sorted(folder.glob("*.json"))[:MAX_JOURNAL_ENTRIES]
    )
    return [record for record in records if record is not None]


class JournalIndex:
    """The journal's paid records, re-reading only the entries written since last time."""

    def __init__(self, folder: Path) -> None:
        """Index a journal folder (nothing is read until :meth:`records`).

        :param folder: ``journal.Journal.folder``.
        """
        self.folder = folder
        self._by_key: Dict[str, PaidRecord] = {}
        # each record's file as it was read: (inode, mtime ns, size); a folder read
        # again reads only the files that differ (every save writes a new file)
        self._files: Dict[str, Tuple[int, int, int]] = {}
        self._changes = ChangesReader(folder)
        # held while the list is read or the folder listed: no save is half done then
        self._write_lock = changes.write_lock(folder)
        # one reader at a time in this process (a first read may run outside the send
        # lock, while a call holding it reads too)
        self._mutex = threading.Lock()
        # the refusal while the folder holds more than MAX_JOURNAL_ENTRIES entries
        self._over: Optional[PaidRecord] = None
        # what the last look that succeeded returned (replaced, never changed in place):
        # what tools/list shows while a reader holds the mutex
        self._last: List[PaidRecord] = []

    @property
    def has_read(self) -> bool:
        """Whether a whole read of the folder succeeded (later ones read only news).

        :return: False while the first read is under way, and after one that failed.
        """
        return self._changes.offset >= 0

    def prime(self) -> None:
        """Read the whole folder once, if not yet, *before* taking the send lock (blocking).

        The first read parses every entry (seconds at 10,000: docs/mcp.md); made here,
        other servers on the folder go on sending meanwhile, and the count under the
        send lock then reads only what was written since. Safe outside the send lock:
        the index's own reads hold the folder's write lock.
        """
        if not self.has_read:
            self.records()

    def _read_all(self) -> None:
        # the list's end before the folder is listed, no save half done (the write
        # lock): what is appended after is read again after, which is harmless. Kept
        # aside until the read is done: a read that fails (an OSError listing or
        # reading) leaves the index as it was, so the next look reads the folder again
        # (adv29j: marked read first, a failed listing left it empty and believed whole)
        read = ChangesReader(self.folder)
        with self._write_lock:
            read.start()
            names = entry_names(self.folder)
        if len(names) > MAX_JOURNAL_ENTRIES:
            # never a silent cut: call keys are hashes, so the entries left out could be
            # today's payments; the cap refuses to pay until old entries are moved away
            # (counted again at each look while it stands: names only, no entry read)
            self._over = PaidRecord(
                "",
                0,
                time.time(),
                f"the journal {self.folder} holds {len(names)} entries, more than "
                f"the {MAX_JOURNAL_ENTRIES} the spending cap reads: move entries "
                "older than --spend-window to another folder (no restart needed)",
                asset="",
            )
            self._changes = read
            return
        self._over = None
        paths = [self.folder / name for name in sorted(names)]
        by_key: Dict[str, PaidRecord] = {}
        files: Dict[str, Tuple[int, int, int]] = {}
        for path in paths:
            key = path.stem
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue  # moved away meanwhile
            seen = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
            if self._files.get(key) == seen and key in self._by_key:
                by_key[key] = self._by_key[key]
            else:
                record = read_record(path)
                if record is None:
                    continue
                by_key[key] = record
            files[key] = seen
        self._by_key, self._files = by_key, files
        self._changes = read

    def _read_one(self, key: str) -> None:
        path = self.folder / f"{key}.json"
        record = read_record(path)
        if record is None:
            self._by_key.pop(key, None)
            self._files.pop(key, None)
            return
        self._by_key[key] = record
        try:
            stat = path.stat()
            self._files[key] = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        except FileNotFoundError:
            self._files.pop(key, None)

    def records(self) -> List[PaidRecord]:
        """Bring the index up to date and return every record (blocking file reads).

        The first call reads every entry (about 0.4 ms each, see docs/mcp.md); later
        ones only those written since. While the folder holds more than
        :data:`MAX_JOURNAL_ENTRIES` entries, each call counts its names again, so moving
        entries away lifts the refusal without a restart. The folder's write lock not
        coming within ``changes.WRITE_LOCK_WAIT`` seconds gives a record with a problem
        (the cap refuses), never an exception.

        An ``OSError`` reading the folder (out of file descriptors, an I/O error) gives
        a record with a problem naming the folder too, and the index stays as it was:
        the next call reads again.

        :return: one record per entry, as :func:`journal_records` would read them; or a
            single record with a ``problem`` (over the limit, the lock not had, or the
            folder not read).
        """
        with self._mutex:
            try:
                self._update()
            except Timeout:
                return [
                    self._failed(
                        f"the journal {self.folder}'s write lock was held by another "
                        f"process for {changes.WRITE_LOCK_WAIT:g} s: call again"
                    )
                ]
            except OSError as exc:
                return [
                    self._failed(
                        f"the journal {self.folder} could not be read ({exc}): call "
                        "again once the server can read that folder"
                    )
                ]
            self._last = (
                [self._over] if self._over is not None else list(self._by_key.values())
            )
            return list(self._last)  # a copy: a caller may change it

    def _failed(self, problem: str) -> PaidRecord:
        LOGGER.warning("%s", problem)
        return PaidRecord("", 0, time.time(), problem, asset="")

    def records_read(self) -> List[PaidRecord]:
        """The records as the last look that succeeded returned them (no file read).

        For ``tools/list``, which never waits for a read (the first whole one takes
        seconds at 10,000 entries: docs/mcp.md) nor makes one: the entries written
        since are read by the next :meth:`records` (a paid call's count, or the first
        read at start). No lock is taken: the list is replaced, never changed.

        :return: a copy of the records (empty before a whole read succeeded).
        """
        return list(self._last)

    def _update(self) -> None:
        if self._over is not None:
            self._read_all()  # the refusal stands until the folder's names say otherwise
            return
        with self._write_lock:  # every line read is of an entry already in place
            news = self._changes.since()
        if news is None:
            # not read yet, or the list of writes was replaced (compacted), shrank or
            # went away: the folder is read again (only the files that changed)
            self._read_all()
        elif not all(_KEY.fullmatch(key) for key in news.keys):
            # a torn line (a writer stopped mid-line) joins the next key: which
            # entries were written is unknown, so the folder is read again
            self._read_all()
        else:
            # an OSError reading one comes through before the reader is moved: the
            # next look reads these keys again (reading an entry twice is harmless)
            for key in dict.fromkeys(news.keys):  # each key once, in order
                self._read_one(key)
            self._changes.consumed(news)
            if len(self._by_key) > MAX_JOURNAL_ENTRIES:
                self._read_all()  # grown past the limit: refused, as at a start

    def compact_if_due(self) -> bool:
        """Compact the journal's list of writes when it is due (blocking).

        Call it holding the journal's send lock (``journal.changes.compaction_due``:
        many more lines than entries; the entries as :meth:`records` last counted them,
        else listed). A failure
        to write the new list is logged and leaves the old one.

        :return: whether the list was compacted.
        """
        known = len(self._by_key) if self._changes.offset >= 0 else None
        if not changes.compaction_due(self.folder, known):
            return False
        try:
            with self._write_lock:  # no save half done while the folder is listed
                lines = changes.compact(self.folder)
        except OSError as exc:  # filelock.Timeout included
            LOGGER.warning(
                "the journal's list of writes in %s was not compacted: %s",
                self.folder,
                exc,
            )
            return False
        LOGGER.info(
            "the journal's list of writes in %s was compacted to %d lines",
            self.folder,
            lines,
        )
        return True
