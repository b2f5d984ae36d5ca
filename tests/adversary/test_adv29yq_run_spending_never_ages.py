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

"""adv29yq W1: a long-lived server counts its own spending past ``--spend-window``.

Severity: LOW (no stranger needed and nothing overpaid: a server process that runs
longer than the window, e.g. one HTTP server for many agents, refuses every paid call
once its lifetime spending reaches ``--max-spend``, saying "the spending of the last
86400 s" although what it counts is older; a restart clears it).

``SpendLedger`` counts this run's requests (``record``, ``spent``) with no date: the run
ledger never ages them, while ``count_journal`` leaves this run's entries to the run
ledger ("only what the journal adds to it"). docs/mcp.md ("So ``run``, a window and a
restart give the same count for the same history") and the class docstring ("What was
paid within ``--spend-window``") say otherwise.

Observed on main f997ebd3 (no chain, the ledger alone: window 3600 s, cap one price,
the run's one request journalled 7200 s ago): the long-lived ledger refuses the next
price ("would bring the spending of the last 3600 s ... to 10000 wei ... 5000 wei spent
on 1 request(s) by this run"); a restarted ledger over the same journal pays it.

Expected: the same answer as after a restart: a run request older than the window (by
its journal date, or the time it was recorded) counts no more, unless it still holds
a nonce as the journal's count says.
"""

import time

from mech_catalogue_cli.mcp_server.spend_cap import PaidRecord, SpendLedger

WINDOW = 3600.0
PRICE = 5000
REQUEST = "0x" + "01" * 32


def _ledgers() -> tuple:  # type: ignore[type-arg]
    """The long-lived run's ledger and a restarted one over the same journal."""
    now = time.time()
    journal = [PaidRecord(REQUEST, PRICE, now - 2 * WINDOW, key="k" * 64)]
    long_lived = SpendLedger(max_spend=PRICE, window=WINDOW)
    long_lived.record(PRICE, REQUEST)  # paid by this run, two windows ago
    long_lived.count_journal(journal, now)
    restarted = SpendLedger(max_spend=PRICE, window=WINDOW)
    restarted.count_journal(journal, now)
    return long_lived, restarted


def test_a_long_lived_run_counts_the_window_as_a_restart_does() -> None:
    """The run's only request is two windows old: the next price fits the cap."""
    long_lived, restarted = _ledgers()
    assert restarted.refusal(PRICE) is None  # premise: a restart pays it
    refusal = long_lived.refusal(PRICE)
    assert refusal is None, refusal
