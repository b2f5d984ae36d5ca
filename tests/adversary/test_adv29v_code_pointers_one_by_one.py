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

"""The server reads strangers' dead ``code_uri`` packages one after another (adv29v).

Severity: MEDIUM (stalls the server: its start and every catalogue read; nothing paid).

A manifest whose tool declares no argument and whose top level names a ``code_uri``
(``ipfs://<CID>``) has its arguments derived from that package. The skill reads every
package of a period side by side (``derive.from_chain.lockstep``: docs/faults.md says
"registrations whose ``code_uri`` blocks never arrive cost one fetch timeout each, and
twelve held the fetch round past its timeout every period; now they cost one
together"). The MCP server's direct read does not: ``code_source.derive_catalogue``
drives one ``code_pointer_reader`` after another, each block GET bounded by
``fetch_timeout`` (10 s), nothing cached between reads. So N registrations pointing at
a CID nobody provides (a public gateway holds it until its own timeout) add N fetch
timeouts to every catalogue read, the first one included, which ``mcp`` finishes
before it answers ``initialize``: 60 of them, 10 minutes per read.

Observed on main f50e9323 (devnet: anvil with the real registry bytecode, kubo behind a
loopback proxy holding the dead CIDs 3 s as a public gateway does, read through
``DirectSource`` as ``mcp --devnet`` reads, ``fetch_timeout`` 1 s): a read took 1.1 s
with 1 such registration and 13.1 s with 12 distinct dead packages (``mcp_run``
reads once before serving, so ``initialize`` waits as long).

Expected: as in the skill, the dead packages cost about one fetch timeout together:
twelve add less than three fetch timeouts to a read.
"""

import json
import time
from dataclasses import replace

from mech_catalogue_core.catalogue.fetching import FetchPolicy
from mech_catalogue_core.ipfs.cid import candidate_cids

from mech_catalogue_cli.mcp_server.source import DirectSource
from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.devnet.mcp_helpers import direct_source

FETCH_TIMEOUT = 1.0


def _dead_cid(index: int) -> str:
    """A package CID nobody provides."""
    return candidate_cids(b"\x0c" * 31 + bytes([index + 1]))[0]


def _register(devnet: Devnet, count: int) -> None:
    """``count`` services whose untyped tool points at a dead package."""
    stranger = devnet.address("owner_3")
    for index in range(count):
        manifest = {
            "name": f"dead code {index}",
            "description": "an untyped tool whose package never arrives",
            "code_uri": f"ipfs://{_dead_cid(index)}",
            "tools": [f"untyped-{index}"],
        }
        digest = devnet.add_manifest(json.dumps(manifest).encode())[1]
        service = devnet.register_service(stranger, deploy=True)
        devnet.change_service_hash(service, digest)


def _read_seconds(devnet: Devnet, dead: int) -> float:
    """Seconds of one catalogue read through a gateway holding the dead CIDs."""
    probe = direct_source(devnet)
    config, market = probe.config, probe.marketplace
    probe.close()
    with LoopbackProxy(devnet.info.ipfs_gateway_url.rstrip("/")) as gateway:
        gateway.hang_seconds = 3.0
        gateway.path_modes = {_dead_cid(index): "timeout" for index in range(dead)}
        source = DirectSource(
            replace(
                config,
                gateway_url=gateway.url,
                fetch_timeout=FETCH_TIMEOUT,
                policy=FetchPolicy(retries=0),
            ),
            market,
        )
        try:
            source.read()  # a first read: the same warm caches for the timed one
            began = time.monotonic()
            source.read()
            return time.monotonic() - began
        finally:
            source.close()


def test_twelve_dead_packages_cost_about_one_fetch_timeout(
    chain_snapshot: Devnet,
) -> None:
    """One dead package, then twelve: the read grows by about one timeout each."""
    devnet = chain_snapshot
    _register(devnet, 1)
    one = _read_seconds(devnet, 1)
    _register(devnet, 12)  # 12 distinct packages (the first one twice)
    twelve = _read_seconds(devnet, 12)
    # observed on main: twelve - one about 12 s (one timeout per package)
    assert twelve - one < 3 * FETCH_TIMEOUT, (
        f"a read with 1 dead package took {one:.1f} s, with 12 {twelve:.1f} s "
        f"(fetch_timeout {FETCH_TIMEOUT:g} s)"
    )
