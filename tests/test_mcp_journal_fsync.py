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

"""A journal save is durable in order: the entry, its key, the folder (issue 29, fix29f).

A rename is a change of the *folder*: until the folder itself is flushed, a power loss
may lose the renamed entry while its key line in ``changes.log`` survives, or (a new
``changes.log``) keep the entry and lose the list that names it. A power loss cannot be
made here (it needs the kernel to drop its page cache: a virtual machine or a
device-mapper target), so these tests record the calls a save makes, in order, by
wrapping ``os.fsync``, ``os.replace`` and ``changes.append`` (the real ones still run;
each fsync is named by the path of its descriptor, ``/proc/self/fd``): what makes the
save durable is exactly those calls and their order. Real files in a temporary folder.
"""

import os
from pathlib import Path
from typing import Any, List

import pytest

from mech_catalogue_cli.mcp_server.journal import CHANGES_FILE, Journal, changes, store
from tests.test_mcp_spend_index import entry


def _record(monkeypatch: pytest.MonkeyPatch, folder: Path) -> List[str]:
    """Record a save's fsyncs, appends and renames, in order (the real calls still run)."""
    # :param monkeypatch: pytest's.
    # :param folder: the journal folder.
    # :return: the list the calls are appended to: "fsync <name>", "append", "replace".
    calls: List[str] = []
    real_fsync, real_replace, real_append = os.fsync, os.replace, changes.append

    def fsync(fd: int) -> None:
        path = Path(os.readlink(f"/proc/self/fd/{fd}"))
        if path == folder:
            name = "folder"
        elif path.name == CHANGES_FILE:
            name = "changes"
        elif path.suffix == ".tmp":
            name = "entry"
        else:
            name = str(path)
        calls.append(f"fsync {name}")
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        real_replace(src, dst)
        calls.append("replace")

    def append(where: Path, key: str) -> None:
        calls.append("append")
        real_append(where, key)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(store.os, "replace", replace)
    monkeypatch.setattr(changes, "append", append)
    return calls


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux)")
def test_the_first_save_flushes_the_new_list_s_name_then_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new changes.log is in the folder on disk before the entry, the rename after."""
    journal = Journal(tmp_path)
    calls = _record(monkeypatch, journal.folder)
    journal.save(entry(1, 5))
    assert calls == [
        "fsync entry",
        "append",
        "fsync changes",
        "fsync folder",  # the new list's name, before the entry it names is placed
        "replace",
        "fsync folder",  # the rename itself
    ]
    assert (journal.folder / f"{entry(1, 5).key}.json").exists()


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux)")
def test_every_later_save_flushes_the_folder_after_its_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list already exists: its line, the rename, then the folder, each save."""
    journal = Journal(tmp_path)
    journal.save(entry(1, 5))
    calls = _record(monkeypatch, journal.folder)
    journal.save(entry(1, 6))  # the same entry rewritten
    journal.save(entry(2, 7))
    one = ["fsync entry", "append", "fsync changes", "replace", "fsync folder"]
    assert calls == one + one


def test_a_folder_that_cannot_be_flushed_fails_the_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error flushing the folder is raised: the caller sends nothing it journalled."""
    journal = Journal(tmp_path)
    journal.save(entry(1, 5))
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if Path(os.readlink(f"/proc/self/fd/{fd}")) == journal.folder:
            raise OSError(5, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OSError, match="Input/output"):
        journal.save(entry(2, 7))
