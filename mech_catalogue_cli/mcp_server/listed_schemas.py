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

"""The output schemas each MCP session was last served in ``tools/list`` (adv29j).

The MCP SDK's client (``mcp.client.session.ClientSession``, mcp 2.3) validates a
non-error result's ``structuredContent`` against the ``outputSchema`` it cached, per
tool name, at its last ``tools/list`` (pages only add; a complete, one-page listing
drops the names it lacks; a name it never listed makes it list again), and nothing in
the SDK lists again on ``notifications/tools/list_changed``. A manifest changed between
a client's listing and its call would have its paid answer refused. So the server
remembers, per session, what it listed, and an answer is structured only when every
schema the client may hold accepts it (:meth:`ListedSchemas.held`).

A session is the SDK's connection: a handshake-era connection (stdio or HTTP with a
session id), or a 2026-07-28 stdio stream (its notification channel, the one object
its requests share). A 2026-07-28 HTTP request carries no identity: those clients
share one record that keeps the last :data:`ANONYMOUS_VERSIONS` schemas served for
each name. Such a client is not restarted with the server (it has no session to lose),
so that record is kept in the state folder across restarts (:mod:`.listed_file`,
adv29l). A name it has no record of is "never listed" while the record is complete
(kept since the state folder's first use), else "unknown" (a client may have listed it
before the record was lost: an unusable file, a file missing from a state folder used
before, a write that failed, an overflowed or dropped name forgotten past a bound). A
folder is used before when it holds the record's mark (:data:`.listed_file.BEGAN_NAME`,
made at every start) or its journal was written (any entry); a failed write removes
the file (or, when it cannot, marks it :data:`.listed_file.STALE_NAME`), and when
neither can be done the listing is served without output schemas (adv29p): its client
then checks no answer against one. A name whose schemas the
file dropped past its bytes (the heaviest names first: adv29m) or names bound is
unknown until it is listed again with each schema dropped (an unchanged tool: its next
listing). Sessions are held weakly (a closed connection is
forgotten); each keeps at most :data:`MAX_NAMES` names; a schema is stored once, by
digest, as long as a session holds it.
"""

import logging
import threading
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Any, Dict, Iterable, Mapping, NamedTuple, Optional, Tuple

from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .listed_file import (
    BEGAN_NAME,
    FILE_NAME,
    STALE_NAME,
    ListedFileError,
    Memory,
    make_mark,
    present,
    read_memory,
    schema_digest,
    write_memory,
)

LOGGER = logging.getLogger("mech_catalogue.mcp")

#: most tool names remembered per session (a listing's names; the catalogue is capped
#: far below this); past it the oldest is forgotten and such a name is "unknown"
MAX_NAMES = 4096
#: schemas remembered per tool name for the requests that carry no session
ANONYMOUS_VERSIONS = 4


class Schema:
    """One served ``outputSchema`` (None: the tool was listed without one)."""

    __slots__ = ("value", "digest", "__weakref__")

    def __init__(self, value: Optional[Mapping[str, Any]], digest: str) -> None:
        """Keep the schema and its digest.

        :param value: the schema as served, or None.
        :param digest: :func:`schema_digest` of it.
        """
        self.value = value
        self.digest = digest


class Held(NamedTuple):
    """What a session's client may validate a tool's answer against."""

    #: the schemas it may have cached for the name (None values: listed without one)
    schemas: Tuple[Optional[Mapping[str, Any]], ...]
    #: True when the server cannot tell (a session past :data:`MAX_NAMES`; for
    #: sessionless requests, more than :data:`ANONYMOUS_VERSIONS` versions served, or
    #: no record of the name in a record that is not complete)
    unknown: bool


#: a session that never listed the name: its client lists when it validates
NEVER_LISTED = Held((), False)


class _Session:
    """One session's names -> the schemas it may hold (oldest name first)."""

    def __init__(self, versions: int) -> None:
        self.versions = versions
        self.names: "OrderedDict[str, Tuple[Schema, ...]]" = OrderedDict()
        self.forgot = False  # a name was dropped past MAX_NAMES
        self.overflowed: Dict[str, None] = {}  # names past `versions` (anonymous)
        # names whose schemas were dropped past a bound -> those digests (anonymous)
        self.dropped: Dict[str, Tuple[str, ...]] = {}


