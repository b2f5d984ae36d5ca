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

"""A consumer's choice: one mech request for a tool of the agreed catalogue (pure).

What a service chained after the catalogue rounds decides before mech-interact's
``MechRequestRound`` (docs/running.md, "Embedding the catalogue in a service"):

1. :func:`choose_offer`: the mech contract to pay, for a tool asked by name or by kind
   (``Tool.kind``, the vocabulary of ``model.tool.TOOL_KINDS``): among the mech contracts
   of usable entries (status ``ok``) that offer it, have rankable marketplace facts this
   period (:attr:`MechFacts.rankable`: mech-interact's ranking takes
   ``log(max_delivery_rate)`` and raises on the zeros an entry without facts carries in
   ``mechs_info``) and that mech-interact can pay under the task's caps
   (:func:`.request_payment.unpayable_reason`: native, or OLAS / USDC named in the
   task's ``max_price``, at most its cap; never subscriptions), the first by the
   catalogue's offer rule (``catalogue.offer_rank``: tenure, then price, then address);
   :func:`skipped_offers` says why each other offer is left out;
2. :func:`check_arguments`: the call's typed arguments must match that mech's tool's input
   schema (:meth:`Tool.input_schema`, JSON Schema 2020-12, checked with ``jsonschema``);
3. :func:`mech_request`: the synchronized-data updates mech-interact v0.32.3 reads
   (its ``SynchronizedData.mech_requests``, ``mech_tool``, ``is_marketplace_v2``,
   ``selected_mechs``): a JSON list of one ``MechMetadata`` (``prompt``, ``tool``,
   ``nonce``, ``extra_attributes`` = the typed arguments, which mech-interact merges into
   the request's IPFS payload), and the chosen mech contract as its pin, so mech-interact
   pays the mech this rule chose, not the one its karma-based score would (a score a mech
   raises by paying itself); and the requester's own key :data:`REQUESTER_PAYMENT`, how
   it is paid (:class:`.request_payment.RequestPayment`; a token payment is completed
   with the tracker and token the chain names before the vote).

Nothing here reads the network; which mech is paid comes from the agreed marketplace
facts and the rule above, how much from the mech contract itself (mech-interact reads
``maxDeliveryRate()`` before paying), never from text in a manifest.
"""

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

from mech_catalogue_core.catalogue.offer_rank import (
    delivered_once,
    rank_key,
    seniority_key,
)
from mech_catalogue_core.catalogue.request_payment import (
    REQUESTER_PAYMENT,
    payment_of,
    unpayable_reason,
)
from mech_catalogue_core.manifest.json_equality import JsonEqualityValidator
from mech_catalogue_core.model.catalogue import STATUS_OK, Catalogue, Mech
from mech_catalogue_core.model.market import MechFacts
from mech_catalogue_core.model.tool import Tool

#: mech-interact v0.32.3's synchronized-data keys the request writes
#: (``mech_interact_abci/states/base.py``: ``SynchronizedData.mech_requests`` ...;
#: ``selected_mechs`` is its consumer pin, lowercase addresses)
MECH_REQUESTS, MECH_TOOL, IS_MARKETPLACE_V2, SELECTED_MECHS = (
    "mech_requests",
    "mech_tool",
    "is_marketplace_v2",
    "selected_mechs",
)


class MechRequestError(ValueError):
    """No request can be made from the catalogue; the message says why and what to do."""


@dataclass(frozen=True)
class Offer:
    """One mech contract that offers the wanted tool.

    :param mech: the catalogue entry (its service's manifest).
    :param tool: that entry's description of the tool (its input schema is the one the
        arguments are checked against).
    :param facts: the mech contract's marketplace facts (its address is paid).
    """

    mech: Mech
    tool: Tool
    facts: MechFacts

    def rank(self) -> Tuple[object, ...]:
        """The offer's place under the catalogue's offer rule (smaller first).

        The agreed catalogue holds no tenure blocks (declaration, first delivery since):
        those tiers are unknown here for every offer, so "delivered at least once", then
        the earliest ``CreateMech`` block, then the cheaper, then the lower address decide.

        :return: :func:`catalogue.offer_rank.rank_key` of the offer.
        """
        facts = self.facts
        seniority = seniority_key(
            None,
            None,
            delivered_once(facts.requests, facts.deliveries),
            facts.created_block,
        )
        return rank_key(seniority, facts.max_delivery_rate, facts.address.lower())


