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


"""Mechs told failing back off and queue behind mechs never told failing (adv29zv2 Q1, Q2).

Unit rules with facts written by hand (a mech "fails" when its price reads as
``call_reverted``; it is "left unread" when its price call is among the read's unread
calls), then whole reads on the model node of ``test_mechs_read_apart``.
"""

from typing import Dict, List, Sequence, Set

import pytest
from mech_catalogue_core.chain.marketplace import MechCreation
from mech_catalogue_core.chain.read_apart import (
    ALONE,
    FAILING,
    FAILING_READS,
    MAX_DOUBLINGS,
    MAX_READ_ALONE,
    POOL,
    WAITING,
    MechsReadApart,
    batches_placed,
    failing_reads,
)
from mech_catalogue_core.chain.registry import Call, selector
from mech_catalogue_core.model.market import (
    MECH_KIND_MARKETPLACE,
    UNREAD_CALL_FAILED,
    MechFacts,
)
from mech_catalogue_core.tests.chain.test_failing_calls_isolated import FACTORY
from mech_catalogue_core.tests.chain.test_mechs_read_apart import (
    mech_address,
    read_once,
)

PRICE = selector("maxDeliveryRate()")


def facts_of(failed: Set[str], mechs: Sequence[str]) -> List[MechFacts]:
    """One read's facts: the mechs in ``failed`` with their price unread, the others read.

    :param failed: addresses whose own getter failed (told apart or left unread).
    :param mechs: every mech of the read, in order.
    :return: facts, ``mechs`` order.
    """
    return [
        MechFacts(
            address=address,
            kind=MECH_KIND_MARKETPLACE,
            block=100,
            max_delivery_rate=None if address in failed else 7,
            unread=(
                (("max_delivery_rate", UNREAD_CALL_FAILED),)
                if address in failed
                else ()
            ),
        )
        for address in mechs
    ]


def learn(
    memory: MechsReadApart,
    mechs: Sequence[str],
    failed: Set[str] = frozenset(),  # type: ignore[assignment]
    left_unread: Set[str] = frozenset(),  # type: ignore[assignment]
) -> None:
    """Teach ``memory`` one read: ``failed`` mechs failed, ``left_unread`` among them unread.

    :param memory: the memory, updated.
    :param mechs: the read's mechs.
    :param failed: mechs whose own getter failed.
    :param left_unread: mechs whose price call the read left unread (not told apart).
    """
    unread = [Call(address, PRICE) for address in sorted(left_unread)]
    memory.after_read(facts_of(set(failed) | set(left_unread), mechs), unread)


def test_the_failing_span_doubles_per_strike_and_is_bounded() -> None:
    """16, 32, 64, ... reads, never past ``FAILING_READS * 2 ** MAX_DOUBLINGS``."""
    spans = [failing_reads(strikes) for strikes in range(1, MAX_DOUBLINGS + 4)]
    assert spans[:3] == [FAILING_READS, 2 * FAILING_READS, 4 * FAILING_READS]
    assert max(spans) == FAILING_READS * 2**MAX_DOUBLINGS == spans[-1]
    assert failing_reads(0) == FAILING_READS


def test_a_mech_failing_alone_again_stays_failing_twice_as_long() -> None:
    """Told failing, out after 16 reads, fails alone: 32 reads among the failing.

    (It is read among the failing; told failing there, its span would be renewed.)
    """
    burner, honest = mech_address(1), mech_address(2)
    mechs = [burner, honest]
    memory = MechsReadApart()
    learn(memory, mechs, failed={burner})
    assert memory.failing[burner] == FAILING_READS and memory.strikes[burner] == 1
    reads = 0
    while memory.place(burner) == FAILING and reads <= FAILING_READS:
        learn(memory, mechs)  # not told failing among the failing: reads count down
        reads += 1
    assert reads == FAILING_READS and memory.place(burner) == ALONE
    learn(memory, mechs, failed={burner})  # fails alone
    assert memory.failing[burner] == 2 * FAILING_READS and memory.strikes[burner] == 2


def test_a_mech_told_failing_in_the_failing_span_renews_its_own_span() -> None:
    """Renewed while told failing, with the span of its strikes (not reset to 16)."""
    burner = mech_address(1)
    memory = MechsReadApart(failing={burner: 3}, strikes={burner: 3})
    learn(memory, [burner], failed={burner})  # told apart among the failing
    assert memory.failing[burner] == 4 * FAILING_READS
    assert memory.strikes[burner] == 3  # renewing is not a new strike


def test_strikes_are_forgotten_only_when_the_getters_answer_in_the_pool() -> None:
    """Answering alone keeps the strikes (a mech may see its gas); the pool forgets."""
    mech = mech_address(1)
    memory = MechsReadApart(alone={mech}, strikes={mech: 2})
    learn(memory, [mech])  # answered alone: back to the pool, strikes kept
    assert memory.place(mech) == POOL and memory.strikes[mech] == 2
    learn(memory, [mech], failed={mech})  # fails in the pool, told apart: a strike
    assert memory.strikes[mech] == 3 and memory.failing[mech] == 4 * FAILING_READS
    memory = MechsReadApart(strikes={mech: 2})
    learn(memory, [mech])  # answered in the pool
    assert mech not in memory.strikes


