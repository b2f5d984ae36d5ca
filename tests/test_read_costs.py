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

"""The read costs docs/skill-contract.md states for large registries, counted on the reader.

"With the default batch of 200 digest calls, an Olas AgentRegistry with 1,000 agents (two
calls per id) costs 10 ``eth_call``s, 1,000 services of a ComplementaryServiceMetadata 5;
one more with a ``snapshot_block_interval`` above 1." The reader is driven with return data encoded
for each call's own output types (no chain: the figures count the batches the reader asks
for, which is what an ``eth_call`` is); tests/test_tool_metadata_devnet.py checks the
devnet figures against anvil.
"""

from typing import Any, Dict, List, Optional, Tuple

import pytest
from eth_abi import encode
from eth_abi.exceptions import EncodingError
from eth_utils import function_signature_to_4byte_selector, to_checksum_address
from hypothesis import given, settings
from hypothesis import strategies as st
from mech_catalogue_core.chain.registry import (
    Call,
    RegistryDecodeError,
    encode_batch,
    encode_call,
    parse_registry_sources,
    snapshot_reader,
)

MULTICALL = "0x" + "ff" * 20
REGISTRY = "0x" + "ab" * 20
SERVICE_REGISTRY = "0x" + "cd" * 20
DEFAULT_BATCH = 200
DEFAULT_MAX_IDS = 10000
SUPPLY = 1000
BLOCK = 1234
DIGEST = b"\x11" * 32


def _answer(call: Call) -> Tuple[bool, bytes]:
    values: List[Any] = []
    for kind in call.output_types:
        if kind == "uint256":
            values.append(SUPPLY if call.target != MULTICALL else BLOCK)
        elif kind == "address":
            values.append(SERVICE_REGISTRY)
        elif kind == "bytes32":
            values.append(DIGEST)
        else:
            values.append([DIGEST])
    return True, encode(list(call.output_types), values)


def eth_calls(
    kind: str, block_interval: int = 1, at_block: Optional[int] = None
) -> Tuple[int, int, int]:
    """Count the ``eth_call``s one read of ``1..SUPPLY`` ids costs.

    :param kind: the registry kind, with ids ``all``.
    :param block_interval: snapshot_block_interval.
    :param at_block: the agreed block to read at (None: latest, aligned).
    :return: (eth_calls, contract calls in all, ids read).
    """
    sources = parse_registry_sources(
        [{"kind": kind, "address": REGISTRY, "ids": "all"}], 100
    )
    reader = snapshot_reader(
        sources, MULTICALL, DEFAULT_BATCH, DEFAULT_MAX_IDS, block_interval, at_block
    )
    batches = calls = 0
    try:
        batch, block = next(reader)
        while True:
            batches += 1
            calls += len(batch)
            assert (
                len(batch) <= DEFAULT_BATCH + 1
            )  # + serviceRegistry() or totalSupply()
            if at_block is not None:
                assert block == at_block
            batch, block = reader.send(
                (block or BLOCK, [_answer(call) for call in batch])
            )
    except StopIteration as done:
        _, reads = done.value
        return batches, calls, len(reads)


@pytest.mark.parametrize(
    "kind, expected",
    [
        ("olas_agent_registry", 10),
        ("complementary_service_metadata", 5),
        ("legacy_mech_registry", 5),
    ],
)
def test_thousand_ids_cost_what_the_contract_says(kind: str, expected: int) -> None:
    """1,000 ids with ids 'all', the default batch, block interval 1: ceil(digest calls / 200) eth_calls."""
    batches, _, ids = eth_calls(kind)
    assert ids == SUPPLY
    assert batches == expected


def test_every_id_is_read_once() -> None:
    """No digest call is repeated across batches: two per Olas id, one per service, plus the supply calls."""
    _, olas_calls, _ = eth_calls("olas_agent_registry")
    assert olas_calls == 1 + 2 * SUPPLY  # totalSupply, digests
    _, service_calls, _ = eth_calls("complementary_service_metadata")
    # serviceRegistry(), totalSupply(), one mapServiceHashes per id
    assert service_calls == 1 + 1 + SUPPLY


