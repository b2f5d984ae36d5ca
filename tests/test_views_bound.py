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

"""The views are bounded: whole mechs, in priority order, within VIEWS_MAX_BYTES.

Anyone can register services whose manifests name thousands of distinct tools; the views
are agreed chunk by chunk with the database re-hashed every round, so an unbounded
document cost CPU growing with the square of what strangers registered (adversary,
docs/faults.md "Cost at scale").
"""

import json
from dataclasses import replace
from typing import Dict, List

from hypothesis import given, settings
from hypothesis import strategies as st
from mech_catalogue_core.catalogue.fetching import (
    FetchResult,
)
from mech_catalogue_core.catalogue.views import (
    views_document,
    views_selection,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)

from tests.test_contract_guards import build, manifest, raw_digest, ref
from tests.test_views_edges import rankable


def _catalogue(
    tools_by_mech: Dict[int, List[str]], delivered: Dict[int, int]
) -> Catalogue:
    data = {i: manifest(*names) for i, names in tools_by_mech.items()}
    fetched = {
        raw_digest(d): FetchResult.ok(raw_digest(d), f"bafk{i}", d)
        for i, d in data.items()
    }
    catalogue = build(
        20, [DigestRead(ref(i), raw_digest(d)) for i, d in data.items()], fetched
    )
    return Catalogue.build(
        (
            replace(
                m,
                marketplace=(
                    replace(
                        rankable(m.ref.mech_id),
                        requests=9,
                        deliveries=delivered[m.ref.mech_id],
                    ),
                ),
            )
            if m.ref.mech_id in delivered
            else m
        )
        for m in catalogue.mechs
    )


def _names(prefix: str, count: int) -> List[str]:
    return [f"{prefix}-{i:04d}-" + "x" * 100 for i in range(count)]


def test_strangers_flooding_names_are_left_out_and_honest_mechs_kept() -> None:
    """Honest marketplace mechs go first, whatever their ref order; floods fill the rest."""
    tools = {
        1: _names("flood-a", 400),
        2: ["predict"],
        3: _names("flood-b", 400),
        4: ["chat"],
    }
    catalogue = _catalogue(tools, delivered={2: 5, 4: 1})
    bound = 60_000  # about one flooding mech's worth
    document = views_document(catalogue, bound)
    assert len(document) <= bound
    views = json.loads(document)
    assert {"predict", "chat"} <= set(views["mech_tools"])
    assert [item["id"] for item in views["mechs_info"]] == ["2", "4"]  # ref order
    admitted = views_selection(catalogue, bound)
    assert {r.mech_id for r in admitted} == {2, 4, 1}  # the older flood fits, not both
    assert set(views["mech_tools"]) == {"predict", "chat", *tools[1]}


def test_deliveries_do_not_decide_then_the_next_one_that_fits() -> None:
    """More deliveries win nothing in a tight bound; a smaller later mech still fits."""
    # a marketplace mech's item repeats its tool names (relevant_tools): ~68 KB each here
    tools = {1: _names("big", 300), 2: _names("busy", 300), 3: ["small"]}
    catalogue = _catalogue(tools, delivered={1: 1, 2: 8, 3: 0})
    bound = 75_000
    admitted = {r.mech_id for r in views_selection(catalogue, bound)}
    assert admitted == {1, 3}
    assert len(views_document(catalogue, bound)) <= bound


def test_everything_fits_under_the_default_bound() -> None:
    """A realistic catalogue is untouched: every ok mech is in the views."""
    catalogue = _catalogue({1: ["a", "b"], 2: ["b", "c"], 3: ["d"]}, delivered={1: 1})
    assert {r.mech_id for r in views_selection(catalogue)} == {1, 2, 3}
    assert json.loads(views_document(catalogue))["mech_tools"] == ["a", "b", "c", "d"]


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=0, max_value=60), min_size=1, max_size=8),
    bound=st.integers(min_value=40, max_value=20_000),
)
def test_the_document_never_exceeds_the_bound(sizes: List[int], bound: int) -> None:
    """Whatever the mechs and the bound, the document fits (the empty views always do)."""
    tools = {i + 1: _names(f"m{i}", n) or [f"only{i}"] for i, n in enumerate(sizes)}
    catalogue = _catalogue(tools, delivered={1: 2})
    document = views_document(catalogue, bound)
    assert len(document) <= bound
    admitted = views_selection(catalogue, bound)
    views = json.loads(document)
    expected = sorted({t for r in admitted for t in tools[r.mech_id]})
    assert views["mech_tools"] == expected
