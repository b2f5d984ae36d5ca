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

"""The values mech-interact reads from the views: zero counts stay zero; the database strings.

Found by mutation testing (issue 18): a mech with no requests (or no deliveries) yet was
in no test, so ``requests or 1`` passed; nor was the exact text ``views_from_document``
gives the two database values, nor its error, nor that ``views_document`` sorts the keys
inside each item and keeps to the bound it is given, nor the order in which a bound
admits mechs (catalogue order: since issue #29 no count or karma moves a mech ahead;
``tests/adversary/test_views_crowding.py`` has the agreed views' mechs first).
"""

import json
from dataclasses import replace
from typing import List

import pytest
from mech_catalogue_core.catalogue.views import (
    mechs_info_view,
    views_chunks,
    views_document,
    views_from_document,
    views_selection,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Manifest,
    Mech,
    MechRef,
    Tool,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
)

REGISTRY = "0x" + "ee" * 20


NATIVE_PAYMENT_TYPE, OLAS_PAYMENT_TYPE, USDC_PAYMENT_TYPE, NVM_PAYMENT_TYPE = (
    "0xba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1",
    "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9",
    "0x6406bb5f31a732f898e1ce9fdd988a80a808d36ab5d9a4a4805a8be8d197d5e3",
    "0x803dd08fe79d91027fc9024e254a0942372b92f3ccabc1bd19f4a5c2b251c316",
)


def facts(contract: int, requests: int, deliveries: int) -> MechFacts:
    """Confirmed, complete (rankable) facts of one mech contract.

    :param contract: names the contract address.
    :param requests: ``numTotalRequests()``.
    :param deliveries: ``numTotalDeliveries()``.
    :return: the facts.
    """
    return MechFacts(
        address="0x" + f"{contract:040x}",
        service_id=1,
        block=30,
        confirmed=True,
        max_delivery_rate=10,
        requests=requests,
        deliveries=deliveries,
        karma=0,
    )


def catalogue(*contracts: MechFacts) -> Catalogue:
    """One ok service offering ``predict`` and ``summarise``, with these mech contracts.

    :param contracts: its marketplace facts.
    :return: the catalogue.
    """
    mech = Mech.from_manifest(
        MechRef(1, REGISTRY_COMPLEMENTARY_SERVICE, REGISTRY, 1),
        Manifest(tools=(Tool(name="summarise"), Tool(name="predict"))),
        digest="0x" + "ab" * 32,
    )
    return Catalogue.build([replace(mech, marketplace=contracts)])


def test_a_new_mech_has_zero_requests_and_zero_deliveries() -> None:
    """No request yet, and requests never delivered: the counts read 0, not a default."""
    info = mechs_info_view(catalogue(facts(1, 0, 0), facts(2, 5, 0), facts(3, 4, 9)))
    counts = [(i["received_requests"], i["self_delivered"]) for i in info]
    # deliveries above requests (another agent's deliveries) are capped at the requests
    assert counts == [(0, 0), (5, 0), (4, 4)]


@pytest.mark.parametrize(
    "payment_type,listed",
    [
        (NATIVE_PAYMENT_TYPE, True),
        ("", True),  # legacy mechs: paid in the native token
        (OLAS_PAYMENT_TYPE, False),
        (USDC_PAYMENT_TYPE, False),
        (NVM_PAYMENT_TYPE, False),
    ],
)
def test_mech_interact_sees_only_mechs_priced_in_the_native_token(
    payment_type: str, listed: bool
) -> None:
    """Its cost score compares rates as one unit: a token mech would outrank by units."""
    token_cheap = replace(facts(1, 0, 0), max_delivery_rate=1_500_000)
    native = replace(facts(2, 0, 0), max_delivery_rate=10**16)
    info = mechs_info_view(
        catalogue(replace(token_cheap, payment_type=payment_type), native)
    )
    addresses = [item["address"].lower() for item in info]
    assert (token_cheap.address in addresses) is listed
    assert native.address in addresses


def test_the_database_values_are_the_documents_own_compact_parts() -> None:
    """Each value is exactly the text of its part inside the agreed document."""
    document = views_document(catalogue(facts(1, 3, 2)))
    info, tools = views_from_document(document)
    assert tools == '["predict","summarise"]'
    assert f'"mechs_info":{info}' in document
    assert info.startswith('[{"address":"0x') and ", " not in info


@pytest.mark.parametrize(
    "document", ["[]", '{"mechs_info": []}', '{"mechs_info": [], "mech_tools": {}}']
)
def test_anything_else_is_not_a_views_document(document: str) -> None:
    """A list, a missing part, a part that is not a list: ValueError naming the problem."""
    with pytest.raises(ValueError, match="^not a views document$"):
        views_from_document(document)


