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

"""The composed ABCI app of the composition tests (test-only; mech-interact unchanged).

=================================================  ==============================================
final state                                        next state
=================================================  ==============================================
``FinishedRegistrationRound``                      ``RegistrySnapshotRound``
``FinishedCatalogueReadyRound``                    ``ToolChoiceRound`` (the skill's)
``FinishedWithoutUpdateRound``                     ``ToolChoiceRound`` (previous period's views)
``FinishedToolChoiceRound``                        ``MechRequestRound`` (mech-interact)
``NoToolChoiceRound``                              ``ResetAndPauseRound``
``FinishedMechRequestRound``                       ``RandomnessTransactionSubmissionRound``
``FinishedMechRequestSkipRound``                   ``ResetAndPauseRound``
``FinishedMechPurchaseSubscriptionRound``          ``RandomnessTransactionSubmissionRound``
``FinishedTransactionSubmissionRound``             ``MechResponseRound`` (mech-interact)
``FailedRound``                                    ``ResetAndPauseRound``
``FinishedMechResponseRound``                      ``ResetAndPauseRound``
``FinishedMechResponseTimeoutRound``               ``ResetAndPauseRound``
``FinishedResetAndPauseRound``                     ``RegistrySnapshotRound``
``FinishedResetAndPauseErrorRound``                ``RegistrationRound``
=================================================  ==============================================

mech-interact's ``MechVersionDetectionRound`` / ``MechInformationRound`` are not entered:
the second replaces ``mechs_info`` from a subgraph, and the point is to rank on ours.
Settlement's final state goes to ``MechResponseRound`` only, so this chain settles nothing
else (a service that also publishes needs a router round on ``tx_submitter``).
"""

from typing import Any, Dict, Tuple

from tests.composition.consumer import consumer_app
from tests.mech_interact import load_mech_interact


def composed_app() -> Tuple[Any, Any]:
    """Chain registration, our catalogue, the consumer, mech-interact and settlement.

    :return: ``(the chained AbciApp class, the transition mapping)``.
    """
    # pylint: disable=import-outside-toplevel,import-error,no-name-in-module
    mech_interact = load_mech_interact()
    import packages.mech_catalogue.skills.tool_metadata_abci.rounds as ToolMetadataAbci
    import packages.valory.skills.registration_abci.rounds as RegistrationAbci
    import packages.valory.skills.reset_pause_abci.rounds as ResetAndPauseAbci
    import packages.valory.skills.transaction_settlement_abci.rounds as TxAbci
    from packages.mech_catalogue.skills.requester_chained_abci import consumer
    from packages.mech_catalogue.skills.tool_metadata_abci.states.final_states import (
        FinishedCatalogueReadyRound,
        FinishedWithoutUpdateRound,
    )
    from packages.valory.skills.abstract_round_abci.abci_app_chain import chain
    from packages.valory.skills.mech_interact_abci.states import final_states
    from packages.valory.skills.mech_interact_abci.states.request import (
        MechRequestRound,
    )
    from packages.valory.skills.mech_interact_abci.states.response import (
        MechResponseRound,
    )

    reset = ResetAndPauseAbci.ResetAndPauseRound
    settle = TxAbci.RandomnessTransactionSubmissionRound
    mapping: Dict[Any, Any] = {  # round classes of several apps: chain() checks them
        RegistrationAbci.FinishedRegistrationRound: ToolMetadataAbci.RegistrySnapshotRound,
        FinishedCatalogueReadyRound: consumer.ToolChoiceRound,
        FinishedWithoutUpdateRound: consumer.ToolChoiceRound,
        consumer.FinishedToolChoiceRound: MechRequestRound,
        consumer.NoToolChoiceRound: reset,
        final_states.FinishedMechRequestRound: settle,
        final_states.FinishedMechRequestSkipRound: reset,
        final_states.FinishedMechPurchaseSubscriptionRound: settle,
        TxAbci.FinishedTransactionSubmissionRound: MechResponseRound,
        TxAbci.FailedRound: reset,
        final_states.FinishedMechResponseRound: reset,
        final_states.FinishedMechResponseTimeoutRound: reset,
        ResetAndPauseAbci.FinishedResetAndPauseRound: ToolMetadataAbci.RegistrySnapshotRound,
        ResetAndPauseAbci.FinishedResetAndPauseErrorRound: RegistrationAbci.RegistrationRound,
    }
    app = chain(
        (
            RegistrationAbci.AgentRegistrationAbciApp,
            ToolMetadataAbci.ToolMetadataAbciApp,
            consumer_app(),
            mech_interact.MechInteractAbciApp,
            TxAbci.TransactionSubmissionAbciApp,
            ResetAndPauseAbci.ResetPauseAbciApp,
        ),
        mapping,
    )
    return app, mapping
