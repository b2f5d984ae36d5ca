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

"""Marketplace discovery and facts, driven with ABI-encoded logs and returns written here.

The node is replaced by a small in-test table ``{(target, call data): return bytes}`` so the
decoding of every field, each failure kind, and the number of ``eth_call`` s can be checked
without a chain; the same code runs against anvil in ``tests/devnet/test_marketplace_devnet.py``.
"""

from typing import Any, Dict, List, Mapping, Optional, Tuple

import pytest
from eth_abi import encode as abi_encode
from eth_utils import function_signature_to_4byte_selector
from mech_catalogue_core.chain.marketplace import (
    CREATE_MECH_TOPIC,
    DELIVERY_TOPICS,
    LEGACY_CREATE_MECH_TOPIC,
    DiscoveryCheckpoint,
    MarketplaceConfigError,
    MarketplaceLogError,
    MarketplaceSource,
    MechCreation,
    attach_facts,
    discover_mechs,
    facts_reader,
    log_ranges,
    start_checkpoint,
)
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
    UNREAD_NOT_APPLICABLE,
    UNREAD_UNDECODABLE,
    MechFacts,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
)

MARKET = "0x" + "a1" * 20
MULTICALL = "0x" + "c2" * 20
KARMA = "0x" + "b3" * 20
FACTORY = "0x" + "f4" * 20
MECH_1 = "0x" + "01" * 20
MECH_2 = "0x" + "02" * 20
SAFE = "0x" + "5a" * 20
NATIVE = bytes.fromhex(
    "ba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1"
)


def topic_of(value: Any) -> str:
    """Encode an address or integer as an indexed topic.

    :param value: 0x address text or int.
    :return: 0x + 64 hex.
    """
    if isinstance(value, str):
        return "0x" + "00" * 12 + value[2:]
    return "0x" + value.to_bytes(32, "big").hex()


def create_log(mech: str, service_id: int, factory: str, block: int) -> Dict[str, Any]:
    """Build a ``CreateMech`` log as a node returns it.

    :param mech: the mech.
    :param service_id: the service id.
    :param factory: the factory.
    :param block: the block.
    :return: the log.
    """
    return {
        "address": MARKET,
        "topics": [
            CREATE_MECH_TOPIC,
            topic_of(mech),
            topic_of(service_id),
            topic_of(factory),
        ],
        "data": "0x",
        "blockNumber": hex(block),
    }


class FakeNode:
    """Answers Multicall2 batches from a table of encoded returns; counts the batches."""

    def __init__(self, table: Mapping[Tuple[str, bytes], bytes], block: int) -> None:
        """Keep the table.

        :param table: ``(target, call data) -> return data``; missing entries revert.
        :param block: the latest block.
        """
        self.table = table
        self.block = block
        self.batches = 0

    def answer(self, calls: List[Any]) -> Tuple[int, List[Tuple[bool, bytes]]]:
        """Answer one batch.

        :param calls: the calls.
        :return: ``(block, results)``.
        """
        self.batches += 1
        out = []
        for call in calls:
            if call.data[:4] == function_signature_to_4byte_selector(
                "getBlockNumber()"
            ):
                out.append((True, abi_encode(["uint256"], [self.block])))
                continue
            data = self.table.get((call.target, call.data))
            out.append((data is not None, data or b""))
        return self.block, out


def selector(signature: str, types: Tuple[str, ...] = (), args: Tuple = ()) -> bytes:
    """Encode call data.

    :param signature: the function signature.
    :param types: argument types.
    :param args: arguments.
    :return: the call data.
    """
    return function_signature_to_4byte_selector(signature) + abi_encode(
        list(types), list(args)
    )


