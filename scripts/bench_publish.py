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

"""Measure a full publish run on a fresh devnet: every transaction sent and its gas.

Run: ``.venv/bin/python scripts/bench_publish.py``. Starts a seeded devnet in a temporary
folder, publishes a manifest generated from the fixture tool packages to one mech of each
registry kind (owner key for the Olas AgentRegistry through RegistriesManager, the legacy
mech registry and an undeployed service's ComplementaryServiceMetadata; the service Safe
for a deployed service), then runs every publish again, which must send nothing. Prints
one JSON line per publish (tx hash, gas used from the receipt, wall seconds) and a total.
"""

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from web3.types import RPCEndpoint  # noqa: E402  pylint: disable=wrong-import-position

from scripts.devnet import Devnet  # noqa: E402  pylint: disable=wrong-import-position
from scripts.devnet.publishing import (  # noqa: E402  pylint: disable=wrong-import-position
    deployed_service,
    generated_manifest,
    publisher,
    seeded,
)


def main() -> None:
    """Run the full publish and print the measurements."""
    with (
        tempfile.TemporaryDirectory() as folder,
        Devnet.start(seed=True, state_dir=Path(folder)) as devnet,
    ):
        safe_mech, safe, instance = deployed_service(devnet)
        devnet.w3.provider.make_request(
            RPCEndpoint("anvil_setBalance"), [instance.address, hex(10**18)]
        )
        runs = [
            (
                "olas_agent_registry (owner key, RegistriesManager.updateHash)",
                seeded(devnet, "olas"),
                None,
            ),
            (
                "legacy_mech_registry (owner key, updateHash)",
                seeded(devnet, "legacy"),
                None,
            ),
            (
                "complementary_service_metadata (owner key, changeHash)",
                seeded(devnet, "service"),
                None,
            ),
            (
                "complementary_service_metadata (service Safe, execTransaction(changeHash))",
                safe_mech,
                safe,
            ),
        ]
        total = 0
        for attempt in ("first", "rerun"):
            for label, mech, via_safe in runs:
                document = generated_manifest(f"bench {label}")
                signer = instance if via_safe else mech.owner
                began = time.monotonic()
                report = publisher(devnet).publish(
                    document, mech.target, account=signer, safe=via_safe
                )
                seconds = round(time.monotonic() - began, 3)
                total += report.gas_used
                print(
                    json.dumps(
                        {
                            "attempt": attempt,
                            "path": label,
                            "decision": report.decision,
                            "tx": report.tx_hash,
                            "gas_used": report.gas_used,
                            "tools": len(report.tools),
                            "seconds": seconds,
                        }
                    )
                )
        print(json.dumps({"transactions_gas_total": total}))


if __name__ == "__main__":
    main()
