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
item per mech contract paid in the native token whose facts are confirmed and complete
with a rate >= 1 (``MechFacts.rankable``; token and subscription mechs are left out:
:func:`priced_in_another_unit`): mech-interact's score takes ``log(max_delivery_rate)``, so a
rate of 0, or a 0 standing in for an unread value, would make its ranking raise. A mech
contract left out is still listed, with its reasons, in ``GET /mechs``.

An entry with no rankable marketplace facts (no marketplace configured, or its reads
failed) is left out of ``mechs_info`` altogether: zeros standing in for unread values
are not facts, and with two such mechs relevant mech-interact's ranking takes
``log(0)`` and raises. Its tools stay in ``mech_tools`` and ``GET /tools``, and
``GET /mechs`` says why it has no facts.

Both views are bounded together (:data:`VIEWS_MAX_BYTES`): anyone can register services
whose manifests name thousands of distinct tools, and the views are agreed chunk by chunk
with the whole database re-hashed each round, so their cost grew with the square of what
strangers registered (200 such services: 26 MB of views, about 15 minutes of CPU per
changed period). :func:`views_selection` admits whole mechs in priority order while the
document stays under the bound; ``GET /mechs`` marks the others ``in_views: false``. Real
registries are far below the bound (hundreds of mechs, a few hundred distinct tool names).

