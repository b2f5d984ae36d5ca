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

"""Marketplace facts read from the devnet's real MechMarketplace, through Multicall2.

The devnet seed creates one mech per ComplementaryServiceMetadata service through
``MechMarketplace.create`` and sends paid requests to the deployed service's mech, some
delivered by its Safe (``scripts/devnet/marketplace.py``). Every value the domain reads is
compared with the same contract function called directly through web3, so the tests do not
depend on the seed's numbers.
"""

import json
import math
from dataclasses import replace
from typing import Any, Dict, List

import pytest
from aea_ledger_ethereum import EthereumApi
from mech_catalogue_core.catalogue.views import (
    views_document,
    views_from_document,
)
from mech_catalogue_core.chain.marketplace import (
    CREATE_MECH_TOPIC,
    DELIVERY_TOPICS,
    MechCreation,
    attach_facts,
    decode_creation_log,
    decode_delivery_log,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    Catalogue,
    Mech,
    MechRef,
    Tool,
)
from mech_catalogue_core.model.market import (
    MECH_KIND_LEGACY,
    MECH_KIND_MARKETPLACE,
    UNREAD_CALL_FAILED,
    UNREAD_NO_OPERATOR,
    UNREAD_NOT_APPLICABLE,
    MechFacts,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
)
from web3 import Web3

from packages.mech_catalogue.contracts.multicall_reader.contract import (
    MulticallReaderContract,
)

from scripts.devnet import Devnet
from scripts.devnet.contracts import contract_at
from scripts.devnet.marketplace import (
    SEED_DELIVERIES,
    SEED_REQUESTS,
    discover,
    read_facts,
)
from tests.mech_interact import mech_interact_states_base


def direct(devnet: Devnet, mech: str, block: int) -> Dict[str, Any]:
    """Read one mech's values with one web3 call each (the reference for the batched read).

    :param devnet: the devnet.
    :param mech: the mech address.
    :param block: the block.
    :return: field -> value, as MechFacts names them.
    """
    contract = devnet.mech(mech)
    market = devnet.contract("MechMarketplace")
    karma = devnet.contract("FixtureKarma")
    operator = contract.functions.getOperator().call(block_identifier=block)
    return {
        "service_id": contract.functions.serviceId().call(block_identifier=block),
        "max_delivery_rate": contract.functions.maxDeliveryRate().call(
            block_identifier=block
        ),
        "payment_type": "0x"
        + contract.functions.paymentType().call(block_identifier=block).hex(),
        "requests": contract.functions.numTotalRequests().call(block_identifier=block),
        "deliveries": contract.functions.numTotalDeliveries().call(
            block_identifier=block
        ),
        "marketplace_deliveries": market.functions.mapMechDeliveryCounts(mech).call(
            block_identifier=block
        ),
        "service_deliveries": market.functions.mapMechServiceDeliveryCounts(
            operator
        ).call(block_identifier=block),
        "karma": karma.functions.mapMechKarma(mech).call(block_identifier=block),
        "operator": operator.lower(),
    }


def test_every_devnet_mech_is_found_and_read_in_two_calls(devnet: Devnet) -> None:
    """Each seeded mech: address from CreateMech, every value equal to a direct call; 2 eth_calls."""
    checkpoint, _ = discover(devnet, None)
    seeded = {m["address"].lower(): m for m in marketplace_mechs(devnet)}
    found = [m for m in checkpoint.mechs if m.kind == MECH_KIND_MARKETPLACE]
    assert {m.address for m in found} == set(seeded)
    block = devnet.w3.eth.block_number
    read_block, facts, calls = read_facts(devnet, found, block)
    assert read_block == block and calls == 2
    for fact in facts:
        expected = direct(devnet, Web3.to_checksum_address(fact.address), block)
        if int(expected["operator"], 16) == 0:  # service not deployed: no multisig yet
            assert fact.unread == (("service_deliveries", UNREAD_NO_OPERATOR),)
            del expected["service_deliveries"]
        else:
            assert fact.unread == (), fact
        asset = seeded[fact.address].get("asset", "native")
        names = {
            "native": "native",
            "olas": "token_olas",
            "usdc": "token_usdc",
            "subscription": "native_nvm",
        }
        assert fact.confirmed and fact.rankable
        assert fact.payment_type_name == names[asset]
        assert {k: getattr(fact, k) for k in expected} == expected
        assert fact.service_id == seeded[fact.address]["service_id"]
    busy = [f for f in facts if f.requests]
    assert [(f.requests, f.deliveries) for f in busy] == [
        (SEED_REQUESTS, SEED_DELIVERIES)
    ]
    assert busy[0].karma and busy[0].marketplace_deliveries == SEED_DELIVERIES


def marketplace_mechs(devnet: Devnet) -> List[Dict[str, Any]]:
    """Return the seeded mechs created through MechMarketplace.

    :param devnet: the devnet.
    :return: their ``info.mechs`` records.
    """
    return [m for m in devnet.info.mechs if m["kind"] == MECH_KIND_MARKETPLACE]