@pytest.mark.parametrize(
    "kind", ["complementary_service_metadata", "olas_agent_registry"]
)
def test_an_aligned_block_costs_one_call_more(kind: str) -> None:
    """Aligning to 10 blocks needs the latest block first: one call at latest, then the same."""
    unaligned, calls, ids = eth_calls(kind)
    aligned, aligned_calls, aligned_ids = eth_calls(kind, block_interval=10)
    assert aligned == unaligned + 1 and ids == aligned_ids == SUPPLY
    assert aligned_calls == calls + 1  # getBlockNumber()


def test_an_agreed_block_is_read_without_a_block_call() -> None:
    """Rebuilding at the agreed block: every batch pinned to it, no call at latest."""
    batches, _, ids = eth_calls(
        "complementary_service_metadata", block_interval=10, at_block=BLOCK - 4
    )
    assert batches == 5 and ids == SUPPLY


def read_with_cache(
    supply: int,
    cache: Dict[Tuple[int, str], str],
    block_interval: int = 1,
    chain_id: int = 100,
) -> List[List[str]]:
    """Read ``1..supply`` services of one ComplementaryServiceMetadata with a holder cache.

    :param supply: the ServiceRegistry's ``totalSupply()``.
    :param cache: the holder cache handed to the reader (filled by it).
    :param block_interval: snapshot_block_interval.
    :param chain_id: the source's chain id.
    :return: per ``eth_call``, the signatures of its calls' targets (``target:selector``).
    """
    sources = parse_registry_sources(
        [{"kind": "complementary_service_metadata", "address": REGISTRY, "ids": "all"}],
        chain_id,
    )
    reader = snapshot_reader(
        sources,
        MULTICALL,
        DEFAULT_BATCH,
        DEFAULT_MAX_IDS,
        block_interval,
        holder_cache=cache,
    )
    sent: List[List[str]] = []

    def answer(call: Call) -> Tuple[bool, bytes]:
        if call.output_types == ("uint256",):
            value = supply if call.target == SERVICE_REGISTRY else BLOCK
            return True, encode(["uint256"], [value])
        if call.output_types == ("bytes32",):
            mech_id = int.from_bytes(call.data[4:36], "big")
            return True, (DIGEST if mech_id <= supply else b"\x00" * 32)
        return _answer(call)

    try:
        batch, block = next(reader)
        while True:
            sent.append([f"{c.target}:{c.data[:4].hex()}" for c in batch])
            batch, block = reader.send((block or BLOCK, [answer(c) for c in batch]))
    except StopIteration as done:
        _, reads = done.value
    assert [r.ref.mech_id for r in reads] == list(range(1, supply + 1))
    assert all(r.digest for r in reads)
    return sent


SERVICE_REGISTRY_SELECTOR = "cbcf252a"  # keccak("serviceRegistry()")[:4], checked below


def test_the_service_registry_is_read_once_then_remembered() -> None:
    """A refresh of 100 services costs ceil(100 / 200) = 1 eth_call once serviceRegistry() is known.

    The first read needs serviceRegistry() before totalSupply() can be asked of it (2
    calls); it fills the cache, and the next read asks totalSupply() in its first batch,
    never serviceRegistry() again.
    """
    cache: Dict[Tuple[int, str], str] = {}
    cold = read_with_cache(100, cache)
    assert len(cold) == 2
    assert any(s.endswith(SERVICE_REGISTRY_SELECTOR) for s in cold[0])
    assert cache == {(100, REGISTRY): SERVICE_REGISTRY}
    warm = read_with_cache(100, cache)
    assert len(warm) == 1
    assert not any(s.endswith(SERVICE_REGISTRY_SELECTOR) for b in warm for s in b)
    assert (
        f"{SERVICE_REGISTRY}:18160ddd" in warm[0]
    )  # totalSupply() of the remembered one


