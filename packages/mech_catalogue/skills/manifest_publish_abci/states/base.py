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

"""Events, statuses and synchronized data of the PublishManifestAbciApp.

Database keys written by the publish branch (all strings):

===============================  ============================================================
key                              value
===============================  ============================================================
``publish_status``               agreed :class:`PublishStatus` value of this period
``publish_manifest_digest``      ``0x`` hex digest of the generated manifest
``publish_onchain_digest``       ``0x`` hex digest the registry held when compared
``publish_verified_digest``      the digest every agent uploaded, read back and re-hashed
``most_voted_tx_hash``           the Safe transaction for ``transaction_settlement_abci``
``tx_submitter``                 the round that submitted it (``publish_tx_round``)
===============================  ============================================================
"""

from enum import Enum
from typing import Any, Mapping

from mech_catalogue_core.model.vocabulary import (
    PublishStatus,
)

from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    SynchronizedData,
)
from packages.valory.skills.abstract_round_abci.base import CollectionRound


class PublishEvent(Enum):
    """PublishManifestAbciApp events."""

    DONE = "done"
    SKIP = "skip"
    ERROR = "error"
    NO_MAJORITY = "no_majority"
    ROUND_TIMEOUT = "round_timeout"


#: statuses that end the branch without a transaction and without an error
SKIP_STATUSES = frozenset({PublishStatus.DISABLED, PublishStatus.UP_TO_DATE})


class PublishSynchronizedData(SynchronizedData):
    """The publish branch's view of the replicated database."""

    def _text(self, key: str) -> str:
        return str(self.db.get(key, "") or "")

    @property
    def publish_status(self) -> str:
        """Get the agreed preparation status.

        :return: a :class:`PublishStatus` value, "" before agreement.
        """
        return self._text("publish_status")

    @property
    def publish_manifest_digest(self) -> str:
        """Get the agreed digest of the generated manifest.

        :return: ``0x`` hex or "".
        """
        return self._text("publish_manifest_digest")

    @property
    def publish_onchain_digest(self) -> str:
        """Get the on-chain digest the agents compared with.

        :return: ``0x`` hex or "".
        """
        return self._text("publish_onchain_digest")

    @property
    def publish_verified_digest(self) -> str:
        """Get the agreed uploaded-and-verified digest.

        :return: ``0x`` hex or "".
        """
        return self._text("publish_verified_digest")

    @property
    def most_voted_tx_hash(self) -> str:
        """Get the Safe transaction for transaction settlement.

        :return: ``hash_payload_to_hex`` output.
        """
        return self._text("most_voted_tx_hash")

    @property
    def participant_to_publish_prepare(self) -> Mapping[str, Any]:
        """Get the collected PublishPreparePayloads.

        :return: sender -> payload.
        """
        return CollectionRound.deserialize_collection(
            self.db.get_strict("participant_to_publish_prepare")
        )