def test_legacy_mechs_come_from_the_factory_event_with_their_price(
    devnet: Devnet,
) -> None:
    """The legacy factory's CreateMech gives the mech; price() and tokenId() are read; the rest n/a."""
    checkpoint, _ = discover(devnet, None)
    legacy = [m for m in checkpoint.mechs if m.kind == MECH_KIND_LEGACY]
    seeded = [m for m in devnet.info.mechs if m["kind"] == MECH_KIND_LEGACY]
    assert [m.address for m in legacy] == [m["address"].lower() for m in seeded]
    _, facts, calls = read_facts(devnet, legacy)
    assert calls == 2  # getBlockNumber, then one batch: legacy mechs need no round two
    for fact, record in zip(facts, seeded):
        contract = contract_at(devnet.w3, "FixtureLegacyMech", record["address"])
        assert fact.confirmed and fact.service_id == record["agent_id"]
        assert fact.max_delivery_rate == contract.functions.price().call() > 0
        assert dict(fact.unread)["karma"] == UNREAD_NOT_APPLICABLE
        assert not fact.rankable  # no counts or karma: never offered to the ranking


def test_a_mech_created_between_periods_appears_next_period(
    chain_snapshot: Devnet,
) -> None:
    """Period 2 reads only the blocks after period 1's checkpoint and finds the new mech."""
    devnet = chain_snapshot
    first, _ = discover(devnet, None)
    service_id = devnet.info.mechs[0]["service_id"]
    owner = devnet.contract("ServiceRegistryL2").functions.ownerOf(service_id).call()
    new_mech = devnet.create_mech(service_id, 7 * 10**15, owner).lower()
    second, queried = discover(devnet, first)
    assert queried and queried[0][0] == first.next_block
    assert [m.address for m in second.mechs if m not in first.mechs] == [new_mech]
    _, facts, _ = read_facts(devnet, list(second.mechs))
    by_address = {f.address: f for f in facts}
    assert by_address[new_mech].max_delivery_rate == 7 * 10**15
    assert by_address[new_mech].requests == 0  # a fact: nobody asked it yet


def test_a_changed_rate_shows_next_period(chain_snapshot: Devnet) -> None:
    """The Safe changes a mech's maxDeliveryRate; the next read has it, the old block keeps the old."""
    devnet = chain_snapshot
    checkpoint, _ = discover(devnet, None)
    mech = [m for m in checkpoint.mechs if m.kind == MECH_KIND_MARKETPLACE][-1]
    before_block, (before,), _ = read_facts(devnet, [mech])
    devnet.change_max_delivery_rate(Web3.to_checksum_address(mech.address), 123)
    _, (after,), _ = read_facts(devnet, [mech])
    assert after.max_delivery_rate == 123 != before.max_delivery_rate
    _, (again,), _ = read_facts(devnet, [mech], before_block)
    assert again.max_delivery_rate == before.max_delivery_rate


def test_log_reads_are_bounded(devnet: Devnet) -> None:
    """With ranges of 7 blocks every query spans at most 7 and they tile 0..head."""
    head = devnet.w3.eth.block_number
    checkpoint, queried = discover(devnet, None, max_range=7)
    assert all(end - start + 1 <= 7 for start, end in queried)
    assert queried[0][0] == 0 and queried[-1][1] >= head - 1
    # the marketplace's creations and its two delivery events, the legacy factory's
    # creations: four queries a range
    assert len(queried) == 4 * math.ceil((queried[-1][1] + 1) / 7)
    assert len(checkpoint.mechs) == len(devnet.info.mechs)


def test_an_address_that_is_not_a_marketplace_mech_is_not_confirmed(
    devnet: Devnet,
) -> None:
    """Facts asked for a non-mech contract (Karma) come back unread and unconfirmed, not 0."""
    fake = MechCreation(
        devnet.info.contracts["FixtureKarma"].lower(),
        MECH_KIND_MARKETPLACE,
        1,
        devnet.info.contracts["FixtureMechFactory"].lower(),
        1,
    )
    _, (facts,), _ = read_facts(devnet, [fake])
    assert not facts.confirmed and not facts.rankable
    assert facts.max_delivery_rate is None and facts.requests is None
    assert dict(facts.unread)["max_delivery_rate"] == UNREAD_CALL_FAILED
    assert facts.karma == 0  # Karma holds no karma for itself: that 0 is a read fact
    assert "karma" not in dict(facts.unread)


