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

"""The run's ledger counts per request, as the journal does (adversarial review adv29i).

Each history below is what ``offchain_sending`` does to a call's journal entry (the
real ``outstanding`` functions, a real :class:`.journal.Journal` on disk) and to the
``--max-spend`` ledgers at each step: a request signed (again), a post that never
connected (``unsent``, released), a settlement, the nonce passing, the cap's release of
a refused request, an automatic deposit. After every step three counts must agree:

- ``--spend-window run``: this run's ledger alone (the journal is never read);
- a spending window: this run's ledger and the journal's count together;
- a restart: a new server's ledger counting the journal only.

The adv29i fault was a history where they did not: the run's ledger folded the call's
held request into the retry's id, and the retry's release dropped both.
"""

import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import pytest
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.outstanding import (
    holds_of,
    mark_passed,
    mark_unsent,
    remember_attempt,
    settle_on,
)
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from mech_catalogue_cli.mcp_server.spending import journal_records
from tests.test_mcp_offchain_nonces import PRICE, signed

X, Y, Z = ("0x" + digit * 64 for digit in "abc")
WINDOW = 3600.0


class Call:
    """One off-chain call's entry and the ledgers, changed as the sender changes them."""

    def __init__(self, folder: Path) -> None:
        """Start with nothing signed.

        :param folder: the journal's folder.
        """
        self.journal = Journal(folder)
        self.entry: Optional[JournalEntry] = None
        # the same run, served with --spend-window run and with a window
        self.run = SpendLedger(max_spend=10 * PRICE, window=None)
        self.windowed = SpendLedger(max_spend=10 * PRICE, window=WINDOW)

    def _ledgers(self) -> Tuple[SpendLedger, SpendLedger]:
        return self.run, self.windowed

    def _save(self) -> JournalEntry:
        assert self.entry is not None
        self.journal.save(self.entry)
        return self.entry

    def sign(self, request_id: str, price: int) -> None:
        """Sign the call's request (again, at its nonce), journalled before the post.

        :param request_id: the new request's id.
        :param price: its price.
        """
        again = signed(request_id, price)
        if self.entry is not None:
            remember_attempt(again, self.entry)
            if "auto_prepay" in self.entry.extra:  # carried, as the sender does
                again.extra["auto_prepay"] = self.entry.extra["auto_prepay"]
        self.entry = again
        self._save()
        for ledger in self._ledgers():
            ledger.hold(again.key, holds_of(again))

    def unsent(self) -> None:
        """The post of the current request never connected: marked, released."""
        entry = self._save()
        mark_unsent(entry)
        self._save()
        for ledger in self._ledgers():
            ledger.release(entry.request_id)

    def settled(self, request_id: str) -> None:
        """The chain shows one of the call's requests settled.

        :param request_id: the settled one.
        """
        entry = self._save()
        settle_on(entry, request_id)
        entry.status = CallStatus.SENT
        self._save()
        for ledger in self._ledgers():
            ledger.settle(request_id)

    def passed(self) -> None:
        """The requester's nonce passed every request of the call unsettled."""
        entry = self._save()
        marked = mark_passed(entry)
        self._save()
        for hold in marked:
            for ledger in self._ledgers():
                ledger.release(hold.request_id)

    def released(self) -> None:
        """The cap's check shows the current refused request never settleable."""
        entry = self._save()
        entry.extra["offchain"]["released"] = {
            "market_nonce": entry.market_nonce + 1,
            "block": 99,
        }
        self._save()
        for ledger in self._ledgers():
            ledger.release(entry.request_id)

    def deposited(self, amount: int) -> None:
        """An automatic deposit was made for the call.

        :param amount: deposited, wei.
        """
        entry = self._save()
        entry.extra["auto_prepay"] = {
            "amount": str(amount),
            "tracker": "0x" + "55" * 20,
            "idempotency": "auto-prepay:" + entry.key,
            "status": "deposited",
            "tx_hash": "0x" + "66" * 32,
        }
        self._save()
        for ledger in self._ledgers():
            ledger.deposit(entry.key, amount)

    def counts(self) -> Dict[str, int]:
        """What each server counts for the history so far.

        :return: ``{"run", "window", "restart"}`` -> wei.
        """
        records = journal_records(self.journal.folder)
        now = time.time()
        self.windowed.count_journal(records, now)
        restarted = SpendLedger(max_spend=10 * PRICE, window=WINDOW)
        restarted.count_journal(records, now)
        self.run.count_journal(records, now)  # no window: reads nothing
        assert self.run.earlier == 0
        return {
            "run": self.run.spent,
            "window": self.windowed.spent + self.windowed.earlier,
            "restart": restarted.spent + restarted.earlier,
        }