@pytest.mark.parametrize("supply, expected", [(200, 1), (201, 2), (1000, 5)])
def test_a_remembered_refresh_costs_ceil_of_the_ids(supply: int, expected: int) -> None:
    """With the holder known, ids 1..supply cost ceil(supply / 200) eth_calls (the bound of issue 16)."""
    cache = {(100, REGISTRY): SERVICE_REGISTRY}
    assert len(read_with_cache(supply, cache)) == expected


def test_a_holder_of_another_chain_is_not_used() -> None:
    """The cache is keyed by (chain id, address): the same address on chain 1 is read afresh."""
    cache = {(1, REGISTRY): "0x" + "ee" * 20}
    sent = read_with_cache(100, cache, chain_id=100)
    assert any(s.endswith(SERVICE_REGISTRY_SELECTOR) for s in sent[0])
    assert cache[(100, REGISTRY)] == SERVICE_REGISTRY and cache[(1, REGISTRY)] != (
        SERVICE_REGISTRY
    )


def test_an_aligned_refresh_asks_only_the_block_first() -> None:
    """Interval 10 with the holder known: the call at latest is getBlockNumber() alone, then ceil(N/200)."""
    cache = {(100, REGISTRY): SERVICE_REGISTRY}
    sent = read_with_cache(100, cache, block_interval=10)
    assert len(sent) == 2
    assert sent[0] == [f"{MULTICALL}:42cbb15c"]  # getBlockNumber()


def test_a_reverting_service_registry_is_not_remembered() -> None:
    """serviceRegistry() reverting still fails the read with the address named, and caches nothing."""
    sources = parse_registry_sources(
        [{"kind": "complementary_service_metadata", "address": REGISTRY, "ids": "all"}],
        100,
    )
    cache: Dict[Tuple[int, str], str] = {}
    reader = snapshot_reader(
        sources, MULTICALL, DEFAULT_BATCH, DEFAULT_MAX_IDS, 1, holder_cache=cache
    )
    batch, _ = next(reader)
    with pytest.raises(RegistryDecodeError, match=REGISTRY):
        reader.send((BLOCK, [(False, b"")] + [_answer(c) for c in batch[1:]]))
    assert not cache


def test_the_selectors_named_here_are_the_contracts() -> None:
    """The selectors the tests above look for are serviceRegistry(), totalSupply(), getBlockNumber()."""
    assert function_signature_to_4byte_selector("serviceRegistry()").hex() == (
        SERVICE_REGISTRY_SELECTOR
    )
    assert function_signature_to_4byte_selector("totalSupply()").hex() == "18160ddd"
    assert function_signature_to_4byte_selector("getBlockNumber()").hex() == "42cbb15c"


