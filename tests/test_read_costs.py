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

from typing import Any, List, Optional, Tuple

import pytest
from eth_abi import encode

from packages.mech_catalogue.skills.tool_metadata_abci.domain.chain.registry import (
    Call,
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
