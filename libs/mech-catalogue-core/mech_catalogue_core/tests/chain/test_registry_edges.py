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

"""Registry reads at their edges: the exact calls, the config errors' words, mixed sources.

The chain here is a table written in the test: it answers a call only when its target and
calldata are exactly the ones the registries' ABIs define (selectors computed from the
signatures written below), and fails it otherwise, as a contract does for an unknown
selector. The same reads run against anvil and the real contracts in
``tests/test_tool_metadata_devnet.py``; this file is the quick, exact check.
"""

from typing import Any, Dict, List, Optional, Tuple

import pytest
from eth_abi import decode, encode
from eth_utils import function_signature_to_4byte_selector
from mech_catalogue_core.chain.registry import (
    IdSelection,
    RegistryConfigError,
    RegistryDecodeError,
    RegistrySource,
    block_number_call,
    decode_batch,
    decode_digest_query,
    digest_queries,
    digest_query,
    encode_batch,
    parse_id_selection,
    parse_registry_sources,
    snapshot_reader,
)
from mech_catalogue_core.driver import drive

CHAIN = 100
MULTICALL = "0x00000000000000000000000000000000000000f0"
LEGACY = "0x00000000000000000000000000000000000000a1"
OLAS = "0x00000000000000000000000000000000000000b1"
CSM = "0x00000000000000000000000000000000000000c1"
SERVICES = "0x00000000000000000000000000000000000000d1"


def calldata(signature: str, *args: int) -> bytes:
    """Encode a call as the registry's ABI defines it (uint256 arguments only).

    :param signature: the function signature.
    :param args: its uint256 arguments.
    :return: selector + arguments.
    """
    return function_signature_to_4byte_selector(signature) + encode(
        ["uint256"] * len(args), list(args)
    )


def word(kind: str, value: Any) -> bytes:
    """ABI-encode one return value.

    :param kind: its type.
    :param value: the value.
    :return: the return data.
    """
    return encode([kind], [value])


def hashes(*digests: bytes) -> bytes:
    """ABI-encode a ``(uint256, bytes32[])`` hash-list return.

    :param digests: the hashes, oldest first.
    :return: the return data.
    """
    return encode(["uint256", "bytes32[]"], [len(digests), list(digests)])


class TableChain:
    """A chain that answers exactly the (target, calldata) pairs it was given."""

    def __init__(self, latest: int, answers: Dict[Tuple[str, bytes], bytes]) -> None:
        """Answer at ``latest`` when asked for the latest block.

        :param latest: the head block.
        :param answers: (target, calldata) -> return data.
        """
        self.latest = latest
        self.answers = answers
        self.blocks: List[Optional[int]] = []

    def __call__(self, request: Any) -> Tuple[int, List[Tuple[bool, bytes]]]:
        """Answer one batch; an unknown call fails.

        :param request: ``(calls, block)``.
        :return: ``(block, [(success, data)])``.
        """
        calls, block = request
        self.blocks.append(block)
        results = []
        for call in calls:
            data = self.answers.get((call.target.lower(), bytes(call.data)))
            results.append((data is not None, data or b""))
        return (self.latest if block is None else block), results


ONE, TWO, UNIT = b"\x01" * 32, b"\x02" * 32, b"\x03" * 32


def mixed_chain() -> TableChain:
    """Legacy mech 2 (two hashes), Olas agents 1..2 of supply 2, service 1 of a CSM.

    :return: the chain, head at block 27.
    """
    return TableChain(
        27,
        {
            (MULTICALL, calldata("getBlockNumber()")): word("uint256", 27),
            (LEGACY, calldata("getHashes(uint256)", 2)): hashes(ONE, TWO),
            (OLAS, calldata("totalSupply()")): word("uint256", 2),
            (OLAS, calldata("getUpdatedHashes(uint256)", 1)): hashes(),
            (OLAS, calldata("mapUnits(uint256)", 1)): word("bytes32", UNIT),
            (OLAS, calldata("getUpdatedHashes(uint256)", 2)): hashes(TWO),
            (OLAS, calldata("mapUnits(uint256)", 2)): word("bytes32", UNIT),
            (CSM, calldata("serviceRegistry()")): word("address", SERVICES),
            (SERVICES, calldata("totalSupply()")): word("uint256", 1),
            (CSM, calldata("mapServiceHashes(uint256)", 1)): word("bytes32", ONE),
        },
    )