def _wanted(tool: Tool, tool_name: str, kind: str) -> bool:
    return tool.name == tool_name if tool_name else tool.kind == kind


def _what(tool_name: str, kind: str) -> str:
    return f"tool {tool_name!r}" if tool_name else f"tool kind {kind!r}"


def offering_mechs(
    catalogue: Catalogue, tool_name: str = "", kind: str = ""
) -> List[Tuple[Mech, Tool]]:
    """Return the usable entries offering a tool (by name, else by kind), with that tool.

    :param catalogue: the agreed catalogue.
    :param tool_name: the tool name (exact; "" to choose by ``kind``).
    :param kind: the tool kind (``Tool.kind``), used when ``tool_name`` is "".
    :return: ``(entry, tool)`` pairs of status-``ok`` entries, in catalogue order (every
        entry, whatever its marketplace facts).
    """
    return [
        (mech, tool)
        for mech in catalogue.mechs
        if mech.status == STATUS_OK
        for tool in mech.tools
        if _wanted(tool, tool_name, kind)
    ]


def _ranked(
    catalogue: Catalogue, tool_name: str, kind: str
) -> List[Tuple[Mech, Tool, MechFacts]]:
    """The offers of a tool (by name, else kind) whose facts mech-interact can rank."""
    return [
        (mech, tool, facts)
        for mech, tool in offering_mechs(catalogue, tool_name, kind)
        for facts in mech.marketplace
        if facts.rankable
    ]


def skipped_offers(
    catalogue: Catalogue,
    tool_name: str = "",
    kind: str = "",
    max_price: Optional[Mapping[str, int]] = None,
) -> List[Tuple[str, str]]:
    """Say why each rankable offer of the tool is not paid.

    :param catalogue: the agreed catalogue.
    :param tool_name: the tool name ("" to choose by ``kind``).
    :param kind: the tool kind, used when ``tool_name`` is "".
    :param max_price: the task's caps (None: native only, uncapped).
    :return: ``(mech address, reason)`` per skipped offer, in catalogue order
        (:func:`.request_payment.unpayable_reason`).
    """
    return [
        (facts.address.lower(), reason)
        for _, _, facts in _ranked(catalogue, tool_name, kind)
        if (reason := unpayable_reason(facts, max_price)) is not None
    ]


def choose_offer(
    catalogue: Catalogue,
    tool_name: str = "",
    kind: str = "",
    max_price: Optional[Mapping[str, int]] = None,
) -> Offer:
    """Choose the mech contract to pay for a tool asked by name or by kind.

    :param catalogue: the agreed catalogue.
    :param tool_name: the tool name (exact); "" to choose by ``kind``.
    :param kind: the tool kind, used when ``tool_name`` is "".
    :param max_price: the task's caps by asset (None: the native token only, uncapped).
    :return: the first payable offer by :meth:`Offer.rank`.
    :raises MechRequestError: when neither or both of ``tool_name`` and ``kind`` are
        given; when no usable entry offers the tool or kind (the message lists what is
        offered); when the entries offering it have no rankable facts this period; or
        when mech-interact cannot pay any of them under the caps (the message gives
        each offer's reason, :func:`skipped_offers`).
    """
    if bool(tool_name) == bool(kind):
        raise MechRequestError(
            "set exactly one of the requested tool name and the requested tool kind "
            f"(got name {tool_name!r}, kind {kind!r})"
        )
    what = _what(tool_name, kind)
    listed = offering_mechs(catalogue, tool_name, kind)
    if not listed:
        usable = [t for m in catalogue.mechs if m.status == STATUS_OK for t in m.tools]
        offered = sorted(
            {t.name for t in usable}
            if tool_name
            else {t.kind for t in usable if t.kind}
        )
        raise MechRequestError(
            f"no usable mech in the catalogue offers {what}; set it to one of: {offered}"
        )
    ranked = _ranked(catalogue, tool_name, kind)
    if not ranked:
        raise MechRequestError(
            f"{what} is offered by {len(listed)} entries, none with marketplace facts "
            "this period (marketplace address unset or the read failed): mech-interact "
            "cannot rank them; no request this period"
        )
    payable = [
        Offer(mech, tool, facts)
        for mech, tool, facts in ranked
        if unpayable_reason(facts, max_price) is None
    ]
    if not payable:
        reasons = "; ".join(
            f"mech {address}: {reason}"
            for address, reason in skipped_offers(catalogue, tool_name, kind, max_price)
        )
        raise MechRequestError(
            f"{what} is offered by no mech the requester can pay through mech-interact "
            f"v0.32.3 under the task's caps ({reasons}); no request this period"
        )
    return min(payable, key=Offer.rank)


