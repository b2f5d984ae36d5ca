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

"""ShareViewsRound: every event."""

from typing import Any, Dict, Mapping, cast

from mech_catalogue_core.catalogue.views import (
    views_chunks,
    views_digest,
)

from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    ViewsChunkPayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event,
    SynchronizedData,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.share_views import (
    ShareViewsRound,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.round_case import (
    VIEWS,
    VIEWS_DIGEST,
    _RoundTest,
)
from packages.valory.skills.abstract_round_abci.base import (
    BaseTxPayload,
)


class TestShareViewsRound(_RoundTest):
    """ShareViewsRound: the views reach the db only from agreed chunks."""

    round_class = ShareViewsRound

    def _agreed(self, document: str, size: int) -> SynchronizedData:
        return cast(
            SynchronizedData,
            self.synchronized_data.update(
                catalogue_views_digest=views_digest(document),
                catalogue_views_chunks=len(views_chunks(document, size)),
                views_received_count=0,
            ),
        )

    def _end(
        self, data: SynchronizedData, payloads: Mapping[str, BaseTxPayload]
    ) -> Any:
        test_round = ShareViewsRound(synchronized_data=data, context=None)  # type: ignore[arg-type]
        for payload in payloads.values():
            test_round.process_payload(payload)
        return test_round.end_block()

    def test_chunks_are_assembled_then_written(self) -> None:
        """Three chunks: NEXT_CHUNK twice, then DONE writes mechs_info, mech_tools, views_digest."""
        size = 20
        data = self._agreed(VIEWS, size)
        chunks = views_chunks(VIEWS, size)
        assert len(chunks) > 2
        for index, chunk in enumerate(chunks):
            payloads = {
                p: ViewsChunkPayload(p, VIEWS_DIGEST, index, chunk)
                for p in sorted(self.participants)
            }
            result = self._end(data, payloads)
            assert result is not None
            data = cast(SynchronizedData, result[0])
            last = index == len(chunks) - 1
            assert result[1] == (Event.DONE if last else Event.NEXT_CHUNK)
        assert data.mech_tools == {"a"} and data.views_digest == VIEWS_DIGEST
        assert data.mechs_info == [{"id": "1", "address": "", "relevant_tools": ["a"]}]
        assert data.views_received_count == 0
        assert all(not data.db.get(f"views_chunk_{i}", "") for i in range(len(chunks)))

    def test_chunk_rounds_leave_no_history_in_the_db(self) -> None:
        """Each key keeps its latest value only: the db does not grow with the chunk count."""
        size = 8
        data = self._agreed(VIEWS, size)
        chunks = views_chunks(VIEWS, size)
        assert len(chunks) > 4
        serialized = []
        for index, chunk in enumerate(chunks):
            payloads = {
                p: ViewsChunkPayload(p, VIEWS_DIGEST, index, chunk)
                for p in sorted(self.participants)
            }
            result = self._end(data, payloads)
            assert result is not None
            data = cast(SynchronizedData, result[0])
            db = data.db
            period = db._data[db.reset_index]  # pylint: disable=protected-access
            assert all(len(history) == 1 for history in period.values())
            serialized.append(len(data.db.serialize()))
        # while collecting: one key per agreed chunk, so the db grows by about a chunk
        # a round (not by every agent's payload of every round)
        assert serialized[-2] - serialized[0] < 4 * len(VIEWS)
        assert data.participant_to_views == {}
        assert all(not data.db.get(f"views_chunk_{i}", "") for i in range(len(chunks)))

    def test_minority_without_views_does_not_matter(self) -> None:
        """One agent holds no views (None): the threshold's chunk is written all the same."""
        data = self._agreed(VIEWS, len(VIEWS))
        payloads: Dict[str, BaseTxPayload] = {
            p: ViewsChunkPayload(p, VIEWS_DIGEST, 0, VIEWS)
            for p in sorted(self.participants)
        }
        lacking = sorted(self.participants)[0]
        payloads[lacking] = ViewsChunkPayload(lacking, None, None, None)
        result = self._end(data, payloads)
        assert result is not None and result[1] == Event.DONE

    def test_chunks_that_do_not_hash_to_the_agreed_digest_are_refused(self) -> None:
        """A threshold sending other bytes (or the wrong index): NONE, the views stay."""
        data = self._agreed(VIEWS, len(VIEWS))
        forged = VIEWS.replace('"a"', '"b"')
        for payload_values in ((VIEWS_DIGEST, 0, forged), (VIEWS_DIGEST, 1, VIEWS)):
            payloads = {
                p: ViewsChunkPayload(p, *payload_values)
                for p in sorted(self.participants)
            }
            result = self._end(data, payloads)
            assert result is not None and result[1] == Event.NONE
            assert cast(SynchronizedData, result[0]).views_digest == ""

    def test_agreed_chunks_that_are_not_views_are_refused(self) -> None:
        """Chunks hashing to the agreed digest but not a views document (too deep, a list): NONE."""
        for document in ("[" * 100_000 + "]" * 100_000, "[1]", '{"mechs_info": 1}'):
            data = self._agreed(document, len(document))
            payloads = {
                p: ViewsChunkPayload(p, views_digest(document), 0, document)
                for p in sorted(self.participants)
            }
            result = self._end(data, payloads)
            assert result is not None and result[1] == Event.NONE

    def test_none_when_nobody_holds_the_views(self) -> None:
        """A threshold of Nones: NONE."""
        data = self._agreed(VIEWS, len(VIEWS))
        payloads = {
            p: ViewsChunkPayload(p, None, None, None) for p in sorted(self.participants)
        }
        result = self._end(data, payloads)
        assert result is not None and result[1] == Event.NONE
