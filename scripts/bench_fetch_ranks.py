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

"""What ranking a period's fetches by registration age costs, against the digest-order rule.

``fetching.fetch_ranks`` runs once per period over every digest of the snapshot (and
``still_failing`` once over its results). The old rule (tier, then digest) is inlined
here as it was, so both run in the same process on the same snapshot:
``python -m scripts.bench_fetch_ranks [N ...]`` prints one line per N (best of 5, ms),
each the ranking plus the sort ``manifest_fetcher`` makes of it.
"""

import sys
import time
from typing import Callable, Dict, Iterable, Optional

from mech_catalogue_core.catalogue.fetching import (
    STATUS_OK,
    FetchResult,
    fetch_ranks,
    still_failing,
)
from mech_catalogue_core.chain.registry import DigestRead
from mech_catalogue_core.chain.snapshot import RegistrySnapshot
from mech_catalogue_core.model.catalogue import Catalogue, Mech, MechRef


def digest_order_ranks(
    snapshot: RegistrySnapshot, previous: Optional[Catalogue], failed: Iterable[str]
) -> Dict[str, int]:
    """The rule before adv29v: tiers only (``manifest_fetcher`` then sorted by digest).

    :param snapshot: the snapshot.
    :param previous: the previous catalogue.
    :param failed: last period's failures.
    :return: digest -> tier.
    """
    served = (
        {m.ref for m in previous.mechs if m.status == STATUS_OK} if previous else set()
    )
    vouched = {read.digest for read in snapshot.reads if read.ref in served}
    dead = set(failed)
    return {d: 0 if d in vouched else 2 if d in dead else 1 for d in snapshot.digests}


def in_order(ranks: Dict[str, int]) -> list:
    """The order ``manifest_fetcher`` asks in: by rank, then digest.

    :param ranks: digest -> rank.
    :return: the digests in fetch order.
    """
    return sorted(ranks, key=lambda d: (ranks[d], d))


def best_ms(run: Callable[[], object]) -> float:
    """Best of 5 wall times of ``run``, milliseconds.

    :param run: the work.
    :return: milliseconds.
    """
    times = []
    for _ in range(5):
        began = time.perf_counter()
        run()
        times.append((time.perf_counter() - began) * 1000)
    return min(times)


def measure(size: int) -> str:
    """Time both rules on one snapshot of ``size`` digests.

    :param size: digests in the snapshot (a third served, a third failed).
    :return: one line: both costs, their ratio and ``still_failing``'s cost.
    """
    refs = [
        MechRef(100, "complementary_service_metadata", "0x" + "ab" * 20, i)
        for i in range(size)
    ]
    digests = ["0x" + f"{(i * 2654435761) % 2**256:064x}" for i in range(size)]
    snapshot = RegistrySnapshot.build(1, map(DigestRead, refs, digests))
    previous = Catalogue.build(
        [Mech(r, digest=d, status=STATUS_OK) for r, d in zip(refs, digests)][
            : size // 3
        ]
    )
    failed = frozenset(digests[size // 3 : 2 * size // 3])
    fetched = {d: FetchResult.unavailable(d, ()) for d in digests}
    old = best_ms(lambda: in_order(digest_order_ranks(snapshot, previous, failed)))
    new = best_ms(lambda: in_order(fetch_ranks(snapshot, previous, failed)))
    carry = best_ms(lambda: still_failing(failed, fetched))
    return (
        f"N={size}: digest order {old:.1f} ms, by age {new:.1f} ms "
        f"({new / old:.2f}x), still_failing {carry:.1f} ms"
    )


def main(sizes: Iterable[int]) -> None:
    """Print old and new costs per size.

    :param sizes: digests in each snapshot.
    """
    for size in sizes:
        print(measure(size))


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1_000, 20_000, 100_000])
