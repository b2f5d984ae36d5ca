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

"""``derive`` on a tool package directory on IPFS: a CID or ``ipfs://<CID>``.

Reads the directory block by block through an IPFS gateway (``/ipfs/<cid>?format=raw``,
:func:`.adapters.ipfs.raw_block`);
every block is checked against its CID by
:func:`mech_catalogue_core.derive.code_uri.package_deriver`.

``derive --agent N`` / ``--component N`` start on chain: :func:`derive_from_chain` drives
the skill's own generators (``mech_catalogue_core/derive/from_chain.py``): each Multicall2 batch is one
JSON-RPC ``eth_call`` (:mod:`.adapters.jsonrpc`), component metadata files come from the gateway (verified against
their on-chain digest), package blocks as above.
"""

import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Callable, Dict, Generator, List, Optional, Sequence, Tuple

from mech_catalogue_core.chain.registry import (
    ChainReadError,
    RegistryDecodeError,
    decode_batch,
    encode_batch,
)
from mech_catalogue_core.derive.code_uri import (
    CodeCaps,
    CodeDerivation,
    CodeReadError,
    normalise_cid,
    package_deriver,
)
from mech_catalogue_core.derive.from_chain import (
    MAX_METADATA_BYTES,
    CodeRequest,
    DerivationCache,
    code_arguments_reader,
    code_pointer_reader,
    component_code_reader,
    lockstep,
)
from mech_catalogue_core.derive.merge import (
    ComponentDerivation,
    MechKey,
    merge_derivations,
    plan_derivation,
)
from mech_catalogue_core.driver import drive
from mech_catalogue_core.ipfs.cid import (
    looks_like_cid,
    strip_cid,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)

from mech_catalogue_cli.adapters.http import Session, new_session
from mech_catalogue_cli.adapters.ipfs import gateway_get, raw_block
from mech_catalogue_cli.adapters.jsonrpc import JsonRpc, block_number
from mech_catalogue_cli.adapters.jsonrpc import chain_id as read_chain_id
from mech_catalogue_cli.adapters.jsonrpc import eth_call
from mech_catalogue_cli.mcp_server.node_words import chain_read_said

#: package blocks and metadata files one catalogue read fetches at once
CODE_FETCH_CONCURRENCY = 32
#: fetch timeouts all the code reads of one catalogue read may take together: a
#: package is a directory block, then its files' blocks, then their chunks' blocks
CODE_READ_BUDGET_TIMEOUTS = 4


def fetched_side_by_side(
    fetch: Callable[[str], Optional[bytes]], cids: Sequence[str], budget: float
) -> Dict[str, Optional[bytes]]:
    """Fetch CIDs at once (:data:`CODE_FETCH_CONCURRENCY`), all under one budget.

    :param fetch: CID -> its bytes, or None (a blocking call bounded by its own timeout).
    :param cids: the CIDs to fetch.
    :param budget: seconds for all of them together (<= 0: none is fetched).
    :return: CID -> bytes, or None for a CID that failed, raised, or had not arrived
        when the budget ran out (its fetch ends at its own timeout, unread).
    """
    if not cids or budget <= 0:
        return {cid: None for cid in cids}
    pool = ThreadPoolExecutor(
        max_workers=min(len(cids), CODE_FETCH_CONCURRENCY), thread_name_prefix="code"
    )
    try:
        futures = {pool.submit(fetch, cid): cid for cid in cids}
        done, _ = wait(futures, timeout=budget)
        return {
            cid: (
                future.result()
                if future in done and future.exception() is None
                else None
            )
            for future, cid in futures.items()
        }
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def is_code_uri(source: str) -> bool:
    """Tell whether a ``derive`` argument names IPFS content rather than a folder.

    :param source: the argument.
    :return: True for ``ipfs://...`` or a bare CID that is not an existing path.
    """
    if source.startswith(("ipfs://", "/ipfs/")):
        return True
    return not Path(source).exists() and looks_like_cid(strip_cid(source))


