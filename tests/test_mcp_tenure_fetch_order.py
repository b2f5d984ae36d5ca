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

"""The tenure walk's fetches are spent in an order no stranger can buy (adv29v, kind 1).

``TenureReader`` over a chain of events held in memory and a manifest reader with a
budget of a few manifests per read: what it is asked for first, which manifests count
as unreadable, and what a walk the budget cut short leaves of a tenure.
"""

from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from mech_catalogue_core.model.catalogue import STATUS_OK, Catalogue, Mech, MechRef
from mech_catalogue_core.model.market import MechFacts
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    SHAPE_NAME_ONLY,
    Provenance,
    Tool,
)

from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE
from mech_catalogue_cli.mcp_server.tenure import (
    METADATA_UPDATED_TOPIC,
    TenureReader,
    definitions,
)

REGISTRY = "0x" + "cc" * 20
TOOL = Tool(name="swap", provenance=Provenance(SHAPE_NAME_ONLY))
HEAD = 1_000


def _digest(n: int) -> str:
    return "0x" + f"{n:064x}"


def _address(service: int) -> str:
    return "0x" + f"{service:040x}"


class ChainLogs:  # pylint: disable=too-few-public-methods
    """``eth_getLogs`` over services' manifest updates (no deliveries)."""

    def __init__(self, updates: Sequence[Tuple[int, int, str]]) -> None:
        """Hold the updates.

        :param updates: ``(block, service id, digest)``.
        """
        self.updates = list(updates)

    def call(self, method: str, params: Sequence[Any], what: str = "") -> Any:
        """Answer ``eth_getLogs`` as a node does.

        :param method: the method (only ``eth_getLogs``).
        :param params: the filter.
        :param what: unused.
        :return: the logs.
        """
        assert method == "eth_getLogs", what
        query = params[0]
        low, high = int(query["fromBlock"], 16), int(query["toBlock"], 16)
        if query["topics"] != [METADATA_UPDATED_TOPIC] or query["address"] != REGISTRY:
            return []
        return [
            {
                "blockNumber": hex(block),
                "logIndex": "0x0",
                "topics": [METADATA_UPDATED_TOPIC, hex(service), digest],
            }
            for block, service, digest in self.updates
            if low <= block <= high
        ]


class BudgetedManifests:  # pylint: disable=too-few-public-methods
    """Reads earlier manifests as ``FetchedDefinitions`` does, ``budget`` GETs per read.

    A digest in ``served`` declares ``TOOL``; any other hangs (spends one GET and is
    unreadable); once ``budget`` GETs are spent the rest are not read yet (None).
    """

    def __init__(self, served: Sequence[str], budget: int) -> None:
        """Hold the content.

        :param served: digests whose manifest declares ``TOOL``.
        :param budget: GETs per read.
        """
        self.served = set(served)
        self.budget = budget
        self.asked: List[List[str]] = []

    def __call__(
        self, wanted: Mapping[str, FrozenSet[str]]
    ) -> Dict[str, Optional[Dict[str, str]]]:
        """Read in the order given, until the budget is spent.

        :param wanted: digest -> names, in fetch order.
        :return: as ``FetchedDefinitions``.
        """
        self.asked.append(list(wanted))
        found: Dict[str, Optional[Dict[str, str]]] = {}
        for position, digest in enumerate(wanted):
            if position >= self.budget:
                found[digest] = None
            elif digest in self.served:
                found[digest] = {
                    name: definitions([TOOL])[name] for name in wanted[digest]
                }
        return found


def _mech(service: int, digest: str) -> Mech:
    ref = MechRef(1, REGISTRY_COMPLEMENTARY_SERVICE, REGISTRY, service)
    return Mech(
        ref,
        digest=digest,
        status=STATUS_OK,
        tools=(TOOL,),
        marketplace=(
            MechFacts(
                address=_address(service),
                service_id=service,
                block=HEAD,
                confirmed=True,
                max_delivery_rate=100,
                payment_type=NATIVE_PAYMENT_TYPE,
                created_block=1,
            ),
        ),
    )


def _incumbent_and_strangers(
    strangers: int,
) -> Tuple[List[Tuple[int, int, str]], Catalogue]:
    """Service 1 declares ``TOOL`` at block 10 (digest 0xa0..), updates it at 500.

    Services 2.. each set a hash nobody serves that sorts first (0x00..), later than
    block 10, then a manifest declaring ``TOOL``.

    :param strangers: how many hostile services.
    :return: the updates and the catalogue.
    """
    honest_then, honest_now, filler = (
        _digest(0xA0 << 248),
        _digest(0xA1 << 248),
        _digest(0xB0 << 248),
    )
    updates = [(10, 1, honest_then)]
    for index in range(strangers):
        updates += [
            (20 + index, 2 + index, _digest(index + 1)),
            (200 + index, 2 + index, filler),
        ]
    updates.append((500, 1, honest_now))
    mechs = [_mech(1, honest_now)] + [_mech(2 + i, filler) for i in range(strangers)]
    return updates, Catalogue.build(mechs)


