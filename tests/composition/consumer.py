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

# pylint: disable=duplicate-code  # the requester skill's round grew from this test-only one
"""A TEST-ONLY consumer between our catalogue and mech-interact's ``MechRequestRound``.

It is what a service that uses the catalogue would write: pick a tool from the agreed
(shared-state) catalogue, validate the call's typed arguments against the tool's input
schema (JSON Schema 2020-12, :meth:`Tool.input_schema`, checked with ``jsonschema``), and
write the synchronized-data keys mech-interact's request round reads:

- ``mech_requests``: a JSON list of mech-interact ``MechMetadata`` dicts, the typed
  arguments in ``extra_attributes`` (mech-interact merges them into the request's IPFS
  payload, next to ``prompt``/``tool``/``nonce``);
- ``mech_tool``: the tool name (mech-interact ranks only the ``mechs_info`` items whose
  ``relevant_tools`` hold it);
- ``is_marketplace_v2``: True. mech-interact's own ``MechVersionDetectionRound`` would set
  it, but its next round (``MechInformationRound``) replaces ``mechs_info`` from a subgraph;
  the composition enters at ``MechRequestRound`` so the ranking runs on OUR ``mechs_info``.

:func:`choose_request` is the consumer's logic (the library's
:func:`mech_catalogue_core.catalogue.mech_request.mech_request`, which the requester service's
skill uses too); :class:`ToolChoiceRound` agrees on its output like any ABCI round; :class:`ConsumerAbciApp` is the one-round app chained between
``ToolMetadataAbciApp`` and ``MechInteractAbciApp`` (see ``tests/composition/chain.py``).
"""

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any, Dict, List, Mapping, Optional, Tuple

from mech_catalogue_core.catalogue.mech_request import (
    IS_MARKETPLACE_V2,
    MECH_REQUESTS,
    MECH_TOOL,
)
from mech_catalogue_core.catalogue.mech_request import MechRequestError as ConsumerError
from mech_catalogue_core.catalogue.mech_request import mech_request as choose_request
from mech_catalogue_core.model.catalogue import Catalogue

from packages.valory.skills.abstract_round_abci.base import (
    AbciApp,
    AbciAppTransitionFunction,
    AppState,
    BaseSynchronizedData,
    BaseTxPayload,
    CollectSameUntilThresholdRound,
    DegenerateRound,
)

__all__ = ["ConsumerError", "choose_request", "payload_of", "ConsumerAbciApp"]


class Event(Enum):
    """Events of the consumer round."""

    DONE = "done"
    NONE = "none"
    NO_MAJORITY = "no_majority"
    ROUND_TIMEOUT = "round_timeout"


@dataclass(frozen=True)
class ToolChoicePayload(BaseTxPayload):
    """The updates of :func:`choose_request` as JSON, or ``""`` when no call can be made."""

    content: str


class ToolChoiceRound(CollectSameUntilThresholdRound):
    """Agree on the consumer's request; write mech-interact's keys."""

    payload_class = ToolChoicePayload
    synchronized_data_class = BaseSynchronizedData
    done_event = Event.DONE
    no_majority_event = Event.NO_MAJORITY
    none_event = Event.NONE
    collection_key = "participant_to_tool_choice"
    selection_key = "content"

    def end_block(self) -> Optional[Tuple[BaseSynchronizedData, Enum]]:
        """Write the agreed updates (or end with NONE when there is no call).

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


class FinishedToolChoiceRound(DegenerateRound):  # pylint: disable=abstract-method
    """A request is in ``mech_requests``."""


class NoToolChoiceRound(DegenerateRound):  # pylint: disable=abstract-method
    """No call can be made this period (tool not offered or invalid arguments)."""


class ConsumerAbciApp(AbciApp[Event]):
    """ToolChoiceRound -> FinishedToolChoiceRound | NoToolChoiceRound."""

    initial_round_cls: AppState = ToolChoiceRound
    transition_function: AbciAppTransitionFunction = {
        ToolChoiceRound: {
            Event.DONE: FinishedToolChoiceRound,
            Event.NONE: NoToolChoiceRound,
            Event.NO_MAJORITY: ToolChoiceRound,
            Event.ROUND_TIMEOUT: ToolChoiceRound,
        },
        FinishedToolChoiceRound: {},
        NoToolChoiceRound: {},
    }
    final_states = {FinishedToolChoiceRound, NoToolChoiceRound}
    event_to_timeout = {Event.ROUND_TIMEOUT: 30.0}
    db_pre_conditions: Dict[AppState, set] = {ToolChoiceRound: set()}
    db_post_conditions: Dict[AppState, set] = {
        FinishedToolChoiceRound: {MECH_REQUESTS, MECH_TOOL, IS_MARKETPLACE_V2},
        NoToolChoiceRound: set(),
    }


def payload_of(
    catalogue: Catalogue, call: Mapping[str, Any], errors: Optional[List[str]] = None
) -> str:
    """What an agent votes in :class:`ToolChoiceRound`: the updates, or ``""``.

    :param catalogue: the agreed catalogue.
    :param call: ``{"tool", "prompt", "arguments", "nonce"}``.
    :param errors: a list that receives the reason when no call can be made.
    :return: the JSON payload content.
    """
    try:
        updates = choose_request(
            catalogue, call["tool"], call["prompt"], call["arguments"], call["nonce"]
        )
    except ConsumerError as exc:
        if errors is not None:
            errors.append(str(exc))
        return ""
    return json.dumps(updates, sort_keys=True)
