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

"""RegistrySnapshotRound: every event."""

from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    RegistrySnapshotPayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.registry_snapshot import (
    RegistrySnapshotRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.round_case import (
    SNAPSHOT_DIGEST,
    _RoundTest,
    snapshot_payloads,
)


class TestRegistrySnapshotRound(_RoundTest):
    """RegistrySnapshotRound."""

    round_class = RegistrySnapshotRound

    def test_done_stores_block_and_digest(self) -> None:
        """A threshold of equal reads: DONE, block and digest stored; no snapshot in the db."""
        self.run(
            snapshot_payloads(self.participants, 10, SNAPSHOT_DIGEST),
            Event.DONE,
            {
                "registry_snapshot_block": 10,
                "registry_snapshot_digest": SNAPSHOT_DIGEST,
            },
        )

    def test_none_when_registries_unreadable(self) -> None:
        """A threshold of agents could not read the chain: NONE, database unchanged."""
        self.run(snapshot_payloads(self.participants, None, None), Event.NONE, {})

    def test_no_majority(self) -> None:
        """Every agent read something different: NO_MAJORITY."""
        test_round = RegistrySnapshotRound(synchronized_data=self.synchronized_data, context=None)  # type: ignore[arg-type]
        for index, participant in enumerate(sorted(self.participants)):
            test_round.process_payload(
                RegistrySnapshotPayload(participant, 10, str(index) * 64)
            )
        result = test_round.end_block()
        assert result is not None and result[1] == Event.NO_MAJORITY
