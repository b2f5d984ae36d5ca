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
:func:`choose` (pure) for the request, completes a token payment with the balance tracker
and token the chain names (:func:`token_reads`), and sends the result as its vote.

``PaidMechRequestBehaviour`` is mech-interact's ``MechRequestBehaviour`` (its code runs
unchanged) with two additions for token payments, which its own ranking cannot reach
(the catalogue's ``mechs_info`` lists native-paid mechs only): the priority mech is the
agreed token offer's, and before anything is built the chain is checked against the
agreed choice (same payment type, price within the cap, enough tokens in the Safe);
otherwise it votes mech-interact's own skip payload and the period ends in reset.
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
    skipped_offers,
)
from mech_catalogue_core.catalogue.request_payment import (
    REQUESTER_PAYMENT,
    PaymentReadError,
    RequestPayment,
    check_decimals,
    decimals_call,
    decode_address,
    decode_uint,
    token_call,
    tracker_lookup_call,
)
from mech_catalogue_core.catalogue.request_task import (
    RequestTask,
    TaskError,
    task_from,
)
from mech_catalogue_core.model.catalogue import Catalogue

from packages.mech_catalogue.contracts.multicall_reader.contract import (
    PUBLIC_ID as MULTICALL_READER_ID,
)
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
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.framework import (
    FrameworkCalls,
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
from packages.valory.skills.mech_interact_abci.behaviours.request import (
    MechRequestBehaviour,
)
from packages.valory.skills.mech_interact_abci.behaviours.round_behaviour import (
    MechInteractRoundBehaviour,
)
from packages.valory.skills.mech_interact_abci.states.request import (
    MechRequestRound,
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
            catalogue,
            task.tool_name,
            task.prompt,
            task.arguments,
            nonce,
            task.kind,
            task.max_price,
        )
    except (TaskError, MechRequestError) as error:
        return "", f"requester: no request this period: {error}"
    (mech,) = json.loads(updates[SELECTED_MECHS])
    payment = RequestPayment.from_json(updates[REQUESTER_PAYMENT], completed=False)
    skipped = "".join(
        f"; skipped mech {address}: {reason}"
        for address, reason in skipped_offers(
            catalogue, task.tool_name, task.kind, task.max_price
        )
    )
    paid = "" if payment is None else f", paid in {payment.asset}"
    return json.dumps(updates, sort_keys=True), (
        f"requester: requesting tool {updates[MECH_TOOL]!r} ({task.wanted}) from mech "
        f"{mech}{paid} (nonce {nonce}) from catalogue {agreed_digest}{skipped}"
    )


class ToolChoiceBehaviour(FrameworkCalls):  # pylint: disable=too-many-ancestors
    """Vote for one mech request built from the agreed catalogue (or for none)."""

    matching_round = ToolChoiceRound

    def async_act(self) -> Generator[Any, None, None]:
        """Choose, complete a token payment from the chain, log why, vote, wait.

        :yield: while the chain is read, the payload is sent and the round ends.
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
        if content:
            content, refused = yield from self.with_token(content)
            line = refused or line
        self.context.logger.info(line)
        payload = ToolChoicePayload(self.context.agent_address, content)
        with self.context.benchmark_tool.measure(self.behaviour_id).consensus():
            yield from self.send_a2a_transaction(payload)
            yield from self.wait_until_round_end()
        self.set_done()

    def eth_call(self, to: str, data: bytes) -> Generator[None, None, bytes]:
        """One read-only call at the latest block (the multicall reader's ``call``).

        :param to: the contract.
        :param data: the call data.
        :yield: while waiting for the ledger connection.
        :return: the return data.
        :raises PaymentReadError: when the call failed or returned no hex.
        """
        body, why = yield from self.contract_state(
            to, str(MULTICALL_READER_ID), "call", data="0x" + data.hex()
        )
        if body is None:
            raise PaymentReadError(f"eth_call to {to} failed: {why}")
        text = str(body.get("data", ""))
        try:
            return bytes.fromhex(text[2:] if text.startswith("0x") else text)
        except ValueError as exc:
            raise PaymentReadError(f"eth_call to {to} returned {text[:80]!r}") from exc

    def with_token(self, content: str) -> Generator[None, None, Tuple[str, str]]:
        """Complete a token payment with the tracker and token the chain names.

        :param content: :func:`choose`'s payload content (a request).
        :yield: while the chain is read.
        :return: ``(content, "")`` with ``requester_payment`` completed (unchanged for a
            native payment), or ``("", reason)`` when a read fails or the token is not
            the asset's (:func:`token_reads`).
        """
        updates = json.loads(content)
        payment = RequestPayment.from_json(
            updates.get(REQUESTER_PAYMENT), completed=False
        )
        if payment is None or not payment.by_token:
            return content, ""
        params = cast(Params, self.context.params)
        market = params.mech_marketplace_config.mech_marketplace_address
        try:
            payment = yield from token_reads(self.eth_call, market, payment)
        except PaymentReadError as error:
            return "", (
                f"requester: no request this period: mech {payment.mech} "
                f"({payment.asset}): {error}"
            )
        updates[REQUESTER_PAYMENT] = payment.to_json()
        return json.dumps(updates, sort_keys=True), ""


def token_reads(
    eth_call: Any, market: str, payment: RequestPayment
) -> Generator[None, None, RequestPayment]:
    """Read a token payment's tracker, its token and the token's decimals.

    :param eth_call: ``(to, data) -> generator of return data`` (raises
        :class:`PaymentReadError` on a failed call).
    :param market: the MechMarketplace the request goes to (mech-interact's
        ``mech_marketplace_address``).
    :param payment: the chosen token payment.
    :yield: while each call is answered.
    :return: the payment with ``tracker`` and ``token``; :class:`PaymentReadError` when
        the marketplace has no tracker for the type, the tracker names no token, or the
        token's decimals are not the asset's (:func:`check_decimals`).
    """
    data = yield from eth_call(market, tracker_lookup_call(payment.payment_type))
    tracker = decode_address(
        data, f"MechMarketplace {market} mapPaymentTypeBalanceTrackers"
    )
    data = yield from eth_call(tracker, token_call())
    payment = payment.with_token(
        tracker, decode_address(data, f"tracker {tracker} token()")
    )
    data = yield from eth_call(payment.token, decimals_call())
    check_decimals(payment, decode_uint(data, f"token {payment.token} decimals()"))
    return payment


class PaidMechRequestBehaviour(
    MechRequestBehaviour
):  # pylint: disable=too-many-ancestors
    """mech-interact's request behaviour, paying the token offer the consumer agreed on."""

    matching_round = MechRequestRound

    @property
    def agreed_payment(self) -> Optional[RequestPayment]:
        """The payment ``ToolChoiceRound`` agreed this period.

        :return: it, or None when none was written (mech-interact's own choice).
        """
        return RequestPayment.from_json(
            self.synchronized_data.db.get(REQUESTER_PAYMENT, None)
        )

    def get_priority_mech_address(self) -> Optional[str]:
        """The agreed token offer's mech; mech-interact's own choice for native.

        :return: the mech address, or None when it is penalized (mech-interact's
            ``last_failure_reason`` says so).
        """
        payment = self.agreed_payment
        if payment is None or not payment.by_token:
            return super().get_priority_mech_address()
        self.shared_state.last_failure_reason = None
        penalized = {address.lower() for address in self.shared_state.penalized_mechs}
        if payment.mech in penalized:
            self.shared_state.last_failure_reason = "no_non_penalized_valid_mech"
            return None
        return payment.mech_checksum

    def async_act(self) -> Generator:
        """Check a token payment against the chain, then act as mech-interact does.

        :yield: while the chain is read and mech-interact acts.
        """
        payment = self.agreed_payment
        if (
            payment is not None
            and payment.by_token
            and self._mech_requests
            and self.priority_mech_address
        ):
            refusal = yield from self.refusal(payment)
            if refusal is not None:
                self.context.logger.error(f"requester: {refusal}")
                yield from self.finish_behaviour(self._build_skip_payload())
                return
        yield from super().async_act()

    def refusal(self, payment: RequestPayment) -> Generator[None, None, Optional[str]]:
        """Read the mech's type and rate and the Safe's tokens; say why not to pay.

        :param payment: the agreed token payment.
        :yield: while mech-interact's own reads are answered.
        :return: :meth:`RequestPayment.refusal`'s reason, or None.
        """
        yield from self.wait_for_condition_with_sleep(self._get_payment_type)
        yield from self.wait_for_condition_with_sleep(self._get_max_delivery_rate)
        rate = self._mech_max_delivery_rate
        if rate is None:
            return f"mech {payment.mech}'s maxDeliveryRate() could not be read"
        # reads the Safe's balance of params.price_token: the agreed token (models.py)
        yield from self.wait_for_condition_with_sleep(self.update_safe_balances)
        return payment.refusal(
            self.mech_payment_type.value, int(rate), self.token_balance
        )


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
            and behaviour is not MechRequestBehaviour
        ),
        PaidMechRequestBehaviour,  # MechRequestBehaviour, paying token offers too
        *TransactionSettlementRoundBehaviour.behaviours,
        *ResetPauseABCIConsensusBehaviour.behaviours,
    }
