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

"""Adversarial review adv29b: reading an old paid answer again spends today's cap.

``--max-spend`` covers the last ``--spend-window`` (24 h) of the journal, dated by each
entry file's modification time (``spending.journal_records``). Reading a delivered
answer again (a retry, a client asking twice, a model re-calling with the same
arguments) saves its entry again (``DeliveryReader.delivered_result``), so a request
paid days ago counts as paid now: a user whose cap allows one call a day, who re-reads
yesterday's answer, is refused today's call "over --max-spend". Fails safe (nothing is
paid twice), but the cap no longer says what was spent when.

Expected (stated here; fails on main fb8e46c): an entry is dated by when it was paid;
re-reading it leaves the window's total unchanged.

In-process stand-ins of ``tests/test_mcp_paid_answer_unit.py`` (``sign`` raises there:
nothing is paid).
"""

import os
import time
from pathlib import Path

import anyio

from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from mech_catalogue_cli.mcp_server.spending import journal_records
from tests.test_mcp_paid_answer_unit import (  # noqa: F401  # pylint: disable=unused-import
    DeliveredMarket,
    no_child_processes,
)
from tests.test_mcp_recall_paid import _app, _tool

DAY = 24 * 3600.0


def test_rereading_yesterdays_answer_does_not_spend_todays_cap(tmp_path: Path) -> None:
    """The entry (10 wei) was paid two days ago; a cap of 10 wei a day still pays today."""
    market = DeliveredMarket()
    app = _app(tmp_path, market, _tool("predict-x", {"type": "object"}))
    (entry,) = (tmp_path / "calls").glob("*.json")
    two_days_ago = time.time() - 2 * DAY
    os.utime(entry, (two_days_ago, two_days_ago))

    def refusal() -> object:
        ledger = SpendLedger(10, window=DAY)
        ledger.count_journal(journal_records(tmp_path / "calls"), time.time())
        return ledger.refusal(10)

    assert refusal() is None  # control: nothing within the window
    result = anyio.run(app.call, "predict-x", {"prompt": "x"})
    assert not result.is_error and not market.paid, result.content[0].text
    assert refusal() is None, f"after re-reading the old answer: {refusal()}"
