"""Views of a catalogue in the shapes other skills already read.

``mechs_info_view`` matches mech-interact's ``MechInfo`` dataclass
(valory-xyz/mech-interact, ``packages/valory/skills/mech_interact_abci/states/base.py``):
``MechInfo(**item)`` must accept every item, so only its field names appear:

===================  =====================================================================
field                value written here
===================  =====================================================================
``id``               the agent id / service id, as a decimal string
``address``          the mech contract address from parameter ``mech_addresses`` (keyed by
                     ``MechRef.key``), "" when not configured (registries do not hold it)
``service``          ``{"metadata": [{"metadata": "0x<digest hex>"}], "deliveries": []}``;
                     mech-interact strips the ``0x`` to get the manifest digest
``karma``            0 (not known to the registries)
``received_requests`` / ``self_delivered`` / ``max_delivery_rate``   0 (not known)
``relevant_tools``   the mech's tool names, sorted (a JSON list; MechInfo turns it into a set)
===================  =====================================================================

Only mechs whose status is ``ok`` (including a kept last good manifest) are listed.
Caveat for consumers: mech-interact's ``MechInfo.__lt__`` divides by
``received_requests`` when two mechs tie on ``max_delivery_rate``; with the zeros written
here ``priority_mech`` raises ZeroDivisionError when two or more mechs are relevant, unless
mech-interact's own ``MechInformationRound`` has refreshed the counters from its subgraph.
"""

import hashlib
import json
from typing import Any, Dict, List, Mapping, Optional, Tuple

from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.catalogue import (
    STATUS_OK,
    Catalogue,
)


def mechs_info_view(
    catalogue: Catalogue, mech_addresses: Optional[Mapping[str, str]] = None
) -> List[Dict[str, Any]]:
    """Build the mech-interact ``mechs_info`` view.

    :param catalogue: the catalogue.
    :param mech_addresses: ``MechRef.key`` -> mech address.
    :return: mech-interact ``MechInfo``-compatible dicts, in catalogue (ref) order.
    """
    addresses = mech_addresses or {}
    view = []
    for mech in catalogue.mechs:
        if mech.status != STATUS_OK:
            continue
        view.append(
            {
                "id": str(mech.ref.mech_id),
                "address": addresses.get(mech.ref.key, ""),
                "service": {
                    "metadata": [{"metadata": mech.digest}] if mech.digest else [],
                    "deliveries": [],
                },
                "karma": 0,
                "received_requests": 0,
                "self_delivered": 0,
                "max_delivery_rate": 0,
                "relevant_tools": sorted({tool.name for tool in mech.tools}),
            }
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


def views_document(
    catalogue: Catalogue, mech_addresses: Optional[Mapping[str, str]] = None
) -> str:
    """Serialise both views as one ASCII JSON document, identical on every agent.

    :param catalogue: the catalogue.
    :param mech_addresses: ``MechRef.key`` -> mech address.
    :return: ``{"mech_tools": [...], "mechs_info": [...]}`` with sorted keys, no spaces,
        non-ASCII escaped (so its length in characters is its length in bytes).
    """
    return json.dumps(
        {
            "mech_tools": mech_tools_view(catalogue),
            "mechs_info": mechs_info_view(catalogue, mech_addresses),
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
