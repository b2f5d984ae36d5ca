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

"""The ToolMetadataAbciApp: read the registries, fetch and verify manifests, agree.

Rounds agree on digests (the snapshot's, the catalogue's, its views'), never on data that
grows with ids, mechs or tools: each agent keeps the snapshot and catalogue it built, and
the mech-interact views reach the database through ``ShareViewsRound`` in bounded chunks.
"""

from typing import Dict, FrozenSet, Set

from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    CROSS_PERIOD_DEFAULTS,
    Event,
    SynchronizedData,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.fetch_manifests import (
    FetchManifestsRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.final_states import (
    FinishedCatalogueReadyRound,
    FinishedWithoutUpdateRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.registry_snapshot import (
    RegistrySnapshotRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.share_views import (
    ShareViewsRound,
)
from packages.valory.skills.abstract_round_abci.base import (
    AbciApp,
    AbciAppTransitionFunction,
    AppState,
    get_name,
)


class ToolMetadataAbciApp(AbciApp[Event]):
    """ToolMetadataAbciApp

    Initial round: RegistrySnapshotRound

    Initial states: {RegistrySnapshotRound}

    Transition states:
        0. RegistrySnapshotRound
            - done: 1.
            - none: 4.
            - no majority: 0.
            - snapshot timeout: 0.
        1. FetchManifestsRound
            - done: 2.
            - views unchanged: 3.
            - none: 4.
            - no majority: 0.
            - fetch timeout: 0.
        2. ShareViewsRound
            - done: 3.
            - next chunk: 2.
            - none: 4.
            - no majority: 0.
            - round timeout: 0.
        3. FinishedCatalogueReadyRound
        4. FinishedWithoutUpdateRound

    Final states: {FinishedCatalogueReadyRound, FinishedWithoutUpdateRound}

    Timeouts:
        round timeout: 30.0
        fetch timeout: 120.0
        snapshot timeout: 120.0
    """

    initial_round_cls: AppState = RegistrySnapshotRound
    initial_states: Set[AppState] = {RegistrySnapshotRound}
    transition_function: AbciAppTransitionFunction = {
        RegistrySnapshotRound: {
            Event.DONE: FetchManifestsRound,
            Event.NONE: FinishedWithoutUpdateRound,
            Event.NO_MAJORITY: RegistrySnapshotRound,
            Event.SNAPSHOT_TIMEOUT: RegistrySnapshotRound,
        },
        FetchManifestsRound: {
            Event.DONE: ShareViewsRound,
            Event.VIEWS_UNCHANGED: FinishedCatalogueReadyRound,
            Event.NONE: FinishedWithoutUpdateRound,
            Event.NO_MAJORITY: RegistrySnapshotRound,
            Event.FETCH_TIMEOUT: RegistrySnapshotRound,
        },
        ShareViewsRound: {
            Event.DONE: FinishedCatalogueReadyRound,
            Event.NEXT_CHUNK: ShareViewsRound,
            Event.NONE: FinishedWithoutUpdateRound,
            Event.NO_MAJORITY: RegistrySnapshotRound,
            Event.ROUND_TIMEOUT: RegistrySnapshotRound,
        },
        FinishedCatalogueReadyRound: {},
        FinishedWithoutUpdateRound: {},
    }
    final_states: Set[AppState] = {
        FinishedCatalogueReadyRound,
        FinishedWithoutUpdateRound,
    }
    event_to_timeout: Dict[Event, float] = {
        Event.ROUND_TIMEOUT: 30.0,
        Event.FETCH_TIMEOUT: 120.0,
        Event.SNAPSHOT_TIMEOUT: 120.0,
    }
    cross_period_persisted_keys: FrozenSet[str] = frozenset(CROSS_PERIOD_DEFAULTS)
    db_pre_conditions: Dict[AppState, Set[str]] = {RegistrySnapshotRound: set()}
    db_post_conditions: Dict[AppState, Set[str]] = {
        FinishedCatalogueReadyRound: {
            get_name(SynchronizedData.registry_snapshot_block),
            get_name(SynchronizedData.registry_snapshot_digest),
            get_name(SynchronizedData.catalogue_digest),
            get_name(SynchronizedData.mechs_info),
            get_name(SynchronizedData.mech_tools),
        },
        FinishedWithoutUpdateRound: set(),
    }
