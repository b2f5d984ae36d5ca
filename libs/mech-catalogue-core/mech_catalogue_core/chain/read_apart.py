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

"""Which mechs' facts are read apart from the others', learnt from the reads before.

Telling failing getters apart is bounded (:mod:`.rpc_limits`): a batch dense with
strangers' failing getters leaves its calls unread, honest mechs' among them. Read again
in the same batches, the same honest mechs would be unread every period. So each facts
read places every mech by what the reads before learnt of it (:class:`MechsReadApart`):

- ``pool``: mechs whose getters answered, read together in batches of ``batch_size``
  calls, first;
- ``failing``: mechs whose own getters failed (told apart in the pool, waiting or
  alone), read together after the others for :func:`failing_reads` reads (16 the first
  time, doubled each time it is told failing again before its getters answer in the
  pool, at most 256; renewed while they are told apart failing), then alone once more;
- ``alone``: mechs left unread (not told apart) in the pool, or leaving ``failing``: each
  mech's calls in a batch of their own, read last, so whatever fails there is that
  mech's own failure; a mech that answers there goes back to the pool. At most
  :data:`MAX_READ_ALONE` a read (one ``eth_call`` each): mechs never told failing
  first, then the fewest times told failing (``strikes``), then those that waited most
  reads, then in discovery order; the others (``waiting``) are read in batches of their
  own after the pool and before the failing mechs, and wait one read more if they are
  left unread there again.

The bound: an honest mech (never told failing) left unread in one read is read alone in
the next whenever fewer than :data:`MAX_READ_ALONE` mechs never told failing queue ahead
of it (a rate limit aside). A stranger's mech is never told failing only until it is
read alone once: so from a start, after at most ``burners / 64`` reads (fewer: the
waiting mechs' own batches tell burners apart too), no honest mech is unread two reads
running, however many burners there are and however often they come back (measured
with 1,000 and 2,000 burners and pool-only ones: ``test_read_apart_backoff``). Their
returns cost a read 64 ``eth_call`` s alone at most, not a thousand, and a stranger whose
getters answer only when read alone (they can see the gas they are given) is back in
the pool ever more rarely. A first read tells nothing apart, so honest mechs left unread
beside burners then may wait up to that bound (adv29zv2 Q1), unless the caller names
them ``incumbents`` (mechs that answered before, known from data all readers share):
those are read alone first, within ``incumbents / 64 + 1`` reads.

The places may change the facts read: a getter can answer by the gas it is given
(Multicall2 gives each call 63/64 of what is left). Agents whose memories differ (a
restart) then read differently; the skill forgets this memory when its catalogue was
not agreed (``SharedState.read_afresh``), so agents converge.

Everything is learnt from the reads' results alone (no clock, no randomness): agents
reading the same blocks through nodes answering the same make the same batches.
"""

from dataclasses import dataclass, field
from typing import AbstractSet, Dict, FrozenSet, Iterable, List, Sequence, Set

from mech_catalogue_core.chain.registry import (
    Call,
)
from mech_catalogue_core.model.market import (
    UNREAD_CALL_FAILED,
    MechFacts,
)

#: where a mech's calls are read (:meth:`MechsReadApart.place`)
POOL = "pool"
ALONE = "alone"
FAILING = "failing"
#: to be read alone, past :data:`MAX_READ_ALONE`: read among the failing mechs this read
WAITING = "waiting"
#: mechs read alone (one ``eth_call`` each) in one read at most
MAX_READ_ALONE = 64
#: reads a mech whose own getters failed is read among the failing mechs, then alone
#: (its first time told failing; each time after, twice as many: :func:`failing_reads`)
FAILING_READS = 16
#: times the failing span doubles at most (the longest: ``FAILING_READS * 2 ** 4``)
MAX_DOUBLINGS = 4
#: the fields read by calling the mech's own code (the others ask the marketplace or Karma)
OWN_FIELDS = frozenset(
    "service_id max_delivery_rate payment_type requests deliveries operator".split()
)


def fields_unread_for(fact: MechFacts, reasons: AbstractSet[str]) -> FrozenSet[str]:
    """The fields a read left unread for one of ``reasons``: what a mech failed at.

    The one reading of :attr:`MechFacts.unread` that both decide by: where a mech is
    read next (:func:`own_getters_failed`) and whether it keeps its last good facts
    (:func:`.facts_kept.failed_on_its_own`).

    :param fact: the mech's facts from :func:`.marketplace.facts_reader`.
    :param reasons: the reasons looked for (``UNREAD_CALL_FAILED``: a call reverted,
        burnt its gas or was left unread; ``UNREAD_UNDECODABLE``: its return did not
        decode).
    :return: the fields' names.
    """
    return frozenset(name for name, reason in fact.unread if reason in reasons)


def failing_reads(strikes: int) -> int:
    """Return the reads a mech told failing ``strikes`` times stays among the failing.

    :param strikes: times it was told failing since its getters last answered in the
        pool (>= 1).
    :return: :data:`FAILING_READS` doubled per strike past the first, at most
        :data:`MAX_DOUBLINGS` times.
    """
    return FAILING_READS * 2 ** min(max(strikes - 1, 0), MAX_DOUBLINGS)


def own_getters_failed(fact: MechFacts) -> bool:
    """Whether a call to the mech's own code failed in a read (reverted, burnt, unread).

    :param fact: the mech's facts from :func:`.marketplace.facts_reader`.
    :return: True when one of :data:`OWN_FIELDS` is unread as ``call_reverted``.
    """
    return bool(fields_unread_for(fact, {UNREAD_CALL_FAILED}) & OWN_FIELDS)


