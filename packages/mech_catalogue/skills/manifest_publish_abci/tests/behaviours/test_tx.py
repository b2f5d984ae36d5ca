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

"""PublishTxBehaviour: every branch."""

from typing import Any, Dict

from mech_catalogue_core.publish.publish import (
    PublishTarget,
    update_call,
)

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.tx import (
    PublishTxBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.tests.behaviour_case import (
    SAFE,
    SERVICE_ID,
    PublishBehaviourCase,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    CSM,
    ContractApiMessage,
    State,
)
from packages.valory.contracts.gnosis_safe.contract import PUBLIC_ID as GNOSIS_SAFE_ID
from packages.valory.skills.transaction_settlement_abci.payload_tools import (
    skill_input_hex_to_payload,
)


class TestPublishTxBehaviour(PublishBehaviourCase):
    """PublishTxBehaviour."""

    def answer_hash(self, error: bool = False) -> None:
        """Answer get_raw_safe_transaction_hash."""
        if error:
            response: Dict[str, Any] = {
                "performative": ContractApiMessage.Performative.ERROR,
                "code": 1,
                "message": "rpc down",
                "data": b"",
            }
        else:
            response = {
                "performative": ContractApiMessage.Performative.STATE,
                "state": State(
                    ledger_id="ethereum", body={"tx_hash": "0x" + "5a" * 32}
                ),
            }
        self.mock_contract_api_request(
            contract_id=str(GNOSIS_SAFE_ID),
            request_kwargs={
                "performative": ContractApiMessage.Performative.GET_STATE,
                "callable": "get_raw_safe_transaction_hash",
                "contract_address": SAFE,
            },
            response_kwargs=response,
        )

    def test_settlement_payload(self) -> None:
        """The payload decodes (transaction_settlement_abci) to changeHash on the registry, 0 wei."""
        digest = self.prepared.digest
        capture = self.enter(PublishTxBehaviour, {"publish_verified_digest": digest})
        self.answer_hash()
        tx_hash = capture.payloads[0].tx_hash
        decoded = skill_input_hex_to_payload(tx_hash)
        call = update_call(
            PublishTarget("complementary_service_metadata", CSM, SERVICE_ID), digest
        )
        assert decoded["safe_tx_hash"] == "5a" * 32
        assert decoded["to_address"].lower() == CSM and decoded["data"] == call.data
        assert decoded["ether_value"] == 0 and decoded["safe_tx_gas"] == 0
        self.finish()

    def test_hash_not_built(self) -> None:
        """The contract call fails: "" is sent."""
        capture = self.enter(
            PublishTxBehaviour, {"publish_verified_digest": self.prepared.digest}
        )
        self.answer_hash(error=True)
        assert capture.payloads[0].tx_hash == ""
        self.finish()
