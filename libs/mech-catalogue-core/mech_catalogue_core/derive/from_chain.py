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

"""From Olas agents (mechs) on chain to the arguments derived from their components' code.

One generator drives the whole path, so the skill's behaviour and the CLI do only I/O:

1. :func:`.chain.dependencies.dependency_reader`: ``getDependencies`` and the components'
   latest metadata digests, through Multicall2, pinned to one block;
2. each component's NFT metadata (a file on IPFS, checked against its digest with
   :func:`.ipfs.cid.verify`) -> ``code_uri``;
3. :func:`.code_uri.package_deriver` on the package directory, block by block, unless
   the :class:`DerivationCache` holds that CID's derivation (a CID's content never
   changes, so neither does its derivation: it is computed once, by every agent alike).

Requests yielded, each answered by ``gen.send(reply)``:

- ``("chain", (calls, block))`` -> ``(block, [(success, return data)])`` (Multicall2);
- ``("files", [cid, ...])`` -> ``{cid: bytes or None}`` (whole files, capped by the caller);
- ``("blocks", [cid, ...])`` -> ``{cid: raw block bytes or None}``.

Packages are read side by side (:func:`lockstep`): each step asks for the files and blocks
of every package still being read in one request, so packages whose blocks never arrive
cost one fetch timeout a step together, not one each (twelve registrations pointing at
unresolvable CIDs held the fetch round past its timeout every period, one after another).
"""

from typing import (
    Any,
    Dict,
    Generator,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
    TypeVar,
)

from mech_catalogue_core.chain.dependencies import (
    dependency_reader,
)
from mech_catalogue_core.chain.registry import (
    IdSelection,
    RegistrySource,
    decode_digest_query,
    digest_query,
)
from mech_catalogue_core.derive.code_uri import (
    CodeCaps,
    CodeDerivation,
    CodeReadError,
    code_uri_cid,
    normalise_cid,
    package_deriver,
)
from mech_catalogue_core.derive.merge import (
    ComponentDerivation,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    digest_to_cid,
    verify,
)
from mech_catalogue_core.model.problems import (
    CODE_FETCH_FAILED,
    CODE_OVER_CAPS,
    CODE_URI_MISSING,
    DERIVER_FAILED,
    error,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_OLAS_AGENT,
)
from mech_catalogue_core.ports import BlobStore

#: largest component metadata JSON kept by :class:`DerivationCache`
MAX_METADATA_BYTES = 64 * 1024

#: what :func:`code_arguments_reader` yields: (kind, payload); see the module docstring
CodeRequest = Tuple[str, Any]

#: request kinds :func:`lockstep` merges across readers (CID lists answered by CID)
_BY_CID = ("files", "blocks")

KeyT = TypeVar("KeyT")


def lockstep(
    readers: Mapping[KeyT, Generator[CodeRequest, Any, Any]],
) -> Generator[CodeRequest, Any, Dict[KeyT, Any]]:
    """Run code readers side by side: one ``files`` and one ``blocks`` request a step.

    Each step gathers the request every unfinished reader is waiting on; the ``files``
    and ``blocks`` ones go out as one request each (the union of their CIDs, sorted), and
    each reader gets the part of the reply it asked for; ``chain`` requests go out one by
    one, in the readers' order. What a reader returns does not depend on the others.

    :param readers: fresh code readers by key (``code_pointer_reader``, ``_component``,
        ``code_arguments_reader``...).
    :yield: ``("chain" | "files" | "blocks", payload)`` requests.
    :return: key -> what its reader returned, or the exception it raised (a reader's bug
        or a registry's decode error costs that reader only; the caller reports it).
    """
    results: Dict[KeyT, Any] = {}
    waiting: Dict[KeyT, CodeRequest] = {}

    def advance(key: KeyT, reply: Any) -> None:
        try:
            waiting[key] = readers[key].send(reply)
        except StopIteration as done:
            results[key] = done.value
        except Exception as exc:  # pylint: disable=broad-exception-caught
            results[key] = exc

    for key in readers:
        advance(key, None)
    while waiting:
        step, waiting = waiting, {}
        for kind in _BY_CID:
            keys = [key for key, (asked, _) in step.items() if asked == kind]
            if keys:
                union = sorted({cid for key in keys for cid in step[key][1]})
                reply = yield kind, union
                for key in keys:
                    advance(key, {cid: reply.get(cid) for cid in step[key][1]})
        for key, request in step.items():
            if request[0] not in _BY_CID:
                advance(key, (yield request))
    return results


