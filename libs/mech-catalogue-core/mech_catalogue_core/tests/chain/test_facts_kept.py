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

"""A mech whose calls a facts read left unread keeps its last good facts (``facts_kept``).

The reads are :func:`facts_reader`'s own, answered by :class:`Chain`, a marketplace of
honest mechs whose chosen calls are left unread (as ``on_unread`` tells them: failed,
not told apart) or fail on their own (told apart, or a return that does not decode).
"""

from dataclasses import dataclass, field, replace
from typing import Callable, Dict, List, Sequence, Tuple

import pytest
from eth_abi import encode
from mech_catalogue_core.chain.facts_kept import (
    failed_on_its_own,
    fields_left_unread,
    keep_last_good,
    last_good_facts,
)
from mech_catalogue_core.chain.marketplace import (
    MechCreation,
    facts_reader,
)
from mech_catalogue_core.chain.registry import (
    BatchReply,
    BatchRequest,
    Call,
    block_number_call,
    encode_call,
)
from mech_catalogue_core.driver import drive
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
    MechRef,
)
from mech_catalogue_core.model.market import (
    MECH_KIND_LEGACY,
    MECH_KIND_MARKETPLACE,
    UNREAD_CALL_FAILED,
    UNREAD_NO_KARMA,
    UNREAD_NO_OPERATOR,
    UNREAD_UNDECODABLE,
    MechFacts,
)

MARKET = "0x" + "a1" * 20
FACTORY = "0x" + "f4" * 20
KARMA = "0x" + "ca" * 20
MULTICALL = "0x" + "c2" * 20
NATIVE = bytes.fromhex(
    "ba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1"
)
#: every field a marketplace mech's read fills
MARKETPLACE_FIELDS = frozenset(
    "mech_factory marketplace_deliveries service_id max_delivery_rate payment_type "
    "requests deliveries operator service_deliveries karma".split()
)
#: the fields a legacy mech's read fills
LEGACY_FIELDS = frozenset({"service_id", "max_delivery_rate"})


def mech_address(index: int) -> str:
    """Return the test's address of mech ``index``.

    :param index: from 1.
    :return: 0x + 40 hex.
    """
    return f"0x{index:040x}"


def operator_of(index: int) -> str:
    """Return the service multisig of mech ``index`` (mechs 1 and 2 share one).

    :param index: the mech.
    :return: 0x + 40 hex.
    """
    return "0x" + f"{0xB0 + max(index, 2):02x}" * 20


def creations(count: int, legacy: Sequence[int] = ()) -> List[MechCreation]:
    """Return ``count`` mechs created at block 10, service ``i`` each.

    :param count: how many.
    :param legacy: the indices that are legacy mechs.
    :return: the mechs, in discovery order.
    """
    return [
        MechCreation(
            mech_address(i),
            MECH_KIND_LEGACY if i in legacy else MECH_KIND_MARKETPLACE,
            i,
            FACTORY,
            10,
        )
        for i in range(1, count + 1)
    ]


def _word(kind: str, value: object) -> Tuple[bool, bytes]:
    return True, encode([kind], [value])


@dataclass
class Chain:  # pylint: disable=too-many-instance-attributes
    """Honest answers to every call of a facts read, some left unread or failing.

    :param left_unread: whether a call is left unread (reported as ``on_unread`` would).
    :param reverts: whether a call fails and is told apart as its own.
    :param garbage: whether a call answers bytes that do not decode.
    :param requests: each mech's ``numTotalRequests()`` (its read's mark).
    :param unread: the calls left unread, in order.
    """

    left_unread: Callable[[Call], bool] = lambda call: False
    reverts: Callable[[Call], bool] = lambda call: False
    garbage: Callable[[Call], bool] = lambda call: False
    requests: int = 6
    unread: List[Call] = field(default_factory=list)

    def answer(self, call: Call) -> Tuple[bool, bytes]:
        """Answer one call as an honest marketplace, Karma and mech would.

        :param call: the call.
        :return: ``(success, data)``.
        """
        if self.left_unread(call):
            self.unread.append(call)
            return False, b""
        if self.reverts(call):
            return False, b""
        if self.garbage(call):
            return True, b"\x01"
        about = int.from_bytes(call.data[4:36], "big") if len(call.data) == 36 else 0
        index = int(call.target, 16) if call.target.startswith("0x" + "00" * 10) else 0
        values = {
            "karma()": ("address", KARMA),
            "mapAgentMechFactories(address)": ("address", FACTORY),
            "mapMechDeliveryCounts(address)": ("uint256", 4),
            "serviceId()": ("uint256", index),
            "tokenId()": ("uint256", index),
            "maxDeliveryRate()": ("uint256", 10**16),
            "price()": ("uint256", 10**15),
            "paymentType()": ("bytes32", NATIVE),
            "numTotalRequests()": ("uint256", self.requests),
            "numTotalDeliveries()": ("uint256", 4),
            "getOperator()": ("address", operator_of(index)),
            "mapMechKarma(address)": ("int256", about % 7 - 3),
            "mapMechServiceDeliveryCounts(address)": ("uint256", 5),
        }
        return _word(*values[call.signature])

    def __call__(self, request: BatchRequest) -> BatchReply:
        """Answer one batch.

        :param request: the calls and the block.
        :return: the block and each call's answer.
        """
        calls, block = request
        return int(block or 100), [self.answer(call) for call in calls]


