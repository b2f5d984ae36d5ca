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

"""The consumer's choice of mech: by tool name or kind, ranked by the catalogue's offer rule."""

import json
from dataclasses import replace
from typing import Optional

import pytest
from mech_catalogue_core.catalogue.mech_request import (
    MECH_TOOL,
    SELECTED_MECHS,
    MechRequestError,
    choose_offer,
    mech_request,
    skipped_offers,
)
from mech_catalogue_core.catalogue.views import mechs_info_view
from mech_catalogue_core.chain.marketplace import attach_facts
from mech_catalogue_core.model.canonical import canonical_text
from mech_catalogue_core.model.catalogue import (
    STATUS_INVALID,
    STATUS_OK,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.market import MechFacts
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    Argument,
    MechRef,
    Tool,
)

#: ``paymentType()`` values (ai-registry-mech: MechFixedPrice{Native,Token}, Nvm)
NATIVE, OLAS, USDC, NVM = (
    "0xba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1",
    "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9",
    "0x6406bb5f31a732f898e1ce9fdd988a80a808d36ab5d9a4a4805a8be8d197d5e3",
    "0x803dd08fe79d91027fc9024e254a0942372b92f3ccabc1bd19f4a5c2b251c316",
)


def tool(name: str, kind: str, argument: str = "horizon") -> Tool:
    """A tool of one kind with one required integer argument.

    :param name: its name.
    :param kind: its kind.
    :param argument: the argument's name.
    :return: the tool.
    """
    schema = canonical_text({"type": "integer"})
    return Tool(
        name=name, kind=kind, arguments=(Argument(argument, "int", schema, True),)
    )


def entry(service_id: int, *tools: Tool, status: str = STATUS_OK) -> Mech:
    """A catalogue entry of ``service_id`` offering ``tools``.

    :param service_id: the service id.
    :param tools: its tools.
    :param status: its status.
    :return: the entry.
    """
    return Mech(
        MechRef(100, REGISTRY_COMPLEMENTARY_SERVICE, "0x" + "dd" * 20, service_id),
        digest="0x" + "ef" * 32,
        status=status,
        tools=tools,
    )


def facts(  # pylint: disable=too-many-arguments
    service_id: int,
    rate: int = 10**16,
    delivered: bool = True,
    created: Optional[int] = 10,
    payment_type: str = NATIVE,
    karma: int = 0,
) -> MechFacts:
    """Confirmed facts of the mech of ``service_id``.

    :param service_id: the service id (the address is derived from it).
    :param rate: its maxDeliveryRate.
    :param delivered: whether it delivered once (1 request, 1 or 0 deliveries).
    :param created: its CreateMech block.
    :param payment_type: its paymentType().
    :param karma: its karma (never ranks).
    :return: the facts.
    """
    return MechFacts(
        address="0x" + f"{service_id + 7:040x}",
        service_id=service_id,
        block=50,
        confirmed=True,
        max_delivery_rate=rate,
        payment_type=payment_type,
        requests=1,
        deliveries=1 if delivered else 0,
        karma=karma,
        created_block=created,
    )


def address(service_id: int) -> str:
    """The mech address :func:`facts` gives ``service_id``.

    :param service_id: the service id.
    :return: lowercase 0x hex.
    """
    return facts(service_id).address


def test_a_kind_chooses_the_tool_and_mech_of_the_senior_offer() -> None:
    """Among tools of the kind, the delivering, earliest-created mech wins, not karma."""
    catalogue = attach_facts(
        Catalogue.build(
            [
                entry(1, tool("predict-a", "prediction")),
                entry(2, tool("predict-b", "prediction")),
                entry(3, tool("chat-c", "chat")),
                entry(4, tool("predict-d", "prediction")),
            ]
        ),
        [
            facts(1, created=30, karma=10**6),  # counters never rank
            facts(2, created=20),
            facts(3, created=1),  # another kind
            facts(4, created=5, delivered=False),  # older, but never delivered
        ],
    )
    offer = choose_offer(catalogue, kind="prediction")
    assert (offer.tool.name, offer.facts.address) == ("predict-b", address(2))
    updates = mech_request(catalogue, "", "Rain?", {"horizon": 2}, "n", "prediction")
    assert updates[MECH_TOOL] == "predict-b"
    assert json.loads(updates[SELECTED_MECHS]) == [address(2)]
    assert json.loads(updates["mech_requests"])[0]["tool"] == "predict-b"


def test_ties_go_to_the_cheaper_then_the_lower_address() -> None:
    """Same tenure facts: price, then address decide, so every agent picks the same."""
    entries = [entry(s, tool("p", "prediction")) for s in (1, 2, 3)]
    cheap = attach_facts(
        Catalogue.build(entries), [facts(1, 9), facts(2, 5), facts(3, 5)]
    )
    assert choose_offer(cheap, kind="prediction").facts.address == address(2)
    assert choose_offer(cheap, "p").facts.address == address(2)


def test_a_name_pins_the_senior_mech_of_that_name_and_checks_its_own_schema() -> None:
    """By name, the arguments are checked against the chosen mech's declaration."""
    catalogue = attach_facts(
        Catalogue.build(
            [
                entry(1, tool("p", "prediction", argument="days")),
                entry(2, tool("p", "prediction")),
            ]
        ),
        [facts(1, created=40), facts(2, created=4)],
    )
    updates = mech_request(catalogue, "p", "Rain?", {"horizon": 1}, "n")
    assert json.loads(updates[SELECTED_MECHS]) == [address(2)]
    with pytest.raises(MechRequestError, match="'horizon' is a required property"):
        mech_request(catalogue, "p", "Rain?", {"days": 1}, "n")


