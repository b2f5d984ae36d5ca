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

"""Fixtures for the fault suite: a devnet of its own, behind fault-injecting loopback proxies.

The suite kills and restarts anvil and kubo, so it never shares the session devnet. One
devnet per module: anvil with the real ServiceRegistryL2 / ComplementaryServiceMetadata
bytecode and Multicall2, kubo offline; :data:`MECHS` services, each with a manifest set by
a real ``changeHash`` transaction. The code under test reads the chain and the gateway
through :class:`scripts.loopback_proxy.LoopbackProxy` instances, which inject the faults.

Markers: every test here is ``faults``; slow ones (process restarts, timeouts of
seconds) are also ``long_faults`` and run only with ``RUN_LONG_FAULTS=1`` (``make faults``).
"""

import json
import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple, Union

import pytest
import requests
from mech_catalogue_core.catalogue.fetching import (
    FetchPolicy,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    Catalogue,
)
from web3.types import RPCEndpoint

from mech_catalogue_cli.sync_driver import (
    CatalogueSync,
    PeriodOutcome,
    SyncConfig,
    all_ids_sources,
)
from scripts.bench_sync import add_manifests, change_hashes, make_manifest, populate
from scripts.devnet import Devnet
from scripts.devnet.anvil import anvil_command
from scripts.devnet.processes import spawn, stop_pid, wait_until
from scripts.loopback_proxy import LoopbackProxy
from scripts.toolchain import tool_path

from .agent_period import AgentPeriod

MECHS = 6
CSM_KIND = "complementary_service_metadata"
#: the longest a period may take under any fault here: every timeout and backoff is small
PERIOD_BOUND_SECONDS = 30.0
#: rpc_timeout and fetch_timeout of the periods here, seconds: generous, as no fault here
#: waits for them but those of the tests that set their own
HEALTHY_TIMEOUT_SECONDS = 5.0
LONG_ENV = "RUN_LONG_FAULTS"


def pytest_configure(config: pytest.Config) -> None:
    """Register the suite's markers.

    :param config: pytest's config.
    """
    config.addinivalue_line("markers", "faults: fault-injection tests (tests/faults)")
    config.addinivalue_line(
        "markers", f"long_faults: slow fault tests, run with {LONG_ENV}=1 (make faults)"
    )


def pytest_collection_modifyitems(items: List[pytest.Item]) -> None:
    """Mark everything here ``faults``; skip ``long_faults`` unless asked for.

    :param items: the collected tests.
    """
    here = Path(__file__).parent
    skip = pytest.mark.skip(
        reason=f"long fault test: set {LONG_ENV}=1 or run `make faults`"
    )
    for item in items:
        if here not in Path(str(item.fspath)).parents:
            continue
        item.add_marker(pytest.mark.faults)
        if "long_faults" in item.keywords and os.environ.get(LONG_ENV) != "1":
            item.add_marker(skip)


