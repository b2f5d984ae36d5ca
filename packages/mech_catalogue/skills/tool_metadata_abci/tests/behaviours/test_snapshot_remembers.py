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

"""After a read, the skill remembers each ServiceRegistry and each supply for the next one.

Found by mutation testing (issue 18): ``_read`` not passing the skill state's
``supply_holders`` / ``supply_hints`` to ``snapshot_reader`` kept every read right and
every test green, while each period asked ``serviceRegistry()`` again and guessed ids
without last period's supply.
"""

from eth_abi import encode

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.registry_snapshot import (
    RegistrySnapshotBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    RegistrySnapshotPayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    ToolMetadataBehaviourCase,
    _CapturePayload,
)

CSM = "0x00000000000000000000000000000000000000c1"
SERVICES = "0x00000000000000000000000000000000000000d1"


class TestSnapshotRemembers(ToolMetadataBehaviourCase):
    """One read of a ComplementaryServiceMetadata with ids ``all``."""

    def test_the_holder_and_the_supply_are_kept_for_the_next_read(self) -> None:
        """serviceRegistry() answered with the ServiceRegistry, totalSupply() 2: both kept."""
        state = self.skill.skill_context.state
        state.supply_holders.clear()
        state.supply_hints.clear()
        self.use_registries(
            [{"kind": "complementary_service_metadata", "address": CSM, "ids": "all"}]
        )
        self.go_to(RegistrySnapshotBehaviour, {})
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        # getBlockNumber() and serviceRegistry(), at latest
        self.answer_multicall(
            27,
            [
                (True, encode(["uint256"], [27])),
                (True, encode(["address"], [SERVICES])),
            ],
        )
        # totalSupply() then the 200 ids guessed with it; services 1 and 2 set a hash
        self.answer_multicall(
            20,
            [(True, encode(["uint256"], [2]))]
            + [(True, (i if i <= 2 else 0).to_bytes(32, "big")) for i in range(1, 201)],
        )
        assert isinstance(capture.payloads[0], RegistrySnapshotPayload)
        assert [a.lower() for a in state.supply_holders.values()] == [SERVICES]
        assert list(state.supply_hints.values()) == [2]