Step = Callable[[Call], None]
#: (name, steps, what the call counts after each step)
HISTORIES: List[Tuple[str, List[Step], List[int]]] = [
    (
        "adv29i: refused, re-signed at a higher price, unsent, then settled",
        [
            lambda c: c.sign(X, PRICE),
            lambda c: c.sign(Y, PRICE + 1),
            Call.unsent,
            lambda c: c.settled(X),
        ],
        [PRICE, PRICE + 1, PRICE, PRICE],
    ),
    (
        "the higher earlier request settled: the call counts it alone",
        [
            lambda c: c.sign(X, PRICE + 2),
            lambda c: c.sign(Y, PRICE),
            lambda c: c.settled(Y),
        ],
        [PRICE + 2, PRICE + 2, PRICE],
    ),
    (
        "the current request released by the cap: the earlier one still counts",
        [
            lambda c: c.sign(X, PRICE),
            lambda c: c.sign(Y, PRICE - 1),
            Call.released,
        ],
        [PRICE, PRICE, PRICE],
    ),
    (
        "every request passed unsettled: nothing counts",
        [lambda c: c.sign(X, PRICE), lambda c: c.sign(Y, PRICE + 1), Call.passed],
        [PRICE, PRICE + 1, 0],
    ),
    (
        "passed, then signed anew and unsent: nothing counts",
        [
            lambda c: c.sign(X, PRICE),
            Call.passed,
            lambda c: c.sign(Z, PRICE),
            Call.unsent,
        ],
        [PRICE, 0, PRICE, 0],
    ),
    (
        "a 402, a deposit above the price, the retry unsent: the deposit counts",
        [
            lambda c: c.sign(X, PRICE),
            lambda c: c.deposited(3 * PRICE),
            Call.released,
            lambda c: c.sign(Y, PRICE),
            Call.unsent,
        ],
        [PRICE, 3 * PRICE, 3 * PRICE, 3 * PRICE, 3 * PRICE],
    ),
    (
        "three requests, the first settled: it counts alone",
        [
            lambda c: c.sign(X, PRICE),
            lambda c: c.sign(Y, PRICE + 2),
            lambda c: c.sign(Z, PRICE + 1),
            lambda c: c.settled(X),
        ],
        [PRICE, PRICE + 2, PRICE + 2, PRICE],
    ),
    (
        "a deposit below the price: the price counts",
        [lambda c: c.sign(X, 2 * PRICE), lambda c: c.deposited(PRICE)],
        [2 * PRICE, 2 * PRICE],
    ),
    (
        "its first post unsent: nothing counts, and a retry counts once",
        [
            lambda c: c.sign(X, PRICE),
            Call.unsent,
            lambda c: c.sign(Y, PRICE),
            lambda c: c.settled(Y),
        ],
        [PRICE, 0, PRICE, PRICE],
    ),
]


@pytest.mark.parametrize(
    "steps, expected", [h[1:] for h in HISTORIES], ids=[h[0] for h in HISTORIES]
)
def test_the_run_the_window_and_a_restart_count_the_same(
    tmp_path: Path, steps: List[Step], expected: List[int]
) -> None:
    """After every step of a history, the three counts are the call's count.

    :param tmp_path: the journal's folder.
    :param steps: the history.
    :param expected: what the call counts after each step, wei.
    """
    call = Call(tmp_path)
    for number, (step, counted) in enumerate(zip(steps, expected)):
        step(call)
        counts = call.counts()
        assert counts == dict.fromkeys(counts, counted), (number, counts)


