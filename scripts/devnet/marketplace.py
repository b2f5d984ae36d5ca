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

"""A mech marketplace on the devnet: the real MechMarketplace, fixture Karma/factory/mechs.

``MechMarketplace`` is the open-autonomy wheel's bytecode
(``packages/valory/contracts/mech_marketplace/build/MechMarketplace.json``), deployed
without its proxy and initialised directly. Karma, the balance tracker, the mech factory
and the mechs are ours (``contracts/MarketplaceFixtures.sol``), since no PyPI package ships
them. Mechs are created through ``MechMarketplace.create`` (so it emits ``CreateMech``),
requests go through ``MechMarketplace.request`` with native payment, and deliveries
through the mech, sent by the service Safe, so every counter the catalogue reads moves.
"""

from typing import Any, Dict, List, Optional, Sequence, Tuple

from eth_abi import encode as abi_encode
from mech_catalogue_core.chain.marketplace import (
    DiscoveryCheckpoint,
    MarketplaceSource,
    MechCreation,
    discover_mechs,
    facts_reader,
    start_checkpoint,
)
from mech_catalogue_core.chain.registry import (
    decode_batch,
    encode_batch,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)
from web3 import Web3
from web3.logs import DISCARD

from mech_catalogue_cli.adapters.jsonrpc import JsonRpc, eth_call
from scripts.devnet.base import DevnetError
from scripts.devnet.contracts import contract_at, deploy, send
from scripts.devnet.services import ServiceHelpers

#: ``paymentType()`` of native fixed-price mechs (MechFixedPriceNative.PAYMENT_TYPE)
NATIVE_PAYMENT_TYPE = bytes.fromhex(
    "ba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1"
)
#: asset -> (PAYMENT_TYPE of ai-registry-mech's MechFixedPriceToken / ...TokenUSDC,
#: the stand-in token's symbol, decimals); each gets a FixtureToken, a
#: FixtureTokenBalanceTracker and a FixtureMechFactory (``contracts/TokenPayments.sol``)
TOKEN_ASSETS: Dict[str, Tuple[bytes, str, int]] = {
    "olas": (
        bytes.fromhex(
            "3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9"
        ),
        "OLAS",
        18,
    ),
    "usdc": (
        bytes.fromhex(
            "6406bb5f31a732f898e1ce9fdd988a80a808d36ab5d9a4a4805a8be8d197d5e3"
        ),
        "USDC",
        6,
    ),
}
#: token-priced mechs the seed creates: (service key, asset, rate in the token's units);
#: on the deployed service, so its Safe (the responder) can deliver their requests
SEED_TOKEN_MECHS = (("deployed", "olas", 5 * 10**17), ("deployed", "usdc", 1_500_000))
#: ``PAYMENT_TYPE`` of ai-registry-mech's MechNvmSubscriptionNative (keccak256 of
#: NvmSubscriptionNative): its mechs are paid with credits of the tracker's plan
#: (``contracts/SubscriptionPayments.sol``)
NVM_PAYMENT_TYPE = bytes.fromhex(
    "803dd08fe79d91027fc9024e254a0942372b92f3ccabc1bd19f4a5c2b251c316"
)
#: the subscription plan's ERC-1155 token id (``subscriptionTokenId()``)
SUBSCRIPTION_TOKEN_ID = 1
#: subscription mechs the seed creates: (service key, price in credits); the seed gives
#: no account credits (tests mint them with :meth:`MarketplaceHelpers.mint_credits`)
SEED_SUBSCRIPTION_MECHS = (("deployed", 10),)
#: tokens the seed mints to the requester accounts (``stranger``, ``deployer``)
SEED_TOKEN_GRANTS = {"olas": 100 * 10**18, "usdc": 1_000 * 10**6}
#: MechMarketplace.initialize: fee (basis points of MAX_FEE_FACTOR), response timeouts (s)
MARKETPLACE_FEE = 100
MIN_RESPONSE_TIMEOUT = 60
MAX_RESPONSE_TIMEOUT = 3600
#: what the seed does: (service key in the seed plan, max delivery rate in wei)
SEED_MECHS = (("market", 10**16), ("template", 2 * 10**16), ("deployed", 5 * 10**15))
#: requests the seed sends to the deployed service's mech, and how many it delivers
SEED_REQUESTS = 3
SEED_DELIVERIES = 2
#: legacy mechs the seed creates: (legacy seed plan key, price in wei)
SEED_LEGACY_MECHS = (("omen", 4 * 10**15),)


