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

"""The ToolMetadataAbciApp (rounds.py): transitions, timeouts, cross-period keys."""

from typing import Any, Dict, List

import pytest

from packages.mech_catalogue.skills.tool_metadata_abci.rounds import ToolMetadataAbciApp
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
from packages.mech_catalogue.skills.tool_metadata_abci.tests.round_case import (
    CATALOGUE_DIGEST,
    MECH_TOOLS,
)
from packages.valory.skills.abstract_round_abci.base import (
    AbciAppDB,
)


@pytest.mark.parametrize(
    "round_cls, event, next_round",
    [
        (RegistrySnapshotRound, Event.DONE, FetchManifestsRound),
        (RegistrySnapshotRound, Event.NONE, FinishedWithoutUpdateRound),
        (RegistrySnapshotRound, Event.NO_MAJORITY, RegistrySnapshotRound),
        (RegistrySnapshotRound, Event.SNAPSHOT_TIMEOUT, RegistrySnapshotRound),
        (FetchManifestsRound, Event.DONE, ShareViewsRound),
        (FetchManifestsRound, Event.VIEWS_UNCHANGED, FinishedCatalogueReadyRound),
        (ShareViewsRound, Event.DONE, FinishedCatalogueReadyRound),
        (ShareViewsRound, Event.NEXT_CHUNK, ShareViewsRound),
        (ShareViewsRound, Event.NONE, FinishedWithoutUpdateRound),
        (ShareViewsRound, Event.NO_MAJORITY, RegistrySnapshotRound),
        (ShareViewsRound, Event.ROUND_TIMEOUT, RegistrySnapshotRound),
        (FetchManifestsRound, Event.NONE, FinishedWithoutUpdateRound),
        (
            FetchManifestsRound,
            Event.NO_MAJORITY,
            RegistrySnapshotRound,
        ),  # re-read the chain
        (FetchManifestsRound, Event.FETCH_TIMEOUT, RegistrySnapshotRound),
    ],
)
def test_transitions(round_cls: Any, event: Event, next_round: Any) -> None:
    """Every event of every round leads where the specification says."""
    assert ToolMetadataAbciApp.transition_function[round_cls][event] is next_round


def test_timeouts_are_registered() -> None:
    """Every timeout event has a timeout, so a stuck round is retried."""
    assert set(ToolMetadataAbciApp.event_to_timeout) == {
        Event.ROUND_TIMEOUT,
        Event.FETCH_TIMEOUT,
        Event.SNAPSHOT_TIMEOUT,
    }


def test_cross_period_keys_survive_a_reset() -> None:
    """The catalogue keys pass to the next period (seeded empty until the first agreement)."""
    setup: Dict[str, List[Any]] = {
        "all_participants": [("a",)],
        "participants": [("a",)],
        "consensus_threshold": [1],
        "safe_contract_address": ["0x"],
    }
    db = AbciAppDB(
        setup_data=setup,
        cross_period_persisted_keys=ToolMetadataAbciApp.cross_period_persisted_keys,
    )
    db.update(**CROSS_PERIOD_DEFAULTS)
    db.update(catalogue_digest=CATALOGUE_DIGEST, mech_tools=MECH_TOOLS)
    db.create()
    data = SynchronizedData(db=db)
    assert data.catalogue_digest == CATALOGUE_DIGEST
    assert data.mech_tools == {"a"}
    assert data.mechs_info == []
