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

"""The behaviour test case of the manifest publish skill (FSMBehaviourBaseCase) and its helpers.

The ledger and IPFS connections are replaced by the framework's harness: each request is
checked in the outbox and answered by the test with real return data (eth_abi-encoded
Multicall2 results, the manifest's real canonical bytes). The same steps run for real
against anvil + kubo in tests/devnet/test_publish_*.py (through the CLI's publisher).
"""

from pathlib import Path
from typing import Any, Dict

from eth_abi import encode
from mech_catalogue_core import tests as domain_tests
from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.derive.generate import (
    generate_manifest,
)
from mech_catalogue_core.publish.publish import (
    PreparedManifest,
    PublishTarget,
    prepare_manifest,
)

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.round_behaviour import (
    PublishRoundBehaviour,
)
from packages.mech_catalogue.skills.manifest_publish_abci.params import (
    PublishSettings,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
    PublishSynchronizedData,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    CSM,
    SERVICE_REGISTRY,
    ToolMetadataBehaviourCase,
    _CapturePayload,
)
from packages.valory.skills.abstract_round_abci.base import AbciAppDB

PACKAGE_DIR = Path(__file__).parents[1]
TOOL_PACKAGE = (
    Path(domain_tests.__file__).parent / "fixtures" / "tool_packages" / "echo_tool"
)
SAFE = "0x00000000000000000000000000000000000005af"
SERVICE_ID = 5
OVERRIDES = {"name": "Published by the FSM"}


def expected_manifest() -> PreparedManifest:
    """Prepare the manifest the behaviours should generate (CIDv0 layout of the connection).

    :return: the prepared manifest.
    """
    document, _ = generate_manifest([derive_package(TOOL_PACKAGE)], OVERRIDES)
    return prepare_manifest(document, cid_version=0)


class PublishBehaviourCase(  # pylint: disable=attribute-defined-outside-init
    ToolMetadataBehaviourCase
):
    """Drive the PublishRoundBehaviour with the skill's context."""

    path_to_skill = PACKAGE_DIR

    def setup_method(self, **kwargs: Any) -> None:
        """Enable publishing to service 5 of a ComplementaryServiceMetadata; use the publish round behaviour."""
        super().setup_method(**kwargs)
        self.skill.skill_context.params.__dict__["publish"] = PublishSettings(
            True,
            (str(TOOL_PACKAGE),),
            OVERRIDES,
            PublishTarget("complementary_service_metadata", CSM, SERVICE_ID),
            5.0,
        )
        self.behaviour = PublishRoundBehaviour(
            name="publish", skill_context=self.skill.skill_context
        )
        self.behaviour.setup()
        self.prepared = expected_manifest()

    def enter(self, behaviour: Any, data: Dict[str, Any]) -> _CapturePayload:
        """Fast-forward to a publish behaviour and run it once.

        :param behaviour: the behaviour class.
        :param data: database content.
        :return: the payload capture.
        """
        agent = self.skill.skill_context.agent_address
        setup = {
            "all_participants": (agent,),
            "participants": (agent,),
            "consensus_threshold": 1,
            "safe_contract_address": SAFE,
            **data,
        }
        self.fast_forward_to_behaviour(
            self.behaviour,
            behaviour.auto_behaviour_id(),
            PublishSynchronizedData(
                AbciAppDB(setup_data=AbciAppDB.data_to_lists(setup))
            ),
        )
        # fast_forward_to_behaviour records the round height on the skill's main behaviour
        abci_app = self.skill.skill_context.state.round_sequence.abci_app
        self.behaviour._last_round_height = (  # pylint: disable=protected-access
            abci_app.current_round_height
        )
        # the skill's handlers deliver responses to behaviours.main's current behaviour
        self.skill.skill_context.behaviours.main.current_behaviour = (
            self.behaviour.current_behaviour
        )
        capture = _CapturePayload(self.behaviour.current_behaviour)
        self.behaviour.act_wrapper()
        return capture

    def answer_reads(self, exists: bool, able: bool, onchain: bytes) -> None:
        """Answer serviceRegistry(), then exists / isAbleChangeHash / mapServiceHashes.

        :param exists: the service exists.
        :param able: the Safe may change the hash.
        :param onchain: the digest on chain.
        """
        self.answer_multicall(9, [(True, encode(["address"], [SERVICE_REGISTRY]))])
        self.answer_multicall(
            9,
            [
                (True, encode(["bool"], [exists])),
                (True, encode(["bool"], [able])),
                (True, encode(["bytes32"], [onchain])),
            ],
        )

    def finish(self, event: PublishEvent = PublishEvent.DONE) -> None:
        """Deliver the payload and end the round.

        :param event: the round's event.
        """
        self.mock_a2a_transaction()
        self._test_done_flag_set()
        self.end_round(event)
