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

"""Gateway faults that come with scale: rate-limiting, one gateway of two down, 429 storms.

Real kubo and anvil (the fault devnet) behind :class:`scripts.loopback_proxy.LoopbackProxy`
instances; the period is the skill's, driven by ``mech_catalogue_cli/sync_driver.py`` with the skill's
gateway policy (``domain.ipfs.gateways``). For each fault: the period ends in bounded
time, mechs whose new manifest could not be had keep their last good tools, the other
mechs go on, and the next period recovers. Requests are counted, never timed.
"""

import time
from dataclasses import replace
from typing import Iterator

import pytest
from mech_catalogue_core.catalogue.fetching import (
    FETCH_FAILED,
    KEPT_LAST_GOOD,
)
from mech_catalogue_core.ipfs.gateways import (
    GatewayPolicy,
)

from scripts.loopback_proxy import LoopbackProxy, NetworkModel

from .agent_period import AgentPeriod
from .conftest import FaultNet, bounded, recovers, served

#: small budgets so a fault lasting the whole period ends the period quickly
POLICY = GatewayPolicy(period_budget_seconds=3.0, cooldown_seconds=0.5)


@pytest.fixture
def second_gateway(net: FaultNet) -> Iterator[LoopbackProxy]:
    """A second gateway (another proxy in front of the same kubo).

    :param net: the fault net.
    :yield: the proxy.
    """
    proxy = LoopbackProxy(net.devnet.info.ipfs_gateway_url)
    try:
        yield proxy
    finally:
        proxy.close()


def _codes(catalogue, service_id):
    mech = next(m for m in catalogue.mechs if m.ref.mech_id == service_id)
    return [p.code for p in mech.problems]


def test_gateway_rate_limiting_a_whole_period(net: FaultNet) -> None:
    """Every GET answered 429: the period ends within its budget, last good kept, then recovery."""
    sync = net.sync(gateway_policy=POLICY)
    assert recovers(sync, net.expected_tools()) == 1
    before = served(sync.catalogue)
    net.update([1, 2])
    net.gateway.mode = "rate_limited"
    net.gateway.retry_after = 1
    net.gateway.reset_counters()
    outcome = bounded(sync.period())
    assert outcome.updated and served(outcome.catalogue) == before
    for service_id in (1, 2):
        assert FETCH_FAILED in _codes(outcome.catalogue, service_id)
        assert KEPT_LAST_GOOD in _codes(outcome.catalogue, service_id)
    for service_id in (3, 4, 5, 6):  # the others are untouched
        assert _codes(outcome.catalogue, service_id) == []
    seen = net.gateway.reset_counters()
    # Retry-After honoured: within a 3 s budget and a 1 s Retry-After, each CID is
    # asked at most once per second (4 rounds: t = 0, 1, 2 and one at the edge)
    assert 0 < seen.requests <= 2 * 4
    net.gateway.clear_faults()
    assert recovers(sync, net.expected_tools()) == 1
    sync.close()


def test_one_of_two_gateways_down(net: FaultNet, second_gateway: LoopbackProxy) -> None:
    """The preferred gateway answers 502: the second serves everything; the first is skipped, then found back."""
    policy = replace(POLICY, cooldown_seconds=5.0)
    sync = net.sync(gateway_policy=policy, fallback_gateway_urls=(second_gateway.url,))
    assert recovers(sync, net.expected_tools()) == 1
    net.gateway.mode = "down"
    net.gateway.reset_counters()
    second_gateway.reset_counters()
    for changed in ([3, 4], [5]):  # three failures in a row: marked down
        net.update(changed)
        outcome = bounded(sync.period())
        assert served(outcome.catalogue) == net.expected_tools()  # nothing lost
    assert net.gateway.reset_counters().requests == policy.failure_threshold
    assert second_gateway.reset_counters().requests == 3
    net.update([6, 1])
    outcome = bounded(sync.period())
    assert served(outcome.catalogue) == net.expected_tools()
    # within its cooldown the first gateway is skipped: no GET wasted on it
    assert net.gateway.reset_counters().requests == 0
    assert second_gateway.reset_counters().requests == 2
    # the first gateway comes back: after its cooldown it is probed and preferred again
    net.gateway.clear_faults()
    time.sleep(policy.cooldown_seconds + 0.1)
    net.update([2])
    outcome = bounded(sync.period())
    assert served(outcome.catalogue) == net.expected_tools()
    assert net.gateway.reset_counters().requests == 1
    assert second_gateway.reset_counters().requests == 0
    sync.close()


def test_both_gateways_down_keeps_last_good_and_recovers(
    net: FaultNet, second_gateway: LoopbackProxy
) -> None:
    """Both gateways down: last good kept with fetch_failed, no stall; both back: recovered next period."""
    sync = net.sync(gateway_policy=POLICY, fallback_gateway_urls=(second_gateway.url,))
    assert recovers(sync, net.expected_tools()) == 1
    before = served(sync.catalogue)
    net.update([4])
    net.gateway.mode = "down"
    second_gateway.mode = "gateway_timeout"
    outcome = bounded(sync.period())
    assert served(outcome.catalogue) == before
    assert KEPT_LAST_GOOD in _codes(outcome.catalogue, 4)
    net.gateway.clear_faults()
    second_gateway.clear_faults()
    assert recovers(sync, net.expected_tools()) == 1
    sync.close()


def test_429_storm_backs_off_and_loses_nothing(net: FaultNet) -> None:
    """A gateway admitting 2 GETs at once with 8 asked: 429s, the window shrinks, every manifest arrives."""
    sync = net.sync(
        gateway_policy=replace(POLICY, period_budget_seconds=20.0),
        fetch_concurrency=8,
    )
    assert recovers(sync, net.expected_tools()) == 1
    net.gateway.set_network(
        NetworkModel(median=0.05, max_concurrent=2, retry_after=1, seed=7)
    )
    net.gateway.reset_counters()
    net.update([1, 2, 3, 4, 5, 6])
    outcome = bounded(sync.period())
    assert served(outcome.catalogue) == net.expected_tools()
    seen = net.gateway.reset_counters()
    assert seen.rate_limited > 0  # the storm happened
    assert seen.max_in_flight <= 2
    pool = sync.gateways if isinstance(sync, AgentPeriod) else sync.fetcher.gateways
    assert pool.limit < 8  # and the window backed off
    # bounded work: each of the 6 CIDs asked at most max_rate_limited times
    assert seen.requests <= 6 * POLICY.max_rate_limited
    net.gateway.clear_faults()
    net.update([2])
    assert recovers(sync, net.expected_tools()) == 1
    sync.close()


def test_warm_period_costs_no_gateway_request(net: FaultNet) -> None:
    """Nothing changed: 0 IPFS requests; 1 eth_call for 6 services (the ServiceRegistry is remembered)."""
    sync = net.sync(gateway_policy=POLICY)
    assert recovers(sync, net.expected_tools()) == 1
    net.gateway.reset_counters()
    net.rpc.reset_counters()
    outcome = bounded(sync.period())
    assert served(outcome.catalogue) == net.expected_tools()
    assert net.gateway.reset_counters().requests == 0
    batches = -(-len(net.versions) // sync.config.batch_size)
    # serviceRegistry() was read by the first period and is remembered (it is immutable),
    # so totalSupply() rides in the first batch with the digest reads: ceil(N / batch)
    # calls (the cold period paid one more; tests/test_read_costs.py)
    assert outcome.eth_calls == net.rpc.reset_counters().requests == batches == 1
    sync.close()
