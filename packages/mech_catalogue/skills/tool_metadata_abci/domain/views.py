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

from typing import Any, Dict, List, Mapping, Optional

from packages.mech_catalogue.skills.tool_metadata_abci.domain.model import (
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
