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

"""Benchmark: marketplace facts for many mechs (``python scripts/bench_marketplace.py [mechs]``).

Starts a seeded devnet, creates ``mechs`` more mechs through ``MechMarketplace.create``
(spread over the seeded services), then times discovery (``eth_getLogs`` in ranges) and
the batched facts read (Multicall2) at two batch sizes, and prints the ``eth_call`` count.
"""

import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.devnet import Devnet  # noqa: E402  pylint: disable=wrong-import-position
from scripts.devnet.marketplace import (  # noqa: E402  pylint: disable=wrong-import-position
    discover,
    read_facts,
)


def main(extra: int = 200) -> None:
    """Create ``extra`` mechs on a fresh devnet and time the reads.

    :param extra: mechs to create besides the seeded ones.
    """
    with tempfile.TemporaryDirectory() as folder:
        with Devnet.start(seed=True, state_dir=Path(folder) / "devnet") as devnet:
            registry = devnet.contract("ServiceRegistryL2")
            services = sorted(
                {m["service_id"] for m in devnet.info.mechs if "service_id" in m}
            )
            began = time.monotonic()
            for n in range(extra):
                service_id = services[n % len(services)]
                owner = registry.functions.ownerOf(service_id).call()
                devnet.create_mech(service_id, 10**15 + n, owner)
            print(f"created {extra} mechs in {time.monotonic() - began:.1f} s")
            began = time.monotonic()
            checkpoint, ranges = discover(devnet, None, max_range=1000)
            print(
                f"discovery: {len(checkpoint.mechs)} mechs, {len(ranges)} eth_getLogs, "
                f"{time.monotonic() - began:.3f} s"
            )
            for batch_size in (200, 5000):
                began = time.monotonic()
                _, facts, calls = read_facts(
                    devnet,
                    list(checkpoint.mechs),
                    devnet.w3.eth.block_number,
                    batch_size,
                )
                print(
                    f"facts of {len(facts)} mechs, batch {batch_size}: {calls} eth_calls, "
                    f"{time.monotonic() - began:.3f} s"
                )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
