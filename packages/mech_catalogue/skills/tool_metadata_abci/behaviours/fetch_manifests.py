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

"""FetchManifestsBehaviour: fetch, verify and parse manifests; send the catalogue digest."""

import time
from typing import Any, Callable, Dict, Generator, List, Optional, Sequence, Tuple

from mech_catalogue_core.catalogue.arrivals import (
    ParseOnArrival,
)
from mech_catalogue_core.catalogue.fetching import (
    FetchPolicy,
    FetchResult,
    fetch_ranks,
    manifest_fetcher,
    pack_reply,
    refresh_catalogue,
    still_failing,
    unpack,
)
from mech_catalogue_core.catalogue.views import (
    IncumbentViews,
    views_chunks,
    views_digest,
    views_document,
)
from mech_catalogue_core.chain.registry import (
    ChainReadError,
    RegistryDecodeError,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.derive.code_uri import (
    CodeCaps,
)
from mech_catalogue_core.derive.from_chain import (
    code_arguments_reader,
    code_pointer_reader,
    lockstep,
)
from mech_catalogue_core.derive.merge import (
    ComponentDerivation,
    MechKey,
    merge_derivations,
    plan_derivation,
)
from mech_catalogue_core.driver import (
    after_backoff_yielding,
    drive_yielding,
)
from mech_catalogue_core.ipfs.gateways import (
    FetchWindow,
    GatewayPolicy,
    GatewayPool,
)
from mech_catalogue_core.ipfs.size_cap import (
    gateway_body,
    header,
    range_header,
    read_limit,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Manifest,
)
from mech_catalogue_core.model.limits import Limits
from mech_catalogue_core.model.problems import (
    Problem,
)

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.base import (
    ToolMetadataBaseBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.models import (
    FETCH_VIA_GATEWAY,
)
from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    VIEWS_CHUNK_CHARS,
    CataloguePayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.fetch_manifests import (
    FetchManifestsRound,
)
from packages.valory.protocols.ipfs import IpfsMessage

#: fetch failures logged one by one per period (the rest are counted)
MAX_LOGGED_FAILURES = 20


class FetchManifestsBehaviour(
    ToolMetadataBaseBehaviour
):  # pylint: disable=too-many-ancestors
    """Build the catalogue from the agreed snapshot and send its digest."""

    matching_round = FetchManifestsRound

    def async_act(self) -> Generator:
        """Fetch what the cache lacks, build the catalogue, keep it as this agent's candidate, agree.

        The snapshot is this agent's own, looked up by the agreed digest, or read again at
        the agreed block when this agent does not hold it; an agent that still cannot
        reproduce it sends an empty payload and logs why. ``FetchManifestsRound``
        exposes the candidate when the agents agree on its digest.

        :yield: while waiting for the ledger connection, IPFS and Tendermint.
        """
        with self.context.benchmark_tool.measure(self.behaviour_id).local():
            snapshot = yield from self.agreed_snapshot()
            catalogue: Optional[Catalogue] = None
            afresh = self.skill_state.read_afresh()
            if afresh:
                self.context.logger.warning(
                    "this agent's last catalogue was not the agreed one: its facts are "
                    "read with a new read-apart memory and no kept facts this period"
                )
            if snapshot is not None:
                early = ParseOnArrival(self.parse, self.params.max_manifest_bytes)
                fetched = yield from self.fetch_all(snapshot, early.arrived)
                self.report_failures(fetched)
                previous = self.previous_catalogue()
                catalogue = refresh_catalogue(snapshot, fetched, early.parse, previous)
                catalogue = yield from self.derive_code_arguments(catalogue, snapshot)
                catalogue = yield from self.with_marketplace(
                    catalogue, snapshot.block_number, None if afresh else previous
                )
                self.skill_state.candidate = (catalogue, snapshot)
                keep = {m.cid for m in catalogue.mechs if m.cid}
                if previous is not None:
                    keep |= {m.cid for m in previous.mechs if m.cid}
                self.skill_state.manifest_cache.retain(keep)
            incumbents = self.agreed_views()
            self.skill_state.candidate_incumbents = incumbents
            payload = self.payload_for(catalogue, incumbents)
        with self.context.benchmark_tool.measure(self.behaviour_id).consensus():
            yield from self.send_a2a_transaction(payload)
            yield from self.wait_until_round_end()
        self.set_done()

    def agreed_snapshot(self) -> Generator[None, None, Optional[RegistrySnapshot]]:
        """Get the snapshot the agents agreed on, from this agent's store or the chain.

        :yield: while reading the registries again.
        :return: the snapshot whose digest is the agreed one, or None (logged) when this
            agent can reproduce neither it nor its digest.
        """
        agreed = self.synchronized_data.registry_snapshot_digest
        block = self.synchronized_data.registry_snapshot_block
        if not agreed:
            self.context.logger.error(
                "no agreed registry snapshot digest to build from"
            )
            return None
        snapshot = self.skill_state.snapshots.get(agreed)
        if snapshot is not None:
            return snapshot
        self.context.logger.info(
            f"this agent does not hold the agreed snapshot {agreed}; reading the registries at block {block}"
        )
        snapshot = yield from self.read_snapshot(at_block=block)
        if snapshot is None:
            return None  # read_snapshot logged why
        digest = snapshot.digest()
        if digest != agreed:
            self.context.logger.error(
                f"the registries read at block {block} give snapshot {digest}, not the agreed {agreed}; "
                "this agent sends no catalogue this period (check its RPC is synced and serves that block)"
            )
            return None
        self.skill_state.snapshots.put(digest, snapshot)
        return snapshot

    def agreed_views(self) -> IncumbentViews:
        """Get the views the agents last agreed on (the same on every agent).

        Mechs they held keep their place in the views' budget ahead of newcomers
        (``catalogue.views``: issue #29, strangers registering in bulk).

        :return: the incumbents (empty before the first views were agreed).
        """
        data = self.synchronized_data
        return IncumbentViews.from_views(data.mechs_info, data.mech_tools)

    def payload_for(
        self,
        catalogue: Optional[Catalogue],
        incumbents: Optional[IncumbentViews] = None,
    ) -> CataloguePayload:
        """Build the payload for a catalogue: digests and a count only.

        The views document is kept by digest in ``SharedState.views`` for
        ``ShareViewsBehaviour``.

        :param catalogue: the catalogue built, None when there is no snapshot to build from.
        :param incumbents: the last agreed views (:meth:`agreed_views`; None: none).
        :return: the payload (all None without a catalogue, which leads to the NONE event).
        """
        if catalogue is None:
            return CataloguePayload(self.context.agent_address, None, None, None)
        document = views_document(catalogue, incumbents=incumbents)
        digest = views_digest(document)
        self.skill_state.views.put(digest, document)
        return CataloguePayload(
            self.context.agent_address,
            catalogue_digest=catalogue.digest(),
            views_digest=digest,
            views_chunks=len(views_chunks(document, VIEWS_CHUNK_CHARS)),
        )

    def previous_catalogue(self) -> Optional[Catalogue]:
        """Get the catalogue the agents last agreed on, when this agent holds it.

        It is this agent's exposed catalogue, or after a restart the catalogue kept on
        disk (``state_dir``), but only when its digest is the agreed ``catalogue_digest``:
        every agent then starts from the same catalogue, so kept last-good entries are
        the same on every agent.

        :return: the last agreed catalogue, or None when this agent does not hold it.
        """
        agreed = self.synchronized_data.catalogue_digest
        exposed = self.skill_state.exposed
        if exposed is not None and exposed.catalogue_digest == agreed:
            return exposed.catalogue
        kept = self.skill_state.kept_catalogue
        if (
            kept is not None
            and agreed
            and self.skill_state.kept_catalogue_digest == agreed
        ):
            return kept
        return None

    def report_failures(self, fetched: Dict[str, FetchResult]) -> None:
        """Log how fetches failed on this agent and keep it as its own diagnostic.

        The transport detail (HTTP status, timeout) differs between agents behind
        different gateways, so it never enters the catalogue; it goes to the log and to
        ``SharedState.fetch_diagnostics`` (digest -> detail, this period's failures only).
        ``SharedState.failing_digests`` carries the failures over periods for the next
        fetch order (``fetching.still_failing``: one the budget never reached keeps its
        standing).

        :param fetched: digest -> fetch result of this period.
        """
        diagnostics = {
            digest: f"{result.problem.code if result.problem else result.status}: {result.detail}"
            for digest, result in sorted(fetched.items())
            if result.failed
        }
        for digest, text in list(diagnostics.items())[:MAX_LOGGED_FAILURES]:
            self.context.logger.warning(f"manifest for digest {digest}: {text}")
        if len(diagnostics) > MAX_LOGGED_FAILURES:
            self.context.logger.warning(
                f"{len(diagnostics) - MAX_LOGGED_FAILURES} more manifests failed this period "
                "(SharedState.fetch_diagnostics has them all)"
            )
        self.skill_state.fetch_diagnostics = diagnostics
        self.skill_state.failing_digests = still_failing(
            self.skill_state.failing_digests, fetched
        )

    def parse(self, data: bytes) -> Tuple[Optional[Manifest], Tuple[Problem, ...]]:
        """Parse verified manifest bytes with the parameters' size cap.

        :param data: verified manifest bytes.
        :return: ``(manifest or None, problems)``.
        """
        result = parse_manifest(data, Limits(max_bytes=self.params.max_manifest_bytes))
        return result.manifest, result.problems

    # --- arguments derived from component code -------------------------------------

    def derive_code_arguments(
        self, catalogue: Catalogue, snapshot: RegistrySnapshot
    ) -> Generator[None, None, Catalogue]:
        """Give untyped tools of Olas agents the arguments their components' code reads.

        Drives ``domain.derive.from_chain.code_arguments_reader`` per AgentRegistry and
        ``code_pointer_reader`` per mech's own ``code_uri``, side by side
        (``from_chain.lockstep``: one IPFS request a step for all of them):
        chain reads through Multicall2 at the snapshot's block, component metadata
        through :meth:`fetch_many`, code blocks through the gateway (``?format=raw``);
        derivations are cached by package CID in ``SharedState.derivations`` (and under
        ``state_dir``), so an unchanged CID costs no IPFS request in a later period.
        A registry that cannot be read, or a reader that raises, leaves its mechs as they
        are (logged).

        :param catalogue: the catalogue built from the manifests.
        :param snapshot: the agreed snapshot (its block pins the chain reads).
        :yield: while waiting for the ledger connection and IPFS.
        :return: the catalogue with derived arguments merged in.
        """
        plan = plan_derivation(catalogue)
        if not plan.pointers and not plan.agents:
            return catalogue
        readers: Dict[Tuple[str, Any], Generator[Tuple[str, Any], Any, Any]] = {
            ("pointer", (key, where)): code_pointer_reader(
                pointer, where, self.skill_state.derivations
            )
            for key, pointer, where in plan.pointers  # a mech's own code pointer
        }
        for (chain_id, registry), agent_ids in plan.agents:
            readers[("registry", (chain_id, registry))] = code_arguments_reader(
                registry,
                chain_id,
                list(agent_ids),
                snapshot.block_number,
                self.skill_state.derivations,
                CodeCaps(),
                self.params.multicall_batch_size,
            )
        blocks: List[int] = []
        results = yield from self._drive_code_reader(lockstep(readers), blocks)
        self.skill_state.derivations.retain_used()
        found: Dict[MechKey, List[ComponentDerivation]] = {}
        # keys: ("pointer", (mech key, where)) and ("registry", (chain id, address))
        for (kind, (ident, label)), result in results.items():
            if kind == "pointer":
                if isinstance(result, Exception):
                    self.underived(label, result)
                else:
                    found[ident] = [(0, result)]
            elif isinstance(result, (ChainReadError, RegistryDecodeError)):
                self.context.logger.warning(
                    f"component code of {label} not read: {result}"
                )
            elif isinstance(result, Exception):
                self.underived(f"the components of {label}", result)
            else:
                for agent, components in result.items():
                    found[(ident, label, agent)] = components
        self.context.logger.info(
            f"code-derived arguments: {len(found)} agents, "
            f"{len({c.cid for cs in found.values() for _, c in cs if c.cid})} packages, "
            f"{sum(blocks)} IPFS requests (component metadata, code blocks) this period"
        )
        return merge_derivations(catalogue, found)

    def underived(self, what: str, exc: Exception) -> None:
        """Log a code reader that raised: its mechs keep their declared tools.

        The domain's readers report bad content as problems; an exception is a bug, and
        anyone's registration reaches this code, so it costs those mechs their derived
        arguments for the period, never the agent (the skill stops on an exception).

        :param what: names the mech or registry.
        :param exc: what the reader raised.
        """
        self.context.logger.error(
            f"code derivation for {what} failed ({type(exc).__name__}: {exc}); its "
            "tools keep their declared arguments this period. Report it."
        )

    def _drive_code_reader(
        self, reader: Generator[Tuple[str, Any], Any, Any], blocks: List[int]
    ) -> Generator[None, None, Any]:
        """Answer a code reader's requests (chain, files, blocks) until it returns.

        :param reader: a ``code_arguments_reader`` generator.
        :param blocks: the count of each IPFS request batch is appended here.
        :yield: while waiting.
        :return: its result.
        """

        def answer(request: Tuple[str, Any]) -> Generator[None, None, Any]:
            kind, payload = request
            if kind == "chain":
                return (yield from self.multicall(*payload))
            blocks.append(len(payload))
            if kind == "files":
                fetched = yield from self.fetch_many(payload)  # bodies come packed
                return {
                    cid: None if packed is None else unpack(packed)
                    for cid, (packed, _) in fetched.items()
                }
            return (yield from self.fetch_blocks(payload))

        return (yield from drive_yielding(reader, answer))

    def fetch_blocks(
        self, cids: List[str]
    ) -> Generator[None, None, Dict[str, Optional[bytes]]]:
        """Fetch raw IPFS blocks through the gateway (``/ipfs/<cid>?format=raw``).

        The IPFS connection cannot fetch single blocks: in ``ipfs_fetch_mode`` other than
        the gateway every block is reported missing (``code_fetch_failed``). Blocks are
        checked against their CIDs by the caller.

        :param cids: block CIDs.
        :yield: while waiting.
        :return: cid -> bytes, None when not answered in time or not a 200.
        """
        if self.params.ipfs_fetch_mode != FETCH_VIA_GATEWAY:
            return {cid: None for cid in cids}
        replies: Dict[str, Any] = {}
        headers = (
            "Accept: application/vnd.ipld.raw\r\n"
            f"Range: {range_header(CodeCaps().max_block_bytes)}\r\n"
        )
        for cid in cids:
            self.request_gateway(
                f"{self.params.ipfs_gateway_url}/ipfs/{cid}?format=raw",
                headers,
                self._store_reply(replies, cid),
            )
        # blocks not answered in time are reported missing below
        yield from self.wait_until(
            lambda: all(cid in replies for cid in cids),
            self.params.fetch_timeout_seconds,
        )
        out: Dict[str, Optional[bytes]] = {}
        for cid in cids:
            reply = replies.get(cid)
            out[cid] = (
                None
                if reply is None
                else gateway_body(
                    reply.status_code,
                    reply.headers,
                    reply.body,
                    CodeCaps().max_block_bytes,
                )[0]
            )
        return out

    # --- fetching --------------------------------------------------------------------

    def fetch_all(
        self,
        snapshot: RegistrySnapshot,
        on_arrival: Optional[Callable[[str, bytes], None]] = None,
    ) -> Generator[None, None, Dict[str, FetchResult]]:
        """Drive ``domain.fetching.manifest_fetcher`` over the snapshot's digests.

        :param snapshot: the agreed snapshot.
        :param on_arrival: called with ``(cid, bytes)`` as each body arrives
            (``domain.catalogue.arrivals.ParseOnArrival.arrived``).
        :yield: while waiting for IPFS or backing off.
        :return: digest -> result, for every distinct digest of the snapshot.
        """
        params = self.params
        policy = FetchPolicy(
            retries=params.fetch_retries,
            backoff_initial=params.fetch_backoff_initial_seconds,
            backoff_factor=params.fetch_backoff_factor,
            backoff_max=params.fetch_backoff_max_seconds,
            max_bytes=params.max_manifest_bytes,
        )
        self.gateway_pool().begin_period(time.monotonic())
        fetcher = manifest_fetcher(
            snapshot.digests,
            self.skill_state.manifest_cache,
            policy,
            fetch_ranks(
                snapshot,
                self.previous_catalogue(),
                self.skill_state.failing_digests,
            ),
        )
        return (
            yield from drive_yielding(
                fetcher,
                after_backoff_yielding(
                    lambda cids: self.fetch_many(cids, on_arrival), self.sleep
                ),
            )
        )

    def fetch_many(  # pylint: disable=too-many-locals
        self,
        cids: Sequence[str],
        on_arrival: Optional[Callable[[str, bytes], None]] = None,
    ) -> Generator[None, None, Dict[str, Tuple[Optional[bytes], str]]]:
        """Fetch CIDs through ``domain.ipfs.gateways.FetchWindow`` (a sliding window).

        The window picks the gateway of each GET (``ipfs_gateway_url`` then
        ``ipfs_fallback_gateway_urls``, skipping unhealthy ones), keeps at most
        ``fetch_concurrency`` in flight (fewer after 429s) and honours ``Retry-After``. A
        request leaves as soon as one in flight is answered or passes
        ``fetch_timeout_seconds`` (it then counts as failed), so one slow CID holds up only
        its own slot.

        :param cids: the CIDs.
        :param on_arrival: called with ``(cid, packed body)`` as each body arrives.
        :yield: while waiting.
        :return: cid -> (the body packed (``PackedBytes``) or None, failure text).
        """
        window = FetchWindow(cids, self.gateway_pool(), on_arrival, pack_reply)
        replies: Dict[Tuple[str, int], Any] = {}
        deadlines: Dict[Tuple[str, int], float] = {}  # in flight: key -> deadline
        sent = 0
        unanswered = 0
        timeout = self.params.fetch_timeout_seconds
        via_gateway = self.params.ipfs_fetch_mode == FETCH_VIA_GATEWAY
        while not window.done:
            for cid, gateway in window.sendable(time.monotonic()):
                sent += 1
                key = (cid, sent)
                self._request(key, gateway, via_gateway, replies)
                deadlines[key] = time.monotonic() + timeout
            if not deadlines:
                pause = window.wake_at(time.monotonic()) - time.monotonic()
                if pause > 0:
                    yield from self.sleep(pause)
                continue
            yield from self._wait_any(replies, deadlines)
            now = time.monotonic()
            done = [k for k, due in deadlines.items() if k in replies or due <= now]
            for key in done:
                del deadlines[key]
                reply = replies.pop(key, None)
                unanswered += reply is None
                data, failure = self._reply_bytes(reply)
                status, retry_after = self._reply_status(reply)
                window.answer(
                    key[0], data, failure, status, retry_after, now, time.time()
                )
        if unanswered:
            self.context.logger.warning(
                f"{unanswered} IPFS requests unanswered after {timeout}s"
            )
        return window.replies

    def gateway_pool(self) -> GatewayPool:
        """Get the agent's gateways (health and limit carry over between periods).

        :return: ``SharedState.gateways``, made anew from the parameters when not set up
            yet or when the gateways or ``fetch_concurrency`` changed.
        """
        pool = self.skill_state.gateways
        params = self.params
        if (
            pool is None
            or pool.urls != params.ipfs_gateway_urls
            or pool.policy.max_concurrency != params.fetch_concurrency
        ):
            pool = GatewayPool(
                params.ipfs_gateway_urls,
                GatewayPolicy(
                    max_concurrency=params.fetch_concurrency,
                    period_budget_seconds=params.fetch_round_timeout_seconds / 2,
                ),
            )
            self.skill_state.gateways = pool
        return pool

    def _request(
        self,
        key: Tuple[str, int],
        gateway: str,
        via_gateway: bool,
        replies: Dict[Tuple[str, int], Any],
    ) -> None:
        """Send one request for a CID; its reply lands in ``replies[key]``.

        Gateway: ``GET <gateway>/ipfs/<cid>`` with
        ``Range: bytes=0-<max_manifest_bytes>`` (``domain.size_cap``) through the
        ``mech_catalogue/capped_http_client`` connection, which stops reading the body
        one byte past the cap even when the gateway ignores the Range (``valory/http_client``
        would read it whole); otherwise a ``GET_FILES`` through the ``valory/ipfs``
        connection, which reads the whole file before answering (unbounded: see
        docs/skill-contract.md).

        :param key: ``(CID, request number)``: a late reply to an earlier request for the
            same CID never passes for the answer to this one.
        :param gateway: the gateway base URL the window chose (gateway mode only).
        :param via_gateway: True for the HTTP gateway, False for the IPFS connection.
        :param replies: where the callback stores the reply message.
        """
        callback = self._store_reply(replies, key)
        if via_gateway:
            self.request_gateway(
                f"{gateway}/ipfs/{key[0]}",
                "Accept: application/octet-stream\r\n"
                f"Range: {range_header(self.params.max_manifest_bytes)}\r\n",
                callback,
            )
        else:
            self.request_ipfs_file(key[0], self.params.fetch_timeout_seconds, callback)

    def _wait_any(
        self,
        replies: Dict[Tuple[str, int], Any],
        deadlines: Dict[Tuple[str, int], float],
    ) -> Generator:
        """Wait until a request in flight is answered or the earliest deadline passes."""
        if not deadlines:
            return
        remaining = max(0.0, min(deadlines.values()) - time.monotonic())
        # on timeout the caller counts the expired requests as failed
        yield from self.wait_until(
            lambda: any(key in replies for key in deadlines), remaining
        )

    def _reply_bytes(self, reply: Any) -> Tuple[Optional[bytes], str]:
        """Turn an HTTP or IPFS reply (or None) into ``(bytes or None, failure text)``.

        At most ``max_manifest_bytes + 1`` bytes are kept (``domain.size_cap``): one byte
        past the cap is what the fetcher reports as ``too_large``.

        :param reply: the http or ipfs protocol message, None when none came in time.
        :return: ``(bytes or None, failure text)``.
        """
        cap = self.params.max_manifest_bytes
        if reply is None:
            timeout = self.params.fetch_timeout_seconds
            return None, f"no answer within fetch_timeout_seconds={timeout}"
        if isinstance(reply, IpfsMessage):
            if reply.performative != IpfsMessage.Performative.FILES:
                # an unset optional field raises when read: is_set first
                reason = reply.reason if reply.is_set("reason") else "no reason given"
                return (
                    None,
                    f"IPFS connection answered {reply.performative.value}: {reason}",
                )
            if len(reply.files) != 1:
                return None, (
                    f"IPFS connection answered {len(reply.files)} files: a manifest's "
                    "CID must name one file (a directory's CID was registered?)"
                )
            text = list(reply.files.values())[0][: read_limit(cap)]
            return text.encode("utf-8")[: read_limit(cap)], ""
        return gateway_body(reply.status_code, reply.headers, reply.body, cap)

    @staticmethod
    def _reply_status(reply: Any) -> Tuple[Optional[int], Optional[str]]:
        """Read an HTTP reply's status and ``Retry-After`` (for the gateway's health).

        :param reply: the http or ipfs protocol message, None when none came in time.
        :return: ``(status, Retry-After)``; status None for no reply or an IPFS
            connection error, 200 for an IPFS connection's files.
        """
        if reply is None:
            return None, None
        if isinstance(reply, IpfsMessage):
            ok = reply.performative == IpfsMessage.Performative.FILES
            return (200 if ok else None), None
        return reply.status_code, header(reply.headers, "Retry-After")

    @staticmethod
    def _store_reply(replies: Dict[Any, Any], key: Any) -> Any:
        """A response callback that records the message; late replies land in a dict nobody reads."""

        def callback(message: Any, _current_behaviour: Any) -> None:
            replies[key] = message

        return callback