def read(chain: Chain, mechs: List[MechCreation], block: int = 100) -> List[MechFacts]:
    """Read the mechs' facts through ``chain`` at ``block``, in batches of 7.

    :param chain: the answers.
    :param mechs: the mechs.
    :param block: the block.
    :return: the facts.
    """
    _, facts = drive(facts_reader(MARKET, MULTICALL, mechs, 7, block), chain)
    return facts


def calls_named(*signatures: str, about: str = "") -> Callable[[Call], bool]:
    """Pick calls by signature, and by the mech (target or argument) when given.

    :param signatures: the signatures.
    :param about: a mech or operator address ("" for any).
    :return: the predicate.
    """
    word = bytes(12) + bytes.fromhex(about[2:]) if about else b""

    def chosen(call: Call) -> bool:
        if call.signature not in signatures:
            return False
        return not about or call.target == about or call.data[4:] == word

    return chosen


def test_every_call_of_a_read_left_unread_names_every_field_of_its_mech() -> None:
    """A read with every call left unread: each mech's every field, nothing more.

    ``karma()`` unread names every marketplace mech's karma, ``getOperator()`` its
    service deliveries (round two has neither call then).
    """
    mechs = creations(5, legacy=(4,))
    chain = Chain(left_unread=lambda call: True)
    facts = read(chain, mechs)
    left = fields_left_unread(facts, chain.unread)
    assert left == {
        mech.address: (
            LEGACY_FIELDS if mech.kind == MECH_KIND_LEGACY else MARKETPLACE_FIELDS
        )
        for mech in mechs
    }


def test_round_two_calls_left_unread_name_karma_and_service_deliveries() -> None:
    """``mapMechKarma`` names its argument's karma; the operator's count every mech of it."""
    mechs = creations(4)
    chain = Chain(
        left_unread=calls_named(
            "mapMechKarma(address)", "mapMechServiceDeliveryCounts(address)"
        )
    )
    facts = read(chain, mechs)
    left = fields_left_unread(facts, chain.unread)
    assert left == {m.address: {"karma", "service_deliveries"} for m in mechs}


@pytest.mark.parametrize(
    ("signature", "fields"),
    [
        ("mapAgentMechFactories(address)", {"mech_factory"}),
        ("mapMechDeliveryCounts(address)", {"marketplace_deliveries"}),
        ("serviceId()", {"service_id"}),
        ("maxDeliveryRate()", {"max_delivery_rate"}),
        ("paymentType()", {"payment_type"}),
        ("numTotalRequests()", {"requests"}),
        ("numTotalDeliveries()", {"deliveries"}),
        ("getOperator()", {"operator", "service_deliveries"}),
        ("mapMechKarma(address)", {"karma"}),
    ],
)
def test_one_call_left_unread_names_its_mech_and_field_only(
    signature: str, fields: set
) -> None:
    """Mech 3's one call left unread: mech 3's field, no other mech's.

    :param signature: the call left unread.
    :param fields: the fields it names.
    """
    mechs = creations(4)
    chain = Chain(left_unread=calls_named(signature, about=mech_address(3)))
    facts = read(chain, mechs)
    assert len(chain.unread) == 1
    assert fields_left_unread(facts, chain.unread) == {mech_address(3): fields}


def test_an_operators_count_left_unread_names_each_mech_of_that_operator() -> None:
    """Mechs 1 and 2 share a multisig: its count left unread names both, no other."""
    mechs = creations(4)
    chain = Chain(
        left_unread=calls_named(
            "mapMechServiceDeliveryCounts(address)", about=operator_of(1)
        )
    )
    facts = read(chain, mechs)
    left = fields_left_unread(facts, chain.unread)
    assert left == {
        mech_address(1): {"service_deliveries"},
        mech_address(2): {"service_deliveries"},
    }


def test_calls_of_no_mech_read_name_nothing() -> None:
    """The block probe, another contract's getter, a marketplace call about a stranger."""
    mechs = creations(2)
    facts = read(Chain(), mechs)
    elsewhere = "0x" + "99" * 20
    calls = [
        block_number_call(MULTICALL),
        encode_call(elsewhere, "maxDeliveryRate()", (), (), ("uint256",)),
        encode_call(
            MARKET, "mapMechDeliveryCounts(address)", ("address",), (elsewhere,), ()
        ),
        encode_call(
            MARKET,
            "mapMechServiceDeliveryCounts(address)",
            ("address",),
            (elsewhere,),
            (),
        ),
        encode_call(mech_address(1), "owner()", (), (), ("address",)),
    ]
    assert not fields_left_unread(facts, calls)


