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


"""Every state file of the MCP server is written whole, one way (``whole_file``).

Seven writers (the pin file, the name index, journal entries, the journal's list of
writes when compacted, prepay entries, the listed schemas, the readable manifests)
share :func:`.whole_file.write_whole`. For each: a crash between the write and the
rename (``os.replace`` raising) leaves the previous file readable as it was and no
temporary file, the writer's error is the one it always raised (a warning for the
readable record), the new file is flushed before its rename (and the folder after it
where it was before), and permissions and owner are as before (``mkstemp``'s owner-only
file; the compacted list keeps the umask's, as ``open`` gave it).
"""

import json
import logging
import os
from pathlib import Path
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Type

import pytest

from mech_catalogue_cli.mcp_server import whole_file
from mech_catalogue_cli.mcp_server.journal import CHANGES_FILE, Journal, changes
from mech_catalogue_cli.mcp_server.listed_file import FILE_NAME as LISTED_FILE
from mech_catalogue_cli.mcp_server.listed_file import (
    ListedFileError,
    Memory,
    read_memory,
    schema_digest,
    write_memory,
)
from mech_catalogue_cli.mcp_server.pins import PinFileError, load_pins, save_pins
from mech_catalogue_cli.mcp_server.prepay import Prepayer
from mech_catalogue_cli.mcp_server.readable_record import FILE_NAME as READABLE_FILE
from mech_catalogue_cli.mcp_server.readable_record import ReadableRecord
from mech_catalogue_cli.mcp_server.recall import NameIndex
from tests.adversary.test_dead_digests import dead
from tests.test_mcp_spend_index import entry

REQUESTER = "0x" + "22" * 20
PREPAY_KEY = "ab" * 32


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


class Writer(NamedTuple):
    """One state file: how version ``v`` is written, and what a reader sees."""

    #: writes version ``v`` into the state folder
    write: Callable[[Path, int], None]
    #: what a reader of the state folder sees (compared before and after a failure)
    read: Callable[[Path], Any]
    #: the file version ``v`` is written to
    path: Callable[[Path, int], Path]
    #: what a failed write raises (None: it warns and returns)
    error: Any
    #: the folder is flushed after the rename
    sync_folder: bool
    #: the file's permission bits
    mode: Callable[[], int]
    #: what comes before writing version ``v`` and is not this write (the appends to
    #: the list of writes a compaction replaces)
    prepare: Callable[[Path, int], None] = lambda folder, version: None

    def whole(self, folder: Path, version: int) -> None:
        """Prepare and write version ``version``.

        :param folder: the state folder.
        :param version: the version.
        """
        self.prepare(folder, version)
        self.write(folder, version)


def _pins_write(folder: Path, version: int) -> None:
    save_pins(folder / "pins.json", {"t": {"digest": f"sha256:{version:064x}"}})


def _names_write(folder: Path, version: int) -> None:
    index = NameIndex(Journal(folder))
    index.remember("t", {"v": version}, REQUESTER, "", f"{version:064x}")


def _names_path(folder: Path, version: int) -> Path:
    index = NameIndex(Journal(folder))
    return index._path("t", {"v": version}, REQUESTER, "")  # pylint: disable=W0212


def _names_read(folder: Path) -> List[Any]:
    index = NameIndex(Journal(folder))
    return [index.recall("t", {"v": v}, REQUESTER, "") for v in (1, 2)]


def _journal_saves(folder: Path, version: int) -> None:
    journal = Journal(folder)
    for _ in range(3):  # three lines a key: the compaction leaves one
        journal.save(entry(version, 10 * version))


def _compacted(folder: Path) -> None:
    changes.compact(folder / "calls")


def _compacted_list(folder: Path) -> str:
    return (folder / "calls" / CHANGES_FILE).read_text(encoding="ascii")


def _prepayer(folder: Path) -> Prepayer:
    prepayer = Prepayer.__new__(Prepayer)  # no market: only its journal is written
    prepayer.folder = folder / "prepay"
    return prepayer


