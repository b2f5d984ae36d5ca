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
- :class:`CatalogueFile`: the last agreed catalogue in a store the agent hands in (its
  disk), so an agent that restarts builds kept last-good entries exactly as the agents
  that did not restart (the blob's name is the digest, and the content is re-hashed on
  load: a blob that does not hash to its name is ignored and removed).
"""

from collections import OrderedDict
from concurrent.futures import Future
from typing import Callable, Generic, Iterator, List, Optional, Tuple, TypeVar

from mech_catalogue_core.model.catalogue import (
    Catalogue,
)
from mech_catalogue_core.ports import Background, BlobStore

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
    """The last agreed catalogue of this agent, kept across restarts.

    One blob ``<digest>.catalogue.json`` (canonical JSON) in the :class:`BlobStore` it is
    handed (the agent's: a folder under ``state_dir``); saving a new one removes the
    others. No store keeps nothing.

    The agent saves with :meth:`save_in_background`, on the :class:`Background` it hands
    in: serialising a catalogue of 20,000 registrations (83 MB here) took about 60 s of
    pure-Python CPU on a loaded 2-CPU machine, and done where the agreement is handled
    (the end of ``FetchManifestsRound``, inside Tendermint's block) it held every agent's
    block processing that long, so the next round's timeout expired before it began
    (``tests/faults/test_scale_four_agents.py``).
    """

    def __init__(
        self, store: Optional[BlobStore], background: Optional[Background] = None
    ) -> None:
        """Keep the catalogue in ``store``.

        :param store: where to keep the blob; None disables persistence.
        :param background: where :meth:`save_in_background` runs the save (None: at once,
            on the caller's thread).
        """
        self.store = store
        self._background = background
        self._pending: Optional["Future[Optional[str]]"] = None

    def saved(self, digest: str) -> bool:
        """Tell whether the store already holds the catalogue of ``digest``.

        :param digest: a catalogue digest.
        :return: True when ``<digest>.catalogue.json`` is in the store.
        """
        return self.store is not None and digest + CATALOGUE_SUFFIX in self._names()

    def save_in_background(
        self,
        catalogue: Catalogue,
        failed: Optional[Callable[[], None]] = None,
    ) -> Optional["Future[Optional[str]]"]:
        """Save the catalogue in the background, unless that blob is already there.

        The catalogue is immutable, so the background reads it safely while the agent goes
        on. Saves run one after the other, in order; :meth:`load` and :meth:`flush` wait
        for them.

        :param catalogue: the agreed catalogue.
        :param failed: called (in the background) when the store refused the blob.
        :return: the pending save, None when nothing is to be written (persistence off,
            or the blob of this digest exists).
        """
        if self.store is None or self.saved(catalogue.digest()):
            return None

        def write() -> Optional[str]:
            name = self.save(catalogue)
            if name is None and failed is not None:
                failed()
            return name

        if self._background is None:
            done: "Future[Optional[str]]" = Future()
            done.set_result(write())
            self._pending = done
        else:
            self._pending = self._background.submit(write)
        return self._pending

    def flush(self) -> None:
        """Wait until the saves started by :meth:`save_in_background` are kept."""
        pending = self._pending
        if pending is not None:
            pending.result()

    def _names(self) -> List[str]:
        if self.store is None:
            return []
        return [n for n in self.store.names() if n.endswith(CATALOGUE_SUFFIX)]

    def save(self, catalogue: Catalogue) -> Optional[str]:
        """Write the catalogue (atomically) and remove older ones.

        :param catalogue: the agreed catalogue.
        :return: the blob's name, None when persistence is off or the store refused (an
            agent must keep running when its disk is full: it then behaves as an agent
            that restarts without a kept catalogue).
        """
        if self.store is None:
            return None
        name = catalogue.digest() + CATALOGUE_SUFFIX
        if not self.store.write(name, catalogue.canonical_parts()):
            return None
        for other in self._names():
            if other != name:
                self.store.remove(other)
        return name

    def load(self) -> Tuple[Optional[Catalogue], str]:
        """Read the kept catalogue back, checking it hashes to its name.

        :return: ``(catalogue or None, why not)``; a blob that does not decode or does not
            hash to its name is removed and reported.
        """
        self.flush()
        store = self.store
        if store is None:
            return None, "no kept catalogue"
        for name in reversed(sorted(self._names())):
            expected = name[: -len(CATALOGUE_SUFFIX)]
            where = f"{name} in {store!r}"
            data = store.read(name)
            catalogue, why = None, "it could not be read"
            if data is not None:
                try:
                    catalogue = Catalogue.from_json(data.decode("utf-8"))
                except (ValueError, UnicodeDecodeError) as exc:
                    why = str(exc)
            if catalogue is None:
                store.remove(name)
                return None, f"{where} is not a catalogue ({why}); removed"
            if catalogue.digest() != expected:
                store.remove(name)
                return None, f"{where} does not hash to its name; removed"
            return catalogue, ""
        return None, "no kept catalogue"
