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

It is what a service that uses the catalogue writes: pick a tool and the mech to pay from
the agreed (shared-state) catalogue, validate the call's typed arguments against the
tool's input schema (JSON Schema 2020-12, :meth:`Tool.input_schema`, checked with
``jsonschema``), and write the synchronized-data keys mech-interact's request round reads
(``mech_requests``, ``mech_tool``, ``is_marketplace_v2``, ``selected_mechs``: see
:mod:`mech_catalogue_core.catalogue.mech_request`).

:func:`choose_request` is the consumer's logic (the library's
:func:`mech_catalogue_core.catalogue.mech_request.mech_request`, which the requester
service's skill uses too). The round that agrees on its output is the requester skill's own
``ToolChoiceRound`` (``requester_chained_abci/consumer.py``): :func:`consumer_app` wraps it
in a one-round app to chain between ``ToolMetadataAbciApp`` and ``MechInteractAbciApp``
(``tests/composition/chain.py``). It is imported there, not here, because the skill
imports mech-interact, which only the tests that need it load (skipping, saying what to
provide, when it is absent).
"""

import json
from typing import Any, List, Mapping, Optional

from mech_catalogue_core.catalogue.mech_request import MechRequestError as ConsumerError
from mech_catalogue_core.catalogue.mech_request import mech_request as choose_request
from mech_catalogue_core.model.catalogue import Catalogue

__all__ = ["ConsumerError", "choose_request", "payload_of", "consumer_app"]


def consumer_app() -> Any:
    """The requester skill's ``ToolChoiceRound`` alone, as an app with its two exits.

    Call it after mech-interact is importable (:func:`tests.mech_interact.load_mech_interact`).

    :return: an ``AbciApp`` class: ``ToolChoiceRound`` -> ``FinishedToolChoiceRound`` |
        ``NoToolChoiceRound``, with the skill's own events, timeout and post-conditions.
    """
    # pylint: disable=import-outside-toplevel,import-error,no-name-in-module
    from packages.mech_catalogue.skills.requester_chained_abci import consumer
    from packages.valory.skills.abstract_round_abci.base import AbciApp

    rounds = (
        consumer.ToolChoiceRound,
        consumer.FinishedToolChoiceRound,
        consumer.NoToolChoiceRound,
    )
    skill_app = consumer.RequesterAbciApp
    return type(
        "ConsumerAbciApp",
        (AbciApp,),
        {
            "__doc__": "The requester skill's tool choice round, alone.",
            "initial_round_cls": consumer.ToolChoiceRound,
            "initial_states": {consumer.ToolChoiceRound},
            "transition_function": {
                r: dict(skill_app.transition_function[r]) for r in rounds
            },
            "final_states": set(rounds[1:]),
            "event_to_timeout": dict(skill_app.event_to_timeout),
            "db_pre_conditions": {consumer.ToolChoiceRound: set()},
            "db_post_conditions": {
                r: set(skill_app.db_post_conditions[r]) for r in rounds[1:]
            },
        },
    )


def payload_of(
    catalogue: Catalogue, call: Mapping[str, Any], errors: Optional[List[str]] = None
) -> str:
    """What an agent votes in ``ToolChoiceRound``: the updates, or ``""``.

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