def _prepay_write(folder: Path, version: int) -> None:
    record: Dict[str, Any] = {"key": PREPAY_KEY, "payment_type": "native"}
    record.update(tracker=REQUESTER, amount=str(version), status="prepared")
    record.update(approval=None, deposit=None)
    _prepayer(folder)._save(record)  # pylint: disable=protected-access


def _prepay_read(folder: Path) -> Any:
    return _prepayer(folder)._load(PREPAY_KEY)  # pylint: disable=protected-access


def _listed_schema(version: int) -> Dict[str, Any]:
    return {"type": "object", "title": f"v{version}"}


def _listed_write(folder: Path, version: int) -> None:
    schema = _listed_schema(version)
    digest = schema_digest(schema)
    write_memory(folder, Memory({digest: schema}, (("t", (digest,)),), ()), 4, 10)


def _listed_read(folder: Path) -> Optional[Memory]:
    try:
        return read_memory(folder, 4, 10)
    except ListedFileError:  # no file yet
        return None


WRITERS: Dict[str, Writer] = {
    "pins": Writer(
        _pins_write,
        lambda folder: load_pins(folder / "pins.json"),
        lambda folder, _: folder / "pins.json",
        PinFileError,
        False,
        lambda: 0o600,
    ),
    "name index": Writer(
        _names_write,
        _names_read,
        _names_path,
        OSError,
        False,
        lambda: 0o600,
    ),
    "journal entry": Writer(
        lambda folder, version: Journal(folder).save(entry(1, 10 * version)),
        lambda folder: Journal(folder).load(f"{1:064x}"),
        lambda folder, _: folder / "calls" / f"{1:064x}.json",
        OSError,
        True,
        lambda: 0o600,
    ),
    "journal list compacted": Writer(
        lambda folder, _: _compacted(folder),
        _compacted_list,
        lambda folder, _: folder / "calls" / CHANGES_FILE,
        OSError,
        True,
        _umask_mode,
        _journal_saves,
    ),
    "prepay entry": Writer(
        _prepay_write,
        _prepay_read,
        lambda folder, _: folder / "prepay" / f"{PREPAY_KEY}.json",
        OSError,
        False,
        lambda: 0o600,
    ),
    "listed schemas": Writer(
        _listed_write,
        _listed_read,
        lambda folder, _: folder / LISTED_FILE,
        OSError,
        True,
        lambda: 0o600,
    ),
    "readable manifests": Writer(
        lambda folder, version: ReadableRecord(folder).save([dead(version)]),
        lambda folder: ReadableRecord(folder).load(),
        lambda folder, _: folder / READABLE_FILE,
        None,
        False,
        lambda: 0o600,
    ),
}


def _temporaries(folder: Path) -> List[str]:
    return sorted(
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.name.endswith((".tmp", changes.COMPACT_TMP))
    )


def _replace_failing(monkeypatch: pytest.MonkeyPatch, target: Path) -> List[str]:
    """``os.replace`` onto ``target`` raising EIO, as a crash before the rename."""
    tried: List[str] = []
    real_replace = os.replace

    def replace(src: Any, dst: Any) -> None:
        if Path(dst) != target:
            real_replace(src, dst)
            return
        tried.append(str(dst))
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(whole_file.os, "replace", replace)
    return tried