def derive_code_uri(source: str, gateway: str, timeout: float) -> CodeDerivation:
    """Derive the arguments of the tool package directory at a CID.

    :param source: a CID, ``ipfs://<CID>`` or ``/ipfs/<CID>``.
    :param gateway: the gateway base URL.
    :param timeout: seconds per block request.
    :return: the derivation (its problems say what failed); ``normalise_cid``'s
        CodeReadError propagates when ``source`` is not a CID.
    """
    cid = normalise_cid(source, source)
    caps, session = CodeCaps(), new_session()
    deriver = package_deriver(cid, caps)
    try:
        request = next(deriver)
        while True:
            reply: Dict[str, Optional[bytes]] = {
                c: raw_block(session, gateway, c, timeout, caps.max_block_bytes)
                for c in request
            }
            request = deriver.send(reply)
    except StopIteration as done:
        return done.value


def derive_from_chain(  # pylint: disable=too-many-arguments,too-many-locals
    rpc_url: str,
    multicall: str,
    registry: str,
    unit: str,
    unit_id: int,
    gateway: str,
    timeout: float,
) -> List[ComponentDerivation]:
    """Derive the arguments of an Olas agent's components, or of one component.

    :param rpc_url: the chain's JSON-RPC URL.
    :param multicall: the Multicall2 address there.
    :param registry: the AgentRegistry (``unit="agent"``) or ComponentRegistry
        (``unit="component"``) address.
    :param unit: ``agent`` or ``component``.
    :param unit_id: its id.
    :param gateway: the IPFS gateway base URL.
    :param timeout: seconds per request.
    :return: ``[(component id, derivation)]`` (one item for a component); a derivation
        without package carries the problem saying why. ChainReadError (the RPC
        cannot be read: transport, revert, wrong chain) and RegistryDecodeError (an
        AgentRegistry that does not answer ``componentRegistry()``) propagate.
    """
    session = new_session()
    rpc = JsonRpc(rpc_url, timeout, session)
    chain_id, block = read_chain_id(rpc), block_number(rpc)
    cache, caps = DerivationCache(), CodeCaps()
    reader: Generator[Any, Any, Any]
    if unit == "agent":
        reader = code_arguments_reader(
            registry, chain_id, [unit_id], block, cache, caps
        )
    else:
        reader = component_code_reader(registry, chain_id, unit_id, block, cache, caps)
    result: Any = drive(
        reader, _answerer(session, rpc_url, multicall, gateway, timeout, caps)
    )
    if unit == "agent":
        return list(result.get(unit_id, []))
    return [(unit_id, result)]


def _answerer(  # pylint: disable=too-many-arguments,too-many-positional-arguments
    session: Session,
    rpc_url: str,
    multicall: str,
    gateway: str,
    timeout: float,
    caps: CodeCaps,
    deadline: float = float("inf"),
) -> Callable[[CodeRequest], Any]:
    """Answer the code readers' requests with blocking calls (one eth_call per batch).

    A request's CIDs are fetched side by side (:func:`fetched_side_by_side`), within
    ``timeout`` together and never past ``deadline``: a package nobody provides costs
    its round one timeout, however many are asked for with it.

    :param session: the HTTP session of the chain calls.
    :param rpc_url: the chain's JSON-RPC URL.
    :param multicall: the Multicall2 address there.
    :param gateway: the IPFS gateway base URL.
    :param timeout: seconds per request, and per round of fetches.
    :param caps: bounds on the code read.
    :param deadline: ``time.monotonic()`` after which nothing more is fetched.
    :return: request -> reply.
    """
    rpc = JsonRpc(rpc_url, timeout, session)
    local = threading.local()  # one HTTP session per fetching thread

    def fetching_session() -> Session:
        if not hasattr(local, "session"):
            local.session = new_session()
        return local.session

    def file(cid: str) -> Optional[bytes]:
        return gateway_get(
            fetching_session(), gateway, cid, timeout, MAX_METADATA_BYTES
        )[0]

    def block(cid: str) -> Optional[bytes]:
        return raw_block(
            fetching_session(), gateway, cid, timeout, caps.max_block_bytes
        )

    def answer(request: CodeRequest) -> Any:
        kind, payload = request
        if kind == "chain":
            calls, at = payload
            data = eth_call(rpc, multicall, encode_batch(calls), at)
            return decode_batch(data, len(calls))
        budget = min(timeout, deadline - time.monotonic())
        return fetched_side_by_side(file if kind == "files" else block, payload, budget)

    return answer


