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

"""RegistrySnapshotRound: agree on every configured id's latest on-chain digest."""

from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    RegistrySnapshotPayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event,
    SynchronizedData,
)
from packages.valory.skills.abstract_round_abci.base import (
    CollectSameUntilThresholdRound,
    get_name,
)


class RegistrySnapshotRound(CollectSameUntilThresholdRound):
    """Collect the same registry snapshot from a threshold of agents.

    DONE stores the block and the digest (each agent keeps its own snapshot, keyed by
    the digest); NONE (a threshold could not read the registries) leaves the database
    as it was.
    """

    payload_class = RegistrySnapshotPayload
    synchronized_data_class = SynchronizedData
    done_event = Event.DONE
    none_event = Event.NONE
    no_majority_event = Event.NO_MAJORITY
    collection_key = get_name(SynchronizedData.participant_to_snapshot)
    selection_key = (
        get_name(SynchronizedData.registry_snapshot_block),
        get_name(SynchronizedData.registry_snapshot_digest),
    )
