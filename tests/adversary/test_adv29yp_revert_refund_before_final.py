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

"""adv29yp C1: a mined revert's price leaves ``--max-spend`` before the revert is final.

Severity: MEDIUM (spend over the user's cap: one price per mined revert, when a reorg
within ``final_depth`` mines the reverted request paid; the stranger's mech decides
whether it reverts, e.g. by ``block.coinbase`` or ``block.number``, so a fork that
re-executes it can pay it).

fix29pa's premise is that a request mined and reverted can still be mined *paid* by a
reorg until its block is ``final_depth`` deep, so its call pays no other offer until
then (``NotFinal``). But ``RequestSender.refused_when_mined`` gives its price back to
the spend ledger at once (``SpendLedger.refund``: "its journal entry is left out of
count_journal from then on"). Every other call of the process (and after a restart, the
journal count) may then spend that amount again while the reverted request is still
not final: with ``--max-spend`` one price, call A's request to the stranger's mech is
mined and reverts, call B (other arguments) pays the honest mech at once, and a reorg
that mines A's request paid leaves two prices spent under a cap of one.

Observed on main c8221b19 (no chain: adv29u's stand-in chain, every request to the
reverting mech mined and reverted at block 100, the honest one mined paid; the run's
ledger as ``--max-spend`` counts it): call B is sent to the honest mech at block 100
(one price counted: the reverted one no longer).

Expected: the reverted request counts against ``--max-spend`` until its block is final
(as its call key is held until then); call B is refused by the cap (or waits) until
block 164, and is paid once the revert is final.
"""

from pathlib import Path

import pytest

from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH, NotFinal
from mech_catalogue_cli.mcp_server.journal import JournalEntry
from tests.adversary.test_adv29u_mined_revert_not_final import HEAD
from tests.adversary.test_adv29yp_revert_memory_restart import (
    CALL_A,
    CALL_B,
    HonestPaysChain,
    _server_call,
)
from tests.test_mcp_refused_offers import (  # noqa: F401 # pylint: disable=unused-import
    PRICE,
    _no_upload,
    _sender,
)


@pytest.mark.usefixtures("no_upload")
def test_a_reverted_request_counts_against_the_cap_until_final(tmp_path: Path) -> None:
    """Cap of one price: call B waits for A's revert to be final, then pays."""
    chain = HonestPaysChain()
    sender = _sender(tmp_path, chain, cap=PRICE)
    first = _server_call(sender, CALL_A)
    assert isinstance(first, NotFinal), first  # premise: fix29pa holds call A
    second = _server_call(sender, CALL_B)
    assert not isinstance(second, JournalEntry) and chain.paid == 0, (
        f"call B paid {second.mech} at block {HEAD} while call A's reverted request "
        f"(block {HEAD}) could still be mined paid until block {HEAD + FINAL_DEPTH}: "
        "two prices under a cap of one"
    )
    chain.head_block = HEAD + FINAL_DEPTH
    assert isinstance(_server_call(sender, CALL_B), JournalEntry)


@pytest.mark.usefixtures("no_upload")
def test_control_the_cap_refuses_a_second_price_without_a_revert(
    tmp_path: Path,
) -> None:
    """Control: with call A paid to the honest mech, call B is refused by the cap."""
    chain = HonestPaysChain()
    sender = _sender(tmp_path, chain, cap=PRICE)
    sender.reverting.remember_mech("0x" + "0a" * 20, "test", mined=True)
    assert isinstance(_server_call(sender, CALL_A), JournalEntry)
    second = _server_call(sender, CALL_B)
    assert isinstance(second, str) and chain.paid == 1, second
