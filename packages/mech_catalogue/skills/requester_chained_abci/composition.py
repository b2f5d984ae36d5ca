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

"""The requester's chained ABCI app: catalogue -> tool choice -> mech-interact -> answer.

Final state -> next start state (every reachable final state of every app is mapped):

==============================================  ==========================================
final state                                     next state
==============================================  ==========================================
``FinishedRegistrationRound``                   ``RegistrySnapshotRound`` (catalogue)
``FinishedCatalogueReadyRound``                 ``PublishPrepareRound`` (publish branch)
``FinishedWithoutPublishRound``                 ``ToolChoiceRound`` (consumer)
``FinishedWithoutUpdateRound``                  ``ToolChoiceRound`` (previous views)
``FinishedPublishTxRound``                      ``RandomnessTransactionSubmissionRound``
``FinishedToolChoiceRound``                     ``MechRequestRound`` (mech-interact)
``NoToolChoiceRound``                           ``ResetAndPauseRound``
``FinishedMechRequestRound``                    ``RandomnessTransactionSubmissionRound``
``FinishedMechPurchaseSubscriptionRound``       ``RandomnessTransactionSubmissionRound``
``FinishedMechRequestSkipRound``                ``ResetAndPauseRound``
``FinishedTransactionSubmissionRound``          ``PostTxSettlementRound`` (router)
``FailedRound``                                 ``ResetAndPauseRound``
``FinishedMechRequestTxRound``                  ``MechResponseRound`` (mech-interact)
``FinishedSubscriptionTxRound``                 ``MechRequestRound``
``FinishedPublishTxSettledRound``               ``RegistrySnapshotRound`` (reads the new digest)
``FailedUnknownSubmitterRound``                 ``ResetAndPauseRound``
``FinishedMechResponseRound``                   ``ResetAndPauseRound``
``FinishedMechResponseTimeoutRound``            ``ResetAndPauseRound``
``FinishedResetAndPauseRound``                  ``RegistrySnapshotRound`` (next period)
``FinishedResetAndPauseErrorRound``             ``RegistrationRound`` (re-register)
==============================================  ==========================================

mech-interact is entered at ``MechRequestRound``, not at its ``MechVersionDetectionRound``:
that round's V2 branch replaces ``mechs_info`` from a subgraph, and the point is to rank
the agreed catalogue's ``mechs_info`` (docs/running.md, "Embedding the catalogue in a service").
So those two rounds and their final states (``FinishedMarketplaceLegacyDetectedRound``,
``FinishedMechLegacyDetectedRound``, ``FinishedMechInformationRound``,
``FailedMechInformationRound``) are left out (:class:`MarketplaceRequestAbciApp`).
"""

from typing import Any, Dict, Set