def token_key(asset: str) -> str:
    """The ``info.contracts`` key of a token asset's stand-in ERC-20 (``FixtureToken``).

    :param asset: a key of :data:`TOKEN_ASSETS`.
    :return: e.g. ``FixtureTokenOLAS``.
    """
    return f"FixtureToken{TOKEN_ASSETS[asset][1]}"


def tracker_key(asset: str) -> str:
    """The ``info.contracts`` key of a token asset's ``FixtureTokenBalanceTracker``.

    :param asset: a key of :data:`TOKEN_ASSETS`.
    :return: e.g. ``FixtureTokenBalanceTrackerUSDC``.
    """
    return f"FixtureTokenBalanceTracker{TOKEN_ASSETS[asset][1]}"


def factory_key(asset: str) -> str:
    """The ``info.contracts`` key of the mech factory of an asset ("native" included).

    :param asset: ``native``, ``subscription`` or a key of :data:`TOKEN_ASSETS`.
    :return: ``FixtureMechFactory`` for native, ``FixtureMechFactoryNvm`` for
        subscriptions, else e.g. ``FixtureMechFactoryOLAS``.
    """
    if asset == "native":
        return "FixtureMechFactory"
    if asset == "subscription":
        return "FixtureMechFactoryNvm"
    return f"FixtureMechFactory{TOKEN_ASSETS[asset][1]}"


