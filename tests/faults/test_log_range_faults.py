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

"""An RPC capping the block range of ``eth_getLogs``: the marketplace is read in halves.

The session devnet (its real MechMarketplace and legacy factory, mechs created by the
seed) behind ``scripts/loopback_proxy.py``, whose ``max_log_range`` answers a wider
``eth_getLogs`` with a JSON-RPC error in the words of a real provider. Both readers of
the marketplace are driven: the skill's behaviours through the real ledger API
(``AgentPeriod``, the ledger connection's own error text) and the MCP server's
``DirectSource``. Whatever the cap, every marketplace fact is read, the same as with no
cap; a refusal that even one block does not satisfy, or a rate limit, is reported with
the RPC's words after a bounded number of requests, and the next period reads everything
once the RPC relents.
"""

import logging
import math
from typing import Dict, Iterator, Tuple

import pytest
from mech_catalogue_core.chain.marketplace import (
    MarketplaceSource,
)
from mech_catalogue_core.chain.registry import (
    parse_registry_sources,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)

from mech_catalogue_cli.devnet_options import DevnetSettings
from mech_catalogue_cli.mcp_server.source import DirectSource, SourceError
from mech_catalogue_cli.sync_driver import SyncConfig
from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy

from .agent_period import AgentPeriod
from .conftest import bounded

#: refusals in the words of public RPCs (``mech_catalogue_core/chain/rpc_limits.py`` names them)
PHRASINGS = {
    "infura": "range {width} exceeds limit of {limit}",
    "quicknode": "eth_getLogs is limited to a {limit:,} range",
    "reth-results": "query exceeds max results 20000, retry with the range 1-{limit}",
    "alchemy": "Log response size exceeded. You can make eth_getLogs requests with up "
    "to a {limit} block range",
}

Facts = Dict[str, Tuple[MechFacts, ...]]


@pytest.fixture(scope="module")
def rpc(devnet: Devnet) -> Iterator[LoopbackProxy]:
    """A proxy in front of the session devnet's anvil.

    :param devnet: the session devnet (read only here).
    :yield: the proxy; its faults are cleared by :func:`capped_rpc` after each test.
    """
    with LoopbackProxy(devnet.info.rpc_url) as proxy:
        yield proxy


@pytest.fixture
def capped_rpc(rpc: LoopbackProxy) -> Iterator[LoopbackProxy]:
    """The module's RPC proxy, its faults cleared after the test.

    :param rpc: the module's proxy.
    :yield: the same.
    """
    try:
        yield rpc
    finally:
        rpc.clear_faults()


def _config(devnet: Devnet, rpc: LoopbackProxy) -> SyncConfig:
    settings = DevnetSettings(devnet.info)
    return SyncConfig(
        rpc_url=rpc.url,
        gateway_url=devnet.info.ipfs_gateway_url,
        sources=parse_registry_sources(settings.registries, devnet.info.chain_id),
        multicall=settings.multicall,
    )


def _market(devnet: Devnet) -> MarketplaceSource:
    return MarketplaceSource(
        devnet.info.chain_id,
        devnet.info.contracts["MechMarketplace"],
        legacy_factory=devnet.info.contracts["FixtureLegacyMechFactory"],
        confirmations=0,
    )


def _facts(catalogue: Catalogue) -> Facts:
    return {m.ref.key: m.marketplace for m in catalogue.mechs if m.marketplace}


def _log_reads(rpc: LoopbackProxy) -> int:
    return rpc.counters.rpc_methods.get("eth_getLogs", 0)


def _agent_facts(devnet: Devnet, rpc: LoopbackProxy) -> Tuple[AgentPeriod, Facts]:
    period = AgentPeriod(_config(devnet, rpc), marketplace=_market(devnet))
    outcome = bounded(period.period())
    assert outcome.updated, outcome.error
    assert outcome.catalogue is not None
    return period, _facts(outcome.catalogue)


def _most_halvings(devnet: Devnet) -> int:
    """Requests a refusal no range satisfies can cost one emitter: each half, then one block."""
    return math.ceil(math.log2(devnet.w3.eth.block_number + 1)) + 2


