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

"""The journal's list of writes (``<state-dir>/calls/changes.log``), and its compaction.

Every :meth:`.store.Journal.save` appends the entry's key, one line, flushed to disk
*before* the entry is renamed into place (:func:`append`), both under the folder's
write lock (:func:`write_lock`), so a reader (:class:`ChangesReader`, used by
``spending.JournalIndex``) re-reads only the entries written since it last looked, by
any server process sharing the folder, and never misses one:

- a writer killed between the line and the rename leaves a key without an entry (or
  with its previous version): the entry never written was never sent, and the reader
  finds no file (or the version it counted) for that key, which is harmless;
- an append that fails (a full disk) raises before the rename: nothing is saved, so
  nothing is sent;
- a reader looks at the list (and lists the folder) holding the write lock, so every
  line it reads is of a write whose rename is done (or whose writer died): it never
  reads a key while its entry is still on its way.

The list only ever grows, so it is compacted (:func:`compact`) when it holds many more
lines than the folder holds entries (:func:`compaction_due`): a new list of one line per
entry is written beside it, flushed to disk, and renamed over it (then the folder is
flushed too). The entries themselves are the journal: the list is an index of them. A
reader that finds the list replaced (another file: its inode changed, or it shrank)
reads the folder again, so whatever step a compaction stops at (a crash), every entry,
and so every payment, is still counted: before the rename the old list is whole, after
it the new one is, and a writer's append that lands in the old list after the rename is
seen by that folder read. A left-over temporary list (:data:`COMPACT_TMP`) is not an
entry (not ``*.json``) and is replaced by the next compaction.
"""

import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, List, Optional, Tuple

from filelock import FileLock

from ..whole_file import fsync_folder, write_whole

#: the journal's list of writes, in ``<dir>/calls/``: one line (a call key) per entry
#: written, appended (and flushed to disk) before the entry's rename
CHANGES_FILE = "changes.log"
#: the lock a save holds from its line to its rename, and a reader around its look
WRITE_LOCK = ".write.lock"
#: seconds a save or a reader waits for the write lock (each holder keeps it for one
#: line and one rename, or one listing of the folder) before ``filelock.Timeout``
WRITE_LOCK_WAIT = 30.0
#: the compacted list while it is written, renamed over :data:`CHANGES_FILE` when whole
COMPACT_TMP = "changes.log.compacting"
#: bytes of one line: a call key (64 hex) and its newline
LINE_BYTES = 65
#: compacted when it holds this many times more lines than there are entries ...
COMPACT_RATIO = 4
#: ... and at least this many lines (650 kB): below that re-reading it costs nothing
COMPACT_MIN_LINES = 10_000
#: most bytes of the list read at once (about 15,000 lines)
_CHUNK = 1 << 20


def write_lock(folder: Path) -> FileLock:
    """The folder's write lock (not held): a save's line and rename happen under it.

    A reader holds it while it reads the list (or lists the folder), so it never sees a
    line whose entry is not yet in place. Held for one line and one rename, or one
    listing: never while waiting for the chain or the send lock. An OS lock
    (``filelock``): a writer that dies releases it.

    :param folder: the journal folder.
    :return: the lock on ``<folder>/``:data:`WRITE_LOCK` (``acquire`` raises
        ``filelock.Timeout``, an ``OSError``, after :data:`WRITE_LOCK_WAIT` seconds).
    """
    return FileLock(folder / WRITE_LOCK, timeout=WRITE_LOCK_WAIT, thread_local=False)


def append(folder: Path, key: str) -> None:
    """Append one entry's key to the folder's list of writes, flushed to disk.

    One write of one short line in append mode: atomic against other writers (lines of
    processes sharing the folder do not interleave). Called holding :func:`write_lock`,
    before the entry is renamed into place; ``OSError`` (a full disk) is raised, so the
    entry is then not put in place. A list this append creates has its name flushed
    too (the folder: :func:`fsync_folder`), so the entry renamed next is never on disk
    while the list naming it is not.

    :param folder: the journal folder (``<state-dir>/calls``).
    :param key: the call key (64 hex).
    """
    path = folder / CHANGES_FILE
    created = not path.exists()
    with open(path, "a", encoding="ascii") as changes:
        changes.write(f"{key}\n")
        changes.flush()
        os.fsync(changes.fileno())
    if created:
        fsync_folder(folder)


