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

"""mech-interact's own request and response behaviours and rounds, run on our catalogue.

``MechRequestBehaviour`` and ``MechResponseBehaviour`` (v0.32.3, unchanged) run in the
framework's skill test harness. The harness stands in for the agent's connections: every
message they send is served for real by :class:`DevnetConnections` (contract and ledger
calls executed by the same contract packages against anvil, IPFS stores and gateway GETs
against kubo). Their payloads go to mech-interact's own ``MechRequestRound`` and
``MechResponseRound``. Between them, the settlement transaction (the Safe transaction whose
hash the request payload carries) is executed on the requester's real Gnosis Safe, as
settlement's finalisation would, by the Safe's owner (the devnet agent instance): the
transaction settlement ROUNDS (keeper, signatures, validation over Tendermint) are not run.
The mech operator is the devnet responder, a stand-in.
"""

import datetime
import json
from typing import Any, Dict, List

import requests
from aea.contracts.base import Contract
from aea_ledger_ethereum import EthereumApi
from web3 import Web3
from web3.logs import DISCARD
from web3.types import RPCEndpoint

from scripts.devnet import Devnet
from scripts.devnet.contracts import contract_at
from scripts.devnet.responder import DEFAULT_RESULT, Responder
from scripts.sync_packages import (
    MECH_INTERACT_DIR,
    PACKAGES_DIR,
    open_autonomy_packages,
)
from tests.composition.consumer import choose_request
from tests.composition.test_composition import (
    ARGUMENTS,
    TOOL,
    catalogue_of_devnet,
)
from tests.devnet.test_responder import deploy_service
from tests.mech_interact import load_mech_interact

load_mech_interact()

# pylint: disable=wrong-import-position,wrong-import-order,import-error,no-name-in-module
from mech_catalogue_core.catalogue.views import (  # noqa: E402
    views_document,
    views_from_document,
)

from packages.valory.connections.http_client.connection import (  # noqa: E402
    PUBLIC_ID as HTTP_CLIENT_ID,
)
from packages.valory.connections.ledger import connection  # noqa: E402
from packages.valory.protocols.contract_api.custom_types import (  # noqa: E402
    RawTransaction,
    State,
)
from packages.valory.protocols.contract_api.message import (  # noqa: E402
    ContractApiMessage,
)
from packages.valory.protocols.http.message import HttpMessage  # noqa: E402
from packages.valory.protocols.ipfs.message import IpfsMessage  # noqa: E402
from packages.valory.protocols.ledger_api import custom_types  # noqa: E402
from packages.valory.protocols.ledger_api.message import (  # noqa: E402
    LedgerApiMessage,
)
from packages.valory.skills.abstract_round_abci.base import AbciAppDB  # noqa: E402
from packages.valory.skills.abstract_round_abci.test_tools.base import (  # noqa: E402
    FSMBehaviourBaseCase,
)
from packages.valory.skills.mech_interact_abci.behaviours.request import (  # noqa: E402
    MechRequestBehaviour,
)
from packages.valory.skills.mech_interact_abci.behaviours.response import (  # noqa: E402
    MechResponseBehaviour,
)
from packages.valory.skills.mech_interact_abci.models import (  # noqa: E402
    MechMarketplaceConfig,
)
from packages.valory.skills.mech_interact_abci.states.base import (  # noqa: E402
    SynchronizedData,
)
from packages.valory.skills.mech_interact_abci.states.request import (  # noqa: E402
    MechRequestRound,
)
from packages.valory.skills.mech_interact_abci.states.response import (  # noqa: E402
    MechResponseRound,
)
from packages.valory.skills.transaction_settlement_abci.payload_tools import (  # noqa: E402
    skill_input_hex_to_payload,
)

LEDGER_ID = connection.PUBLIC_ID
LedgerState = custom_types.State
IPFS_CONNECTION = "valory/ipfs:0.1.0"