@pytest.fixture(scope="module")
def uncapped(devnet: Devnet, rpc: LoopbackProxy) -> Facts:
    """The marketplace facts the agent reads with no cap on the range.

    :param devnet: the session devnet.
    :param rpc: the module's proxy (no fault set).
    :return: mech key -> its facts.
    """
    period, facts = _agent_facts(devnet, rpc)
    period.close()
    assert len(facts) >= 2  # the seed's marketplace and legacy mechs
    return facts


@pytest.mark.parametrize("provider", sorted(PHRASINGS))
def test_agent_reads_every_fact_through_a_capped_range(
    devnet: Devnet, capped_rpc: LoopbackProxy, uncapped: Facts, provider: str
) -> None:
    """Ranges over 8 blocks refused in a provider's words: the same facts, each halving logged."""
    capped_rpc.max_log_range = 8
    capped_rpc.log_range_refusal = PHRASINGS[provider]
    capped_rpc.reset_counters()
    period, facts = _agent_facts(devnet, capped_rpc)
    try:
        assert facts == uncapped
        assert capped_rpc.counters.faults > 0
        assert len(period.errors.narrowed) == capped_rpc.counters.faults
        assert not period.errors.lines
    finally:
        period.close()


def test_agent_serves_without_facts_when_one_block_is_refused_then_recovers(
    devnet: Devnet, capped_rpc: LoopbackProxy, uncapped: Facts
) -> None:
    """No range satisfies the RPC: the tools are still served, the RPC's words logged, then facts return."""
    capped_rpc.max_log_range = 0
    capped_rpc.reset_counters()
    period = AgentPeriod(_config(devnet, capped_rpc), marketplace=_market(devnet))
    try:
        outcome = bounded(period.period())
        assert outcome.updated and outcome.catalogue is not None
        assert outcome.catalogue.mechs and not _facts(outcome.catalogue)
        assert any(
            "marketplace facts" in line and "block range is too wide" in line
            for line in period.errors.lines
        ), period.errors.lines
        assert _log_reads(capped_rpc) <= _most_halvings(devnet)
        capped_rpc.clear_faults()
        outcome = bounded(period.period())
        assert outcome.catalogue is not None and _facts(outcome.catalogue) == uncapped
    finally:
        period.close()


@pytest.mark.parametrize("provider", ["infura", "quicknode"])
def test_mcp_direct_source_reads_every_fact_through_a_capped_range(
    devnet: Devnet,
    capped_rpc: LoopbackProxy,
    uncapped: Facts,
    provider: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The MCP server's own reader halves refused ranges too, and says so."""
    capped_rpc.max_log_range = 8
    capped_rpc.log_range_refusal = PHRASINGS[provider]
    source = DirectSource(_config(devnet, capped_rpc), _market(devnet))
    try:
        with caplog.at_level(logging.WARNING):
            facts = _facts(source.catalogue())
        assert facts == uncapped
        assert any("read in halves" in r.getMessage() for r in caplog.records)
    finally:
        source.close()


@pytest.mark.parametrize(
    "refusal, limit",
    [
        ("block range is too wide: {width} blocks, the limit is {limit}", 0),
        ("rate limit exceeded: 10 requests per second, range of {width}", 8),
    ],
    ids=["one-block-refused", "rate-limited"],
)
def test_mcp_direct_source_reports_what_halving_cannot_fix_then_recovers(
    devnet: Devnet,
    capped_rpc: LoopbackProxy,
    uncapped: Facts,
    refusal: str,
    limit: int,
) -> None:
    """A refusal down to one block, or a rate limit (never halved): the RPC's words, bounded requests."""
    capped_rpc.max_log_range = limit
    capped_rpc.log_range_refusal = refusal
    source = DirectSource(_config(devnet, capped_rpc), _market(devnet))
    try:
        before = _log_reads(capped_rpc)
        with pytest.raises(SourceError) as raised:
            source.catalogue()
        said = refusal.split(":", maxsplit=1)[0]
        assert said in str(raised.value)
        reads = _log_reads(capped_rpc) - before
        if "rate" in refusal:
            assert reads == 1
        else:
            assert 1 < reads <= _most_halvings(devnet)
        capped_rpc.clear_faults()
        assert _facts(source.catalogue()) == uncapped
    finally:
        source.close()
