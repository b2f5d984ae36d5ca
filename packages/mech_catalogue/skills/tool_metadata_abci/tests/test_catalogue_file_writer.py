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

"""The kept catalogue file is written on a writer thread, off the agreement's path.

At 20,000 registrations (83 MB) writing it took about 60 s on a loaded 2-CPU machine;
``expose_if_agreed`` runs while the agent handles the block that ends
``FetchManifestsRound``, so every agent's Tendermint waited that long and
``ShareViewsRound``'s timeout expired before it began (the period restarted for ever).
"""

import os
import threading
from pathlib import Path
from typing import Optional, cast

from mech_catalogue_core.adapters.background import OneWorker
from mech_catalogue_core.adapters.directory import DirectoryStore
from mech_catalogue_core.catalogue.store import (
    CATALOGUE_SUFFIX,
    CatalogueFile,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)

from packages.mech_catalogue.skills.tool_metadata_abci.models import SharedState
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    ToolMetadataBehaviourCase,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.test_agreement_on_facts import (
    GOOD,
    REFS,
    _digest,
    _first_catalogue,
)

WAIT = 10.0


class HeldFile(CatalogueFile):
    """A catalogue file whose writes wait until :attr:`release` is set (a slow disk/CPU)."""

    def __init__(self, directory: Optional[str]) -> None:
        """Open the directory; writes are held.

        :param directory: the folder.
        """
        super().__init__(DirectoryStore(str(directory)), OneWorker("catalogue-file"))
        self.release = threading.Event()
        self.writing = threading.Event()

    def save(self, catalogue: Catalogue) -> Optional[str]:
        """Wait for :attr:`release`, then write.

        :param catalogue: the catalogue.
        :return: the blob's name.
        """
        self.writing.set()
        assert self.release.wait(WAIT)
        return super().save(catalogue)


def _file_of(folder: Path, catalogue: Catalogue) -> Path:
    return folder / (catalogue.digest() + CATALOGUE_SUFFIX)


def test_background_save_returns_before_the_write(tmp_path: Path) -> None:
    """The caller goes on while the write is held; flush waits for it."""
    store = HeldFile(str(tmp_path))
    first = _first_catalogue()
    pending = store.save_in_background(first)
    assert pending is not None and store.writing.wait(WAIT)
    assert not pending.done() and not _file_of(tmp_path, first).exists()
    store.release.set()
    store.flush()
    assert pending.done() and _file_of(tmp_path, first).exists()


def test_load_waits_for_a_pending_save(tmp_path: Path) -> None:
    """A load right after a save (a restart in the same process) sees the saved file."""
    store = HeldFile(str(tmp_path))
    first = _first_catalogue()
    store.save_in_background(first)
    threading.Timer(0.2, store.release.set).start()
    loaded, why = store.load()
    assert loaded == first and why == ""


def test_the_same_catalogue_is_not_written_again(tmp_path: Path) -> None:
    """A warm period agrees on the same digest: the kept file is left as it is."""
    store = CatalogueFile(DirectoryStore(str(tmp_path)), OneWorker("catalogue-file"))
    first = _first_catalogue()
    path = tmp_path / str(store.save(first))
    before = path.stat().st_mtime_ns
    assert store.save_in_background(first) is None
    store.flush()
    assert path.stat().st_mtime_ns == before
    assert CatalogueFile(None).save_in_background(first) is None


def test_saves_run_in_order_and_keep_the_latest(tmp_path: Path) -> None:
    """Two saves queued: the second one's file is the one kept."""
    store = CatalogueFile(DirectoryStore(str(tmp_path)), OneWorker("catalogue-file"))
    first = _first_catalogue()
    second = Catalogue.build(first.mechs[:1])
    store.save_in_background(first)
    store.save_in_background(second)
    store.flush()
    assert os.listdir(tmp_path) == [second.digest() + CATALOGUE_SUFFIX]


def test_a_refused_write_is_reported(tmp_path: Path) -> None:
    """The folder replaced by a file: the write fails and ``failed`` is called."""
    folder = tmp_path / "catalogues"
    store = CatalogueFile(DirectoryStore(str(folder)), OneWorker("catalogue-file"))
    folder.rmdir()
    folder.write_bytes(b"not a folder")
    failures = []
    store.save_in_background(_first_catalogue(), lambda: failures.append(1))
    store.flush()
    assert failures == [1]


class TestExposeDoesNotWaitForTheFile(ToolMetadataBehaviourCase):
    """expose_if_agreed returns while the kept file is still being written."""

    def test_expose_returns_while_the_write_is_held(self, tmp_path: Path) -> None:
        """The catalogue is exposed (HTTP, shared_state) before its file exists."""
        state = cast(SharedState, self.skill.skill_context.state)
        store = HeldFile(str(tmp_path))
        state.catalogue_file = store
        catalogue = _first_catalogue()
        snapshot = RegistrySnapshot.build(
            10, [DigestRead(REFS[0], _digest(GOOD)), DigestRead(REFS[1], _digest(GOOD))]
        )
        state.candidate = (catalogue, snapshot)
        try:
            assert state.expose_if_agreed(catalogue.digest(), 0)
            assert state.exposed is not None
            assert state.exposed.catalogue_digest == catalogue.digest()
            assert store.writing.wait(WAIT)
            assert not _file_of(tmp_path, catalogue).exists()
        finally:
            store.release.set()
        store.flush()
        assert _file_of(tmp_path, catalogue).exists()


def test_streamed_file_is_the_canonical_bytes(tmp_path: Path) -> None:
    """The file is written one mech at a time, byte for byte the catalogue's canonical form."""
    first = _first_catalogue()
    for catalogue in (first, Catalogue.build(first.mechs[:1]), Catalogue.build(())):
        joined = b"".join(catalogue.canonical_parts())
        assert joined == catalogue.canonical_bytes()
        store = CatalogueFile(DirectoryStore(str(tmp_path / catalogue.digest())))
        assert (
            tmp_path / catalogue.digest() / str(store.save(catalogue))
        ).read_bytes() == joined
        assert store.load() == (catalogue, "")