def deploy_marketplace(
    w3: Web3, deployer: str, service_registry: str, legacy_registry: str
) -> Dict[str, str]:
    """Deploy Karma, MechMarketplace, a balance tracker and mech factories, wired together.

    :param w3: a Web3 connected to anvil.
    :param deployer: the unlocked account owning everything.
    :param service_registry: the ServiceRegistryL2 the marketplace checks mechs against.
    :param legacy_registry: the legacy mech registry whose agents get legacy mechs.
    :return: ``{"FixtureKarma", "MechMarketplace", "FixtureBalanceTracker",
        "FixtureMechFactory", "FixtureLegacyMechFactory": address}`` and, per token asset
        of :data:`TOKEN_ASSETS`, its :func:`token_key`, :func:`tracker_key` and
        :func:`factory_key` (the token tracker registered for the asset's payment type in
        ``mapPaymentTypeBalanceTrackers``); for subscriptions ``FixtureSubscriptionCredits``
        (the plan's ERC-1155), ``FixtureNvmBalanceTracker`` (registered for
        :data:`NVM_PAYMENT_TYPE`) and ``FixtureMechFactoryNvm``.
    """
    a = {"FixtureKarma": deploy(w3, "FixtureKarma", [], deployer)}
    a["MechMarketplace"] = deploy(
        w3, "MechMarketplace", [service_registry, a["FixtureKarma"]], deployer
    )
    market = contract_at(w3, "MechMarketplace", a["MechMarketplace"])
    send(
        w3,
        market.functions.initialize(
            MARKETPLACE_FEE, MIN_RESPONSE_TIMEOUT, MAX_RESPONSE_TIMEOUT
        ),
        deployer,
    )
    a["FixtureBalanceTracker"] = deploy(
        w3, "FixtureBalanceTracker", [a["MechMarketplace"]], deployer
    )
    a["FixtureMechFactory"] = deploy(
        w3, "FixtureMechFactory", [a["MechMarketplace"], NATIVE_PAYMENT_TYPE], deployer
    )
    types, trackers, factories = [NATIVE_PAYMENT_TYPE], [a["FixtureBalanceTracker"]], []
    for asset, (payment_type, symbol, decimals) in TOKEN_ASSETS.items():
        token = deploy(
            w3, "FixtureToken", [f"devnet {symbol}", symbol, decimals], deployer
        )
        a[token_key(asset)] = token
        a[tracker_key(asset)] = deploy(
            w3, "FixtureTokenBalanceTracker", [a["MechMarketplace"], token], deployer
        )
        a[factory_key(asset)] = deploy(
            w3, "FixtureMechFactory", [a["MechMarketplace"], payment_type], deployer
        )
        types.append(payment_type)
        trackers.append(a[tracker_key(asset)])
        factories.append(a[factory_key(asset)])
    plan = deploy(w3, "FixtureSubscriptionCredits", [], deployer)
    a["FixtureSubscriptionCredits"] = plan
    a["FixtureNvmBalanceTracker"] = deploy(
        w3,
        "FixtureNvmBalanceTracker",
        [a["MechMarketplace"], plan, SUBSCRIPTION_TOKEN_ID],
        deployer,
    )
    send(
        w3,
        contract_at(w3, "FixtureSubscriptionCredits", plan).functions.setBurner(
            a["FixtureNvmBalanceTracker"]
        ),
        deployer,
    )
    a[factory_key("subscription")] = deploy(
        w3, "FixtureMechFactory", [a["MechMarketplace"], NVM_PAYMENT_TYPE], deployer
    )
    types.append(NVM_PAYMENT_TYPE)
    trackers.append(a["FixtureNvmBalanceTracker"])
    factories.append(a[factory_key("subscription")])
    factories.insert(0, a["FixtureMechFactory"])
    send(
        w3,
        market.functions.setMechFactoryStatuses(factories, [True] * len(factories)),
        deployer,
    )
    send(w3, market.functions.setPaymentTypeBalanceTrackers(types, trackers), deployer)
    a["FixtureLegacyMechFactory"] = deploy(
        w3, "FixtureLegacyMechFactory", [legacy_registry], deployer
    )
    karma = contract_at(w3, "FixtureKarma", a["FixtureKarma"])
    send(
        w3,
        karma.functions.setMechMarketplaceStatuses([a["MechMarketplace"]], [True]),
        deployer,
    )
    return a


