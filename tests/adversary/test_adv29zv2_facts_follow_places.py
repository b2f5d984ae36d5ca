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

"""adv29zv2 P1: a stranger's facts follow the agent's batches, so agents disagree.

Severity: MEDIUM (issue #29 (e): agents whose read memories differ build different
catalogues at the same block; with a third of them on another memory no payload has a
majority and the period starts over, again and again).

``chain.read_apart`` says the places "never" change the facts read ("its batches differ,
not its facts", docs/faults.md). That holds for honest getters only. Multicall2's
``tryBlockAndAggregate`` gives each call 63/64 of the gas left, and the gas an
``eth_call`` is given is ``batch_gas(len(calls))``: so a getter sees how many calls its
batch holds and what ran before it (``GAS``), and may answer that. A stranger's mech
whose ``maxDeliveryRate()`` (any getter) answers a value derived from ``gasleft()``
answers something else in each batch it is placed in. The places are each agent's own
memory (``MechsReadApart`` lives in memory: a restarted agent reads as the first read,
an agent whose node limited its rate learnt other places), so two agents reading the
same block through the same node read different facts for that mech, and the agreed
catalogue (its digest covers every mech's facts) differs.

Mechs that answer only in the failing mechs' batch (beside a stranger whose getters
always revert) and burn their gas anywhere else (the pool, a part of their own, a read
alone) keep the places out of step for ever: each agent runs each of them through
failing (16 reads, answered) -> alone (burnt, unread) -> failing ..., a cycle of 17
reads starting at the read the agent first met it. A stranger registering 17 such mechs
one a period has them 17 phases apart on a running agent; an agent restarted later has
them all in one phase.

Observed on main (the model node of ``test_failing_calls_isolated``, batch 200, block
100 every read): 22 mechs, a burner among them and a gauge mech (its getters answer
``gasleft()``): the same read with a fresh memory and with the memory of the read before
gives the gauge two prices (2,227,640 and 8,040,375). A reverting stranger, 20 honest
mechs and 17 chameleons met one a read by agent A; agent B restarted after: their facts
differ in 34 of the 34 reads from B's third on (one mech each read, 16 in two). With two
of four agents restarted together no payload has a two-thirds majority in any period.

Expected: the facts read at a block do not depend on the reader's memory (e.g. a
mech whose facts differ between the batches it was read in, or whose getters answer
differently by gas, is read alone every read, or its facts are read in a batch whose
gas and composition every agent sends alike, or it is unread for all agents).
"""

from typing import Callable, Dict, FrozenSet, List, Optional, Tuple

import pytest
from mech_catalogue_core.chain.marketplace import MechCreation, facts_reader
from mech_catalogue_core.chain.read_apart import MechsReadApart
from mech_catalogue_core.chain.registry import (
    BatchReply,
    BatchRequest,
    Call,
    ChainReadError,
)
from mech_catalogue_core.chain.rpc_limits import batch_gas, isolate_failing_calls
from mech_catalogue_core.driver import drive
from mech_catalogue_core.model.market import MECH_KIND_MARKETPLACE, MechFacts
from mech_catalogue_core.tests.chain.test_failing_calls_isolated import (
    FACTORY,
    HONEST_GAS,
    LOOP_GAS,
    MARKET,
    MULTICALL,
    PROBE,
    WORDINGS,
)


def mech(index: int) -> MechCreation:
    """Mech ``index`` (from 1) of the test.

    :param index: its number.
    :return: the creation record.
    """
    return MechCreation(f"0x{index:040x}", MECH_KIND_MARKETPLACE, index, FACTORY, 10)


class SeeingNode:  # pylint: disable=too-few-public-methods
    """Multicall2 over honest mechs and strangers' mechs that see their gas.

    :param gauge: a mech whose getters answer the gas they are given ("" none).
    :param burners: mechs whose getters burn all they are given.
    :param reverting: mechs whose getters revert (cheaply).
    :param chameleons: mechs whose getters answer 7 in a batch of strangers' calls
        holding a reverting mech's (the failing mechs' batch) and burn all they are
        given anywhere else (in a batch with honest mechs, in a part of their own, read
        alone). On chain each getter compares ``gasleft()`` with the value that batch
        gives it at its place: ``batch_gas`` of the batch's length, less what the calls
        before it used, a value no other batch or part gives it.
    """

    def __init__(
        self,
        gauge: str = "",
        burners: FrozenSet[str] = frozenset(),
        reverting: FrozenSet[str] = frozenset(),
        chameleons: FrozenSet[str] = frozenset(),
    ) -> None:
        """Answer at block 100.

        :param gauge: address ("" none).
        :param burners: addresses.
        :param reverting: addresses.
        :param chameleons: addresses.
        """
        self.gauge, self.burners = gauge, burners
        self.reverting, self.chameleons = reverting, chameleons

    def __call__(self, request: BatchRequest) -> BatchReply:
        """Run one batch with ``batch_gas``'s bound, Multicall2's 63/64 rule.

        :param request: calls and block.
        :return: block and results.
        :raises ChainReadError: Multicall2 itself ran out of gas.
        """
        calls, block = request
        left = batch_gas(len(calls))
        targets = {call.target.lower() for call in calls}
        strangers = self.reverting | self.chameleons | {MARKET}
        failing_batch = targets <= strangers and bool(targets & self.reverting)
        results: List[Tuple[bool, bytes]] = []
        for call in calls:
            if left < LOOP_GAS:
                raise ChainReadError("eth_call failed", WORDINGS[0])
            given = left * 63 // 64
            target = call.target.lower()
            used, ok, value = HONEST_GAS, True, 7
            if target == self.gauge:
                value = given
            elif target in self.burners or (
                target in self.chameleons and not failing_batch
            ):
                used, ok = given, False
            elif target in self.reverting:
                used, ok = 3_000, False
            left -= min(used, given) + LOOP_GAS
            results.append((ok, value.to_bytes(32, "big") if ok else b""))
        return (block or 100), results


