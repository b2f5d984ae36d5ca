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

"""What the paid path's own threads cost a read: ``PaidReads.once`` against the default.

A paid call's delivery polls and response read now run through
``mcp_server.paid_reads.PaidReads.once`` (a limiter of their own and one read per key in
flight) instead of ``anyio.to_thread.run_sync`` in the default pool. This script runs a
read that does nothing ``--reads`` times each way, alternating rounds in the same run,
and prints microseconds per read of each and their ratio: the overhead's upper bound (a
real read is a chain or gateway round trip, milliseconds to seconds).

Run: ``python -m scripts.bench_paid_reads [--reads 5000] [--rounds 5]``.
"""

import argparse
import statistics
import time
from typing import Awaitable, Callable, Dict, List

import anyio

from mech_catalogue_cli.mcp_server.paid_reads import PaidReads


def _read() -> int:
    """A read that returns at once."""
    return 1


async def _rounds(reads: int, rounds: int) -> Dict[str, List[float]]:
    """Seconds per read of each way, one figure per round, rounds alternating.

    :param reads: reads per round.
    :param rounds: rounds per way.
    :return: way -> seconds per read, per round.
    """
    paid = PaidReads()

    async def default_pool(_: int) -> int:
        return await anyio.to_thread.run_sync(_read)

    async def own_threads(key: int) -> int:
        return await paid.once(("delivery", key), _read)

    ways: Dict[str, Callable[[int], Awaitable[int]]] = {
        "default pool (before)": default_pool,
        "PaidReads.once (now)": own_threads,
    }
    seconds: Dict[str, List[float]] = {name: [] for name in ways}
    for _ in range(rounds):
        for name, way in ways.items():
            began = time.perf_counter()
            for key in range(reads):
                await way(key)
            seconds[name].append((time.perf_counter() - began) / reads)
    return seconds


def main() -> None:
    """Print microseconds per read of each way and the ratio of their medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    seconds = anyio.run(_rounds, args.reads, args.rounds)
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    for name, median in medians.items():
        print(f"{name}: {median * 1e6:.1f} us per read (median of {args.rounds})")
    before, now = medians.values()
    print(f"ratio now/before: {now / before:.2f} (+{(now - before) * 1e6:.1f} us)")


if __name__ == "__main__":
    main()
