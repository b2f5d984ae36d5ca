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

"""Multicall2.aggregate over the three registry kinds returns what direct calls return."""

from eth_abi import decode


def test_aggregate_reads_every_registry_kind(devnet):
    """One eth_call for Olas tokenURI + getUpdatedHashes, legacy getHashes, CSM mapServiceHashes."""
    agents = devnet.contract("AgentRegistry")
    legacy = devnet.contract("LegacyMechAgentRegistry")
    metadata = devnet.contract("ComplementaryServiceMetadata")
    reads = [
        (agents, "tokenURI", [1], ["string"]),
        (agents, "getUpdatedHashes", [1], ["uint256", "bytes32[]"]),
        (legacy, "getHashes", [1], ["uint256", "bytes32[]"]),
        (metadata, "mapServiceHashes", [2], ["bytes32"]),
        (agents, "totalSupply", [], ["uint256"]),
    ]
    calls = [(c.address, c.encode_abi(name, args=args)) for c, name, args, _ in reads]
    block, results = devnet.contract("Multicall2").functions.aggregate(calls).call()
    assert block == devnet.w3.eth.block_number
    for (contract, name, args, types), data in zip(reads, results):
        decoded = [list(v) if isinstance(v, tuple) else v for v in decode(types, data)]
        direct = getattr(contract.functions, name)(*args).call()
        assert decoded == (direct if isinstance(direct, list) else [direct])


def test_try_aggregate_reports_a_failing_call_without_failing_the_batch(devnet):
    """tryAggregate(false, ...) marks a reverting read (legacy getHashes of an unknown id) as failed."""
    legacy = devnet.contract("LegacyMechAgentRegistry")
    calls = [
        (legacy.address, legacy.encode_abi("getHashes", args=[1])),
        (legacy.address, legacy.encode_abi("getHashes", args=[999])),
    ]
    (ok_first, _), (ok_second, _) = (
        devnet.contract("Multicall2").functions.tryAggregate(False, calls).call()
    )
    assert ok_first is True and ok_second is False
