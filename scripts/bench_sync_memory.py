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

"""Peak memory of ours' cold and warm period at N manifests, in-process (no chain, no kubo).

``scripts/bench_sync.py`` measures peak RSS on the devnet, which takes an hour at
N = 10,000. This script runs the same domain code the bench worker's period runs
(``manifest_fetcher`` with verification and the content-addressed cache, ``ParseOnArrival``,
``refresh_catalogue`` building the catalogue; the same imports, so the same baseline) on
the bench's own manifests (``bench_sync.make_manifest``: 10 to 30 typed tools, 20 on
average), served from memory instead of a gateway. Each wave's replies are built as the
gateway fetcher builds them: through ``FetchWindow``, with the same ``keep``.

It prints one JSON line: peak RSS after the cold period (MiB, ``ru_maxrss``), RSS after
each step, CPU seconds, GETs in the warm period (must be 0) and whether the warm period
gives the same catalogue digest. ``--trace`` adds the tracemalloc split (slower: run it
at N <= 2,000). Usage::

    python -m scripts.bench_sync_memory [--n 10000] [--trace]
"""

import argparse
import gc
import json
import os
import resource
import time
import tracemalloc
from typing import Any, Dict, Optional, Tuple

from mech_catalogue_core.catalogue.arrivals import (
    ParseOnArrival,
)
from mech_catalogue_core.catalogue.fetching import (
    FetchPolicy,
    FetchReply,
    FetchRequest,
    ManifestCache,
    manifest_fetcher,
    pack_reply,
    refresh_catalogue,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.driver import drive
from mech_catalogue_core.ipfs.cid import (
    candidate_cids,
)
from mech_catalogue_core.ipfs.gateways import (
    FetchWindow,
    GatewayPolicy,
    GatewayPool,
)
from mech_catalogue_core.ipfs.unixfs import (
    root_digest,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)
from mech_catalogue_core.model.tool import (
    MechRef,
)

from mech_catalogue_cli.sync_driver import parse
from scripts.bench_sync import make_manifest
from scripts.bench_sync_worker import CSM_KIND, rss_kib


def rss_now_mib() -> float:
    """Resident set size now.

    :return: MiB (``/proc/self/statm``).
    """
    with open("/proc/self/statm", encoding="ascii") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


class Bench:
    """N registrations, each of its own manifest, served from memory by CID."""

    def __init__(self, n: int) -> None:
        """Build the snapshot; the manifests are made again when asked (not held).

        :param n: registrations.
        """
        self.service_of: Dict[str, int] = {}
        reads = []
        for service_id in range(1, n + 1):
            _, root = root_digest(
                make_manifest(service_id), raw_leaves=False, cid_version=0
            )
            digest = "0x" + root.hex()
            self.service_of[candidate_cids(digest)[0]] = service_id
            ref = MechRef(31337, CSM_KIND, "0x" + "11" * 20, service_id)
            reads.append(DigestRead(ref, digest))
        self.snapshot = RegistrySnapshot.build(100, reads)
        self.cache = ManifestCache()
        self.gateways = GatewayPool(["http://gateway.invalid"], GatewayPolicy())
        self.gets = 0

    def period(self, previous: Optional[Catalogue]) -> Tuple[Catalogue, Dict[str, Any]]:
        """One period as ``CatalogueSync.period`` runs it, minus the HTTP.

        :param previous: the last catalogue.
        :return: the catalogue and the figures of the period.
        """
        began, gets = time.process_time(), self.gets
        early = ParseOnArrival(parse, FetchPolicy().max_bytes)

        def answer(request: FetchRequest) -> FetchReply:
            # the wave goes through the real FetchWindow, as Fetcher.get_pooled sends it
            window = FetchWindow(request[1], self.gateways, early.arrived, pack_reply)
            while not window.done:
                for cid, _ in window.sendable(time.monotonic()):
                    self.gets += 1
                    data = make_manifest(self.service_of[cid])
                    window.answer(
                        cid, data, "", 200, None, time.monotonic(), time.time()
                    )
            return window.replies

        generator = manifest_fetcher(self.snapshot.digests, self.cache, FetchPolicy())
        fetched = drive(generator, answer)
        after_fetch = rss_now_mib()
        catalogue = refresh_catalogue(self.snapshot, fetched, early.parse, previous)
        del fetched
        gc.collect()
        return catalogue, {
            "rss_after_fetch_mib": round(after_fetch, 1),
            "rss_after_build_mib": round(rss_now_mib(), 1),
            "cpu_seconds": round(time.process_time() - began, 2),
            "gets": self.gets - gets,
        }


def main() -> None:
    """Run a cold and a warm period and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--trace", action="store_true")
    args = parser.parse_args()
    baseline = rss_kib() / 1024
    bench = Bench(args.n)
    gc.collect()
    result: Dict[str, Any] = {"n": args.n, "rss_baseline_mib": round(baseline, 1)}
    result["rss_after_setup_mib"] = round(rss_now_mib(), 1)
    if args.trace:
        tracemalloc.start()
    cold, result["cold"] = bench.period(None)
    result["peak_rss_cold_mib"] = round(rss_kib() / 1024, 1)
    if args.trace:
        result["traced_peak_cold_mib"] = round(
            tracemalloc.get_traced_memory()[1] / 2**20, 1
        )
    warm, result["warm"] = bench.period(cold)
    result["tools"] = sum(len(m.tools) for m in warm.mechs)
    result["warm_same_digest"] = warm.digest() == cold.digest()
    del cold
    gc.collect()
    if args.trace:
        result["traced_after_warm_mib"] = round(
            tracemalloc.get_traced_memory()[0] / 2**20, 1
        )
        for stat in tracemalloc.take_snapshot().statistics("lineno")[:15]:
            print(stat)
    result["peak_rss_mib"] = round(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1
    )
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