def check_arguments(tool: Tool, arguments: Mapping[str, Any]) -> None:
    """Validate a call's keyword arguments against the tool's input schema.

    :param tool: the tool.
    :param arguments: the typed arguments (JSON values by argument name).
    :raises MechRequestError: listing every violation (JSON path and message).
    """
    validator = JsonEqualityValidator(tool.input_schema())
    errors = sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.path))
    if errors:
        detail = "; ".join(
            f"{'/'.join(str(p) for p in e.path) or '(arguments)'}: {e.message}"
            for e in errors
        )
        raise MechRequestError(
            f"the arguments for tool {tool.name!r} do not match its input schema: "
            f"{detail}"
        )


def call_arguments(
    tool: Tool, prompt: str, arguments: Mapping[str, Any]
) -> Dict[str, Any]:
    """The arguments the tool's input schema sees: the prompt too, when it declares one.

    Most manifests give the free text as a ``prompt`` input (the MCP ``tools/list`` shape
    lists it among the arguments); mech-interact sends it as the payload's ``prompt``, and
    the other arguments beside it (``extra_attributes``).

    :param tool: the tool.
    :param prompt: the request's free text.
    :param arguments: the typed arguments without the prompt.
    :return: ``{"prompt": prompt, **arguments}`` when the schema has a ``prompt``
        property, else ``arguments``.
    :raises MechRequestError: when ``arguments`` holds a ``prompt`` itself (it would
        replace the payload's prompt in mech-interact's merge).
    """
    if "prompt" in arguments:
        raise MechRequestError(
            f"the arguments for tool {tool.name!r} hold a 'prompt': give the request's "
            "text as the prompt, not among the typed arguments"
        )
    properties = tool.input_schema().get("properties", {})
    if "prompt" in properties:
        return {"prompt": prompt, **arguments}
    return dict(arguments)


def request_nonce(catalogue_digest: str, period: int, tool_name: str) -> str:
    """A nonce every agent computes alike (mech-interact's ``MechMetadata.nonce``).

    :param catalogue_digest: the agreed catalogue digest.
    :param period: the period count.
    :param tool_name: the requested tool.
    :return: 32 hex characters of SHA-256 over the three (agents agree on the payload
        only when they compute the same nonce; a random one would never be agreed).
    """
    seed = json.dumps([catalogue_digest, period, tool_name]).encode()
    return hashlib.sha256(seed).hexdigest()[:32]


def mech_request(  # pylint: disable=too-many-arguments
    catalogue: Catalogue,
    tool_name: str,
    prompt: str,
    arguments: Mapping[str, Any],
    nonce: str,
    kind: str = "",
    max_price: Optional[Mapping[str, int]] = None,
) -> Dict[str, Any]:
    """Build the synchronized-data updates for one mech request.

    :param catalogue: the agreed catalogue.
    :param tool_name: the tool to call ("" to choose a tool of ``kind``).
    :param prompt: the request's free text.
    :param arguments: the tool's typed arguments.
    :param nonce: the request nonce (:func:`request_nonce`).
    :param kind: the tool kind, used when ``tool_name`` is "".
    :param max_price: the task's caps by asset (None: the native token only, uncapped).
    :return: ``{"mech_requests": JSON list of one MechMetadata, "mech_tool": str,
        "is_marketplace_v2": True, "selected_mechs": JSON list of the chosen mech
        contract's lowercase address, "requester_payment": JSON of its
        RequestPayment (tracker and token still "" for a token)}``; :class:`MechRequestError` (from
        :func:`choose_offer`, :func:`call_arguments` or :func:`check_arguments`) when no
        payable offer exists or the arguments do not match the chosen tool's schema.
    """
    offer = choose_offer(catalogue, tool_name, kind, max_price)
    tool = offer.tool
    check_arguments(tool, call_arguments(tool, prompt, arguments))
    request = {
        "prompt": prompt,
        "tool": tool.name,
        "nonce": nonce,
        "extra_attributes": dict(arguments),
    }
    return {
        MECH_REQUESTS: json.dumps([request], sort_keys=True),
        MECH_TOOL: tool.name,
        IS_MARKETPLACE_V2: True,
        SELECTED_MECHS: json.dumps([offer.facts.address.lower()]),
        REQUESTER_PAYMENT: payment_of(offer.facts, max_price).to_json(),
    }
