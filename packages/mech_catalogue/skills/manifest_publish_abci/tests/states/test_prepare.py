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

"""PublishPrepareRound: every event."""

import pytest

from packages.mech_catalogue.skills.manifest_publish_abci.payloads import (
    PublishPreparePayload,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
    PublishStatus,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.prepare import (
    PublishPrepareRound,
)
from packages.mech_catalogue.skills.manifest_publish_abci.tests.round_case import (
    DIGEST,
    ONCHAIN,
    _each,
    _RoundTest,
)


class TestPublishPrepareRound(_RoundTest):
    """PublishPrepareRound."""

    round_class = PublishPrepareRound

    @pytest.mark.parametrize(
        "status,event",
        [
            (PublishStatus.UPDATE, PublishEvent.DONE),
            (PublishStatus.UP_TO_DATE, PublishEvent.SKIP),
            (PublishStatus.DISABLED, PublishEvent.SKIP),
            (PublishStatus.INVALID_MANIFEST, PublishEvent.ERROR),
            (PublishStatus.NOT_AUTHORISED, PublishEvent.ERROR),
            (PublishStatus.MECH_NOT_FOUND, PublishEvent.ERROR),
            (PublishStatus.READ_FAILED, PublishEvent.ERROR),
        ],
    )
    def test_status_to_event(self, status: PublishStatus, event: PublishEvent) -> None:
        """Each agreed status gives its event and is stored."""
        self.run(
            _each(
                self.participants, PublishPreparePayload, status.value, DIGEST, ONCHAIN
            ),
            event,
            {
                "publish_status": status.value,
                "publish_manifest_digest": DIGEST,
                "publish_onchain_digest": ONCHAIN,
            },
        )

    def test_no_majority(self) -> None:
        """Different digests from every agent: NO_MAJORITY."""
        test_round = self.round_class(synchronized_data=self.synchronized_data, context=None)  # type: ignore[arg-type]
        for index, participant in enumerate(sorted(self.participants)):
            test_round.process_payload(
                PublishPreparePayload(
                    participant, PublishStatus.UPDATE.value, f"0x{index:064x}", ""
                )
            )
        result = test_round.end_block()
        assert result is not None and result[1] == PublishEvent.NO_MAJORITY
