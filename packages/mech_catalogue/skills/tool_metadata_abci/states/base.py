"""Events and the synchronized data of the ToolMetadataAbciApp.

Database keys written by this app (all strings, so they survive the Tendermint round trip):

==============================  =============================================================
key                             value
==============================  =============================================================
``registry_snapshot_digest``    sha2-256 hex of the agreed registry snapshot
``registry_snapshot``           canonical JSON of ``domain.snapshot.RegistrySnapshot``
``catalogue_digest``            sha2-256 hex of the agreed ``Catalogue`` (``Catalogue.digest``)
``mechs_info``                  JSON list of mech-interact ``MechInfo``-compatible dicts
``mech_tools``                  JSON list of tool names (sorted)
``participant_to_snapshot``     the collected RegistrySnapshotPayloads
``participant_to_catalogue``    the collected CataloguePayloads
==============================  =============================================================
"""

import json
from enum import Enum
from typing import Any, Dict, List, Mapping, Optional, Set, cast

from packages.mech_catalogue.skills.tool_metadata_abci.domain.snapshot import (
    RegistrySnapshot,
)
from packages.valory.skills.abstract_round_abci.base import (
    BaseSynchronizedData,
    CollectionRound,
)

EMPTY_JSON_LIST = "[]"

#: keys kept across periods, seeded empty by ``models.SharedState.setup``
CROSS_PERIOD_DEFAULTS: Dict[str, str] = {
    "registry_snapshot_digest": "",
    "catalogue_digest": "",
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
    def registry_snapshot(self) -> Optional[RegistrySnapshot]:
        """Get the agreed registry snapshot.

        :return: the agreed snapshot, None before the first agreement (ValueError
            when the stored JSON is not a snapshot, which agreed data never is).
        """
        text = self.db.get("registry_snapshot", None)
        return None if not text else RegistrySnapshot.from_json(str(text))

    @property
    def catalogue_digest(self) -> str:
        """Get the agreed catalogue digest ("" before the first agreement).

        :return: the agreed catalogue digest ("" before the first agreement).
        """
        return str(self.db.get("catalogue_digest", "") or "")

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
    def participant_to_catalogue(self) -> Mapping[str, Any]:
        """Get the collected catalogue payloads.

        :return: sender -> CataloguePayload.
        """
        return CollectionRound.deserialize_collection(
            self.db.get_strict("participant_to_catalogue")
        )
