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

"""The round test case of the PublishManifestAbciApp and the values its round tests share."""

from typing import Any, Dict, FrozenSet

from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
    PublishSynchronizedData,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.round_case import (
    _RoundTest as ToolMetadataRoundTest,
)
from packages.valory.skills.abstract_round_abci.base import BaseTxPayload

DIGEST = "0x" + "ab" * 32
ONCHAIN = "0x" + "cd" * 32
TX_HASH = "ef" * 100


class _RoundTest(ToolMetadataRoundTest):
    """The tool metadata round test runner, on the publish data and events."""

    _synchronized_data_class = PublishSynchronizedData
    _event_class = PublishEvent  # type: ignore[assignment]

    def run(  # type: ignore[override]
        self,
        payloads: Dict[str, BaseTxPayload],
        expected_event: PublishEvent,
        checks: Dict[str, Any],
    ) -> None:
        """Process the payloads; compare the event and the database keys.

        :param payloads: one payload per participant.
        :param expected_event: the expected event.
        :param checks: database keys and their expected values.
        """
        super().run(payloads, expected_event, checks)  # type: ignore[arg-type]


def _each(
    participants: FrozenSet[str], cls: Any, *values: Any
) -> Dict[str, BaseTxPayload]:
    return {p: cls(p, *values) for p in sorted(participants)}
