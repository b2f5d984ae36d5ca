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

"""Strangers' unresolvable manifest hashes cut an incumbent's tenure short (adv29v).

Severity: HIGH (redirects payments: the default offer is bought, as adv29b's tenure
reset, now by stalling the walk instead of waiting for an update).

The tenure walk (``mcp_server/tenure.py``) fetches every service's earlier manifests
in one batch per step, on one fetch pool (4 GETs at once) under one period budget per
read (``GatewayPolicy.period_budget_seconds``, 60 s; ``fetch_timeout`` 10 s). Once the
budget is spent and the latest GET failed, every digest still queued "fails at once"
(``ipfs/gateways.py``), and an earlier manifest that could not be fetched ends its
service's walk: "the tenure then starts after it", and it is asked for again only after
``RETRY_UNREADABLE_SECONDS`` (600 s), when the strangers' digests are due again too.
The batch is fetched in digest order (``sorted(wanted)``), and a ``changeHash`` takes any
32 bytes. So a stranger registers services with a marketplace mech each, sets on each
a hash nobody serves (``0x00..01``, ``0x00..02``: sorted first; a missing CID hangs a
gateway until its timeout), then a real manifest. At the defaults 24 such services
spend the budget (6 rounds of 4 timeouts of 10 s); the 25th digest and every digest
after it, the incumbent's earlier manifest among them, fail at once.

Observed on main f50e9323 (devnet: anvil with the real registry and marketplace bytecode, kubo behind a
loopback proxy that holds the unprovided CIDs 3 s as a public gateway holds them, read
through ``DirectSource`` as ``mcp --devnet`` reads; the budget scaled to 2 s and the
fetch timeout to 1 s, so 8 GETs spend it; 12 hostile services): the incumbent declared
the tool at block 80 and delivered at 83; a copy declared it at 88 and delivered once
to itself at 91; the incumbent then added a tool beside the unchanged one and delivered
again. Without the hostile services the incumbent ranks first, declared at 80 (the
control below); with them its earlier manifest is never requested, its tenure is
(176, 178): its last update and the delivery after it, and the copy is the default
offer, paid by every call that pins no mech. The same with a lurker that declared the
name with other arguments (``wallet_note``): the served schema becomes the lurker's,
its mech the only offer, the incumbent a conflicting mech, never paid (adv29b's
schema takeover, by the same stall).

Expected: hostile services' unresolvable digests cannot cut another service's tenure
short; the incumbent stays first (its ``declared_block`` is 80) and owns the name's
arguments.
"""

import json
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Tuple

from mech_catalogue_core.catalogue.fetching import FetchPolicy
from mech_catalogue_core.ipfs.cid import candidate_cids
from mech_catalogue_core.ipfs.gateways import GatewayPolicy

from mech_catalogue_cli.mcp_server.source import DirectSource, ServedTool
from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.devnet.mcp_helpers import direct_source

TOOL = "budget-swap"
BESIDE = "budget-quote"
FILLER = "budget-filler"
PRICE = 10**15
#: hostile services, each with one unresolvable earlier hash (the scaled budget takes 8)
HOSTILE = 12


def _manifest(devnet: Devnet, *names: str, argument: str = "amount") -> bytes:
    tools = [
        {
            "name": name,
            "description": f"{name} for the fetch budget test.",
            "kwargs": [{"identifier": argument, "type": "str"}],
        }
        for name in names
    ]
    return devnet.add_manifest(json.dumps({"name": "budget", "tools": tools}).encode())[
        1
    ]


def _set(devnet: Devnet, service: int, digest: bytes) -> int:
    devnet.change_service_hash(service, digest)
    return int(devnet.w3.eth.block_number)


def _delivered(devnet: Devnet, mech: str, owner: str, tag: int) -> int:
    devnet.deliver(mech, [devnet.request_mech(mech, bytes([tag]) * 32, owner)])
    return int(devnet.w3.eth.block_number)


def _service(devnet: Devnet, owner: str, digest: bytes) -> Tuple[int, int, str]:
    service = devnet.register_service(owner, deploy=True)
    declared = _set(devnet, service, digest)
    return service, declared, devnet.create_mech(service, PRICE, owner)


def _unprovided(index: int) -> bytes:
    """The hostile ``index``-th hash: 32 bytes no IPFS node provides, sorting first."""
    return bytes(31) + bytes([index + 1])


def _scaled_source(
    devnet: Devnet, gateway: str, state_dir: Optional[Path] = None
) -> DirectSource:
    """``direct_source`` through ``gateway``, fetch budget 2 s, fetch timeout 1 s.

    :param devnet: the devnet.
    :param gateway: the IPFS gateway's base URL.
    :param state_dir: ``--state-dir`` (None: none).
    :return: the source (close it).
    """
    probe = direct_source(devnet)
    config, market = probe.config, probe.marketplace
    probe.close()
    return DirectSource(
        replace(
            config,
            gateway_url=gateway,
            fetch_timeout=1.0,
            policy=FetchPolicy(retries=0),
            gateway_policy=GatewayPolicy(period_budget_seconds=2.0),
        ),
        market,
        state_dir,
    )


