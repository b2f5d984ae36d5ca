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


"""Agents whose read-apart memories differ agree again (``SharedState.read_afresh``).

A getter may answer by the gas it is given, so the facts read follow each agent's own
batches (adv29zv2 P1). The skill's rule: an agent whose last catalogue was not the
agreed one reads its next period with a new memory and no kept facts. Modelled here with
four agents, the real ``chain.read_apart`` / ``chain.facts_kept`` and the skill's
``SharedState.read_afresh`` itself, on the model node of ``test_adv29zv2_facts_follow_places``
(a reverting stranger, honest mechs, chameleons that answer only beside the reverting
one and burn their gas anywhere else). A period agrees when three of the four send one
catalogue; an agent holds the agreed facts (to keep) when its own catalogue was agreed.
"""

from typing import Any, Dict, List, Optional, Sequence, cast

from mech_catalogue_core.chain.facts_kept import keep_last_good
from mech_catalogue_core.chain.marketplace import MechCreation
from mech_catalogue_core.chain.read_apart import MechsReadApart
from mech_catalogue_core.model.market import MechFacts

from packages.mech_catalogue.skills.tool_metadata_abci.models import SharedState

from tests.adversary.test_adv29zv2_facts_follow_places import (
    SeeingNode,
    mech,
    read_placed,
)

THRESHOLD = 3
REVERTING = mech(1).address
HONEST = [mech(i) for i in range(2, 12)]
CHAMELEONS = [mech(i) for i in range(12, 29)]
NODE = SeeingNode(
    reverting=frozenset({REVERTING}),
    chameleons=frozenset(m.address for m in CHAMELEONS),
)


class Agent:  # pylint: disable=too-few-public-methods
    """One agent's state between periods, as the skill keeps it.

    :param rule: whether the agent reads afresh after a catalogue not agreed.
    """

    def __init__(self, rule: bool = True) -> None:
        """Start (or restart) with no memory and no candidate.

        :param rule: apply ``SharedState.read_afresh``.
        """
        self.rule = rule
        self.mechs_read_apart = MechsReadApart()
        self.candidate: Optional[List[MechFacts]] = None
        self.holds_agreed = True  # the agreed catalogue in memory or on disk

    def period(
        self, mechs: List[MechCreation], block: int, agreed: Dict[str, MechFacts]
    ) -> List[MechFacts]:
        """Build this period's facts (the catalogue's part that differs).

        :param mechs: the mechs.
        :param block: the agreed block.
        :param agreed: the last agreed facts by address.
        :return: the facts sent (the candidate).
        """
        afresh = SharedState.read_afresh(cast(Any, self)) if self.rule else False
        kept = agreed if self.holds_agreed and not afresh else {}
        facts, unread = read_placed(mechs, NODE, self.mechs_read_apart, block)
        self.candidate = keep_last_good(facts, unread, kept).facts
        return self.candidate


def run(
    agents: Sequence[Agent],
    live: Sequence[int],
    mechs: List[MechCreation],
    block: int,
    agreed: Dict[str, MechFacts],
) -> Optional[List[MechFacts]]:
    """One period of the live agents; the agreed facts, or None (no majority).

    :param agents: all four.
    :param live: indices of those running.
    :param mechs: the mechs.
    :param block: the block.
    :param agreed: the last agreed facts.
    :return: the facts three agents sent, None when no three sent the same.
    """
    sent = {i: agents[i].period(mechs, block, agreed) for i in live}
    for facts in sent.values():
        if sum(1 for other in sent.values() if other == facts) >= THRESHOLD:
            for i, own in sent.items():
                if own == facts:  # exposed: its candidate is the agreed catalogue
                    agents[i].candidate, agents[i].holds_agreed = None, True
                else:
                    agents[i].holds_agreed = False
            return facts
    return None


def in_step(rule: bool) -> tuple:
    """Four agents meeting the chameleons one a period (their places out of phase).

    :param rule: the agents apply the rule.
    :return: ``(agents, mechs, agreed facts, next block)``.
    """
    agents = [Agent(rule) for _ in range(4)]
    agreed: Dict[str, MechFacts] = {}
    block = 100
    for count in range(len(CHAMELEONS) + 1):
        mechs = [mech(1)] + HONEST + CHAMELEONS[:count]
        facts = run(agents, range(4), mechs, block, agreed)
        assert facts is not None  # same memories: they agree
        agreed = {f.address: f for f in facts}
        block += 1
    return agents, [mech(1)] + HONEST + CHAMELEONS, agreed, block


def periods_without_agreement(
    rule: bool, restarted: Sequence[int], live: Sequence[int], periods: int = 12
) -> List[bool]:
    """Restart some agents after the chameleons came, then run ``periods`` periods.

    :param rule: the agents apply the rule.
    :param restarted: indices restarted (new memory, the agreed catalogue on disk).
    :param live: indices running after the restart.
    :param periods: periods run.
    :return: per period, whether it had no majority.
    """
    agents, mechs, agreed, block = in_step(rule)
    for i in restarted:
        agents[i] = Agent(rule)
    failed = []
    for offset in range(periods):
        facts = run(agents, live, mechs, block + offset, agreed)
        failed.append(facts is None)
        if facts is not None:
            agreed = {f.address: f for f in facts}
    return failed


def test_two_restarted_agents_of_four_agree_again_within_two_periods() -> None:
    """Two memories, two catalogues: one period without majority, then agreement."""
    failed = periods_without_agreement(True, restarted=[2, 3], live=range(4))
    assert sum(failed) <= 1 and not any(failed[1:])


def test_without_the_rule_two_restarted_agents_never_agree_again() -> None:
    """The control: with memories kept, periods go without a majority again and again."""
    failed = periods_without_agreement(False, restarted=[2, 3], live=range(4))
    assert sum(failed) >= 6


def test_a_lone_restarted_agent_joins_when_its_vote_is_needed() -> None:
    """One restarted agent is outvoted; when another agent stops, all three agree."""
    agents, mechs, agreed, block = in_step(True)
    agents[3] = Agent()
    for offset in range(4):  # three in step agree without it
        facts = run(agents, range(4), mechs, block + offset, agreed)
        assert facts is not None
        agreed = {f.address: f for f in facts}
    assert not agents[3].holds_agreed  # out of step: its catalogue differs
    block += 4
    outcomes = []
    for offset in range(6):  # agent 1 stops: the restarted agent's vote is needed
        facts = run(agents, [0, 2, 3], mechs, block + offset, agreed)
        outcomes.append(facts is not None)
        if facts is not None:
            agreed = {f.address: f for f in facts}
            assert agents[3].holds_agreed  # its catalogue is the agreed one
    assert all(outcomes[2:])


def test_agents_with_the_same_inputs_send_the_same_facts() -> None:
    """Deterministic: two runs of the same periods give the same facts every period."""
    first = in_step(True)
    second = in_step(True)
    assert first[2] == second[2]
    assert [a.mechs_read_apart for a in first[0]] == [
        a.mechs_read_apart for a in second[0]
    ]
