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

"""FetchManifestsBehaviour reads marketplace facts and puts them in the catalogue and mechs_info.

The ledger connection is answered in the test (its contract API responses carry ABI-encoded
returns written here); the same reads run against anvil in
``tests/devnet/test_marketplace_devnet.py``.
"""

from typing import Any, List, Tuple

from eth_abi import encode
from eth_utils import to_checksum_address
from mech_catalogue_core.chain.marketplace import (
    CREATE_MECH_TOPIC,
    DELIVERY_TOPICS,
    LEGACY_CREATE_MECH_TOPIC,
    MarketplaceSource,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    digest_to_cid,
)
from mech_catalogue_core.model.catalogue import (
    MechRef,
)

from packages.mech_catalogue.contracts.multicall_reader.contract import (
    PUBLIC_ID as MULTICALL_READER_ID,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    CHAIN_ID,
    CSM,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    LEGACY as LEGACY_REGISTRY,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    FetchCase,
    dag_pb_digest,
    manifest,
)
from packages.valory.protocols.contract_api import ContractApiMessage
from packages.valory.protocols.contract_api.custom_types import State

MARKET = "0x00000000000000000000000000000000000000ee"
FACTORY = "0x00000000000000000000000000000000000000f1"
KARMA = "0x00000000000000000000000000000000000000f2"
MECH = "0x00000000000000000000000000000000000000f3"
SAFE = "0x00000000000000000000000000000000000000f4"
NATIVE = bytes.fromhex(
    "ba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1"
)
SERVICE = MechRef(CHAIN_ID, "complementary_service_metadata", CSM, 7)


def word(value: Any, kind: str = "uint256") -> Tuple[bool, bytes]:
    """Encode one successful call result.

    :param value: the value.
    :param kind: its ABI type.
    :return: ``(True, encoded)``.
    """
    return True, encode([kind], [value])


def topic(value: Any) -> str:
    """Encode an indexed topic.

    :param value: an address or int.
    :return: 0x + 64 hex.
    """
    if isinstance(value, str):
        return "0x" + "00" * 12 + value[2:]
    return "0x" + int(value).to_bytes(32, "big").hex()


