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

"""Events and the synchronized data of the ToolMetadataAbciApp.

Database keys written by this app (all strings or ints, so they survive the Tendermint
round trip). Nothing that grows with ids or mechs is agreed by payload: the snapshot and
the catalogue are agreed by digest and stay with each agent; only the mech-interact views
are written here, after they are agreed chunk by chunk.

==============================  =============================================================
key                             value
==============================  =============================================================
``registry_snapshot_block``     block the agreed snapshot was read at
``registry_snapshot_digest``    sha2-256 hex of the agreed registry snapshot
``catalogue_digest``            sha2-256 hex of the agreed ``Catalogue`` (``Catalogue.digest``)
``catalogue_views_digest``      sha2-256 hex of the agreed catalogue's views document
``catalogue_views_chunks``      how many chunks that document takes
``views_chunk_<i>``             the i-th views chunk agreed in this period (emptied at the end)
``views_received_count``        how many chunks were agreed so far in this period
``views_digest``                digest of the views in ``mechs_info`` / ``mech_tools``
``mechs_info``                  JSON list of mech-interact ``MechInfo``-compatible dicts
``mech_tools``                  JSON list of tool names (sorted)
``participant_to_snapshot``     the collected RegistrySnapshotPayloads
``participant_to_catalogue``    the collected CataloguePayloads
``participant_to_views``        the collected ViewsChunkPayloads
==============================  =============================================================
"""

import json
from enum import Enum
from typing import Any, Dict, List, Mapping, Set, cast

from packages.valory.skills.abstract_round_abci.base import (
    BaseSynchronizedData,
    CollectionRound,
)

EMPTY_JSON_LIST = "[]"

#: keys kept across periods, seeded empty by ``models.SharedState.setup``
CROSS_PERIOD_DEFAULTS: Dict[str, str] = {
    "registry_snapshot_digest": "",
    "catalogue_digest": "",
    "views_digest": "",
    "mechs_info": EMPTY_JSON_LIST,
    "mech_tools": EMPTY_JSON_LIST,
}


class Event(Enum):
    """ToolMetadataAbciApp events."""

    DONE = "done"
    NONE = "none"
    NO_MAJORITY = "no_majority"
    ROUND_TIMEOUT = "round_timeout"
    FETCH_TIMEOUT = "fetch_timeout"
    SNAPSHOT_TIMEOUT = "snapshot_timeout"
    VIEWS_UNCHANGED = "views_unchanged"
    NEXT_CHUNK = "next_chunk"


class SynchronizedData(BaseSynchronizedData):
    """The tool metadata app's view of the replicated database."""

    def _json_list(self, key: str) -> List[Any]:
        value = self.db.get(key, EMPTY_JSON_LIST)
        if isinstance(value, str):
            value = json.loads(value or EMPTY_JSON_LIST)
        return list(value or [])

    @property
    def registry_snapshot_digest(self) -> str:
        """Get the agreed snapshot digest ("" before the first agreement).

        :return: the agreed snapshot digest ("" before the first agreement).
        """
        return str(self.db.get("registry_snapshot_digest", "") or "")

    @property
    def registry_snapshot_block(self) -> int:
        """Get the block the agreed snapshot was read at (0 before the first agreement).

        :return: the block number.
        """
        return int(self.db.get("registry_snapshot_block", 0) or 0)

    @property
    def catalogue_digest(self) -> str:
        """Get the agreed catalogue digest ("" before the first agreement).

        :return: the agreed catalogue digest ("" before the first agreement).
        """
        return str(self.db.get("catalogue_digest", "") or "")

    def _text(self, key: str) -> str:
        return str(self.db.get(key, "") or "")

    @property
    def catalogue_views_digest(self) -> str:
        """Get the digest of the agreed catalogue's views document ("" before).

        :return: sha2-256 hex.
        """
        return self._text("catalogue_views_digest")

    @property
    def catalogue_views_chunks(self) -> int:
        """Get how many chunks the agreed views document takes.

        :return: the chunk count (0 before the first agreement).
        """
        return int(self.db.get("catalogue_views_chunks", 0) or 0)

    @property
    def views_received_count(self) -> int:
        """Get how many views chunks were agreed so far in this period.

        :return: the count.
        """
        return int(self.db.get("views_received_count", 0) or 0)

    @property
    def views_digest(self) -> str:
        """Get the digest of the views written in ``mechs_info`` / ``mech_tools``.

        :return: sha2-256 hex ("" before the first views were written).
        """
        return self._text("views_digest")

    @property
    def mechs_info(self) -> List[Dict[str, Any]]:
        """Get mech-interact ``MechInfo``-compatible dicts (``MechInfo(**item)`` accepts each).

        :return: mech-interact ``MechInfo``-compatible dicts (``MechInfo(**item)`` accepts each).
        """
        return cast(List[Dict[str, Any]], self._json_list("mechs_info"))

    @property
    def mech_tools(self) -> Set[str]:
        """Get the tool names of the agreed catalogue (mech-interact's type: a set).

        :return: the tool names of the agreed catalogue (mech-interact's type: a set).
        """
        return set(self._json_list("mech_tools"))

    @property
    def participant_to_snapshot(self) -> Mapping[str, Any]:
        """Get the collected registry snapshot payloads.

        :return: sender -> RegistrySnapshotPayload.
        """
        return CollectionRound.deserialize_collection(
            self.db.get_strict("participant_to_snapshot")
        )

    @property
    def participant_to_views(self) -> Mapping[str, Any]:
        """Get the collected views chunk payloads.

        :return: sender -> ViewsChunkPayload.
        """
        return CollectionRound.deserialize_collection(
            self.db.get_strict("participant_to_views")
        )

    @property
    def participant_to_catalogue(self) -> Mapping[str, Any]:
        """Get the collected catalogue payloads.

        :return: sender -> CataloguePayload.
        """
        return CollectionRound.deserialize_collection(
            self.db.get_strict("participant_to_catalogue")
        )
