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

"""Benchmark: the catalogue digest at 20,000 tool offers, whole-document vs incremental.

Not a test (performance is measured here, never asserted). Builds ``--mechs`` mechs of ten
typed tools each (``bench_manifest.ten_tool_manifest``), through the skill's own
``refresh_catalogue``, then times:

- the former definition: sha2-256 of RFC 8785 over the whole catalogue
  (``Catalogue.canonical_bytes``), which every period paid in full;
- the incremental digest, cold (every mech's content digest computed, as after a restart);
- the incremental digest in a warm period: the next block, ``--changed`` mechs with a new
  manifest on chain, every other entry carried over by ``refresh_catalogue``.

Usage::

    python scripts/bench_digest.py [--mechs 2000] [--changed 20] [--rounds 3]
"""

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mech_catalogue_core.catalogue.fetching import (  # noqa: E402 # pylint: disable=wrong-import-position
    FetchResult,
    refresh_catalogue,
)
from mech_catalogue_core.chain.registry import (  # noqa: E402 # pylint: disable=wrong-import-position
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (  # noqa: E402 # pylint: disable=wrong-import-position
    RegistrySnapshot,
)
from mech_catalogue_core.manifest.parsing import (  # noqa: E402 # pylint: disable=wrong-import-position
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (  # noqa: E402 # pylint: disable=wrong-import-position
    Catalogue,
    MechRef,
)

from scripts.bench_manifest import (  # noqa: E402 # pylint: disable=wrong-import-position
    ten_tool_manifest,
)


def parse(data: bytes):
    """Parse as the skill does.

    :param data: manifest bytes.
    :return: (manifest, problems).
    """
    result = parse_manifest(data)
    return result.manifest, result.problems


def best_of(rounds: int, run: Callable[[], object]) -> float:
    """Best wall time of ``run`` over ``rounds`` runs, in seconds.

    :param rounds: how many runs.
    :param run: the work.
    :return: seconds.
    """
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def period(
    block: int, blobs: Dict[int, bytes], previous: Optional[Catalogue]
) -> Catalogue:
    """One refresh of the catalogue at ``block`` with these manifests.

    :param block: the snapshot block.
    :param blobs: mech id -> manifest bytes.
    :param previous: the last agreed catalogue.
    :return: the new catalogue.
    """
    reads: List[DigestRead] = []
    fetched: Dict[str, FetchResult] = {}
    for mech_id, data in blobs.items():
        digest = "0x" + hashlib.sha256(data).hexdigest()
        reads.append(
            DigestRead(
                MechRef(100, "legacy_mech_registry", "0x" + "ab" * 20, mech_id), digest
            )
        )
        fetched[digest] = FetchResult.ok(digest, f"bafk{mech_id}", data)
    return refresh_catalogue(
        RegistrySnapshot.build(block, reads), fetched, parse, previous
    )


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mechs", type=int, default=2000)
    parser.add_argument("--changed", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    blobs = {i: ten_tool_manifest(i) for i in range(1, args.mechs + 1)}
    first = period(10, blobs, None)
    offers = len(first.tools())
    text = first.to_json()

    def whole() -> str:
        return hashlib.sha256(first.canonical_bytes()).hexdigest()

    def cold_digest() -> float:
        loaded = Catalogue.from_json(text)  # untimed: no content digest cached yet
        start = time.perf_counter()
        loaded.digest()
        return time.perf_counter() - start

    changed = dict(blobs)
    for mech_id in range(1, args.changed + 1):
        changed[mech_id] = ten_tool_manifest(mech_id + 10 * args.mechs)
    first.digest()

    def warm_digest() -> float:
        after = period(20, changed, first)  # untimed: the refresh itself
        start = time.perf_counter()
        after.digest()
        return time.perf_counter() - start

    figures = {
        "whole document (former definition)": best_of(args.rounds, whole),
        "incremental, cold (after from_json)": min(
            cold_digest() for _ in range(args.rounds)
        ),
        "incremental, warm period": min(warm_digest() for _ in range(args.rounds)),
        "warm period's refresh (for scale)": best_of(
            args.rounds, lambda: period(20, changed, first)
        ),
    }
    print(
        f"catalogue digest, {args.mechs} mechs x 10 typed tools = {offers} offers, "
        f"{len(text) / 1e6:.1f} MB canonical, {args.changed} mechs changed in the warm period, "
        f"best of {args.rounds}, one core"
    )
    for label, seconds in figures.items():
        print(f"  {label:40s}: {seconds * 1000:9.1f} ms")
    whole_ms = figures["whole document (former definition)"]
    warm = figures["incremental, warm period"]
    print(f"  ratio former / warm: {whole_ms / max(warm, 1e-9):.0f}x")


if __name__ == "__main__":
    main()