def mixed_sources() -> Tuple[RegistrySource, ...]:
    """A listed source first, then two ``all`` sources (one with a supply holder).

    :return: the parsed sources.
    """
    return parse_registry_sources(
        [
            {"kind": "legacy_mech_registry", "address": LEGACY, "ids": [2]},
            {"kind": "olas_agent_registry", "address": OLAS, "ids": "all"},
            {"kind": "complementary_service_metadata", "address": CSM, "ids": "all"},
        ],
        CHAIN,
    )


@pytest.mark.parametrize("batch_size", [1, 2, 50])
@pytest.mark.parametrize("interval", [1, 10])
def test_mixed_sources_read_every_digest_at_one_block(
    batch_size: int, interval: int
) -> None:
    """A listed source before two ``all`` ones: every id of each, each kind's latest hash.

    With an interval of 10 the head (27) is aligned down to 20 and every batch after the
    block-number call is pinned to it; with 1 the first batch runs at latest and the rest
    is pinned to the block it ran at (27).

    :param batch_size: most digest calls per batch.
    :param interval: the snapshot block interval.
    """
    chain = mixed_chain()
    block, reads = drive(
        snapshot_reader(mixed_sources(), MULTICALL, batch_size, 100, interval), chain
    )
    expected_block = 20 if interval == 10 else 27
    assert block == expected_block
    assert [(r.ref.registry_kind, r.ref.mech_id, r.digest, r.error) for r in reads] == [
        ("legacy_mech_registry", 2, "0x" + TWO.hex(), ""),
        ("olas_agent_registry", 1, "0x" + UNIT.hex(), ""),
        ("olas_agent_registry", 2, "0x" + TWO.hex(), ""),
        ("complementary_service_metadata", 1, "0x" + ONE.hex(), ""),
    ]
    assert chain.blocks[0] is None
    assert set(chain.blocks[1:]) == {expected_block}
    if interval > 1:
        # the cost snapshot_reader documents: ceil(digest calls / batch_size) eth_calls
        # plus the block number's (which also reads serviceRegistry()); 6 digest calls
        # here (1 legacy, 2 x 2 Olas, 1 service)
        assert len(chain.blocks) == -(-6 // batch_size) + 1


def test_the_batch_call_is_try_block_and_aggregate_without_require_success() -> None:
    """Multicall2's ``tryBlockAndAggregate(false, calls)``, the calls in order.

    With ``false`` one failing call does not revert the whole batch.
    """
    calls = [
        block_number_call(MULTICALL),
        digest_query(0, mixed_sources()[0], 2).calls[0],
    ]
    data = encode_batch(calls)
    assert data[:4] == function_signature_to_4byte_selector(
        "tryBlockAndAggregate(bool,(address,bytes)[])"
    )
    require_success, entries = decode(["bool", "(address,bytes)[]"], data[4:])
    assert require_success is False
    assert [(t.lower(), bytes(d)) for t, d in entries] == [
        (MULTICALL, calldata("getBlockNumber()")),
        (LEGACY, calldata("getHashes(uint256)", 2)),
    ]


def test_a_return_that_is_not_multicall2s_names_the_parameter() -> None:
    """Garbage return data: the error says to check ``multicall2_address``."""
    with pytest.raises(RegistryDecodeError) as raised:
        decode_batch(b"\x01" * 7, 1)
    assert str(raised.value) == (
        "the Multicall2 return data does not decode; is multicall2_address right?"
    )


def test_a_reverted_supply_names_the_registry_and_what_to_check() -> None:
    """totalSupply() reverts (wrong kind at the address): the error names both."""
    chain = TableChain(
        27, {(MULTICALL, calldata("getBlockNumber()")): word("uint256", 27)}
    )
    sources = parse_registry_sources(
        [{"kind": "olas_agent_registry", "address": OLAS, "ids": "all"}], CHAIN
    )
    with pytest.raises(RegistryDecodeError) as raised:
        drive(snapshot_reader(sources, MULTICALL, 5, 100, 10), chain)
    assert str(raised.value) == (
        f"olas_agent_registry at {OLAS} reverted on totalSupply()/serviceRegistry(); "
        "check the address and kind in registries"
    )


def test_an_undecodable_digest_keeps_its_mech() -> None:
    """A digest return that does not decode is that mech's error, still named by its ref."""
    source = mixed_sources()[0]
    query = digest_query(0, source, 2)
    read = decode_digest_query(query, source, [(True, b"\x05")])
    assert (read.ref, read.digest, read.error) == (
        source.ref(2),
        "",
        "registry_return_undecodable",
    )


def test_digest_queries_skip_a_source_without_ids() -> None:
    """Only the sources given ids get queries, in source order."""
    sources = mixed_sources()
    queries = digest_queries(sources, {2: (1, 3)})
    assert [(q.source_index, q.mech_id) for q in queries] == [(2, 1), (2, 3)]


@pytest.mark.parametrize(
    "value, expected",
    [
        ({"from": 1, "to": 1}, IdSelection("range", start=1, end=1)),
        ({"from": "2", "to": 4}, IdSelection("range", start=2, end=4)),
        ([3, 1, 3], IdSelection("list", ids=(1, 3))),
        ((7,), IdSelection("list", ids=(7,))),
    ],
)
def test_id_selections_that_parse(value: Any, expected: IdSelection) -> None:
    """A range from 1 is valid; a list is sorted and without repeats."""
    assert parse_id_selection(value, "registries[0].ids") == expected


@pytest.mark.parametrize(
    "value, words",
    [
        (
            {"from": 0, "to": 5},
            "registries[0].ids range must satisfy 1 <= from <= to",
        ),
        (
            {"from": 1},
            "registries[0].ids must be {'from': <first id>, 'to': <last id>} with "
            "integers; got {'from': 1}",
        ),
        (
            {"from": "a", "to": 2},
            "registries[0].ids must be {'from': <first id>, 'to': <last id>} with "
            "integers",
        ),
    ],
)
def test_id_selections_that_do_not_parse(value: Any, words: str) -> None:
    """A range from 0, a range without its end, a range of words: named errors."""
    with pytest.raises(RegistryConfigError) as raised:
        parse_id_selection(value, "registries[0].ids")
    assert str(raised.value).startswith(words)


@pytest.mark.parametrize(
    "value, message",
    [
        ("0x" + "00" * 20, "registries must be a list of registries; got str"),
        (
            {"kind": "legacy_mech_registry", "address": LEGACY, "ids": [1]},
            "registries must be a list of registries; got dict",
        ),
        (["x"], "registries[0] must be a mapping with kind, address and ids"),
        (
            [{"kind": "mech", "address": LEGACY, "ids": [1]}],
            "registries[0].kind must be one of olas_agent_registry, "
            "legacy_mech_registry, complementary_service_metadata; got 'mech'",
        ),
        (
            [{"kind": "legacy_mech_registry", "address": "0xg" + "0" * 39}],
            "registries[0].address is not hex: '0xg" + "0" * 39 + "'",
        ),
        (
            [{"kind": "legacy_mech_registry", "address": "0x" + "0" * 39 + "g"}],
            "registries[0].address is not hex: '0x" + "0" * 39 + "g'",
        ),
    ],
)
def test_registry_sources_that_do_not_parse(value: Any, message: str) -> None:
    """Each malformed ``registries`` entry is refused with a sentence naming the field."""
    with pytest.raises(RegistryConfigError) as raised:
        parse_registry_sources(value, CHAIN)
    assert str(raised.value) == message