def _incumbent_and_copy(
    devnet: Devnet, hostile: int, lurker_argument: str = "amount"
) -> Dict[str, Any]:
    """The incumbent, a lurker, ``hostile`` services, then the incumbent's update.

    :param devnet: the devnet.
    :param hostile: services with an unresolvable earlier hash.
    :param lurker_argument: the lurker's argument: the incumbent's ("amount": a copy,
        an offer) or another (a claim on the name's schema).
    :return: the mechs' addresses and the incumbent's tenure blocks.
    """
    owner, stranger = devnet.address("owner_2"), devnet.address("owner_3")
    honest = _manifest(devnet, TOOL)
    service, declared, incumbent = _service(devnet, owner, honest)
    first = _delivered(devnet, incumbent, owner, 1)
    lurking = _manifest(devnet, TOOL, argument=lurker_argument)
    _, _, copy = _service(devnet, stranger, lurking)
    _delivered(devnet, copy, stranger, 2)
    filler = _manifest(devnet, FILLER)
    for index in range(hostile):
        hostile_service = devnet.register_service(stranger, deploy=True)
        _set(devnet, hostile_service, _unprovided(index))
        _set(devnet, hostile_service, filler)
        devnet.create_mech(hostile_service, PRICE, stranger)
    # the incumbent's routine update: a tool beside the unchanged one, then it delivers
    _set(devnet, service, _manifest(devnet, TOOL, BESIDE))
    _delivered(devnet, incumbent, owner, 4)
    assert honest > _unprovided(hostile)
    return {
        "incumbent": incumbent.lower(),
        "copy": copy.lower(),
        "declared": declared,
        "first": first,
    }


@contextmanager
def hanging_gateway(devnet: Devnet) -> Iterator[LoopbackProxy]:
    """The devnet's gateway behind a proxy holding the hostile CIDs 3 s each.

    :param devnet: the devnet.
    :yield: the proxy (its ``url`` is the gateway to read through).
    """
    with LoopbackProxy(devnet.info.ipfs_gateway_url.rstrip("/")) as gateway:
        gateway.hang_seconds = 3.0
        gateway.path_modes = {
            cid: "timeout"
            for index in range(HOSTILE)
            for cid in candidate_cids(_unprovided(index))
        }
        yield gateway


def _read(devnet: Devnet) -> ServedTool:
    """One read through a gateway that holds an unprovided CID as a public one does.

    kubo on the devnet answers a CID it does not hold at once (it is offline); a public
    gateway searches the network for it until its own timeout, past ``fetch_timeout``.

    :param devnet: the devnet.
    :return: the served tool ``TOOL``, its offers ranked.
    """
    with hanging_gateway(devnet) as gateway:
        source = _scaled_source(devnet, gateway.url)
        try:
            served = source.read()
        finally:
            source.close()
    return next(t for t in served.tools if t.mech_tool == TOOL)


def test_without_hostile_services_the_incumbent_keeps_its_tenure(
    chain_snapshot: Devnet,
) -> None:
    """Control: the scaled budget alone fetches the earlier manifest; incumbent first."""
    mechs = _incumbent_and_copy(chain_snapshot, 0)
    tool = _read(chain_snapshot)
    assert tool.offers[0].address == mechs["incumbent"]
    assert tool.offers[0].declared_block == mechs["declared"]


def test_unresolvable_hashes_of_strangers_do_not_cut_the_incumbents_tenure(
    chain_snapshot: Devnet,
) -> None:
    """Twelve hostile services' hashes sort first: the copy becomes the default."""
    mechs = _incumbent_and_copy(chain_snapshot, HOSTILE)
    tool = _read(chain_snapshot)
    ranked = [offer.address for offer in tool.offers]
    # observed on main: [copy, incumbent], the incumbent declared at its last update
    assert ranked.index(mechs["incumbent"]) < ranked.index(mechs["copy"]), (
        f"default offer {ranked[0]} (the copy is {mechs['copy']}); the incumbent's "
        f"tenure: {[(o.declared_block, o.first_delivery_block) for o in tool.offers]}, "
        f"declared at {mechs['declared']}, first delivery {mechs['first']}"
    )
    assert tool.offers[0].declared_block == mechs["declared"]


def test_unresolvable_hashes_do_not_hand_the_name_s_schema_to_a_squatter(
    chain_snapshot: Devnet,
) -> None:
    """The lurker declared the name with other arguments: the schema stays the incumbent's."""
    mechs = _incumbent_and_copy(chain_snapshot, HOSTILE, "wallet_note")
    tool = _read(chain_snapshot)
    served = sorted(tool.tool["inputSchema"]["properties"])
    # observed on main: ["wallet_note"], the squatter's offer the only one, the
    # incumbent named in conflicting_mechs (never paid)
    assert (served, [o.address for o in tool.offers]) == (
        ["amount"],
        [mechs["incumbent"]],
    )
