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

"""This run's spending is counted by its journal entries (adversarial review adv29yq).

The journal is the one source every server process on a ``--state-dir`` shares: what
one process learns of a request (its revert final, its nonce taken, its off-chain
request never settleable) it writes there, and what a request counts for its age is
dated there. The run's ledger of the process that sent it must read the same: a price
another process gave back stops counting here too (C2), and this run's spending leaves
``--spend-window`` as a restart would count it (W1). Each test below compares the
long-lived ledger with a restarted one over the same real journal on disk.
"""

import os
import time
from pathlib import Path
from typing import Optional

import pytest
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.mined_reverts import REVERTED_KEY
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE
from mech_catalogue_cli.mcp_server.outstanding import holds_of, mark_unsent
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from mech_catalogue_cli.mcp_server.spending import journal_records
from tests.test_mcp_offchain_nonces import MECH, PRICE, signed

WINDOW = 3600.0
KEY_A, KEY_B = "a1" * 32, "b2" * 32
FIRST, RETRY = "0x" + "01" * 32, "0x" + "02" * 32
TX = "0x" + "77" * 32


def on_chain(
    key: str, request_id: str, paid_at: Optional[float] = None
) -> JournalEntry:
    """An on-chain call's entry as the sender journals it before the broadcast."""
    # :param key: its call key.
    # :param request_id: its request id.
    # :param paid_at: unix seconds it was paid (now when None).
    # :return: the entry.
    return JournalEntry(
        key=key,
        tool="prediction-online",
        mech=MECH,
        price=PRICE,
        payment_type=NATIVE_PAYMENT_TYPE,
        cid="bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
        data="0x" + "22" * 32,
        market_nonce=0,
        request_id=request_id,
        tx_hash=TX,
        from_block=10,
        status=CallStatus.SENT,
        paid_at=time.time() if paid_at is None else paid_at,
    )


def _counted(ledger: SpendLedger, journal: Journal) -> int:
    """Read the journal into ``ledger`` as a paid call does; what it counts in all."""
    ledger.count_journal(journal_records(journal.folder), time.time())
    return ledger.spent + ledger.earlier


def _restarted(journal: Journal, window: Optional[float] = WINDOW) -> int:
    """What a new server process over the same journal counts."""
    return _counted(SpendLedger(max_spend=10 * PRICE, window=window), journal)


@pytest.mark.parametrize("window", [WINDOW, None])
def test_a_revert_another_process_saw_final_counts_nothing_in_the_sender(
    tmp_path: Path, window: Optional[float]
) -> None:
    """``final_at`` journalled by another process: the sender's run counts 0 too."""
    journal = Journal(tmp_path)
    entry = on_chain(KEY_A, FIRST)
    journal.save(entry)
    sender = SpendLedger(max_spend=PRICE, window=window)
    sender.record(PRICE, FIRST, KEY_A)
    assert _counted(sender, journal) == PRICE  # mined and reverted, not final: held
    assert sender.refusal(PRICE) is not None
    entry.extra[REVERTED_KEY] = {
        MECH.lower(): {"tx_hash": TX, "at": time.time(), "block": 100, "final_at": 164}
    }
    journal.save(entry)  # what release_final_reverts writes, in the other process
    assert _counted(sender, journal) == 0 == _restarted(journal, window)
    assert sender.refusal(PRICE) is None
    over = sender.refusal(PRICE + 1)
    assert over is not None and "0 wei spent on 0 request(s) by this run" in over


def test_a_request_replaced_by_another_process_s_retry_counts_once(
    tmp_path: Path,
) -> None:
    """Its nonce taken (never paid), retried elsewhere: the call counts one price."""
    journal = Journal(tmp_path)
    journal.save(on_chain(KEY_A, FIRST))
    sender = SpendLedger(max_spend=10 * PRICE, window=WINDOW)
    sender.record(PRICE, FIRST, KEY_A)
    journal.save(on_chain(KEY_A, RETRY))  # another process retried the call
    assert _counted(sender, journal) == PRICE == _restarted(journal)
    sender.record(PRICE, RETRY, KEY_A)  # and this one too, later, at the same key
    assert _counted(sender, journal) == PRICE