class MarketplaceHelpers(ServiceHelpers):
    """Create mechs, send paid requests, deliver them (by the service Safe), change a price."""

    def _market(self) -> Any:
        return self.contract("MechMarketplace")

    def mech(self, address: str) -> Any:
        """Return a fixture mech contract.

        :param address: the mech address.
        :return: the web3 contract.
        """
        return contract_at(self.w3, "FixtureMech", address)

    def create_mech(
        self,
        service_id: int,
        max_delivery_rate: int,
        sender: str,
        asset: str = "native",
    ) -> str:
        """``MechMarketplace.create(service_id, factory, abi.encode(rate))``.

        :param service_id: a ServiceRegistryL2 service id.
        :param max_delivery_rate: the mech's price per request in the asset's smallest
            unit (wei for native).
        :param sender: who sends it (the service owner, by convention).
        :param asset: ``native``, ``subscription`` or a key of :data:`TOKEN_ASSETS`:
            which factory, so which ``paymentType()`` the mech declares.
        :return: the new mech's checksummed address (from the ``CreateMech`` event).
        :raises DevnetError: when no ``CreateMech`` event was emitted.
        """
        market = self._market()
        payload = abi_encode(["uint256"], [max_delivery_rate])
        receipt = self.transact(
            market.functions.create(
                service_id, self.info.contracts[factory_key(asset)], payload
            ),
            sender,
        )
        events = market.events.CreateMech().process_receipt(receipt, errors=DISCARD)
        if not events:
            raise DevnetError(
                f"MechMarketplace.create({service_id}) emitted no CreateMech"
            )
        mech = Web3.to_checksum_address(events[0]["args"]["mech"])
        self.info.mechs.append(
            {
                "address": mech,
                "service_id": service_id,
                "rate": max_delivery_rate,
                "kind": "marketplace",
                "asset": asset,
            }
        )
        self.info.save()
        return mech

    def create_legacy_mech(self, agent_id: int, price: int, sender: str) -> str:
        """Deploy a legacy mech for a legacy registry agent (the factory emits ``CreateMech``).

        :param agent_id: the legacy registry agent id.
        :param price: price per request, wei.
        :param sender: who sends it.
        :return: the mech's checksummed address.
        :raises DevnetError: when no ``CreateMech`` event was emitted.
        """
        factory = self.contract("FixtureLegacyMechFactory")
        receipt = self.transact(factory.functions.createMech(agent_id, price), sender)
        events = factory.events.CreateMech().process_receipt(receipt, errors=DISCARD)
        if not events:
            raise DevnetError(f"createMech({agent_id}) emitted no CreateMech")
        mech = Web3.to_checksum_address(events[0]["args"]["mech"])
        self.info.mechs.append(
            {"address": mech, "agent_id": agent_id, "rate": price, "kind": "legacy"}
        )
        self.info.save()
        return mech

    def request_mech(self, mech: str, data: bytes, requester: str) -> bytes:
        """Send one paid native request to ``mech`` through the marketplace.

        :param mech: the priority mech.
        :param data: the request data (an IPFS digest, by convention).
        :param requester: the paying account.
        :return: the request id.
        """
        rate = self.mech(mech).functions.maxDeliveryRate().call()
        market = self._market()
        receipt = self.transact(
            market.functions.request(
                data, rate, NATIVE_PAYMENT_TYPE, mech, MAX_RESPONSE_TIMEOUT, b""
            ),
            requester,
            value=rate,
        )
        events = market.events.MarketplaceRequest().process_receipt(
            receipt, errors=DISCARD
        )
        return bytes(events[0]["args"]["requestIds"][0])

    def token(self, asset: str) -> Any:
        """Return the stand-in ERC-20 of a token asset.

        :param asset: a key of :data:`TOKEN_ASSETS`.
        :return: the web3 contract (``FixtureToken``).
        """
        return contract_at(
            self.w3, "FixtureToken", self.info.contracts[token_key(asset)]
        )

    def tracker(self, asset: str) -> Any:
        """Return the token balance tracker of a token asset.

        :param asset: a key of :data:`TOKEN_ASSETS`.
        :return: the web3 contract (``FixtureTokenBalanceTracker``).
        """
        return contract_at(
            self.w3,
            "FixtureTokenBalanceTracker",
            self.info.contracts[tracker_key(asset)],
        )

    def mint(self, asset: str, account: str, amount: int) -> Any:
        """Mint a stand-in token to an account (the deployer is its minter).

        :param asset: a key of :data:`TOKEN_ASSETS`.
        :param account: the receiver.
        :param amount: smallest units.
        :return: the receipt.
        """
        return self.transact(
            self.token(asset).functions.mint(Web3.to_checksum_address(account), amount),
            self.address("deployer"),
        )

    def mint_credits(self, account: str, amount: int) -> Any:
        """Give an account credits of the devnet's subscription plan (as buying it would).

        :param account: the receiver.
        :param amount: credits.
        :return: the receipt.
        """
        plan = contract_at(
            self.w3,
            "FixtureSubscriptionCredits",
            self.info.contracts["FixtureSubscriptionCredits"],
        )
        return self.transact(
            plan.functions.mint(
                Web3.to_checksum_address(account), SUBSCRIPTION_TOKEN_ID, amount
            ),
            self.address("deployer"),
        )

    def credits_of(self, account: str) -> int:
        """Return an account's credits of the devnet's subscription plan.

        :param account: the holder.
        :return: credits.
        """
        plan = contract_at(
            self.w3,
            "FixtureSubscriptionCredits",
            self.info.contracts["FixtureSubscriptionCredits"],
        )
        return int(
            plan.functions.balanceOf(
                Web3.to_checksum_address(account), SUBSCRIPTION_TOKEN_ID
            ).call()
        )

    def request_token_mech(
        self, mech: str, data: bytes, requester: str, asset: str
    ) -> bytes:
        """Send one token-paid request: approve the tracker for the price, request, no value.

        :param mech: the priority mech (of the asset's payment type).
        :param data: the request data.
        :param requester: the paying account (holding the token).
        :param asset: a key of :data:`TOKEN_ASSETS`.
        :return: the request id.
        """
        rate = self.mech(mech).functions.maxDeliveryRate().call()
        tracker = self.info.contracts[tracker_key(asset)]
        self.transact(self.token(asset).functions.approve(tracker, rate), requester)
        market = self._market()
        receipt = self.transact(
            market.functions.request(
                data, rate, TOKEN_ASSETS[asset][0], mech, MAX_RESPONSE_TIMEOUT, b""
            ),
            requester,
        )
        events = market.events.MarketplaceRequest().process_receipt(
            receipt, errors=DISCARD
        )
        return bytes(events[0]["args"]["requestIds"][0])

    def deliver(
        self,
        mech: str,
        request_ids: Sequence[bytes],
        datas: Optional[Sequence[bytes]] = None,
    ) -> Any:
        """Deliver requests from the mech's service Safe (``deliverToMarketplace``).

        :param mech: the mech.
        :param request_ids: the requests.
        :param datas: the delivery data per request (by convention the 32-byte digest of
            the response's IPFS folder); default ``b"delivered"`` for each.
        :return: the receipt.
        """
        contract = self.mech(mech)
        safe = contract.functions.getOperator().call()
        data = contract.encode_abi(
            "deliverToMarketplace",
            args=[
                list(request_ids),
                list(datas) if datas is not None else [b"delivered"] * len(request_ids),
            ],
        )
        return self.exec_safe_transaction(safe, contract.address, data)

    def change_max_delivery_rate(self, mech: str, rate: int) -> Any:
        """``mech.changeMaxDeliveryRate(rate)`` from its service Safe.

        :param mech: the mech.
        :param rate: the new price per request, wei.
        :return: the receipt.
        """
        contract = self.mech(mech)
        safe = contract.functions.getOperator().call()
        data = contract.encode_abi("changeMaxDeliveryRate", args=[rate])
        return self.exec_safe_transaction(safe, contract.address, data)