import packages.mech_catalogue.skills.tool_metadata_abci.rounds as ToolMetadataAbci
import packages.valory.skills.mech_interact_abci.rounds as MechInteractAbci
import packages.valory.skills.registration_abci.rounds as RegistrationAbci
import packages.valory.skills.reset_pause_abci.rounds as ResetAndPauseAbci
import packages.valory.skills.transaction_settlement_abci.rounds as TransactionSettlementAbci
from packages.mech_catalogue.skills.manifest_publish_abci.rounds import (
    PublishManifestAbciApp,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.final_states import (
    FinishedPublishTxRound,
    FinishedWithoutPublishRound,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.prepare import (
    PublishPrepareRound,
)
from packages.mech_catalogue.skills.requester_chained_abci.consumer import (
    FailedUnknownSubmitterRound,
    FinishedMechRequestTxRound,
    FinishedPublishTxSettledRound,
    FinishedSubscriptionTxRound,
    FinishedToolChoiceRound,
    NoToolChoiceRound,
    PostTxSettlementRound,
    RequesterAbciApp,
    ToolChoiceRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.final_states import (
    FinishedCatalogueReadyRound,
    FinishedWithoutUpdateRound,
)
from packages.valory.skills.abstract_round_abci.abci_app_chain import (
    AbciAppTransitionMapping,
    chain,
)
from packages.valory.skills.abstract_round_abci.base import (
    AbciAppTransitionFunction,
    AppState,
)
from packages.valory.skills.mech_interact_abci.states import (
    final_states as MechInteractFinalStates,
)
from packages.valory.skills.mech_interact_abci.states.request import (
    MechRequestRound,
)
from packages.valory.skills.mech_interact_abci.states.response import (
    MechResponseRound,
)

#: mech-interact's rounds the requester never enters (see the module docstring)
UNUSED_MECH_INTERACT_STATES = frozenset(
    {
        MechInteractAbci.MechVersionDetectionRound,
        MechInteractAbci.MechInformationRound,
        MechInteractFinalStates.FinishedMarketplaceLegacyDetectedRound,
        MechInteractFinalStates.FinishedMechLegacyDetectedRound,
        MechInteractFinalStates.FinishedMechInformationRound,
        MechInteractFinalStates.FailedMechInformationRound,
    }
)


def _used(table: Dict[Any, Any]) -> Dict[Any, Any]:
    return {
        state: value
        for state, value in table.items()
        if state not in UNUSED_MECH_INTERACT_STATES
    }


class MarketplaceRequestAbciApp(MechInteractAbci.MechInteractAbciApp):
    """mech-interact's app without the rounds it would enter before ``MechRequestRound``.

    Its rounds, events and timeouts are mech-interact's, unchanged; only the version
    detection and subgraph information rounds (and their final states) are left out of
    the table, so that every state of the chained FSM is reachable.
    """

    initial_round_cls: AppState = MechRequestRound
    initial_states: Set[AppState] = {MechRequestRound, MechResponseRound}
    transition_function: AbciAppTransitionFunction = _used(
        MechInteractAbci.MechInteractAbciApp.transition_function
    )
    final_states: Set[AppState] = set(
        _used({s: None for s in MechInteractAbci.MechInteractAbciApp.final_states})
    )
    db_pre_conditions: Dict[AppState, Set[str]] = _used(
        MechInteractAbci.MechInteractAbciApp.db_pre_conditions
    )
    db_post_conditions: Dict[AppState, Set[str]] = _used(
        MechInteractAbci.MechInteractAbciApp.db_post_conditions
    )


SETTLE = TransactionSettlementAbci.RandomnessTransactionSubmissionRound
RESET = ResetAndPauseAbci.ResetAndPauseRound

abci_app_transition_mapping: AbciAppTransitionMapping = {
    RegistrationAbci.FinishedRegistrationRound: ToolMetadataAbci.RegistrySnapshotRound,
    FinishedCatalogueReadyRound: PublishPrepareRound,
    FinishedWithoutPublishRound: ToolChoiceRound,
    FinishedWithoutUpdateRound: ToolChoiceRound,
    FinishedPublishTxRound: SETTLE,
    FinishedToolChoiceRound: MechRequestRound,
    NoToolChoiceRound: RESET,
    MechInteractFinalStates.FinishedMechRequestRound: SETTLE,
    MechInteractFinalStates.FinishedMechPurchaseSubscriptionRound: SETTLE,
    MechInteractFinalStates.FinishedMechRequestSkipRound: RESET,
    TransactionSettlementAbci.FinishedTransactionSubmissionRound: PostTxSettlementRound,
    TransactionSettlementAbci.FailedRound: RESET,
    FinishedMechRequestTxRound: MechResponseRound,
    FinishedSubscriptionTxRound: MechRequestRound,
    FinishedPublishTxSettledRound: ToolMetadataAbci.RegistrySnapshotRound,
    FailedUnknownSubmitterRound: RESET,
    MechInteractFinalStates.FinishedMechResponseRound: RESET,
    MechInteractFinalStates.FinishedMechResponseTimeoutRound: RESET,
    ResetAndPauseAbci.FinishedResetAndPauseRound: ToolMetadataAbci.RegistrySnapshotRound,
    ResetAndPauseAbci.FinishedResetAndPauseErrorRound: RegistrationAbci.RegistrationRound,
}

RequesterChainedAbciApp = chain(
    (
        RegistrationAbci.AgentRegistrationAbciApp,
        ToolMetadataAbci.ToolMetadataAbciApp,
        PublishManifestAbciApp,
        RequesterAbciApp,
        MarketplaceRequestAbciApp,
        TransactionSettlementAbci.TransactionSubmissionAbciApp,
        ResetAndPauseAbci.ResetPauseAbciApp,
    ),
    abci_app_transition_mapping,
)
