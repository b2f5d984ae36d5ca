"""Benchmark: how long a seeded devnet takes to start (``python scripts/bench_devnet.py [runs]``).

Prints each run's total and per-phase seconds (anvil, kubo, deploy, seed) as recorded in
``devnet.json``, then the median. Solidity compilation is cached in
``~/.cache/mech-catalogue/solc`` and is not part of a warm start.
"""

import statistics
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.devnet import Devnet  # noqa: E402  pylint: disable=wrong-import-position


def main(runs: int = 3) -> None:
    """Start and stop a seeded devnet ``runs`` times and print the timings.

    :param runs: number of starts.
    """
    totals = []
    for run in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            with Devnet.start(seed=True, state_dir=Path(folder) / "devnet") as devnet:
                info = devnet.info
            totals.append(info.startup_seconds or 0.0)
            print(f"run {run + 1}: {info.startup_seconds:.2f} s {info.startup_phases}")
    print(f"median of {runs}: {statistics.median(totals):.2f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