The priority is one no stranger can buy (issue #29, attack 2): first the mechs the last
agreed views already held (:class:`IncumbentViews`, read from the synchronized data every
agent has), then the rest in catalogue order (oldest registration first in each
registry). Karma, requests and deliveries do not enter it: a mech raises them by sending
requests to itself and delivering them, and 57 such services once pushed the honest
mechs out. So newcomers registering in bulk only fill what room is left.
"""

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Set, Tuple

from eth_utils import to_checksum_address
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)
from mech_catalogue_core.model.payment import payment_terms
from mech_catalogue_core.model.tool import MechRef
from mech_catalogue_core.model.vocabulary import PaymentWay

#: the largest views document (bytes of ASCII JSON): 86 chunks of 12 KiB to agree on
VIEWS_MAX_BYTES = 1 << 20
_EMPTY_DOCUMENT_BYTES = len('{"mech_tools":[],"mechs_info":[]}')


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


def _json_bytes(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), sort_keys=True))


def _items(mech: Mech) -> List[Dict[str, Any]]:
    tools = sorted({tool.name for tool in mech.tools})
    return [_fact_item(mech, f, tools) for f in mech.marketplace if f.rankable]


@dataclass(frozen=True)
class IncumbentViews:
    """What the last agreed views held: their tool names and ``mechs_info`` items.

    :param tool_names: the agreed ``mech_tools``.
    :param items: ``(id, address lowercase)`` of each agreed ``mechs_info`` item.
    """

    tool_names: FrozenSet[str] = frozenset()
    items: FrozenSet[Tuple[str, str]] = frozenset()

    @classmethod
    def from_views(
        cls, mechs_info: Iterable[Mapping[str, Any]], mech_tools: Iterable[str]
    ) -> "IncumbentViews":
        """Read the agreed views (the synchronized data's ``mechs_info``, ``mech_tools``).

        :param mechs_info: the agreed ``mechs_info`` items (an item without a string
            ``id`` and ``address`` is ignored).
        :param mech_tools: the agreed tool names.
        :return: the incumbents (empty before the first views were agreed).
        """
        items = frozenset(
            (item["id"], item["address"].lower())
            for item in mechs_info
            if isinstance(item, Mapping)
            and isinstance(item.get("id"), str)
            and isinstance(item.get("address"), str)
        )
        names = frozenset(name for name in mech_tools if isinstance(name, str))
        return cls(names, items)

    def holds(self, mech: Mech) -> bool:
        """Whether the last agreed views held all of this mech, as it is now.

        All its tool names were in ``mech_tools`` and each of its ``mechs_info`` items was
        there (same service id and contract). A newcomer can meet this only by adding
        nothing to the views (its names already there, no item of its own): it then
        costs no bytes and displaces nobody. A mech that grew is a newcomer for its
        growth.

        :param mech: an ok mech of the catalogue.
        :return: True when it is an incumbent.
        """
        if not {tool.name for tool in mech.tools} <= self.tool_names:
            return False
        return all(
            (item["id"], item["address"].lower()) in self.items for item in _items(mech)
        )


def _priority(
    mech: Mech, position: int, incumbents: Optional[IncumbentViews]
) -> Tuple[int, int]:
    """Incumbents first, then catalogue order: nothing a stranger can buy."""
    held = incumbents is not None and incumbents.holds(mech)
    return (0 if held else 1, position)


def views_selection(
    catalogue: Catalogue,
    max_bytes: int = VIEWS_MAX_BYTES,
    incumbents: Optional[IncumbentViews] = None,
) -> FrozenSet[MechRef]:
    """Choose the ok mechs whose tools and facts the views carry, within ``max_bytes``.

    Whole mechs are admitted in priority order (those the last agreed views held, then
    catalogue order; never on karma or delivery counts) while the document, counted
    exactly as :func:`views_document` writes it (an item's bytes plus one separator),
    stays within ``max_bytes``; a mech that does not fit is skipped and later ones are
    still tried.

    :param catalogue: the catalogue.
    :param max_bytes: the document bound (bytes).
    :param incumbents: the last agreed views (None: none yet, catalogue order only).
    :return: the refs of the mechs admitted (every ok mech when all fit).
    """
    ranked = sorted(
        (
            (_priority(mech, position, incumbents), mech)
            for position, mech in enumerate(catalogue.mechs)
            if mech.status == STATUS_OK
        ),
        key=lambda pair: pair[0],
    )
    used = _EMPTY_DOCUMENT_BYTES
    names: Set[str] = set()
    admitted: Set[MechRef] = set()
    for _, mech in ranked:
        new_names = {tool.name for tool in mech.tools} - names
        cost = sum(_json_bytes(name) + 1 for name in new_names)
        cost += sum(_json_bytes(item) + 1 for item in _items(mech))
        if used + cost > max_bytes:
            continue
        used += cost
        names |= new_names
        admitted.add(mech.ref)
    return frozenset(admitted)


def priced_in_another_unit(facts: MechFacts) -> bool:
    """Whether the mech is paid in a token or by subscription, not the native token.

    mech-interact's cost score is ``1 / (1 + log(max_delivery_rate))`` over every mech
    alike (``states/base.py``), so a USDC mech at 1.5 USDC (1,500,000 units) outranks a
    native mech at 0.01 xDAI (10**16 wei) although it costs more; and a service's Safe
    holding only the native token cannot pay it (its approval reverts the whole Safe
    transaction). Such mechs stay in ``GET /mechs`` and the MCP server, which pays them
    in their own units.

    :param facts: the mech contract's facts.
    :return: True for token and subscription payment types.
    """
    return payment_terms(facts.payment_type).way in (
        PaymentWay.TOKEN,
        PaymentWay.SUBSCRIPTION,
    )


def mechs_info_view(
    catalogue: Catalogue, admitted: Optional[FrozenSet[MechRef]] = None
) -> List[Dict[str, Any]]:
    """Build the mech-interact ``mechs_info`` view.

    :param catalogue: the catalogue.
    :param admitted: the mechs :func:`views_selection` admitted (None: every mech).
    :return: mech-interact ``MechInfo``-compatible dicts, one per mech contract with
        rankable facts of an ok entry, in catalogue (ref) order, then mech address order
        within an entry.
    """
    view: List[Dict[str, Any]] = []
    for mech in catalogue.mechs:
        if mech.status != STATUS_OK or (
            admitted is not None and mech.ref not in admitted
        ):
            continue
        tools = sorted({tool.name for tool in mech.tools})
        view.extend(
            _fact_item(mech, facts, tools)
            for facts in mech.marketplace
            if facts.rankable and not priced_in_another_unit(facts)
        )
    return view


def mech_tools_view(
    catalogue: Catalogue, admitted: Optional[FrozenSet[MechRef]] = None
) -> List[str]:
    """Build the ``mech_tools`` view.

    :param catalogue: the catalogue.
    :param admitted: the mechs :func:`views_selection` admitted (None: every mech).
    :return: the distinct tool names of ok mechs, sorted (mech-interact's ``SynchronizedData.mech_tools`` as a list).
    """
    return sorted(
        {
            tool.name
            for mech in catalogue.mechs
            if mech.status == STATUS_OK and (admitted is None or mech.ref in admitted)
            for tool in mech.tools
        }
    )


def views_document(
    catalogue: Catalogue,
    max_bytes: int = VIEWS_MAX_BYTES,
    incumbents: Optional[IncumbentViews] = None,
) -> str:
    """Serialise both views as one ASCII JSON document, identical on every agent.

    :param catalogue: the catalogue.
    :param max_bytes: the document bound (:func:`views_selection`).
    :param incumbents: the last agreed views (:func:`views_selection`), the same on every
        agent (synchronized data).
    :return: ``{"mech_tools": [...], "mechs_info": [...]}`` with sorted keys, no spaces,
        non-ASCII escaped (so its length in characters is its length in bytes), at most
        ``max_bytes`` long.
    """
    admitted = views_selection(catalogue, max_bytes, incumbents)
    return json.dumps(
        {
            "mech_tools": mech_tools_view(catalogue, admitted),
            "mechs_info": mechs_info_view(catalogue, admitted),
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
