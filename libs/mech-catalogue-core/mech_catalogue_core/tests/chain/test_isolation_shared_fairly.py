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

"""Strangers' failing getters in some batches cannot leave the other batches unread.

adv29zz I2: the runs one facts read may spend telling failing calls apart were taken
first-come, so burning mechs in the first batches spent them and a burner first in
each later batch left its whole batch unread (13 burners among 325 mechs: 155 honest
unread). Now each batch brings its share of the read's runs when it is sent
(``rpc_limits.READ_SHARES``), parts are halved between two contracts' calls, and the
mechs read alone are bounded per read (``read_apart.MAX_READ_ALONE``). The node runs
Multicall2's 63/64 gas rule (``GasNode``); every figure is measured on it.
"""

import math
from typing import Dict, List, Set, Tuple

import pytest
from mech_catalogue_core.chain.marketplace import (
    MECH_KIND_MARKETPLACE,
    MechCreation,
    facts_reader,
)
from mech_catalogue_core.chain.read_apart import (
    ALONE,
    MAX_READ_ALONE,
    WAITING,
    MechsReadApart,
    own_getters_failed,
)
from mech_catalogue_core.chain.registry import Call, ChainReadError
from mech_catalogue_core.chain.rpc_limits import (
    MAX_ISOLATION_CALLS,
    isolate_failing_calls,
)
from mech_catalogue_core.driver import drive
from mech_catalogue_core.tests.chain.test_failing_calls_isolated import (
    FACTORY,
    MARKET,
    MULTICALL,
    PROBE,
    GasNode,
    getters,
)

BATCH = 200  # 25 mechs of 8 calls


def _address(index: int) -> str:
    """Return mech ``index``'s address (from 1)."""
    return f"0x{index:040x}"


def _mechs(count: int) -> List[MechCreation]:
    """``count`` marketplace mechs in discovery order."""
    return [
        MechCreation(_address(i), MECH_KIND_MARKETPLACE, i, FACTORY, 10 + i)
        for i in range(1, count + 1)
    ]


def _read(
    mechs: List[MechCreation],
    burners: Set[int],
    read_apart: "MechsReadApart | None" = None,
    max_calls: int = MAX_ISOLATION_CALLS,
) -> Tuple[int, Set[str], List[int], Set[str]]:
    """One facts read at block 100.

    :param mechs: the mechs.
    :param burners: the numbers of the mechs whose getters burn all gas.
    :param read_apart: the memory between reads (None: every mech in order).
    :param max_calls: the read's isolation runs.
    :return: ``eth_call`` s sent, the honest mechs with a fact of their own unread,
        the size of each batch sent, the contracts said unread (``on_unread``).
    """
    node = GasNode({_address(i): "burns" for i in burners})
    sizes: List[int] = []

    def counted(request):  # type: ignore[no-untyped-def]
        sizes.append(len(request[0]))
        return node(request)

    unread: List[Call] = []

    def said_unread(calls: List[Call], _why: str) -> None:
        unread.extend(calls)

    runner = isolate_failing_calls(
        counted, (ChainReadError,), PROBE, None, said_unread, max_calls
    )
    _, facts = drive(
        facts_reader(MARKET, MULTICALL, mechs, BATCH, 100, read_apart), runner
    )
    if read_apart is not None:
        read_apart.after_read(facts, unread)
    for fact in facts:
        if int(fact.address, 16) in burners:
            assert fact.max_delivery_rate is None  # never read as answered
    honest = {
        fact.address
        for fact in facts
        if int(fact.address, 16) not in burners and own_getters_failed(fact)
    }
    return len(node.requests), honest, sizes, {call.target for call in unread}