def derive_catalogue(  # pylint: disable=too-many-arguments,too-many-positional-arguments
    catalogue: Catalogue,
    rpc_url: str,
    multicall: str,
    gateway: str,
    timeout: float,
    block: int,
    cache: Optional[DerivationCache] = None,
) -> Tuple[Catalogue, List[str]]:
    """Type a catalogue's untyped tools from their code, as the skill's behaviour does.

    The same plan and merge (``domain.derive.merge.plan_derivation`` /
    ``merge_derivations``) and the same readers (``domain.derive.from_chain``) as
    ``FetchManifestsBehaviour.derive_code_arguments``: the ``code_uri`` packages are read
    side by side (``lockstep``), each round's CIDs fetched at once, all of it within
    :data:`CODE_READ_BUDGET_TIMEOUTS` fetch timeouts (adv29v: one after another,
    twelve dead packages cost twelve timeouts a read). Derivations are kept in
    ``cache`` by package CID (content-addressed: the same CID derives the same
    arguments) and the cache keeps only what this read asked for
    (``DerivationCache.retain_used``); a failed fetch is not kept, so it is tried again
    at the next read.

    :param catalogue: the catalogue built from the manifests.
    :param rpc_url: the chain's JSON-RPC URL.
    :param multicall: the Multicall2 address there.
    :param gateway: the IPFS gateway base URL.
    :param timeout: seconds per request.
    :param block: the block chain reads are pinned to (the snapshot's).
    :param cache: derivations kept between reads (None: this read's own).
    :return: the catalogue with derived arguments merged in, and one sentence per
        AgentRegistry whose components could not be read, or code pointer whose reader
        failed (those mechs are kept as they are).
    """
    cache = DerivationCache() if cache is None else cache
    plan = plan_derivation(catalogue)
    if not plan.pointers and not plan.agents:
        cache.retain_used()
        return catalogue, []
    caps = CodeCaps()
    deadline = time.monotonic() + CODE_READ_BUDGET_TIMEOUTS * timeout
    answer = _answerer(
        new_session(), rpc_url, multicall, gateway, timeout, caps, deadline
    )
    pointed = drive(
        lockstep(
            {
                key: code_pointer_reader(pointer, where, cache, caps)
                for key, pointer, where in plan.pointers
            }
        ),
        answer,
    )
    found: Dict[MechKey, List[ComponentDerivation]] = {}
    unread: List[str] = []
    for key, derived in pointed.items():
        if isinstance(derived, Exception):
            unread.append(f"code_uri of {key} not derived: {derived}")
        else:
            found[key] = [(0, derived)]
    for (chain_id, registry), agent_ids in plan.agents:
        try:
            derived = drive(
                code_arguments_reader(
                    registry, chain_id, agent_ids, block, cache, caps
                ),
                answer,
            )
        except (ChainReadError, RegistryDecodeError) as exc:
            unread.append(
                f"component code of {registry} not read: {chain_read_said(str(exc), '')}"
            )
            continue
        found.update(
            ((chain_id, registry, agent), components)
            for agent, components in derived.items()
        )
    cache.retain_used()
    return merge_derivations(catalogue, found), unread


__all__ = [
    "CodeReadError",
    "derive_catalogue",
    "derive_code_uri",
    "derive_from_chain",
    "is_code_uri",
]
