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

"""The sessionless clients' listings, kept in the state folder across restarts (adv29l).

A 2026-07-28 HTTP client has no session: it is not restarted with the server and keeps
the output schemas it cached at its last ``tools/list``. What the server served such
clients (:class:`.listed_schemas.ListedSchemas`' sessionless record) is therefore kept
in ``<state-dir>/``:data:`FILE_NAME`, one JSON object written atomically (a temporary
file renamed over it) under a lock of its own, merged with what is on disk (two
servers sharing a state folder each add what they served)::

    {"version": 1,
     "schemas": {"<sha-256 hex of the canonical JSON>": <the schema, or null>},
     "names": [["<MCP tool name>", ["<digest>", ...]], ...],
     "overflowed": ["<MCP tool name>", ...],
     "dropped": [["<MCP tool name>", ["<digest>", ...]], ...],
     "complete": true}

``names`` oldest first, each name's digests oldest first (at most the versions kept per
name); ``overflowed`` are names the server can no longer tell about (more versions
served than kept); ``dropped`` (optional, absent from files written before adv29m) are
names whose schemas were dropped past a bound, with the digests dropped: such a name is
unknown until it is listed again with each of those schemas (an unchanged tool: at its
next listing). The file is at most :data:`MAX_FILE_BYTES`: past it the names holding the
most schema bytes are dropped first (the least recently listed among equals), so one
publisher's large or changing schemas drop its own tools, never a small one listed
before them (adv29m); past :data:`MAX_FILE_BYTES` or the names bound, the least recently
listed names go first. ``complete`` is false once the record may lack a name some
client was listed (the file was found unusable, missing from a state folder used
before, or an overflowed or dropped name was forgotten past a bound): a name it has no
record of is then unknown, else never listed. A file that is missing, unreadable,
over the bound or malformed raises :class:`ListedFileError`: its caller treats every
name as unknown.

The file's absence never says "nothing was listed" by itself (adv29p): two marks
beside it (empty files) say what its absence or content cannot:

- :data:`BEGAN_NAME`: a record is kept in this folder (made at a server's start,
  before any listing is served; never removed): a file missing from a folder so
  marked was lost (removed after a failed write, deleted, never renamed into place),
  not new, and is read, and merged into, as not complete;
- :data:`STALE_NAME`: a write failed and the file could not be removed (a failed
  write removes it: what it lacks would otherwise be read as never listed), so it
  may lack what was served: it is read as lost until a write replaces it (that
  writer removes the mark). Made without the lock, which a failed write may lack.
"""

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import (
    Any,
    Collection,
    Dict,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Tuple,
)

from filelock import FileLock
from mech_catalogue_core.manifest.validation import nesting_depth
from mech_catalogue_core.model.limits import DEFAULT_LIMITS

from .whole_file import fsync_folder, write_whole

#: the file's name in the state folder
FILE_NAME = "listed-schemas.json"
#: its lock (held for one read-merge-write)
LOCK_NAME = ".listed-schemas.lock"
#: the mark that a record is kept in the folder: a missing file was then lost
BEGAN_NAME = ".listed-schemas.began"
#: the mark that a failed write could not remove the file: it is read as lost
STALE_NAME = ".listed-schemas.stale"
#: the format's version (the ``version`` field)
FILE_VERSION = 1
#: most bytes the file may have (a schema is at most 32 KiB: a listed Tool's bound)
MAX_FILE_BYTES = 8 * 1024 * 1024
#: deepest nesting of the file's JSON: a served schema's (a manifest's bound, with room
#: for the server's rewriting of it) under the file's own four levels
MAX_FILE_DEPTH = 2 * DEFAULT_LIMITS.max_depth + 4
#: seconds a writer waits for the lock before giving up (``filelock.Timeout``)
LOCK_WAIT = 30.0


class ListedFileError(Exception):
    """The file cannot be used; the words say why (no schema text in them)."""


class Memory(NamedTuple):
    """What sessionless clients were served, as the file keeps it."""

    #: digest -> the schema (None: a tool listed without one)
    schemas: Dict[str, Optional[Dict[str, Any]]]
    #: (name, digests oldest first), oldest name first
    names: Tuple[Tuple[str, Tuple[str, ...]], ...]
    #: names the server cannot tell about, oldest first
    overflowed: Tuple[str, ...]
    #: False when a name some client was listed may be missing from the record
    complete: bool = True
    #: (name, digests whose schemas were dropped past a bound), oldest first
    dropped: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()


