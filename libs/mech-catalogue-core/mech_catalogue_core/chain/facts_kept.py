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

"""A mech's last good facts, kept where a facts read left its calls unread.

Telling strangers' failing getters apart is bounded (:mod:`.rpc_limits`), and a node may
limit the rate: a facts read then leaves some calls unread (``on_unread``), honest mechs'
among them, through no fault of theirs. Served as read, such a mech would lose its price,
karma or counts for the period, and with them its rank and its place in the views. So
each such mech keeps the facts it held before (the caller's last good facts: in the
agent, the last agreed catalogue's), with the block they were read at.

A call left unread concerns a mech when it is one of the mech's getters (its address
the call's target), a marketplace or Karma call about it (its address the call's
argument), ``mapMechServiceDeliveryCounts`` of its operator, or ``karma()`` (every
marketplace mech's karma). A mech with a call that failed and was told apart as its own
(``call_reverted`` for a call not left unread), or whose return did not decode, shows
this read's facts: that is its own doing.
"""

from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set

from mech_catalogue_core.chain.marketplace import (
    _LEGACY_CALLS,
    _MECH_CALLS,
)
from mech_catalogue_core.chain.read_apart import fields_unread_for
from mech_catalogue_core.chain.registry import (
    Call,
    selector,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)
from mech_catalogue_core.model.market import (
    MECH_KIND_LEGACY,
    UNREAD_CALL_FAILED,
    UNREAD_UNDECODABLE,
    MechFacts,
)

#: the mech's own getters, by selector (as :func:`.marketplace.facts_reader` calls them)
_GETTER_FIELDS = {
    selector(signature): name for name, signature, _ in _MECH_CALLS + _LEGACY_CALLS
}
#: marketplace and Karma calls whose one argument is the mech
_ABOUT_MECH_FIELDS = {
    selector("mapAgentMechFactories(address)"): "mech_factory",
    selector("mapMechDeliveryCounts(address)"): "marketplace_deliveries",
    selector("mapMechKarma(address)"): "karma",
}
#: the marketplace call whose one argument is the mech's operator
_ABOUT_OPERATOR = selector("mapMechServiceDeliveryCounts(address)")
#: the marketplace call every marketplace mech's karma depends on
_KARMA_CONTRACT = selector("karma()")
#: fields whose value is read from another field's (the operator's count needs it)
_DEPENDS_ON = {"operator": "service_deliveries"}
#: reasons that mean the mech's own code answered wrong (not a call left unread)
_OWN_REASONS = frozenset({UNREAD_CALL_FAILED, UNREAD_UNDECODABLE})


def _argument_address(call: Call) -> str:
    """Return a one-address call's argument, lower case ("" when it has none)."""
    if len(call.data) != 36:
        return ""
    return "0x" + call.data[16:36].hex()


def fields_left_unread(
    facts: Sequence[MechFacts], unread: Iterable[Call]
) -> Dict[str, FrozenSet[str]]:
    """Name, per mech, the fields a facts read left unread (calls not told apart).

    :param facts: the read's facts (:func:`.marketplace.facts_reader`).
    :param unread: the calls it left unread (``on_unread`` of
        :func:`.rpc_limits.isolate_failing_calls`).
    :return: mech address (lower case) -> the :class:`MechFacts` field names those calls
        (or a call they depend on: ``karma()``, ``getOperator()``) would have read; mechs
        with none are absent.
    """
    by_address = {fact.address.lower(): fact for fact in facts}
    by_operator: Dict[str, List[str]] = {}
    for address, fact in by_address.items():
        if fact.operator:
            by_operator.setdefault(fact.operator.lower(), []).append(address)
    left: Dict[str, Set[str]] = {}

    def note(address: str, name: str) -> None:
        if address in by_address:
            left.setdefault(address, set()).add(name)
            if name in _DEPENDS_ON:
                left[address].add(_DEPENDS_ON[name])

    for call in unread:
        chosen = call.data[:4]
        if chosen in _GETTER_FIELDS:
            note(call.target.lower(), _GETTER_FIELDS[chosen])
        elif chosen in _ABOUT_MECH_FIELDS:
            note(_argument_address(call), _ABOUT_MECH_FIELDS[chosen])
        elif chosen == _ABOUT_OPERATOR:
            for address in by_operator.get(_argument_address(call), ()):
                note(address, "service_deliveries")
        elif chosen == _KARMA_CONTRACT:
            for address, fact in by_address.items():
                if fact.kind != MECH_KIND_LEGACY:
                    note(address, "karma")
    return {address: frozenset(names) for address, names in left.items()}


def failed_on_its_own(fact: MechFacts, left_unread: FrozenSet[str]) -> bool:
    """Whether a mech's facts lack a value through its own doing this read.

    :param fact: the mech's facts of the read.
    :param left_unread: its fields the read left unread (:func:`fields_left_unread`).
    :return: True when a field is unread as ``call_reverted`` though its call was told
        apart (not left unread), or as ``return_undecodable``.
    """
    return bool(fields_unread_for(fact, _OWN_REASONS) - left_unread)


@dataclass(frozen=True)
class KeptFacts:
    """The facts to use after a read, and which mechs kept earlier ones.

    :param facts: one per mech of the read, same order: this read's, or the last good.
    :param kept: the mechs given their last good facts, in read order (lower case).
    :param unread: the mechs left unread with no last good facts, in read order.
    """

    facts: List[MechFacts]
    kept: List[str]
    unread: List[str]


def keep_last_good(
    facts: Sequence[MechFacts],
    unread: Iterable[Call],
    last_good: Mapping[str, MechFacts],
) -> KeptFacts:
    """Give each mech whose calls the read left unread its last good facts.

    :param facts: the read's facts, in mechs order.
    :param unread: the calls the read left unread (not told apart).
    :param last_good: mech address (lower case) -> its last good facts
        (:func:`last_good_facts`).
    :return: the facts: a mech with a field left unread, none failed on its own
        (:func:`failed_on_its_own`) and last good facts gets those whole (their block
        and values as read then); every other mech its facts of this read.
    """
    left = fields_left_unread(facts, unread)
    served: List[MechFacts] = []
    kept: List[str] = []
    still_unread: List[str] = []
    for fact in facts:
        key = fact.address.lower()
        fields = left.get(key)
        if fields and not failed_on_its_own(fact, fields):
            earlier = last_good.get(key)
            if earlier is not None:
                served.append(earlier)
                kept.append(key)
                continue
            still_unread.append(key)
        served.append(fact)
    return KeptFacts(served, kept, still_unread)


def last_good_facts(catalogue: Optional[Catalogue]) -> Dict[str, MechFacts]:
    """Return the facts a catalogue holds, by mech address.

    :param catalogue: a catalogue (the agent's: the last agreed one); None: none.
    :return: mech address (lower case) -> its facts read at a block (facts never read
        are left out).
    """
    if catalogue is None:
        return {}
    return {
        fact.address.lower(): fact
        for mech in catalogue.mechs
        for fact in mech.marketplace
        if fact.block is not None
    }
