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

"""The requester's own rounds: the tool choice (consumer) and the settlement router.

``ToolChoiceRound`` agrees on one mech request built from the agreed catalogue
(:mod:`mech_catalogue_core.catalogue.mech_request`) and writes the keys mech-interact's
``MechRequestRound`` reads (``mech_requests``, ``mech_tool``, ``is_marketplace_v2``, and
``selected_mechs``: the mech the catalogue's offer rule chose, pinned), and how it is paid
(``requester_payment``: the asset, price, cap and, for a token, the tracker and token the
chain names; read by the skill's ``Params.price_token`` and ``PaidMechRequestBehaviour``).

``PostTxSettlementRound`` sends a settled transaction back to the app that submitted it,
by ``tx_submitter`` (the id of the round that prepared it): transaction settlement is one
app shared by mech-interact's request (and subscription purchase) and the catalogue's
publish branch, and its ``FinishedTransactionSubmissionRound`` can only map to one round.
It takes no payload: every agent reads the same agreed ``tx_submitter``, so the round
ends at its first block.
"""

import json
from enum import Enum
from typing import Any, Dict, Mapping, Optional, Set, Tuple

from mech_catalogue_core.catalogue.mech_request import (
    IS_MARKETPLACE_V2,
    MECH_REQUESTS,
    MECH_TOOL,
    SELECTED_MECHS,
)
from mech_catalogue_core.catalogue.request_payment import REQUESTER_PAYMENT

from packages.mech_catalogue.skills.manifest_publish_abci.states.tx import (
    PublishTxRound,
)
from packages.mech_catalogue.skills.requester_chained_abci.payloads import (
    ToolChoicePayload,
)
from packages.valory.skills.abstract_round_abci.base import (
    AbciApp,
    AbciAppTransitionFunction,
    AppState,
    BaseSynchronizedData,
    BaseTxPayload,
    CollectSameUntilThresholdRound,
    DegenerateRound,
    EventToTimeout,
)
from packages.valory.skills.mech_interact_abci.states.purchase_subscription import (
    MechPurchaseSubscriptionRound,
)
from packages.valory.skills.mech_interact_abci.states.request import (
    MechRequestRound,
)

#: the synchronized-data key naming the round that prepared the settled transaction
TX_SUBMITTER = "tx_submitter"


class Event(Enum):
    """Events of the requester's rounds."""

    DONE = "done"
    NONE = "none"
    NO_MAJORITY = "no_majority"
    ROUND_TIMEOUT = "round_timeout"
    MECH_REQUEST_SETTLED = "mech_request_settled"
    SUBSCRIPTION_SETTLED = "subscription_settled"
    PUBLISH_SETTLED = "publish_settled"
    UNKNOWN_SUBMITTER = "unknown_submitter"


#: tx_submitter (a submitting round's id) -> the router's event
SUBMITTER_TO_EVENT: Mapping[str, Event] = {
    MechRequestRound.auto_round_id(): Event.MECH_REQUEST_SETTLED,
    MechPurchaseSubscriptionRound.auto_round_id(): Event.SUBSCRIPTION_SETTLED,
    PublishTxRound.auto_round_id(): Event.PUBLISH_SETTLED,
}


def settled_event(tx_submitter: Optional[str]) -> Event:
    """Where a settled transaction goes next, by the round that submitted it.

    :param tx_submitter: the agreed ``tx_submitter`` (None when no round wrote one).
    :return: the router's event; ``UNKNOWN_SUBMITTER`` for anything not in
        :data:`SUBMITTER_TO_EVENT` (the period then ends in reset and pause).
    """
    return SUBMITTER_TO_EVENT.get(tx_submitter or "", Event.UNKNOWN_SUBMITTER)


class ToolChoiceRound(CollectSameUntilThresholdRound):
    """Agree on the consumer's request; write mech-interact's keys (or end with NONE)."""

    payload_class = ToolChoicePayload
    synchronized_data_class = BaseSynchronizedData
    done_event = Event.DONE
    no_majority_event = Event.NO_MAJORITY
    none_event = Event.NONE
    collection_key = "participant_to_tool_choice"
    selection_key = "content"

    def end_block(self) -> Optional[Tuple[BaseSynchronizedData, Enum]]:
        """Write the agreed updates, or end with NONE when the agents agreed on no request.

        :return: the synchronized data and the event, or None while collecting.
        """
        if not self.threshold_reached:
            if self.is_majority_possible(
                self.collection, self.synchronized_data.nb_participants
            ):
                return None
            return self.synchronized_data, Event.NO_MAJORITY
        if not self.most_voted_payload:
            return self.synchronized_data, Event.NONE
        updates: Dict[str, Any] = json.loads(self.most_voted_payload)
        synchronized = self.synchronized_data.update(
            synchronized_data_class=BaseSynchronizedData, **updates
        )
        return synchronized, Event.DONE


