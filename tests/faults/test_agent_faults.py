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

"""Agent-level fault: IPFS unreachable for whole periods while a manifest changes on chain.

One tool metadata agent (``scripts.run_local``, abci connection's mock Tendermint, as in
``tests/e2e/test_one_agent.py``) runs against the session devnet, but reads the IPFS
gateway through a :class:`scripts.loopback_proxy.LoopbackProxy`. The proxy then drops
every connection (as a crashed kubo would) while a legacy mech gets a new manifest. The
agent must stay up, keep going round periods, keep serving the last agreed catalogue on
HTTP, and serve the new manifest within two periods of IPFS coming back.
"""

from typing import Callable, Iterator, List, Optional, Set

import pytest
from web3.types import RPCEndpoint

from scripts.devnet import Devnet, RegisteredManifest
from scripts.loopback_proxy import LoopbackProxy
from scripts.run_local.runner import LocalRun
from scripts.run_local.view import AgentView
from tests.e2e.conftest import wait_for
from tests.e2e.test_one_agent import _view  # the same probe as the e2e tests
from tests.faults.one_agent import add_probe_manifest, one_agent, served_legacy_mech

START_TIMEOUT = 180.0
PERIOD_TIMEOUT = 120.0
PROBE_TOOL = "faults-ipfs-outage-probe"


@pytest.fixture(scope="module")
def gateway_proxy(devnet: Devnet) -> Iterator[LoopbackProxy]:
    """A proxy in front of the session devnet's kubo gateway.

    :param devnet: the session devnet.
    :yield: the proxy.
    """
    proxy = LoopbackProxy(devnet.info.ipfs_gateway_url)
    try:
        yield proxy
    finally:
        proxy.close()


@pytest.fixture(scope="module")
def agent_behind_proxy(
    devnet: Devnet,
    gateway_proxy: LoopbackProxy,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[LocalRun]:
    """One agent whose IPFS gateway is the proxy; stopped (by pid) after the module.

    :param devnet: the session devnet.
    :param gateway_proxy: the proxy.
    :param tmp_path_factory: pytest's temporary folders.
    :yield: the running agent.
    """
    with one_agent(
        devnet,
        tmp_path_factory.mktemp("agent_faults"),
        IPFS_GATEWAY_URL=gateway_proxy.url,
        IPFS_ADDRESS=f"{gateway_proxy.url}/ipfs/",
    ) as run:
        yield run


def _when(view: AgentView, check: Callable[[AgentView], object]) -> Optional[AgentView]:
    return view if check(view) else None


def _names(view: AgentView) -> Set[str]:
    return {tool["name"] for tool in view.tools}


@pytest.mark.long_faults
def test_agent_keeps_serving_through_an_ipfs_outage(
    agent_behind_proxy: LocalRun,
    gateway_proxy: LoopbackProxy,
    devnet: Devnet,
    registered: Callable[..., List[RegisteredManifest]],
) -> None:
    """IPFS down for two periods: same catalogue served, periods go on; back: the new manifest in <= 2 periods."""
    run = agent_behind_proxy
    before = wait_for(
        lambda: _when(_view(run), lambda v: v.has_catalogue and v.tools),
        START_TIMEOUT,
        "the first agreed catalogue",
    )
    assert (
        gateway_proxy.counters.requests > 0
    )  # the agent really fetches through the proxy
    target = served_legacy_mech(before, registered)
    digest = add_probe_manifest(devnet, PROBE_TOOL, "set while IPFS is down")

    gateway_proxy.mode = "reset"
    devnet.update_legacy_hash(target.owner, target.id, digest)
    # the agent reads at the latest block aligned down to snapshot_block_interval (10);
    # anvil mines only on transactions, so move the chain on past the next boundary
    devnet.w3.provider.make_request(RPCEndpoint("anvil_mine"), [hex(20)])
    start_period = int(before.health.get("period", 0))
    during = wait_for(
        lambda: _when(
            _view(run), lambda v: int(v.health.get("period", 0)) >= start_period + 2
        ),
        3 * PERIOD_TIMEOUT,
        "two periods during the outage",
    )
    assert gateway_proxy.counters.faults > 0  # the agent tried IPFS and was refused
    assert _names(during) == _names(before)  # the last good catalogue, still served
    assert PROBE_TOOL not in _names(during)
    mech = next(
        m
        for m in during.mechs
        if m["ref"]["registry_kind"] == "legacy_mech_registry"
        and m["ref"]["mech_id"] == target.id
    )
    assert mech["status"] == "ok"  # still served from the last good manifest
    assert {"fetch_failed", "kept_last_good"} <= {
        p["code"] for p in mech["problems"]
    }, mech

    gateway_proxy.clear_faults()
    cleared_period = int(_view(run).health.get("period", 0))
    after = wait_for(
        lambda: _when(_view(run), lambda v: PROBE_TOOL in _names(v)),
        3 * PERIOD_TIMEOUT,
        f"{PROBE_TOOL} in GET /tools after IPFS came back",
    )
    assert int(after.health.get("period", 0)) <= cleared_period + 2
    assert run.processes[0].alive()