class _Anonymous:
    """The key of every request that carries no session (2026-07-28 HTTP)."""


ANONYMOUS = _Anonymous()


def session_key(session: Any) -> Any:
    """The object that stands for a request's MCP session, or None without one.

    :param session: ``ctx.session`` (the SDK's per-request ``ServerSession``), or None.
    :return: the connection (handshake era), the stream's notification channel
        (2026-07-28 stdio), :data:`ANONYMOUS` (2026-07-28 HTTP), or None.
    """
    # the SDK's ServerSession exposes no public accessor for its connection
    connection = getattr(session, "_connection", None)
    if connection is None:
        return None
    if getattr(connection, "protocol_version", None) not in MODERN_PROTOCOL_VERSIONS:
        return connection
    if getattr(connection, "has_standalone_channel", False):
        return connection.outbound  # one per stdio stream: every request's connection
    return ANONYMOUS


def without_output_schema(tool: Mapping[str, Any]) -> Dict[str, Any]:
    """The MCP Tool as listed when what its client caches cannot be kept (adv29p).

    The SDK's client checks no result of a tool it cached without ``outputSchema``, so
    no restart can make it refuse a paid answer; the answers to it stay structured
    where the schema accepts them.

    :param tool: an MCP Tool (JSON object).
    :return: a copy without ``outputSchema``.
    """
    return {key: value for key, value in tool.items() if key != "outputSchema"}