def mech_table(mech: str, rate: int, requests: int, delivered: int) -> Dict:
    """Encoded returns of one healthy marketplace mech.

    :param mech: its address.
    :param rate: maxDeliveryRate.
    :param requests: numTotalRequests.
    :param delivered: numTotalDeliveries (and the marketplace's count).
    :return: part of a node table.
    """

    def u(value: int) -> bytes:
        return abi_encode(["uint256"], [value])

    return {
        (MARKET, selector("mapAgentMechFactories(address)", ("address",), (mech,))): (
            abi_encode(["address"], [FACTORY])
        ),
        (MARKET, selector("mapMechDeliveryCounts(address)", ("address",), (mech,))): u(
            delivered
        ),
        (mech, selector("serviceId()")): u(7),
        (mech, selector("maxDeliveryRate()")): u(rate),
        (mech, selector("paymentType()")): abi_encode(["bytes32"], [NATIVE]),
        (mech, selector("numTotalRequests()")): u(requests),
        (mech, selector("numTotalDeliveries()")): u(delivered),
        (mech, selector("getOperator()")): abi_encode(["address"], [SAFE]),
        (KARMA, selector("mapMechKarma(address)", ("address",), (mech,))): abi_encode(
            ["int256"], [-3 if mech == MECH_2 else 5]
        ),
    }


def base_table() -> Dict:
    """A marketplace with karma and two mechs of service 7.

    :return: the node table.
    """
    table = {
        (MARKET, selector("karma()")): abi_encode(["address"], [KARMA]),
        (
            MARKET,
            selector("mapMechServiceDeliveryCounts(address)", ("address",), (SAFE,)),
        ): abi_encode(["uint256"], [4]),
    }
    table.update(mech_table(MECH_1, 10**16, 6, 4))
    table.update(mech_table(MECH_2, 1, 0, 0))
    return table


def run_reader(
    node: FakeNode,
    mechs: List[MechCreation],
    batch_size: int = 100,
    at_block: Optional[int] = None,
    marketplace: str = MARKET,
) -> Tuple[int, List[MechFacts]]:
    """Drive :func:`facts_reader` against ``node``.

    :param node: the node.
    :param mechs: the mechs.
    :param batch_size: calls per batch.
    :param at_block: pinned block.
    :param marketplace: the marketplace address ("" for legacy only).
    :return: the reader's result.
    """
    gen = facts_reader(marketplace, MULTICALL, mechs, batch_size, at_block)
    try:
        request = next(gen)
        while True:
            request = gen.send(node.answer(request[0]))
    except StopIteration as stop:
        return stop.value


def creations() -> List[MechCreation]:
    """Two marketplace mechs of service 7.

    :return: the creations.
    """
    return [
        MechCreation(MECH_1, MECH_KIND_MARKETPLACE, 7, FACTORY, 10),
        MechCreation(MECH_2, MECH_KIND_MARKETPLACE, 7, FACTORY, 11),
    ]


def test_every_field_is_read_in_two_batches() -> None:
    """Each MechFacts field holds its contract value; two mechs cost two eth_calls at a pinned block."""
    node = FakeNode(base_table(), block=99)
    block, (first, second) = run_reader(node, creations(), at_block=50)
    assert block == 50 and node.batches == 2
    assert first.confirmed and first.unread == ()
    assert (first.service_id, first.max_delivery_rate) == (7, 10**16)
    assert first.payment_type_name == "native"
    assert (first.requests, first.deliveries, first.marketplace_deliveries) == (6, 4, 4)
    assert (first.service_deliveries, first.karma, first.operator) == (4, 5, SAFE)
    assert second.karma == -3 and second.requests == 0 and second.rankable


def test_latest_block_costs_one_more_call() -> None:
    """Without a pinned block the reader asks getBlockNumber() first and stamps that block."""
    node = FakeNode(base_table(), block=123)
    block, facts = run_reader(node, creations())
    assert block == 123 and node.batches == 3 and facts[0].block == 123


def test_batches_grow_with_mechs_over_batch_size() -> None:
    """Calls are chunked: 2 mechs x 8 calls + karma() at batch 5 -> 4 + 1 batches."""
    node = FakeNode(base_table(), block=9)
    _, facts = run_reader(node, creations(), batch_size=5, at_block=9)
    assert node.batches == 4 + 1 and all(f.unread == () for f in facts)


def test_reverting_calls_are_named_not_zero() -> None:
    """A reverting maxDeliveryRate() and karma() leave None with a reason, never 0."""
    table = base_table()
    del table[(MECH_1, selector("maxDeliveryRate()"))]
    del table[(MARKET, selector("karma()"))]
    _, (first, second) = run_reader(FakeNode(table, 5), creations(), at_block=5)
    assert first.max_delivery_rate is None and first.karma is None
    assert dict(first.unread) == {
        "max_delivery_rate": UNREAD_CALL_FAILED,
        "karma": UNREAD_NO_KARMA,
    }
    assert not first.rankable and not second.rankable
    assert first.to_dict()["max_delivery_rate"] is None
    assert second.to_dict()["max_delivery_rate"] == "1"


