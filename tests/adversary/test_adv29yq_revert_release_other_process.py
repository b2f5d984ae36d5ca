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

"""adv29yq C2: a mined revert released by another process stays counted in its sender.

Severity: MEDIUM (denial of paid calls: a stranger's mech that reverts when mined takes
one price of the user's ``--max-spend`` from the server process that sent the request
for as long as that process lives, not until the revert's block is final; with K such
mechs, one mined revert each, K prices. Stdio MCP clients start one server per session
on one state folder, so the other session releasing the revert first is the common
case: whichever process sends next after the final block releases it).

fix29yf keeps a mined revert's price counted until its block is final, "released by
any process after a final re-read": :func:`.mined_reverts.release_final_reverts` writes
``final_at`` into the journal entry, and the process that wrote it gives the price back
to its own run ledger (``RequestSender._reverts_released`` -> ``SpendLedger.refund``).
The process that SENT the request counted it in its run ledger before the broadcast
(``SpendLedger.record``: this run's ``spent``, which no window ages), and only
``_reverts_released`` refunds it there; but that function selects only the journal
records whose revert is not final yet (``PaidRecord.reverted_in``). An entry another
process released has ``final_at``, so it is never selected again: the sender's run
ledger keeps its price (``count_journal`` adds nothing for it, ``spent`` still holds it).

Observed on main f997ebd3 (no chain: adv29u's stand-in chain, distinct request ids,
every request to the stranger's mech mined and reverted at block 100, the honest mech's
mined paid; ``--max-spend`` two prices): process 1's call A reverts at the stranger's
mech and is held (``NotFinal``); at block 164 process 2 (same state folder) pays the
honest mech for call B, releasing A's revert (``final_at`` journalled); process 1's call
C is refused: "paying 5000 wei would bring the spending ... to 15000 wei, over
--max-spend 10000 wei (5000 wei spent on 1 request(s) by this run, ...)": the run's
"spending" is the reverted request, which paid nothing and is final. The control (one
process releasing its own revert) pays call C.

Expected: a revert released by any process counts nothing in every process: the
sender's run ledger gives its price back when its journal record reads final (e.g. a
run request whose record has ``final_at`` refunded at the journal read), so call C is
paid (two prices in all: B and C).
"""

from pathlib import Path
from typing import Any

import pytest

from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH, NotFinal
from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.mined_reverts import REVERTED_KEY
from tests.adversary.test_adv29u_mined_revert_not_final import HEAD
from tests.adversary.test_adv29yp_revert_memory_restart import (
    CALL_A,
    CALL_B,
    HonestPaysChain,
    _server_call,
)
from tests.test_mcp_refused_offers import (  # noqa: F401 # pylint: disable=unused-import
    HONEST,
    MECH,
    PRICE,
    _no_upload,
    _sender,
)

CALL_C = "c" * 64


class DistinctRequestsChain(HonestPaysChain):
    """As :class:`HonestPaysChain`, each request its own id, paid ones taking a nonce."""

    def __init__(self) -> None:
        """No request yet."""
        super().__init__()
        self.ids = 0

    def next_request_id(self, *_args: Any) -> str:
        """A new id per request (the marketplace's count)."""
        self.ids += 1
        return "0x" + f"{self.ids:064x}"

    def broadcast(self, signed: Any, wait: float) -> str:
        """The honest mech's request mined paid at the head (its nonce taken)."""
        if self.requested == HONEST:
            self.others.append(self.head_block)
        return super().broadcast(signed, wait)


def _released(tmp_path: Path) -> bool:
    """Whether call A's journalled revert has ``final_at`` (released by some process).

    :param tmp_path: the state folder.
    :return: True once released.
    """
    entry = Journal(tmp_path).load(CALL_A)
    assert entry is not None
    return "final_at" in entry.extra[REVERTED_KEY][MECH.lower()]


def _a_then_b(
    tmp_path: Path, chain: DistinctRequestsChain, first: Any, second: Any
) -> None:
    """Call A reverts in ``first``; at the final block ``second`` pays call B."""
    held = _server_call(first, CALL_A)
    assert isinstance(held, NotFinal), held  # premise: A's revert counted, held
    chain.head_block = HEAD + FINAL_DEPTH  # A's revert is final now
    paid_b = _server_call(second, CALL_B)
    assert isinstance(paid_b, JournalEntry) and chain.paid == 1, paid_b
    assert _released(tmp_path)  # premise: A's revert released (final_at journalled)


@pytest.mark.usefixtures("no_upload")
def test_a_revert_released_by_another_process_frees_the_sender_s_cap(
    tmp_path: Path,
) -> None:
    """Cap of two prices: A reverts (process 1), B paid by process 2, C paid by 1."""
    chain = DistinctRequestsChain()
    first_process = _sender(tmp_path, chain, cap=2 * PRICE)
    _a_then_b(tmp_path, chain, first_process, _sender(tmp_path, chain, cap=2 * PRICE))
    said = _server_call(first_process, CALL_C)
    assert isinstance(said, JournalEntry) and chain.paid == 2, (
        "process 1 still counts call A's reverted request, released as final by "
        f"process 2: {said}"
    )


@pytest.mark.usefixtures("no_upload")
def test_control_a_revert_released_by_its_own_process_frees_the_cap(
    tmp_path: Path,
) -> None:
    """Control: one process releases its own revert; B and C are both paid."""
    chain = DistinctRequestsChain()
    sender = _sender(tmp_path, chain, cap=2 * PRICE)
    _a_then_b(tmp_path, chain, sender, sender)
    said = _server_call(sender, CALL_C)
    assert isinstance(said, JournalEntry) and chain.paid == 2, said