def test_releasing_one_request_never_releases_another() -> None:
    """Two requests of one call: each release drops its own price only."""
    ledger = SpendLedger(max_spend=10 * PRICE, window=None)
    first, second = signed(X, PRICE + 1), signed(Y, PRICE)
    remember_attempt(second, first)
    ledger.hold(second.key, holds_of(second))
    assert (ledger.spent, sorted(ledger.requests)) == (PRICE + 1, sorted([X, Y]))
    ledger.release(Y)
    assert (ledger.spent, ledger.requests) == (PRICE + 1, [X])
    ledger.release(Y)  # again: nothing more
    assert ledger.spent == PRICE + 1
    ledger.release(X)
    assert (ledger.spent, ledger.requests) == (0, [])


def test_a_settled_request_is_never_released_and_unknown_ids_change_nothing() -> None:
    """Settled: counted for good; a settlement or release of another run's id: no-op."""
    ledger = SpendLedger(max_spend=10 * PRICE, window=None)
    first, second = signed(X, PRICE), signed(Y, PRICE + 1)
    remember_attempt(second, first)
    ledger.hold(second.key, holds_of(second))
    ledger.settle(Z)
    ledger.release(Z)
    assert ledger.spent == PRICE + 1
    ledger.settle(X)
    ledger.release(X)  # a stale release after the settlement
    assert (ledger.spent, ledger.requests) == (PRICE, [X])


def test_calls_and_on_chain_requests_add_up_and_the_cap_refuses_past_them() -> None:
    """adv29i's cap: the call's held price and one on-chain price fill 2P+1."""
    ledger = SpendLedger(max_spend=2 * PRICE + 1, window=None)
    first, again = signed(X, PRICE), signed(Y, PRICE + 1)
    ledger.hold(first.key, holds_of(first))
    remember_attempt(again, first)
    ledger.hold(again.key, holds_of(again))
    ledger.release(Y)  # the retry never connected
    assert ledger.refusal(PRICE) is None
    ledger.record(PRICE, "0x" + "dd" * 32)  # call B, on chain
    refusal = ledger.refusal(PRICE)  # call C
    assert refusal is not None and "2 request(s) by this run" in refusal
    ledger.refund(PRICE, "0x" + "dd" * 32)  # B mined and reverted
    assert ledger.refusal(PRICE) is None and ledger.refunded == ["0x" + "dd" * 32]


def test_a_deposit_adds_only_what_the_call_does_not_count_yet() -> None:
    """``deposit_excess``: the deposit less the call's count, never below 0."""
    ledger = SpendLedger(max_spend=10 * PRICE, window=None)
    entry = signed(X, PRICE)
    assert ledger.deposit_excess(entry.key, 3 * PRICE) == 3 * PRICE
    ledger.hold(entry.key, holds_of(entry))
    assert ledger.deposit_excess(entry.key, 3 * PRICE) == 2 * PRICE
    assert ledger.deposit_excess(entry.key, PRICE - 1) == 0
    ledger.deposit(entry.key, 3 * PRICE)
    assert ledger.spent == 3 * PRICE


def test_a_journal_entry_of_another_process_for_a_call_of_this_run_adds_its_excess(
    tmp_path: Path,
) -> None:
    """The journal says more than this run knows of its call: its entry counts it."""
    journal = Journal(tmp_path)
    first = signed(X, PRICE)
    ledger = SpendLedger(max_spend=10 * PRICE, window=WINDOW)
    ledger.hold(first.key, holds_of(first))
    # another server on the folder re-signed the call at a higher price
    again = signed(X, PRICE)
    again.price = 3 * PRICE
    journal.save(again)
    ledger.count_journal(journal_records(journal.folder), time.time())
    assert ledger.spent + ledger.earlier == 3 * PRICE
    assert (ledger.spent, ledger.earlier, ledger.earlier_requests) == (3 * PRICE, 0, 0)
