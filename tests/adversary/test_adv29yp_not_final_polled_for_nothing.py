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

"""adv29yp S1: a call held ``NotFinal`` polls the chain until ``--timeout`` for nothing.

It re-reads the chain under the send lock every second, though the block it waits for
cannot come before its deadline.

Severity: LOW-MEDIUM (a stranger's mech that reverts when mined stalls the agent's
call for ``--timeout``, 300 s, per attempt, and has it read the chain about seven
times a second under the server's one send lock meanwhile; on a metered or
rate-limited RPC, a few held calls starve every other call).

``MechToolServer._sent_when_free`` treats ``NotFinal`` as a held nonce: it calls
``RequestSender.ensure_sent`` again every ``--delivery-poll`` (1 s) until ``--timeout``.
Each try takes the send lock and the state-folder lock and reads the journal, the
request's status, the account's mined nonce, the head, the count ``final_depth`` blocks
back and the request's receipt twice (``not_final``/``not_final_yet``). But the answer
says the block by which the revert is final (``final_at``): 64 blocks on the devnet, 48
on Gnosis (4 min), 96 on Ethereum (19 min), 900 on OP-stack chains (30 min); on the
last two it is past any ``--timeout``, so every poll is for nothing, and the call ends
with the same sentence after 300 s instead of at once.

Observed on main c8221b19 (no chain: a sender whose every try answers ``NotFinal``,
final 900 blocks after the head; ``--timeout`` 2 s, ``--delivery-poll`` 0.05 s): the
call waits the whole 2 s and tries ``ensure_sent`` about 40 times.

Expected: a call whose ``final_at`` cannot be reached within its deadline (the chain's
block time known from its preset, or measured) says so at once; otherwise it waits
at the pace of blocks, not of ``--delivery-poll``.
"""

import time
from types import SimpleNamespace
from typing import Any, List

import anyio

from mech_catalogue_cli.mcp_server.dropped import NotFinal
from mech_catalogue_cli.mcp_server.server import MechToolServer
from mech_catalogue_cli.mcp_server.settings import PhaseTimer

HEAD = 1_000
OP_STACK_DEPTH = 900  # presets.py: _OP_STACK_FINAL_DEPTH (30 min at 2 s a block)
OP_STACK_BLOCK_SECONDS = 2.0  # chain_preset("base").block_seconds


class _HeldSender:  # pylint: disable=too-few-public-methods
    """Every ``ensure_sent`` answers NotFinal, final 900 blocks after the head."""

    def __init__(self) -> None:
        self.tries: List[float] = []

    async def ensure_sent(self, *_args: Any) -> NotFinal:
        """The held call's answer (as ``not_final_yet`` words it)."""
        self.tries.append(time.monotonic())
        said = NotFinal(
            f"... not final yet (fewer than {OP_STACK_DEPTH} blocks deep) ... until "
            f"block {HEAD + OP_STACK_DEPTH} (the head is {HEAD}). Call again then"
        )
        said.final_at = HEAD + OP_STACK_DEPTH
        # as RequestSender.not_final sets them: the head read, the chain's pace
        # (fix29yf: the preset's least seconds between blocks, 2 s on OP Stack)
        said.head = HEAD
        said.block_seconds = OP_STACK_BLOCK_SECONDS
        said.progress = "waiting for the revert to be final"
        return said


class _Reader:  # pylint: disable=too-few-public-methods
    async def progress(self, *_args: Any) -> None:
        """No session."""


def _held_call(timeout: float) -> Any:
    sender = _HeldSender()
    server: Any = SimpleNamespace(
        sender=sender,
        reader=_Reader(),
        settings=SimpleNamespace(timeout=timeout, delivery_poll=0.05),
    )
    started = time.monotonic()
    held: Any = MechToolServer._sent_when_free  # pylint: disable=protected-access
    said = anyio.run(
        held,
        server,
        None,
        None,
        {},
        ("k" * 64, PhaseTimer(), ()),
        None,
    )
    return said, time.monotonic() - started, len(sender.tries)


def test_a_revert_final_after_the_deadline_is_said_at_once() -> None:
    """Final 900 blocks on: the call ends at once, with a try or two."""
    said, took, tries = _held_call(timeout=2.0)
    assert isinstance(said, NotFinal)  # premise: the same sentence in the end
    assert took < 0.5 and tries <= 2, (
        f"the call waited {took:.2f} s and tried ensure_sent {tries} times for a block "
        f"{OP_STACK_DEPTH} blocks away"
    )
