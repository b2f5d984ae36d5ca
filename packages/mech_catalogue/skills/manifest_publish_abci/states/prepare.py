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

"""PublishPrepareRound: agree on the generated manifest's digest and whether it must be published."""

from enum import Enum
from typing import Optional, Tuple, cast

from mech_catalogue_core.model.vocabulary import (
    PublishStatus,
)

from packages.mech_catalogue.skills.manifest_publish_abci.payloads import (
    PublishPreparePayload,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    SKIP_STATUSES,
    PublishEvent,
    PublishSynchronizedData,
)
from packages.valory.skills.abstract_round_abci.base import (
    BaseSynchronizedData,
    CollectSameUntilThresholdRound,
)


class PublishPrepareRound(CollectSameUntilThresholdRound):
    """Collect the same (status, manifest digest, on-chain digest) from a threshold.

    DONE when the agreed status is ``update``; SKIP when ``disabled`` or ``up_to_date``
    (nothing to send: the digest comparison makes the branch idempotent); ERROR for any
    refusal (invalid manifest, unknown id, Safe not authorised, chain unreadable).
    """

    payload_class = PublishPreparePayload
    synchronized_data_class = PublishSynchronizedData
    done_event = PublishEvent.DONE
    none_event = PublishEvent.ERROR
    no_majority_event = PublishEvent.NO_MAJORITY
    collection_key = "participant_to_publish_prepare"
    selection_key = (
        "publish_status",
        "publish_manifest_digest",
        "publish_onchain_digest",
    )

    def end_block(self) -> Optional[Tuple[BaseSynchronizedData, Enum]]:
        """Map the agreed status to the event.

        :return: the new synchronized data and event, or None while collecting.
        """
        result = super().end_block()
        if result is None or result[1] != self.done_event:
            return result
        status = cast(PublishSynchronizedData, result[0]).publish_status
        if status == PublishStatus.UPDATE.value:
            return result
        if status in SKIP_STATUSES:
            return result[0], PublishEvent.SKIP
        return result[0], PublishEvent.ERROR
