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

"""Run the skill's read-fetch-parse period with plain HTTP instead of the agent framework.

The code that decides what to read and fetch, verifies bytes and builds the catalogue is
the library's, as the skill runs it (``chain.registry.snapshot_reader``,
``catalogue.fetching.manifest_fetcher``, ``catalogue.fetching.refresh_catalogue``,
``manifest.parsing.parse_manifest``); this module only drives it, and moves bytes through
the CLI's adapters as the skill's behaviours do through the ledger and http_client
connections:

- each Multicall2 batch is one JSON-RPC ``eth_call`` (:mod:`.adapters.jsonrpc`,
  ``rpc_timeout``);
- CIDs are fetched from HTTP gateways (:func:`.adapters.ipfs.gateway_answer`;
  ``gateway_url``, then ``fallback_gateway_urls``) with at most ``fetch_concurrency``
  GETs in flight, a new one leaving as soon as one is answered; which gateway, how many
  in flight, 429/Retry-After and gateway health are decided by
  ``ipfs.gateways.FetchWindow``, as in ``FetchManifestsBehaviour.fetch_many``; each GET
  is capped at ``max_bytes``;
- each manifest is verified and parsed as it arrives (``catalogue.arrivals``),
  on a thread of its own, while the other GETs are in flight;
- a period whose registry read fails keeps the last catalogue, as the skill's
  ``RegistrySnapshotRound`` does when no snapshot is agreed.

Used by ``scripts/bench_sync.py`` and the fault tests (``tests/faults``).
"""

import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from typing import (
    Callable,
    Dict,
    FrozenSet,
    List,
    Optional,
    Sequence,
    Tuple,
)

