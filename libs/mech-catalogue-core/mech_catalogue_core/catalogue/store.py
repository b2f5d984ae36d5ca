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

"""What each agent keeps for itself, keyed by the digest the agents agree on.

Payloads carry digests only (``payloads.py``); the data behind a digest stays with each
agent, in these stores:

- :class:`DigestStore`: a bounded in-memory map digest -> value (the last few registry
  snapshots and catalogues this agent built), oldest dropped first;
- :class:`CatalogueFile`: the last agreed catalogue on disk, so an agent that restarts
  builds kept last-good entries exactly as the agents that did not restart (the file's
  name is the digest, and the content is re-hashed on load: a file that does not hash to
  its name is ignored and removed).
"""

import os
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Generic, Iterator, List, Optional, Tuple, TypeVar

from mech_catalogue_core.model.catalogue import (
    Catalogue,
)

V = TypeVar("V")

#: how many snapshots / catalogues an agent keeps by default (this period's and the last)
DEFAULT_KEEP = 4
CATALOGUE_SUFFIX = ".catalogue.json"


class DigestStore(Generic[V]):
    """A bounded map digest -> value; putting beyond ``keep`` drops the oldest entry."""

    def __init__(self, keep: int = DEFAULT_KEEP) -> None:
        """Create an empty store.

        :param keep: the most entries held (>= 1).
        """
        self._keep = max(1, keep)
        self._entries: "OrderedDict[str, V]" = OrderedDict()

    def put(self, digest: str, value: V) -> None:
        """Store a value under its digest (the newest entry).

        :param digest: the value's digest (hex).
        :param value: the value.
        """
        self._entries.pop(digest, None)
        self._entries[digest] = value
        while len(self._entries) > self._keep:
            self._entries.popitem(last=False)

    def get(self, digest: str) -> Optional[V]:
        """Look a digest up.

        :param digest: a digest.
        :return: the value, or None when this agent does not hold it.
        """
        return self._entries.get(digest)

    def __contains__(self, digest: object) -> bool:
        """Check membership.

        :param digest: a digest.
        :return: True when held.
        """
        return digest in self._entries

    def __len__(self) -> int:
        """Count entries.

        :return: entries held.
        """
        return len(self._entries)

    def __iter__(self) -> Iterator[str]:
        """Iterate over the digests, oldest first.

        :return: an iterator over the digests.
        """
        return iter(list(self._entries))


class CatalogueFile:
    """The last agreed catalogue of this agent, kept on disk across restarts.

    One file ``<digest>.catalogue.json`` (canonical JSON) in ``directory``; saving a new
    one removes the others. ``directory`` None keeps nothing.

    The agent saves with :meth:`save_in_background`: serialising a catalogue of 20,000
    registrations (83 MB here) took about 60 s of pure-Python CPU on a loaded 2-CPU
    machine, and done where the agreement is handled (the end of ``FetchManifestsRound``,
    inside Tendermint's block) it held every agent's block processing that long, so the
    next round's timeout expired before it began (``tests/faults/test_scale_four_agents.py``).
    """

    def __init__(self, directory: Optional[str]) -> None:
        """Open (and create) the directory.

        :param directory: where to keep the file; None disables persistence.
        """
        self.directory = directory
        if directory:
            os.makedirs(directory, exist_ok=True)
        self._writer: Optional[ThreadPoolExecutor] = None
        self._pending: Optional["Future[Optional[str]]"] = None
        self._lock = threading.Lock()

    def saved(self, digest: str) -> bool:
        """Tell whether the kept file already holds the catalogue of ``digest``.

        :param digest: a catalogue digest.
        :return: True when ``<digest>.catalogue.json`` exists in the directory.
        """
        return bool(self.directory) and os.path.exists(
            os.path.join(str(self.directory), digest + CATALOGUE_SUFFIX)
        )

    def save_in_background(
        self,
        catalogue: Catalogue,
        failed: Optional[Callable[[], None]] = None,
    ) -> Optional["Future[Optional[str]]"]:
        """Save the catalogue on one writer thread, unless that file is already there.

        The catalogue is immutable, so the thread reads it safely while the agent goes on.
        Saves run one after the other, in order; :meth:`load` and :meth:`flush` wait for
        them.

        :param catalogue: the agreed catalogue.
        :param failed: called (on the writer thread) when the disk refused the file.
        :return: the pending save, None when nothing is to be written (persistence off,
            or the file of this digest exists).
        """
        if not self.directory or self.saved(catalogue.digest()):
            return None

        def write() -> Optional[str]:
            path = self.save(catalogue)
            if path is None and failed is not None:
                failed()
            return path

        with self._lock:
            if self._writer is None:
                self._writer = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="catalogue-file"
                )
            self._pending = self._writer.submit(write)
            return self._pending

    def flush(self) -> None:
        """Wait until the saves started by :meth:`save_in_background` are on disk."""
        with self._lock:
            pending = self._pending
        if pending is not None:
            pending.result()

    def _files(self) -> List[str]:
        if not self.directory or not os.path.isdir(self.directory):
            return []
        return sorted(
            name
            for name in os.listdir(self.directory)
            if name.endswith(CATALOGUE_SUFFIX)
        )

    def save(self, catalogue: Catalogue) -> Optional[str]:
        """Write the catalogue (atomically) and remove older ones.

        :param catalogue: the agreed catalogue.
        :return: the file path, None when persistence is off or the disk refused (an
            agent must keep running when its disk is full: it then behaves as an agent
            that restarts without a kept catalogue).
        """
        if not self.directory:
            return None
        digest = catalogue.digest()
        path = os.path.join(self.directory, digest + CATALOGUE_SUFFIX)
        try:
            tmp = path + ".tmp"
            with open(tmp, "wb") as handle:
                for part in catalogue.canonical_parts():
                    handle.write(part)
            os.replace(tmp, path)
            for name in self._files():
                if name != digest + CATALOGUE_SUFFIX:
                    os.remove(os.path.join(self.directory, name))
        except OSError:
            return None
        return path

    def load(self) -> Tuple[Optional[Catalogue], str]:
        """Read the kept catalogue back, checking it hashes to its file name.

        :return: ``(catalogue or None, why not)``; a file that does not decode or does not
            hash to its name is removed and reported.
        """
        self.flush()
        for name in reversed(self._files()):
            path = os.path.join(str(self.directory), name)
            expected = name[: -len(CATALOGUE_SUFFIX)]
            try:
                with open(path, "rb") as handle:
                    catalogue = Catalogue.from_json(handle.read().decode("utf-8"))
            except (OSError, ValueError, UnicodeDecodeError) as exc:
                self._discard(path)
                return None, f"{path} is not a catalogue ({exc}); removed"
            if catalogue.digest() != expected:
                self._discard(path)
                return None, f"{path} does not hash to its name; removed"
            return catalogue, ""
        return None, "no kept catalogue"

    @staticmethod
    def _discard(path: str) -> None:
        try:
            os.remove(path)
        except OSError:
            pass
