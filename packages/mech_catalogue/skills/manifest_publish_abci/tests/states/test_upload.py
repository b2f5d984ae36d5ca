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

"""PublishUploadRound: every event."""

from packages.mech_catalogue.skills.manifest_publish_abci.payloads import (
    PublishUploadPayload,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.upload import (
    PublishUploadRound,
)
from packages.mech_catalogue.skills.manifest_publish_abci.tests.round_case import (
    DIGEST,
    ONCHAIN,
    _each,
    _RoundTest,
)


class TestPublishUploadRound(_RoundTest):
    """PublishUploadRound."""

    round_class = PublishUploadRound

    def setup_method(self) -> None:
        """Agree on the manifest digest first."""
        super().setup_method()
        self.synchronized_data = self.synchronized_data.update(
            publish_manifest_digest=DIGEST
        )

    def test_verified_agreed_digest_is_done(self) -> None:
        """The agreed digest verified by a threshold: DONE."""
        self.run(
            _each(self.participants, PublishUploadPayload, DIGEST),
            PublishEvent.DONE,
            {"publish_verified_digest": DIGEST},
        )

    def test_other_digest_is_error(self) -> None:
        """A verified digest other than the agreed one: ERROR."""
        self.run(
            _each(self.participants, PublishUploadPayload, ONCHAIN),
            PublishEvent.ERROR,
            {"publish_verified_digest": ONCHAIN},
        )

    def test_failed_upload_is_error(self) -> None:
        """Agents agree the upload failed (""): ERROR."""
        self.run(
            _each(self.participants, PublishUploadPayload, ""),
            PublishEvent.ERROR,
            {"publish_verified_digest": ""},
        )
