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

"""Behaviours of the requester: the tool choice, the settlement router, and the composition.

``ToolChoiceBehaviour`` is thin glue: it reads the agreed catalogue from the skill's shared
state (``SharedState.exposed``, set when the agents agreed on ``catalogue_digest``), asks
:func:`choose` (pure) for the request, and sends the result as its vote.
"""

import json
from typing import Any, Dict, Generator, Optional, Set, Tuple, Type, cast

from mech_catalogue_core.adapters.task_file import load_task
from mech_catalogue_core.catalogue.mech_request import (
    MECH_TOOL,
    SELECTED_MECHS,
    MechRequestError,
    mech_request,
    request_nonce,
)
from mech_catalogue_core.catalogue.request_task import (
    RequestTask,
    TaskError,
    task_from,
)
from mech_catalogue_core.model.catalogue import Catalogue

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.round_behaviour import (
    PublishRoundBehaviour,
)
from packages.mech_catalogue.skills.requester_chained_abci.composition import (
    UNUSED_MECH_INTERACT_STATES,
    RequesterChainedAbciApp,
)
from packages.mech_catalogue.skills.requester_chained_abci.consumer import (
    PostTxSettlementRound,
    ToolChoiceRound,
)
from packages.mech_catalogue.skills.requester_chained_abci.models import Params
from packages.mech_catalogue.skills.requester_chained_abci.payloads import (
    ToolChoicePayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.registration import (
    BoundedRegistrationBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.round_behaviour import (
    ToolMetadataRoundBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    SynchronizedData as CatalogueData,
)
from packages.valory.skills.abstract_round_abci.behaviours import (
    AbstractRoundBehaviour,
    BaseBehaviour,
)
from packages.valory.skills.mech_interact_abci.behaviours.round_behaviour import (
    MechInteractRoundBehaviour,
)
from packages.valory.skills.registration_abci.behaviours import (
    RegistrationStartupBehaviour,
)
from packages.valory.skills.reset_pause_abci.behaviours import (
    ResetPauseABCIConsensusBehaviour,
)
from packages.valory.skills.transaction_settlement_abci.behaviours import (
    TransactionSettlementRoundBehaviour,
)


def requested_task(params: Any) -> RequestTask:
    """This period's task: from ``requester_task_file`` when set, else the parameters.

    :param params: the skill parameters (``requester_task_file``, ``requester_tool``,
        ``requester_kind``, ``requester_prompt``, ``requester_arguments``).
    :return: the task (``request_task.TaskError`` is raised, naming the file or
        parameter and the field, when it is invalid).
    """
    if params.requester_task_file:
        return load_task(params.requester_task_file)
    document: Dict[str, Any] = {
        "prompt": params.requester_prompt,
        "arguments": params.requester_arguments,
    }
    if params.requester_kind:  # a kind replaces the (default) tool name
        document["kind"] = params.requester_kind
    elif params.requester_tool:
        document["tool"] = params.requester_tool
    return task_from(document, "the requester_* parameters")


def choose(
    catalogue: Optional[Catalogue],
    catalogue_digest: str,
    agreed_digest: str,
    period: int,
    params: Any,
) -> Tuple[str, str]:
    """Decide this agent's vote in ``ToolChoiceRound``.

    :param catalogue: the catalogue this agent exposes (None before any agreement).
    :param catalogue_digest: its digest ("" when there is none).
    :param agreed_digest: the agents' agreed ``catalogue_digest`` this period.
    :param period: the period count (part of the nonce).
    :param params: the skill parameters (:func:`requested_task`).
    :return: ``(payload content, log line)``: the JSON of the ``mech_request`` updates,
        or ``""`` with the reason no request is made this period (an invalid task, no
        payable offer, arguments that do not match the chosen tool's schema).
    """
    if catalogue is None or catalogue_digest != agreed_digest:
        return "", (
            f"requester: no request this period: this agent does not hold the agreed "
            f"catalogue {agreed_digest or '(none yet)'}"
        )
    try:
        task = requested_task(params)
        nonce = request_nonce(
            agreed_digest, period, task.tool_name or f"kind:{task.kind}"
        )
        updates = mech_request(
            catalogue, task.tool_name, task.prompt, task.arguments, nonce, task.kind
        )
    except (TaskError, MechRequestError) as error:
        return "", f"requester: no request this period: {error}"
    (mech,) = json.loads(updates[SELECTED_MECHS])
    return json.dumps(updates, sort_keys=True), (
        f"requester: requesting tool {updates[MECH_TOOL]!r} ({task.wanted}) from mech "
        f"{mech} (nonce {nonce}) from catalogue {agreed_digest}"
    )


class ToolChoiceBehaviour(BaseBehaviour):  # pylint: disable=too-many-ancestors
    """Vote for one mech request built from the agreed catalogue (or for none)."""

    matching_round = ToolChoiceRound

    def async_act(self) -> Generator[Any, None, None]:
        """Choose, log why, send the vote and wait for the round to end.

        :yield: while the payload is sent and the round ends.
        """
        exposed = getattr(self.context.state, "exposed", None)
        data = CatalogueData(self.synchronized_data.db)
        content, line = choose(
            None if exposed is None else exposed.catalogue,
            "" if exposed is None else exposed.catalogue_digest,
            data.catalogue_digest,
            data.period_count,
            cast(Params, self.context.params),
        )
        self.context.logger.info(line)
        payload = ToolChoicePayload(self.context.agent_address, content)
        with self.context.benchmark_tool.measure(self.behaviour_id).consensus():
            yield from self.send_a2a_transaction(payload)
            yield from self.wait_until_round_end()
        self.set_done()


class PostTxSettlementBehaviour(BaseBehaviour):  # pylint: disable=too-many-ancestors
    """Nothing to send: the router round ends at its first block."""

    matching_round = PostTxSettlementRound

    def async_act(self) -> Generator[Any, None, None]:
        """Wait for the round to end.

        :yield: until it ends.
        """
        yield from self.wait_until_round_end()
        self.set_done()


class RequesterConsensusBehaviour(AbstractRoundBehaviour):
    """Every chained app's behaviours (see ``composition.py`` for the order)."""

    initial_behaviour_cls = RegistrationStartupBehaviour
    abci_app_cls = RequesterChainedAbciApp
    behaviours: Set[Type[BaseBehaviour]] = {
        RegistrationStartupBehaviour,
        BoundedRegistrationBehaviour,  # the framework's, with a bounded payload
        *ToolMetadataRoundBehaviour.behaviours,
        *PublishRoundBehaviour.behaviours,
        ToolChoiceBehaviour,
        PostTxSettlementBehaviour,
        *(
            behaviour
            for behaviour in MechInteractRoundBehaviour.behaviours
            if behaviour.matching_round not in UNUSED_MECH_INTERACT_STATES
        ),
        *TransactionSettlementRoundBehaviour.behaviours,
        *ResetPauseABCIConsensusBehaviour.behaviours,
    }