#: problem codes of derivations that are derived again rather than kept
_NOT_KEPT = frozenset({CODE_FETCH_FAILED, DERIVER_FAILED})


def _metadata_name(digest: str) -> str:
    """Name the blob of a component's metadata: ``<hex>.metadata.json``."""
    return f"{digest[2:]}.metadata.json"


class DerivationCache:
    """Derivations by package CID, in memory and optionally in a store (``<cid>.json``).

    Also the components' metadata by digest (``<hex>.metadata.json``), so an
    unchanged component costs no IPFS request at all in a later period. Content-addressed
    like the manifest cache: an entry is never stale. Blobs that do not
    read back are ignored (derived again). Entries are keyed by what anyone registers, so
    :meth:`retain_used` drops those not asked for since its last call (a new package CID
    each period kept a derivation for ever).
    """

    def __init__(self, store: Optional[BlobStore] = None) -> None:
        """Initialise.

        :param store: where to keep them across restarts (the agent's: a folder under
            ``state_dir``); None for memory only.
        """
        self.store = store
        self._entries: Dict[str, CodeDerivation] = {}
        self._metadata: Dict[str, bytes] = {}
        self._used: Set[str] = set()  # CIDs and digests asked for since retain_used

    def get(self, cid: str) -> Optional[CodeDerivation]:
        """Return the cached derivation of a package CID.

        :param cid: the package directory's CID.
        :return: the derivation, or None.
        """
        self._used.add(cid)
        if cid in self._entries:
            return self._entries[cid]
        if self.store is None or not cid.isalnum():
            return None
        data = self.store.read(f"{cid}.json")
        try:
            found = CodeDerivation.from_json((data or b"").decode("utf-8"))
        except (ValueError, KeyError, TypeError):
            return None
        if found.cid != cid or any(p.code in _NOT_KEPT for p in found.problems):
            return None  # another CID's, or written by a version that kept failures
        self._entries[cid] = found
        return found

    def put(self, derivation: CodeDerivation) -> None:
        """Keep a derivation that depends on its CID's bytes alone.

        A fetch failure is tried again, and so is a deriver failure: an exception the
        deriver did not expect may come from this agent (memory, recursion limit, a
        library's version) rather than from the bytes, and kept for ever it would keep
        this agent's catalogue apart from the others'.

        :param derivation: the derivation.
        """
        if any(p.code in _NOT_KEPT for p in derivation.problems):
            return
        self._used.add(derivation.cid)
        self._entries[derivation.cid] = derivation
        if self.store is not None and derivation.cid.isalnum():
            self.store.write(
                f"{derivation.cid}.json", (derivation.to_json().encode("utf-8"),)
            )

    def metadata(self, digest: str) -> Optional[bytes]:
        """Return a component's verified metadata bytes kept by digest.

        :param digest: ``0x`` + 64 hex, the on-chain metadata digest.
        :return: the bytes (checked against the digest again), or None.
        """
        self._used.add(digest)
        if digest in self._metadata:
            return self._metadata[digest]
        if self.store is None or not _is_digest(digest):
            return None
        data = self.store.read(_metadata_name(digest), cap=MAX_METADATA_BYTES + 1)
        if (
            data is None
            or len(data) > MAX_METADATA_BYTES
            or not verify(data, digest).ok
        ):
            return None
        self._metadata[digest] = data
        return data

    def put_metadata(self, digest: str, data: bytes) -> None:
        """Keep a component's metadata bytes (already verified against ``digest``).

        :param digest: ``0x`` + 64 hex.
        :param data: the bytes (kept only up to :data:`MAX_METADATA_BYTES`).
        """
        if len(data) > MAX_METADATA_BYTES or not _is_digest(digest):
            return
        self._used.add(digest)
        self._metadata[digest] = data
        if self.store is not None:
            self.store.write(_metadata_name(digest), (data,))

    def retain_used(self) -> int:
        """Drop the derivations and metadata neither asked for nor kept since the last call.

        Called once a period after the code readers ran: what the catalogue still points
        at was asked for (and is kept); what nothing points at any more goes.

        :return: how many entries were dropped.
        """
        dropped = [cid for cid in self._entries if cid not in self._used]
        for cid in dropped:
            del self._entries[cid]
            self._remove(f"{cid}.json" if cid.isalnum() else "")
        gone = [digest for digest in self._metadata if digest not in self._used]
        for digest in gone:
            del self._metadata[digest]
            self._remove(_metadata_name(digest) if _is_digest(digest) else "")
        self._used = set()
        return len(dropped) + len(gone)

    def _remove(self, name: str) -> None:
        if self.store is not None and name:
            self.store.remove(name)  # False: never written, or already gone

    def __len__(self) -> int:
        """Return how many derivations are held in memory.

        :return: the count.
        """
        return len(self._entries)


