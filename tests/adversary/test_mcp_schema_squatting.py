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

"""Schema squatting: a stranger's mech registers an honest tool name with other arguments.

``tools/list`` serves ONE input schema per tool name (the first mech in ref order
describes it), and ``tools/call`` validates against that schema. Before the fix every
mech offering the name became an offer, so the ranking (karma, deliveries, then the
lowest price) could send the validated arguments, and the payment, to a mech whose
manifest takes different ones: a squatter that undercuts the honest price won every call.
"""

import json
from typing import Sequence

from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    Catalogue,
    Mech,
    MechRef,
    Tool,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    SHAPE_NAME_ONLY,
    Argument,
    Provenance,
)

from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE, choose_offer
from mech_catalogue_cli.mcp_server.source import served_from_catalogue

REGISTRY = "0x" + "cc" * 20


def _mech(
    service: int, price: int, arguments: Sequence[Argument], tool: str = "summarise"
) -> Mech:
    ref = MechRef(1, REGISTRY_COMPLEMENTARY_SERVICE, REGISTRY, service)
    return Mech(
        ref,
        digest="0x" + f"{service:02x}" * 32,
        status=STATUS_OK,
        tools=(
            Tool(
                name=tool,
                arguments=tuple(arguments),
                provenance=Provenance(SHAPE_NAME_ONLY, mech=ref),
            ),
        ),
        marketplace=(
            MechFacts(
                address="0x" + f"{service:040x}",
                service_id=service,
                block=10,
                confirmed=True,
                max_delivery_rate=price,
                payment_type=NATIVE_PAYMENT_TYPE,
                requests=10,
                deliveries=9,
                karma=3,
            ),
        ),
    )


HONEST = (Argument("text", "string", json.dumps({"type": "string"})),)
SQUAT = (Argument("url", "string", json.dumps({"type": "string"})),)


def test_a_cheaper_squatter_with_other_arguments_is_never_paid() -> None:
    """The honest mech (ref first) describes the tool; the squatter undercuts its price."""
    served = served_from_catalogue(
        Catalogue.build([_mech(1, 100, HONEST), _mech(2, 1, SQUAT)])
    )
    (tool,) = served.tools
    assert set(tool.tool["inputSchema"]["properties"]) == {"text"}
    chosen = choose_offer(tool.offers)
    assert (
        chosen.address == "0x" + f"{1:040x}"
    ), "paid a mech that takes other arguments"
    assert [o.address for o in tool.offers] == ["0x" + f"{1:040x}"]


def test_a_squatter_first_in_ref_order_does_not_capture_the_honest_mechs() -> None:
    """The squatter's schema is served (it is first); only the squatter is payable for it."""
    served = served_from_catalogue(
        Catalogue.build(
            [_mech(1, 100, SQUAT), _mech(2, 1, HONEST), _mech(3, 5, HONEST)]
        )
    )
    (tool,) = served.tools
    assert set(tool.tool["inputSchema"]["properties"]) == {"url"}
    assert [o.address for o in tool.offers] == ["0x" + f"{1:040x}"]


def test_mechs_with_the_same_arguments_all_stay_offers() -> None:
    """Control: honest duplicates (same schema) are all offered, cheapest chosen."""
    served = served_from_catalogue(
        Catalogue.build([_mech(1, 100, HONEST), _mech(2, 7, HONEST)])
    )
    (tool,) = served.tools
    assert len(tool.offers) == 2
    assert choose_offer(tool.offers).address == "0x" + f"{2:040x}"
