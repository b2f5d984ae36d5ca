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

"""The requester service on the devnet: its Safe, the mechs' operators, the responder.

:func:`prepare_requester` does what a real deployment of the requester service has
beforehand: a Gnosis Safe 1.3.0 whose owners are the service's agents (threshold as the
service's consensus: ``ceil((2n + 1) / 3)``, 1 of 1, 3 of 4) holding funds to pay mechs,
and, on the mech side, operators: each marketplace mech's service gets its Safe (the
responder delivers through it) and the devnet responder (``scripts/devnet/responder.py``,
a STAND-IN operator that runs no tool) answers every request to them.

Its settings point mech-interact at the devnet (its MechMarketplace and MultiSend; the
ledger connection's ``ethereum`` chain) and the skill at that Safe.
"""

import json
import math
from dataclasses import dataclass
from typing import Dict, List, Optional

from web3 import Web3
from web3.types import RPCEndpoint

from scripts.devnet import Devnet
from scripts.devnet.contracts import contract_at
from scripts.devnet.marketplace import token_key
from scripts.devnet.responder import Responder
from scripts.run_local.workspace import WorkspaceError
from scripts.sync_packages import open_autonomy_packages

#: wei the requester Safe starts with (pays about 100 requests at the devnet's prices)
SAFE_FUNDS_WEI = 10**18
#: stand-in tokens minted to the requester Safe, smallest units: enough for the seeded
#: OLAS (0.5) and USDC (1.5) mechs a few times over (docs/running.md, "Paying in OLAS
#: and USDC")
SAFE_TOKEN_GRANTS = {"olas": 10 * 10**18, "usdc": 100 * 10**6}
#: wei each agent gets for gas (settlement sends the Safe transaction from an agent)
AGENT_GAS_WEI = 10**18
#: the ledger connection's only chain (``ledger_apis.ethereum``): mech-interact's
#: contract calls name it as ``mech_chain_id``
LEDGER_CHAIN = "ethereum"


def safe_threshold(owners: int) -> int:
    """The Safe threshold of a service of ``owners`` agents: its consensus threshold.

    :param owners: the number of agents (at least 1).
    :return: ``ceil((2 * owners + 1) / 3)`` (open-autonomy's ``consensus_threshold``).
    """
    return math.ceil((2 * owners + 1) / 3)


def create_safe(devnet: Devnet, owners: List[str]) -> str:
    """Create a Gnosis Safe owned by ``owners`` through the devnet's ServiceSafeMultisig.

    :param devnet: the devnet.
    :param owners: the agents' addresses.
    :return: the Safe's address (checksummed).
    """
    factory = devnet.contract("ServiceSafeMultisig")
    call = factory.functions.create(
        [Web3.to_checksum_address(owner) for owner in owners],
        safe_threshold(len(owners)),
        b"",
    )
    deployer = devnet.address("deployer")
    safe = call.call({"from": deployer})
    devnet.transact(call, deployer)
    return str(Web3.to_checksum_address(safe))


def deploy_wrapped_native(devnet: Devnet) -> str:
    """Deploy the open-autonomy wheel's ERC20 (a WETH-like token) as the wrapped native token.

    mech-interact requires the address (``mech_wrapped_native_token_address``); native
    payments, the devnet mechs' kind, never touch it.

    :param devnet: the devnet.
    :return: its address.
    """
    build = open_autonomy_packages() / "valory/contracts/erc20/build/ERC20.json"
    artifact = json.loads(build.read_text(encoding="utf-8"))
    factory = devnet.w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
    deployer = devnet.address("deployer")
    tx = factory.constructor().transact({"from": deployer})
    return str(devnet.w3.eth.wait_for_transaction_receipt(tx)["contractAddress"])


def check_response_timeout(devnet: Devnet, response_timeout: int) -> None:
    """Refuse a response timeout the MechMarketplace would refuse.

    mech-interact sends ``response_timeout`` with every request; a value outside the
    marketplace's ``[minResponseTimeout, maxResponseTimeout]`` makes the request revert
    inside the Safe transaction (``GS013``), and settlement retries it for ever.

    :param devnet: the devnet (its MechMarketplace).
    :param response_timeout: seconds (``MECH_RESPONSE_TIMEOUT``).
    :raises WorkspaceError: naming the marketplace's bounds.
    """
    market = contract_at(
        devnet.w3, "MechMarketplace", devnet.info.contracts["MechMarketplace"]
    )
    low = market.functions.minResponseTimeout().call()
    high = market.functions.maxResponseTimeout().call()
    if not low <= response_timeout <= high:
        raise WorkspaceError(
            f"MECH_RESPONSE_TIMEOUT {response_timeout} s is outside the MechMarketplace's "
            f"[{low}, {high}] s: every request would revert in the Safe transaction; "
            f"choose a value in that range"
        )