def test_garbage_return_is_undecodable_and_operator_gap_propagates() -> None:
    """A short paymentType() return is undecodable; no operator means no per-service count."""
    table = base_table()
    table[(MECH_1, selector("paymentType()"))] = b"\x01\x02"
    del table[(MECH_1, selector("getOperator()"))]
    _, (first, _) = run_reader(FakeNode(table, 5), creations(), at_block=5)
    reasons = dict(first.unread)
    assert reasons["payment_type"] == UNREAD_UNDECODABLE
    assert reasons["operator"] == UNREAD_CALL_FAILED
    assert reasons["service_deliveries"] == UNREAD_NO_OPERATOR
    assert first.payment_type == "" and first.service_deliveries is None


def test_a_mech_the_marketplace_did_not_create_is_unconfirmed() -> None:
    """A log naming a contract the marketplace has no factory for is not confirmed or rankable."""
    table = base_table()
    table[
        (MARKET, selector("mapAgentMechFactories(address)", ("address",), (MECH_1,)))
    ] = abi_encode(["address"], ["0x" + "00" * 20])
    _, (first, _) = run_reader(FakeNode(table, 5), creations(), at_block=5)
    assert not first.confirmed and not first.rankable
    assert first.max_delivery_rate == 10**16  # the other values are still facts


def test_legacy_mech_reads_price_and_token_id() -> None:
    """Legacy mechs: price() and tokenId(); marketplace-only fields are not applicable."""
    legacy = "0x" + "0e" * 20
    table = {
        (legacy, selector("tokenId()")): abi_encode(["uint256"], [3]),
        (legacy, selector("price()")): abi_encode(["uint256"], [5 * 10**15]),
    }
    node = FakeNode(table, 4)
    mechs = [MechCreation(legacy, MECH_KIND_LEGACY, 3, FACTORY, 1)]
    _, (facts,) = run_reader(node, mechs, batch_size=10, at_block=4, marketplace="")
    assert facts.confirmed and facts.max_delivery_rate == 5 * 10**15
    assert dict(facts.unread)["karma"] == UNREAD_NOT_APPLICABLE
    assert node.batches == 1


def test_log_ranges_are_bounded_and_leave_the_margin() -> None:
    """Ranges cover next..head-confirmations in max_range steps; nothing when not confirmed."""
    assert log_ranges(0, 25, 5, 8) == [(0, 7), (8, 15), (16, 20)]
    assert log_ranges(21, 25, 5, 8) == []
    assert log_ranges(10, 10, 0, 1) == [(10, 10)]


def run_discovery(
    source: MarketplaceSource,
    checkpoint: DiscoveryCheckpoint,
    head: int,
    logs: List[Dict[str, Any]],
) -> Tuple[DiscoveryCheckpoint, List[Tuple[int, int]]]:
    """Drive :func:`discover_mechs`, answering each range with the logs inside it.

    :param source: the source.
    :param checkpoint: the checkpoint.
    :param head: the head block.
    :param logs: every log on the "chain".
    :return: the new checkpoint and the ranges queried.
    """
    gen = discover_mechs(source, checkpoint, head)
    queried = []
    try:
        query = next(gen)
        while True:
            if query.topic not in DELIVERY_TOPICS:  # creations: once a range
                queried.append((query.from_block, query.to_block))
            inside = [
                log
                for log in logs
                if query.from_block <= int(log["blockNumber"], 16) <= query.to_block
                # deliveries answer their own query; any other log the creation query
                # (a wrong topic0 among them: the node bug the decoder must catch)
                and (
                    log["topics"][0] == query.topic
                    if query.topic in DELIVERY_TOPICS
                    else log["topics"][0] not in DELIVERY_TOPICS
                )
            ]
            query = gen.send(inside)
    except StopIteration as stop:
        return stop.value, queried