EMPTY = Memory({}, (), ())


def schema_digest(value: Optional[Mapping[str, Any]]) -> str:
    """SHA-256 of the schema's canonical JSON (sorted keys, no spaces), hex.

    :param value: an output schema (None: none).
    :return: the digest.
    """
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _parsed(data: Any, versions: int, max_names: int) -> Memory:
    """The memory in ``data``, checked (raises :class:`ListedFileError` when not one)."""
    if not isinstance(data, dict) or data.get("version") != FILE_VERSION:
        raise ListedFileError(f"it is not a version-{FILE_VERSION} file")
    schemas, names, overflowed = (
        data.get(k) for k in ("schemas", "names", "overflowed")
    )
    if not (
        isinstance(schemas, dict)
        and isinstance(names, list)
        and isinstance(overflowed, list)
    ):
        raise ListedFileError("its schemas, names or overflowed are not of their kind")
    for digest, schema in schemas.items():
        if not (schema is None or isinstance(schema, dict)):
            raise ListedFileError("a schema is neither an object nor null")
        if schema_digest(schema) != digest:
            raise ListedFileError("a schema does not match its digest")
    kept: List[Tuple[str, Tuple[str, ...]]] = []
    for item in names:
        if not (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], str)
            and isinstance(item[1], list)
            and 0 < len(item[1]) <= versions
            and all(isinstance(d, str) and d in schemas for d in item[1])
        ):
            raise ListedFileError("a name's entry is not [name, [digest, ...]]")
        kept.append((item[0], tuple(item[1])))
    if len({name for name, _ in kept}) != len(kept) or len(kept) > max_names:
        raise ListedFileError("its names repeat or are too many")
    if len(overflowed) > max_names or not all(isinstance(n, str) for n in overflowed):
        raise ListedFileError("its overflowed names are not a list of names")
    if not isinstance(data.get("complete"), bool):
        raise ListedFileError("its complete is not true or false")
    return Memory(
        dict(schemas),
        tuple(kept),
        tuple(overflowed),
        data["complete"],
        _parsed_dropped(data.get("dropped", []), versions, max_names),
    )


def _parsed_dropped(
    dropped: Any, versions: int, max_names: int
) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    """The ``dropped`` entries, checked (raises :class:`ListedFileError`)."""
    if not isinstance(dropped, list) or len(dropped) > max_names:
        raise ListedFileError("its dropped names are not a list of at most the bound")
    kept: Dict[str, Tuple[str, ...]] = {}
    for item in dropped:
        if not (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], str)
            and item[0] not in kept
            and isinstance(item[1], list)
            and 0 < len(item[1]) <= versions
            and all(isinstance(d, str) and len(d) == 64 for d in item[1])
        ):
            raise ListedFileError("a dropped name's entry is not [name, [digest, ...]]")
        kept[item[0]] = tuple(item[1])
    return tuple(kept.items())


def read_memory(folder: Path, versions: int, max_names: int) -> Memory:
    """Read the file in ``folder``.

    :param folder: the state folder.
    :param versions: most digests per name (more: malformed).
    :param max_names: most names (more: malformed).
    :return: the memory.
    :raises ListedFileError: when the file is missing, cannot be read, is over
        :data:`MAX_FILE_BYTES`, nests deeper than :data:`MAX_FILE_DEPTH`, or is not
        the format above.
    """
    path = folder / FILE_NAME
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError as exc:
        raise ListedFileError(f"{path} does not exist") from exc
    except OSError as exc:
        raise ListedFileError(f"{path} cannot be read ({exc.strerror})") from exc
    if len(raw) > MAX_FILE_BYTES:
        raise ListedFileError(f"{path} is over {MAX_FILE_BYTES} bytes")
    if nesting_depth(raw, MAX_FILE_DEPTH) > MAX_FILE_DEPTH:  # json's C parser recurses
        raise ListedFileError(f"{path} nests deeper than {MAX_FILE_DEPTH} levels")
    if present(folder, STALE_NAME):
        raise ListedFileError(
            f"{path} may lack what was served: a write failed and it could not be "
            f"removed ({folder / STALE_NAME})"
        )
    try:
        return _parsed(json.loads(raw.decode("utf-8")), versions, max_names)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ListedFileError(f"{path} is not JSON") from exc
    except ListedFileError as exc:
        raise ListedFileError(f"{path} is malformed: {exc}") from exc