@dataclass
class FaultNet:
    """The devnet, its proxies and helpers to break and repair it.

    :param devnet: the devnet.
    :param rpc: the proxy in front of anvil.
    :param gateway: the proxy in front of kubo's gateway.
    :param versions: service id -> manifest version currently on chain.
    :param driver: what :meth:`sync` runs: ``"agent"``, the skill's own behaviours
        (:class:`tests.faults.agent_period.AgentPeriod`), or ``"cli"``, the CLI's
        ``mech-catalogue list`` period (``mech_catalogue_cli/sync_driver.py``).
    """

    devnet: Devnet
    rpc: LoopbackProxy
    gateway: LoopbackProxy
    versions: Dict[int, int]
    driver: str = "agent"
    opened: List[Union[AgentPeriod, CatalogueSync]] = field(default_factory=list)

    def config(self, **overrides) -> SyncConfig:
        """Build the period's parameters, pointed at the proxies, with small timeouts.

        :param overrides: SyncConfig fields to change.
        :return: the config.
        """
        contracts = self.devnet.info.contracts
        config = SyncConfig(
            rpc_url=self.rpc.url,
            gateway_url=self.gateway.url,
            sources=all_ids_sources(
                self.devnet.info.chain_id,
                [(CSM_KIND, contracts["ComplementaryServiceMetadata"])],
            ),
            multicall=contracts["Multicall2"],
            # a healthy period must not hang on sub-second answers: on a loaded machine
            # anvil once took over 1 s for a registry read (a red soak run); a test about
            # timeouts sets its own, for its fault only where it can (rpc_timeout)
            rpc_timeout=HEALTHY_TIMEOUT_SECONDS,
            fetch_timeout=HEALTHY_TIMEOUT_SECONDS,
            policy=FetchPolicy(retries=1, backoff_initial=0.05, backoff_max=0.1),
        )
        return replace(config, **overrides)

    def sync(self, **overrides) -> Union[AgentPeriod, CatalogueSync]:
        """Build a period loop with :meth:`config`, run by :attr:`driver`.

        :param overrides: SyncConfig fields to change.
        :return: the loop (close it after).
        """
        config = self.config(**overrides)
        sync = CatalogueSync(config) if self.driver == "cli" else AgentPeriod(config)
        self.opened.append(sync)
        return sync

    def update(self, service_ids: List[int]) -> None:
        """Give services a new manifest (new content, new CID) with real ``changeHash``.

        :param service_ids: the services.
        """
        self.set_hashes(self.add_new_manifests(service_ids))

    def add_new_manifests(self, service_ids: List[int]) -> Dict[int, bytes]:
        """Add the next manifest version of services to kubo, without touching the chain.

        :param service_ids: the services.
        :return: service id -> digest, for :meth:`set_hashes` (which works with kubo down).
        """
        for sid in service_ids:
            self.versions[sid] += 1
        return add_manifests(
            self.devnet, [(sid, self.versions[sid]) for sid in service_ids]
        )

    def set_hashes(self, digests: Dict[int, bytes]) -> None:
        """Set services' manifest hashes on chain (``changeHash``; receipts checked).

        :param digests: service id -> digest, from :meth:`add_new_manifests`.
        """
        change_hashes(self.devnet, digests, self.devnet.address("owner_1"))

    def expected_tools(self) -> Dict[int, Tuple[str, ...]]:
        """Tool names every service should serve once healthy.

        :return: service id -> sorted tool names of its current manifest version.
        """
        return {
            sid: tuple(sorted(json.loads(make_manifest(sid, version))["tools"]))
            for sid, version in self.versions.items()
        }

    def stop_kubo(self) -> None:
        """Kill kubo (SIGTERM, then SIGKILL)."""
        stop_pid(self.devnet.info.ipfs_pid)

    def start_kubo(self) -> None:
        """Start kubo again on the same repo and ports (the repo keeps the pinned manifests)."""
        info = self.devnet.info
        pid = spawn(
            [str(tool_path("ipfs")), "daemon", "--offline"],
            Path(info.state_dir) / "kubo-restart.log",
            env={"IPFS_PATH": info.ipfs_path},
        )
        info.ipfs_pid = pid
        info.save()
        wait_until(
            self.devnet.ipfs.is_ready,
            30,
            "kubo",
            pid,
            Path(info.state_dir) / "kubo-restart.log",
        )

    def stop_anvil(self) -> str:
        """Dump anvil's chain state, then stop it.

        :return: the state (``anvil_dumpState``), for :meth:`start_anvil`.
        """
        state = self.devnet.w3.provider.make_request(
            RPCEndpoint("anvil_dumpState"), []
        )["result"]
        stop_pid(self.devnet.info.anvil_pid)
        return str(state)

    def start_anvil(self, state: str) -> None:
        """Start anvil again on the same port and load the chain state.

        :param state: from :meth:`stop_anvil`.
        """
        info = self.devnet.info
        port = info.rpc_url.rsplit(":", 1)[1]
        log = Path(info.state_dir) / "anvil-restart.log"
        args = anvil_command(int(port), info.chain_id)
        info.anvil_pid = spawn(args, log)
        info.save()

        def ready() -> bool:
            try:
                return requests.post(
                    info.rpc_url,
                    json={
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "eth_chainId",
                        "params": [],
                    },
                    timeout=1,
                ).ok
            except requests.RequestException:
                return False

        wait_until(ready, 30, "anvil", info.anvil_pid, log)
        self.devnet.w3.provider.make_request(RPCEndpoint("anvil_loadState"), [state])