class SupplyChain:
    """Three ``all`` registries (Olas, legacy, services) whose supplies a test sets.

    Id ``i`` of a registry holds a digest derived from its address and ``i`` when
    ``i <= supply``, none past it (as a registry answers for an id not minted yet).
    """

    OLAS = "0x" + "b1" * 20
    LEGACY = "0x" + "b2" * 20
    CSM = "0x" + "b3" * 20
    SERVICES = "0x" + "b4" * 20

    def __init__(self, olas: int, legacy: int, services: int) -> None:
        """Set the supplies.

        :param olas: Olas agents.
        :param legacy: legacy mech agents.
        :param services: services.
        """
        self.supply = {self.OLAS: olas, self.LEGACY: legacy, self.SERVICES: services}
        self.batches: List[int] = []

    def sources(self) -> Any:
        """List the registries, ids all.

        :return: the parsed sources.
        """
        return parse_registry_sources(
            [
                {"kind": "olas_agent_registry", "address": self.OLAS, "ids": "all"},
                {"kind": "legacy_mech_registry", "address": self.LEGACY, "ids": "all"},
                {
                    "kind": "complementary_service_metadata",
                    "address": self.CSM,
                    "ids": "all",
                },
            ],
            100,
        )

    def digest(self, target: str, mech_id: int) -> bytes:
        """Give the digest a registry holds for an id.

        :param target: the registry.
        :param mech_id: the id.
        :return: 32 bytes, zero past the supply.
        """
        owner = self.SERVICES if target == self.CSM else target
        if mech_id > self.supply[owner]:
            return b"\x00" * 32
        return bytes.fromhex(target[2:]) + mech_id.to_bytes(12, "big")

    def answer(self, call: Call) -> Tuple[bool, bytes]:
        """Answer one call.

        :param call: the call.
        :return: ``(success, data)``.
        """
        selector = call.data[:4]
        arg = int.from_bytes(call.data[4:36], "big") if len(call.data) > 4 else 0
        if selector == function_signature_to_4byte_selector("serviceRegistry()"):
            return True, encode(["address"], [self.SERVICES])
        if selector == function_signature_to_4byte_selector("totalSupply()"):
            return True, encode(["uint256"], [self.supply[call.target]])
        if call.output_types == ("uint256", "bytes32[]"):
            digest = self.digest(call.target, arg)
            listed = [digest] if any(digest) else []
            return True, encode(["uint256", "bytes32[]"], [len(listed), listed])
        return True, encode(["bytes32"], [self.digest(call.target, arg)])

    def read(self, batch_size: int, holders: Any = None, hints: Any = None) -> Any:
        """Read every registry.

        :param batch_size: digest calls per batch.
        :param holders: the holder cache.
        :param hints: the supply hints.
        :return: ``(block, reads)``.
        """
        reader = snapshot_reader(
            self.sources(),
            MULTICALL,
            batch_size,
            DEFAULT_MAX_IDS,
            1,
            holder_cache=holders,
            supply_hints=hints,
        )
        self.batches = []
        try:
            batch, block = next(reader)
            while True:
                self.batches.append(len(batch))
                batch, block = reader.send(
                    (block or BLOCK, [self.answer(c) for c in batch])
                )
        except StopIteration as done:
            return done.value


def test_remembered_supplies_let_three_registries_share_one_batch() -> None:
    """4 Olas agents, 4 legacy agents, 3 services (15 digest calls): 2 eth_calls cold, 1 warm.

    Cold, the first batch goes to the Olas ids (its supply is unknown), so the others
    need a second; warm, each registry's first batch share is its last supply + 8.
    """
    chain = SupplyChain(4, 4, 3)
    holders: Dict[Tuple[int, str], str] = {}
    hints: Dict[Tuple[int, str], int] = {}
    cold = chain.read(200, holders, hints)
    assert len(chain.batches) == 2
    assert hints == {
        (100, SupplyChain.OLAS): 4,
        (100, SupplyChain.LEGACY): 4,
        (100, SupplyChain.CSM): 3,
    }
    warm = chain.read(200, holders, hints)
    assert len(chain.batches) == 1 and warm == cold


@settings(max_examples=60, deadline=None)
@given(
    before=st.tuples(*[st.integers(0, 40)] * 3),
    after=st.tuples(*[st.integers(0, 40)] * 3),
    batch_size=st.sampled_from([3, 16, 64, 200]),
)
def test_hints_change_the_cost_never_the_reads(
    before: Tuple[int, int, int], after: Tuple[int, int, int], batch_size: int
) -> None:
    """Whatever the supplies were at the last read (grown, shrunk, equal), the reads are those of a read without hints.

    And while the supplies did not grow past the margin, a read with hints costs at most
    what one without them does.

    :param before: the supplies at the first read (Olas, legacy, services).
    :param after: the supplies at the second.
    :param batch_size: digest calls per batch.
    """
    chain = SupplyChain(*before)
    holders: Dict[Tuple[int, str], str] = {}
    hints: Dict[Tuple[int, str], int] = {}
    chain.read(batch_size, holders, hints)
    chain.supply = dict(zip(chain.supply, after))
    expected = chain.read(batch_size)
    plain_cost = len(chain.batches)
    assert chain.read(batch_size, holders, hints) == expected
    assert sorted(hints.values()) == sorted(after)
    if all(0 <= a - b <= 8 for a, b in zip(after, before)):
        assert len(chain.batches) <= plain_cost
    ids = [r.ref.mech_id for r in expected[1]]
    assert len(ids) == sum(after)