class PostTxSettlementRound(CollectSameUntilThresholdRound):
    """Route a settled transaction by ``tx_submitter``; no payload is needed."""

    payload_class = BaseTxPayload
    synchronized_data_class = BaseSynchronizedData
    # required by the round's base class; unused: end_block decides at the first block
    done_event = Event.MECH_REQUEST_SETTLED
    no_majority_event = Event.NO_MAJORITY
    none_event = Event.UNKNOWN_SUBMITTER
    collection_key = "participant_to_post_tx_settlement"
    selection_key = "sender"

    # fsm-specs: returns(MECH_REQUEST_SETTLED, SUBSCRIPTION_SETTLED, PUBLISH_SETTLED, UNKNOWN_SUBMITTER)
    def end_block(self) -> Optional[Tuple[BaseSynchronizedData, Enum]]:
        """End at once with the event of the agreed submitter (:data:`SUBMITTER_TO_EVENT`).

        :return: the unchanged synchronized data and :func:`settled_event`.
        """
        submitter = self.synchronized_data.db.get(TX_SUBMITTER, None)
        return self.synchronized_data, settled_event(submitter)


class FinishedToolChoiceRound(DegenerateRound):  # pylint: disable=abstract-method
    """A request is in ``mech_requests``: mech-interact's request round is next."""


class NoToolChoiceRound(DegenerateRound):  # pylint: disable=abstract-method
    """No request this period (tool not offered with facts, or invalid arguments)."""


class FinishedMechRequestTxRound(DegenerateRound):  # pylint: disable=abstract-method
    """mech-interact's request was settled: its response round is next."""


class FinishedSubscriptionTxRound(DegenerateRound):  # pylint: disable=abstract-method
    """mech-interact's subscription purchase was settled: request again."""


class FinishedPublishTxSettledRound(DegenerateRound):  # pylint: disable=abstract-method
    """The catalogue's manifest publish was settled: read the registry again."""


class FailedUnknownSubmitterRound(DegenerateRound):  # pylint: disable=abstract-method
    """A settled transaction of no known submitter: end the period."""


class RequesterAbciApp(AbciApp[Event]):
    """The tool choice round and the settlement router, each an initial state."""

    initial_round_cls: AppState = ToolChoiceRound
    initial_states: Set[AppState] = {ToolChoiceRound, PostTxSettlementRound}
    transition_function: AbciAppTransitionFunction = {
        ToolChoiceRound: {
            Event.DONE: FinishedToolChoiceRound,
            Event.NONE: NoToolChoiceRound,
            Event.NO_MAJORITY: ToolChoiceRound,
            Event.ROUND_TIMEOUT: ToolChoiceRound,
        },
        PostTxSettlementRound: {
            Event.MECH_REQUEST_SETTLED: FinishedMechRequestTxRound,
            Event.SUBSCRIPTION_SETTLED: FinishedSubscriptionTxRound,
            Event.PUBLISH_SETTLED: FinishedPublishTxSettledRound,
            Event.UNKNOWN_SUBMITTER: FailedUnknownSubmitterRound,
            Event.NO_MAJORITY: PostTxSettlementRound,
            Event.ROUND_TIMEOUT: PostTxSettlementRound,
        },
        FinishedToolChoiceRound: {},
        NoToolChoiceRound: {},
        FinishedMechRequestTxRound: {},
        FinishedSubscriptionTxRound: {},
        FinishedPublishTxSettledRound: {},
        FailedUnknownSubmitterRound: {},
    }
    final_states: Set[AppState] = {
        FinishedToolChoiceRound,
        NoToolChoiceRound,
        FinishedMechRequestTxRound,
        FinishedSubscriptionTxRound,
        FinishedPublishTxSettledRound,
        FailedUnknownSubmitterRound,
    }
    event_to_timeout: EventToTimeout = {Event.ROUND_TIMEOUT: 30.0}
    db_pre_conditions: Dict[AppState, Set[str]] = {
        ToolChoiceRound: set(),
        PostTxSettlementRound: set(),
    }
    db_post_conditions: Dict[AppState, Set[str]] = {
        FinishedToolChoiceRound: {
            MECH_REQUESTS,
            MECH_TOOL,
            IS_MARKETPLACE_V2,
            SELECTED_MECHS,
            REQUESTER_PAYMENT,
        },
        NoToolChoiceRound: set(),
        FinishedMechRequestTxRound: set(),
        FinishedSubscriptionTxRound: set(),
        FinishedPublishTxSettledRound: set(),
        FailedUnknownSubmitterRound: set(),
    }