@pytest.fixture(scope="module")
def fault_net() -> Iterator[FaultNet]:
    """A devnet of :data:`MECHS` services with manifests, behind two proxies.

    :yield: the fault net; faults are cleared after every test by :func:`net`.
    """
    with tempfile.TemporaryDirectory() as folder:
        devnet = Devnet.start(seed=False, state_dir=Path(folder) / "devnet")
        rpc = gateway = None
        try:
            populate(devnet, 1, MECHS)
            rpc = LoopbackProxy(devnet.info.rpc_url)
            gateway = LoopbackProxy(devnet.info.ipfs_gateway_url)
            gateway.hang_seconds = rpc.hang_seconds = 3.0
            yield FaultNet(
                devnet, rpc, gateway, {sid: 0 for sid in range(1, MECHS + 1)}
            )
        finally:
            for proxy in (rpc, gateway):
                if proxy is not None:
                    proxy.close()
            devnet.stop()


@pytest.fixture(params=["agent", "cli"])
def net(fault_net: FaultNet, request: pytest.FixtureRequest) -> Iterator[FaultNet]:
    """The module's fault net, with faults cleared after the test.

    Every test using it runs twice: through the agent's behaviours (``agent``) and through
    the CLI's ``list`` period (``cli``, ``mech_catalogue_cli/sync_driver.py``).

    :param fault_net: the module's fault net.
    :param request: pytest's request (its param is the driver).
    :yield: the same.
    """
    fault_net.driver = request.param
    try:
        yield fault_net
    finally:
        while fault_net.opened:
            fault_net.opened.pop().close()
        fault_net.rpc.clear_faults()
        fault_net.gateway.clear_faults()


def served(catalogue: Optional[Catalogue]) -> Dict[int, Tuple[str, ...]]:
    """What a catalogue serves.

    :param catalogue: the catalogue.
    :return: service id -> sorted tool names, for mechs with status ok.
    """
    if catalogue is None:
        return {}
    return {
        m.ref.mech_id: tuple(sorted(t.name for t in m.tools))
        for m in catalogue.mechs
        if m.status == STATUS_OK
    }


def bounded(outcome: PeriodOutcome) -> PeriodOutcome:
    """Check the period returned in bounded time (no stalled round).

    :param outcome: the period outcome.
    :return: the same.
    """
    assert (
        outcome.seconds < PERIOD_BOUND_SECONDS
    ), f"period took {outcome.seconds:.1f} s"
    return outcome


def catalogue_of(outcome: PeriodOutcome) -> Catalogue:
    """Get the catalogue a period served, which must exist.

    :param outcome: the period outcome.
    :return: its catalogue.
    """
    assert outcome.catalogue is not None, "no catalogue served"
    return outcome.catalogue


def recovers(
    sync: Union[AgentPeriod, CatalogueSync], expected: Dict[int, Tuple[str, ...]]
) -> int:
    """Run up to two periods until the catalogue serves ``expected``.

    :param sync: the period loop.
    :param expected: service id -> tool names.
    :return: the number of periods it took (1 or 2).
    :raises AssertionError: when two periods were not enough.
    """
    for period in (1, 2):
        outcome = bounded(sync.period())
        if outcome.updated and served(outcome.catalogue) == expected:
            return period
    raise AssertionError(f"not recovered within two periods: {served(sync.catalogue)}")