def seed_marketplace(
    devnet: MarketplaceHelpers,
    service_ids: Dict[str, int],
    legacy_ids: Dict[str, int],
) -> List[str]:
    """Create one mech per seeded service (and the token-priced ones), request, deliver some.

    :param devnet: a seeded devnet with the marketplace deployed.
    :param service_ids: seed plan key -> service id (ComplementaryServiceMetadata services).
    :param legacy_ids: seed plan key -> legacy registry agent id.
    :return: the marketplace mech addresses, in :data:`SEED_MECHS`,
        :data:`SEED_TOKEN_MECHS` then :data:`SEED_SUBSCRIPTION_MECHS` order (legacy mechs, :data:`SEED_LEGACY_MECHS`, are
        recorded in ``info.mechs`` with kind ``legacy``); the requester accounts
        ``stranger`` and ``deployer`` get :data:`SEED_TOKEN_GRANTS`.
    """
    mechs = []
    for key, rate in SEED_MECHS:
        service_id = service_ids[key]
        owner = (
            devnet.contract("ServiceRegistryL2").functions.ownerOf(service_id).call()
        )
        mechs.append(devnet.create_mech(service_id, rate, owner))
    deployed = mechs[-1]
    for key, asset, rate in SEED_TOKEN_MECHS:
        service_id = service_ids[key]
        owner = (
            devnet.contract("ServiceRegistryL2").functions.ownerOf(service_id).call()
        )
        mechs.append(devnet.create_mech(service_id, rate, owner, asset))
    for key, rate in SEED_SUBSCRIPTION_MECHS:
        service_id = service_ids[key]
        owner = (
            devnet.contract("ServiceRegistryL2").functions.ownerOf(service_id).call()
        )
        mechs.append(devnet.create_mech(service_id, rate, owner, "subscription"))
    for asset, amount in SEED_TOKEN_GRANTS.items():
        for account in ("stranger", "deployer"):
            devnet.mint(asset, devnet.address(account), amount)
    requester = devnet.address("stranger")
    ids = [
        devnet.request_mech(deployed, b"request %d" % n, requester)
        for n in range(SEED_REQUESTS)
    ]
    devnet.deliver(deployed, ids[:SEED_DELIVERIES])
    for key, price in SEED_LEGACY_MECHS:
        devnet.create_legacy_mech(legacy_ids[key], price, devnet.address("deployer"))
    return mechs