def test_discovery_is_incremental_and_checkpointed() -> None:
    """A second period reads only new confirmed blocks and finds the mech created since."""
    source = MarketplaceSource(1, MARKET, first_block=3, confirmations=2, max_range=4)
    logs = [create_log(MECH_1, 7, FACTORY, 5)]
    checkpoint, queried = run_discovery(source, start_checkpoint(source), 12, logs)
    assert queried == [(3, 6), (7, 10)]
    assert [m.address for m in checkpoint.mechs] == [MECH_1]
    assert checkpoint.next_block == 11
    logs.append(create_log(MECH_2, 8, FACTORY, 13))
    restored = DiscoveryCheckpoint.from_dict(checkpoint.to_dict())
    later, queried = run_discovery(source, restored, 15, logs)
    assert queried == [(11, 13)]
    assert [(m.address, m.service_id) for m in later.mechs] == [
        (MECH_1, 7),
        (MECH_2, 8),
    ]


def delivery_log(mech: str, block: int, signed: bool = False) -> Dict[str, Any]:
    """Build a marketplace delivery log as a node returns it (data left out: not read).

    :param mech: the delivering mech.
    :param block: the block.
    :param signed: ``MarketplaceDeliveryWithSignatures`` (else ``MarketplaceDelivery``).
    :return: the log.
    """
    return {
        "address": MARKET,
        "topics": [DELIVERY_TOPICS[int(signed)], topic_of(mech), "0x" + "00" * 32],
        "data": "0x",
        "blockNumber": hex(block),
    }


def test_discovery_keeps_each_mechs_latest_delivery_block_across_periods() -> None:
    """The latest delivery event per mech, on-chain or signed; none: None.

    Kept in the checkpoint, and raised by later periods' ranges only.
    """
    source = MarketplaceSource(1, MARKET, first_block=3, confirmations=2, max_range=4)
    logs = [
        create_log(MECH_1, 7, FACTORY, 5),
        create_log(MECH_2, 8, FACTORY, 5),
        delivery_log(MECH_1, 6),
        delivery_log(MECH_1, 9, signed=True),
        delivery_log("0x" + "ee" * 20, 9),  # a mech the marketplace did not create
        delivery_log(MECH_1, 11),  # not confirmed at head 12 (confirmations 2)
    ]
    checkpoint, _ = run_discovery(source, start_checkpoint(source), 12, logs)
    latest = {m.address: m.last_delivery_block for m in checkpoint.mechs}
    assert latest == {MECH_1: 9, MECH_2: None}
    restored = DiscoveryCheckpoint.from_dict(checkpoint.to_dict())
    assert restored == checkpoint
    later, _ = run_discovery(source, restored, 15, logs + [delivery_log(MECH_2, 12)])
    latest = {m.address: m.last_delivery_block for m in later.mechs}
    assert latest == {MECH_1: 11, MECH_2: 12}
    # an old checkpoint (five fields a mech) still reads
    old = checkpoint.to_dict()
    old["mechs"] = [m[:5] for m in old["mechs"]]
    assert all(
        m.last_delivery_block is None for m in DiscoveryCheckpoint.from_dict(old).mechs
    )


def test_a_delivery_log_that_is_not_the_event_is_refused() -> None:
    """Wrong topic0 or topic count raises naming the block; nothing is half-applied."""
    source = MarketplaceSource(1, MARKET, confirmations=0)
    for topics in (1, 4):
        bad = delivery_log(MECH_1, 1)
        bad["topics"] = (bad["topics"] * 2)[:topics]
        with pytest.raises(MarketplaceLogError, match="block"):
            run_discovery(
                source,
                start_checkpoint(source),
                2,
                [create_log(MECH_1, 7, FACTORY, 1), bad],
            )
    # open-autonomy's build: requesters not indexed, two topics; read alike
    two = delivery_log(MECH_1, 1)
    two["topics"] = two["topics"][:2]
    checkpoint, _ = run_discovery(
        source, start_checkpoint(source), 2, [create_log(MECH_1, 7, FACTORY, 1), two]
    )
    assert checkpoint.mechs[0].last_delivery_block == 1


