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

"""FetchManifestsRound: every event."""

from typing import cast

from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    CataloguePayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event,
    SynchronizedData,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.fetch_manifests import (
    FetchManifestsRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.round_case import (
    CATALOGUE_DIGEST,
    MECH_TOOLS,
    MECHS_INFO,
    VIEWS_DIGEST,
    _RoundTest,
    catalogue_payloads,
)


class TestFetchManifestsRound(_RoundTest):
    """FetchManifestsRound."""

    round_class = FetchManifestsRound

    def test_done_stores_digests(self) -> None:
        """Equal catalogues: DONE with the catalogue and views digests and the chunk count."""
        self.run(
            catalogue_payloads(self.participants, CATALOGUE_DIGEST),
            Event.DONE,
            {
                "catalogue_digest": CATALOGUE_DIGEST,
                "catalogue_views_digest": VIEWS_DIGEST,
                "catalogue_views_chunks": 1,
            },
        )

    def test_views_unchanged_skips_sharing(self) -> None:
        """The agreed views are already in the db: VIEWS_UNCHANGED, nothing to share."""
        self.synchronized_data = cast(
            SynchronizedData, self.synchronized_data.update(views_digest=VIEWS_DIGEST)
        )
        self.run(
            catalogue_payloads(self.participants, CATALOGUE_DIGEST),
            Event.VIEWS_UNCHANGED,
            {"catalogue_digest": CATALOGUE_DIGEST},
        )

    def test_synchronized_data_views(self) -> None:
        """mech_tools is a set and mechs_info a list of dicts, as mech-interact reads them."""
        data = SynchronizedData(
            db=self.synchronized_data.update(
                mechs_info=MECHS_INFO, mech_tools=MECH_TOOLS
            ).db
        )
        assert data.mech_tools == {"a"}
        assert data.mechs_info == [{"id": "1", "address": "", "relevant_tools": ["a"]}]

    def test_none_without_snapshot(self) -> None:
        """No catalogue could be built: NONE."""
        self.run(catalogue_payloads(self.participants, None), Event.NONE, {})

    def test_no_majority(self) -> None:
        """Agents built different catalogues (e.g. one could not reach IPFS): NO_MAJORITY."""
        test_round = FetchManifestsRound(synchronized_data=self.synchronized_data, context=None)  # type: ignore[arg-type]
        for index, participant in enumerate(sorted(self.participants)):
            test_round.process_payload(
                CataloguePayload(participant, str(index) * 64, VIEWS_DIGEST, 1)
            )
        result = test_round.end_block()
        assert result is not None and result[1] == Event.NO_MAJORITY