@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_a_crash_before_the_rename_leaves_the_previous_file_readable(
    kind: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Written once, the second write's rename fails: the first is read, no leftovers.

    :param kind: a key of :data:`WRITERS`.
    :param tmp_path: the state folder.
    :param monkeypatch: pytest's.
    :param caplog: pytest's.
    """
    writer = WRITERS[kind]
    writer.whole(tmp_path, 1)
    assert writer.read(tmp_path)  # premise: something was written and is read
    writer.prepare(tmp_path, 2)
    before = writer.read(tmp_path)
    old_bytes = writer.path(tmp_path, 1).read_bytes()
    with monkeypatch.context() as patch:
        tried = _replace_failing(patch, writer.path(tmp_path, 2))
        if writer.error is None:
            with caplog.at_level(logging.WARNING, logger="mech_catalogue.mcp"):
                writer.write(tmp_path, 2)
            assert "cannot be written" in caplog.text and "Input/output" in caplog.text
        else:
            with pytest.raises(writer.error, match="Input/output"):
                writer.write(tmp_path, 2)
    assert tried, "the write reached its rename"
    assert writer.read(tmp_path) == before
    assert writer.path(tmp_path, 1).read_bytes() == old_bytes
    assert _temporaries(tmp_path) == []
    writer.write(tmp_path, 2)  # the disk is back: the next write goes through
    assert writer.read(tmp_path) != before


#: a compaction replaces a list its appends made: it never writes the first one
FIRST_WRITERS = [kind for kind in sorted(WRITERS) if kind != "journal list compacted"]


@pytest.mark.parametrize("kind", FIRST_WRITERS)
def test_a_first_write_that_fails_leaves_no_file_and_no_temporary(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No file before: a failed rename leaves none, and a reader finds nothing yet.

    :param kind: a key of :data:`WRITERS`.
    :param tmp_path: the state folder.
    :param monkeypatch: pytest's.
    """
    writer = WRITERS[kind]
    with monkeypatch.context() as patch:
        _replace_failing(patch, writer.path(tmp_path, 1))
        try:
            writer.whole(tmp_path, 1)
        except (OSError, PinFileError):
            assert writer.error is not None
    assert _temporaries(tmp_path) == []
    assert not writer.path(tmp_path, 1).exists()
    assert writer.read(tmp_path) in (None, {}, frozenset(), [None, None])


@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_permissions_and_owner_are_as_before(kind: str, tmp_path: Path) -> None:
    """Owner-only (``mkstemp``), the compacted list the umask's; owned as any new file.

    :param kind: a key of :data:`WRITERS`.
    :param tmp_path: the state folder.
    """
    writer = WRITERS[kind]
    for version in (1, 2):  # new, then replaced
        writer.whole(tmp_path, version)
        path = writer.path(tmp_path, version)
        written = path.stat()
        sibling = path.parent / "plain"
        sibling.write_text("", encoding="utf-8")
        plain = sibling.stat()
        sibling.unlink()
        assert oct(written.st_mode & 0o777) == oct(writer.mode())
        assert (written.st_uid, written.st_gid) == (plain.st_uid, plain.st_gid)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux)")
@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_the_file_is_flushed_before_its_rename_and_the_folder_after(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The temporary file's ``fsync``, the rename, then the folder's where it was flushed.

    :param kind: a key of :data:`WRITERS`.
    :param tmp_path: the state folder.
    :param monkeypatch: pytest's.
    """
    writer = WRITERS[kind]
    writer.whole(tmp_path, 1)
    writer.prepare(tmp_path, 2)
    target = writer.path(tmp_path, 2)
    events: List[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        path = Path(os.readlink(f"/proc/self/fd/{fd}"))
        if path == target.parent:
            events.append("fsync folder")
        elif path.parent == target.parent and path.name.endswith(
            (".tmp", changes.COMPACT_TMP)
        ):
            events.append("fsync temporary")
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        if Path(dst) == target:
            events.append("replace")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(whole_file.os, "replace", replace)
    writer.write(tmp_path, 2)
    flushed = ["fsync temporary", "replace"]
    expected = flushed + ["fsync folder"] if writer.sync_folder else flushed
    assert events[-len(expected) :] == expected, events
    assert json.dumps(events).count("replace") == 1


@pytest.mark.parametrize("kind", ["journal entry", "listed schemas"])
def test_a_failed_temporary_file_leaves_the_previous_one(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No room for the temporary file (ENOSPC at ``mkstemp``): the old file stays.

    :param kind: a key of :data:`WRITERS`.
    :param tmp_path: the state folder.
    :param monkeypatch: pytest's.
    """
    writer = WRITERS[kind]
    writer.whole(tmp_path, 1)
    before = writer.read(tmp_path)

    def no_space(*args: Any, **kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(whole_file.tempfile, "mkstemp", no_space)
    error: Type[BaseException] = writer.error
    with pytest.raises(error, match="No space"):
        writer.write(tmp_path, 2)
    assert writer.read(tmp_path) == before and _temporaries(tmp_path) == []
