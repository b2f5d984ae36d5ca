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

:func:`choose_request` is the consumer's logic; :class:`ToolChoiceRound` agrees on its
output like any ABCI round; :class:`ConsumerAbciApp` is the one-round app chained between
``ToolMetadataAbciApp`` and ``MechInteractAbciApp`` (see ``tests/composition/chain.py``).
"""

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any, Dict, List, Mapping, Optional, Tuple

from jsonschema import Draft202012Validator
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    Catalogue,
)
from mech_catalogue_core.model.tool import Tool

from packages.valory.skills.abstract_round_abci.base import (
    AbciApp,
    AbciAppTransitionFunction,
    AppState,
    BaseSynchronizedData,
    BaseTxPayload,
    CollectSameUntilThresholdRound,
    DegenerateRound,
)

#: the synchronized-data keys the consumer writes (mech-interact's names)
MECH_REQUESTS, MECH_TOOL, IS_MARKETPLACE_V2 = (
    "mech_requests",
    "mech_tool",
    "is_marketplace_v2",
)


class ConsumerError(ValueError):
    """The requested call cannot be made from the catalogue; the message says why."""


def find_tool(catalogue: Catalogue, tool_name: str) -> Tuple[Tool, int]:
    """Find a tool offered by usable (status ok, with marketplace facts) entries.

    :param catalogue: the agreed catalogue.
    :param tool_name: the tool name.
    :return: the tool's description (of the first offering entry) and how many usable
        entries offer it.
    :raises ConsumerError: when no usable entry offers it (names the offered tools).
    """
    listed = [
        (mech, tool)
        for mech in catalogue.mechs
        if mech.status == STATUS_OK
        for tool in mech.tools
        if tool.name == tool_name
    ]
    if not listed:
        offered = sorted(
            {t.name for m in catalogue.mechs if m.status == STATUS_OK for t in m.tools}
        )
        raise ConsumerError(
            f"no usable mech in the catalogue offers tool {tool_name!r}; "
            f"offered: {offered}"
        )
    # entries without rankable facts appear in mechs_info with zeros (not facts):
    # mech-interact's ranking takes log(max_delivery_rate) and would raise on them
    offers = [
        (mech, tool)
        for mech, tool in listed
        if any(facts.rankable for facts in mech.marketplace)
    ]
    if not offers:
        raise ConsumerError(
            f"tool {tool_name!r} is offered by {len(listed)} entries, none with "
            "marketplace facts this period (marketplace_address unset or the read "
            "failed): mech-interact cannot rank zeros; no request this period"
        )
    return offers[0][1], len(offers)


def check_arguments(tool: Tool, arguments: Mapping[str, Any]) -> None:
    """Validate a call's keyword arguments against the tool's input schema.

    :param tool: the tool.
    :param arguments: the typed arguments.
    :raises ConsumerError: listing every violation (JSON path and message).
    """
    validator = Draft202012Validator(tool.input_schema())
    errors = sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.path))
    if errors:
        detail = "; ".join(
            f"{'/'.join(str(p) for p in e.path) or '(arguments)'}: {e.message}"
            for e in errors
        )
        raise ConsumerError(
            f"the arguments for tool {tool.name!r} do not match its input schema: {detail}"
        )


def choose_request(
    catalogue: Catalogue,
    tool_name: str,
    prompt: str,
    arguments: Mapping[str, Any],
    nonce: str,
) -> Dict[str, Any]:
    """Build the synchronized-data updates for one mech request.

    :param catalogue: the agreed catalogue (the skill's shared state).
    :param tool_name: the tool to call.
    :param prompt: the request's free text.
    :param arguments: the tool's typed arguments.
    :param nonce: a per-request nonce (mech-interact's ``MechMetadata.nonce``).
    :return: ``{"mech_requests": JSON list, "mech_tool": str, "is_marketplace_v2": True}``;
        ``ConsumerError`` when the tool is not offered or the arguments are invalid.
    """
    tool, _ = find_tool(catalogue, tool_name)
    check_arguments(tool, arguments)
    request = {
        "prompt": prompt,
        "tool": tool_name,
        "nonce": nonce,
        "extra_attributes": dict(arguments),
    }
    return {
        MECH_REQUESTS: json.dumps([request], sort_keys=True),
        MECH_TOOL: tool_name,
        IS_MARKETPLACE_V2: True,
    }


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
