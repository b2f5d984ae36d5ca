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

"""Transaction payloads of the ToolMetadataAbciApp.

Payloads are bounded by construction: each carries digests, counts and at most one chunk
of :data:`VIEWS_CHUNK_CHARS` characters, whatever the number of ids, mechs or tools.
open-autonomy sends a transaction as hex in a GET URL, which Tendermint 0.34 refuses past
about 1 MiB of header (``431``), and ``BaseTxPayload`` refuses 1 MiB; every payload here
stays under :data:`MAX_PAYLOAD_BYTES` (checked by the tests at 20,000 ids and 200,000
tools). The snapshot and the catalogue stay with each agent (``SharedState``), keyed by
the digest the agents agree on.
"""

from dataclasses import dataclass
from typing import Optional

from packages.valory.skills.abstract_round_abci.base import BaseTxPayload

#: characters of the mech-interact views JSON (ASCII only) one ViewsChunkPayload carries.
#: Sized for the smallest transport: the abci connection's mock Tendermint (single-agent
#: runs) reads the GET request line with asyncio's default 64 KiB stream limit, and the
#: transaction rides in that line as hex (two characters per byte); a larger chunk was
#: dropped ("Server disconnected") and ShareViewsRound timed out forever at ~95 mechs.
VIEWS_CHUNK_CHARS = 12 * 1024
#: the most bytes an encoded payload of this app takes: a chunk is printable ASCII, and
#: encoding the payload escapes at most every character of it once (``"`` and ``\``),
#: plus the fixed fields: 28,672 bytes, i.e. at most 57,344 hex characters in the URL
MAX_PAYLOAD_BYTES = 2 * VIEWS_CHUNK_CHARS + 4096
#: the longest HTTP request line the mock Tendermint reads (asyncio.StreamReader's default
#: limit, which ``valory/abci`` connection.py does not raise); real Tendermint 0.34 allows
#: about 1 MiB of header (open-autonomy #2102)
MOCK_TENDERMINT_LINE_LIMIT = 64 * 1024


@dataclass(frozen=True)
class RegistrySnapshotPayload(BaseTxPayload):
    """What one agent read from the registries: the block and the snapshot's digest.

    :param block_number: the block the registries were read at; None when they could not
        be read (RPC down, wrong Multicall2 address).
    :param snapshot_digest: sha2-256 hex of the canonical snapshot; None with the block.
    """

    block_number: Optional[int]
    snapshot_digest: Optional[str]


@dataclass(frozen=True)
class CataloguePayload(BaseTxPayload):
    """The catalogue one agent built from the agreed snapshot, by digest.

    :param catalogue_digest: sha2-256 hex of the canonical catalogue (``Catalogue.digest``);
        None when this agent has no catalogue built from the agreed snapshot.
    :param views_digest: sha2-256 hex of the canonical mech-interact views JSON
        (``{"mechs_info": [...], "mech_tools": [...]}``, see ``domain.views``).
    :param views_chunks: how many :class:`ViewsChunkPayload` chunks the views take.
    """

    catalogue_digest: Optional[str]
    views_digest: Optional[str]
    views_chunks: Optional[int]


@dataclass(frozen=True)
class ViewsChunkPayload(BaseTxPayload):
    """One chunk of the agreed mech-interact views, sent by every agent that holds them.

    :param views_digest: the agreed views digest this chunk belongs to (None: this agent
        does not hold the agreed catalogue and votes for nothing).
    :param chunk_index: the chunk's index, from 0.
    :param chunk: at most :data:`VIEWS_CHUNK_CHARS` characters of the views JSON.
    """

    views_digest: Optional[str]
    chunk_index: Optional[int]
    chunk: Optional[str]
