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

"""Views of a catalogue in the shapes other skills already read.

``mechs_info_view`` matches mech-interact's ``MechInfo`` dataclass
(valory-xyz/mech-interact v0.32.3, ``packages/valory/skills/mech_interact_abci/states/base.py``):
``MechInfo(**item)`` must accept every item, so only its field names appear. mech-interact
fills the same fields from its subgraph query (``graph_tooling/queries/mechs_info.py``:
``meches { id address maxDeliveryRate karma receivedRequests selfDeliveredFromReceived
service { metadata deliveries } }``); here they come from the chain
(:mod:`..chain.marketplace` names each call):

=====================  ==================================================================
field                  value written here, for a mech with marketplace facts
=====================  ==================================================================
``id``                 the service id (legacy: agent id), as a decimal string
``address``            the mech contract, EIP-55 checksummed (the ``CreateMech`` event,
                       confirmed by ``mapAgentMechFactories``)
``service``            ``{"metadata": [{"metadata": "0x<digest hex>"}], "deliveries": []}``;
                       mech-interact strips the ``0x`` to get the manifest digest.
                       ``deliveries`` (the subgraph's last delivery timestamp) is not read
                       from chain, so mech-interact's liveness counts it as never
                       delivered once ``received_requests`` > 0
``karma``              ``Karma.mapMechKarma(mech)`` (subgraph ``karma``)
``received_requests``  ``mech.numTotalRequests()`` (subgraph ``receivedRequests``: requests
                       addressed to the mech)
``self_delivered``     ``min(mech.numTotalDeliveries(), numTotalRequests())`` (subgraph
                       ``selfDeliveredFromReceived``; the mech's counter also counts requests
                       of other mechs it delivered after their timeout, so it is an upper
                       bound, capped at the requests received)
``max_delivery_rate``  ``mech.maxDeliveryRate()`` (legacy: ``price()``), wei
``relevant_tools``     the mech's tool names, sorted (a JSON list; MechInfo makes a set)
=====================  ==================================================================

Only mechs whose status is ``ok`` (including a kept last good manifest) are listed, one
item per mech contract whose facts are confirmed and complete with a rate >= 1
(``MechFacts.rankable``): mech-interact's score takes ``log(max_delivery_rate)``, so a
rate of 0, or a 0 standing in for an unread value, would make its ranking raise. A mech
contract left out is still listed, with its reasons, in ``GET /mechs``.

An entry with no rankable marketplace facts (no marketplace configured, or its reads
failed) is left out of ``mechs_info`` altogether: zeros standing in for unread values
are not facts, and with two such mechs relevant mech-interact's ranking takes
``log(0)`` and raises. Its tools stay in ``mech_tools`` and ``GET /tools``, and
``GET /mechs`` says why it has no facts.
"""

import hashlib
import json
from typing import Any, Dict, List, Tuple

from eth_utils import to_checksum_address

from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.catalogue import (
    STATUS_OK,
    Catalogue,
    Mech,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.market import (
    MechFacts,
)


def _service(mech: Mech) -> Dict[str, Any]:
    return {
        "metadata": [{"metadata": mech.digest}] if mech.digest else [],
        "deliveries": [],
    }


def _fact_item(mech: Mech, facts: MechFacts, tools: List[str]) -> Dict[str, Any]:
    requests = int(facts.requests or 0)
    return {
        "id": str(mech.ref.mech_id),
        "address": to_checksum_address(facts.address),
        "service": _service(mech),
        "karma": facts.karma,
        "received_requests": requests,
        "self_delivered": min(int(facts.deliveries or 0), requests),
        "max_delivery_rate": facts.max_delivery_rate,
        "relevant_tools": tools,
    }


def mechs_info_view(catalogue: Catalogue) -> List[Dict[str, Any]]:
    """Build the mech-interact ``mechs_info`` view.

    :param catalogue: the catalogue.
    :return: mech-interact ``MechInfo``-compatible dicts, one per mech contract with
        rankable facts of an ok entry, in catalogue (ref) order, then mech address order
        within an entry.
    """
    view: List[Dict[str, Any]] = []
    for mech in catalogue.mechs:
        if mech.status != STATUS_OK:
            continue
        tools = sorted({tool.name for tool in mech.tools})
        view.extend(
            _fact_item(mech, facts, tools)
            for facts in mech.marketplace
            if facts.rankable
        )
    return view


def mech_tools_view(catalogue: Catalogue) -> List[str]:
    """Build the ``mech_tools`` view.

    :param catalogue: the catalogue.
    :return: the distinct tool names of ok mechs, sorted (mech-interact's ``SynchronizedData.mech_tools`` as a list).
    """
    return sorted(
        {
            tool.name
            for mech in catalogue.mechs
            if mech.status == STATUS_OK
            for tool in mech.tools
        }
    )


def views_document(catalogue: Catalogue) -> str:
    """Serialise both views as one ASCII JSON document, identical on every agent.

    :param catalogue: the catalogue.
    :return: ``{"mech_tools": [...], "mechs_info": [...]}`` with sorted keys, no spaces,
        non-ASCII escaped (so its length in characters is its length in bytes).
    """
    return json.dumps(
        {
            "mech_tools": mech_tools_view(catalogue),
            "mechs_info": mechs_info_view(catalogue),
        },
        separators=(",", ":"),
        sort_keys=True,
        ensure_ascii=True,
    )


def views_digest(document: str) -> str:
    """Hash a views document.

    :param document: from :func:`views_document`.
    :return: sha2-256 hex of its ASCII bytes.
    """
    return hashlib.sha256(document.encode("ascii")).hexdigest()


def views_chunks(document: str, size: int) -> List[str]:
    """Cut a views document into chunks of at most ``size`` characters.

    :param document: from :func:`views_document`.
    :param size: characters per chunk (> 0).
    :return: the chunks, in order (one empty chunk for an empty document).
    """
    return [document[at : at + size] for at in range(0, len(document), size)] or [""]


def views_from_document(document: str) -> Tuple[str, str]:
    """Split an agreed views document into the two database values.

    :param document: from :func:`views_document`.
    :return: ``(mechs_info JSON, mech_tools JSON)``, compact with sorted keys.
    :raises ValueError: when the document is not a views document.
    """
    data = json.loads(document)
    if not isinstance(data, dict) or not all(
        isinstance(data.get(k), list) for k in ("mechs_info", "mech_tools")
    ):
        raise ValueError("not a views document")
    compact: Dict[str, Any] = {"separators": (",", ":"), "sort_keys": True}
    return json.dumps(data["mechs_info"], **compact), json.dumps(
        data["mech_tools"], **compact
    )
