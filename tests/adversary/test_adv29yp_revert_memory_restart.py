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

"""adv29yp R1: a mech's mined revert is forgotten by the next process: gas and a hold again.

Severity: MEDIUM (a stranger's mech holds the first call of every server process for
``final_depth`` blocks and burns one request's gas each time; stdio clients start one
process per session, two servers on one state folder each pay it too).

fix29xp journals a mined revert in the call's entry (``extra.reverted_when_mined``), but
only that call key reads it (``reverted_for_call``); the server-wide memory that keeps
the mech off every other call (``RequestSender.reverting``) is this process's. With
fix29pa every mined revert now also holds its call until the revert's block is final
(``NotFinal``: 64 blocks by default, 48 on Gnosis, 96 on Ethereum, 900 on OP-stack
chains, longer than the call's ``--timeout``), where before the call went on to the next
offer. So a mech whose code reverts when the marketplace calls it (``tx.gasprice > 0``)
costs the user, in every new process (or the other server on the same state folder):
one more request's gas, and one call that ends "call again at block N" instead of
paying the next offer, although the journal in the state folder already says the mech
reverted when mined within ``--spend-window``.

Observed on main c8221b19 (no chain: adv29u's stand-in chain, every request to the
reverting mech mined and reverted at block 100): process 1's call A reverts at the
mech (one broadcast, journalled); process 2 on the same journal ranks the mech first
for call B (other arguments), sends it a second request (a second broadcast, gas), and
call B's next offer is held ``NotFinal`` until block 164.

Expected: a process reads the journal's ``reverted_when_mined`` records within
``--spend-window`` into its ``reverting`` memory (the journal index reads every entry
at start already), so no second request is sent and call B pays the next offer.
"""

from pathlib import Path
from typing import Any

import anyio
import pytest

from mech_catalogue_cli.mcp_server.dropped import NotFinal
from mech_catalogue_cli.mcp_server.refused_offers import RevertRefusal
from mech_catalogue_cli.mcp_server.sending import RequestSender
from mech_catalogue_cli.mcp_server.settings import PhaseTimer
from tests.adversary.test_adv29u_mined_revert_not_final import FrontRunChain
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_refused_offers import (  # noqa: F401 # pylint: disable=unused-import
    HONEST,
    MECH,
    PRICE,
    _no_upload,
    _sender,
    _tool,
)

CALL_A, CALL_B = "a" * 64, "b" * 64


class HonestPaysChain(FrontRunChain):
    """Requests to ``MECH`` mined and reverted; the honest mech's mined paid."""

    def __init__(self) -> None:
        """At block 100."""
        super().__init__()
        self.requested = ""
        self.paid = 0

    def request_transaction(self, *args: Any, **value: Any) -> Any:
        """Keep the mech asked."""
        self.requested = args[0]
        return super().request_transaction(*args, **value)

    def broadcast(self, signed: Any, wait: float) -> str:
        """The honest mech's request paid, the reverting mech's reverted."""
        if self.requested == HONEST:
            self.paid += 1
            return str(signed.tx_hash)
        return super().broadcast(signed, wait)


def _call(sender: RequestSender, key: str, mech: str) -> Any:
    return anyio.run(
        sender.ensure_sent,
        _tool(),
        offer(mech, 1, price=PRICE),
        {},
        key,
        PhaseTimer(),
        [offer(MECH, 1, price=PRICE), offer(HONEST, 2, price=PRICE)],
    )


def _server_call(sender: RequestSender, key: str) -> Any:
    """What ``MechToolServer.call`` does: skip remembered mechs, try offers in turn."""
    ranked, _ = sender.reverting.skipped(
        [offer(MECH, 1, price=PRICE), offer(HONEST, 2, price=PRICE)]
    )
    said: Any = None
    for choice in ranked:
        said = _call(sender, key, choice.address)
        if isinstance(said, RevertRefusal) and said.mined:
            continue
        break
    return said


@pytest.mark.usefixtures("no_upload")
def test_a_mined_revert_is_not_paid_for_again_by_the_next_process(
    tmp_path: Path,
) -> None:
    """Process 2 on the same journal: no second request to the mech, B pays the next."""
    chain = HonestPaysChain()
    first = _server_call(_sender(tmp_path, chain), CALL_A)
    assert isinstance(first, NotFinal), first  # premise: call A held by its revert
    assert len(chain.broadcasts) == 1
    restarted = _sender(tmp_path, chain)  # a new process, the same state folder
    second = _server_call(restarted, CALL_B)
    assert len(chain.broadcasts) == 1, (
        f"{len(chain.broadcasts)} reverted requests to {MECH} (gas each); "
        f"call B: {second}"
    )
    assert chain.paid == 1 and not isinstance(second, (NotFinal, str)), second


@pytest.mark.usefixtures("no_upload")
def test_control_the_same_process_skips_the_mech_for_other_calls(
    tmp_path: Path,
) -> None:
    """Control: in one process call B skips the mech and pays the honest offer."""
    chain = HonestPaysChain()
    sender = _sender(tmp_path, chain)
    assert isinstance(_server_call(sender, CALL_A), NotFinal)
    second = _server_call(sender, CALL_B)
    assert len(chain.broadcasts) == 1 and chain.paid == 1, second
