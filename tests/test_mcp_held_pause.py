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

"""A call held until a final block asks the chain again at the pace of blocks, or not at all.

adv29yp S1's kind: a held call re-ran ``ensure_sent`` (reads under the send lock) every
``--delivery-poll`` until ``--timeout``, even for a block that cannot come by then. Now
:func:`.dropped.held_pause` answers at once when the chain's pace (its preset's least
seconds between blocks) puts the final block past the call's time, and otherwise waits
until the block could come; an unknown pace (the devnet mines on demand) and a nonce
held by another call are asked at ``--delivery-poll`` as before. No chain.
"""

import time
from dataclasses import replace
from types import SimpleNamespace
from typing import Any, List, Optional

import anyio
import pytest
from mech_catalogue_core.chain.presets import PRESETS, chain_preset

from mech_catalogue_cli.commands.mcp_cmd import chosen_block_seconds
from mech_catalogue_cli.mcp_server.dropped import NotFinal, held_pause
from mech_catalogue_cli.mcp_server.outstanding import HeldBehind
from mech_catalogue_cli.mcp_server.server import MechToolServer
from mech_catalogue_cli.mcp_server.settings import PhaseTimer
from tests.adversary.test_adv29u_mined_revert_not_final import (
    FrontRunChain,
    sent_to,
)
from tests.test_mcp_refused_offers import (  # noqa: F401 # pylint: disable=unused-import
    HONEST,
    MECH,
    _no_upload,
    _sender,
)

HEAD = 1_000


def _not_final(blocks: int, pace: Optional[float], head: int = HEAD) -> NotFinal:
    said = NotFinal(f"not final until block {HEAD + blocks}. Call again then")
    said.final_at, said.head, said.block_seconds = HEAD + blocks, head, pace
    said.progress = "waiting"
    return said


@pytest.mark.parametrize(
    "blocks, pace, left, pause",
    [
        (900, 2.0, 300.0, None),  # OP Stack: 30 min past a 300 s call
        (96, 12.0, 300.0, None),  # Ethereum: 19 min
        (48, 5.0, 300.0, 240.0),  # Gnosis: 4 min within the call
        (151, 2.0, 300.0, None),  # one block past the deadline
        (150, 2.0, 300.0, 300.0),  # exactly by the deadline
        (1, 12.0, 300.0, 12.0),  # the next block: one slot
        (1, 0.25, 300.0, 1.0),  # sooner than the poll: the poll
        (0, 2.0, 300.0, 1.0),  # due now (the head read was old): the poll
        (64, None, 300.0, 1.0),  # the devnet: pace unknown
        (64, None, 0.3, 0.3),  # never past the call's time
        (10, 2.0, 0.0, None),  # no time left, the block not come
    ],
)
def test_the_pause_follows_the_blocks(
    blocks: int, pace: Optional[float], left: float, pause: Optional[float]
) -> None:
    """Answered now when the block cannot come in time; else waited at block pace.

    :param blocks: from the head to the final block.
    :param pace: the chain's least seconds a block (None: unknown).
    :param left: seconds left of the call.
    :param pause: what is expected (None: answer now).
    """
    assert held_pause(_not_final(blocks, pace), 1.0, left) == pause


def test_a_nonce_held_by_another_call_is_asked_at_the_poll() -> None:
    """Another call's request may settle any moment: ``--delivery-poll`` as before."""
    held = HeldBehind("held behind request 0x01")
    assert held_pause(held, 1.0, 300.0) == 1.0
    assert held_pause(held, 1.0, 0.2) == 0.2


class _Sender:  # pylint: disable=too-few-public-methods
    """``ensure_sent`` answers what it is told, in turn, keeping when it was asked."""

    def __init__(self, answers: List[Any]) -> None:
        self.answers = answers
        self.tries: List[float] = []

    async def ensure_sent(self, *_args: Any) -> Any:
        """The next answer (the last one kept)."""
        self.tries.append(time.monotonic())
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


class _Reader:  # pylint: disable=too-few-public-methods
    async def progress(self, *_args: Any) -> None:
        """No session."""


def _held_call(answers: List[Any], timeout: float) -> Any:
    sender = _Sender(answers)
    server: Any = SimpleNamespace(
        sender=sender,
        reader=_Reader(),
        settings=SimpleNamespace(timeout=timeout, delivery_poll=0.01),
    )
    held: Any = MechToolServer._sent_when_free  # pylint: disable=protected-access
    started = time.monotonic()
    said = anyio.run(held, server, None, None, {}, ("k" * 64, PhaseTimer(), ()), None)
    return said, [at - started for at in sender.tries]


def test_a_reachable_block_is_asked_for_when_it_can_come() -> None:
    """Three blocks of 0.2 s: the second try 0.6 s after the first, not 60 polls."""
    paid = "the request, sent"
    said, tries = _held_call([_not_final(3, 0.2), paid], timeout=5.0)
    assert said == paid and len(tries) == 2, tries
    assert 0.55 <= tries[1] - tries[0] < 2.0, tries


def test_an_unreachable_block_is_said_with_one_try() -> None:
    """900 two-second blocks, a 5 s call: answered with the first try's sentence."""
    held = _not_final(900, 2.0)
    said, tries = _held_call([held], timeout=5.0)
    assert said is held and len(tries) == 1 and tries[0] < 0.5, tries


def test_an_unknown_pace_still_waits_within_the_call() -> None:
    """The devnet (blocks mined on demand): asked at the poll until the time is up."""
    said, tries = _held_call([_not_final(64, None)], timeout=0.3)
    assert isinstance(said, NotFinal) and len(tries) > 5, tries


def test_every_preset_has_a_pace_and_the_devnet_none() -> None:
    """Each ``--chain`` preset is bounded; the devnet and a custom ``--rpc`` are not."""
    assert all(chosen_block_seconds(preset) for preset in PRESETS.values())
    for preset in PRESETS.values():  # the pace is read where the depth is
        assert preset.sources["block_seconds"] == preset.sources["final_depth"]
    paces = {name: chain_preset(name).block_seconds for name in PRESETS}
    assert paces == {
        "mainnet": 12.0,
        "gnosis": 5.0,
        "base": 2.0,
        "optimism": 2.0,
        "celo": 1.0,
        "arbitrum": 0.25,
        "polygon": 1.0,
    }
    rows = {row[0]: row for row in chain_preset("arbitrum").rows()}
    assert rows["block_seconds"][1] == "0.25" and "arbitrum" in rows["block_seconds"][2]
    assert chosen_block_seconds(None) is None
    assert (
        chosen_block_seconds(replace(chain_preset("base"), block_seconds=0.0)) is None
    )


@pytest.mark.usefixtures("no_upload")
def test_the_sender_says_the_head_and_the_chains_pace(tmp_path: Any) -> None:
    """``dropped.held_until_final``: the head read and ``--chain``'s pace on the answer.

    :param tmp_path: the journal folder.
    """
    chain = FrontRunChain()
    sender = _sender(tmp_path, chain)
    sender.settings.block_seconds = 2.0
    assert sent_to(sender, MECH).mined  # premise: the revert
    held = sent_to(sender, HONEST)
    assert isinstance(held, NotFinal), held
    assert (held.head, held.block_seconds) == (chain.head_block, 2.0)
