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

"""Our ``mechs_info`` fed to mech-interact's own ``MechInfo`` ranking (v0.32.3, unchanged).

mech-interact sorts ``MechInfo`` objects (``__lt__`` scores ``1 / (1 + log(rate))`` and
delivered ratios) to pick a priority mech. A rate of 0, or zeros standing in for unread
values, makes that raise. These tests build catalogues with marketplace facts of every
kind (complete, rate 0 on chain, unread rate, unread karma, unconfirmed mech, cold start,
negative karma, uint256-sized values) and rank what ``mechs_info_view`` writes.
"""

import json
from typing import Any, Dict, List, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mech_catalogue_core.catalogue.views import (
    mech_tools_view,
    mechs_info_view,
    views_document,
    views_from_document,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    Catalogue,
    Mech,
    MechRef,
    Tool,
)
from mech_catalogue_core.model.market import (
    UNREAD_CALL_FAILED,
    MechFacts,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
)

from tests.mech_interact import mech_interact_states_base

REGISTRY = "0x" + "cc" * 20
UINT256_MAX = 2**256 - 1


def facts(n: int, **values: Any) -> MechFacts:
    """Complete, confirmed facts of mech ``n`` with ``values`` overriding.

    :param n: a small number naming the mech.
    :param values: fields to set.
    :return: the facts.
    """
    base: Dict[str, Any] = {
        "address": "0x" + f"{n:040x}",
        "service_id": 1,
        "block": 10,
        "confirmed": True,
        "max_delivery_rate": 10**16,
        "requests": 10,
        "deliveries": 9,
        "karma": 3,
    }
    base.update(values)
    return MechFacts(**base)


def catalogue_of(
    *mech_facts: MechFacts, tools: Optional[List[str]] = None
) -> Catalogue:
    """One ok service entry offering ``tools``, served by the given mech contracts.

    :param mech_facts: the mech contracts' facts.
    :param tools: tool names.
    :return: the catalogue.
    """
    return Catalogue.build(
        [
            Mech(
                MechRef(1, REGISTRY_COMPLEMENTARY_SERVICE, REGISTRY, 1),
                digest="0x" + "ab" * 32,
                status=STATUS_OK,
                tools=tuple(Tool(name=t) for t in tools or ["predict"]),
                marketplace=tuple(mech_facts),
            )
        ]
    )


def ranked(catalogue: Catalogue) -> List[Any]:
    """Rank our view with mech-interact's code, through the agreed JSON document.

    :param catalogue: the catalogue.
    :return: mech-interact ``MechInfo`` objects, best first (as its ``priority_mech``).
    """
    base = mech_interact_states_base()
    mechs_info, _ = views_from_document(views_document(catalogue))
    infos = [base.MechInfo(**item) for item in json.loads(mechs_info)]
    return sorted(infos, reverse=True)


def test_the_failure_is_real_for_zero_rates() -> None:
    """Control: two MechInfos with a 0 rate (what a silent 0 would be) make the ranking raise."""
    base = mech_interact_states_base()
    zero = {"id": "1", "service": {"metadata": [], "deliveries": []}, "karma": 0}
    with pytest.raises((ValueError, ZeroDivisionError)):
        sorted(
            [base.MechInfo(address="0x1", **zero), base.MechInfo(address="0x2", **zero)]
        )


def test_real_values_rank_and_the_unrankable_are_left_out() -> None:
    """Complete facts rank with their real values; rate 0, unread or unconfirmed never reach it."""
    catalogue = catalogue_of(
        facts(1),
        facts(2, max_delivery_rate=1, requests=0, deliveries=0, karma=-4),
        facts(3, max_delivery_rate=0),
        facts(
            4,
            max_delivery_rate=None,
            unread=(("max_delivery_rate", UNREAD_CALL_FAILED),),
        ),
        facts(5, karma=None, unread=(("karma", UNREAD_CALL_FAILED),)),
        facts(6, confirmed=False),
        facts(7, max_delivery_rate=UINT256_MAX, requests=2**200, deliveries=2**201),
    )
    infos = ranked(catalogue)
    by_address = {info.address.lower(): info for info in infos}
    assert set(by_address) == {"0x" + f"{n:040x}" for n in (1, 2, 7)}
    one = by_address["0x" + f"{1:040x}"]
    assert (
        one.max_delivery_rate,
        one.received_requests,
        one.self_delivered,
        one.karma,
    ) == (
        10**16,
        10,
        9,
        3,
    )
    big = by_address["0x" + f"{7:040x}"]
    assert big.self_delivered == big.received_requests == 2**200  # capped at requests
    assert infos[0].relevant_tools == {"predict"}


def bare_entry(mech_id: int) -> Mech:
    """An ok entry offering ``predict`` with no marketplace facts (none configured, or unread).

    :param mech_id: its service id.
    :return: the entry.
    """
    return Mech(
        MechRef(1, REGISTRY_COMPLEMENTARY_SERVICE, REGISTRY, mech_id),
        status=STATUS_OK,
        tools=(Tool(name="predict"),),
    )


def test_entries_without_facts_are_left_out_so_the_ranking_cannot_raise() -> None:
    """Two entries without facts next to one with facts: only the one with facts is ranked.

    The zero-valued items they used to get made mech-interact's ranking take log(0).
    """
    catalogue = Catalogue.build(
        [*catalogue_of(facts(1)).mechs, bare_entry(2), bare_entry(3)]
    )
    infos = ranked(catalogue)
    assert [info.address for info in infos] == ["0x" + f"{1:040x}"]
    assert [item["id"] for item in mechs_info_view(catalogue)] == ["1"]
    assert mech_tools_view(catalogue) == ["predict"]
    assert not mechs_info_view(Catalogue.build([bare_entry(2), bare_entry(3)]))


rates = st.one_of(st.none(), st.integers(0, UINT256_MAX))
counts = st.one_of(st.none(), st.integers(0, 2**64))
facts_strategy = st.builds(
    facts,
    st.integers(1, 2**32),
    max_delivery_rate=rates,
    requests=counts,
    deliveries=counts,
    karma=st.one_of(st.none(), st.integers(-(2**255), 2**255 - 1)),
    confirmed=st.booleans(),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(facts_strategy, min_size=1, max_size=8, unique_by=lambda f: f.address))
def test_no_facts_can_make_the_ranking_raise(mech_facts: List[MechFacts]) -> None:
    """Whatever the chain returns (or fails to), ranking our mechs_info never raises.

    :param mech_facts: generated facts, some unread, some 0, some uint256-sized (beside
        two entries without facts).
    """
    catalogue = Catalogue.build(
        [*catalogue_of(*mech_facts).mechs, bare_entry(2), bare_entry(3)]
    )
    infos = ranked(catalogue)
    assert len(infos) == sum(1 for f in mech_facts if f.rankable)
    assert all(info.max_delivery_rate >= 1 for info in infos)