def earlier_read(mechs: List[MechCreation]) -> Dict[str, MechFacts]:
    """Read every mech whole at block 90 (requests 3), as last good facts.

    :param mechs: the mechs.
    :return: address -> facts.
    """
    facts = read(Chain(requests=3), mechs, block=90)
    assert all(not f.unread for f in facts)
    return {f.address: f for f in facts}


def test_mechs_left_unread_keep_their_last_good_facts_whole() -> None:
    """Mechs 2 and 3 left unread keep block 90's facts; 1 and 4 are this read's."""
    mechs = creations(4)
    last_good = earlier_read(mechs)
    unread_mechs = {mech_address(2), mech_address(3)}
    chain = Chain(left_unread=lambda call: call.target in unread_mechs, requests=8)
    facts = read(chain, mechs)
    served = keep_last_good(facts, chain.unread, last_good)
    assert served.kept == [mech_address(2), mech_address(3)]
    assert not served.unread
    assert [f.block for f in served.facts] == [100, 90, 90, 100]
    assert [f.requests for f in served.facts] == [8, 3, 3, 8]
    for fact in served.facts:
        assert fact.rankable and fact.unread == ()
    assert served.facts[1] is last_good[mech_address(2)]


def test_karma_contract_left_unread_keeps_every_marketplace_mech_known_before() -> None:
    """``karma()`` left unread: every mech's karma unknown, every one with facts kept."""
    mechs = creations(3)
    last_good = earlier_read(mechs[:2])
    chain = Chain(left_unread=calls_named("karma()"))
    facts = read(chain, mechs)
    assert all(dict(f.unread) == {"karma": UNREAD_NO_KARMA} for f in facts)
    served = keep_last_good(facts, chain.unread, last_good)
    assert served.kept == [mech_address(1), mech_address(2)]
    assert served.unread == [mech_address(3)]
    assert served.facts[2] is facts[2] and not served.facts[2].rankable


def test_a_mech_failing_on_its_own_shows_this_read_though_calls_were_left_unread() -> (
    None
):
    """A getter told apart reverting, or answering garbage, beside calls left unread.

    Its own doing: this read's facts, unread fields and all, not the last good ones.
    """
    mechs = creations(3)
    last_good = earlier_read(mechs)
    price_reverts = calls_named("maxDeliveryRate()", about=mech_address(1))
    price_garbage = calls_named("maxDeliveryRate()", about=mech_address(2))
    counts_unread = calls_named("numTotalRequests()", "numTotalDeliveries()")
    chain = Chain(
        left_unread=counts_unread, reverts=price_reverts, garbage=price_garbage
    )
    facts = read(chain, mechs)
    served = keep_last_good(facts, chain.unread, last_good)
    assert served.kept == [mech_address(3)]
    assert served.facts[0] is facts[0] and served.facts[1] is facts[1]
    assert dict(facts[0].unread)["max_delivery_rate"] == UNREAD_CALL_FAILED
    assert dict(facts[1].unread)["max_delivery_rate"] == UNREAD_UNDECODABLE
    assert failed_on_its_own(facts[0], frozenset({"requests", "deliveries"}))
    assert not failed_on_its_own(facts[2], frozenset({"requests", "deliveries"}))


def test_a_mech_failing_on_its_own_alone_shows_this_read() -> None:
    """Nothing left unread: a reverting getter's mech is this read's, as every other."""
    mechs = creations(2)
    last_good = earlier_read(mechs)
    chain = Chain(reverts=calls_named("paymentType()", about=mech_address(2)))
    facts = read(chain, mechs)
    served = keep_last_good(facts, chain.unread, last_good)
    assert served.facts == facts and not served.kept and not served.unread


def test_an_operator_read_as_none_is_no_fault_of_a_mech_left_unread() -> None:
    """A mech with no multisig yet (``no_operator``) left unread keeps its last facts."""
    mechs = creations(2)
    no_operator = replace(
        earlier_read(mechs)[mech_address(1)],
        operator="",
        service_deliveries=None,
        unread=(("service_deliveries", UNREAD_NO_OPERATOR),),
    )
    chain = Chain(left_unread=calls_named("maxDeliveryRate()", about=mech_address(1)))
    facts = read(chain, mechs)
    served = keep_last_good(facts, chain.unread, {mech_address(1): no_operator})
    assert served.kept == [mech_address(1)] and served.facts[0] is no_operator


def test_last_good_facts_are_a_catalogues_read_facts_by_address() -> None:
    """Facts never read (no block) are not last good; no catalogue, none."""
    mechs = creations(2)
    read_ones = earlier_read(mechs)
    never = MechFacts(address=mech_address(3))
    entry = Mech(
        ref=MechRef(100, "complementary_service_metadata", MARKET, 1),
        marketplace=(read_ones[mech_address(1)], read_ones[mech_address(2)], never),
    )
    catalogue = Catalogue.build([entry])
    assert last_good_facts(catalogue) == read_ones
    assert not last_good_facts(None)
    assert not last_good_facts(Catalogue.build([]))