def contract_packages() -> Dict[str, Any]:
    """Load the contract packages mech-interact's behaviours call, as an agent would.

    :return: public id (without hash) -> contract class.
    """
    wheel = open_autonomy_packages() / "valory" / "contracts"
    folders = (
        wheel / "agent_mech",
        wheel / "erc20",
        MECH_INTERACT_DIR / "valory" / "contracts" / "mech_mm",
        MECH_INTERACT_DIR / "valory" / "contracts" / "mech",
        PACKAGES_DIR / "valory" / "contracts" / "multisend",
        PACKAGES_DIR / "valory" / "contracts" / "gnosis_safe",
    )
    loaded = {}
    for folder in folders:
        contract = Contract.from_dir(str(folder))
        loaded[str(contract.public_id.without_hash())] = contract
    return loaded


def deploy_wrapped_native(devnet: Devnet) -> str:
    """Deploy the open-autonomy wheel's ERC20 (a WETH-like token) as the wrapped native token.

    :param devnet: the devnet.
    :return: its address.
    """
    build = open_autonomy_packages() / "valory/contracts/erc20/build/ERC20.json"
    artifact = json.loads(build.read_text())
    factory = devnet.w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
    tx = factory.constructor().transact({"from": devnet.address("deployer")})
    return str(devnet.w3.eth.wait_for_transaction_receipt(tx)["contractAddress"])


