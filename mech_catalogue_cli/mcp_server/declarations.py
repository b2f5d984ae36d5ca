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

"""A catalogue's declarations of each tool name, with their offers, and the names' order.

:func:`.source.served_from_catalogue` reads each tool name's declarations here (the
tool, its mech, the mech's offers with their tenures) and tags names MCP cannot take
as written in :func:`senior_names_first`'s order: of two names whose tags collide, the
senior tool's is given the tag (adversarial review adv29zt2).
"""

import logging
from typing import Any, List, Mapping, Optional, Tuple

from mech_catalogue_core.chain.offchain import EndpointError, offchain_endpoint
from mech_catalogue_core.model.catalogue import Catalogue, Mech

from .offers import Offer, Tenure, seniority

LOGGER = logging.getLogger("mech_catalogue.mcp")


def _endpoint_of(mech: Mech) -> str:
    """The off-chain endpoint a mech's manifest declares, or "" (none, or not valid).

    :param mech: a catalogue entry.
    :return: the validated base URL (``chain.offchain.offchain_endpoint``).
    """
    try:
        return offchain_endpoint(mech.extra) or ""
    except EndpointError as exc:
        LOGGER.info("mech %s: its url is not used (%s)", mech.ref.key, exc)
        return ""


#: one declaration of a tool name: the tool, its mech (None: unknown), its offers
Declared = Tuple[Any, Any, Tuple[Offer, ...]]


def declarations(
    catalogue: Catalogue,
    name: str,
    tenures: Optional[Mapping[Tuple[str, str], Tenure]],
) -> List[Declared]:
    """Every declaration of a tool name with its offers (catalogue's ref order).

    :param catalogue: a catalogue with marketplace facts attached.
    :param name: a mech tool name.
    :param tenures: :func:`.source.served_from_catalogue`'s.
    :return: ``(tool, mech, offers)`` per declaration.
    """
    candidates: List[Declared] = []
    for tool in catalogue.tools_named(name):
        mech = catalogue.mech(tool.provenance.mech) if tool.provenance.mech else None
        facts = mech.marketplace if mech is not None else ()
        key = mech.ref.key if mech is not None else ""
        endpoint = _endpoint_of(mech) if mech is not None else ""
        offers = tuple(
            Offer.from_facts(
                key,
                f,
                (tenures or {}).get((f.address.lower(), tool.name)),
                endpoint,
            )
            for f in facts
        )
        candidates.append((tool, mech, offers))
    return candidates


def senior_names_first(candidates_of: Mapping[str, List[Declared]]) -> List[str]:
    """Tool names, the one with the most senior offer first (``offers.seniority``).

    The order the exporter tags names in (``exporters.names.export_names``): of two
    names whose tags collide, the first is given the tag. A name with no offer goes
    last; without any tenure known (an agent's catalogue) the names keep their order.

    :param candidates_of: tool name -> its declarations (:func:`declarations`), in the
        catalogue's name order.
    :return: the names, senior first (ties: the catalogue's order).
    """
    offers_of = {
        name: [offer for _, _, offers in declared for offer in offers]
        for name, declared in candidates_of.items()
    }
    if not any(o.declared_block is not None for v in offers_of.values() for o in v):
        return list(candidates_of)

    def key(name: str) -> Tuple[bool, Tuple[Any, ...]]:
        offers = offers_of[name]
        return (False, min(seniority(o) for o in offers)) if offers else (True, ())

    return sorted(candidates_of, key=key)