@pytest.mark.parametrize("field", ["max_delivery_rate", "requests"])
def test_facts_survive_serialisation(devnet: Devnet, field: str) -> None:
    """Wei-sized values round-trip through the canonical catalogue JSON as text.

    :param devnet: the devnet.
    :param field: a field to compare.
    """
    checkpoint, _ = discover(devnet, None)
    _, facts, _ = read_facts(devnet, list(checkpoint.mechs))
    for fact in facts:
        assert MechFacts.from_dict(fact.to_dict()) == fact
        value = fact.to_dict()[field]
        if getattr(fact, field) is None:  # legacy mechs keep no request counter
            assert value is None and field in dict(fact.unread)
        else:
            assert value == str(getattr(fact, field))


def test_the_contract_package_reads_the_same_logs(devnet: Devnet) -> None:
    """multicall_reader.get_logs over a real EthereumApi gives what discovery decodes."""
    ledger = EthereumApi(address=devnet.info.rpc_url, chain_id=devnet.info.chain_id)
    head = devnet.w3.eth.block_number
    body = MulticallReaderContract.get_logs(
        ledger, devnet.info.contracts["MechMarketplace"], CREATE_MECH_TOPIC, 0, head
    )
    logs = body["logs"]
    assert isinstance(logs, list)
    found = [decode_creation_log(log, MECH_KIND_MARKETPLACE) for log in logs]
    checkpoint, _ = discover(devnet, None)
    assert found == [
        replace(m, last_delivery_block=None)
        for m in checkpoint.mechs
        if m.kind == MECH_KIND_MARKETPLACE
    ]
    delivered: List[Dict[str, Any]] = list(
        MulticallReaderContract.get_logs(  # type: ignore[arg-type]
            ledger,
            devnet.info.contracts["MechMarketplace"],
            DELIVERY_TOPICS[0],
            0,
            head,
        )["logs"]
    )
    latest: Dict[str, int] = {}
    for log in delivered:
        mech, block = decode_delivery_log(log)
        latest[mech] = max(block, latest.get(mech, -1))
    assert (
        latest
        and {
            m.address: m.last_delivery_block
            for m in checkpoint.mechs
            if m.last_delivery_block is not None
        }
        == latest
    )


def test_the_mech_that_delivered_has_its_latest_delivery_block(devnet: Devnet) -> None:
    """The seed's busy mech: the block of its last MarketplaceDelivery; idle mechs: none.

    Compared with web3's own decoding of the events; the facts carry it.

    :param devnet: the devnet.
    """
    market = devnet.contract("MechMarketplace")
    events = market.events.MarketplaceDelivery().get_logs(from_block=0)
    expected: Dict[str, int] = {}
    for event in events:
        mech = event["args"]["deliveryMech"].lower()
        expected[mech] = max(int(event["blockNumber"]), expected.get(mech, -1))
    checkpoint, _ = discover(devnet, None)
    marketplace = [m for m in checkpoint.mechs if m.kind == MECH_KIND_MARKETPLACE]
    assert len(expected) == 1 and len(marketplace) > 1  # one busy mech, idle ones
    assert {
        m.address: m.last_delivery_block
        for m in marketplace
        if m.last_delivery_block is not None
    } == expected
    _, facts, _ = read_facts(devnet, marketplace)
    busy = [f for f in facts if f.last_delivery_block is not None]
    assert [(f.address, f.last_delivery_block) for f in busy] == list(expected.items())
    assert busy[0].deliveries == SEED_DELIVERIES
    assert all(f.deliveries == 0 for f in facts if f.last_delivery_block is None)


def test_mech_interact_ranks_the_devnet_mechs(devnet: Devnet) -> None:
    """Chain facts -> catalogue -> mechs_info -> mech-interact's MechInfo: ranks, no error.

    The seed's one busy mech has delivered most of its requests; the idle ones are cold
    starts. Which one mech-interact prefers is its business; that it can rank all of them
    with our values, and that every address is a seeded mech, is ours.

    :param devnet: the devnet.
    """
    base = mech_interact_states_base()
    checkpoint, _ = discover(devnet, None)
    _, facts, _ = read_facts(devnet, list(checkpoint.mechs))
    registry = devnet.info.contracts["ComplementaryServiceMetadata"].lower()
    catalogue = Catalogue.build(
        Mech(
            MechRef(
                devnet.info.chain_id, REGISTRY_COMPLEMENTARY_SERVICE, registry, sid
            ),
            digest="0x" + "ab" * 32,
            status=STATUS_OK,
            tools=(Tool(name="predict"),),
        )
        for sid in {f.service_id for f in facts if f.service_id is not None}
    )
    mechs_info, _ = views_from_document(views_document(attach_facts(catalogue, facts)))
    infos = sorted(
        (base.MechInfo(**item) for item in json.loads(mechs_info)), reverse=True
    )
    native = [  # mechs_info holds the mechs priced in the native token only
        m for m in marketplace_mechs(devnet) if m.get("asset", "native") == "native"
    ]
    assert native and {i.address.lower() for i in infos} == {
        m["address"].lower() for m in native
    }
    assert {i.max_delivery_rate for i in infos} == {m["rate"] for m in native}