class TestFetchWithMarketplace(FetchCase):
    """The marketplace facts step of FetchManifestsBehaviour."""

    def setup_method(self, **kwargs: Any) -> None:
        """Configure a marketplace (confirmations 2) and forget any checkpoint."""
        super().setup_method(**kwargs)
        self.skill.skill_context.params.__dict__["marketplace"] = MarketplaceSource(
            CHAIN_ID, MARKET, confirmations=2, max_range=100
        )
        self.skill.skill_context.state.marketplace_checkpoint = None

    def answer_logs(
        self, logs: List[Any], error: bool = False, message: str = "connection refused"
    ) -> None:
        """Answer the pending ``get_logs`` contract API request.

        :param logs: the logs.
        :param error: answer with an error instead.
        :param message: the error's text.
        """
        response = (
            {
                "performative": ContractApiMessage.Performative.ERROR,
                "code": 1,
                "message": message,
                "data": b"",
            }
            if error
            else {
                "performative": ContractApiMessage.Performative.STATE,
                "state": State(ledger_id="ethereum", body={"logs": logs}),
            }
        )
        self.mock_contract_api_request(
            contract_id=str(MULTICALL_READER_ID),
            request_kwargs={
                "performative": ContractApiMessage.Performative.GET_STATE,
                "callable": "get_logs",
            },
            response_kwargs=response,
        )

    def fetch_manifest(self) -> Any:
        """Start at snapshot block 20 with service 7's manifest and answer the gateway.

        :return: the payload capture.
        """
        data = manifest("predict")
        digest = dag_pb_digest(data)
        capture = self.start([DigestRead(SERVICE, digest)])
        self.answer_gateway(digest_to_cid(digest, DAG_PB), 200, data)
        return capture

    def test_facts_reach_the_catalogue_and_mechs_info(self) -> None:
        """One log range to block 18, two Multicall2 batches; mechs_info holds the chain's values.

        The range is read for creations, then for both delivery events: the agreed facts
        hold the latest delivery's block.
        """
        capture = self.fetch_manifest()
        log = {
            "address": MARKET,
            "topics": [CREATE_MECH_TOPIC, topic(MECH), topic(7), topic(FACTORY)],
            "blockNumber": 5,
        }
        self.answer_logs([log])
        delivered = {"address": MARKET, "topics": [DELIVERY_TOPICS[0], topic(MECH)]}
        self.answer_logs(
            [{**delivered, "blockNumber": 8}, {**delivered, "blockNumber": 12}]
        )
        self.answer_logs([])  # MarketplaceDeliveryWithSignatures: none
        self.answer_multicall(
            20,
            [
                word(KARMA, "address"),
                word(FACTORY, "address"),
                word(4),  # mapMechDeliveryCounts
                word(7),  # serviceId
                word(3 * 10**16),  # maxDeliveryRate
                word(NATIVE, "bytes32"),
                word(6),  # numTotalRequests
                word(4),  # numTotalDeliveries
                word(SAFE, "address"),
            ],
        )
        self.answer_multicall(20, [word(-2, "int256"), word(5)])
        payload = capture.payloads[0]
        (info,) = self.views_of(payload)["mechs_info"]
        assert info["address"] == to_checksum_address(MECH)
        assert (info["max_delivery_rate"], info["karma"]) == (3 * 10**16, -2)
        assert (info["received_requests"], info["self_delivered"]) == (6, 4)
        checkpoint = self.skill.skill_context.state.marketplace_checkpoint
        assert checkpoint.next_block == 19 and len(checkpoint.mechs) == 1
        self.agree(payload)
        (facts,) = self.agreed_entry(SERVICE).marketplace
        assert facts.service_deliveries == 5 and facts.block == 20
        assert facts.last_delivery_block == 12

    def test_a_too_wide_log_range_is_read_in_halves(self) -> None:
        """The RPC refuses a range (too many results): two get_logs follow, one per half.

        Without the narrowing the refusal ends discovery: no further get_logs is asked
        (test_a_log_read_failure_leaves_the_catalogue_without_facts).
        """
        self.fetch_manifest()
        self.answer_logs(
            [], error=True, message="query returned more than 10000 results"
        )
        self.answer_logs([])  # each answer checks that a get_logs was asked
        self.answer_logs([])

    def test_a_log_read_failure_leaves_the_catalogue_without_facts(self) -> None:
        """An RPC refusing the log query: logged, no facts, the payload is still sent, no checkpoint."""
        capture = self.fetch_manifest()
        self.answer_logs([], error=True)
        payload = capture.payloads[0]
        # no facts: nothing mech-interact could rank, and no zeros standing in for them
        assert self.views_of(payload)["mechs_info"] == []
        assert self.views_of(payload)["mech_tools"] == ["predict"]
        assert self.skill.skill_context.state.marketplace_checkpoint is None


LEGACY_FACTORY = "0x00000000000000000000000000000000000000f5"
LEGACY_MECH = "0x00000000000000000000000000000000000000f6"


class TestFetchWithLegacyFactory(TestFetchWithMarketplace):
    """Legacy mechs only: the factory's CreateMech gives the mech, price() its price."""

    def setup_method(self, **kwargs: Any) -> None:
        """Configure only a legacy factory."""
        super().setup_method(**kwargs)
        self.skill.skill_context.params.__dict__["marketplace"] = MarketplaceSource(
            CHAIN_ID, "", legacy_factory=LEGACY_FACTORY, confirmations=0
        )

    def test_facts_reach_the_catalogue_and_mechs_info(self) -> None:
        """One round of calls; the entry gets the price; mechs_info leaves it out (no counts)."""
        data = manifest("predict")
        digest = dag_pb_digest(data)
        legacy_ref = MechRef(CHAIN_ID, "legacy_mech_registry", LEGACY_REGISTRY, 3)
        capture = self.start([DigestRead(legacy_ref, digest)])
        self.answer_gateway(digest_to_cid(digest, DAG_PB), 200, data)
        log = {
            "address": LEGACY_FACTORY,
            "topics": [
                LEGACY_CREATE_MECH_TOPIC,
                topic(LEGACY_MECH),
                topic(3),
                topic(10**15),
            ],
            "blockNumber": 9,
        }
        self.answer_logs([log])
        self.answer_multicall(20, [word(3), word(2 * 10**15)])
        payload = capture.payloads[0]
        assert self.views_of(payload)["mechs_info"] == []
        self.agree(payload)
        (facts,) = self.agreed_entry(legacy_ref).marketplace
        assert facts.confirmed and facts.max_delivery_rate == 2 * 10**15
        assert facts.address == LEGACY_MECH and facts.karma is None