def present(folder: Path, name: str) -> bool:
    """Whether ``folder`` holds ``name`` (a mark, or the file: usable or not).

    :param folder: the state folder.
    :param name: :data:`BEGAN_NAME`, :data:`STALE_NAME` or :data:`FILE_NAME`.
    :return: True when it is there (a dangling link too), or when that cannot be told
        (an ``OSError`` other than a missing file: it may be there).
    """
    try:
        os.lstat(folder / name)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


def make_mark(folder: Path, mark: str) -> None:
    """Put the mark in ``folder`` (an empty file, kept when there), flushed to disk.

    Needs no lock and no data block (an empty file): it may succeed where the file's
    write failed. ``OSError`` (``ENOSPC``, ``EROFS``...) when it cannot be made or
    flushed.

    :param folder: the state folder (created when missing).
    :param mark: :data:`BEGAN_NAME` or :data:`STALE_NAME`.
    """
    folder.mkdir(parents=True, exist_ok=True)
    (folder / mark).touch()
    fsync_folder(folder)


def _bytes(value: Any) -> int:
    """Bytes of ``value`` as the file writes it (ASCII JSON, no spaces)."""
    return len(json.dumps(value, separators=(",", ":"), default=str))


def _entry_bytes(name: str, digests: Tuple[str, ...]) -> int:
    """Bytes of ``[name, [digest, ...]]`` and its comma as the file writes it."""
    return _bytes(name) + 5 + (_bytes("0" * 64) + 1) * len(digests)


def _take_back(
    dropped: Dict[str, Tuple[str, ...]],
    names: Mapping[str, Tuple[str, ...]],
    overflowed: Dict[str, None],
    versions: int,
) -> None:
    """Leave in ``dropped`` (in place) only the digests ``names`` does not record.

    A name left with none is known again; one overflowed, or with more than
    ``versions`` digests recorded and dropped together, moves to ``overflowed``.

    :param dropped: name -> digests dropped past a bound (changed in place).
    :param names: name -> digests recorded.
    :param overflowed: the overflowed names (added to in place).
    :param versions: most digests per name.
    """
    for name, digests in list(dropped.items()):
        left = tuple(d for d in digests if d not in names.get(name, ()))
        if not left or name in overflowed:
            del dropped[name]  # recorded again, or unknown for good anyway
        elif len(left) + len(names.get(name, ())) > versions:
            overflowed[name] = None
            del dropped[name]
        else:
            dropped[name] = left


def merged(disk: Memory, ours: Memory, versions: int, max_names: int) -> Memory:
    """Both memories in one: every version either served, within the bounds.

    A name with more than ``versions`` digests between them (recorded and dropped) is
    overflowed. Past ``max_names`` names the least recently listed are dropped; while
    the file would be over :data:`MAX_FILE_BYTES`, the names whose schemas take the
    most bytes are dropped first (the least recently listed among equals): a dropped
    name keeps its digests in ``dropped`` and is known again once every one of them is
    recorded again. A name recorded again with its dropped digests leaves ``dropped``.
    Only when an overflowed or dropped name itself must be forgotten (past
    ``max_names`` or the bytes, least recent first) is the record not complete.

    :param disk: the file's memory.
    :param ours: this server's.
    :param versions: most digests per name.
    :param max_names: most names, most overflowed names and most dropped names.
    :return: the memory to write.
    """
    schemas = {**disk.schemas, **ours.schemas}
    complete = disk.complete and ours.complete
    names: Dict[str, Tuple[str, ...]] = dict(disk.names)
    overflowed = dict.fromkeys(disk.overflowed + ours.overflowed)
    dropped: Dict[str, Tuple[str, ...]] = {}
    for name, digests in disk.dropped + ours.dropped:
        dropped[name] = tuple(dict.fromkeys(dropped.pop(name, ()) + digests))
    for name, digests in ours.names:
        union = tuple(dict.fromkeys(names.pop(name, ()) + digests))
        if len(union) > versions:
            overflowed[name] = None
            union = union[-versions:]
        names[name] = union
    _take_back(dropped, names, overflowed, versions)
    uses: Dict[str, int] = {}
    for digests in names.values():
        for digest in digests:
            uses[digest] = uses.get(digest, 0) + 1
    sizes = {d: _bytes(d) + _bytes(schemas[d]) + 2 for d in uses}
    total = 100 + sum(sizes.values())  # 100: the object's keys and brackets
    total += sum(_entry_bytes(n, d) for n, d in names.items())
    total += sum(_entry_bytes(n, d) for n, d in dropped.items())
    total += sum(_bytes(n) + 1 for n in overflowed)

    def drop(name: str) -> None:
        nonlocal total
        digests = names.pop(name)
        total -= _entry_bytes(name, digests)
        for digest in digests:
            uses[digest] -= 1
            if not uses[digest]:
                del uses[digest]
                total -= sizes[digest]
        if name in overflowed:
            return  # unknown for good already
        if name in dropped:
            total -= _entry_bytes(name, dropped[name])
        dropped[name] = tuple(dict.fromkeys(dropped.pop(name, ()) + digests))
        total += _entry_bytes(name, dropped[name])

    while len(names) > max_names:
        drop(next(iter(names)))
    order = {name: index for index, name in enumerate(names)}
    heaviest = sorted(names, key=lambda n: (-sum(sizes[d] for d in names[n]), order[n]))
    for name in heaviest:
        if total <= MAX_FILE_BYTES:
            break
        drop(name)
    while dropped and (len(dropped) > max_names or total > MAX_FILE_BYTES):
        name = next(iter(dropped))
        total -= _entry_bytes(name, dropped.pop(name))
        complete = False
    while overflowed and (len(overflowed) > max_names or total > MAX_FILE_BYTES):
        name = next(iter(overflowed))
        del overflowed[name]
        total -= _bytes(name) + 1
        complete = False
    return Memory(
        {d: schemas[d] for d in uses},
        tuple(names.items()),
        tuple(overflowed),
        complete,
        tuple(dropped.items()),
    )