def test_an_off_chain_request_another_process_released_counts_nothing(
    tmp_path: Path,
) -> None:
    """The entry says its request can never be settled: the holding run lets it go."""
    journal = Journal(tmp_path)
    entry = signed(FIRST, PRICE)
    journal.save(entry)
    sender = SpendLedger(max_spend=10 * PRICE, window=WINDOW)
    sender.hold(entry.key, holds_of(entry))
    assert _counted(sender, journal) == PRICE
    mark_unsent(entry)  # another process found it never left this host
    journal.save(entry)
    assert _counted(sender, journal) == 0 == _restarted(journal)


def test_the_run_s_own_request_leaves_the_window_by_its_journal_date(
    tmp_path: Path,
) -> None:
    """W1: paid two windows ago by this run counts as a restart counts it: nothing."""
    journal = Journal(tmp_path)
    journal.save(on_chain(KEY_A, FIRST, paid_at=time.time() - 2 * WINDOW))
    journal.save(on_chain(KEY_B, RETRY))  # and one of this window
    run = SpendLedger(max_spend=2 * PRICE, window=WINDOW)
    run.record(PRICE, FIRST, KEY_A)
    run.record(PRICE, RETRY, KEY_B)
    assert _counted(run, journal) == PRICE == _restarted(journal)
    assert run.refusal(PRICE) is None
    assert run.refusal(PRICE + 1) is not None


def test_an_old_off_chain_request_still_outstanding_keeps_counting(
    tmp_path: Path,
) -> None:
    """W1's limit: an off-chain request older than the window may still be charged."""
    journal = Journal(tmp_path)
    entry = signed(FIRST, PRICE)  # paid_at 0: dated by its file's time
    journal.save(entry)
    past = time.time() - 2 * WINDOW
    os.utime(journal.folder / f"{entry.key}.json", (past, past))
    run = SpendLedger(max_spend=10 * PRICE, window=WINDOW)
    run.hold(entry.key, holds_of(entry))
    # the requester's nonce unread: the held request may be settled yet
    assert _counted(run, journal) == PRICE == _restarted(journal)


def test_a_run_call_whose_entry_is_gone_counts_until_it_leaves_the_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No entry to read (moved away): the run's own count, dated when it was counted."""
    journal = Journal(tmp_path)
    run = SpendLedger(max_spend=PRICE, window=WINDOW)
    run.record(PRICE, FIRST, KEY_A)
    assert _counted(run, journal) == PRICE  # the safe side while within the window
    assert run.refusal(1) is not None
    later = time.time() + WINDOW + 1
    monkeypatch.setattr(time, "time", lambda: later)
    assert _counted(run, journal) == 0 == _restarted(journal)


def test_a_request_counted_after_the_last_read_counts_by_the_run(
    tmp_path: Path,
) -> None:
    """Between two reads the run's own count stands: nothing sent goes uncounted."""
    journal = Journal(tmp_path)
    entry = on_chain(KEY_A, FIRST)
    journal.save(entry)
    run = SpendLedger(max_spend=2 * PRICE, window=WINDOW)
    assert _counted(run, journal) == PRICE  # another process's, before this run sent
    run.record(PRICE, RETRY, KEY_B)  # sent now, read at the next count only
    assert run.spent + run.earlier == 2 * PRICE
    assert run.refusal(1) is not None


def test_an_unreadable_entry_still_stops_paying(tmp_path: Path) -> None:
    """A torn entry in the window: its price is unknown, so nothing is paid."""
    journal = Journal(tmp_path)
    journal.save(on_chain(KEY_A, FIRST))
    run = SpendLedger(max_spend=10 * PRICE, window=WINDOW)
    run.record(PRICE, FIRST, KEY_A)
    (journal.folder / f"{KEY_A}.json").write_text("{", encoding="utf-8")
    _counted(run, journal)
    refusal = run.refusal(PRICE)
    assert refusal is not None and "not one this server wrote" in refusal


def test_under_run_only_another_call_s_torn_entry_stops_nothing(
    tmp_path: Path,
) -> None:
    """``--spend-window run`` counts no other entry, torn or not; its own calls count."""
    journal = Journal(tmp_path)
    journal.save(on_chain(KEY_A, FIRST))
    (journal.folder / f"{KEY_B}.json").write_text("{", encoding="utf-8")
    run = SpendLedger(max_spend=2 * PRICE, window=None)
    run.record(PRICE, FIRST, KEY_A)
    assert _counted(run, journal) == PRICE
    assert run.refusal(PRICE) is None and run.refusal(PRICE + 1) is not None
