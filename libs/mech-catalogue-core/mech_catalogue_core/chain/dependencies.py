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

"""Which components an Olas agent depends on, and their latest metadata digests.

Olas AgentRegistry (autonolas-registries ``AgentRegistry.sol``, ABI 0.8.15):
``componentRegistry()`` is the ComponentRegistry's address and
``getDependencies(agentId) -> (uint256 numDependencies, uint32[] dependencies)`` the
component ids an agent was created with. A component's latest metadata digest is read
like an agent's (``getUpdatedHashes(id)``'s last, else ``mapUnits(id)``'s unit hash:
:func:`.registry.digest_query`), since both registries are UnitRegistry contracts. The
digest is the sha2-256 of the component's NFT metadata JSON, whose ``code_uri`` points to
the tool package (:mod:`..derive.code_uri`).

Framework-free like :mod:`.registry`: :func:`dependency_reader` yields Multicall2 batches
(``(calls, block)``, the same :data:`.registry.BatchRequest` the snapshot reader yields)
and is sent ``(block, [(success, return data)])``; every read is pinned to one block, so
agents reading the agreed block get the same components.
"""

from dataclasses import dataclass
from typing import Dict, Generator, List, Sequence, Tuple

from mech_catalogue_core.chain.registry import (
    BatchReply,
    BatchRequest,
    Call,
    IdSelection,
    RegistryDecodeError,
    RegistrySource,
    chunks,
    decode_digest_query,
    digest_query,
    encode_call,
    flatten,
    split_results,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_OLAS_AGENT,
)


@dataclass(frozen=True)
class Component:
    """One component an agent depends on.

    :param component_id: its id in the ComponentRegistry.
    :param digest: ``0x`` + 64 hex of its latest metadata digest ("" when none or unreadable).
    """

    component_id: int
    digest: str


def _dependencies_call(agent_registry: str, agent_id: int) -> Call:
    return encode_call(
        agent_registry,
        "getDependencies(uint256)",
        ("uint256",),
        (agent_id,),
        ("uint256", "uint32[]"),
    )


def dependency_reader(  # pylint: disable=too-many-locals
    agent_registry: str,
    chain_id: int,
    agent_ids: Sequence[int],
    block: int,
    batch_size: int,
    max_components: int,
) -> Generator[BatchRequest, BatchReply, Dict[int, Tuple[Component, ...]]]:
    """Read the components of agents and their latest digests, at one block.

    Costs ``1 + ceil(agents / batch_size)`` + ``ceil(2 * components / batch_size)``
    ``eth_call``s: ``componentRegistry()`` with the first agents' dependencies, the other
    dependencies, then two digest calls per distinct component.

    :param agent_registry: the AgentRegistry address.
    :param chain_id: its chain (for the component refs).
    :param agent_ids: the agents (mechs) whose tools lack typed arguments.
    :param block: the block every call is pinned to (the agreed snapshot's).
    :param batch_size: most calls per ``eth_call`` (>= 2).
    :param max_components: most components followed per agent (the first ids listed);
        the rest are dropped (the caller reports it).
    :yield: ``(calls, block)`` batches for Multicall2 ``tryBlockAndAggregate``.
    :return: agent id -> its components (in the registry's order, capped); an agent whose
        dependencies cannot be read maps to ``()``.
    :raises RegistryDecodeError: when ``componentRegistry()`` cannot be read.
    """
    agents = list(dict.fromkeys(agent_ids))
    registry_call = encode_call(
        agent_registry, "componentRegistry()", (), (), ("address",)
    )
    calls = [_dependencies_call(agent_registry, a) for a in agents]
    batches = chunks(calls, max(1, batch_size - 1)) or [[]]
    results: List[Tuple[bool, bytes]] = []
    _, first = yield [registry_call] + batches[0], block
    ok, data = first[0]
    if not ok:
        raise RegistryDecodeError(
            f"componentRegistry() of {agent_registry} failed; is it an Olas AgentRegistry?"
        )
    component_registry = str(registry_call.decode(data)[0]).lower()
    results.extend(first[1:])
    for batch in batches[1:]:
        _, reply = yield batch, block
        results.extend(reply)
    ids_of: Dict[int, Tuple[int, ...]] = {}
    for agent, call, (ok, data) in zip(agents, calls, results):
        try:
            ids_of[agent] = (
                tuple(int(i) for i in call.decode(data)[1])[:max_components]
                if ok
                else ()
            )
        except RegistryDecodeError:
            ids_of[agent] = ()
    source = RegistrySource(
        REGISTRY_OLAS_AGENT, chain_id, component_registry, IdSelection("list", ())
    )
    component_ids = sorted({i for ids in ids_of.values() for i in ids})
    queries = [digest_query(0, source, i) for i in component_ids]
    flat: List[Tuple[bool, bytes]] = []
    for batch in chunks(flatten(queries), max(1, batch_size)):
        _, reply = yield batch, block
        flat.extend(reply)
    digests = {
        q.mech_id: decode_digest_query(q, source, r).digest
        for q, r in zip(queries, split_results(queries, flat))
    }
    return {
        agent: tuple(Component(i, digests.get(i, "")) for i in ids)
        for agent, ids in ids_of.items()
    }
