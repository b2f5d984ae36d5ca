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

"""Chain faults: RPC errors, RPC timeouts, a reverting registry call, anvil restarted.

For each: the period returns in bounded time without raising, the last good catalogue is
kept (same tools served), and once the fault clears the catalogue is complete again within
two periods, including a manifest change made during the fault.
"""

from dataclasses import replace
from typing import Union

import pytest
from mech_catalogue_core.chain.registry import (
    MAX_ID,
    READ_CALL_FAILED,
    parse_registry_sources,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    STATUS_UNAVAILABLE,
)

from mech_catalogue_cli.sync_driver import CatalogueSync

from .agent_period import AgentPeriod
from .conftest import MECHS, FaultNet, bounded, catalogue_of, recovers, served


def _good(net: FaultNet) -> Union[AgentPeriod, CatalogueSync]:
    sync = net.sync()
    outcome = bounded(sync.period())
    assert outcome.updated and served(outcome.catalogue) == net.expected_tools()
    return sync


@pytest.mark.parametrize("mode", ["rpc_error", "http_error", "reset"])
def test_rpc_errors_keep_last_catalogue_and_recover(net: FaultNet, mode: str) -> None:
    """JSON-RPC errors, HTTP 500s and dropped connections: last catalogue kept; recovery once cleared."""
    sync = _good(net)
    before = sync.catalogue
    net.update([2])
    net.rpc.mode = mode
    outcome = bounded(sync.period())
    assert not outcome.updated and outcome.error
    assert outcome.catalogue is before
    assert net.rpc.counters.faults >= 1
    net.rpc.clear_faults()
    assert recovers(sync, net.expected_tools()) == 1
    sync.close()


def test_rpc_timeout_is_bounded_and_recovers(net: FaultNet) -> None:
    """An RPC that never answers: the read times out (rpc_timeout), the period returns, recovery follows."""
    sync = _good(net)
    before = sync.catalogue
    net.update([6])
    # only the faulty period has the short timeout (shorter than the proxy's hold): the
    # healthy ones around it do not depend on sub-second answers
    healthy = sync.config
    sync.config = replace(healthy, rpc_timeout=1.0)
    assert net.rpc.hang_seconds > sync.config.rpc_timeout
    net.rpc.mode = "timeout"
    outcome = bounded(sync.period())
    assert not outcome.updated and "eth_call" in outcome.error
    assert outcome.catalogue is before
    net.rpc.clear_faults()
    sync.config = healthy
    assert recovers(sync, net.expected_tools()) == 1
    sync.close()


def test_flapping_rpc_recovers_within_two_periods(net: FaultNet) -> None:
    """Errors on every other period: each faulty period keeps the catalogue, each clean one is complete."""
    sync = _good(net)
    for service_id in (3, 5):
        net.update([service_id])
        net.rpc.mode = "rpc_error"
        kept = sync.catalogue
        assert bounded(sync.period()).catalogue is kept
        net.rpc.clear_faults()
        assert recovers(sync, net.expected_tools()) == 1
    sync.close()


def test_reverting_registry_call_quarantines_only_its_mechs(net: FaultNet) -> None:
    """A registry whose digest calls revert (a CSM source pointed at the Olas AgentRegistry).

    Multicall2's tryBlockAndAggregate(false, ...) isolates the reverting calls: those ids
    are unavailable with registry_call_failed, the real registry's mechs are untouched.

    :param net: the fault net.
    """
    contracts = net.devnet.info.contracts
    sources = parse_registry_sources(
        [
            {
                "kind": "complementary_service_metadata",
                "address": contracts["ComplementaryServiceMetadata"],
                "ids": "all",
            },
            {
                "kind": "complementary_service_metadata",
                "address": contracts["AgentRegistry"],
                "ids": [1, 2],
            },
        ],
        net.devnet.info.chain_id,
    )
    sync = net.sync(sources=sources)
    assert bounded(sync.period()).updated
    net.update([1])  # a change on the real registry while the other source reverts
    outcome = bounded(sync.period())
    assert outcome.updated
    assert served(outcome.catalogue) == net.expected_tools()
    wrong = [
        m
        for m in catalogue_of(outcome).mechs
        if m.ref.registry_address == contracts["AgentRegistry"].lower()
    ]
    assert [m.status for m in wrong] == [STATUS_UNAVAILABLE] * 2
    assert all(READ_CALL_FAILED in m.problems[0].message for m in wrong)
    sync.close()


