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

"""ShareViewsBehaviour: send this period's chunk of the agreed mech-interact views."""

from typing import Generator

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.base import (
    ToolMetadataBaseBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    VIEWS_CHUNK_CHARS,
    ViewsChunkPayload,
)
from packages.mech_catalogue.skills.tool_metadata_abci.states.share_views import (
    ShareViewsRound,
)


class ShareViewsBehaviour(
    ToolMetadataBaseBehaviour
):  # pylint: disable=too-many-ancestors
    """Send the next chunk of the views whose digest the agents agreed on."""

    matching_round = ShareViewsRound

    def async_act(self) -> Generator:
        """Send the chunk the round expects next, or nothing this agent holds.

        :yield: while waiting for Tendermint.
        """
        with self.context.benchmark_tool.measure(self.behaviour_id).local():
            payload = self.payload()
        with self.context.benchmark_tool.measure(self.behaviour_id).consensus():
            yield from self.send_a2a_transaction(payload)
            yield from self.wait_until_round_end()
        self.set_done()

    def payload(self) -> ViewsChunkPayload:
        """Build the payload for the next chunk.

        :return: the chunk of the agreed views at ``views_received_count``; all None when
            this agent does not hold views with the agreed digest (it built another
            catalogue: logged), so the others' chunks decide.
        """
        data = self.synchronized_data
        agreed, index = data.catalogue_views_digest, data.views_received_count
        document = self.skill_state.views.get(agreed)
        if document is None or index >= data.catalogue_views_chunks:
            self.context.logger.warning(
                f"this agent does not hold the agreed views {agreed} (chunk {index}); "
                "it takes them from the agents that do"
            )
            return ViewsChunkPayload(self.context.agent_address, None, None, None)
        start = index * VIEWS_CHUNK_CHARS
        return ViewsChunkPayload(
            self.context.agent_address,
            views_digest=agreed,
            chunk_index=index,
            chunk=document[start : start + VIEWS_CHUNK_CHARS],
        )
