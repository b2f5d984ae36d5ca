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

"""Attack: many registrations whose manifest digests never resolve on IPFS.

Anyone can create a service and ``changeHash`` it to any 32 bytes; nothing needs to be
pinned. A public gateway asked for a CID nobody provides searches the DHT and answers
late or never (the devnet's kubo is offline and answers at once, so the gateway proxy
hangs on those CIDs instead, past ``fetch_timeout``). Every period re-requests every such
digest (a failure is not cached): 2 CIDs per digest (dag-pb, raw), ``1 + retries`` tries
each, ``fetch_concurrency`` in flight.

Run: ``PYTHONPATH=$PWD nice -n 10 .venv/bin/python -m tests.adversary.dead_digests_attack``
(a devnet of its own in a temporary folder; about a minute). It runs the skill's own
``RegistrySnapshotBehaviour`` / ``FetchManifestsBehaviour`` (``tests/faults/agent_period.py``)
with the fault suite's small timeouts (1 s per GET, one retry), adds dead digests in
steps, changes one honest manifest before each step, runs two periods per step and prints
for each: its wall time, the fetch bound the start-up check assumes
(``2 x (1 + retries) x fetch_timeout + 2 x backoff``), the scaled round timeout, and
whether the honest change was served in that period.
"""

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

from mech_catalogue_core.catalogue.fetching import (
    FetchPolicy,
)
from mech_catalogue_core.ipfs.cid import (
    candidate_cids,
)
from mech_catalogue_core.ipfs.gateways import (
    GatewayPolicy,
)

from mech_catalogue_cli.sync_driver import PeriodOutcome, SyncConfig, all_ids_sources
from scripts.bench_sync import (
    add_manifests,
    change_hashes,
    create_services,
    make_manifest,
    populate,
)
from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.faults.agent_period import AgentPeriod

HONEST = 6
FETCH_TIMEOUT = 1.0
RETRIES = 1
BACKOFF = 0.05
#: the start-up check's bound on one unfetchable digest (both codecs, every try)
ONE_DIGEST_BOUND = 2 * (1 + RETRIES) * FETCH_TIMEOUT + 2 * BACKOFF
#: the skill's defaults keep FETCH_TIMEOUT at 120 / 63 of that bound; scaled likewise
ROUND_TIMEOUT = ONE_DIGEST_BOUND * 120.0 / 63.0


def dead_digest(index: int) -> bytes:
    """A digest nobody can serve, sorting before any honest one.

    :param index: makes it distinct.
    :return: 32 bytes.
    """
    return b"\x00" * 28 + index.to_bytes(4, "big")


def served(outcome: PeriodOutcome, expected: List[str]) -> bool:
    """Tell whether service 1 serves the expected tools.

    :param outcome: the period's outcome.
    :param expected: service 1's tool names, sorted.
    :return: True when served.
    """
    catalogue = outcome.catalogue
    if catalogue is None:
        return False
    mech = next(m for m in catalogue.mechs if m.ref.mech_id == 1)
    return sorted(t.name for t in mech.tools) == expected


def config(devnet: Devnet, rpc: LoopbackProxy, gateway: LoopbackProxy) -> SyncConfig:
    """The fault suite's small-timeout parameters, pointed at the proxies.

    :param devnet: the devnet.
    :param rpc: proxy in front of anvil.
    :param gateway: proxy in front of kubo's gateway.
    :return: the config.
    """
    contracts = devnet.info.contracts
    return SyncConfig(
        rpc_url=rpc.url,
        gateway_url=gateway.url,
        sources=all_ids_sources(
            devnet.info.chain_id,
            [
                (
                    "complementary_service_metadata",
                    contracts["ComplementaryServiceMetadata"],
                )
            ],
        ),
        multicall=contracts["Multicall2"],
        rpc_timeout=2.0,
        fetch_timeout=FETCH_TIMEOUT,
        policy=FetchPolicy(
            retries=RETRIES, backoff_initial=BACKOFF, backoff_max=BACKOFF
        ),
        gateway_policy=GatewayPolicy(period_budget_seconds=ROUND_TIMEOUT / 2),
    )


def main(steps: List[int]) -> Dict[str, object]:  # pylint: disable=too-many-locals
    """Run the attack in steps of more dead digests.

    :param steps: total dead digests registered at each step, increasing.
    :return: the figures (also printed as JSON lines).
    """
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        devnet = Devnet.start(seed=False, state_dir=Path(folder) / "devnet")
        rpc = LoopbackProxy(devnet.info.rpc_url)
        gateway = LoopbackProxy(devnet.info.ipfs_gateway_url)
        gateway.hang_seconds = 3 * FETCH_TIMEOUT
        agent = None
        try:
            populate(devnet, 1, HONEST)
            agent = AgentPeriod(config(devnet, rpc, gateway))
            agent.period()  # cold: the honest manifests are cached from here on
            owner = devnet.address("owner_1")
            dead = 0
            for version, total in enumerate(steps, start=1):
                ids = create_services(devnet, total - dead)
                digests = {sid: dead_digest(dead + i) for i, sid in enumerate(ids)}
                for digest in digests.values():
                    for cid in candidate_cids("0x" + digest.hex()):
                        gateway.path_modes[cid] = "timeout"
                change_hashes(devnet, digests, owner)
                dead = total
                # the honest owner of service 1 publishes a new manifest
                change_hashes(devnet, add_manifests(devnet, [(1, version)]), owner)
                expected = sorted(json.loads(make_manifest(1, version))["tools"])
                row: Dict[str, object] = {
                    "dead_digests": total,
                    "one_digest_bound_s": round(ONE_DIGEST_BOUND, 2),
                    "scaled_round_timeout_s": round(ROUND_TIMEOUT, 2),
                }
                for label in ("first", "next"):
                    began = time.monotonic()
                    outcome = agent.period()
                    seconds = time.monotonic() - began
                    row[f"{label}_period_s"] = round(seconds, 2)
                    row[f"{label}_over_round_timeout"] = seconds > ROUND_TIMEOUT
                    row[f"{label}_honest_change_served"] = served(outcome, expected)
                    row[f"{label}_gateway_requests"] = gateway.reset_counters().requests
                rows.append(row)
                print(json.dumps(row), flush=True)
        finally:
            if agent is not None:
                agent.close()
            rpc.close()
            gateway.close()
            devnet.stop()
    return {"rows": rows}


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [8, 16, 32, 64])