def _is_digest(text: str) -> bool:
    return (
        len(text) == 66
        and text.startswith("0x")
        and all(c in "0123456789abcdef" for c in text[2:])
    )


def code_arguments_reader(  # pylint: disable=too-many-arguments,too-many-locals
    agent_registry: str,
    chain_id: int,
    agent_ids: Sequence[int],
    block: int,
    cache: DerivationCache,
    caps: CodeCaps = CodeCaps(),
    batch_size: int = 50,
) -> Generator[CodeRequest, Any, Dict[int, List[ComponentDerivation]]]:
    """Derive, for each agent, the arguments its components' code declares.

    :param agent_registry: the Olas AgentRegistry address.
    :param chain_id: its chain id.
    :param agent_ids: agents whose manifests leave tools untyped.
    :param block: the block chain reads are pinned to (the agreed snapshot's).
    :param cache: derivations by package CID (read first, filled after).
    :param caps: bounds on the code read; ``max_packages`` components per agent.
    :param batch_size: most calls per Multicall2 ``eth_call``.
    :yield: ``("chain" | "files" | "blocks", payload)`` requests.
    :return: agent id -> ``[(component id, derivation)]``; a component that cannot be
        followed has a derivation without package whose problem says why. The
        dependency reader's RegistryDecodeError (an AgentRegistry that does not answer
        ``componentRegistry()``) propagates.
    """
    reader = dependency_reader(
        agent_registry, chain_id, agent_ids, block, batch_size, caps.max_packages + 1
    )
    try:
        request = next(reader)
        while True:
            request = reader.send((yield "chain", request))
    except StopIteration as done:
        components = done.value
    out: Dict[int, List[ComponentDerivation]] = {a: [] for a in components}
    digests = sorted(
        {c.digest for cs in components.values() for c in cs[: caps.max_packages]} - {""}
    )
    metadata: Dict[str, Optional[bytes]] = {d: cache.metadata(d) for d in digests}
    cids = {d: digest_to_cid(d, DAG_PB) for d in digests if metadata[d] is None}
    if cids:
        files = yield "files", sorted(cids.values())
        for digest, cid in cids.items():
            data = files.get(cid)
            if data is not None and verify(data, digest).ok:
                metadata[digest] = data
                cache.put_metadata(digest, data)
    wanted = {
        c.component_id: c for cs in components.values() for c in cs[: caps.max_packages]
    }
    derived = yield from lockstep(
        {
            component_id: _component(
                component_id,
                metadata.get(component.digest),
                component.digest,
                cache,
                caps,
            )
            for component_id, component in sorted(wanted.items())
        }
    )
    package_of = {
        component_id: _raised_as_problem(result, f"component {component_id}")
        for component_id, result in derived.items()
    }
    for agent, listed in components.items():
        if len(listed) > caps.max_packages:
            out[agent].append(
                (
                    0,
                    CodeDerivation(
                        "",
                        None,
                        (
                            error(
                                CODE_OVER_CAPS,
                                f"agent {agent} depends on more than {caps.max_packages} "
                                "components; only the first are read.",
                            ),
                        ),
                    ),
                )
            )
        for component in listed[: caps.max_packages]:
            out[agent].append(
                (component.component_id, package_of[component.component_id])
            )
    return out


def _raised_as_problem(result: Any, where: str) -> CodeDerivation:
    """A reader's derivation, or ``deriver_failed`` for the exception it raised instead.

    :param result: what :func:`lockstep` returned for the reader.
    :param where: names the component in the message.
    :return: the derivation.
    """
    if isinstance(result, CodeDerivation):
        return result
    return CodeDerivation(
        "",
        None,
        (
            error(
                DERIVER_FAILED,
                f"{where}: the code deriver failed ({type(result).__name__}); nothing "
                "was derived from it. Report this component.",
            ),
        ),
    )


