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

"""An ``--agent`` source ranks offers as a direct chain read does (issue #29).

The agent's API serves no tenure dates (declared block, first delivery block), so offers
read through it fell back to the other ranking signals. With a chain node the MCP server
reads the tenures itself, by the direct source's code. On the devnet: the agent's API is
the skill's own routes over the catalogue a direct read builds (as
``test_mcp_server.py::test_agent_source_serves_what_a_direct_read_serves``).
"""

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import List, Sequence, Tuple

from mech_catalogue_core.catalogue.exposure import ExposedCatalogue

from mech_catalogue_cli.adapters.jsonrpc import JsonRpc
from mech_catalogue_cli.commands.mcp_run import catalogue_source
from mech_catalogue_cli.mcp_server.offers import NoOffer, Offer, rank_offers
from mech_catalogue_cli.mcp_server.source import AgentSource, ServedCatalogue
from mech_catalogue_cli.mcp_server.tenure import TenureReader
from scripts.devnet import Devnet
from scripts.devnet.marketplace import SEED_MECHS
from tests.devnet.mcp_helpers import agent_api, direct_source

TOOL = "prediction-online"
ROUTINE = "routine-swap"


def _order(offers: Sequence[Offer], allowed: Sequence[str] = ()) -> List[str]:
    """The contracts in the order a call tries them ([] when none may be paid)."""
    try:
        return [o.address for o in rank_offers(offers, allowed=allowed)]
    except NoOffer:
        return []


def _dated(offer: Offer) -> str:
    """An offer's facts but its off-chain endpoint, as text."""
    return str(replace(offer, endpoint=""))


def _named(served: ServedCatalogue, name: str) -> Sequence[Offer]:
    tool = served.named(name)
    assert tool is not None
    return tool.offers


def bought_old_mech(devnet: Devnet) -> Tuple[str, str]:
    """An old mech re-declaring ``prediction-online`` after an honest newcomer did.

    As ``test_mcp_offer_choice.py::test_a_bought_old_mech_does_not_take_the_default_offer``:
    the old mech is created and delivers first; the honest one declares the tool and
    delivers it; then the old one declares the same manifest and delivers again.

    :param devnet: the devnet.
    :return: ``(old, honest)`` mech addresses, lowercase.
    """
    owner, honest_owner = devnet.address("owner_3"), devnet.address("owner_2")
    metadata = devnet.contract("ComplementaryServiceMetadata")
    market = next(
        m
        for m, (k, _) in zip(
            [m for m in devnet.info.mechs if m["kind"] == "marketplace"], SEED_MECHS
        )
        if k == "market"
    )
    digest = metadata.functions.mapServiceHashes(int(market["service_id"])).call()
    old_service = devnet.register_service(owner, deploy=True)
    old = devnet.create_mech(old_service, 1_000, owner)
    devnet.deliver(old, [devnet.request_mech(old, b"\x07" * 32, owner)])
    honest_service = devnet.register_service(honest_owner, deploy=True)
    devnet.change_service_hash(honest_service, digest)
    honest = devnet.create_mech(honest_service, 10**15, honest_owner)
    devnet.deliver(honest, [devnet.request_mech(honest, b"\x08" * 32, honest_owner)])
    devnet.change_service_hash(old_service, digest)
    devnet.deliver(old, [devnet.request_mech(old, b"\x09" * 32, owner)])
    return old.lower(), honest.lower()


