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

"""The skill's ABCI handler follows a Tendermint chain whose heights restarted.

The blocks go through the loaded skill's real handler, dialogues and round sequence, as the
abci connection's mock Tendermint sends them (begin_block, end_block, commit). Before the
handler re-based the local blockchain, a block at another height than the next raised
``AddBlockError`` out of the handler, which stops the agent.
"""

import logging
import time
from typing import Any

import pytest

from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    ToolMetadataBehaviourCase,
)
from packages.valory.protocols.abci import AbciMessage
from packages.valory.protocols.abci.custom_types import (
    BlockID,
    ConsensusVersion,
    Evidences,
    Header,
    LastCommitInfo,
    PartSetHeader,
    Timestamp,
)
from packages.valory.skills.abstract_round_abci.base import RoundSequence

CONNECTION = "valory/abci:0.1.0"


def header(height: int) -> Header:
    """A block header as the mock Tendermint builds it, stamped now.

    :param height: the block's height.
    :return: the header.
    """
    now = time.time()
    return Header(
        version=ConsensusVersion(0, 0),
        chain_id="mock",
        height=height,
        time=Timestamp(int(now), int((now % 1) * 1e9)),
        last_block_id=BlockID(b"", PartSetHeader(0, b"")),
        last_commit_hash=b"",
        data_hash=b"",
        validators_hash=b"",
        next_validators_hash=b"",
        consensus_hash=b"",
        app_hash=b"",
        last_results_hash=b"",
        evidence_hash=b"",
        proposer_address=b"",
    )


class TestABCIHandlerFollowsRestartedHeights(ToolMetadataBehaviourCase):
    """Blocks at unexpected heights re-base the local blockchain instead of stopping the agent."""

    dialogue_number = 0

    def setup_method(self, **kwargs: Any) -> None:
        """Number the dialogues of this test's blocks."""
        super().setup_method(**kwargs)
        self.dialogue_number = 0

    @property
    def round_sequence(self) -> RoundSequence:
        """The skill's round sequence."""
        return self.skill.skill_context.state.round_sequence

    def send(self, performative: AbciMessage.Performative, **fields: Any) -> None:
        """One ABCI request through the skill's handler, answered in the outbox.

        :param performative: the request's performative.
        :param fields: its fields.
        """
        self.dialogue_number += 1
        incoming = self.build_incoming_message(
            message_type=AbciMessage,
            performative=performative,
            dialogue_reference=(str(self.dialogue_number), ""),
            message_id=1,
            target=0,
            to=str(self.skill.skill_context.skill_id),
            sender=CONNECTION,
            **fields,
        )
        self.skill.skill_context.handlers.abci.handle(incoming)
        self.assert_quantity_in_outbox(1)
        self.get_message_from_outbox()

    def block(self, height: int) -> None:
        """One empty block at ``height``: begin_block, end_block, commit.

        :param height: the block's height.
        """
        self.send(
            AbciMessage.Performative.REQUEST_BEGIN_BLOCK,
            hash=b"",
            header=header(height),
            last_commit_info=LastCommitInfo(0, []),
            byzantine_validators=Evidences([]),
        )
        self.send(AbciMessage.Performative.REQUEST_END_BLOCK, height=height)
        self.send(AbciMessage.Performative.REQUEST_COMMIT)

    def test_heights_restarting_at_one_continue_from_one(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The mock's /gentle_reset: blocks 1-3, then 1 again; the chain goes on from 1."""
        for height in (1, 2, 3):
            self.block(height)
        assert self.round_sequence.height == 3
        with caplog.at_level(logging.WARNING):
            self.block(1)
        assert self.round_sequence.height == 1
        assert "Tendermint sent block 1 where block 4 was due" in caplog.text
        self.block(2)
        assert self.round_sequence.height == 2

    def test_a_gap_in_heights_continues_from_the_block_sent(self) -> None:
        """Blocks 1, 2, then 7 (blocks the app never saw): the chain goes on from 7."""
        self.block(1)
        self.block(2)
        self.block(7)
        assert self.round_sequence.height == 7
        self.block(8)
        assert self.round_sequence.height == 8

    def test_after_a_hard_reset_block_one_starts_the_chain(self) -> None:
        """Waiting for init_chain: an old block is ignored, block 1 starts the new chain."""
        for height in (1, 2, 3):
            self.block(height)
        self.round_sequence.reset_blockchain()  # as the hard reset does before /hard_reset
        self.block(4)  # the node had not reset yet
        assert self.round_sequence.height == 0
        assert not self.round_sequence.blockchain.is_init
        self.block(1)  # the mock sends no init_chain
        assert self.round_sequence.blockchain.is_init
        assert self.round_sequence.height == 1
        self.block(2)
        assert self.round_sequence.height == 2

    def test_a_block_below_the_initial_height_restarts_the_chain(self) -> None:
        """A chain begun at 10 (init_chain), then block 3: abstract_round_abci alone raised IndexError."""
        self.round_sequence.init_chain(10)
        self.block(3)
        assert self.round_sequence.height == 3
        self.block(4)
        assert self.round_sequence.height == 4
