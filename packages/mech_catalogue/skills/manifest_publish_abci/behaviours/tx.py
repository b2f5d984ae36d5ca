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

"""PublishTxBehaviour: the Safe transaction updating the registry digest, for transaction settlement."""

from typing import Generator

from mech_catalogue_core.publish.publish import (
    SAFE_OPERATION_CALL,
    update_call,
)

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.base import (
    PublishBaseBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.payloads import (
    PublishTxPayload,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.tx import (
    PublishTxRound,
)
from packages.valory.contracts.gnosis_safe.contract import PUBLIC_ID as GNOSIS_SAFE_ID
from packages.valory.skills.transaction_settlement_abci.payload_tools import (
    hash_payload_to_hex,
)


class PublishTxBehaviour(PublishBaseBehaviour):  # pylint: disable=too-many-ancestors
    """Send ``hash_payload_to_hex(safe tx hash, 0 wei, safe_tx_gas 0, registry, calldata)``, or ""."""

    matching_round = PublishTxRound

    def async_act(self) -> Generator:
        """Build the transaction, send the payload, wait for the round to end.

        :yield: while waiting for the ledger connection and Tendermint.
        """
        with self.context.benchmark_tool.measure(self.behaviour_id).local():
            tx_hash = yield from self.build_tx()
            payload = PublishTxPayload(self.context.agent_address, tx_hash)
        with self.context.benchmark_tool.measure(self.behaviour_id).consensus():
            yield from self.send_a2a_transaction(payload)
            yield from self.wait_until_round_end()
        self.set_done()

    def build_tx(self) -> Generator[None, None, str]:
        """Hash the Safe transaction with the gnosis_safe contract and pack it.

        No ``chain_id`` kwarg: the ledger connection reads it as the name of the ledger
        configuration to use, and the contract takes the chain id from the node.

        :yield: while waiting for the ledger connection.
        :return: the settlement payload hex, "" on failure (logged).
        """
        call = update_call(self.target, self.synchronized_data.publish_verified_digest)
        body, why = yield from self.contract_state(
            self.safe_address,
            str(GNOSIS_SAFE_ID),
            "get_raw_safe_transaction_hash",
            to_address=call.target,
            value=0,
            data=call.data,
            operation=SAFE_OPERATION_CALL,
            safe_tx_gas=0,
        )
        if body is None:
            self.context.logger.error(
                f"publish: Safe {self.safe_address} transaction hash not built: {why}"
            )
            return ""
        safe_tx_hash = str(body["tx_hash"])
        self.context.logger.info(
            f"publish: Safe transaction {safe_tx_hash} calls {call.signature} on {call.target}"
        )
        return hash_payload_to_hex(
            safe_tx_hash=safe_tx_hash[2:],
            ether_value=0,
            safe_tx_gas=0,
            to_address=call.target,
            data=call.data,
            operation=SAFE_OPERATION_CALL,
        )
