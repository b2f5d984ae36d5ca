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

"""The PublishManifestAbciApp: generate the service's manifest, upload + verify it, build the Safe tx.

Chained after the tool metadata app (see ``tool_metadata_chained_abci``):
``FinishedPublishTxRound`` goes to transaction settlement, whose success goes back to
reading the registries (which then picks up the new manifest); ``FinishedWithoutPublishRound``
goes on as if the branch were absent. Enabled by the ``publish_enabled`` parameter; when
disabled every agent sends status ``disabled`` and the branch ends at once (SKIP).
"""

from typing import Dict, Set

from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
    PublishSynchronizedData,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.final_states import (
    FinishedPublishTxRound,
    FinishedWithoutPublishRound,
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
from packages.valory.skills.abstract_round_abci.base import (
    AbciApp,
    AbciAppTransitionFunction,
    AppState,
    get_name,
)


class PublishManifestAbciApp(AbciApp[PublishEvent]):
    """PublishManifestAbciApp

    Initial round: PublishPrepareRound

    Initial states: {PublishPrepareRound}

    Transition states:
        0. PublishPrepareRound
            - done: 1.
            - skip: 4.
            - error: 4.
            - no majority: 0.
            - round timeout: 0.
        1. PublishUploadRound
            - done: 2.
            - error: 4.
            - no majority: 1.
            - round timeout: 1.
        2. PublishTxRound
            - done: 3.
            - error: 4.
            - no majority: 2.
            - round timeout: 2.
        3. FinishedPublishTxRound
        4. FinishedWithoutPublishRound

    Final states: {FinishedPublishTxRound, FinishedWithoutPublishRound}

    Timeouts:
        round timeout: 60.0
    """

    initial_round_cls: AppState = PublishPrepareRound
    initial_states: Set[AppState] = {PublishPrepareRound}
    transition_function: AbciAppTransitionFunction = {
        PublishPrepareRound: {
            PublishEvent.DONE: PublishUploadRound,
            PublishEvent.SKIP: FinishedWithoutPublishRound,
            PublishEvent.ERROR: FinishedWithoutPublishRound,
            PublishEvent.NO_MAJORITY: PublishPrepareRound,
            PublishEvent.ROUND_TIMEOUT: PublishPrepareRound,
        },
        PublishUploadRound: {
            PublishEvent.DONE: PublishTxRound,
            PublishEvent.ERROR: FinishedWithoutPublishRound,
            PublishEvent.NO_MAJORITY: PublishUploadRound,
            PublishEvent.ROUND_TIMEOUT: PublishUploadRound,
        },
        PublishTxRound: {
            PublishEvent.DONE: FinishedPublishTxRound,
            PublishEvent.ERROR: FinishedWithoutPublishRound,
            PublishEvent.NO_MAJORITY: PublishTxRound,
            PublishEvent.ROUND_TIMEOUT: PublishTxRound,
        },
        FinishedPublishTxRound: {},
        FinishedWithoutPublishRound: {},
    }
    final_states: Set[AppState] = {FinishedPublishTxRound, FinishedWithoutPublishRound}
    event_to_timeout: Dict[PublishEvent, float] = {PublishEvent.ROUND_TIMEOUT: 60.0}
    db_pre_conditions: Dict[AppState, Set[str]] = {PublishPrepareRound: set()}
    db_post_conditions: Dict[AppState, Set[str]] = {
        FinishedPublishTxRound: {
            get_name(PublishSynchronizedData.most_voted_tx_hash),
            "tx_submitter",
        },
        FinishedWithoutPublishRound: set(),
    }