def _reader(
    updates: Sequence[Tuple[int, int, str]], manifests: BudgetedManifests
) -> TenureReader:
    return TenureReader(ChainLogs(updates), 1, manifests)  # type: ignore[arg-type]


def test_hashes_sorting_first_do_not_take_the_incumbents_place_in_the_budget() -> None:
    """Twelve dead hashes sort before the incumbent's; the budget takes two: it is read."""
    updates, catalogue = _incumbent_and_strangers(12)
    manifests = BudgetedManifests([_digest(0xA0 << 248), _digest(0xB0 << 248)], 2)
    tenures = _reader(updates, manifests).tenures(catalogue, HEAD)
    assert manifests.asked[0][0] == _digest(0xA0 << 248)  # set at block 10: the oldest
    assert tenures[(_address(1), "swap")].declared_block == 10


def test_a_manifest_the_budget_never_reached_is_not_unreadable() -> None:
    """Not read yet: asked for again by the next read, not 600 s later."""
    updates, catalogue = _incumbent_and_strangers(3)
    manifests = BudgetedManifests([_digest(0xA0 << 248)], 0)  # nothing read this time
    reader = _reader(updates, manifests)
    cut = reader.tenures(catalogue, HEAD)
    assert cut[(_address(1), "swap")].declared_block == 500  # partial: nothing to keep
    manifests.budget = 10
    again = reader.tenures(catalogue, HEAD)
    assert _digest(0xA0 << 248) in manifests.asked[-1]
    assert again[(_address(1), "swap")].declared_block == 10


def test_a_manifest_that_failed_is_asked_for_after_the_others_later() -> None:
    """Dead before, last now: a stranger's old dead hash cannot stay ahead of the incumbent.

    The strangers' dead hashes are set before the incumbent's earlier manifest (older,
    so first by age); once they failed they go after it.
    """
    honest_then, honest_now = _digest(0xA0 << 248), _digest(0xA1 << 248)
    filler = _digest(0xB0 << 248)
    updates = [(2 + i, 10 + i, _digest(i + 1)) for i in range(4)]
    updates += [(50, 1, honest_then)] + [(60 + i, 10 + i, filler) for i in range(4)]
    updates.append((500, 1, honest_now))
    catalogue = Catalogue.build(
        [_mech(1, honest_now)] + [_mech(10 + i, filler) for i in range(4)]
    )
    manifests = BudgetedManifests([honest_then, filler], 4)
    reader = TenureReader(ChainLogs(updates), 1, manifests, clock=lambda: clock[0])  # type: ignore[arg-type]
    clock = [0.0]
    first = reader.tenures(catalogue, HEAD)
    assert first[(_address(1), "swap")].declared_block == 500  # the 4 dead hashes first
    clock[0] = 601.0  # every unreadable one is due again
    second = reader.tenures(catalogue, HEAD)
    assert manifests.asked[-1][0] == honest_then
    assert second[(_address(1), "swap")].declared_block == 50


def test_a_walk_cut_short_keeps_the_last_complete_tenure() -> None:
    """The incumbent adds a tool beside ``swap``; the next read cannot reach its history."""
    honest_then, honest_now, honest_next = (
        _digest(n << 248) for n in (0xA0, 0xA1, 0xA2)
    )
    updates = [(10, 1, honest_then), (500, 1, honest_now)]
    manifests = BudgetedManifests([honest_then, honest_now], 10)
    reader = _reader(updates, manifests)
    complete = reader.tenures(Catalogue.build([_mech(1, honest_now)]), 600)
    assert complete[(_address(1), "swap")].declared_block == 10
    reader.rpc.updates.append((700, 1, honest_next))  # type: ignore[attr-defined]
    manifests.budget = 0
    cut = reader.tenures(Catalogue.build([_mech(1, honest_next)]), HEAD)
    assert cut[(_address(1), "swap")].declared_block == 10


def test_a_walk_cut_short_does_not_lend_a_changed_tool_the_old_tenure() -> None:
    """The last complete walk saw another definition: the cut walk's block stands."""
    honest_then, honest_now, changed = (_digest(n << 248) for n in (0xA0, 0xA1, 0xA2))
    updates = [(10, 1, honest_then), (500, 1, honest_now)]
    manifests = BudgetedManifests([honest_then, honest_now], 10)
    reader = _reader(updates, manifests)
    reader.tenures(Catalogue.build([_mech(1, honest_now)]), 600)
    reader.rpc.updates.append((700, 1, changed))  # type: ignore[attr-defined]
    manifests.budget = 0
    other = Tool(
        name="swap", description="changed", provenance=Provenance(SHAPE_NAME_ONLY)
    )
    mech = _mech(1, changed)
    cut = reader.tenures(
        Catalogue.build(
            [
                Mech(
                    mech.ref,
                    digest=changed,
                    status=STATUS_OK,
                    tools=(other,),
                    marketplace=mech.marketplace,
                )
            ]
        ),
        HEAD,
    )
    assert cut[(_address(1), "swap")].declared_block == 700
