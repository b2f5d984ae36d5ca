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

"""The reads sent before a supply is known: which ids each batch guesses, and what it costs.

``snapshot_reader`` sends ids with the ``serviceRegistry()`` / ``totalSupply()`` reads,
guessing from where the last batch stopped, and stops guessing for a source whose last
id read had no hash. Found by mutation testing (issue 18): the results stay right however
the guesses go (missing ids are read afterwards), so only the batches sent show a wrong
count of ids read, a source never marked read past its end, or one never unmarked; and
a reverted ``serviceRegistry()`` in the block-number batch was in no test.
"""

from typing import AbstractSet, Dict, List, Tuple

import pytest
from mech_catalogue_core.chain.registry import (
    RegistryDecodeError,
    parse_registry_sources,
    snapshot_reader,
)
from mech_catalogue_core.driver import drive
from mech_catalogue_core.tests.chain.test_registry_edges import (
    CHAIN,
    CSM,
    MULTICALL,
    SERVICES,
    TableChain,
    calldata,
    word,
)

HEAD = 27


def service_chain(
    supply: int, without_hash: AbstractSet[int] = frozenset()
) -> TableChain:
    """A ComplementaryServiceMetadata whose ServiceRegistry holds ``supply`` services.

    :param supply: the services' count; ids past it (up to 4x) read a zero hash, as
        the contract's mapping does.
    :param without_hash: ids within the supply that never set a hash.
    :return: the chain, head at block 27.
    """
    answers: Dict[Tuple[str, bytes], bytes] = {
        (MULTICALL, calldata("getBlockNumber()")): word("uint256", HEAD),
        (CSM, calldata("serviceRegistry()")): word("address", SERVICES),
        (SERVICES, calldata("totalSupply()")): word("uint256", supply),
    }
    for mech_id in range(1, 4 * supply + 1):
        value = (
            bytes(32)
            if mech_id > supply or mech_id in without_hash
            else digest(mech_id)
        )
        answers[(CSM, calldata("mapServiceHashes(uint256)", mech_id))] = word(
            "bytes32", value
        )
    return TableChain(HEAD, answers)


def digest(mech_id: int) -> bytes:
    """The hash service ``mech_id`` set.

    :param mech_id: the id.
    :return: 32 bytes.
    """
    return mech_id.to_bytes(32, "big")


def read(chain: TableChain, batch_size: int, interval: int = 1):
    """Read every id of the one source, recording each batch's calldata.

    :param chain: the chain.
    :param batch_size: digest calls per batch.
    :param interval: the snapshot block interval.
    :return: ``(reads, batches)``: the reads, and per batch the (target, calldata) pairs.
    """
    batches: List[List[Tuple[str, bytes]]] = []

    def answer(request):
        batches.append([(c.target.lower(), bytes(c.data)) for c in request[0]])
        return chain(request)

    sources = parse_registry_sources(
        [{"kind": "complementary_service_metadata", "address": CSM, "ids": "all"}],
        CHAIN,
    )
    _, reads = drive(
        snapshot_reader(sources, MULTICALL, batch_size, 1000, interval), answer
    )
    return reads, batches


def ids_of(batch: List[Tuple[str, bytes]]) -> List[int]:
    """The service ids whose hash a batch reads.

    :param batch: (target, calldata) pairs.
    :return: the ids, in order.
    """
    selector = calldata("mapServiceHashes(uint256)", 0)[:4]
    return [
        int.from_bytes(data[4:], "big") for _, data in batch if data[:4] == selector
    ]


def test_each_guessed_batch_continues_where_the_last_stopped() -> None:
    """Supply 8 in batches of 4: ids 1-4 ride with serviceRegistry(), 5-8 with totalSupply(); 2 calls."""
    reads, batches = read(service_chain(8), 4)
    assert [ids_of(b) for b in batches] == [[1, 2, 3, 4], [5, 6, 7, 8]]
    assert [r.digest for r in reads] == ["0x" + digest(i).hex() for i in range(1, 9)]


def test_a_source_read_past_its_end_is_not_guessed_again() -> None:
    """Supply 3, batches of 5: ids 4 and 5 had no hash, so the totalSupply() batch guesses none."""
    reads, batches = read(service_chain(3), 5)
    assert [ids_of(b) for b in batches] == [[1, 2, 3, 4, 5], []]
    assert len(batches[1]) == 1  # totalSupply() alone
    assert [r.ref.mech_id for r in reads] == [1, 2, 3]


def test_a_gap_before_the_last_id_does_not_stop_the_guessing() -> None:
    """Id 2 never set a hash but id 4 did: the next batch still guesses 5-8; 2 calls."""
    reads, batches = read(service_chain(8, without_hash={2}), 4)
    assert [ids_of(b) for b in batches] == [[1, 2, 3, 4], [5, 6, 7, 8]]
    assert [r.digest for r in reads][:3] == [
        "0x" + digest(1).hex(),
        "",
        "0x" + digest(3).hex(),
    ]


def test_a_reverted_service_registry_in_the_block_number_batch_names_the_registry() -> (
    None
):
    """serviceRegistry() reverts in the first call (interval 10): the error names kind and address."""
    chain = service_chain(2)
    del chain.answers[(CSM, calldata("serviceRegistry()"))]
    with pytest.raises(RegistryDecodeError) as raised:
        read(chain, 4, interval=10)
    assert str(raised.value) == (
        f"complementary_service_metadata at {CSM} reverted on "
        "totalSupply()/serviceRegistry(); check the address and kind in registries"
    )
