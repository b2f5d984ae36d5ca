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

"""The folder store and the one-thread worker the skills and the CLI hand to the library."""

import os
import threading
import time
from pathlib import Path
from typing import List

import pytest
from mech_catalogue_core.adapters.background import OneWorker
from mech_catalogue_core.adapters.directory import PARTIAL_SUFFIX, DirectoryStore
from mech_catalogue_core.catalogue.fetching import ManifestCache
from mech_catalogue_core.catalogue.store import CatalogueFile
from mech_catalogue_core.model.catalogue import Catalogue


def test_a_blob_reads_back_whole_or_capped(tmp_path: Path) -> None:
    """What is written is read back; a cap reads a prefix; a missing name is None."""
    store = DirectoryStore(str(tmp_path / "made"))
    assert (tmp_path / "made").is_dir()  # created when missing
    assert store.write("bafkabc", (b"he", b"llo"))
    assert store.read("bafkabc") == b"hello"
    assert store.read("bafkabc", cap=3) == b"hel"
    assert store.read("bafkother") is None
    assert store.names() == ["bafkabc"]


@pytest.mark.parametrize("name", ["../escape", "a/b", "..", ".", "", "a\\b"])
def test_names_outside_the_folder_are_absent(tmp_path: Path, name: str) -> None:
    """A name with a separator, ``.`` or ``..`` is neither written nor read nor removed."""
    store = DirectoryStore(str(tmp_path / "inner"))
    (tmp_path / "escape").write_bytes(b"outside")
    assert not store.write(name, (b"x",))
    assert store.read(name) is None
    assert not store.remove(name)
    assert (tmp_path / "escape").read_bytes() == b"outside"
    assert not os.listdir(tmp_path / "inner")


def test_a_refused_write_keeps_nothing_and_says_so(tmp_path: Path) -> None:
    """The folder gone under the store: write answers False, nothing is half-written."""
    folder = tmp_path / "gone"
    store = DirectoryStore(str(folder))
    folder.rmdir()
    assert not store.write("bafkabc", (b"data",))
    assert store.read("bafkabc") is None and store.names() == []


def test_a_write_is_atomic_for_readers(tmp_path: Path) -> None:
    """While parts are still coming, readers see the old blob, and names() no partial one."""
    store = DirectoryStore(str(tmp_path))
    store.write("blob", (b"old",))
    seen: List[object] = []

    def parts():  # type: ignore[no-untyped-def]
        yield b"new "
        seen.append((store.read("blob"), store.names()))
        yield b"blob"

    assert store.write("blob", parts())
    assert seen == [(b"old", ["blob"])]
    assert store.read("blob") == b"new blob"
    assert not any(n.endswith(PARTIAL_SUFFIX) for n in os.listdir(tmp_path))


def test_remove_says_whether_there_was_a_blob(tmp_path: Path) -> None:
    """Removing twice: True, then False."""
    store = DirectoryStore(str(tmp_path))
    store.write("blob", (b"x",))
    assert store.remove("blob") and not store.remove("blob")


def test_the_manifest_cache_survives_a_restart_through_the_store(
    tmp_path: Path,
) -> None:
    """Bytes put through one cache are found by a new cache on the same folder, verified."""
    ManifestCache(DirectoryStore(str(tmp_path))).put("bafkabc", b"manifest")
    restarted = ManifestCache(DirectoryStore(str(tmp_path)))
    assert restarted.get("bafkabc", verify=lambda d: d == b"manifest") == b"manifest"
    assert (
        ManifestCache(DirectoryStore(str(tmp_path))).get(
            "bafkabc", verify=lambda d: False
        )
        is None
    )


def test_one_worker_runs_in_order_off_the_callers_thread() -> None:
    """Tasks run one after the other, in submission order, on the worker's thread."""
    worker = OneWorker("probe")
    ran: List[str] = []
    gate = threading.Event()

    def first() -> str:
        assert gate.wait(5)
        ran.append("first")
        return threading.current_thread().name

    second = worker.submit(lambda: ran.append("second"))
    blocked = worker.submit(first)
    assert not blocked.done()  # the caller goes on
    time.sleep(0.05)
    gate.set()
    assert blocked.result(5).startswith("probe") and second.done()
    assert ran == ["second", "first"]


def test_without_a_background_the_catalogue_is_saved_at_once(tmp_path: Path) -> None:
    """A CatalogueFile with no Background saves on the caller's thread, done at once."""
    kept = CatalogueFile(DirectoryStore(str(tmp_path)))
    pending = kept.save_in_background(Catalogue.build(()))
    assert pending is not None and pending.done()
    assert kept.load() == (Catalogue.build(()), "")