from mech_catalogue_core.catalogue.arrivals import (
    ParseOnArrival,
)
from mech_catalogue_core.catalogue.fetching import (
    FetchPolicy,
    FetchResult,
    ManifestCache,
    fetch_ranks,
    manifest_fetcher,
    pack_reply,
    refresh_catalogue,
    still_failing,
    still_readable,
)
from mech_catalogue_core.chain.registry import (
    BatchReply,
    BatchRequest,
    ChainReadError,
    HolderCache,
    RegistryConfigError,
    RegistryDecodeError,
    RegistrySource,
    SupplyHints,
    decode_batch,
    encode_batch,
    parse_registry_sources,
    snapshot_reader,
)
from mech_catalogue_core.chain.rpc_limits import (
    SplitReport,
    split_oversized,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.driver import (
    after_backoff,
    drive,
)
from mech_catalogue_core.ipfs.gateways import (
    FetchWindow,
    GatewayPolicy,
    GatewayPool,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)
from mech_catalogue_core.model.limits import Limits

from mech_catalogue_cli.adapters.http import Session, new_session
from mech_catalogue_cli.adapters.ipfs import GatewayAnswer, gateway_answer
from mech_catalogue_cli.adapters.jsonrpc import JsonRpc, eth_call


@dataclass(frozen=True)
class SyncConfig:  # pylint: disable=too-many-instance-attributes
    """The skill parameters the period uses (defaults: the skill's ``skill.yaml``).

    :param rpc_url: the chain's JSON-RPC URL.
    :param gateway_url: the IPFS HTTP gateway base URL (``GET <url>/ipfs/<cid>``).
    :param sources: the registries to read.
    :param multicall: the Multicall2 address.
    :param batch_size: calls per ``eth_call`` (``multicall_batch_size``).
    :param max_ids: ``max_ids_per_registry``.
    :param block_interval: ``snapshot_block_interval``.
    :param fetch_concurrency: CIDs in flight at once.
    :param rpc_timeout: seconds per ``eth_call``.
    :param fetch_timeout: seconds per GET (``fetch_timeout_seconds``).
    :param policy: retries, backoff and size cap.
    :param fallback_gateway_urls: further gateways, tried in this order after ``gateway_url``.
    :param gateway_policy: gateway health, 429 handling and the period's fetch budget
        (its ``max_concurrency`` is replaced by ``fetch_concurrency``).
    """

    rpc_url: str
    gateway_url: str
    sources: Tuple[RegistrySource, ...]
    multicall: str
    batch_size: int = 200
    max_ids: int = 10_000
    block_interval: int = 1
    fetch_concurrency: int = 8
    rpc_timeout: float = 10.0
    fetch_timeout: float = 10.0
    policy: FetchPolicy = field(default_factory=FetchPolicy)
    fallback_gateway_urls: Tuple[str, ...] = ()
    gateway_policy: GatewayPolicy = field(default_factory=GatewayPolicy)


def read_snapshot(
    config: SyncConfig,
    session: Optional[Session] = None,
    on_split: Optional[SplitReport] = None,
    holder_cache: Optional[HolderCache] = None,
    supply_hints: Optional[SupplyHints] = None,
) -> Tuple[RegistrySnapshot, int]:
    """Drive ``snapshot_reader``: each yielded batch is one ``eth_call`` to Multicall2.

    A batch the RPC refuses as too large is sent again in halves
    (``domain.chain.rpc_limits.split_oversized``). Any other failing ``eth_call`` raises
    :class:`ChainReadError`; a supply read that reverts or returns garbage raises
    ``RegistryDecodeError`` (from the generator).

    :param config: the parameters.
    :param session: an HTTP session to reuse (a new one when None).
    :param on_split: told of every batch split (calls in it, the RPC's error text).
    :param holder_cache: ServiceRegistry addresses remembered across reads (as the
        skill's ``SharedState.supply_holders``); filled by this read.
    :param supply_hints: supplies at the last read (``SharedState.supply_hints``);
        updated by this read.
    :return: ``(snapshot, eth_calls made)``.
    """
    rpc = JsonRpc(config.rpc_url, config.rpc_timeout, session)
    reader = snapshot_reader(
        config.sources,
        config.multicall,
        config.batch_size,
        config.max_ids,
        config.block_interval,
        holder_cache=holder_cache,
        supply_hints=supply_hints,
    )
    calls = 0

    def run_batch(request: BatchRequest) -> BatchReply:
        nonlocal calls
        batch, block = request
        data = eth_call(rpc, config.multicall, encode_batch(batch), block)
        calls += 1
        return decode_batch(data, len(batch))

    block_number, reads = drive(
        reader, split_oversized(run_batch, (ChainReadError,), on_split)
    )
    return RegistrySnapshot.build(block_number, reads), calls


class Fetcher:  # pylint: disable=too-many-instance-attributes
    """Concurrent gateway GETs, one HTTP session per worker thread."""

    def __init__(  # pylint: disable=too-many-arguments
        self,
        gateway: str,
        concurrency: int,
        timeout: float,
        cap: int,
        fallbacks: Sequence[str] = (),
        policy: Optional[GatewayPolicy] = None,
    ) -> None:
        """Create the worker pool.

        :param gateway: the preferred gateway base URL.
        :param concurrency: GETs in flight at most.
        :param timeout: seconds per GET.
        :param cap: the manifest size cap, bytes.
        :param fallbacks: further gateways, in order of preference.
        :param policy: gateway health and 429 handling (its concurrency is ``concurrency``).
        """
        self.gateway = gateway
        self.concurrency = concurrency
        self.timeout = timeout
        self.cap = cap
        self.requests = 0
        self.gateways = GatewayPool(
            [gateway, *fallbacks],
            replace(policy or GatewayPolicy(), max_concurrency=concurrency),
        )
        self.on_arrival: Optional[Callable[[str, bytes], None]] = None
        self._pool = ThreadPoolExecutor(max_workers=concurrency)
        self._sessions: Dict[int, Session] = {}

    def _session(self) -> Session:
        key = threading.get_ident()
        if key not in self._sessions:
            self._sessions[key] = new_session()
        return self._sessions[key]

    def _get(self, gateway: str, cid: str) -> GatewayAnswer:
        return gateway_answer(self._session(), gateway, cid, self.timeout, self.cap)

    def get_pooled(self, cids: Sequence[str]) -> Dict[str, Tuple[Optional[bytes], str]]:
        """Fetch CIDs through :class:`FetchWindow` (a sliding window, as the skill).

        :param cids: the CIDs.
        :return: cid -> (the body packed (``PackedBytes``) or None, failure text).
        """
        window = FetchWindow(cids, self.gateways, self.on_arrival, pack_reply)
        running: Dict[Future, str] = {}
        while not window.done:
            for cid, gateway in window.sendable(time.monotonic()):
                self.requests += 1
                running[self._pool.submit(self._get, gateway, cid)] = cid
            if not running:
                pause = window.wake_at(time.monotonic()) - time.monotonic()
                time.sleep(max(0.0, pause))
                continue
            finished, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for future in finished:
                data, failure, status, retry_after = future.result()
                window.answer(
                    running.pop(future),
                    data,
                    failure,
                    status,
                    retry_after,
                    time.monotonic(),
                    time.time(),
                )
        return window.replies

    def close(self) -> None:
        """Stop the pool."""
        self._pool.shutdown(wait=False, cancel_futures=True)


def fetch_manifests(
    config: SyncConfig,
    digests: Sequence[str],
    cache: ManifestCache,
    fetcher: Fetcher,
    ranks: Optional[Dict[str, int]] = None,
) -> Dict[str, FetchResult]:
    """Drive ``manifest_fetcher`` with :class:`Fetcher`, sleeping its backoffs.

    :param config: the parameters.
    :param digests: on-chain digests to fetch.
    :param cache: the content-addressed cache.
    :param fetcher: the HTTP fetcher.
    :param ranks: digest -> fetch rank, lower first (``fetching.fetch_ranks``).
    :return: digest -> result.
    """
    generator = manifest_fetcher(digests, cache, config.policy, ranks)
    return dict(drive(generator, after_backoff(fetcher.get_pooled, time.sleep)))


def parse(data: bytes, cap: int = Limits().max_bytes):
    """Parse as ``FetchManifestsBehaviour.parse`` does.

    :param data: verified manifest bytes.
    :param cap: ``max_manifest_bytes``.
    :return: ``(manifest or None, problems)``.
    """
    result = parse_manifest(data, Limits(max_bytes=cap))
    return result.manifest, result.problems


@dataclass
class PeriodOutcome:
    """What one period did.

    :param catalogue: the catalogue served after the period.
    :param updated: True when a new catalogue was built (False: the last one was kept).
    :param error: why the period kept the last catalogue ("" when it did not).
    :param eth_calls: ``eth_call`` requests made.
    :param seconds: wall time of the period.
    :param timings: where the time went, seconds: ``rpc`` (registry reads), ``ipfs``
        (the fetch, including ``verify_on_arrival`` and ``parse_on_arrival``) and
        ``build`` (``refresh_catalogue``: any parsing left, building the catalogue);
        ``verify_on_arrival`` / ``parse_on_arrival`` are the parsing thread's wall time
        within ``ipfs``, ``verify_cpu`` / ``parse_cpu`` its CPU time for the same work.
    :param rpc_splits: one sentence per batch the RPC refused as too large and that was
        sent again in halves.
    """

    catalogue: Optional[Catalogue]
    updated: bool
    error: str = ""
    eth_calls: int = 0
    seconds: float = 0.0
    timings: Dict[str, float] = field(default_factory=dict)
    rpc_splits: Tuple[str, ...] = ()


class CatalogueSync:
    """The skill's period loop: read the snapshot, fetch what is new, refresh the catalogue."""

    def __init__(
        self, config: SyncConfig, cache: Optional[ManifestCache] = None
    ) -> None:
        """Start with an empty catalogue.

        :param config: the parameters.
        :param cache: the manifest cache (a new in-memory one when None).
        """
        self.config = config
        self.cache = cache if cache is not None else ManifestCache()
        self.catalogue: Optional[Catalogue] = None
        self.fetcher = Fetcher(
            config.gateway_url,
            config.fetch_concurrency,
            config.fetch_timeout,
            config.policy.max_bytes,
            config.fallback_gateway_urls,
            config.gateway_policy,
        )
        self.session = new_session()
        #: ServiceRegistry addresses read once (immutable on chain), as the skill keeps them
        self.holders: HolderCache = {}
        #: supplies at the last read, as the skill keeps them
        self.supply_hints: SupplyHints = {}
        #: digests this agent read before (asked for first; a caller may set a record
        #: kept across restarts), then those each period verified (or did not reach)
        self.readable: FrozenSet[str] = frozenset()
        #: digests whose fetch failed (asked for last; ``fetching.still_failing``)
        self.failed: FrozenSet[str] = frozenset()

    def period(self) -> PeriodOutcome:
        """Run one period; never raises on chain or IPFS faults.

        :return: the outcome; on a failed registry read the last catalogue is kept.
        """
        began = time.monotonic()
        timings: Dict[str, float] = {}
        splits: List[str] = []

        def split(size: int, why: str) -> None:
            splits.append(
                f"the RPC refused a batch of {size} calls as too large ({why[:200]}); "
                "it was sent again in halves (lower multicall_batch_size to avoid this)"
            )

        try:
            snapshot, calls = read_snapshot(
                self.config, self.session, split, self.holders, self.supply_hints
            )
        except (ChainReadError, RegistryDecodeError, RegistryConfigError) as exc:
            return PeriodOutcome(
                self.catalogue,
                False,
                str(exc),
                seconds=time.monotonic() - began,
                rpc_splits=tuple(splits),
            )
        timings["rpc"] = time.monotonic() - began
        self.fetcher.gateways.begin_period(time.monotonic())
        early = ParseOnArrival(
            lambda data: parse(data, self.config.policy.max_bytes),
            self.config.policy.max_bytes,
        )
        # verify and parse on one thread of their own: the fetch loop keeps the window
        # full while a manifest is parsed, and one thread is all the GIL gives CPU work
        parser = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parse")
        parsing: List[Future] = []
        self.fetcher.on_arrival = lambda cid, data: parsing.append(
            parser.submit(early.arrived, cid, data)
        )
        try:
            fetched = fetch_manifests(
                self.config,
                snapshot.digests,
                self.cache,
                self.fetcher,
                fetch_ranks(snapshot, self.catalogue, self.failed, self.readable),
            )
        finally:
            self.fetcher.on_arrival = None
            wait(parsing)  # refresh_catalogue takes every result parsed on arrival
            parser.shutdown()
        self.failed = still_failing(self.failed, fetched)
        self.readable = still_readable(self.readable, fetched)
        timings["ipfs"] = time.monotonic() - began - timings["rpc"]
        timings["verify_on_arrival"] = early.verify_seconds
        timings["parse_on_arrival"] = early.parse_seconds
        timings["verify_cpu"] = early.verify_cpu_seconds
        timings["parse_cpu"] = early.parse_cpu_seconds
        self.catalogue = refresh_catalogue(
            snapshot, fetched, early.parse, self.catalogue
        )
        seconds = time.monotonic() - began
        timings["build"] = seconds - timings["rpc"] - timings["ipfs"]
        return PeriodOutcome(
            self.catalogue, True, "", calls, seconds, timings, tuple(splits)
        )

    def close(self) -> None:
        """Release the fetch pool."""
        self.fetcher.close()


def all_ids_sources(
    chain_id: int, registries: List[Tuple[str, str]]
) -> Tuple[RegistrySource, ...]:
    """Build sources reading every id of each registry.

    :param chain_id: the chain id.
    :param registries: ``(kind, address)`` pairs.
    :return: the sources.
    """
    return parse_registry_sources(
        [
            {"kind": kind, "address": address, "ids": "all"}
            for kind, address in registries
        ],
        chain_id,
    )
