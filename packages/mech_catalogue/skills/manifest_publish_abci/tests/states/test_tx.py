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

"""PublishTxRound: every event."""

from packages.mech_catalogue.skills.manifest_publish_abci.payloads import (
    PublishTxPayload,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.base import (
    PublishEvent,
)
from packages.mech_catalogue.skills.manifest_publish_abci.states.tx import (
    PublishTxRound,
)
from packages.mech_catalogue.skills.manifest_publish_abci.tests.round_case import (
    TX_HASH,
    _each,
    _RoundTest,
)


class TestPublishTxRound(_RoundTest):
    """PublishTxRound."""

    round_class = PublishTxRound

    def test_done_sets_tx_hash_and_submitter(self) -> None:
        """DONE stores the settlement payload and the submitter round."""
        self.run(
            _each(self.participants, PublishTxPayload, TX_HASH),
            PublishEvent.DONE,
            {
                "most_voted_tx_hash": TX_HASH,
                "tx_submitter": PublishTxRound.auto_round_id(),
            },
        )

    def test_empty_is_error(self) -> None:
        """No transaction could be built: ERROR."""
        self.run(
            _each(self.participants, PublishTxPayload, ""),
            PublishEvent.ERROR,
            {"most_voted_tx_hash": ""},
        )