def read_placed(
    mechs: List[MechCreation],
    node: Callable[[BatchRequest], BatchReply],
    memory: MechsReadApart,
    block: int = 100,
) -> Tuple[List[MechFacts], List[Call]]:
    """One facts read at ``block``, then what it teaches the memory.

    :param mechs: the mechs.
    :param node: the node (a batch runner).
    :param memory: the agent's places, updated.
    :param block: the block read.
    :return: the facts, and the calls left unread (not told apart).
    """
    unread: List[Call] = []
    _, facts = drive(
        facts_reader(MARKET, MULTICALL, mechs, 200, block, memory),
        isolate_failing_calls(
            node,
            (ChainReadError,),
            PROBE,
            on_unread=lambda calls, _: unread.extend(calls),
        ),
    )
    memory.after_read(facts, unread)
    return facts, unread


def read(
    mechs: List[MechCreation], node: SeeingNode, memory: MechsReadApart
) -> List[MechFacts]:
    """One facts read at block 100 (:func:`read_placed`).

    :param mechs: the mechs.
    :param node: the node.
    :param memory: the agent's places, updated.
    :return: the facts.
    """
    return read_placed(mechs, node, memory)[0]


def prices(facts: List[MechFacts]) -> Dict[str, Optional[int]]:
    """Each mech's ``max_delivery_rate`` read.

    :param facts: a read.
    :return: address -> price (None: unread).
    """
    return {fact.address: fact.max_delivery_rate for fact in facts}


@pytest.mark.xfail(
    strict=True,
    reason="by design (fix29zzf): a gas-seeing mech's facts follow the reader's "
    "places; agents converge instead by reading afresh after a period not agreed",
)
def test_the_same_block_read_with_two_memories_gives_the_same_facts() -> None:
    """A fresh agent and one that read once before read block 100 alike.

    Still so: the places are each agent's own. The skill makes agents converge instead
    (``SharedState.read_afresh``: an agent whose catalogue was not agreed forgets its
    memory and kept facts), modelled in
    :func:`test_an_agent_restarted_later_agrees_with_its_peer_once_it_has_read`.
    """
    mechs = [mech(i) for i in range(1, 23)]
    gauge, burner = mechs[10].address, mechs[3].address
    node = SeeingNode(gauge, burners=frozenset({burner}))
    running = MechsReadApart()
    read(mechs, node, running)  # the burner is told apart: failing
    restarted = MechsReadApart()
    seen_running = prices(read(mechs, node, running))
    seen_restarted = prices(read(mechs, node, restarted))
    print(
        f"gauge price: running agent {seen_running[gauge]}, "
        f"restarted agent {seen_restarted[gauge]}"
    )
    assert seen_running == seen_restarted


def test_an_agent_restarted_later_agrees_with_its_peer_once_it_has_read() -> None:
    """Agent B restarts after A met the chameleons one a read; then they agree.

    A reverting stranger (always among the failing) first, 20 honest mechs, then 17
    chameleons registered one a read (their places on A 17 phases apart). B restarts
    after the last: its chameleons all in one phase. Both are needed to agree (two of
    four agents in each state); a period they do not agree on, each reads the next
    with a new memory, as the skill's ``SharedState.read_afresh`` makes it.
    """
    reverting = mech(1).address
    honest = [mech(i) for i in range(2, 22)]
    chameleons = [mech(i) for i in range(22, 39)]
    node = SeeingNode(
        reverting=frozenset({reverting}),
        chameleons=frozenset(m.address for m in chameleons),
    )
    agent_a = MechsReadApart()
    for count in range(len(chameleons) + 1):
        read([mech(1)] + honest + chameleons[:count], node, agent_a)
    mechs = [mech(1)] + honest + chameleons
    agent_b = MechsReadApart()
    differing = []
    for period in range(36):
        seen_a = prices(read(mechs, node, agent_a))
        seen_b = prices(read(mechs, node, agent_b))
        if seen_a != seen_b:  # not agreed: both read the next period afresh
            agent_a, agent_b = MechsReadApart(), MechsReadApart()
        if period >= 2 and seen_a != seen_b:
            differing.append(
                sum(1 for address in seen_a if seen_a[address] != seen_b[address])
            )
    print(
        f"reads 3-36 after B's restart where A's and B's facts differ: "
        f"{len(differing)} of 34, mechs differing in each: {differing}"
    )
    assert not differing
