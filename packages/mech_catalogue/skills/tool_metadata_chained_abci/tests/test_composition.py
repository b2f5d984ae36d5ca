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

"""The chain: every final state mapped (publish branch and settlement included), every round has a behaviour, the SynchronizedData view."""

import json

from packages.mech_catalogue.skills.manifest_publish_abci.rounds import (
    PublishManifestAbciApp,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.prepare import (
    PublishPrepareRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.rounds import ToolMetadataAbciApp
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    SynchronizedData,
)
from packages.mech_catalogue.skills.tool_metadata_chained_abci.behaviours import (
    ToolMetadataConsensusBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_chained_abci.composition import (
    ToolMetadataChainedAbciApp,
    abci_app_transition_mapping,
)
from packages.mech_catalogue.skills.tool_metadata_chained_abci.handlers import (
    synchronized_data_view,
)
from packages.valory.skills.abstract_round_abci.base import AbciAppDB
from packages.valory.skills.registration_abci.rounds import (
    AgentRegistrationAbciApp,
    RegistrationRound,
)
from packages.valory.skills.reset_pause_abci.rounds import (
    ResetAndPauseRound,
    ResetPauseAbciApp,
)
from packages.valory.skills.transaction_settlement_abci.rounds import (
    RandomnessTransactionSubmissionRound,
    TransactionSubmissionAbciApp,
)

APPS = (
    AgentRegistrationAbciApp,
    ToolMetadataAbciApp,
    PublishManifestAbciApp,
    TransactionSubmissionAbciApp,
    ResetPauseAbciApp,
)


def test_every_final_state_is_mapped() -> None:
    """No app of the chain can end the chain: each final state leads to a start state."""
    finals = set().union(*(app.final_states for app in APPS))
    assert finals == set(abci_app_transition_mapping)
    assert not ToolMetadataChainedAbciApp.final_states
    starts = set().union(
        *(app.initial_states or {app.initial_round_cls} for app in APPS)
    )
    assert set(abci_app_transition_mapping.values()) <= starts


def test_periods_loop_through_tool_metadata() -> None:
    """Reset and pause leads back to the registry snapshot; its error leads to registration."""
    finished = {
        cls.__name__: target for cls, target in abci_app_transition_mapping.items()
    }
    assert (
        finished["FinishedResetAndPauseRound"] is ToolMetadataAbciApp.initial_round_cls
    )
    assert finished["FinishedResetAndPauseErrorRound"] is RegistrationRound
    assert finished["FinishedCatalogueReadyRound"] is PublishPrepareRound
    assert finished["FinishedWithoutPublishRound"] is ResetAndPauseRound
    assert finished["FinishedPublishTxRound"] is RandomnessTransactionSubmissionRound
    assert (
        finished["FinishedTransactionSubmissionRound"]
        is ToolMetadataAbciApp.initial_round_cls
    )
    assert finished["FailedRound"] is ResetAndPauseRound
    assert finished["FinishedWithoutUpdateRound"] is ResetAndPauseRound


def test_every_round_has_a_behaviour() -> None:
    """The composed round behaviour runs something in every non-final round of the chain."""
    rounds = set(ToolMetadataChainedAbciApp.transition_function) - set(
        ToolMetadataChainedAbciApp.final_states
    )
    covered = {
        behaviour.matching_round
        for behaviour in ToolMetadataConsensusBehaviour.behaviours
    }
    assert rounds <= covered
    assert ToolMetadataConsensusBehaviour.abci_app_cls is ToolMetadataChainedAbciApp


def test_timeouts_of_every_app_are_kept() -> None:
    """The chain keeps the tool metadata and reset-and-pause timeouts."""
    events = {event.value for event in ToolMetadataChainedAbciApp.event_to_timeout}
    assert {
        "round_timeout",
        "fetch_timeout",
        "snapshot_timeout",
        "reset_and_pause_timeout",
    } <= events


def test_synchronized_data_view_has_mech_interact_keys() -> None:
    """GET /synchronized_data shows mech_tools (sorted list) and mechs_info as stored by the rounds."""
    mechs_info = [{"id": 1, "address": "0x" + "11" * 20, "services": []}]
    db = AbciAppDB(
        setup_data={
            "participants": [["0xa", "0xb"]],
            "catalogue_digest": ["ab" * 32],
            "registry_snapshot_digest": ["cd" * 32],
            "mech_tools": [json.dumps(["z-tool", "a-tool"])],
            "mechs_info": [json.dumps(mechs_info)],
        }
    )
    view = synchronized_data_view(SynchronizedData(db))
    assert view == {
        "period_count": 0,
        "participants": 2,
        "catalogue_digest": "ab" * 32,
        "registry_snapshot_digest": "cd" * 32,
        "mech_tools": ["a-tool", "z-tool"],
        "mechs_info": mechs_info,
    }
    json.dumps(view)


def test_synchronized_data_view_before_any_agreement() -> None:
    """Before the first catalogue the view is empty, not an error."""
    view = synchronized_data_view(SynchronizedData(AbciAppDB(setup_data={})))
    assert (
        view["catalogue_digest"] == ""
        and view["mech_tools"] == []
        and view["mechs_info"] == []
    )
    assert view["participants"] == 0
