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

"""ShareViewsRound: agree on the mech-interact views chunk by chunk, then write them."""

from enum import Enum
from typing import Optional, Tuple, cast

from mech_catalogue_core.catalogue.views import (
    views_digest,
    views_from_document,
)
from mech_catalogue_core.manifest.validation import (
    nesting_depth,
)

from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    ViewsChunkPayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.base import (
    Event,
    SynchronizedData,
)
from packages.valory.skills.abstract_round_abci.base import (
    BaseSynchronizedData,
    CollectSameUntilThresholdRound,
    get_name,
)

#: nesting of a views document (object > list > object > object > list > object), with room
VIEWS_MAX_DEPTH = 8


def _views_or_none(document: str, agreed: str) -> Optional[Tuple[str, str]]:
    """Check assembled chunks against the agreed digest and shape, without raising.

    :param document: the chunks, joined.
    :param agreed: the agreed views digest.
    :return: ``(mechs_info JSON, mech_tools JSON)``, or None when the text does not hash
        to ``agreed``, is not ASCII, is nested deeper than a views document can be
        (checked before decoding) or is not a views document.
    """
    if not document.isascii() or views_digest(document) != agreed:
        return None
    if nesting_depth(document, VIEWS_MAX_DEPTH) > VIEWS_MAX_DEPTH:
        return None
    try:
        return views_from_document(document)
    except (ValueError, RecursionError):
        return None


#: db key of the i-th agreed chunk of this period: ``views_chunk_<i>``
VIEWS_CHUNK_KEY_PREFIX = "views_chunk_"


class ShareViewsRound(CollectSameUntilThresholdRound):
    """Collect the same views chunk from a threshold; loop until every chunk is agreed.

    The database must be the same on every agent (its hash is Tendermint's app hash), so
    ``mechs_info`` and ``mech_tools`` are written only from agreed chunks, never from an
    agent's own catalogue: an agent that does not hold the agreed catalogue still writes
    the same values. NEXT_CHUNK loops here, DONE writes both keys and ``views_digest``
    once the chunks hash to the agreed ``catalogue_views_digest``; NONE (a threshold does
    not hold the views, or the chunks do not hash to it) keeps the previous views.
    """

    payload_class = ViewsChunkPayload
    synchronized_data_class = SynchronizedData
    done_event = Event.DONE
    none_event = Event.NONE
    no_majority_event = Event.NO_MAJORITY
    collection_key = get_name(SynchronizedData.participant_to_views)
    selection_key = ("views_chunk_digest", "views_chunk_index", "views_chunk")

    def end_block(self) -> Optional[Tuple[BaseSynchronizedData, Enum]]:
        """Append the agreed chunk; write the views after the last one.

        :return: the new synchronized data and event, or None while collecting.
        """
        result = self._end_block()
        if result is not None:
            # every round of this loop appends a chunk (and the collected payloads) to
            # the db's per-key history, which lives until the period ends and which the
            # app hash re-serialises every block: keep the latest value of each key only
            result[0].db.cleanup_current_histories(1)
        return result

    def _end_block(self) -> Optional[Tuple[BaseSynchronizedData, Enum]]:
        result = super().end_block()
        if result is None or result[1] != self.done_event:
            return result
        data = cast(SynchronizedData, result[0])
        agreed = data.catalogue_views_digest
        index, chunk = data.db.get("views_chunk_index"), data.db.get("views_chunk")
        if (
            data.db.get("views_chunk_digest") != agreed
            or index != data.views_received_count
            or not isinstance(chunk, str)
        ):
            return data, Event.NONE
        count = data.views_received_count + 1
        # one key per chunk: appending to one growing text would copy it every round
        chunk_keys = {f"{VIEWS_CHUNK_KEY_PREFIX}{index}": chunk}
        if count < data.catalogue_views_chunks:
            return (
                data.update(
                    synchronized_data_class=SynchronizedData,
                    views_received_count=count,
                    **chunk_keys,
                ),
                Event.NEXT_CHUNK,
            )
        received = (
            "".join(
                str(data.db.get(f"{VIEWS_CHUNK_KEY_PREFIX}{i}", ""))
                for i in range(index)
            )
            + chunk
        )
        cleared = {f"{VIEWS_CHUNK_KEY_PREFIX}{i}": "" for i in range(index)}
        views = _views_or_none(received, agreed)
        if views is None:  # not the agreed views document: keep the old views
            return data, Event.NONE
        mechs_info, mech_tools = views
        return (
            data.update(
                synchronized_data_class=SynchronizedData,
                mechs_info=mechs_info,
                mech_tools=mech_tools,
                views_digest=agreed,
                views_received_count=0,
                views_chunk="",
                **{self.collection_key: {}},
                **cleared,
            ),
            self.done_event,
        )
