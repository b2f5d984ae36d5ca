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