# --- drivers of the domain readers over web3 (tests, benchmarks) --------------------


def discover(
    devnet: "MarketplaceHelpers",
    checkpoint: Optional[DiscoveryCheckpoint],
    max_range: int = 10_000,
) -> Tuple[DiscoveryCheckpoint, List[Tuple[int, int]]]:
    """Run discovery (marketplace and legacy factory) with ``eth_getLogs`` at the head.

    No confirmation margin: anvil does not reorganise.

    :param devnet: the devnet.
    :param checkpoint: the previous checkpoint (None: from the start).
    :param max_range: blocks per log query.
    :return: the new checkpoint and the ``(from, to)`` ranges queried.
    """
    source = MarketplaceSource(
        devnet.info.chain_id,
        devnet.info.contracts["MechMarketplace"],
        legacy_factory=devnet.info.contracts.get("FixtureLegacyMechFactory", ""),
        confirmations=0,
        max_range=max_range,
    )
    gen = discover_mechs(
        source, checkpoint or start_checkpoint(source), devnet.w3.eth.block_number
    )
    queried = []
    try:
        query = next(gen)
        while True:
            queried.append((query.from_block, query.to_block))
            logs = devnet.w3.eth.get_logs(
                {
                    "address": Web3.to_checksum_address(query.address),
                    "topics": [query.topic],
                    "fromBlock": query.from_block,
                    "toBlock": query.to_block,
                }
            )
            query = gen.send([dict(log) for log in logs])
    except StopIteration as done:
        return done.value, queried


def read_facts(
    devnet: "MarketplaceHelpers",
    mechs: List[MechCreation],
    at_block: Optional[int] = None,
    batch_size: int = 500,
) -> Tuple[int, List[MechFacts], int]:
    """Drive :func:`facts_reader`: each batch is one ``eth_call`` to Multicall2.

    :param devnet: the devnet.
    :param mechs: the mechs.
    :param at_block: the block to read at (None: latest).
    :param batch_size: most calls per ``eth_call``.
    :return: ``(block, facts, eth_calls made)``.
    """
    multicall = devnet.info.contracts["Multicall2"]
    gen = facts_reader(
        devnet.info.contracts["MechMarketplace"].lower(),
        multicall,
        mechs,
        batch_size,
        at_block,
    )
    rpc, calls = JsonRpc(devnet.info.rpc_url, 10), 0
    try:
        batch, block = next(gen)
        while True:
            data = eth_call(rpc, multicall, encode_batch(batch), block)
            calls += 1
            batch, block = gen.send(decode_batch(data, len(batch)))
    except StopIteration as done:
        block, facts = done.value
        return block, facts, calls
