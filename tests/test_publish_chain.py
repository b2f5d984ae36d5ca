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

"""The publish branch inside the chained skill: the routing, and the skill loaded from its real skill.yaml.

The chained skill (registration -> tool metadata -> publish -> transaction settlement ->
reset and pause) is loaded by the framework's test harness from its own ``skill.yaml``,
so the parameters (``publish_*`` and transaction settlement's), models and behaviours are
the ones an agent gets. Ledger, IPFS and Tendermint are the harness's mocks; the publish
steps against real anvil + kubo are in tests/devnet/test_publish_*.py.
"""

from pathlib import Path
from typing import Any, List

import pytest

import packages.valory.skills.reset_pause_abci.rounds as ResetAndPauseAbci
import packages.valory.skills.transaction_settlement_abci.rounds as TransactionSettlementAbci
from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.prepare import (
    PublishPrepareBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
    PublishStatus,
    PublishSynchronizedData,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.prepare import (
    PublishPrepareRound,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.tx import (
    PublishTxRound,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.upload import (
    PublishUploadRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.rounds import (
    RegistrySnapshotRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import Event
from packages.mech_catalogue.skills.tool_metadata_abci.states.fetch_manifests import (
    FetchManifestsRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.final_states import (
    FinishedCatalogueReadyRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.share_views import (
    ShareViewsRound,
)
from packages.mech_catalogue.skills.tool_metadata_chained_abci.composition import (
    ToolMetadataChainedAbciApp,
)
from packages.valory.skills.abstract_round_abci.base import AbciAppDB
from packages.valory.skills.abstract_round_abci.test_tools.base import (
    FSMBehaviourBaseCase,
)

CHAINED_SKILL = (
    Path(__file__).resolve().parents[1]
    / "packages/mech_catalogue/skills/tool_metadata_chained_abci"
)
TRANSITIONS = ToolMetadataChainedAbciApp.transition_function


@pytest.mark.parametrize(
    "round_cls,event,next_round",
    [
        (FetchManifestsRound, Event.VIEWS_UNCHANGED, PublishPrepareRound),
        (ShareViewsRound, Event.DONE, PublishPrepareRound),
        (PublishPrepareRound, PublishEvent.DONE, PublishUploadRound),
        (PublishPrepareRound, PublishEvent.SKIP, ResetAndPauseAbci.ResetAndPauseRound),
        (PublishPrepareRound, PublishEvent.ERROR, ResetAndPauseAbci.ResetAndPauseRound),
        (PublishUploadRound, PublishEvent.ERROR, ResetAndPauseAbci.ResetAndPauseRound),
        (
            PublishTxRound,
            PublishEvent.DONE,
            TransactionSettlementAbci.RandomnessTransactionSubmissionRound,
        ),
        (PublishTxRound, PublishEvent.ERROR, ResetAndPauseAbci.ResetAndPauseRound),
    ],
)
def test_publish_branch_routing(round_cls: Any, event: Any, next_round: Any) -> None:
    """A catalogue leads to the branch; its transaction to settlement; everything else to reset."""
    assert TRANSITIONS[round_cls][event] is next_round


def test_settlement_goes_back_to_reading() -> None:
    """A settled update goes straight back to reading the registries; a failed one to reset."""
    validate = TransactionSettlementAbci.ValidateTransactionRound
    finished = [
        round_cls
        for round_cls, events in TRANSITIONS.items()
        if round_cls is validate
        for target in events.values()
        if target is RegistrySnapshotRound
    ]
    assert finished, "ValidateTransactionRound DONE must lead to RegistrySnapshotRound"
    assert FinishedCatalogueReadyRound not in TRANSITIONS


class TestChainedSkillPublish(FSMBehaviourBaseCase):
    """The chained skill as an agent loads it."""

    path_to_skill = CHAINED_SKILL

    def test_parameters_load_disabled_by_default(self) -> None:
        """The chained Params read publish_* (off by default) and transaction settlement's."""
        params = self.skill.skill_context.params
        assert params.publish.enabled is False and params.publish.target is None
        assert params.finalize_timeout > 0 and params.validate_timeout > 0

    def test_disabled_branch_skips(self) -> None:
        """Through the chained main behaviour: status disabled, SKIP goes to reset and pause."""
        agent = self.skill.skill_context.agent_address
        setup = {
            "all_participants": (agent,),
            "participants": (agent,),
            "consensus_threshold": 1,
            "safe_contract_address": "0x" + "05" * 20,
        }
        self.fast_forward_to_behaviour(
            self.behaviour,
            PublishPrepareBehaviour.auto_behaviour_id(),
            PublishSynchronizedData(
                AbciAppDB(setup_data=AbciAppDB.data_to_lists(setup))
            ),
        )
        sent: List[Any] = []
        current = self.behaviour.current_behaviour
        assert current is not None
        send = current.send_a2a_transaction

        def capture(payload: Any, *args: Any, **kwargs: Any) -> Any:
            sent.append(payload)
            return send(payload, *args, **kwargs)

        current.send_a2a_transaction = capture  # type: ignore[method-assign]
        self.behaviour.act_wrapper()
        assert sent[0].status == PublishStatus.DISABLED.value
        self.mock_a2a_transaction()
        self._test_done_flag_set()
        self.end_round(PublishEvent.SKIP)
        after = self.behaviour.current_behaviour
        assert after is not None
        assert after.matching_round is ResetAndPauseAbci.ResetAndPauseRound