def test_an_agent_source_ranks_offers_as_a_direct_read(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Same offers, tenures included, tried in the same order for every tool.

    Without tenures the bought old mech ranks first (it was created earlier); with the
    tenures read from the chain, through the agent as directly, the honest one does.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: unused (the fixture's folder).
    """
    del tmp_path
    devnet = chain_snapshot
    old, honest = bought_old_mech(devnet)
    direct = direct_source(devnet)
    try:
        from_chain = direct.read()
        catalogue = direct.catalogue()
    finally:
        direct.close()
    exposed = ExposedCatalogue(
        catalogue, catalogue.digest(), "snapshot", 1, time.time(), 1
    )
    with agent_api(exposed) as url:
        untimed = AgentSource(url).read()
        agent = AgentSource(
            url, tenure=TenureReader(JsonRpc(devnet.info.rpc_url, 10.0))
        ).read()
        chosen = {"rpc": devnet.info.rpc_url, "marketplace": "0x" + "11" * 20}
        assert isinstance(catalogue_source(url, chosen), AgentSource)
        assert catalogue_source(url, chosen).tenure is not None
    assert [t.name for t in agent.tools] == [t.name for t in from_chain.tools]
    dated = 0
    for got, want, bare in zip(agent.tools, from_chain.tools, untimed.tools):
        # the same offers, tenures included (listed in the agent's order; the
        # off-chain endpoint is not served by the agent's API: compared apart)
        assert sorted(map(_dated, got.offers)) == sorted(map(_dated, want.offers))
        assert _order(got.offers) == _order(want.offers)
        dated += sum(o.declared_block is not None for o in got.offers)
        assert all(o.declared_block is None for o in bare.offers)  # no node: none
    assert dated > 0  # the comparison covers dated offers
    # the bought old mech: first without tenures (created earlier), second with them
    pair = (old, honest)
    assert _order(_named(untimed, TOOL), pair) == [old, honest]
    assert _order(_named(agent, TOOL), pair) == [honest, old]
    assert _order(_named(from_chain, TOOL), pair) == [honest, old]


def _manifest(devnet: Devnet, url: str, *names: str) -> bytes:
    """A manifest declaring ``names`` (argument ``amount``) with a top-level ``url``."""
    tools = [
        {
            "name": name,
            "description": f"{name} for the agent tenure test.",
            "kwargs": [{"identifier": "amount", "type": "str"}],
        }
        for name in names
    ]
    body = {"name": "agent-tenure", "url": url, "tools": tools}
    return devnet.add_manifest(json.dumps(body).encode())[1]


def routine_update(devnet: Devnet) -> Tuple[str, str, int]:
    """An incumbent, a later copy that delivers once, then the incumbent's routine update.

    The incumbent declares ``ROUTINE`` and delivers; a stranger's service declares the
    same tool later, cheaper, and delivers one request to itself; then the incumbent
    changes its manifest's ``url`` (the tool's definition unchanged) and delivers again.

    :param devnet: the devnet.
    :return: ``(incumbent, copy)`` mech addresses (lowercase) and the incumbent's
        declaration block.
    """
    owner, stranger = devnet.address("owner_2"), devnet.address("owner_3")
    service = devnet.register_service(owner, deploy=True)
    devnet.change_service_hash(
        service, _manifest(devnet, "https://one.example", ROUTINE)
    )
    declared = int(devnet.w3.eth.block_number)
    incumbent = devnet.create_mech(service, 10**16, owner)
    devnet.deliver(incumbent, [devnet.request_mech(incumbent, b"\x21" * 32, owner)])
    copied = devnet.register_service(stranger, deploy=True)
    devnet.change_service_hash(
        copied, _manifest(devnet, "https://copy.example", ROUTINE)
    )
    copy = devnet.create_mech(copied, 10**15, stranger)
    devnet.deliver(copy, [devnet.request_mech(copy, b"\x22" * 32, stranger)])
    devnet.change_service_hash(
        service, _manifest(devnet, "https://two.example", ROUTINE)
    )
    devnet.deliver(incumbent, [devnet.request_mech(incumbent, b"\x23" * 32, owner)])
    return incumbent.lower(), copy.lower(), declared


def _direct_and_through_agent(
    devnet: Devnet, state_dir: Path
) -> Tuple[ServedCatalogue, ServedCatalogue]:
    """One direct read, then the same catalogue through an agent, as ``mcp`` builds both.

    :param devnet: the devnet.
    :param state_dir: the agent source's ``--state-dir``.
    :return: ``(direct, through the agent)``.
    """
    direct = direct_source(devnet)
    try:
        from_chain = direct.read()
        catalogue = direct.catalogue()
    finally:
        direct.close()
    exposed = ExposedCatalogue(
        catalogue, catalogue.digest(), "snapshot", 1, time.time(), 1
    )
    chosen = {
        "rpc": devnet.info.rpc_url,
        "marketplace": devnet.info.contracts["MechMarketplace"],
        "gateway": devnet.info.ipfs_gateway_url,
    }
    with agent_api(exposed) as url:
        source = catalogue_source(url, chosen, str(state_dir))
        assert isinstance(source, AgentSource)
        return from_chain, source.read()


def test_a_routine_update_keeps_the_incumbent_first_through_an_agent(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """``mcp --agent`` ranks as a direct read after an incumbent's routine update.

    Found by a new user on the devnet of ``make run``: the direct read's first offer was
    the incumbent (declared earlier, delivered first), the agent source's a stranger's
    copy: ``tenures_of`` started a tenure at the service's last manifest update, having
    no manifests to compare the tool's definition with (adv29b's reset, open through
    ``--agent``). Observed on main df051500: through the agent the incumbent's
    ``declared_block`` was its update's and the copy ranked first. Now the agent
    source's reader (``mcp_run.agent_tenure``: the chain, the gateway, the state
    folder) walks the services' manifests as the direct read does.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the agent source's ``--state-dir``.
    """
    incumbent, copy, declared = routine_update(chain_snapshot)
    from_chain, agent = _direct_and_through_agent(chain_snapshot, tmp_path)
    pair = (incumbent, copy)
    assert _order(_named(from_chain, ROUTINE), pair) == [incumbent, copy]
    assert _order(_named(agent, ROUTINE), pair) == [incumbent, copy]
    dated = {o.address: o.declared_block for o in _named(agent, ROUTINE)}
    assert dated[incumbent] == declared
    for got, want in zip(agent.tools, from_chain.tools):  # every tool, one rule
        assert sorted(map(_dated, got.offers)) == sorted(map(_dated, want.offers))
        assert _order(got.offers) == _order(want.offers)
    assert (tmp_path / "tenure-walks.json").exists()
