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

"""Benchmark worker for ``scripts/bench_sync.py``: ours (the skill's period) or the floor.

``python -m scripts.bench_sync_worker ours|floor --rpc URL --gateway URL --multicall A
--csm A --chain-id C`` runs its phases one at a time: it prints ``{"ready": phase}``, waits
for a line on stdin (the parent resets its counters, or changes the chain, in between),
runs the phase and prints one JSON line with the result. Peak RSS is the process's own.

- ``ours``: :class:`mech_catalogue_cli.sync_driver.CatalogueSync` with the skill's defaults
  (Multicall2 batches of 200, ``--concurrency`` GETs in flight at most (8), verify and
  parse as bytes arrive, build the catalogue); each phase reports where its time went
  (``t_rpc``, ``t_ipfs``, ``t_build``, ``t_payload``: the catalogue digest and views
  document a consensus payload needs);
  phases ``cold`` (empty cache), ``warm`` (nothing changed), ``churn`` (the parent has
  changed 1% of the hashes), ``memory`` (the catalogue built again under tracemalloc;
  only up to :data:`TRACEMALLOC_MAX_N` ids);
- ``floor``: the same ``mapServiceHashes`` reads in one ``eth_call`` (one per
  :data:`FLOOR_BATCH` ids) and the same CIDs
  GET from the gateway with the same ``--concurrency`` in flight; no verification, no
  parsing.
"""

import argparse
import gc
import json
import resource
import sys
import time
import tracemalloc
from typing import Any, Callable, Dict

from mech_catalogue_core.catalogue.fetching import (
    ManifestCache,
    refresh_catalogue,
)
from mech_catalogue_core.catalogue.views import (
    views_digest,
    views_document,
)
from mech_catalogue_core.chain.registry import (
    IdSelection,
    RegistrySource,
    decode_batch,
    digest_query,
    encode_batch,
    flatten,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    candidate_cids,
    verify,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
)

from mech_catalogue_cli.adapters.jsonrpc import JsonRpc, eth_call
from mech_catalogue_cli.sync_driver import (
    CatalogueSync,
    Fetcher,
    SyncConfig,
    all_ids_sources,
    fetch_manifests,
    parse,
    read_snapshot,
)

CSM_KIND = "complementary_service_metadata"
#: a phase result key: seconds of the phase's work not to count in its wall time
UNTIMED = "untimed_seconds"
#: the memory phase parses everything twice, once under tracemalloc: only up to this N
TRACEMALLOC_MAX_N = 1000
#: most digest calls in one of the floor's eth_calls (anvil refuses 10,000 in one request)
FLOOR_BATCH = 1000


def rss_kib() -> int:
    """Peak resident set size so far.

    :return: KiB (Linux ``ru_maxrss``).
    """
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def phase(name: str, run: Callable[[], Dict[str, Any]]) -> None:
    """Announce a phase, wait for the go line, run it timed, print its result.

    :param name: the phase.
    :param run: the work; returns extra result fields.
    """
    print(json.dumps({"ready": name}), flush=True)
    sys.stdin.readline()
    began = time.perf_counter()
    extra = run()
    seconds = time.perf_counter() - began - extra.pop(UNTIMED, 0.0)
    result = {"phase": name, "seconds": seconds, "rss_peak_kib": rss_kib()}
    result.update(extra)
    print(json.dumps(result), flush=True)


def period(sync: CatalogueSync) -> Dict[str, Any]:
    """Run one period, then time what its consensus payload needs (catalogue digest, views).

    The payload's time is reported (``t_payload``) but not counted in the phase's wall
    time, which stays comparable with the floor and mech-client's way (neither builds one).

    :param sync: the sync.
    :return: :func:`summary` plus ``t_*`` seconds by step.
    """
    outcome = sync.period()
    result = summary(sync, outcome)
    result.update({f"t_{k}": round(v, 4) for k, v in outcome.timings.items()})
    if outcome.catalogue is not None:
        began = time.perf_counter()
        outcome.catalogue.digest()
        views_digest(views_document(outcome.catalogue))
        result["t_payload"] = round(time.perf_counter() - began, 4)
        result[UNTIMED] = result["t_payload"]
    result["gets"] = sync.fetcher.requests
    result["limit_after"] = round(sync.fetcher.gateways.limit, 1)
    return result


