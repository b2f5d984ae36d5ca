"""The chained ABCI app: registration -> tool metadata -> reset and pause -> tool metadata ...

Final state -> next start state (every final state of every app is mapped):

=============================================  =========================================
final state                                    next state
=============================================  =========================================
``FinishedRegistrationRound``                  ``RegistrySnapshotRound``
``FinishedCatalogueReadyRound``                ``ResetAndPauseRound``
``FinishedWithoutUpdateRound``                 ``ResetAndPauseRound``
``FinishedResetAndPauseRound``                 ``RegistrySnapshotRound`` (next period)
``FinishedResetAndPauseErrorRound``            ``RegistrationRound`` (re-register)
=============================================  =========================================

Publishing the service's own manifest (transaction settlement) is not part of this chain
yet; it will sit between ``FinishedCatalogueReadyRound`` and ``ResetAndPauseRound``.
"""

import packages.mech_catalogue.skills.tool_metadata_abci.rounds as ToolMetadataAbci
import packages.valory.skills.registration_abci.rounds as RegistrationAbci
import packages.valory.skills.reset_pause_abci.rounds as ResetAndPauseAbci
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
    FinishedCatalogueReadyRound: ResetAndPauseAbci.ResetAndPauseRound,
    FinishedWithoutUpdateRound: ResetAndPauseAbci.ResetAndPauseRound,
    ResetAndPauseAbci.FinishedResetAndPauseRound: ToolMetadataAbci.RegistrySnapshotRound,
    ResetAndPauseAbci.FinishedResetAndPauseErrorRound: RegistrationAbci.RegistrationRound,
}

ToolMetadataChainedAbciApp = chain(
    (
        RegistrationAbci.AgentRegistrationAbciApp,
        ToolMetadataAbci.ToolMetadataAbciApp,
        ResetAndPauseAbci.ResetPauseAbciApp,
    ),
    abci_app_transition_mapping,
)
