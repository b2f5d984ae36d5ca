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

"""RegistrySnapshotBehaviour: every branch (harness answers with real Multicall2 return data)."""

from eth_abi import encode

from packages.mech_catalogue.contracts.multicall_reader.contract import (
    PUBLIC_ID as MULTICALL_READER_ID,
)
from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.registry_snapshot import (
    RegistrySnapshotBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    RegistrySnapshotPayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    CSM,
    LEGACY,
    OLAS,
    SERVICE_REGISTRY,
    ToolMetadataBehaviourCase,
    _CapturePayload,
)
from packages.valory.protocols.contract_api import ContractApiMessage
from packages.valory.protocols.contract_api.custom_types import State


class TestRegistrySnapshotBehaviour(ToolMetadataBehaviourCase):
    """RegistrySnapshotBehaviour."""

    def start(self) -> _CapturePayload:
        """Enter the behaviour and start it."""
        self.go_to(RegistrySnapshotBehaviour, {})
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        return capture

    def test_reads_listed_ids_at_an_aligned_block(self) -> None:
        """Legacy + Olas ids: one block read, one batch; latest digests, zero hash is 'no hash'."""
        self.use_registries(
            [
                {"kind": "legacy_mech_registry", "address": LEGACY, "ids": [1, 2]},
                {"kind": "olas_agent_registry", "address": OLAS, "ids": [7]},
            ]
        )
        capture = self.start()
        self.answer_multicall(27, [(True, encode(["uint256"], [27]))])
        a, b, unit = b"\x01" * 32, b"\x02" * 32, b"\x03" * 32
        self.answer_multicall(
            20,
            [
                (
                    True,
                    encode(["uint256", "bytes32[]"], [2, [a, b]]),
                ),  # legacy id 1: last of getHashes
                (True, encode(["uint256", "bytes32[]"], [0, []])),  # legacy id 2: none
                (
                    True,
                    encode(["uint256", "bytes32[]"], [0, []]),
                ),  # olas id 7: no updates...
                (True, encode(["bytes32"], [unit])),  # ...so the unit hash
            ],
        )
        payload = capture.payloads[0]
        assert isinstance(payload, RegistrySnapshotPayload)
        assert payload.snapshot_digest is not None and payload.block_number == 20
        assert payload.sender == self.skill.skill_context.agent_address
        snapshot = self.kept_snapshot(payload.snapshot_digest)
        assert snapshot.block_number == 20
        assert payload.snapshot_digest == snapshot.digest()
        digests = {
            (r.ref.registry_kind, r.ref.mech_id): r.digest for r in snapshot.reads
        }
        assert digests == {
            ("legacy_mech_registry", 1): "0x" + b.hex(),
            ("legacy_mech_registry", 2): "",
            ("olas_agent_registry", 7): "0x" + unit.hex(),
        }
        self.finish_round()

    def test_reads_all_service_ids_through_the_service_registry(self) -> None:
        """Read all service ids: block number with serviceRegistry(), then its totalSupply() with the hashes."""
        self.skill.skill_context.params.__dict__["multicall_batch_size"] = 2
        self.use_registries(
            [{"kind": "complementary_service_metadata", "address": CSM, "ids": "all"}]
        )
        capture = self.start()
        self.answer_multicall(
            10,
            [
                (True, encode(["uint256"], [10])),
                (True, encode(["address"], [SERVICE_REGISTRY])),
            ],
        )
        self.answer_multicall(
            10,
            [
                (True, encode(["uint256"], [2])),
                (True, encode(["bytes32"], [b"\x05" * 32])),
                (False, b""),
            ],
        )
        snapshot = self.kept_snapshot(capture.payloads[0].snapshot_digest)
        assert [(r.ref.mech_id, r.digest, r.error) for r in snapshot.reads] == [
            (1, "0x" + "05" * 32, ""),
            (2, "", "registry_call_failed"),
        ]
        self.finish_round()

    def test_rpc_failure_sends_an_empty_payload(self) -> None:
        """The ledger connection reports an error: the payload carries None (NONE event)."""
        self.use_registries(
            [{"kind": "legacy_mech_registry", "address": LEGACY, "ids": [1]}]
        )
        capture = self.start()
        self.answer_multicall(0, [], error=True)
        assert (
            capture.payloads[0].snapshot_digest is None
            and capture.payloads[0].block_number is None
        )
        self.finish_round()

    def test_supply_revert_sends_an_empty_payload(self) -> None:
        """totalSupply() reverts (wrong address or kind): no snapshot rather than a wrong one."""
        self.use_registries(
            [{"kind": "olas_agent_registry", "address": OLAS, "ids": "all"}]
        )
        self.skill.skill_context.params.__dict__["multicall_batch_size"] = 2
        capture = self.start()
        self.answer_multicall(5, [(True, encode(["uint256"], [5]))])
        self.answer_multicall(0, [(False, b"")] + [(True, b"")] * 2)
        assert capture.payloads[0].values == (None, None)
        self.finish_round()

    def test_garbage_return_sends_an_empty_payload(self) -> None:
        """The address is not Multicall2 (return does not decode): no snapshot."""
        self.use_registries(
            [{"kind": "olas_agent_registry", "address": OLAS, "ids": [1]}]
        )
        capture = self.start()
        self.mock_contract_api_request(
            contract_id=str(MULTICALL_READER_ID),
            request_kwargs={"performative": ContractApiMessage.Performative.GET_STATE},
            response_kwargs={
                "performative": ContractApiMessage.Performative.STATE,
                "state": State(ledger_id="ethereum", body={"data": "0x1234"}),
            },
        )
        assert capture.payloads[0].values == (None, None)
        self.finish_round()