ADDRESSES = st.one_of(
    st.binary(min_size=20, max_size=20).map(lambda b: "0x" + b.hex()),
    st.binary(min_size=20, max_size=20).map(lambda b: "0x" + b.hex().upper()),
    st.binary(min_size=20, max_size=20).map(to_checksum_address),
)


@settings(max_examples=150, deadline=None)
@given(
    calls=st.lists(
        st.tuples(ADDRESSES, st.binary(max_size=100)), min_size=0, max_size=12
    )
)
def test_a_batch_is_encoded_as_eth_abi_encodes_it(
    calls: List[Tuple[str, bytes]],
) -> None:
    """encode_batch writes the ABI layout itself: the same bytes as eth_abi's, for any targets and call data.

    :param calls: (target, call data) pairs.
    """
    expected = function_signature_to_4byte_selector(
        "tryBlockAndAggregate(bool,(address,bytes)[])"
    ) + encode(["bool", "(address,bytes)[]"], [False, [list(c) for c in calls]])
    assert encode_batch([Call(t, d) for t, d in calls]) == expected


@pytest.mark.parametrize(
    "target",
    [
        "0x" + "ab" * 20,
        str(to_checksum_address("0x" + "ab" * 20)).swapcase().replace("0X", "0x"),
        "ab" * 20,  # no 0x: eth_abi's own path
    ],
)
def test_other_address_spellings_encode_as_eth_abi_does(target: str) -> None:
    """A wrong checksum or a missing 0x gives what eth_abi gives (it checks no checksum)."""
    expected = function_signature_to_4byte_selector(
        "tryBlockAndAggregate(bool,(address,bytes)[])"
    ) + encode(["bool", "(address,bytes)[]"], [False, [[target, b"\x01"]]])
    assert encode_batch([Call(target, b"\x01")]) == expected


def test_a_malformed_address_is_refused_as_before() -> None:
    """What is not an address still fails in eth_abi, with its error."""
    with pytest.raises(EncodingError):
        encode_batch([Call("0x" + "zz" * 20, b"\x01")])


@settings(max_examples=150, deadline=None)
@given(args=st.lists(st.integers(0, 2**256 - 1), max_size=3))
def test_uint256_calls_are_encoded_as_eth_abi_encodes_them(args: List[int]) -> None:
    """encode_call's uint256 path gives eth_abi's bytes and the signature's selector.

    :param args: the uint256 arguments.
    """
    signature = f"f({','.join(['uint256'] * len(args))})"
    call = encode_call(REGISTRY, signature, ["uint256"] * len(args), args, ())
    assert call.data == function_signature_to_4byte_selector(signature) + encode(
        ["uint256"] * len(args), args
    )


@pytest.mark.parametrize("bad", [-1, 2**256, True, "1"])
def test_what_is_not_a_uint256_is_refused_as_before(bad: Any) -> None:
    """A negative, too large, bool or string argument goes to eth_abi: refused or encoded as it did."""
    try:
        expected: Any = encode(["uint256"], [bad])
    except EncodingError as exc:
        expected = type(exc)
    try:
        got: Any = encode_call(REGISTRY, "f(uint256)", ["uint256"], [bad], ()).data[4:]
    except EncodingError as exc:
        got = type(exc)
    assert got == expected