def test_reverting_supply_read_keeps_last_catalogue(net: FaultNet) -> None:
    """With ids 'all' on a contract without serviceRegistry(): the whole read reverts; the period keeps the last catalogue."""
    contracts = net.devnet.info.contracts
    sync = _good(net)
    before = sync.catalogue
    net.update([5])
    sync.config = net.config(
        sources=parse_registry_sources(
            [
                {
                    "kind": "complementary_service_metadata",
                    "address": contracts["Multicall2"],
                    "ids": "all",
                }
            ],
            net.devnet.info.chain_id,
        )
    )
    outcome = bounded(sync.period())
    assert not outcome.updated and "reverted" in outcome.error
    assert outcome.catalogue is before and served(before) != net.expected_tools()
    sync.config = net.config()
    assert recovers(sync, net.expected_tools()) == 1
    sync.close()


def test_ids_that_do_not_exist_read_as_no_hash(net: FaultNet) -> None:
    """Service ids never minted: no hash, no fetch, no error for the others."""
    contracts = net.devnet.info.contracts
    sources = parse_registry_sources(
        [
            {
                "kind": "complementary_service_metadata",
                "address": contracts["ComplementaryServiceMetadata"],
                "ids": list(range(1, MECHS + 1)) + [MECHS + 1, 10**9, MAX_ID],
            }
        ],
        net.devnet.info.chain_id,
    )
    sync = net.sync(sources=sources)
    assert bounded(sync.period()).updated
    net.update([2])  # a change among the minted ids is still seen
    outcome = bounded(sync.period())
    assert served(outcome.catalogue) == net.expected_tools()
    missing = [m for m in catalogue_of(outcome).mechs if m.ref.mech_id > MECHS]
    assert len(missing) == 3 and all(
        m.status == "no_hash" and not m.tools for m in missing
    )
    sync.close()


@pytest.mark.long_faults
def test_anvil_restarted(net: FaultNet) -> None:
    """Anvil stops for a while and comes back with its state: periods during the outage keep the catalogue."""
    sync = _good(net)
    before = sync.catalogue
    net.update([4])
    expected = net.expected_tools()
    state = net.stop_anvil()
    for _ in range(2):  # two periods while the chain is down
        outcome = bounded(sync.period())
        assert not outcome.updated and outcome.catalogue is before
    assert before is not None and all(m.status == STATUS_OK for m in before.mechs)
    net.start_anvil(state)
    assert recovers(sync, expected) == 1
    sync.close()


def test_oversized_batches_are_split_and_reported(net: FaultNet) -> None:
    """An RPC refusing eth_calls over ~8 KB: batches are halved until they pass; same catalogue."""
    sync = _good(net)
    before = sync.catalogue
    net.update([4])
    net.rpc.max_request_bytes = 8_000  # a batch of 200 calls is ~20 KB of JSON
    faults_before = net.rpc.counters.faults
    outcome = bounded(sync.period())
    assert outcome.updated and not outcome.error
    assert served(outcome.catalogue) == net.expected_tools() != served(before)
    assert outcome.rpc_splits and all(
        "too large" in line and "halves" in line for line in outcome.rpc_splits
    )
    assert net.rpc.counters.faults - faults_before == len(outcome.rpc_splits)
    assert outcome.eth_calls > 2  # the halves each cost a call
    sync.close()


def test_a_single_call_still_too_large_keeps_the_last_catalogue(net: FaultNet) -> None:
    """A limit no call fits: the period stops with the RPC's reason, the last catalogue is kept."""
    sync = _good(net)
    before = sync.catalogue
    net.update([1])
    net.rpc.max_request_bytes = 10
    outcome = bounded(sync.period())
    assert not outcome.updated and "too large" in outcome.error
    assert outcome.catalogue is before
    net.rpc.clear_faults()
    assert recovers(sync, net.expected_tools()) == 1
    sync.close()