class TestMechInteractOnOurCatalogue(FSMBehaviourBaseCase):
    """Request -> Safe transaction -> delivery -> response, with mech-interact's code."""

    path_to_skill = MECH_INTERACT_DIR / "valory" / "skills" / "mech_interact_abci"
    served: List[str]

    def run_behaviour(
        self, devnet: Devnet, behaviour_id: str, data: Dict[str, Any]
    ) -> Any:
        """Run one behaviour to its payload, serving every message it sends.

        :param devnet: the devnet.
        :param behaviour_id: the behaviour.
        :param data: the synchronized data it starts from.
        :return: the payload it sends.
        :raises AssertionError: when it sends none within 400 steps.
        """
        self.fast_forward_to_behaviour(
            self.behaviour,
            behaviour_id,
            SynchronizedData(AbciAppDB(setup_data=AbciAppDB.data_to_lists(data))),
        )
        # the behaviours' sleeps read the last transition time (set by a real round)
        sequence = self.skill.skill_context.state.round_sequence
        sequence._last_round_transition_timestamp = (  # pylint: disable=protected-access
            datetime.datetime.now()
        )
        payloads: List[Any] = []

        def capture(payload: Any, *_: Any, **__: Any) -> Any:
            payloads.append(payload)
            yield

        current: Any = self.behaviour.current_behaviour
        current.send_a2a_transaction = capture
        ledger = EthereumApi(address=devnet.info.rpc_url, chain_id=devnet.info.chain_id)
        contracts = contract_packages()
        for _ in range(400):
            self.behaviour.act_wrapper()
            if payloads:
                return payloads[0]
            while self.get_quantity_in_outbox():
                self.serve(devnet, ledger, contracts, self.get_message_from_outbox())
        raise AssertionError(f"{behaviour_id} sent no payload; served {self.served}")

    def answer(self, message: Any, sender: str, **contents: Any) -> Any:
        """Build the connection's answer to ``message``.

        :param message: the request.
        :param sender: the connection.
        :param contents: the answer's performative and contents.
        :return: the incoming message.
        """
        return self.build_incoming_message(
            message_type=type(message),
            dialogue_reference=(message.dialogue_reference[0], "stub"),
            target=message.message_id,
            message_id=-1,
            to=str(self.skill.skill_context.skill_id),
            sender=sender,
            **contents,
        )

    def serve(  # pylint: disable=too-many-locals
        self, devnet: Devnet, ledger: Any, contracts: Dict[str, Any], message: Any
    ) -> None:
        """Serve one outgoing message for real (anvil, kubo) and hand the answer back.

        :param devnet: the devnet.
        :param ledger: an EthereumApi on anvil.
        :param contracts: the loaded contract packages.
        :param message: the behaviour's message.
        :raises AssertionError: for a message this server does not know.
        """
        handlers = self.skill.skill_context.handlers
        if isinstance(message, ContractApiMessage):
            self.served.append(message.callable)
            kwargs = dict(message.kwargs.body)
            kwargs.pop("chain_id", None)  # the ledger connection routes by it
            contract = contracts[str(message.contract_id)]
            result = getattr(contract, message.callable)(
                ledger, message.contract_address, **kwargs
            )
            raw = (
                message.performative
                == ContractApiMessage.Performative.GET_RAW_TRANSACTION
            )
            answer = self.answer(
                message,
                str(LEDGER_ID),
                performative=(
                    ContractApiMessage.Performative.RAW_TRANSACTION
                    if raw
                    else ContractApiMessage.Performative.STATE
                ),
                **(
                    {"raw_transaction": RawTransaction("ethereum", result)}
                    if raw
                    else {"state": State("ethereum", result)}
                ),
            )
            handlers.contract_api.handle(answer)
        elif isinstance(message, LedgerApiMessage):
            self.served.append(message.callable)
            kwargs = dict(message.kwargs.body)
            kwargs.pop("chain_id", None)
            body = ledger.get_state(message.callable, *message.args, **kwargs)
            handlers.ledger_api.handle(
                self.answer(
                    message,
                    str(LEDGER_ID),
                    performative=LedgerApiMessage.Performative.STATE,
                    state=LedgerState("ethereum", body),
                )
            )
        elif isinstance(message, IpfsMessage):
            # the IPFS connection stores one file as a CIDv0 file (no wrapping folder)
            self.served.append("ipfs store")
            ((path, content),) = message.files.items()
            added = requests.post(
                f"{devnet.info.ipfs_api_url.rstrip('/')}/api/v0/add",
                params={"cid-version": "0", "pin": "true"},
                files={"file": (path.rsplit("/", 1)[-1], content.encode())},
                timeout=30,
            )
            handlers.ipfs.handle(
                self.answer(
                    message,
                    IPFS_CONNECTION,
                    performative=IpfsMessage.Performative.IPFS_HASH,
                    ipfs_hash=added.json()["Hash"],
                )
            )
        elif isinstance(message, HttpMessage):
            self.served.append(f"http {message.url}")
            got = requests.request(message.method, message.url, timeout=30)
            handlers.http.handle(
                self.answer(
                    message,
                    str(HTTP_CLIENT_ID),
                    performative=HttpMessage.Performative.RESPONSE,
                    version="",
                    status_code=got.status_code,
                    status_text=got.reason,
                    headers="",
                    body=got.content,
                )
            )
        else:
            raise AssertionError(f"no real service for {message}")

    def run_round(self, round_cls: Any, data: Dict[str, Any], payload: Any) -> Any:
        """Run one of mech-interact's rounds with this agent's payload.

        :param round_cls: the round.
        :param data: the synchronized data before it.
        :param payload: the payload.
        :return: ``(synchronized data, event)`` of its end_block.
        """
        synchronized = SynchronizedData(
            AbciAppDB(setup_data=AbciAppDB.data_to_lists(data))
        )
        test_round = round_cls(synchronized, self.skill.skill_context)
        test_round.process_payload(payload)
        return test_round.end_block()

    def test_request_settled_delivered_and_read(  # pylint: disable=too-many-locals
        self, chain_snapshot: Devnet
    ) -> None:
        """mech-interact ranks our mechs, pays the first, and reads its typed answer.

        :param chain_snapshot: the session devnet, its chain changes reverted afterwards.
        """
        devnet, self.served = chain_snapshot, []
        catalogue = catalogue_of_devnet(devnet)
        updates = choose_request(catalogue, TOOL, "Will it rain?", ARGUMENTS, "n-9")
        mechs_info, mech_tools = views_from_document(views_document(catalogue))
        safe = next(
            s["multisig"] for s in devnet.info.services.values() if s.get("multisig")
        )
        devnet.w3.provider.make_request(
            RPCEndpoint("anvil_setBalance"), [safe, hex(10**18)]
        )
        self.skill.skill_context.params.__dict__.update(
            use_mech_marketplace=True,
            mech_marketplace_config=MechMarketplaceConfig(
                mech_marketplace_address=devnet.info.contracts["MechMarketplace"],
                response_timeout=300,
            ),
            multisend_address=devnet.info.contracts["MultiSend"],
            mech_wrapped_native_token_address=deploy_wrapped_native(devnet),
            _ipfs_address=f"{devnet.info.ipfs_gateway_url.rstrip('/')}/ipfs/",
        )
        agent = self.skill.skill_context.agent_address
        data: Dict[str, Any] = {
            "mechs_info": mechs_info,
            "mech_tools": mech_tools,
            **updates,
            "safe_contract_address": safe,
            "participants": [agent],
            "all_participants": [agent],
            "consensus_threshold": 1,
        }
        ranked_first = SynchronizedData(
            AbciAppDB(setup_data=AbciAppDB.data_to_lists(data))
        ).ranked_mechs_addresses[0]

        # stage C: mech-interact's request behaviour and round
        request = self.run_behaviour(
            devnet, MechRequestBehaviour.auto_behaviour_id(), data
        )
        price = devnet.mech(ranked_first).functions.maxDeliveryRate().call()
        assert request.price == price
        after_request, event = self.run_round(MechRequestRound, data, request)
        assert event.value == "done"
        tx = skill_input_hex_to_payload(after_request.most_voted_tx_hash)
        assert tx["ether_value"] == price

        # stage D: the Safe transaction settlement would execute (not its rounds)
        service_id = devnet.mech(ranked_first).functions.serviceId().call()
        if devnet.service_multisig(service_id) is None:
            deploy_service(devnet, service_id)  # the operator must have a Safe
        start = devnet.w3.eth.block_number + 1
        with Responder(
            devnet.info, [ranked_first], from_block=start, interval=0.2
        ) as responder:
            receipt = execute_safe_tx(devnet, safe, tx)
            market = contract_at(
                devnet.w3, "MechMarketplace", devnet.info.contracts["MechMarketplace"]
            )
            (sent,) = market.events.MarketplaceRequest().process_receipt(
                receipt, errors=DISCARD
            )
            assert (
                Web3.to_checksum_address(sent["args"]["priorityMech"]) == ranked_first
            )
            request_id = bytes(sent["args"]["requestIds"][0])
            delivery = responder.wait_for(request_id)
        assert delivery.response["arguments"] == ARGUMENTS
        assert delivery.response["tool"] == TOOL

        # stage E: mech-interact's response behaviour and round
        data = {
            **data,
            "final_tx_hash": "0x" + bytes(receipt["transactionHash"]).hex(),
            "mech_requests": after_request.db.get_strict("mech_requests"),
            "mech_responses": after_request.db.get_strict("mech_responses"),
            "is_marketplace_v2": True,
        }
        response = self.run_behaviour(
            devnet, MechResponseBehaviour.auto_behaviour_id(), data
        )
        after_response, event = self.run_round(MechResponseRound, data, response)
        assert event.value == "done"
        (answer,) = after_response.mech_responses
        assert answer.result == DEFAULT_RESULT
        assert "get_response" in self.served


