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

"""ShareViewsBehaviour: which chunk this agent sends, and that it always sends as itself.

Found by mutation testing: no test checked the payload's sender, nor the boundary past the
last chunk, nor the sentence logged when this agent has nothing to send.
"""

from typing import cast
from unittest import mock

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.share_views import (
    ShareViewsBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    VIEWS_CHUNK_CHARS,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    ToolMetadataBehaviourCase,
)

DIGEST = "cd" * 32


class TestShareViewsBehaviour(ToolMetadataBehaviourCase):
    """The chunk at ``views_received_count`` of the views this agent holds."""

    def payload_at(self, index: int, chunks: int):  # type: ignore[no-untyped-def]
        """Enter the behaviour at a chunk index and build its payload.

        :param index: ``views_received_count``.
        :param chunks: ``catalogue_views_chunks``.
        :return: the payload.
        """
        self.go_to(
            ShareViewsBehaviour,
            {
                "catalogue_views_digest": DIGEST,
                "catalogue_views_chunks": chunks,
                "views_received_count": index,
            },
        )
        return cast(ShareViewsBehaviour, self.current()).payload()

    def test_every_chunk_then_nothing_past_the_last(self) -> None:
        """Two chunks held: index 0 and 1 carry them, signed as this agent; index 2 is all None."""
        document = "x" * VIEWS_CHUNK_CHARS + "tail"
        self.skill.skill_context.state.views.put(DIGEST, document)
        agent = self.skill.skill_context.agent_address
        first, second = self.payload_at(0, 2), self.payload_at(1, 2)
        assert (first.sender, first.chunk_index, first.chunk) == (
            agent,
            0,
            "x" * VIEWS_CHUNK_CHARS,
        )
        assert (second.sender, second.chunk_index, second.chunk) == (agent, 1, "tail")
        past = self.payload_at(2, 2)
        assert past.sender == agent and past.values == (None, None, None)

    def test_without_the_views_it_sends_nothing_as_itself_and_says_why(self) -> None:
        """No views under the agreed digest: an all-None payload from this agent, logged."""
        logger = self.skill.skill_context.logger
        with mock.patch.object(logger, "warning") as warning:
            payload = self.payload_at(0, 1)
        assert payload.sender == self.skill.skill_context.agent_address
        assert payload.values == (None, None, None)
        warning.assert_called_once_with(
            f"this agent does not hold the agreed views {DIGEST} (chunk 0); "
            "it takes them from the agents that do"
        )
