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

"""adv29zq2 W1 (no chain): a cut after a token approval was sent says "nothing was signed".

Severity: LOW-MEDIUM (issue #29 (d): false words after a cut; the devnet run is
``test_adv29zq2_approval_cut_nothing_signed_devnet.py``).

A token offer's approval is signed and journalled in the call's prepared entry
(``entry.extra["approval"]``: its raw transaction, hash, amount; the entry's own
``raw_tx`` empty: the request not signed yet), then broadcast. When the call's end
cuts a read after that (the approval's receipt wait, or the request's estimate and the
price read its handler makes), :func:`.call_end_words.cut_words` returns
:func:`.call_end_words.unresumed_words` of that entry, which looks at ``raw_tx``
alone: "nothing was signed nor sent for this call".

Observed on lead29zz 02021e43: for both errors below, with the entry journalled as
``ensure_allowance`` writes it, ``cut_words`` returns exactly ``NOTHING_SIGNED``; the
first error then reads "transaction 0x<approval> was not mined within 1 s ...; it may
still be ...; nothing was signed nor sent for this call" (self-contradicting).

Expected: words naming the approval sent (its hash, the amount and spender) and that a
call again reuses it; never ``NOTHING_SIGNED`` while the entry holds an approval.

Fixed by fix29zw (``call_end_words.approval_words``): the words name the approval.
"""

from pathlib import Path

import anyio
import pytest

from mech_catalogue_cli.mcp_server.call_end_words import NOTHING_SIGNED, cut_words
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import MarketError
from mech_catalogue_cli.mcp_server.node_deadline import CallTimeSpent
from tests.test_mcp_paid_answer_unit import KEY, _entry

APPROVAL_TX = "0x" + "ab" * 32


@pytest.mark.parametrize(
    "said",
    [
        f"transaction {APPROVAL_TX} was not mined within 1 s (its broadcast and "
        "receipt included); it may still be: call again with the same arguments to "
        "check (that will not pay twice)",
        "mech 0x1111111111111111111111111111111111111111's price was not read",
    ],
)
def test_a_cut_after_an_approval_never_says_nothing_was_signed(
    tmp_path: Path, said: str
) -> None:
    """The entry holds the approval sent for the call: the words must not deny it.

    :param tmp_path: the state folder.
    :param said: the cut error's own words (the approval's wait; the estimate's price).
    """
    journal = Journal(tmp_path)
    entry = _entry(raw_tx="", tx_hash="", status="prepared", account_nonce=-1)
    entry.extra["approval"] = {
        "token": "0x" + "22" * 20,
        "tracker": "0x" + "33" * 20,
        "amount": 10,
        "raw_tx": "0x02f8aa",
        "tx_hash": APPROVAL_TX,
        "account_nonce": 4,
    }
    journal.save(entry)
    error = MarketError(said)
    error.__cause__ = CallTimeSpent(1)
    words = anyio.run(cut_words, error, journal, KEY)
    assert words != NOTHING_SIGNED, f"{said}; {words}"
    assert words is None or APPROVAL_TX in words, words