def _placed(mechs: int, burners: int, placement: str) -> Set[int]:
    """Where ``burners`` burning mechs stand among ``mechs`` (numbers from 1).

    :param mechs: mechs in all.
    :param burners: burning ones.
    :param placement: ``first`` (each the first of its stretch: of its batch while
        there are fewer than batches), ``spread`` (mid-stretch), ``clustered`` (the
        first ``burners`` mechs).
    :return: the burners' numbers.
    """
    if placement == "clustered":
        return set(range(1, burners + 1))
    offset = 0 if placement == "first" else mechs // burners // 2
    return {1 + i * mechs // burners + offset for i in range(burners)}


#: (mechs, burners) -> placement -> (honest unread, eth_calls) in one read. Before
#: (lead29zz, the read's 128 runs first-come), the same reads: 200 mechs, 1 burner: 0/32
#: each; 5: 0/113, 0/113, 1/75; 13: 96/139, 106/139, 0/36; 50: 126/138, 126/139, 0/55;
#: 325 mechs, 1: 0/39, 0/38, 0/39; 5: 0/120, 0/122, 1/82; 13: 158/145, 148/145, 0/42;
#: 50: 235/144, 240/144, 0/61
MEASURED: Dict[Tuple[int, int], Dict[str, Tuple[int, int]]] = {
    (200, 1): {"first": (0, 23), "spread": (0, 23), "clustered": (0, 23)},
    (200, 5): {"first": (0, 67), "spread": (0, 67), "clustered": (0, 35)},
    (200, 13): {"first": (0, 151), "spread": (0, 161), "clustered": (0, 101)},
    (200, 50): {"first": (31, 348), "spread": (29, 391), "clustered": (0, 177)},
    (325, 1): {"first": (0, 30), "spread": (0, 30), "clustered": (0, 30)},
    (325, 5): {"first": (0, 74), "spread": (0, 76), "clustered": (0, 42)},
    (325, 13): {"first": (0, 174), "spread": (0, 174), "clustered": (0, 171)},
    (325, 50): {"first": (24, 473), "spread": (29, 441), "clustered": (0, 198)},
}


def _bound(mechs: int) -> int:
    """Most ``eth_call`` s of one read: its batches, the block, the isolation runs."""
    return (
        2
        + math.ceil((1 + 8 * mechs) / BATCH)
        + 2 * math.ceil(2 * mechs / BATCH)
        + (MAX_ISOLATION_CALLS + MAX_READ_ALONE)
    )


@pytest.mark.parametrize("placement", ["first", "spread", "clustered"])
@pytest.mark.parametrize("size", sorted(MEASURED))
def test_burners_hide_few_honest_mechs_in_one_read(
    size: Tuple[int, int], placement: str
) -> None:
    """1, 5, 13, 50 burners among 200 and 325 mechs: honest unread O(burners).

    :param size: (mechs, burners).
    :param placement: where the burners stand.
    """
    mechs, burners = size
    placed = _placed(mechs, burners, placement)
    assert len(placed) == burners
    runs, honest, _, said = _read(_mechs(mechs), placed)
    unread = len(honest)
    assert (unread, runs) == MEASURED[size][placement]
    assert honest <= said  # each named through on_unread
    assert unread <= burners  # at most one honest mech per burner, here
    assert runs <= _bound(mechs)


def test_early_batches_cannot_spend_the_runs_of_later_ones() -> None:
    """Eight burners spread in each of eight batches, then one first in each other.

    First-come, the first batches took the read's runs and each later batch was
    unread whole (lead29zz: 522 honest of 544 unread, 155 ``eth_call`` s; fixed shares
    of 64 runs a batch, tried first here: 269); each batch now brings 1/8 of the runs
    not yet brought.
    """
    dense = {x + 25 * j for j in range(8) for x in (2, 5, 8, 11, 14, 17, 20, 23)}
    burners = dense | {1 + 25 * j for j in range(8, 25)}
    runs, honest, _, said = _read(_mechs(625), burners)
    assert (len(honest), runs) == (83, 529)
    assert len(honest) <= 2 * len(burners)  # 81 burners
    assert honest <= said  # each named through on_unread


def test_a_part_of_one_contract_failing_whole_is_told_at_once() -> None:
    """A burning contract's six getters among 24 honest contracts' are told apart.

    Halving stops at the burner's own calls (it fails them whole): about 2 x log2 of
    the contracts, not of the calls.
    """
    targets = [_address(i) for i in range(1, 25)]
    calls = getters(targets[:12]) + getters([_address(99)] * 6) + getters(targets[12:])
    node = GasNode({_address(99): "burns"})
    _, results = isolate_failing_calls(node, (ChainReadError,), PROBE)((calls, 100))
    assert [ok for ok, _ in results] == [True] * 12 + [False] * 6 + [True] * 12
    assert len(node.requests) <= 2 * math.ceil(math.log2(25)) + 2


def test_a_thousand_burners_cost_a_read_a_bounded_number_of_eth_calls() -> None:
    """1,000 burners among 325 honest mechs: each read under 700 ``eth_call`` s.

    Read alone at most ``MAX_READ_ALONE`` mechs a read; the honest mechs left unread
    are named (``on_unread``) and fewer each read.
    """
    total = 1_325
    burners = {i + 1 for i in range(total) if i % 4 != 3}
    assert len(burners) == 994
    mechs = _mechs(total)
    read_apart = MechsReadApart()
    honest_unread = []
    for _ in range(3):
        places = read_apart.places([mech.address for mech in mechs])
        assert places.count(ALONE) <= MAX_READ_ALONE
        runs, honest, _, said = _read(mechs, burners, read_apart)
        assert runs <= _bound(total) < 1_000
        assert honest <= said  # each named through on_unread
        honest_unread.append(len(honest))
    assert honest_unread == sorted(honest_unread, reverse=True)
    assert honest_unread[-1] < honest_unread[0]


def test_alone_reads_are_bounded_and_the_longest_waiting_go_first() -> None:
    """100 mechs to read alone: 64 are, 36 wait (read among the failing) and go first."""
    addresses = [_address(i) for i in range(1, 101)]
    read_apart = MechsReadApart(alone=set(addresses))
    places = read_apart.places(addresses)
    assert places == [ALONE] * MAX_READ_ALONE + [WAITING] * (100 - MAX_READ_ALONE)
    assert read_apart.places(addresses) == places  # the same memory, the same places
    read_apart.waited = {a: 1 for a in addresses[MAX_READ_ALONE:]}
    places = read_apart.places(addresses)
    assert places[MAX_READ_ALONE:] == [ALONE] * (100 - MAX_READ_ALONE)
    assert places.count(ALONE) == MAX_READ_ALONE


def test_waiting_mechs_left_unread_wait_again_and_answering_ones_rejoin_the_pool() -> (
    None
):
    """Over the bound: the waiting are read with the failing; unread, they wait more."""
    mechs = _mechs(100)
    read_apart = MechsReadApart(alone={m.address for m in mechs})
    burners = {i for i in range(1, 101) if i % 2 == 0}
    _read(mechs, burners, read_apart)
    # each read alone: the burners told failing, the honest back in the pool
    waiting = [m.address for m in mechs[MAX_READ_ALONE:]]
    assert all(
        read_apart.place(a) != ALONE or read_apart.waited.get(a, 0) == 1
        for a in waiting
    )
    assert not read_apart.alone & {
        m.address for m in mechs[:MAX_READ_ALONE] if int(m.address, 16) not in burners
    }
