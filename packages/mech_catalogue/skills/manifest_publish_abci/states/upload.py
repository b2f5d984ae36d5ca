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

"""PublishUploadRound: agree that the manifest is on IPFS and re-hashes to the agreed digest."""

from enum import Enum
from typing import Optional, Tuple, cast

from packages.mech_catalogue.skills.manifest_publish_abci.payloads import (
    PublishUploadPayload,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
    PublishSynchronizedData,
)
from packages.valory.skills.abstract_round_abci.base import (
    BaseSynchronizedData,
    CollectSameUntilThresholdRound,
)


class PublishUploadRound(CollectSameUntilThresholdRound):
    """DONE when a threshold verified the agreed digest; ERROR when they agree it failed."""

    payload_class = PublishUploadPayload
    synchronized_data_class = PublishSynchronizedData
    done_event = PublishEvent.DONE
    none_event = PublishEvent.ERROR
    no_majority_event = PublishEvent.NO_MAJORITY
    collection_key = "participant_to_publish_upload"
    selection_key = "publish_verified_digest"

    def end_block(self) -> Optional[Tuple[BaseSynchronizedData, Enum]]:
        """Check the verified digest is the agreed one.

        :return: the new synchronized data and event, or None while collecting.
        """
        result = super().end_block()
        if result is None or result[1] != self.done_event:
            return result
        data = cast(PublishSynchronizedData, result[0])
        if not data.publish_verified_digest or (
            data.publish_verified_digest != data.publish_manifest_digest
        ):
            return result[0], PublishEvent.ERROR
        return result