def execute_safe_tx(devnet: Devnet, safe_address: str, tx: Dict[str, Any]) -> Any:
    """Execute the settlement transaction on the Safe (its owner signs by sending it).

    :param devnet: the devnet.
    :param safe_address: the requester Safe.
    :param tx: the decoded settlement payload (``skill_input_hex_to_payload``).
    :return: the receipt.
    """
    safe = contract_at(devnet.w3, "GnosisSafe", safe_address)
    owner = safe.functions.getOwners().call()[0]
    devnet.w3.provider.make_request(RPCEndpoint("anvil_impersonateAccount"), [owner])
    devnet.w3.provider.make_request(
        RPCEndpoint("anvil_setBalance"), [owner, hex(10**18)]
    )
    signature = bytes(12) + bytes.fromhex(owner[2:]) + bytes(32) + b"\x01"
    call = safe.functions.execTransaction(
        Web3.to_checksum_address(tx["to_address"]),
        tx["ether_value"],
        tx["data"],
        tx["operation"],
        tx["safe_tx_gas"],
        tx["base_gas"],
        tx["safe_gas_price"],
        Web3.to_checksum_address(tx["gas_token"]),
        Web3.to_checksum_address(tx["refund_receiver"]),
        signature,
    )
    receipt = devnet.transact(call, owner)
    failures = safe.events.ExecutionFailure().process_receipt(receipt, errors=DISCARD)
    assert not failures, "the Safe executed the settlement transaction but it reverted"
    return receipt
