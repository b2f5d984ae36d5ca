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

"""An outstanding off-chain request counts against ``--max-spend`` whatever its age (fix29f).

A signed off-chain request can be settled (and charged) as long as the requester's
marketplace nonce has not passed it, however long ago it was signed: ``--spend-window``
must not let it drop out of the count. Real journal files in a temporary folder, read
by :func:`journal_records`, counted by :class:`SpendLedger`; the devnet test
(``tests/devnet/test_mcp_offchain_leftovers.py``) runs it through the server.
"""

import os
from pathlib import Path

from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from mech_catalogue_cli.mcp_server.spending import journal_records
from tests.test_mcp_offchain_nonces import PRICE, signed
from tests.test_mcp_spend_index import entry

WINDOW = 3600.0
#: "now" of the counts: two windows after the entries were written
NOW = 1_000_000.0
OLD = NOW - 2 * WINDOW


def _journal(tmp_path: Path, accepted: bool) -> Journal:
    """A journal holding one off-chain request at nonce 3 written two windows ago."""
    # :param tmp_path: the state folder.
    # :param accepted: whether its mech's endpoint accepted it.
    # :return: the journal.
    journal = Journal(tmp_path)
    request = signed("0x" + "33" * 32, PRICE, nonce=3, accepted=accepted)
    if accepted:
        request.paid_at = OLD
    journal.save(request)
    os.utime(journal.folder / f"{request.key}.json", (OLD, OLD))  # refused: by mtime
    return journal


def test_an_old_refused_request_counts_while_its_nonce_is_not_passed(
    tmp_path: Path,
) -> None:
    """Refused two windows ago, the nonce still at it: counted, a second price refused."""
    records = journal_records(_journal(tmp_path, accepted=False).folder)
    for chain_nonce in (3, 2):  # at its nonce, or before it (queued)
        ledger = SpendLedger(max_spend=PRICE, window=WINDOW)
        ledger.count_journal(records, NOW, chain_nonce)
        assert (ledger.earlier, ledger.earlier_requests) == (PRICE, 1), chain_nonce
        assert "over --max-spend" in (ledger.refusal(1) or "")


def test_an_old_accepted_request_counts_while_its_nonce_is_not_passed(
    tmp_path: Path,
) -> None:
    """Accepted two windows ago and never settled: still chargeable, still counted."""
    records = journal_records(_journal(tmp_path, accepted=True).folder)
    ledger = SpendLedger(max_spend=PRICE, window=WINDOW)
    ledger.count_journal(records, NOW, 3)
    assert ledger.earlier == PRICE and ledger.refusal(1) is not None


def test_an_old_request_whose_nonce_passed_counts_until_that_is_seen(
    tmp_path: Path,
) -> None:
    """The nonce moved past it: it may have been settled (charged) just now (adv29g)."""
    # it counts until the server recorded when it saw the nonce passed, then within
    # the window from that time (tests/test_mcp_offchain_late_settlement.py)
    records = journal_records(_journal(tmp_path, accepted=True).folder)
    ledger = SpendLedger(max_spend=PRICE, window=WINDOW)
    ledger.count_journal(records, NOW, 4)
    assert (ledger.earlier, ledger.earlier_requests) == (PRICE, 1)
    assert ledger.refusal(PRICE) is not None


def test_an_unread_nonce_counts_every_old_outstanding_request(tmp_path: Path) -> None:
    """The chain unread (None): the cap errs on the safe side."""
    records = journal_records(_journal(tmp_path, accepted=False).folder)
    ledger = SpendLedger(max_spend=PRICE, window=WINDOW)
    ledger.count_journal(records, NOW)
    assert ledger.earlier == PRICE and ledger.refusal(1) is not None


def test_an_old_onchain_request_still_leaves_the_window(tmp_path: Path) -> None:
    """On chain it was paid once, long ago: the window applies as before."""
    journal = Journal(tmp_path)
    paid = entry(7, PRICE)
    paid.paid_at = OLD
    journal.save(paid)
    ledger = SpendLedger(max_spend=PRICE, window=WINDOW)
    ledger.count_journal(journal_records(journal.folder), NOW, 0)
    assert (ledger.earlier, ledger.earlier_requests) == (0, 0)


def test_this_run_s_own_old_request_is_not_counted_twice(tmp_path: Path) -> None:
    """The run counted it when it signed it: the journal's count leaves it out."""
    records = journal_records(_journal(tmp_path, accepted=False).folder)
    ledger = SpendLedger(max_spend=2 * PRICE, window=WINDOW)
    ledger.record(PRICE, "0x" + "33" * 32)
    ledger.count_journal(records, NOW, 3)
    assert (ledger.spent, ledger.earlier) == (PRICE, 0)
