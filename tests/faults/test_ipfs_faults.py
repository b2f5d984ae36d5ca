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

"""IPFS faults: a gateway serving other bytes, slow IPFS, gateway errors, kubo killed mid-sync.

Each fault hits manifests the cache does not hold yet (the services get new manifests
first; a verified CID is never fetched again, so cached ones are immune). For each: the
period returns in bounded time, the mechs whose new manifest could not be had keep
serving their last good tools (``kept_last_good``), the others are untouched, and once the
fault clears the new manifests are served within two periods.
"""

import json
import threading

import pytest
from mech_catalogue_core.catalogue.fetching import (
    FETCH_FAILED,
    KEPT_LAST_GOOD,
)
from mech_catalogue_core.model.problems import (
    DIGEST_MISMATCH,
)

from tests.e2e.conftest import wait_for

from .conftest import (
    PERIOD_BOUND_SECONDS,
    FaultNet,
    bounded,
    catalogue_of,
    recovers,
    served,
)


def _good(net: FaultNet, **overrides):
    sync = net.sync(**overrides)
    outcome = bounded(sync.period())
    assert outcome.updated and served(outcome.catalogue) == net.expected_tools()
    return sync


def _codes(catalogue, service_id):
    mech = next(m for m in catalogue.mechs if m.ref.mech_id == service_id)
    return [p.code for p in mech.problems]


def test_gateway_serving_other_bytes_is_rejected(net: FaultNet) -> None:
    """A gateway answering every CID with another valid manifest: digest_mismatch, last good kept."""
    sync = _good(net)
    before = served(sync.catalogue)
    cached = len(sync.cache)
    net.update([1, 2])
    impostor = json.dumps({"name": "impostor", "tools": ["drain-wallet"]}).encode()
    net.gateway.rewrite = lambda path, body: impostor
    outcome = bounded(sync.period())
    assert outcome.updated
    # old tools for 1 and 2, nothing from the impostor
    assert served(outcome.catalogue) == before
    assert "drain-wallet" not in catalogue_of(outcome).tool_names()
    for service_id in (1, 2):
        assert DIGEST_MISMATCH in _codes(outcome.catalogue, service_id)
        assert KEPT_LAST_GOOD in _codes(outcome.catalogue, service_id)
    assert len(sync.cache) == cached  # nothing unverified was cached
    net.gateway.clear_faults()
    assert recovers(sync, net.expected_tools()) == 1


def test_gateway_flipping_one_byte_is_rejected(net: FaultNet) -> None:
    """One flipped byte is enough to be refused; nothing unverified enters the cache."""
    sync = _good(net)
    before = served(sync.catalogue)
    cached = len(sync.cache)
    net.update([3])
    net.gateway.rewrite = (
        lambda path, body: body[:-2] + bytes([body[-2] ^ 1]) + body[-1:]
    )
    outcome = bounded(sync.period())
    assert DIGEST_MISMATCH in _codes(outcome.catalogue, 3)
    assert KEPT_LAST_GOOD in _codes(outcome.catalogue, 3)
    assert served(outcome.catalogue) == before
    assert len(sync.cache) == cached
    net.gateway.clear_faults()
    assert recovers(sync, net.expected_tools()) == 1


@pytest.mark.parametrize("mode", ["http_error", "down", "reset"])
def test_gateway_errors_keep_last_good(net: FaultNet, mode: str) -> None:
    """HTTP 500, 502 and dropped connections: fetch_failed, last good kept, recovery once cleared."""
    sync = _good(net)
    before = served(sync.catalogue)
    net.update([4])
    net.gateway.mode = mode
    outcome = bounded(sync.period())
    assert FETCH_FAILED in _codes(outcome.catalogue, 4)
    assert KEPT_LAST_GOOD in _codes(outcome.catalogue, 4)
    assert (
        served(outcome.catalogue) == before
    )  # the old tools of 4, the others as they were
    net.gateway.clear_faults()
    assert recovers(sync, net.expected_tools()) == 1


def test_slow_ipfs_within_timeout_still_syncs(net: FaultNet) -> None:
    """Latency below fetch_timeout_seconds only slows the period down: everything is served."""
    sync = _good(net)
    net.update([5, 6])
    net.gateway.latency = 0.3
    outcome = bounded(sync.period())
    assert served(outcome.catalogue) == net.expected_tools()
    assert outcome.seconds >= 0.3


def test_slow_ipfs_beyond_timeout_is_bounded(net: FaultNet) -> None:
    """Latency beyond fetch_timeout_seconds: the period gives up in bounded time and keeps the last good."""
    # the fetch timeout is fixed when the CLI's period loop is built: 1 s, well above a
    # healthy GET here (a baseline at 0.2 s could fail on a loaded machine), below the fault
    sync = _good(net, fetch_timeout=1.0)
    before = served(sync.catalogue)
    net.update([1])
    net.gateway.latency = 2.5
    outcome = bounded(sync.period())
    assert served(outcome.catalogue) == before
    assert FETCH_FAILED in _codes(outcome.catalogue, 1)
    net.gateway.clear_faults()
    assert recovers(sync, net.expected_tools()) == 1


@pytest.mark.long_faults
def test_kubo_killed_mid_sync_and_restarted(net: FaultNet) -> None:
    """Kubo dies while a cold sync is fetching: the period finishes, the rest comes after the restart."""
    first_seen = net.expected_tools()
    changed = net.add_new_manifests([1, 6])  # set on chain while kubo is down
    net.gateway.latency = 0.15  # long enough a sync to be interrupted
    sync = net.sync(fetch_concurrency=1)
    outcomes = []
    net.gateway.reset_counters()
    runner = threading.Thread(target=lambda: outcomes.append(sync.period()))
    runner.start()
    # one fetch at a time: a second gateway request means the first one was answered
    wait_for(
        lambda: net.gateway.counters.requests >= 2,
        PERIOD_BOUND_SECONDS,
        "the first manifest fetched",
        interval=0.01,
    )
    net.stop_kubo()
    runner.join(timeout=60)
    assert not runner.is_alive(), "the period stalled"
    outcome = bounded(outcomes[0])
    got = served(outcome.catalogue)
    assert 0 < len(got) < len(first_seen)  # fetched before the kill: served; after: not
    assert all(got[sid] == first_seen[sid] for sid in got)
    net.set_hashes(changed)
    assert bounded(sync.period()).catalogue is not None  # kubo still down: no crash
    expected = net.expected_tools()
    assert expected != first_seen
    net.gateway.clear_faults()
    net.start_kubo()
    assert recovers(sync, expected) == 1
    sync.close()


@pytest.mark.long_faults
def test_kubo_down_for_a_period_then_back(net: FaultNet) -> None:
    """Kubo down for a whole period while manifests changed: last good kept, recovery after restart."""
    sync = _good(net)
    before = served(sync.catalogue)
    net.update([2, 5])
    net.stop_kubo()
    try:
        outcome = bounded(sync.period())
        assert served(outcome.catalogue) == before
        for service_id in (2, 5):
            assert KEPT_LAST_GOOD in _codes(outcome.catalogue, service_id)
    finally:
        net.start_kubo()
    assert recovers(sync, net.expected_tools()) == 1
    sync.close()