def summary(sync: CatalogueSync, outcome: Any) -> Dict[str, Any]:
    """Describe a period's catalogue.

    :param sync: the sync.
    :param outcome: the period outcome.
    :return: mechs, ok mechs, tools, eth_calls.
    """
    catalogue = outcome.catalogue
    mechs = catalogue.mechs if catalogue is not None else ()
    return {
        "mechs": len(mechs),
        "mechs_ok": sum(1 for m in mechs if m.status == STATUS_OK),
        "tools": sum(len(m.tools) for m in mechs),
        "eth_calls_seen": outcome.eth_calls,
        "updated": outcome.updated,
        "error": outcome.error,
        "cache_entries": len(sync.cache),
    }


def run_ours(config: SyncConfig, config_n: int) -> None:
    """Cold, warm, churn and memory phases of the skill's period.

    :param config: the parameters.
    :param config_n: how many service ids (no memory phase above :data:`TRACEMALLOC_MAX_N`).
    """
    sync = CatalogueSync(config, ManifestCache())
    for name in ("cold", "warm", "churn"):
        sync.fetcher.requests = 0
        phase(name, lambda: period(sync))

    def memory() -> Dict[str, Any]:
        snapshot, _ = read_snapshot(config)
        fetched = fetch_manifests(config, snapshot.digests, sync.cache, sync.fetcher)
        began = time.perf_counter()
        for result in fetched.values():
            verify(result.data or b"", result.digest, DAG_PB)
        verify_seconds = time.perf_counter() - began
        began = time.perf_counter()
        refresh_catalogue(
            snapshot, fetched, lambda d: parse(d, config.policy.max_bytes)
        )
        refresh_seconds = time.perf_counter() - began
        gc.collect()
        tracemalloc.start()
        catalogue = refresh_catalogue(
            snapshot, fetched, lambda d: parse(d, config.policy.max_bytes)
        )
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        cached = sum(len(r.data or b"") for r in fetched.values())
        return {
            "catalogue_bytes": current,
            "catalogue_build_peak_bytes": peak,
            "mechs": len(catalogue.mechs),
            "tools": sum(len(m.tools) for m in catalogue.mechs),
            "manifest_cache_bytes": cached,
            "verify_seconds": verify_seconds,
            "parse_and_build_seconds": refresh_seconds,
        }

    if config_n <= TRACEMALLOC_MAX_N:
        phase("memory", memory)
    sync.close()


def run_floor(config: SyncConfig, csm: str, n: int) -> None:
    """The floor: one ``eth_call`` per :data:`FLOOR_BATCH` ``mapServiceHashes``, raw GETs, nothing else.

    :param config: the parameters (URLs, concurrency).
    :param csm: the ComplementaryServiceMetadata address.
    :param n: how many service ids.
    """
    source = RegistrySource(
        CSM_KIND, 0, csm.lower(), IdSelection("list", tuple(range(1, n + 1)))
    )
    calls = flatten([digest_query(0, source, i) for i in range(1, n + 1)])
    fetcher = Fetcher(
        config.gateway_url, config.fetch_concurrency, config.fetch_timeout, 1 << 30
    )

    def cold() -> Dict[str, Any]:
        rpc, results = JsonRpc(config.rpc_url, 60.0), []
        for start in range(0, len(calls), FLOOR_BATCH):
            chunk = calls[start : start + FLOOR_BATCH]
            data = eth_call(rpc, config.multicall, encode_batch(chunk), None)
            results += decode_batch(data, len(chunk))[1]
        cids = [candidate_cids("0x" + ret[:32].hex())[0] for ok, ret in results if ok]
        got = fetcher.get_pooled(cids)
        return {
            "eth_calls_seen": -(-len(calls) // FLOOR_BATCH),
            "fetched": sum(1 for b, _ in got.values() if b is not None),
            "bytes": sum(len(b or b"") for b, _ in got.values()),
        }

    phase("cold", cold)
    fetcher.close()


def main() -> None:
    """Parse arguments and run the chosen worker."""
    parser = argparse.ArgumentParser()
    parser.add_argument("which", choices=("ours", "floor"))
    parser.add_argument("--rpc", required=True)
    parser.add_argument("--gateway", required=True)
    parser.add_argument("--multicall", required=True)
    parser.add_argument("--csm", required=True)
    parser.add_argument("--chain-id", type=int, required=True)
    parser.add_argument("--n", type=int, default=0)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    print(json.dumps({"rss_baseline_kib": rss_kib()}), flush=True)
    config = SyncConfig(
        rpc_url=args.rpc,
        gateway_url=args.gateway,
        sources=all_ids_sources(args.chain_id, [(CSM_KIND, args.csm)]),
        multicall=args.multicall,
        fetch_concurrency=args.concurrency,
    )
    if args.which == "ours":
        run_ours(config, args.n)
    else:
        run_floor(config, args.csm, args.n)


if __name__ == "__main__":
    main()