class ListedSchemas:
    """Per session, the output schema this server last listed for each tool name."""

    def __init__(
        self, folder: Optional[Path] = None, used_before: bool = False
    ) -> None:
        """Start with no session; read the sessionless record kept in ``folder``.

        A file that is unreadable, oversized or malformed, or missing from a folder
        used before (``used_before``, or the folder holds :data:`BEGAN_NAME`), is said
        once in the log and the record starts empty and not complete: every name is
        then unknown to sessionless requests until they list it. Missing from a new
        folder (a first start), the record starts empty and complete (said at info
        level). Either way the file is written at once, and :data:`BEGAN_NAME` made,
        so the next start knows a record was kept.

        :param folder: the state folder (None: the record lives in memory only).
        :param used_before: True when the folder holds earlier state (the journal was
            written: :meth:`.Journal.written`): a missing file was then lost, or never
            written by an older version.
        """
        self._sessions: "weakref.WeakKeyDictionary[Any, _Session]" = (
            weakref.WeakKeyDictionary()
        )
        self._store: "weakref.WeakValueDictionary[str, Schema]" = (
            weakref.WeakValueDictionary()
        )
        self.folder = folder
        self._anonymous = _Session(ANONYMOUS_VERSIONS)  # every sessionless request
        self._writing = threading.Lock()  # one save at a time per server
        self._write_failed = False  # said once in the log
        self._began = False  # BEGAN_NAME is on disk
        # names written as dropped when the file was found lost, until listed again
        self._dropped_on_disk: Dict[str, None] = {}
        self._listing: Tuple[str, ...] = ()  # the last sessionless page remembered
        #: False while a restart could read a name served to sessionless clients as
        #: never listed: the last write failed and no mark says so (:meth:`save`)
        self.durable = True
        if folder is not None:
            self._read(folder, used_before)

    def _read(self, folder: Path, used_before: bool) -> None:
        try:
            memory = read_memory(folder, ANONYMOUS_VERSIONS, MAX_NAMES)
        except ListedFileError as exc:
            first = not (
                used_before
                or present(folder, BEGAN_NAME)
                or present(folder, FILE_NAME)  # there, but unusable
                or present(folder, STALE_NAME)
            )
            self._anonymous.forgot = not first
            if first:
                LOGGER.info("no sessionless client was listed yet (%s)", exc)
            else:
                LOGGER.warning(
                    "the output schemas served to sessionless clients are not known "
                    "(%s): a tool's answer to them is text until they list the tools "
                    "again",
                    exc,
                )
            self.save(self.snapshot(), first_start=first)
            return
        record = self._anonymous
        record.forgot = not memory.complete
        for name, digests in memory.names:
            record.names[name] = tuple(self._stored(memory.schemas[d]) for d in digests)
        record.overflowed = dict.fromkeys(memory.overflowed)
        record.dropped = dict(memory.dropped)
        self._mark_began()

    def _mark_began(self) -> None:
        """Make :data:`BEGAN_NAME` once (a failure is tried again at the next save)."""
        if self._began or self.folder is None:
            return
        try:
            make_mark(self.folder, BEGAN_NAME)
            self._began = True
        except OSError as exc:
            LOGGER.warning(
                "the state folder %s cannot be marked as keeping the output schemas "
                "served to sessionless clients (%s)",
                self.folder,
                exc,
            )

    def _record(self, key: Any) -> Optional[_Session]:
        if key is ANONYMOUS:
            return self._anonymous
        return None if key is None else self._sessions.get(key)

    def _stored(self, value: Optional[Mapping[str, Any]]) -> Schema:
        digest = schema_digest(value)
        schema = self._store.get(digest)
        if schema is None:
            schema = Schema(value, digest)
            self._store[digest] = schema
        return schema

    def remember(
        self, session: Any, tools: Iterable[Mapping[str, Any]], complete: bool
    ) -> bool:
        """Record one ``tools/list`` page as the session's client absorbs it.

        :param session: ``ctx.session`` (None: nothing is recorded).
        :param tools: the page's MCP Tools (``name``, ``outputSchema``).
        :param complete: True for a listing of one page (no cursor asked, none
            returned): the client then forgets every name it lacks.
        :return: True when the sessionless record changed, or its file must change
            (a name written as dropped after a loss is listed again), or it is not
            :attr:`durable`: :meth:`save` it (:meth:`snapshot`) before the listing is
            answered.
        """
        key = session_key(session)
        if key is None:
            return False
        record = self._record(key) or self._sessions.setdefault(key, _Session(1))
        before = (
            dict(record.names),
            len(record.overflowed),
            record.forgot,
            dict(record.dropped),
        )
        page = [(str(t["name"]), self._stored(t.get("outputSchema"))) for t in tools]
        relisted = key is ANONYMOUS and self._listed_now(name for name, _ in page)
        if complete and key is not ANONYMOUS:
            record.names.clear()
            record.forgot = False
        for name, schema in page:
            kept = tuple(s for s in record.names.pop(name, ()) if s is not schema)
            kept += (schema,)
            if len(kept) > record.versions:
                if key is ANONYMOUS:
                    record.overflowed[name] = None  # a forgotten one may be cached
                kept = kept[-record.versions :]
            record.names[name] = kept
            if name in record.dropped:
                self._recover(record, name)
        while len(record.names) > MAX_NAMES:
            name, kept = record.names.popitem(last=False)
            if key is not ANONYMOUS:
                record.forgot = True
            elif name not in record.overflowed:  # known again when listed as it was
                digests = record.dropped.pop(name, ()) + tuple(s.digest for s in kept)
                record.dropped[name] = tuple(dict.fromkeys(digests))
        for bounded in (record.overflowed, record.dropped):
            while len(bounded) > MAX_NAMES:
                bounded.pop(next(iter(bounded)))  # type: ignore[attr-defined]
                record.forgot = True  # sessionless: kept in the file as not complete
        if key is not ANONYMOUS:
            return False
        after = (
            dict(record.names),
            len(record.overflowed),
            record.forgot,
            dict(record.dropped),
        )
        return after != before or relisted or not self.durable

    def _listed_now(self, names: Iterable[str]) -> bool:
        """Note a sessionless page's names: the listing the next save is made for.

        :param names: the page's names.
        :return: True when one was written as dropped after a loss (the file must
            record it again).
        """
        self._listing = tuple(names)
        relisted = False
        for name in self._listing:
            if self._dropped_on_disk.pop(name, False) is None:  # it was there
                relisted = True
        return relisted

    @staticmethod
    def _recover(record: _Session, name: str) -> None:
        """Take back the dropped digests of ``name`` its record holds again."""
        kept = record.names[name]
        left = tuple(
            d for d in record.dropped[name] if all(s.digest != d for s in kept)
        )
        if not left or name in record.overflowed:
            del record.dropped[name]
        elif len(left) + len(kept) > record.versions:
            del record.dropped[name]
            record.overflowed[name] = None  # more versions served than kept
        else:
            record.dropped[name] = left

    def snapshot(self) -> Memory:
        """The sessionless record as :mod:`.listed_file` writes it (event loop's copy).

        :return: the memory.
        """
        record = self._anonymous
        dropped_on_disk = set(self._dropped_on_disk)  # a save's thread adds to it
        names = {n: k for n, k in record.names.items() if n not in dropped_on_disk}
        dropped = dict(record.dropped)
        for name in dropped_on_disk:
            digests = tuple(s.digest for s in record.names.get(name, ()))
            dropped[name] = tuple(dict.fromkeys(dropped.get(name, ()) + digests))
        schemas = {s.digest: s.value for kept in names.values() for s in kept}
        return Memory(
            {d: None if v is None else dict(v) for d, v in schemas.items()},
            tuple(
                (name, tuple(s.digest for s in kept)) for name, kept in names.items()
            ),
            tuple(record.overflowed),
            not record.forgot,
            tuple((name, digests) for name, digests in dropped.items() if digests),
        )

    def save(self, memory: Memory, first_start: bool = False) -> bool:
        """Write ``memory`` into the state folder (blocking: a worker thread's job).

        :data:`BEGAN_NAME` is made first when it is not yet there. A failure is said in
        the log (once) and the file removed: a file missing what was served is worse
        than none, as a missing file in a folder marked :data:`BEGAN_NAME` is read as
        lost (not complete). When it cannot be removed it is marked
        :data:`STALE_NAME` (read as lost too). Either way a restart holds the names
        served as unknown, never as never listed; when neither can be done,
        :attr:`durable` is False until a write succeeds.

        :param memory: :meth:`snapshot`.
        :param first_start: the write at the start of a server that found no record
            and no earlier use of the folder (a missing file is new, not lost).
        :return: False when it could not be written (or there is no state folder).
        """
        if self.folder is None:
            return False
        with self._writing:
            if not first_start:  # at a first start, after the file: a new folder
                self._mark_began()
            listing = frozenset(self._listing)
            try:
                if write_memory(
                    self.folder,
                    memory,
                    ANONYMOUS_VERSIONS,
                    MAX_NAMES,
                    first_start,
                    listing,
                ):
                    self._dropped_on_disk.update(
                        (name, None) for name, _ in memory.names if name not in listing
                    )
                for name in list(self._dropped_on_disk):  # forgotten past MAX_NAMES
                    if name not in self._anonymous.names:
                        self._dropped_on_disk.pop(name, None)
                written = True
            except OSError as exc:
                if not self._write_failed:
                    LOGGER.warning(
                        "the output schemas served to sessionless clients could not "
                        "be written to %s (%s): after a restart their answers are "
                        "text until they list the tools again",
                        self.folder / FILE_NAME,
                        exc,
                    )
                self._write_failed = True
                written = False
            self._mark_began()
            self.durable = written or self._forget_file(self.folder)
            return written

    def _forget_file(self, folder: Path) -> bool:
        """After a failed write: remove the file, or else mark it stale.

        :param folder: the state folder.
        :return: True when a restart will read the record as lost.
        """
        try:
            (folder / FILE_NAME).unlink(missing_ok=True)
            if self._began:
                return True
        except OSError:
            pass
        try:
            make_mark(folder, STALE_NAME)
        except OSError:
            return False
        return True

    def held(self, session: Any, name: str) -> Held:
        """The schemas the session's client may validate ``name``'s answer against.

        :param session: ``ctx.session`` (None: :data:`NEVER_LISTED`).
        :param name: the MCP tool name.
        :return: :class:`Held` (:data:`NEVER_LISTED` when the session never listed it;
            unknown when the session's record may have lost it).
        """
        key = session_key(session)
        record = self._record(key)
        if record is None:
            return NEVER_LISTED
        schemas = record.names.get(name)
        if name in record.overflowed or name in record.dropped:
            return Held(tuple(s.value for s in schemas or ()), True)
        if schemas is None:
            return Held((), record.forgot)
        return Held(tuple(s.value for s in schemas), False)

    def sizes(self) -> Tuple[int, int]:
        """How much is remembered: ``(sessions, distinct schemas)``.

        :return: the counts (the sessionless record counts once it holds a name).
        """
        anonymous = (
            self._anonymous.names
            or self._anonymous.overflowed
            or self._anonymous.dropped
        )
        return len(self._sessions) + bool(anonymous), len(self._store)
