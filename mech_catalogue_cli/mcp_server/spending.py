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
the cost of a payment does not grow with the journal. An entry changed by other means
than ``Journal.save`` (an editor) is seen at the next start of the server, or when the
changes file is truncated or replaced (then the folder is read again).
"""

import re
import time
from pathlib import Path
from typing import Dict, List, Optional

from mech_catalogue_core.model.payment import payment_terms

from .journal import CHANGES_FILE, entry_from_json
from .spend_cap import PaidRecord

#: journal entries read at most for the cap: far more than a window's calls; a folder
#: holding more stops paying under a cap, naming the folder (none is left out unsaid)
MAX_JOURNAL_ENTRIES = 100_000
#: most bytes of the changes file read at once (about 15,000 lines of 65 bytes)
_CHANGES_CHUNK = 1 << 20
_KEY = re.compile(r"[0-9a-f]{64}")


def read_record(path: Path) -> Optional[PaidRecord]:
    """Read one journal entry as a paid record (blocking file reads).

    :param path: ``<folder>/<key>.json``.
    :return: the record (its ``problem`` naming the file when it is not an entry this
        server wrote), or None when the file is gone.
    """
    try:
        written_at = path.stat().st_mtime
        entry = entry_from_json(path.read_text(encoding="utf-8"), path.stem)
    except FileNotFoundError:  # moved away meanwhile
        return None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return PaidRecord(
            "",
            0,
            path.stat().st_mtime if path.exists() else 0.0,
            f"journal entry {path} is not one this server wrote ({exc})",
            asset="",
        )
    # an off-chain request its mech refused counts too: the mech holds the signed
    # request and can still settle it on chain
    # dated by when it was paid; entries older than ``paid_at`` by their file's time
    return PaidRecord(
        entry.request_id,
        entry.price,
        entry.paid_at or written_at,
        asset=payment_terms(entry.payment_type).asset,
    )


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
        self._offset = -1  # bytes of the changes file consumed; -1: folder not read

    def _read_all(self) -> None:
        changes = self.folder / CHANGES_FILE
        # the changes file's size before the folder is read: what is appended while it
        # is read is read again after, which is harmless
        self._offset = changes.stat().st_size if changes.exists() else 0
        paths = sorted(self.folder.glob("*.json"))
        self._by_key = {}
        if len(paths) > MAX_JOURNAL_ENTRIES:
            # never a silent cut: call keys are hashes, so the entries left out could be
            # today's payments; the cap refuses to pay until old entries are moved away
            self._by_key[""] = PaidRecord(
                "",
                0,
                time.time(),
                f"the journal {self.folder} holds {len(paths)} entries, more than the "
                f"{MAX_JOURNAL_ENTRIES} the spending cap reads: move entries older than "
                "--spend-window to another folder",
                asset="",
            )
            return
        for path in paths:
            record = read_record(path)
            if record is not None:
                self._by_key[path.stem] = record

    def _written_since(self) -> Optional[List[str]]:
        """The keys appended to the changes file since the last look.

        :return: the keys (complete lines only), or None when the file shrank or went
            away (the folder must be read again).
        """
        changes = self.folder / CHANGES_FILE
        try:
            size = changes.stat().st_size
        except FileNotFoundError:
            return None if self._offset > 0 else []
        if size < self._offset:
            return None
        keys: List[str] = []
        with open(changes, "rb") as handle:
            while self._offset < size:
                handle.seek(self._offset)
                chunk = handle.read(min(_CHANGES_CHUNK, size - self._offset))
                complete = chunk.rfind(b"\n") + 1
                if complete == 0:  # a line still being written: next time
                    break
                keys.extend(chunk[:complete].decode("ascii", "replace").split())
                self._offset += complete
        return keys

    def records(self) -> List[PaidRecord]:
        """Bring the index up to date and return every record (blocking file reads).

        :return: one record per entry, as :func:`journal_records` would read them.
        """
        keys = None if self._offset < 0 else self._written_since()
        if keys is None:
            self._read_all()
        else:
            if not all(_KEY.fullmatch(key) for key in keys):
                # a torn line (a writer stopped mid-line) joins the next key: which
                # entries were written is unknown, so the folder is read again
                self._read_all()
                return list(self._by_key.values())
            for key in dict.fromkeys(keys):  # each key once, in order
                record = read_record(self.folder / f"{key}.json")
                if record is None:
                    self._by_key.pop(key, None)
                else:
                    self._by_key[key] = record
        return list(self._by_key.values())