def marketplace_mechs(devnet: Devnet) -> List[Dict[str, object]]:
    """The devnet's marketplace mechs (``devnet.json`` ``mechs`` of kind ``marketplace``).

    :param devnet: the devnet.
    :return: their records (``address``, ``service_id``, ``rate``).
    """
    return [mech for mech in devnet.info.mechs if mech.get("kind") == "marketplace"]


def deploy_operators(devnet: Devnet) -> None:
    """Give every marketplace mech's service its Safe (the operator that delivers).

    :param devnet: the devnet.
    """
    registry = devnet.contract("ServiceRegistryL2")
    for mech in marketplace_mechs(devnet):
        service_id = int(str(mech["service_id"]))
        if devnet.service_multisig(service_id) is not None:
            continue
        owner = registry.functions.ownerOf(service_id).call()
        devnet.transact(
            registry.functions.deploy(
                owner, service_id, devnet.info.contracts["ServiceSafeMultisig"], b""
            ),
            devnet.address("deployer"),
        )


def fund(devnet: Devnet, address: str, wei: int) -> None:
    """Set an account's balance on anvil.

    :param devnet: the devnet.
    :param address: the account.
    :param wei: its new balance.
    """
    devnet.w3.provider.make_request(
        RPCEndpoint("anvil_setBalance"), [Web3.to_checksum_address(address), hex(wei)]
    )


@dataclass
class RequesterSetup:
    """What :func:`prepare_requester` made.

    :param safe: the requester service's Safe.
    :param settings: the agents' environment overrides.
    :param responder: the running stand-in operator (None when no mech is answered).
    """

    safe: str
    settings: Dict[str, str]
    responder: Optional[Responder]

    def stop(self) -> None:
        """Stop the responder's thread."""
        if self.responder is not None:
            self.responder.stop()
            self.responder = None


def prepare_requester(
    devnet: Devnet,
    agents: List[str],
    deliver: bool = True,
    response_timeout: int = 60,
) -> RequesterSetup:
    """Create and fund the requester Safe, deploy the operators, start the responder.

    :param devnet: the devnet (seeded: marketplace mechs exist).
    :param agents: the service's agent addresses (the Safe's owners).
    :param deliver: start the responder; False leaves every request unanswered (the
        timeout path).
    :param response_timeout: seconds mech-interact waits for a delivery
        (``MECH_RESPONSE_TIMEOUT``).
    :return: the Safe, the settings and the responder; :class:`WorkspaceError` from
        :func:`check_response_timeout` before anything is deployed.
    """
    check_response_timeout(devnet, response_timeout)
    safe = create_safe(devnet, agents)
    fund(devnet, safe, SAFE_FUNDS_WEI)
    for asset, amount in SAFE_TOKEN_GRANTS.items():
        if token_key(asset) in devnet.info.contracts:
            devnet.mint(asset, safe, amount)
    for agent in agents:
        fund(devnet, agent, AGENT_GAS_WEI)
    deploy_operators(devnet)
    responder = None
    mechs = [str(mech["address"]) for mech in marketplace_mechs(devnet)]
    if deliver and mechs:
        responder = Responder(
            devnet.info, mechs, from_block=devnet.w3.eth.block_number, interval=0.5
        ).start()
    settings = {
        "MECH_WRAPPED_NATIVE_TOKEN_ADDRESS": deploy_wrapped_native(devnet),
        "SAFE_CONTRACT_ADDRESS": safe,
        "MECH_MARKETPLACE_ADDRESS": devnet.info.contracts["MechMarketplace"],
        "MULTISEND_ADDRESS": devnet.info.contracts["MultiSend"],
        "MECH_CHAIN_ID": LEDGER_CHAIN,
        "MECH_RESPONSE_TIMEOUT": str(response_timeout),
    }
    return RequesterSetup(safe, settings, responder)
