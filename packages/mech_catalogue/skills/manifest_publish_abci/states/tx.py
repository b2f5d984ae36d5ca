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

"""PublishTxRound: agree on the Safe transaction that updates the registry's digest."""

from enum import Enum
from typing import Optional, Tuple

from packages.mech_catalogue.skills.manifest_publish_abci.payloads import (
    PublishTxPayload,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
    PublishSynchronizedData,
)
from packages.valory.skills.abstract_round_abci.base import (
    BaseSynchronizedData,
    CollectSameUntilThresholdRound,
)


class PublishTxRound(CollectSameUntilThresholdRound):
    """DONE stores ``most_voted_tx_hash`` and ``tx_submitter``; "" from a threshold is ERROR."""

    payload_class = PublishTxPayload
    synchronized_data_class = PublishSynchronizedData
    done_event = PublishEvent.DONE
    none_event = PublishEvent.ERROR
    no_majority_event = PublishEvent.NO_MAJORITY
    collection_key = "participant_to_publish_tx"
    selection_key = "most_voted_tx_hash"

    def end_block(self) -> Optional[Tuple[BaseSynchronizedData, Enum]]:
        """Record the submitter for transaction settlement; refuse an empty transaction.

        :return: the new synchronized data and event, or None while collecting.
        """
        result = super().end_block()
        if result is None or result[1] != self.done_event:
            return result
        if not self.most_voted_payload:
            return result[0], PublishEvent.ERROR
        data = result[0].update(
            synchronized_data_class=self.synchronized_data_class,
            tx_submitter=self.auto_round_id(),
        )
        return data, self.done_event