def test_a_kind_nobody_offers_names_the_kinds_on_offer() -> None:
    """The message lists the kinds usable entries offer (an invalid entry's are not)."""
    catalogue = attach_facts(
        Catalogue.build(
            [
                entry(1, tool("c", "chat")),
                entry(2, tool("i", "image"), status=STATUS_INVALID),
            ]
        ),
        [facts(1)],
    )
    with pytest.raises(MechRequestError) as caught:
        choose_offer(catalogue, kind="prediction")
    assert "tool kind 'prediction'" in str(caught.value)
    assert "['chat']" in str(caught.value)


def test_a_kind_without_marketplace_facts_is_no_request() -> None:
    """Offered, but no rankable facts this period: mech-interact could not rank it."""
    catalogue = Catalogue.build([entry(1, tool("p", "prediction"))])
    with pytest.raises(MechRequestError, match="none with marketplace facts"):
        choose_offer(catalogue, kind="prediction")


@pytest.mark.parametrize("payment_type", [OLAS, USDC, NVM])
def test_without_caps_a_tool_paid_only_in_a_token_or_by_subscription_is_not_chosen(
    payment_type: str,
) -> None:
    """No ``max_price``: the native token only; each skipped offer's reason is given.

    :param payment_type: the only offer's payment type.
    """
    only_token = attach_facts(
        Catalogue.build([entry(1, tool("p", "prediction"))]),
        [facts(1, rate=1_500_000, payment_type=payment_type)],
    )
    reason = (
        "paid by Nevermined subscription" if payment_type == NVM else "no max_price"
    )
    for by_name, by_kind in (("p", ""), ("", "prediction")):
        with pytest.raises(MechRequestError, match=f"mech {address(1)}: .*{reason}"):
            choose_offer(only_token, by_name, by_kind)
    # with a native offer too, the native one is paid although the token one is senior
    both = attach_facts(
        Catalogue.build(
            [entry(1, tool("p", "prediction")), entry(2, tool("p", "prediction"))]
        ),
        [facts(1, rate=1_500_000, payment_type=payment_type, created=1), facts(2)],
    )
    assert choose_offer(both, kind="prediction").facts.address == address(2)
    (skipped,) = skipped_offers(both, kind="prediction")
    assert skipped[0] == address(1) and reason in skipped[1]


def test_caps_name_the_assets_paid_and_bound_each_price() -> None:
    """Under ``max_price`` a token offer is chosen; an unnamed or over-cap asset is not."""
    catalogue = attach_facts(
        Catalogue.build([entry(s, tool("p", "prediction")) for s in (1, 2, 3, 4)]),
        [
            facts(1, created=1),  # native, senior: not named by the caps below
            facts(2, rate=1_500_000, payment_type=USDC, created=2),
            facts(3, rate=5 * 10**17, payment_type=OLAS, created=3),
            facts(4, rate=10, payment_type=NVM, created=0),  # never: mech-interact
        ],
    )
    usdc = choose_offer(catalogue, "p", max_price={"usdc": 1_500_000})
    assert usdc.facts.address == address(2)
    olas = choose_offer(catalogue, "p", max_price={"olas": 10**18, "usdc": 1})
    assert olas.facts.address == address(3)
    reasons = dict(skipped_offers(catalogue, "p", max_price={"usdc": 1}))
    assert "an asset the task's max_price does not name" in reasons[address(1)]
    assert "asks 1.5 USDC (1500000 smallest units), over" in reasons[address(2)]
    assert "Nevermined" in reasons[address(4)]
    with pytest.raises(MechRequestError, match="no mech the requester can pay"):
        choose_offer(catalogue, "p", max_price={"usdc": 1_499_999})
    assert choose_offer(catalogue, "p").facts.address == address(1)
    updates = mech_request(
        catalogue, "p", "hi", {"horizon": 1}, "n", max_price={"usdc": 2_000_000}
    )
    assert json.loads(updates["requester_payment"]) == {
        "mech": address(2),
        "payment_type": USDC,
        "asset": "usdc",
        "price": 1_500_000,
        "cap": 2_000_000,
        "tracker": "",
        "token": "",
    }


def test_the_pinned_mech_is_always_one_mech_interact_can_see() -> None:
    """Every chosen mech is in the agreed mechs_info, so mech-interact's pin finds it."""
    catalogue = attach_facts(
        Catalogue.build(
            [entry(s, tool("p", "prediction")) for s in range(1, 6)]
            + [entry(9, tool("p", "prediction"), status=STATUS_INVALID)]
        ),
        [
            facts(1, payment_type=OLAS, created=1),
            facts(2, rate=0, created=2),
            replace(facts(3, created=3), confirmed=False),
            facts(4, created=4),
            facts(5, created=5),
            facts(9, created=0),
        ],
    )
    chosen = choose_offer(catalogue, kind="prediction").facts.address
    listed = [item["address"].lower() for item in mechs_info_view(catalogue)]
    assert chosen == address(4) and chosen in listed


@pytest.mark.parametrize("tool_name, kind", [("", ""), ("p", "prediction")])
def test_exactly_one_of_name_and_kind(tool_name: str, kind: str) -> None:
    """Neither or both is a configuration error, said so.

    :param tool_name: the name asked.
    :param kind: the kind asked.
    """
    catalogue = attach_facts(
        Catalogue.build([entry(1, tool("p", "prediction"))]), [facts(1)]
    )
    with pytest.raises(MechRequestError, match="exactly one"):
        choose_offer(catalogue, tool_name, kind)
