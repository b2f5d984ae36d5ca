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

"""The sessionless listed record after failures: never "never listed" for a name served.

``listed-schemas.json`` missing, removed, stale or never written, in every order the
adv29p review found and the others of that shape: a failed write of each step (lock,
temporary file, rename, folder flush), the file deleted, truncated, a link to nothing
or a folder, a journal of a version before ``changes.log``, two servers on one folder,
and a disk that refuses the marks too. Real files, real ``ListedSchemas`` objects (a
new one on the folder is a restart); failures injected where the disk would raise.
"""

import json
import os
from pathlib import Path
from typing import Any, Callable, Dict, Iterator

import anyio
import pytest
from filelock import FileLock
from mcp import Client

from mech_catalogue_cli.mcp_server import listed_file
from mech_catalogue_cli.mcp_server import listed_schemas as listed_schemas_module
from mech_catalogue_cli.mcp_server import whole_file
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.listed_file import (
    BEGAN_NAME,
    FILE_NAME,
    LOCK_NAME,
    STALE_NAME,
)
from mech_catalogue_cli.mcp_server.listed_schemas import (
    NEVER_LISTED,
    Held,
    ListedSchemas,
)
from tests.test_mcp_listed_schemas import (
    MODERN,
    NEW,
    OLD,
    _app_on,
    _sessionless_request,
    _tool_entry,
)

#: a name no client was ever listed
UNLISTED = "never"


def _listed(listed: ListedSchemas, schema: Any = None, name: str = "t") -> bool:
    """A sessionless listing of ``name`` (``schema``, default OLD), saved: written?"""
    schema = OLD if schema is None else schema
    assert listed.remember(
        _sessionless_request(), [{**_tool_entry(schema), "name": name}], True
    )
    return listed.save(listed.snapshot())


def _held(listed: ListedSchemas, name: str = "t") -> Held:
    return listed.held(_sessionless_request(), name)


def _restarted(folder: Path, used_before: bool = False) -> ListedSchemas:
    """A new server's record on ``folder`` (no journal written unless said)."""
    return ListedSchemas(folder, used_before=used_before)


def _not_never_listed(held: Held) -> bool:
    """What a name served OLD must read as: unknown, or held with OLD."""
    return held.unknown or OLD in held.schemas


@pytest.fixture(name="short_wait")
def short_lock_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lock's wait cut from 30 s, for a lock another server holds past it.

    :param monkeypatch: pytest's monkeypatch.
    """
    monkeypatch.setattr(listed_file, "LOCK_WAIT", 0.1)


def _enospc(*args: Any, **kwargs: Any) -> Any:
    raise OSError(28, "No space left on device")


def _lock_held(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    del monkeypatch
    with FileLock(folder / LOCK_NAME, thread_local=False):
        yield


def _lock_a_folder(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    del monkeypatch
    (folder / LOCK_NAME).unlink(missing_ok=True)
    (folder / LOCK_NAME).mkdir()
    yield
    (folder / LOCK_NAME).rmdir()


def _patched(target: Any, attribute: str) -> Callable[..., Iterator[None]]:
    def failing(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
        del folder
        with monkeypatch.context() as patch:
            patch.setattr(target, attribute, _enospc)
            yield

    return failing


#: each step of a write that can fail, as the disk or another server makes it fail
WRITE_FAILURES: Dict[str, Callable[..., Iterator[None]]] = {
    "the lock held past its wait": _lock_held,
    "the lock unusable (a folder)": _lock_a_folder,
    "no temporary file (ENOSPC)": _patched(whole_file.tempfile, "mkstemp"),
    "the rename refused": _patched(listed_file.os, "replace"),
    "the folder flush refused": _patched(whole_file, "fsync_folder"),
}


@pytest.mark.usefixtures("short_wait")
@pytest.mark.parametrize("failure", sorted(WRITE_FAILURES))
@pytest.mark.parametrize("journal_written", [False, True])
def test_a_failed_write_reads_as_lost_after_a_restart(
    failure: str,
    journal_written: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Listed, the write failed at one step, restarted: the name is unknown.

    Before a paid call (no journal) too: the folder's mark says a record was kept.
    A name never served is unknown as well (the record lost what it held); listed
    again after the failure passed, the name is known again.

    :param failure: a key of :data:`WRITE_FAILURES`.
    :param journal_written: whether the folder's journal was written.
    :param tmp_path: the state folder.
    :param monkeypatch: pytest's monkeypatch.
    """
    listed = _restarted(tmp_path)
    assert (tmp_path / BEGAN_NAME).exists()
    injected = WRITE_FAILURES[failure](tmp_path, monkeypatch)
    next(injected)
    assert not _listed(listed)
    assert _held(listed) == ((OLD,), False)  # this server still knows what it served
    assert listed.durable  # the file removed: a restart reads it as lost
    next(injected, None)
    again = _restarted(tmp_path, journal_written)
    assert _not_never_listed(_held(again)), _held(again)
    assert _held(again, UNLISTED).unknown
    assert _listed(again, NEW)
    assert _held(_restarted(tmp_path)) == ((NEW,), False)
    assert json.loads((tmp_path / FILE_NAME).read_text())["complete"] is False


