"""FetchManifestsBehaviour: fetch, verify and parse manifests; send the catalogue digest."""

import json
from typing import Any, Dict, Generator, List, Optional, Tuple, cast

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.base import (
    ToolMetadataBaseBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.cid import (
    DAG_PB,
    RAW,
    CidError,
    candidate_cids,
    verify,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.fetching import (
    FetchResult,
    backoff_delays,
    refresh_catalogue,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.limits import Limits
from packages.mech_catalogue.skills.tool_metadata_abci.domain.model import (
    STATUS_INVALID,
    Catalogue,
    Manifest,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.parsing import (
    parse_manifest,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.problems import Problem
from packages.mech_catalogue.skills.tool_metadata_abci.domain.snapshot import (
    RegistrySnapshot,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.views import (
    mech_tools_view,
    mechs_info_view,
)
from packages.mech_catalogue.skills.tool_metadata_abci.models import (
    FETCH_VIA_GATEWAY,
)
from packages.mech_catalogue.skills.tool_metadata_abci.payloads import CataloguePayload
from packages.mech_catalogue.skills.tool_metadata_abci.states.fetch_manifests import (
    FetchManifestsRound,
)
from packages.valory.protocols.http.message import HttpMessage
from packages.valory.protocols.ipfs import IpfsMessage
from packages.valory.skills.abstract_round_abci.behaviour_utils import TimeoutException
from packages.valory.skills.abstract_round_abci.models import Requests

#: the CID codecs tried for one digest, in order (what registries assume first)
CODECS = (DAG_PB, RAW)


class FetchManifestsBehaviour(ToolMetadataBaseBehaviour):  # pylint: disable=too-many-ancestors
    """Build the catalogue from the agreed snapshot and send its digest."""

    matching_round = FetchManifestsRound

    def async_act(self) -> Generator:
        """Fetch what the cache lacks, build the catalogue, keep it as this agent's candidate, agree.

        ``FetchManifestsRound`` publishes the candidate when the agents agree on its digest.

        :yield: while waiting for IPFS and Tendermint.
        """
        with self.context.benchmark_tool.measure(self.behaviour_id).local():
            snapshot = self.synchronized_data.registry_snapshot
            catalogue: Optional[Catalogue] = None
            if snapshot is not None:
                fetched = yield from self.fetch_all(snapshot)
                catalogue = refresh_catalogue(snapshot, fetched, self.parse, self.previous_catalogue())
                self.skill_state.candidate = (catalogue, snapshot)
            payload = self.payload_for(catalogue)
        with self.context.benchmark_tool.measure(self.behaviour_id).consensus():
            yield from self.send_a2a_transaction(payload)
            yield from self.wait_until_round_end()
        self.set_done()

    def payload_for(self, catalogue: Optional[Catalogue]) -> CataloguePayload:
        """:param catalogue: the catalogue built, None when there is no snapshot to build from.
        :return: the payload (all None without a catalogue, which leads to the NONE event)."""
        if catalogue is None:
            return CataloguePayload(self.context.agent_address, None, None, None)
        compact = {"separators": (",", ":"), "sort_keys": True}
        return CataloguePayload(
            self.context.agent_address,
            catalogue_digest=catalogue.digest(),
            mechs_info=json.dumps(mechs_info_view(catalogue, self.params.mech_addresses), **compact),  # type: ignore[arg-type]
            mech_tools=json.dumps(mech_tools_view(catalogue), **compact),  # type: ignore[arg-type]
        )

    def previous_catalogue(self) -> Optional[Catalogue]:
        """:return: this agent's published catalogue when it is the one the agents last agreed on, else None."""
        published = self.skill_state.published
        if published is None or published.catalogue_digest != self.synchronized_data.catalogue_digest:
            return None
        return published.catalogue

    def parse(self, data: bytes) -> Tuple[Optional[Manifest], Tuple[Problem, ...]]:
        """:param data: verified manifest bytes. :return: ``(manifest or None, problems)``."""
        result = parse_manifest(data, Limits(max_bytes=self.params.max_manifest_bytes))
        return result.manifest, result.problems

    # --- fetching --------------------------------------------------------------------

    def fetch_all(self, snapshot: RegistrySnapshot) -> Generator[None, None, Dict[str, FetchResult]]:
        """Fetch and verify every digest of the snapshot, cache first.

        For each digest the dag-pb CID is tried, then the raw CID; each up to
        ``1 + fetch_retries`` times, waiting ``backoff_delays`` between tries; up to
        ``fetch_concurrency`` requests in flight. Only CIDs derived from on-chain digests are
        ever requested, and only from the configured endpoint.

        :param snapshot: the agreed snapshot.
        :yield: while waiting for IPFS.
        :return: digest -> result, for every distinct digest of the snapshot.
        """
        results: Dict[str, FetchResult] = {}
        cids: Dict[str, Tuple[str, ...]] = {}
        pending: List[Tuple[str, int, int]] = []  # (digest, codec index, tries so far)
        for digest in snapshot.digests:
            try:
                cids[digest] = candidate_cids(digest)
            except CidError as exc:
                results[digest] = FetchResult(digest, status=STATUS_INVALID, problem=exc.problem)
                continue
            hit = self._cached(digest, cids[digest])
            if hit is not None:
                results[digest] = hit
            else:
                pending.append((digest, 0, 0))
        delays = backoff_delays(
            self.params.fetch_retries,
            self.params.fetch_backoff_initial_seconds,
            self.params.fetch_backoff_factor,
            self.params.fetch_backoff_max_seconds,
        )
        got_bytes: Dict[str, bool] = {}
        last_error: Dict[str, str] = {}
        while pending:
            responses = yield from self.fetch_many([cids[d][c] for d, c, _ in pending])
            retry: List[Tuple[str, int, int]] = []
            wait = 0.0
            for digest, codec_index, tries in pending:
                cid = cids[digest][codec_index]
                data, failure = responses.get(cid, (None, "no response"))
                got_bytes[digest] = got_bytes.get(digest, False) or data is not None
                outcome = self._check(digest, CODECS[codec_index], cid, data)
                if outcome is not None:
                    results[digest] = outcome
                    continue
                last_error[digest] = f"{cid}: {failure or 'bytes did not verify'}"
                if tries < len(delays):
                    retry.append((digest, codec_index, tries + 1))
                    wait = max(wait, delays[tries])
                elif codec_index + 1 < len(CODECS):
                    retry.append((digest, codec_index + 1, 0))
                elif got_bytes[digest]:
                    results[digest] = FetchResult.mismatch(digest, cid)
                else:
                    results[digest] = FetchResult.unavailable(digest, cids[digest], last_error[digest])
            if wait:
                yield from self.sleep(wait)
            pending = retry
        return results

    def _cached(self, digest: str, cids: Tuple[str, ...]) -> Optional[FetchResult]:
        cache = self.skill_state.manifest_cache
        for codec, cid in zip(CODECS, cids):
            data = cache.get(cid, verify=lambda d, c=codec: verify(d, digest, c).ok)
            if data is not None:
                return FetchResult.ok(digest, cid, data)
        return None

    def _check(self, digest: str, codec: str, cid: str, data: Optional[bytes]) -> Optional[FetchResult]:
        """:return: a final result (verified, or too large), or None to retry / fall back."""
        if data is None:
            return None
        if len(data) > self.params.max_manifest_bytes:
            return FetchResult.too_large(digest, cid, len(data), self.params.max_manifest_bytes)
        if not verify(data, digest, codec).ok:
            self.context.logger.warning(f"bytes served for {cid} do not hash to the on-chain digest {digest}")
            return None
        self.skill_state.manifest_cache.put(cid, data)
        return FetchResult.ok(digest, cid, data)

    def fetch_many(self, cids: List[str]) -> Generator[None, None, Dict[str, Tuple[Optional[bytes], str]]]:
        """Fetch CIDs, ``fetch_concurrency`` at a time.

        :param cids: the CIDs.
        :yield: while waiting.
        :return: cid -> (bytes or None, failure text).
        """
        out: Dict[str, Tuple[Optional[bytes], str]] = {}
        step = self.params.fetch_concurrency
        for start in range(0, len(cids), step):
            group = cids[start : start + step]
            if self.params.ipfs_fetch_mode == FETCH_VIA_GATEWAY:
                got = yield from self._gateway_get(group)
            else:
                got = yield from self._ipfs_get(group)
            out.update(got)
        return out

    def _gateway_get(self, cids: List[str]) -> Generator[None, None, Dict[str, Tuple[Optional[bytes], str]]]:
        """GET ``<ipfs_gateway_url>/ipfs/<cid>`` for each CID, all in flight at once."""
        replies: Dict[str, Any] = {}
        requests = cast(Requests, self.context.requests)
        for cid in cids:
            message, dialogue = self._build_http_request_message(
                method="GET", url=f"{self.params.ipfs_gateway_url}/ipfs/{cid}", headers={"Accept": "application/octet-stream"}
            )
            nonce = self._get_request_nonce_from_dialogue(dialogue)
            requests.request_id_to_callback[nonce] = self._store_reply(replies, cid)
            self.context.outbox.put_message(message=message)
        yield from self._wait_replies(replies, len(cids))
        out: Dict[str, Tuple[Optional[bytes], str]] = {}
        for cid in cids:
            reply = replies.get(cid)
            if reply is None:
                out[cid] = (None, f"no answer within fetch_timeout_seconds={self.params.fetch_timeout_seconds}")
            elif not 200 <= reply.status_code < 300:
                out[cid] = (None, f"gateway answered HTTP {reply.status_code}")
            else:
                out[cid] = (bytes(reply.body), "")
        return out

    def _ipfs_get(self, cids: List[str]) -> Generator[None, None, Dict[str, Tuple[Optional[bytes], str]]]:
        """Fetch each CID through the ``valory/ipfs`` connection, all in flight at once."""
        replies: Dict[str, Any] = {}
        requests = cast(Requests, self.context.requests)
        for cid in cids:
            message, dialogue = self._build_ipfs_get_file_req(cid, self.params.fetch_timeout_seconds)
            nonce = self._get_request_nonce_from_dialogue(dialogue)
            requests.request_id_to_callback[nonce] = self._store_reply(replies, cid)
            self.context.outbox.put_message(message=message)
        yield from self._wait_replies(replies, len(cids))
        out: Dict[str, Tuple[Optional[bytes], str]] = {}
        for cid in cids:
            reply = replies.get(cid)
            if reply is None:
                out[cid] = (None, f"no answer within fetch_timeout_seconds={self.params.fetch_timeout_seconds}")
            elif reply.performative != IpfsMessage.Performative.FILES or len(reply.files) != 1:
                out[cid] = (None, f"IPFS connection answered {reply.performative.value}: {getattr(reply, 'reason', '')}")
            else:
                out[cid] = (next(iter(reply.files.values())).encode("utf-8"), "")
        return out

    @staticmethod
    def _store_reply(replies: Dict[str, Any], cid: str) -> Any:
        """A response callback that records the message; late replies land in a dict nobody reads."""

        def callback(message: Any, _current_behaviour: Any) -> None:
            replies[cid] = message

        return callback

    def _wait_replies(self, replies: Dict[str, Any], expected: int) -> Generator:
        """Wait until every reply arrived or ``fetch_timeout_seconds`` passed (missing ones count as failed)."""
        try:
            yield from self.wait_for_condition(lambda: len(replies) >= expected, self.params.fetch_timeout_seconds)
        except TimeoutException:
            self.context.logger.warning(f"{expected - len(replies)} IPFS requests unanswered after {self.params.fetch_timeout_seconds}s")