def test_the_document_sorts_the_keys_of_every_item() -> None:
    """Top-level and item keys in sorted order, no spaces: the same bytes on every agent."""
    document = views_document(catalogue(facts(1, 3, 2)))
    assert document.startswith(
        '{"mech_tools":["predict","summarise"],"mechs_info":[{"address":"0x'
    )
    orders: List[List[str]] = []

    def record(pairs):
        orders.append([key for key, _ in pairs])
        return dict(pairs)

    json.loads(document, object_pairs_hook=record)
    assert len(orders) == 4  # the document, the item, its service, the metadata entry
    assert all(keys == sorted(keys) for keys in orders), orders


def test_the_document_keeps_to_the_bound_it_is_given() -> None:
    """A bound just below the whole document leaves the one mech out: the views are empty."""
    whole = views_document(catalogue(facts(1, 3, 2)))
    bounded = views_document(catalogue(facts(1, 3, 2)), max_bytes=len(whole) - 1)
    assert bounded == '{"mech_tools":[],"mechs_info":[]}'


def service(mech_id: int, *contracts: MechFacts) -> Mech:
    """An ok service offering one tool of its own (names of one length), with these facts.

    :param mech_id: the service id (1-9).
    :param contracts: its marketplace facts (none: not rankable).
    :return: the entry.
    """
    mech = Mech.from_manifest(
        MechRef(1, REGISTRY_COMPLEMENTARY_SERVICE, REGISTRY, mech_id),
        Manifest(tools=(Tool(name=f"tool{mech_id}"),)),
        digest="0x" + f"{mech_id:064x}",
    )
    return replace(mech, marketplace=contracts)


@pytest.mark.parametrize(
    "mechs, first",
    [
        # catalogue order: a later rankable mech does not go first
        ((service(1), service(2, facts(2, 0, 0))), 1),
        # more deliveries (a counter a mech raises by paying itself) do not go first
        ((service(1, facts(1, 1, 1)), service(2, facts(2, 5, 5))), 1),
        ((service(1, facts(1, 0, 0)), service(2, facts(2, 900, 900))), 1),
        # nor more karma
        (
            (service(1, facts(1, 1, 1)), service(2, replace(facts(2, 1, 1), karma=99))),
            1,
        ),
    ],
)
def test_a_bound_for_one_mech_admits_the_first_by_priority(mechs, first: int) -> None:
    """The bound is about the document of the expected mech alone: only it is admitted.

    The selection counts one separator per name and per item, the first ones included,
    so the bound is that document plus 2 bytes, far less than another mech's tool name.

    :param mechs: the catalogue's entries, in ref order.
    :param first: the id the priority puts first.
    """
    expected = next(m for m in mechs if m.ref.mech_id == first)
    bound = len(views_document(Catalogue.build([expected]))) + 2
    assert views_selection(Catalogue.build(mechs), bound) == {expected.ref}


def test_no_bound_is_ever_exceeded() -> None:
    """Every bound from the empty document to the whole: the document never passes it."""
    catalogue = Catalogue.build(
        [service(i, facts(i, i, 1)) for i in range(1, 4)] + [service(4)]
    )
    whole = len(views_document(catalogue))
    for bound in range(len('{"mech_tools":[],"mechs_info":[]}'), whole + 3):
        assert len(views_document(catalogue, max_bytes=bound)) <= bound


def test_a_mech_too_large_is_skipped_and_later_ones_still_tried() -> None:
    """The first by priority does not fit; the smaller one after it does."""
    large = replace(
        service(1, facts(1, 9, 9)),
        marketplace=tuple(facts(10 + i, 9, 9) for i in range(5)),
    )
    small = service(2)
    bound = len(views_document(Catalogue.build([small]))) + 2
    assert views_selection(Catalogue.build([large, small]), bound) == {small.ref}


def test_a_tool_name_already_admitted_costs_nothing_again() -> None:
    """Services 1 and 3 offer one name, 2 another: a bound fitting the three admits all."""
    shared = Manifest(tools=(Tool(name="tool1"),))
    mechs = [
        service(1),
        service(2),
        replace(service(3), tools=shared.tools),
    ]
    catalogue = Catalogue.build(mechs)
    bound = len(views_document(catalogue)) + 1  # one separator counted per name list
    assert views_selection(catalogue, bound) == {m.ref for m in mechs}


def test_an_empty_document_is_one_empty_chunk() -> None:
    """Nothing to cut: one chunk, empty (a payload still carries it)."""
    assert views_chunks("", 10) == [""]
    assert views_chunks("abcde", 2) == ["ab", "cd", "e"]