def write_memory(
    folder: Path,
    ours: Memory,
    versions: int,
    max_names: int,
    first_start: bool = False,
    listing: Collection[str] = (),
) -> bool:
    """Merge ``ours`` into the file and write it atomically, under the file's lock.

    A file on disk that cannot be used (:data:`STALE_NAME` too, removed once the file
    is replaced) is replaced by ``ours``, not complete (what it held is lost; a file
    unusable at start was said then). So is a missing one, but at a first start: a
    record was kept, so its absence is a loss (adv29p). After such a loss the names
    of ``ours`` but ``listing``'s are written as dropped (unknown until listed again
    as they were): another server may have served a version of them that only the
    lost file held. The folder is flushed after the rename: a power loss does not
    bring back the file before it.

    :param folder: the state folder (created when missing).
    :param ours: this server's memory.
    :param versions: most digests per name.
    :param max_names: most names.
    :param first_start: True only for the first write of a server that found no
        record and no earlier use of the folder: a missing file is then new.
    :param listing: the names of the listing this write is made for (served after
        it, so after any loss found now).
    :return: True when the file was found lost (then the names of ``ours`` not in
        ``listing`` were written as dropped). ``OSError`` is raised when the folder,
        lock or file cannot be written (``filelock``'s ``Timeout`` is one).
    """
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(folder / LOCK_NAME, timeout=LOCK_WAIT, thread_local=False):
        stale = present(folder, STALE_NAME)
        try:
            disk = read_memory(folder, versions, max_names)
            lost = False
        except ListedFileError:
            # missing at a first start: new; otherwise what it held is lost
            lost = not first_start or stale or present(folder, FILE_NAME)
            disk = EMPTY._replace(complete=not lost)
        if lost:
            ours = ours._replace(
                names=tuple(item for item in ours.names if item[0] in listing),
                dropped=ours.dropped
                + tuple(item for item in ours.names if item[0] not in listing),
            )
        memory = merged(disk, ours, versions, max_names)
        body = json.dumps(
            {
                "version": FILE_VERSION,
                "schemas": memory.schemas,
                "names": [[name, list(digests)] for name, digests in memory.names],
                "overflowed": list(memory.overflowed),
                "dropped": [[name, list(digests)] for name, digests in memory.dropped],
                "complete": memory.complete,
            },
            separators=(",", ":"),
            default=str,  # as schema_digest reads a value JSON cannot hold
        ).encode("utf-8")
        write_whole(folder / FILE_NAME, body, sync_folder=True)
        if stale:  # replaced: what it lacked is said by complete false now
            with contextlib.suppress(OSError):
                os.unlink(folder / STALE_NAME)
    return lost