@dataclass
class MechsReadApart:
    """Where each mech's calls go in the next facts read (kept between reads).

    :param alone: mech addresses (lower case) read in a batch of their own next.
    :param failing: mech address (lower case) -> reads left among the failing mechs.
    :param waited: mech address (lower case) of ``alone`` -> reads it waited past
        :data:`MAX_READ_ALONE` (absent: none).
    :param strikes: mech address (lower case) -> times it was told failing since its
        getters last answered in the pool (absent: never): its failing span
        (:func:`failing_reads`) and its place behind the mechs never told failing.
    :param incumbents: mech addresses (lower case) known to have answered before, set
        by the caller before each read from data its peers share (the agent: the
        agreed views' mechs; the MCP server: its last good facts): among mechs never
        told failing, read alone before the others.
    """

    alone: Set[str] = field(default_factory=set)
    failing: Dict[str, int] = field(default_factory=dict)
    waited: Dict[str, int] = field(default_factory=dict)
    strikes: Dict[str, int] = field(default_factory=dict)
    incumbents: FrozenSet[str] = frozenset()

    def place(self, address: str) -> str:
        """Return where a mech's calls go in the next read.

        :param address: the mech's address (any case).
        :return: :data:`ALONE`, :data:`FAILING` or :data:`POOL`.
        """
        key = address.lower()
        if key in self.alone:
            return ALONE
        return FAILING if key in self.failing else POOL

    def places(self, addresses: Sequence[str]) -> List[str]:
        """Return where each mech's calls go in the next read, the alone ones bounded.

        :param addresses: the read's mechs, in discovery order (any case).
        :return: one place each (:meth:`place`); of the :data:`ALONE` ones, the first
            :data:`MAX_READ_ALONE` in queue order stay alone, the others are
            :data:`WAITING`. Queue order: fewest strikes first (mechs never told
            failing before every mech told failing), then ``incumbents`` first, then
            most reads waited, then the first in ``addresses``. The same memory and
            mechs give the same places.
        """
        keys = [address.lower() for address in addresses]
        places = [self.place(key) for key in keys]
        alone = [i for i, place in enumerate(places) if place == ALONE]
        alone.sort(
            key=lambda i: (
                self.strikes.get(keys[i], 0),
                keys[i] not in self.incumbents,
                -self.waited.get(keys[i], 0),
                i,
            )
        )
        for i in alone[MAX_READ_ALONE:]:
            places[i] = WAITING
        return places

    def apart(self) -> FrozenSet[str]:
        """Return the mechs not read in the pool next.

        :return: lower-case addresses.
        """
        return frozenset(self.alone) | frozenset(self.failing)

    def after_read(self, facts: Sequence[MechFacts], unread: Iterable[Call]) -> None:
        """Learn from one facts read where each mech goes in the next.

        :param facts: the read's facts (its mechs; a mech not among them is forgotten).
        :param unread: the calls the read left unread (not told apart: ``on_unread``).
        """
        not_told_apart = {call.target.lower() for call in unread}
        alone: Set[str] = set()
        failing: Dict[str, int] = {}
        waited: Dict[str, int] = {}
        strikes: Dict[str, int] = {}
        for fact, place in zip(facts, self.places([fact.address for fact in facts])):
            key = fact.address.lower()
            struck = self.strikes.get(key, 0)
            failed = own_getters_failed(fact)
            told_apart = failed and (place == ALONE or key not in not_told_apart)
            if place == FAILING:
                left = failing_reads(struck) if told_apart else self.failing[key] - 1
                if left > 0:
                    failing[key] = left
                else:
                    alone.add(key)
            elif told_apart:  # its own code failed, in the pool, waiting or alone
                struck += 1
                failing[key] = failing_reads(struck)
            elif failed:  # left unread beside others: read alone next
                alone.add(key)
                if place == WAITING:
                    waited[key] = self.waited.get(key, 0) + 1
            elif place == POOL:  # answered among the others: nothing held against it
                struck = 0
            if struck:
                strikes[key] = struck
        self.alone, self.failing = alone, failing
        self.waited, self.strikes = waited, strikes


def batches_placed(
    mechs_calls: Sequence[Sequence[int]],
    places: Sequence[str],
    head: Sequence[int],
    batch_size: int,
) -> List[List[int]]:
    """Group one round's calls into batches by where each mech is read.

    :param mechs_calls: each mech's call indices, in ``mechs`` order.
    :param places: each mech's place (:meth:`MechsReadApart.places`), same order.
    :param head: call indices of no mech (read with the pool first).
    :param batch_size: most calls per batch (>= 1).
    :return: index batches: the pool's (head first) in chunks of ``batch_size``, then the
        failing (and waiting) mechs' in chunks of ``batch_size``, then each alone
        mech's own; every
        call index once. With every mech in the pool: ``chunks`` of the calls in order.
    """
    pool = list(head)
    waiting: List[int] = []
    failing: List[int] = []
    alone: List[List[int]] = []
    for indices, place in zip(mechs_calls, places):
        if place == ALONE:
            alone.append(list(indices))
        elif place == WAITING:
            waiting.extend(indices)
        elif place == FAILING:
            failing.extend(indices)
        else:
            pool.extend(indices)
    size = max(1, batch_size)
    batches = [pool[i : i + size] for i in range(0, len(pool), size)]
    batches += [waiting[i : i + size] for i in range(0, len(waiting), size)]
    batches += [failing[i : i + size] for i in range(0, len(failing), size)]
    for own in alone:
        batches += [own[i : i + size] for i in range(0, len(own), size)]
    return batches