def test_a_mech_never_told_failing_goes_before_every_mech_told_failing() -> None:
    """1,000 burners back from the failing span, waiting longer, and older: the honest first."""
    burners = [mech_address(i) for i in range(1, 1_001)]
    honest = mech_address(5_000)
    memory = MechsReadApart(
        alone=set(burners) | {honest},
        waited={address: 9 for address in burners},
        strikes={address: 1 for address in burners},
    )
    places = memory.places(burners + [honest])
    assert places[-1] == ALONE
    assert places.count(ALONE) == MAX_READ_ALONE
    assert places.count(WAITING) == len(burners) + 1 - MAX_READ_ALONE


def test_among_mechs_told_failing_the_fewest_strikes_go_first() -> None:
    """Strikes, then reads waited, then discovery order: the same memory, same places."""
    mechs = [mech_address(i) for i in range(1, MAX_READ_ALONE + 3)]
    memory = MechsReadApart(
        alone=set(mechs),
        strikes={mechs[0]: 3, mechs[1]: 2},
        waited={mechs[1]: 5},
    )
    places = memory.places(mechs)
    assert places[0] == WAITING and places[1] == WAITING
    assert places[2:] == [ALONE] * MAX_READ_ALONE
    assert places == MechsReadApart(**vars(memory)).places(mechs)


def test_waiting_mechs_have_batches_of_their_own_before_the_failing() -> None:
    """Pool, then the waiting, then the failing, then each alone mech."""
    calls = [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]]
    places = [FAILING, WAITING, POOL, FAILING, WAITING]
    assert batches_placed(calls, places, [0], 3) == [
        [0, 5, 6],
        [3, 4, 9],
        [10],
        [1, 2, 7],
        [8],
    ]


def mechs_with(burners: int, honest: int) -> List[MechCreation]:
    """Burners registered first, then honest mechs each followed by a pool-only burner.

    :param burners: burners first.
    :param honest: honest mechs (as many pool-only burners after).
    :return: creation records, discovery order.
    """
    return [
        MechCreation(mech_address(i + 1), MECH_KIND_MARKETPLACE, i + 1, FACTORY, 10)
        for i in range(burners + 2 * honest)
    ]


@pytest.mark.parametrize("burners", [1_000, 2_000])
def test_honest_mechs_are_read_within_two_reads_once_every_burner_was_read_alone(
    burners: int,
) -> None:
    """The bound of ``chain.read_apart``, with burners and pool-only burners.

    Past the drain (every burner read alone once: at most ``burners / 64`` reads, less
    as the waiting mechs' own batches tell burners apart too), no honest mech is unread
    two reads running, and the burners' returns never fill the alone reads again.

    :param burners: burners registered before the honest mechs.
    """
    honest_count = 100
    mechs = mechs_with(burners, honest_count)
    burning = {m.address for m in mechs[:burners]}
    pool_only = {m.address for m in mechs[burners + 1 :: 2]}
    memory = MechsReadApart()
    drain = burners // MAX_READ_ALONE + 2
    running: Dict[str, int] = {}
    longest = 0
    for index in range(drain + 2 * FAILING_READS + 4):
        kinds = {address: "burns" for address in burning}
        kinds.update({a: "burns" for a in pool_only if memory.place(a) != ALONE})
        read_once(mechs, kinds, memory)
        if index >= drain:
            unread_now = {
                a for a in memory.alone if a not in burning and a not in pool_only
            }
            running = {a: running.get(a, 0) + 1 for a in unread_now}
            longest = max([longest, *running.values()])
            never_failed = [a for a in memory.alone if not memory.strikes.get(a)]
            assert len(never_failed) <= MAX_READ_ALONE
    assert longest <= 1  # left unread in one read, read alone in the next


def test_incumbents_left_unread_in_a_first_read_are_read_alone_first() -> None:
    """1,000 burners before 200 mechs that answered before: none unread two reads running.

    The caller names the mechs that answered before (``incumbents``: the agent's agreed
    views, the MCP server's last good facts); without them, the same read leaves some
    honest mechs waiting behind the older burners (adv29zv2 Q1).
    """
    mechs = mechs_with(1_000, 0) + [
        MechCreation(mech_address(2_000 + i), MECH_KIND_MARKETPLACE, 1, FACTORY, 10)
        for i in range(200)
    ]
    burning = {m.address for m in mechs[:1_000]}
    kinds = {address: "burns" for address in burning}
    honest = {m.address for m in mechs[1_000:]}
    memory = MechsReadApart(incumbents=frozenset(honest))
    running: Dict[str, int] = {}
    for _ in range(6):
        read_once(mechs, kinds, memory)
        running = {
            a: running.get(a, 0) + 1
            for a in memory.alone | set(memory.failing)
            if a in honest
        }
        assert all(count <= 1 for count in running.values())
