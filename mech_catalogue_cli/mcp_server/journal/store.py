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

"""The call journal's folder: one entry file per call key, written atomically.

``<state-dir>/calls/<call key>.json`` (:class:`Journal`), the send lock every server
process sending from the folder holds, and the correction of an entry's request id
from its transaction's receipt (:func:`correct_request_id`).
"""

import contextlib
import json
import logging
import os
from dataclasses import asdict
from pathlib import Path
from typing import Iterator, Optional

import anyio
from filelock import FileLock
from mech_catalogue_core.model.vocabulary import CallStatus

from ..market import MarketError, Marketplace
from ..whole_file import write_whole
from . import changes
from .changes import CHANGES_FILE
from .entry import JournalEntry, entry_from_json

LOGGER = logging.getLogger("mech_catalogue.mcp")


class JournalError(MarketError):
    """A journal entry that is not one this server wrote; the message names the file."""


class Journal:
    """Call records under a state folder (``<dir>/calls/<key>.json``), written atomically.

    Every write appends the entry's key to ``<dir>/calls/``:data:`CHANGES_FILE`
    (``O_APPEND``: lines of processes sharing the folder do not interleave) before the
    entry is put in place, which is what lets ``--max-spend`` count the journal without
    reading it all before each payment (:mod:`.changes`).
    """

    def __init__(self, state_dir: Path) -> None:
        """Use a folder (created when missing).

        :param state_dir: ``--state-dir``.
        """
        self.folder = Path(state_dir) / "calls"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.changes = self.folder / CHANGES_FILE
        self._write_lock = changes.write_lock(self.folder)

    def written(self) -> bool:
        """Whether a server wrote to this journal before: its list of writes or any entry.

        Servers before the list of writes (ac96838d, 2026-12-02) wrote entries only,
        so the list's absence does not say the journal is new (adv29p).

        :return: True when :data:`CHANGES_FILE` or a ``<key>.json`` entry is in the
            folder, or when the folder cannot be read (it may hold some).
        """
        if self.changes.exists():
            return True
        try:
            with os.scandir(self.folder) as found:
                return any(item.name.endswith(".json") for item in found)
        except OSError:
            return True

    def load(self, key: str) -> Optional[JournalEntry]:
        """Return a call's record, or None when there is none.

        :param key: the call key.
        :return: the entry.
        :raises JournalError: when the file is unreadable or not an entry this server
            wrote (:func:`entry_from_json`): the message names the file and what to do;
            nothing is paid for the call while it stays.
        """
        path = self.folder / f"{key}.json"
        if not path.exists():
            return None
        try:
            return entry_from_json(path.read_text(encoding="utf-8"), key)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise JournalError(
                f"the call journal entry {path} is not one this server wrote ({exc}); "
                "nothing was sent. Check it, then move it away: the call will then be "
                "looked up on chain and resumed, or paid when no request of it is found"
            ) from exc

    def send_lock(self, wait: float) -> FileLock:
        """The lock every server process sending from this state folder holds (not held).

        Held from reading a call's entry until its request is journalled and broadcast,
        and around the spending window's count: without it two processes on one
        ``--state-dir`` (two MCP clients each starting a server) each found no entry,
        both paid, and both passed ``--max-spend`` (an OS lock, ``filelock``).

        :param wait: seconds :meth:`FileLock.acquire` waits before ``filelock.Timeout``.
        :return: the lock, on ``<state-dir>/calls/.send.lock``.
        """
        return FileLock(self.folder / ".send.lock", timeout=wait, thread_local=False)

    def save(self, entry: JournalEntry) -> None:
        """Write a record: temporary file, fsync, its key logged, the rename, the folder.

        The key's line in :data:`CHANGES_FILE` is flushed to disk before the entry is
        put in place, both under the folder's write lock (``changes.write_lock``): a
        crash between them leaves a key without its entry (nothing of it was sent), and
        an append that fails raises ``OSError`` with nothing put in place, so no entry
        on disk is ever missing from the list the spending cap's index reads. The write
        lock's wait running out raises ``filelock.Timeout`` (an ``OSError``) the same way.
        The folder is flushed after the rename (``changes.fsync_folder``), so a saved
        entry survives a power loss; an error flushing it raises ``OSError`` (the entry
        is in place and its key logged: the caller sends nothing on it).

        An entry of a sent request without ``paid_at`` (written before that field) keeps
        its file's time as ``paid_at``, so rewriting it does not re-date the payment.

        :param entry: the entry.
        """
        path = self.folder / f"{entry.key}.json"
        if not entry.paid_at and entry.tx_hash:
            try:
                entry.paid_at = path.stat().st_mtime
            except FileNotFoundError:
                pass  # a new entry: dated by the file written now

        @contextlib.contextmanager
        def logged_under_the_write_lock() -> Iterator[None]:
            with self._write_lock:
                changes.append(self.folder, entry.key)  # logged before it is in place
                yield

        # the rename is a change of the folder: flushed, or a power loss may lose the
        # entry while its key line (flushed first) survives
        write_whole(
            path,
            json.dumps(asdict(entry), indent=1),
            sync_folder=True,
            placing=logged_under_the_write_lock,
        )