def component_code_reader(  # pylint: disable=too-many-arguments
    component_registry: str,
    chain_id: int,
    component_id: int,
    block: int,
    cache: DerivationCache,
    caps: CodeCaps = CodeCaps(),
) -> Generator[CodeRequest, Any, CodeDerivation]:
    """Derive the arguments of one ComponentRegistry component's code.

    Its latest metadata digest (``getUpdatedHashes``, else ``mapUnits``, as for an
    agent), then its NFT metadata (verified against the digest), its ``code_uri`` and the
    package directory, as :func:`code_arguments_reader` does for each dependency.

    :param component_registry: the Olas ComponentRegistry address.
    :param chain_id: its chain id.
    :param component_id: the component id.
    :param block: the block the digest read is pinned to.
    :param cache: derivations by package CID (read first, filled after).
    :param caps: bounds on the code read.
    :yield: ``("chain" | "files" | "blocks", payload)`` requests.
    :return: the derivation; without package when the component cannot be followed (no
        digest, metadata not fetched or not matching it, no ``ipfs://`` code_uri),
        its problem saying why.
    """
    source = RegistrySource(
        REGISTRY_OLAS_AGENT, chain_id, component_registry, IdSelection("list", ())
    )
    query = digest_query(0, source, component_id)
    _, results = yield "chain", (list(query.calls), block)
    digest = decode_digest_query(query, source, results).digest
    metadata = cache.metadata(digest) if digest else None
    if digest and metadata is None:
        cid = digest_to_cid(digest, DAG_PB)
        files = yield "files", [cid]
        data = files.get(cid)
        if data is not None and verify(data, digest).ok:
            metadata = data
            cache.put_metadata(digest, data)
    return (yield from _component(component_id, metadata, digest, cache, caps))


def _component(
    component_id: int,
    metadata: Optional[bytes],
    digest: str,
    cache: DerivationCache,
    caps: CodeCaps,
) -> Generator[CodeRequest, Any, CodeDerivation]:
    where = f"component {component_id}"
    if not digest or metadata is None:
        what = (
            "metadata hash is missing"
            if not digest
            else "metadata could not be fetched or does not match its hash"
        )
        return CodeDerivation(
            "",
            None,
            (error(CODE_FETCH_FAILED, f"{where}: its {what}; nothing derived."),),
        )
    try:
        cid = code_uri_cid(metadata, where)
    except CodeReadError as exc:
        return CodeDerivation("", None, (exc.problem,))
    return (yield from _package(cid, cache, caps))


def code_pointer_reader(
    code_uri: str, where: str, cache: DerivationCache, caps: CodeCaps = CodeCaps()
) -> Generator[CodeRequest, Any, CodeDerivation]:
    """Derive from the code pointer a mech's own metadata carries.

    For the legacy mech registry and ComplementaryServiceMetadata, whose entries have no
    dependency list: a top-level ``code_uri`` of ``ipfs://<CID>`` in the manifest.

    :param code_uri: the pointer (``ipfs://<CID>``).
    :param where: names the mech in messages.
    :param cache: derivations by package CID.
    :param caps: bounds on the code read.
    :yield: ``("blocks", [cid, ...])`` requests.
    :return: the derivation (``code_uri_missing`` when the pointer is not an IPFS CID).
    """
    if not code_uri.startswith("ipfs://"):
        return CodeDerivation(
            "",
            None,
            (
                error(
                    CODE_URI_MISSING,
                    f"{where}: code_uri {code_uri[:80]!r} is not ipfs://CID; "
                    "only IPFS package directories are followed.",
                    "/code_uri",
                ),
            ),
        )
    try:
        cid = normalise_cid(code_uri, where)
    except CodeReadError as exc:
        return CodeDerivation("", None, (exc.problem,))
    return (yield from _package(cid, cache, caps))


def _package(
    cid: str, cache: DerivationCache, caps: CodeCaps
) -> Generator[CodeRequest, Any, CodeDerivation]:
    cached = cache.get(cid)
    if cached is not None:
        return cached
    deriver = package_deriver(cid, caps)
    try:
        request = next(deriver)
        while True:
            request = deriver.send((yield "blocks", request))
    except StopIteration as done:
        derivation: CodeDerivation = done.value
        cache.put(derivation)
        return derivation
