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

"""The chained ABCI app: registration -> tool metadata -> publish (-> settlement) -> reset and pause ...

Final state -> next start state (every final state of every app is mapped):

=============================================  =========================================
final state                                    next state
=============================================  =========================================
``FinishedRegistrationRound``                  ``RegistrySnapshotRound``
``FinishedCatalogueReadyRound``                ``PublishPrepareRound`` (publish branch)
``FinishedPublishTxRound``                     ``RandomnessTransactionSubmissionRound``
``FinishedWithoutPublishRound``                ``ResetAndPauseRound``
``FinishedTransactionSubmissionRound``         ``RegistrySnapshotRound`` (reads the new digest)
``FailedRound``                                ``ResetAndPauseRound``
``FinishedWithoutUpdateRound``                 ``ResetAndPauseRound``
``FinishedResetAndPauseRound``                 ``RegistrySnapshotRound`` (next period)
``FinishedResetAndPauseErrorRound``            ``RegistrationRound`` (re-register)
=============================================  =========================================

The publish branch (``PublishManifestAbciApp`` of the ``manifest_publish_abci`` skill,
docs/publish.md) runs after every agreed catalogue; with ``publish_enabled`` false, or the
registry already holding the manifest's digest, it ends at once in
``FinishedWithoutPublishRound``.
"""

import packages.mech_catalogue.skills.tool_metadata_abci.rounds as ToolMetadataAbci
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
from packages.mech_catalogue.skills.tool_metadata_abci.states.final_states import (
    FinishedCatalogueReadyRound,
    FinishedWithoutUpdateRound,
)
from packages.valory.skills.abstract_round_abci.abci_app_chain import (
    AbciAppTransitionMapping,
    chain,
)

abci_app_transition_mapping: AbciAppTransitionMapping = {
    RegistrationAbci.FinishedRegistrationRound: ToolMetadataAbci.RegistrySnapshotRound,
    FinishedCatalogueReadyRound: PublishPrepareRound,
    FinishedPublishTxRound: TransactionSettlementAbci.RandomnessTransactionSubmissionRound,
    FinishedWithoutPublishRound: ResetAndPauseAbci.ResetAndPauseRound,
    TransactionSettlementAbci.FinishedTransactionSubmissionRound: ToolMetadataAbci.RegistrySnapshotRound,
    TransactionSettlementAbci.FailedRound: ResetAndPauseAbci.ResetAndPauseRound,
    FinishedWithoutUpdateRound: ResetAndPauseAbci.ResetAndPauseRound,
    ResetAndPauseAbci.FinishedResetAndPauseRound: ToolMetadataAbci.RegistrySnapshotRound,
    ResetAndPauseAbci.FinishedResetAndPauseErrorRound: RegistrationAbci.RegistrationRound,
}

ToolMetadataChainedAbciApp = chain(
    (
        RegistrationAbci.AgentRegistrationAbciApp,
        ToolMetadataAbci.ToolMetadataAbciApp,
        PublishManifestAbciApp,
        TransactionSettlementAbci.TransactionSubmissionAbciApp,
        ResetAndPauseAbci.ResetPauseAbciApp,
    ),
    abci_app_transition_mapping,
)
