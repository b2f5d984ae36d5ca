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

"""The round test case of the ToolMetadataAbciApp and the payload fixtures its round tests share."""

import json
from typing import Any, Dict, FrozenSet, Optional, Type

from mech_catalogue_core.catalogue.views import (
    views_digest,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.model.catalogue import (
    MechRef,
)

from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    CataloguePayload,
    RegistrySnapshotPayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event,
    SynchronizedData,
)
from packages.valory.skills.abstract_round_abci.base import (
    BaseTxPayload,
    CollectSameUntilThresholdRound,
)
from packages.valory.skills.abstract_round_abci.test_tools.rounds import (
    BaseCollectSameUntilThresholdRoundTest,
)

SNAPSHOT = RegistrySnapshot.build(
    10,
    [
        DigestRead(
            MechRef(31337, "legacy_mech_registry", "0x" + "00" * 19 + "aa", 1),
            "0x" + "11" * 32,
        )
    ],
)
SNAPSHOT_DIGEST = SNAPSHOT.digest()
CATALOGUE_DIGEST = "cd" * 32
MECHS_INFO = json.dumps([{"id": "1", "address": "", "relevant_tools": ["a"]}])
MECH_TOOLS = json.dumps(["a"])
VIEWS = json.dumps(
    {
        "mech_tools": ["a"],
        "mechs_info": [{"id": "1", "address": "", "relevant_tools": ["a"]}],
    },
    separators=(",", ":"),
    sort_keys=True,
)
VIEWS_DIGEST = views_digest(VIEWS)


def snapshot_payloads(
    participants: FrozenSet[str], block: Optional[int], digest: Optional[str]
) -> Dict[str, BaseTxPayload]:
    """Build one RegistrySnapshotPayload per participant with the same values.

    :param participants: the agents.
    :param block: the block read at.
    :param digest: the snapshot digest.
    :return: one RegistrySnapshotPayload per participant with the same values.
    """
    return {p: RegistrySnapshotPayload(p, block, digest) for p in sorted(participants)}


def catalogue_payloads(
    participants: FrozenSet[str],
    digest: Optional[str],
    views: Optional[str] = VIEWS_DIGEST,
) -> Dict[str, BaseTxPayload]:
    """Build one CataloguePayload per participant with the same values.

    :param participants: the agents.
    :param digest: the catalogue digest.
    :param views: the views digest.
    :return: one CataloguePayload per participant with the same values.
    """
    chunks = 1 if digest else None
    views = views if digest else None
    return {p: CataloguePayload(p, digest, views, chunks) for p in sorted(participants)}


class _RoundTest(BaseCollectSameUntilThresholdRoundTest):
    _synchronized_data_class = SynchronizedData
    _event_class = Event
    round_class: Type[CollectSameUntilThresholdRound]

    def run(
        self,
        payloads: Dict[str, BaseTxPayload],
        expected_event: Event,
        checks: Dict[str, Any],
    ) -> None:
        """Process the payloads, then compare the event and the database keys."""
        test_round = self.round_class(synchronized_data=self.synchronized_data, context=None)  # type: ignore[arg-type]
        first = next(iter(payloads.values()))
        self._complete_run(
            self._test_round(
                test_round=test_round,
                round_payloads=payloads,
                synchronized_data_update_fn=lambda data, _: (
                    data.update(**checks) if checks else data
                ),
                synchronized_data_attr_checks=[
                    lambda data, key=key: data.db.get(key, None) for key in checks
                ],
                most_voted_payload=first.values[0],
                exit_event=expected_event,
            )
        )
