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

"""The registry snapshot: what every agent read on chain, and the digest they agree on.

A snapshot is the ordered list of ``(mech, latest digest, read error)`` for every id of
every configured registry, read at one block. Its digest is sha2-256 over the RFC 8785
canonical JSON of :meth:`RegistrySnapshot.to_dict`, so agents that read the same block get
the same digest (``RegistrySnapshotRound`` collects it).
"""

from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.model.canonical import (
    canonical_bytes,
    decode,
    sha256_hex,
)
from mech_catalogue_core.model.tool import MechRef

SNAPSHOT_VERSION = 1


@dataclass(frozen=True)
class RegistrySnapshot:
    """Every id's latest on-chain digest at one block.

    :param block_number: the block the registries were read at.
    :param reads: one entry per (registry, id), sorted by :class:`MechRef`.
    """

    block_number: int
    reads: Tuple[DigestRead, ...] = ()

    @classmethod
    def build(
        cls, block_number: int, reads: Iterable[DigestRead]
    ) -> "RegistrySnapshot":
        """Build a snapshot with reads sorted by ref (a later read of the same ref wins).

        :param block_number: the block read at.
        :param reads: the reads, any order.
        :return: the snapshot with reads sorted by ref (a later read of the same ref wins).
        """
        by_ref = {r.ref: r for r in reads}
        return cls(block_number, tuple(by_ref[ref] for ref in sorted(by_ref)))

    def to_dict(self) -> Dict[str, Any]:
        """Serialise to a JSON-compatible dict, reads grouped by registry (about 80 bytes per id).

        :return: ``{"version", "block_number", "registries": [[chain_id, kind, address,
            [[id, digest, error], ...]], ...]}``, registries and ids in ref order.
        """
        groups: Dict[Tuple[int, str, str], List[List[Any]]] = {}
        for read in self.reads:
            key = (read.ref.chain_id, read.ref.registry_kind, read.ref.registry_address)
            groups.setdefault(key, []).append(
                [read.ref.mech_id, read.digest, read.error]
            )
        return {
            "version": SNAPSHOT_VERSION,
            "block_number": self.block_number,
            "registries": [[*key, entries] for key, entries in groups.items()],
        }

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "RegistrySnapshot":
        """Load a snapshot.

        :param data: from :meth:`to_dict`.
        :return: the snapshot.
        :raises ValueError: on an unknown version or a malformed entry.
        """
        if data.get("version") != SNAPSHOT_VERSION:
            raise ValueError(
                f"registry snapshot version {data.get('version')!r} is not {SNAPSHOT_VERSION}"
            )
        try:
            reads = [
                DigestRead(MechRef(int(c), str(k), str(a), int(i)), str(d), str(e))
                for c, k, a, entries in data["registries"]
                for i, d, e in entries
            ]
            return cls.build(int(data["block_number"]), reads)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a serialised registry snapshot: {exc!r}") from exc

    def to_json(self) -> str:
        """Serialise to canonical JSON text (identical on every agent for the same reads).

        :return: canonical JSON text (identical on every agent for the same reads).
        """
        return canonical_bytes(self.to_dict()).decode("utf-8")

    @classmethod
    def from_json(cls, text: str) -> "RegistrySnapshot":
        """Load a snapshot.

        :param text: from :meth:`to_json`.
        :return: the snapshot.
        :raises ValueError: on bad input.
        """
        try:
            return cls.from_dict(decode(text))
        except (TypeError, AttributeError, ValueError) as exc:
            raise ValueError(f"not a serialised registry snapshot: {exc}") from exc

    def digest(self) -> str:
        """Compute the snapshot digest.

        :return: sha2-256 of the canonical JSON, 64 lowercase hex characters.
        """
        return sha256_hex(canonical_bytes(self.to_dict()))

    def read(self, ref: MechRef) -> Optional[DigestRead]:
        """Find one mech's read.

        :param ref: a mech.
        :return: its read, or None when it is not in the snapshot.
        """
        for entry in self.reads:
            if entry.ref == ref:
                return entry
        return None

    @property
    def digests(self) -> Tuple[str, ...]:
        """Get the distinct non-empty digests.

        :return: the distinct non-empty digests, sorted (what needs fetching).
        """
        return tuple(sorted({r.digest for r in self.reads if r.digest}))