def _emptied(path: Path) -> None:
    path.write_bytes(b"")


def _cut_in_half(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _linked_to_nothing(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.with_name("gone.json"))


def _replaced_by_a_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


#: what a user, a crash or a disk can leave of the file, after a listing was written
FILE_FATES: Dict[str, Callable[[Path], None]] = {
    "deleted": Path.unlink,
    "emptied": _emptied,
    "cut in half": _cut_in_half,
    "a link to nothing": _linked_to_nothing,
    "a folder": _replaced_by_a_folder,
}


@pytest.mark.parametrize("fate", sorted(FILE_FATES))
def test_a_record_lost_before_any_paid_call_is_not_a_first_start(
    fate: str, tmp_path: Path
) -> None:
    """Written, then lost in one way, restarted with no journal: the name is unknown.

    :param fate: a key of :data:`FILE_FATES`.
    :param tmp_path: the state folder.
    """
    assert _listed(_restarted(tmp_path))
    path = tmp_path / FILE_NAME
    FILE_FATES[fate](path)
    again = _restarted(tmp_path)
    assert _held(again) == ((), True)
    assert _held(again, UNLISTED) == ((), True)
    if path.is_dir():
        path.rmdir()  # the write at start failed: a later write makes the file again
    assert _listed(again, NEW)
    assert json.loads(path.read_text())["complete"] is False


def test_a_new_folder_is_still_a_first_start(tmp_path: Path) -> None:
    """No mark, no file, no journal: complete, a name never listed is never listed.

    :param tmp_path: the state folder (new).
    """
    listed = _restarted(tmp_path)
    assert _held(listed) == NEVER_LISTED
    assert json.loads((tmp_path / FILE_NAME).read_text())["complete"] is True
    assert _held(_restarted(tmp_path)) == NEVER_LISTED
    assert _listed(listed)
    assert _held(_restarted(tmp_path), UNLISTED) == NEVER_LISTED


@pytest.mark.parametrize(
    "left", ["an entry", "a temporary entry only", "the list of writes"]
)
def test_a_journal_of_any_version_makes_the_folder_used(
    left: str, tmp_path: Path
) -> None:
    """Entries without a list of writes (before 2026-12-02) count as used; a bare one not.

    :param left: what the journal holds.
    :param tmp_path: the state folder.
    """
    journal = Journal(tmp_path)
    assert not journal.written()  # a new journal: only its folder
    name = {
        "an entry": f"{'cd' * 32}.json",
        "a temporary entry only": "tmpabc.tmp",
        "the list of writes": journal.changes.name,
    }[left]
    (journal.folder / name).write_text("{}", encoding="utf-8")
    assert journal.written() is (left != "a temporary entry only")


def test_a_journal_folder_that_cannot_be_read_counts_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error listing the folder: it may hold entries, so the folder was used.

    :param tmp_path: the state folder.
    :param monkeypatch: pytest's monkeypatch.
    """
    journal = Journal(tmp_path)
    monkeypatch.setattr(os, "scandir", _enospc)
    assert journal.written()


@pytest.mark.usefixtures("short_wait")
@pytest.mark.parametrize("b_started", ["before A's failure", "after A's failure"])
def test_another_servers_write_after_a_failure_is_not_complete(
    b_started: str, tmp_path: Path
) -> None:
    """A's write fails (B holds the lock), then B writes: A's name stays unknown.

    B's own name is known after a restart; the file says not complete.

    :param b_started: when server B read the folder.
    :param tmp_path: the state folder both share.
    """
    server_a = _restarted(tmp_path)
    server_b = _restarted(tmp_path) if b_started == "before A's failure" else None
    with FileLock(tmp_path / LOCK_NAME, thread_local=False):
        assert not _listed(server_a, OLD, "a_tool")
    server_b = server_b or _restarted(tmp_path)
    assert _listed(server_b, NEW, "b_tool")
    restarted = _restarted(tmp_path)
    assert _held(restarted, "a_tool") == ((), True)
    assert _held(restarted, "b_tool") == ((NEW,), False)
    assert json.loads((tmp_path / FILE_NAME).read_text())["complete"] is False


def test_a_write_after_the_file_vanished_while_running_is_not_complete(
    tmp_path: Path,
) -> None:
    """Deleted under a running server, its next write says not complete.

    :param tmp_path: the state folder.
    """
    server_a, server_b = _restarted(tmp_path), _restarted(tmp_path)
    assert _listed(server_a, OLD, "a_tool")
    (tmp_path / FILE_NAME).unlink()
    assert _listed(server_b, NEW, "b_tool")
    restarted = _restarted(tmp_path)
    assert _held(restarted, "a_tool") == ((), True)


def _refuse_unlink(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Path.unlink

    def unlink(path: Path, missing_ok: bool = False) -> None:
        if path.name == FILE_NAME:
            raise PermissionError(1, "Operation not permitted")
        real(path, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", unlink)


@pytest.mark.usefixtures("short_wait")
def test_a_file_that_cannot_be_removed_is_marked_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write fails and the file stays (old, without the name): read as lost.

    The next write replaces it (not complete) and removes the mark; the names it holds
    are then known after a restart.

    :param tmp_path: the state folder.
    :param monkeypatch: pytest's monkeypatch.
    """
    listed = _restarted(tmp_path)
    assert _listed(listed, OLD)
    _refuse_unlink(monkeypatch)
    with FileLock(tmp_path / LOCK_NAME, thread_local=False):
        assert not _listed(listed, NEW)
    assert (tmp_path / FILE_NAME).exists() and (tmp_path / STALE_NAME).exists()
    assert listed.durable
    stale = _restarted(tmp_path)
    assert _held(stale) == ((), True)  # not OLD alone: NEW was served
    assert _held(stale, UNLISTED) == ((), True)
    assert not (tmp_path / STALE_NAME).exists()  # the start's write replaced the file
    assert _listed(stale, NEW)
    assert _held(_restarted(tmp_path)) == ((NEW,), False)


def _refuse_marks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing can be created or removed in the folder (a read-only file system)."""
    _refuse_unlink(monkeypatch)
    monkeypatch.setattr(listed_schemas_module, "make_mark", _enospc)
    monkeypatch.setattr(listed_file, "FileLock", _enospc)


def test_a_listing_nothing_can_record_is_served_without_output_schemas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No write, no removal, no mark: not durable, so the listing holds no schema.

    The SDK's client then checks no answer against a schema, so a restart cannot
    make it refuse one; the same listing again tries the write again, and once the
    disk takes it the schemas are listed again. A session's listing keeps its schema.

    :param tmp_path: the state folder.
    :param monkeypatch: pytest's monkeypatch.
    """
    app = _app_on(tmp_path, NEW, monkeypatch)

    async def listed(mode: str) -> Any:
        async with Client(app.server, mode=mode) as client:
            return (await client.list_tools(cache_mode="refresh")).tools[0]

    with monkeypatch.context() as patch:
        _refuse_marks(patch)
        for _ in range(2):  # unchanged: remembered, and tried again, not served whole
            tool = anyio.run(listed, MODERN)
            assert tool.output_schema is None and not app.listed_schemas.durable
        assert anyio.run(listed, "legacy").output_schema == NEW
    tool = anyio.run(listed, MODERN)
    assert tool.output_schema == NEW and app.listed_schemas.durable
    assert json.loads((tmp_path / FILE_NAME).read_text())["names"][0][0] == "t"


def test_a_mark_that_failed_at_start_is_made_at_the_next_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder's mark refused at start (said in the log), made before the listing.

    :param tmp_path: the state folder.
    :param monkeypatch: pytest's monkeypatch.
    """
    with monkeypatch.context() as patch:
        patch.setattr(listed_schemas_module, "make_mark", _enospc)
        listed = _restarted(tmp_path)
    assert not (tmp_path / BEGAN_NAME).exists()
    assert _listed(listed)
    assert (tmp_path / BEGAN_NAME).exists()
    (tmp_path / FILE_NAME).unlink()
    assert _held(_restarted(tmp_path)) == ((), True)


def test_each_write_flushes_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rename is flushed: a power loss does not bring back the file before it.

    :param tmp_path: the state folder.
    :param monkeypatch: pytest's monkeypatch.
    """
    listed = _restarted(tmp_path)
    flushed = []
    real = whole_file.fsync_folder

    def fsync_folder(folder: Path) -> None:
        flushed.append(json.loads((folder / FILE_NAME).read_text())["names"])
        real(folder)

    monkeypatch.setattr(whole_file, "fsync_folder", fsync_folder)
    assert _listed(listed)
    assert flushed and flushed[-1][0][0] == "t"  # after the rename of this write


@pytest.mark.usefixtures("short_wait")
def test_a_server_does_not_write_back_what_it_read_before_the_loss(
    tmp_path: Path,
) -> None:
    """B read ``t`` as OLD; A served NEW for ``t`` and failed; B's writes leave ``t`` unknown.

    What B lists at the write that finds the file lost is known (served after the
    loss); what it carried from before is written as dropped, and stays so at B's
    later writes until B lists it again.

    :param tmp_path: the state folder both share.
    """
    assert _listed(_restarted(tmp_path), OLD)
    server_a, server_b = _restarted(tmp_path), _restarted(tmp_path)
    assert _held(server_b) == ((OLD,), False)
    with FileLock(tmp_path / LOCK_NAME, thread_local=False):
        assert not _listed(server_a, NEW)  # t: NEW served, the file removed
    assert _listed(server_b, NEW, "u")  # B finds the file lost
    restarted = _restarted(tmp_path)
    assert _held(restarted) == ((), True), "B wrote back t as OLD only"
    assert _held(restarted, "u") == ((NEW,), False)
    assert _listed(server_b, OLD, "v")  # a later write of B: t still dropped
    assert _held(_restarted(tmp_path)) == ((), True)
    assert _held(server_b) == ((OLD,), False)  # B's own clients: what B served them
    assert _listed(server_b, OLD)  # listed again by B: known again
    assert _held(_restarted(tmp_path)) == ((OLD,), False)