def compaction_due(folder: Path, entries: Optional[int] = None) -> bool:
    """Whether the list of writes holds so many more lines than entries it is compacted.

    :param folder: the journal folder.
    :param entries: the entries the folder holds, as last counted (None: counted here,
        only when the list is long enough to matter).
    :return: True when it has at least :data:`COMPACT_MIN_LINES` lines and
        :data:`COMPACT_RATIO` times the entries.
    """
    try:
        lines = (folder / CHANGES_FILE).stat().st_size // LINE_BYTES
    except FileNotFoundError:
        return False
    if lines < COMPACT_MIN_LINES:
        return False
    if entries is None:
        entries = sum(1 for _ in folder.glob("*.json"))
    return lines >= COMPACT_RATIO * entries


def compact(folder: Path) -> int:
    """Replace the list of writes by one line per entry of the folder (blocking).

    Call it holding the journal's send lock (``Journal.send_lock``): one compaction at a
    time. Writes :data:`COMPACT_TMP`, flushes it, renames it over :data:`CHANGES_FILE`
    and flushes the folder; a stop at any step leaves a whole list (the old or the new),
    and readers read the folder again when they find it replaced.

    :param folder: the journal folder.
    :return: the lines of the new list (``OSError`` is raised when it cannot be written;
        the old list then stays).
    """
    keys = sorted(path.stem for path in folder.glob("*.json"))
    body = "".join(f"{key}\n" for key in keys)
    write_whole(folder / CHANGES_FILE, body, sync_folder=True, temporary=COMPACT_TMP)
    return len(keys)


@dataclass(frozen=True)
class News:
    """What :meth:`ChangesReader.since` read: keys, and where the list was read up to.

    :param keys: the lines read, in order (a torn line as read: the caller checks each
        is a key).
    :param offset: bytes of the list up to the end of the last complete line read.
    :param identity: ``(st_dev, st_ino)`` of the list read (None: there is none yet).
    """

    keys: List[str]
    offset: int
    identity: Optional[Tuple[int, int]]


@dataclass
class ChangesReader:
    """Reads the keys appended to a folder's list of writes since its caller last used them.

    Commit after success: :meth:`since` never moves the reader; the caller moves it
    (:meth:`consumed`) once it has read every entry the keys name. A failure at any
    point (reading the list, or an entry it names) leaves the reader where the last
    complete use ended, so the next look returns everything since (adversarial reviews
    adv29k and adv29l: a reader moved past keys not yet used lost their entries for
    the process, and the spending cap stopped counting those payments).

    :param folder: the journal folder.
    :param offset: bytes of the list consumed (-1: not read yet).
    :param identity: ``(st_dev, st_ino)`` of the list read (another file: replaced).
    """

    folder: Path
    offset: int = -1
    identity: Optional[Tuple[int, int]] = None

    def start(self) -> None:
        """Take the list as it is now as read (before the caller reads the whole folder).

        What is appended while the folder is read is read again after: harmless.
        """
        try:
            stat = (self.folder / CHANGES_FILE).stat()
        except FileNotFoundError:
            self.offset, self.identity = 0, None
            return
        self.offset, self.identity = stat.st_size, (stat.st_dev, stat.st_ino)

    def since(self) -> Optional[News]:
        """The keys appended since the last :meth:`consumed` (complete lines only).

        Reads the list (blocking) in chunks of at most ``_CHUNK`` bytes; the reader
        itself is not moved. An ``OSError`` reading it comes through.

        :return: the news (no keys: nothing new, or only a line still being written),
            or None when the folder must be read again: never read yet, the list went
            away, shrank, or was replaced by another file (a compaction), or a whole
            chunk holds no line end (not a list this server wrote).
        """
        if self.offset < 0:
            return None
        try:
            handle = open(self.folder / CHANGES_FILE, "rb")  # pylint: disable=R1732
        except FileNotFoundError:
            if self.offset > 0 or self.identity is not None:
                return None
            return News([], 0, None)
        with handle:
            stat = os.fstat(handle.fileno())
            identity = (stat.st_dev, stat.st_ino)
            replaced = self.identity is not None and identity != self.identity
            if replaced or stat.st_size < self.offset:
                return None
            return self._lines(handle, stat.st_size, identity)

    def _lines(
        self, handle: BinaryIO, size: int, identity: Tuple[int, int]
    ) -> Optional[News]:
        offset = self.offset
        keys: List[str] = []
        while offset < size:
            handle.seek(offset)
            chunk = handle.read(min(_CHUNK, size - offset))
            complete = chunk.rfind(b"\n") + 1
            if complete == 0:
                if len(chunk) == _CHUNK:
                    return None  # no line in a whole chunk: not read as keys
                break  # a line still being written (or the file cut): next time
            keys.extend(chunk[:complete].decode("ascii", "replace").split())
            offset += complete
        return News(keys, offset, identity)

    def consumed(self, news: News) -> None:
        """Move the reader past news the caller has used whole (no I/O).

        :param news: what :meth:`since` returned (not None).
        """
        self.offset, self.identity = news.offset, news.identity
