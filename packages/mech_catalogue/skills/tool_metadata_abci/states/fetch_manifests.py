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

"""FetchManifestsRound: agree on the digest of the catalogue built from the agreed snapshot."""

from enum import Enum
from typing import Optional, Tuple, cast

from packages.mech_catalogue.skills.tool_metadata_abci.payloads import CataloguePayload
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event,
    SynchronizedData,
)
from packages.valory.skills.abstract_round_abci.base import (
    BaseSynchronizedData,
    CollectSameUntilThresholdRound,
    get_name,
)


class FetchManifestsRound(CollectSameUntilThresholdRound):
    """Collect the same (catalogue digest, views digest, chunk count) from a threshold.

    DONE goes on to ``ShareViewsRound`` when the views differ from the ones already in
    ``mechs_info`` / ``mech_tools``, VIEWS_UNCHANGED ends the app at once otherwise;
    NO_MAJORITY and FETCH_TIMEOUT go back to ``RegistrySnapshotRound`` (re-read the chain).
    """

    payload_class = CataloguePayload
    synchronized_data_class = SynchronizedData
    done_event = Event.DONE
    none_event = Event.NONE
    no_majority_event = Event.NO_MAJORITY
    collection_key = get_name(SynchronizedData.participant_to_catalogue)
    selection_key = (
        get_name(SynchronizedData.catalogue_digest),
        get_name(SynchronizedData.catalogue_views_digest),
        get_name(SynchronizedData.catalogue_views_chunks),
    )

    def end_block(self) -> Optional[Tuple[BaseSynchronizedData, Enum]]:
        """End the block; on DONE, let the skill expose its catalogue if it is the agreed one.

        Publishing only touches this agent's ``shared_state``, never the replicated data.

        :return: the new synchronized data and event, or None while collecting.
        """
        result = super().end_block()
        if result is None or result[1] != self.done_event:
            return result
        data = cast(SynchronizedData, result[0])
        if self.context is not None:
            self.context.state.expose_if_agreed(
                data.catalogue_digest, data.period_count
            )
        data = cast(
            SynchronizedData,
            data.update(
                synchronized_data_class=SynchronizedData,
                views_received_count=0,
            ),
        )
        if data.catalogue_views_digest == data.views_digest:
            return data, Event.VIEWS_UNCHANGED
        return data, self.done_event