def test_discovery_rejects_a_log_that_is_not_the_event() -> None:
    """A log with another topic0 (wrong address configured, node bug) raises with its block."""
    source = MarketplaceSource(1, MARKET, confirmations=0)
    bad = create_log(MECH_1, 7, FACTORY, 1)
    bad["topics"][0] = LEGACY_CREATE_MECH_TOPIC
    with pytest.raises(MarketplaceLogError, match="block"):
        run_discovery(source, start_checkpoint(source), 2, [bad])
    short = create_log(MECH_1, 7, FACTORY, 1)
    short["topics"] = short["topics"][:2]
    with pytest.raises(MarketplaceLogError):
        run_discovery(source, start_checkpoint(source), 2, [short])


def test_config_errors_name_the_field() -> None:
    """Bad addresses and ranges are refused with the field's name."""
    with pytest.raises(MarketplaceConfigError, match="marketplace"):
        MarketplaceSource(1, "0x1234")
    with pytest.raises(MarketplaceConfigError, match="max_range"):
        MarketplaceSource(1, MARKET, max_range=0)
    with pytest.raises(MarketplaceConfigError, match="confirmations"):
        MarketplaceSource(1, MARKET, confirmations=-1)


def test_attach_keeps_the_digest_of_entries_without_facts() -> None:
    """Facts go to their service's entry; a catalogue without facts keeps its digest."""
    registry = "0x" + "cc" * 20
    mechs = [
        Mech(MechRef(1, REGISTRY_COMPLEMENTARY_SERVICE, registry, i)) for i in (7, 8)
    ]
    catalogue = Catalogue.build(mechs)
    assert attach_facts(catalogue, []).digest() == catalogue.digest()
    _, facts = run_reader(FakeNode(base_table(), 5), creations(), at_block=5)
    attached = attach_facts(catalogue, facts)
    assert [len(m.marketplace) for m in attached.mechs] == [2, 0]
    assert attached.digest() != catalogue.digest()
    assert Catalogue.from_json(attached.to_json()) == attached


def test_attaching_the_same_facts_again_keeps_the_entries_and_their_digests() -> None:
    """The agent attaches facts every period: unchanged entries (and catalogues) are kept as they are.

    An entry's content digest is computed once and kept with the entry; rebuilding every
    entry every period recomputed them all (seconds a period at 10,000 entries).
    """
    registry = "0x" + "cc" * 20
    catalogue = Catalogue.build(
        Mech(MechRef(1, REGISTRY_COMPLEMENTARY_SERVICE, registry, i)) for i in (7, 8)
    )
    assert attach_facts(catalogue, []) is catalogue
    _, facts = run_reader(FakeNode(base_table(), 5), creations(), at_block=5)
    attached = attach_facts(catalogue, facts)
    assert attached is not catalogue
    assert attached.mechs[1] is catalogue.mechs[1]  # no facts: the same entry
    assert attach_facts(attached, list(reversed(facts))) is attached
    assert attached.mech(catalogue.mechs[0].ref) is attached.mechs[0]  # index built
    assert attached.digest() == Catalogue.from_json(attached.to_json()).digest()
    _, later = run_reader(FakeNode(base_table(), 6), creations(), at_block=6)
    moved = attach_facts(attached, later)  # read at another block: new facts
    assert moved.mechs[0] is not attached.mechs[0]
    assert moved.mechs[1] is catalogue.mechs[1]
    assert attach_facts(moved, []).mechs[0].marketplace == ()


@pytest.mark.parametrize(
    "requests, deliveries, liveness",
    [
        (7, 3, "delivering"),
        (0, 2, "delivering"),  # it delivered other mechs' timed-out requests
        (4, 0, "never_delivered"),
        (0, 0, "no_requests"),
        (None, 5, "unread"),
        (5, None, "unread"),
    ],
)
def test_liveness_is_read_from_the_request_and_delivery_counters(
    requests: Optional[int], deliveries: Optional[int], liveness: str
) -> None:
    """A mech that delivered is live; requests without a delivery are not; unread is said."""
    facts = MechFacts("0x" + "ab" * 20, requests=requests, deliveries=deliveries)
    assert facts.liveness == liveness
    assert "liveness" not in facts.to_dict()  # the catalogue digest does not change
    legacy = MechFacts("0x" + "ab" * 20, kind=MECH_KIND_LEGACY, requests=requests)
    assert legacy.liveness == "not_applicable"  # a legacy mech keeps no counters
