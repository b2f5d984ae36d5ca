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

"""Attack 2 of issue #29: strangers registering in bulk crowd honest mechs out of the views.

57 services, each with a manifest of long distinct tool names (sized so that a few fill
the 1 MiB views budget) and marketplace facts showing three self-delivered requests
(more than the honest mechs' two), against three honest marketplace mechs. The
catalogue, views and selection are the library's own; no chain is needed (the counters
are what the chain would return after the wash trading).
"""

import json
from dataclasses import replace
from functools import lru_cache
from typing import Dict, List, Sequence

from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.catalogue.views import (
    VIEWS_MAX_BYTES,
    IncumbentViews,
    views_document,
    views_selection,
)
from mech_catalogue_core.http_api.routes import (
    CatalogueView,
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

REGISTRY = "0x" + "dd" * 20
HOSTILE = 57
HONEST_TOOLS = {61: "predict-weather", 62: "summarise-news", 63: "price-oracle"}


def _facts(service_id: int, delivered: int, karma: int) -> MechFacts:
    return MechFacts(
        address="0x" + f"{0xA000 + service_id:040x}",
        service_id=service_id,
        block=500,
        created_block=100 + service_id,
        confirmed=True,
        max_delivery_rate=1_000,
        requests=delivered,
        deliveries=delivered,
        karma=karma,
    )


def _service(service_id: int, names: Sequence[str], delivered: int) -> Mech:
    mech = Mech.from_manifest(
        MechRef(100, REGISTRY_COMPLEMENTARY_SERVICE, REGISTRY, service_id),
        Manifest(tools=tuple(Tool(name=name) for name in names)),
        digest="0x" + f"{service_id:064x}",
    )
    return replace(mech, marketplace=(_facts(service_id, delivered, delivered),))


def honest() -> List[Mech]:
    """Three honest marketplace mechs, two delivered requests each."""
    return [_service(i, [name], 2) for i, name in HONEST_TOOLS.items()]


def _flood(first_id: int) -> List[Mech]:
    return [
        _service(
            first_id + n,
            [f"s{n:03d}-{k:03d}-" + "w" * 112 for k in range(120)],
            3,
        )
        for n in range(HOSTILE)
    ]


_EMPTY = len('{"mech_tools":[],"mechs_info":[]}') + 2


def _cost(mechs: Sequence[Mech]) -> int:
    """Bytes the selection counts for these mechs (the document plus two separators)."""
    return len(views_document(Catalogue.build(mechs))) + 2


@lru_cache(maxsize=None)
def hostile(first_id: int) -> List[Mech]:
    """57 flooding services and a 58th sized to leave less room than an honest mech needs.

    Each of the 57 has 120 distinct 120-character names and three self-delivered
    requests; the packing is deterministic, so an attacker computes it exactly as here.

    :param first_id: the first service id.
    :return: the 58 services.
    """
    flood = _flood(first_id)
    admitted = views_selection(Catalogue.build(flood))
    left = VIEWS_MAX_BYTES - _cost([m for m in flood if m.ref in admitted])
    filler_id = first_id + HOSTILE
    one = _cost([_filler(filler_id, 1)]) - _EMPTY
    each = _cost([_filler(filler_id, 2)]) - _EMPTY - one  # a name, twice, separators
    filler = _filler(filler_id, 1 + (left - one) // each)
    assert 0 <= left - (_cost([filler]) - _EMPTY) < each  # packed to the byte
    return flood + [filler]


def _filler(service_id: int, count: int) -> Mech:
    return _service(service_id, [f"f{k:07d}" for k in range(count)], 3)


def _kept(catalogue: Catalogue, incumbents: IncumbentViews = IncumbentViews()) -> bool:
    admitted = views_selection(catalogue, VIEWS_MAX_BYTES, incumbents)
    views = json.loads(views_document(catalogue, VIEWS_MAX_BYTES, incumbents))
    in_info = {item["id"] for item in views["mechs_info"]}
    return all(
        m.ref in admitted and str(m.ref.mech_id) in in_info for m in honest()
    ) and set(HONEST_TOOLS.values()) <= set(views["mech_tools"])


def test_the_attack_fills_the_budget() -> None:
    """Control: the hostile services alone are far over the budget (it is a real squeeze)."""
    flood = Catalogue.build(hostile(200))
    assert len(views_selection(flood)) < HOSTILE


def test_newcomers_with_bought_deliveries_do_not_push_older_mechs_out() -> None:
    """Registered after the honest mechs, with more (self-delivered) deliveries: kept out."""
    assert _kept(Catalogue.build(honest() + hostile(200)))


def test_a_mech_in_the_agreed_views_stays_when_newcomers_sort_before_it() -> None:
    """Newcomers first in catalogue order (another registry, lower ids): incumbents stay."""
    before = Catalogue.build(honest())
    agreed = json.loads(views_document(before))
    incumbents = IncumbentViews.from_views(agreed["mechs_info"], agreed["mech_tools"])
    attacked = Catalogue.build(hostile(1) + honest())  # ids 1..57 before 61..63
    assert not _kept(attacked)  # without the agreed views, catalogue order alone loses
    assert _kept(attacked, incumbents)


def test_a_newcomer_is_an_incumbent_only_by_adding_nothing() -> None:
    """Copying incumbent names with an item of its own is not enough; an echo costs 0."""
    agreed = json.loads(views_document(Catalogue.build(honest())))
    incumbents = IncumbentViews.from_views(agreed["mechs_info"], agreed["mech_tools"])
    copier = _service(300, ["predict-weather"], 3)
    assert not incumbents.holds(copier)  # its mechs_info item is new
    echo = replace(copier, marketplace=())
    assert incumbents.holds(echo)  # adds no name and no item: displaces nobody
    grown = _service(61, ["predict-weather", "new-tool"], 2)
    assert not incumbents.holds(grown)  # an incumbent that grew queues for its growth
    assert all(incumbents.holds(m) for m in honest())


def test_malformed_agreed_items_are_ignored() -> None:
    """Items without a string id or address (a hand-edited database) name no incumbent."""
    read = IncumbentViews.from_views(
        [{"id": 61}, {"address": "0xAB"}, "x", {"id": "61", "address": "0xAB"}],  # type: ignore[list-item]
        ["predict-weather", 5],  # type: ignore[list-item]
    )
    assert read.items == frozenset({("61", "0xab")})
    assert read.tool_names == frozenset({"predict-weather"})


def _in_views(exposed: ExposedCatalogue) -> Dict[int, bool]:
    body = json.loads(CatalogueView.build(exposed).mechs_body)
    return {int(m["ref"]["mech_id"]): m["in_views"] for m in body["mechs"]}


def test_get_mechs_says_what_the_agreed_selection_holds() -> None:
    """``in_views`` is computed with the agreed views the selection started from."""
    agreed = json.loads(views_document(Catalogue.build(honest())))
    incumbents = IncumbentViews.from_views(agreed["mechs_info"], agreed["mech_tools"])
    attacked = Catalogue.build(hostile(1) + honest())
    document = json.loads(views_document(attacked, VIEWS_MAX_BYTES, incumbents))
    exposed = ExposedCatalogue(
        attacked, attacked.digest(), "s", 1, 0.0, 1, incumbents=incumbents
    )
    shown = _in_views(exposed)
    assert all(shown[i] for i in HONEST_TOOLS)
    in_document = {int(item["id"]) for item in document["mechs_info"]}
    assert {i for i, held in shown.items() if held} == in_document