async def saved(journal: Journal, entry: JournalEntry) -> None:
    """:meth:`Journal.save` in a worker thread: its write lock may wait, never the loop.

    :param journal: the journal.
    :param entry: the entry.

    Its errors are :meth:`Journal.save`'s (``OSError``, ``filelock.Timeout`` among
    them), raised here.
    """
    await anyio.to_thread.run_sync(journal.save, entry)


async def loaded(journal: Journal, key: str) -> Optional[JournalEntry]:
    """:meth:`Journal.load` in a worker thread (a file read; never on the event loop).

    :param journal: the journal.
    :param key: the call key.
    :return: the entry, or None when none is journalled.

    A file that is not an entry this server wrote raises :class:`JournalError`.
    """
    return await anyio.to_thread.run_sync(journal.load, key)


async def recorded(journal: Journal, entry: JournalEntry) -> str:
    """Journal what a call only records (its request paid, its answer read), or say why not.

    Such a write is not needed for anything to be paid or not: a later call finds the
    request on chain from the entry as it was (never paying again). So a write lock
    held elsewhere past its wait, or a full disk, is logged and said, not raised: the
    paid answer is returned whatever.

    :param journal: the journal.
    :param entry: the entry.
    :return: "" when written, else the sentence saying it was not.
    """
    try:
        await saved(journal, entry)
    except OSError as exc:
        LOGGER.warning("journal entry %s could not be written: %s", entry.key, exc)
        return (
            f"the journal entry of this call could not be written ({type(exc).__name__}: "
            f"{str(exc)[:200]}); the answer is returned, and calling again reads the "
            "request from the chain (it is never paid again)"
        )
    return ""


def correct_request_id(
    market: Marketplace, journal: Journal, entry: JournalEntry
) -> bool:
    """Correct a journalled request id from its transaction's receipt (blocking).

    The id is derived before sending from ``mapNonces(requester)``; when another request
    of this account was mined in between, the marketplace gave this one the next id, and
    waiting for the derived one would never read the paid answer
    (:meth:`Marketplace.mined_request_id`).

    :param market: the marketplace.
    :param journal: the journal the entry is saved to when corrected.
    :param entry: a journal entry with its ``tx_hash``.
    :return: whether the id was corrected.
    """
    if not entry.tx_hash:
        return False
    mined = market.mined_request_id(entry.tx_hash, entry.data)
    if mined is None or mined == entry.request_id:
        return False
    LOGGER.warning(
        "request %s was mined as %s (another request of this account was mined between "
        "the nonce read and this one); the journal now names %s",
        entry.request_id,
        mined,
        mined,
    )
    entry.extra["derived_request_id"] = entry.request_id
    entry.request_id = mined
    if entry.status == CallStatus.PREPARED:
        entry.status = CallStatus.SENT
    journal.save(entry)
    return True
