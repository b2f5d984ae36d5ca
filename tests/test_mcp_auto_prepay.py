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

"""``--auto-prepay``'s decisions, its journal record and its command-line checks.

The devnet behaviour (the 402, the deposit, the retry, the caps, a second 402) is in
``tests/devnet/test_mcp_auto_prepay.py``; here what needs no chain: how much is
deposited, how the deposit counts against ``--max-spend`` from the journal, and which
option combinations are refused at start.
"""

from pathlib import Path

import click
import pytest

from mech_catalogue_cli.commands.mcp_cmd import _check_auto_prepay
from mech_catalogue_cli.mcp_server.auto_prepay import (
    AUTO_PREPAY_KEY,
    deposit_counted,
    deposit_decision,
)
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.spending import journal_records
from tests.test_mcp_offchain_journal import OFFCHAIN, entry

PRICE = 5 * 10**15


@pytest.mark.parametrize(
    "prepaid, opted, expected",
    [
        (0, PRICE, PRICE),  # exactly the shortfall
        (0, 10 * PRICE, 10 * PRICE),  # the opted-in top-up
        (PRICE - 1, PRICE, PRICE),  # short by 1 wei: still the opted-in amount
    ],
)
def test_the_deposit_is_the_opted_in_amount_when_it_covers_the_shortfall(
    prepaid: int, opted: int, expected: int
) -> None:
    """The amount deposited never depends on the 402: the chain's prepaid and the option."""
    assert deposit_decision(PRICE, prepaid, opted) == expected


@pytest.mark.parametrize(
    "prepaid, opted, said",
    [
        (0, None, "--auto-prepay is not given"),
        (0, PRICE - 1, "is more than the opted-in --auto-prepay amount"),
        (PRICE, PRICE, "covers the price"),
        (2 * PRICE, PRICE, "yet the mech answered 402"),
    ],
)
def test_no_deposit_when_not_opted_in_too_small_or_not_short(
    prepaid: int, opted: object, said: str
) -> None:
    """Each refusal is a sentence; nothing is deposited."""
    decided = deposit_decision(PRICE, prepaid, opted)  # type: ignore[arg-type]
    assert isinstance(decided, str) and said in decided


def test_a_call_s_deposit_counts_against_the_cap_from_the_journal(
    tmp_path: Path,
) -> None:
    """The entry counts max(price, deposit); a record this server never writes stops paying."""
    journal = Journal(tmp_path)
    record = {"amount": str(4 * PRICE), "tracker": "0x" + "55" * 20}
    deposited = entry(dict(OFFCHAIN, accepted=True))
    deposited.extra[AUTO_PREPAY_KEY] = record
    journal.save(deposited)
    (counted,) = journal_records(journal.folder)
    assert counted.price == 4 * PRICE and not counted.problem
    # a deposit smaller than the price (a partly prepaid balance): the price counts
    deposited.extra[AUTO_PREPAY_KEY] = dict(record, amount=str(PRICE // 2))
    journal.save(deposited)
    (counted,) = journal_records(journal.folder)
    assert counted.price == PRICE
    for broken in ({"amount": 5}, {"amount": "-1"}, "5", {"amount": "1e18"}):
        deposited.extra[AUTO_PREPAY_KEY] = broken
        journal.save(deposited)
        (counted,) = journal_records(journal.folder)
        assert "auto_prepay record is not one this server writes" in counted.problem
        assert counted.asset == ""  # counts against every asset's cap: none is paid


def test_deposit_counted_is_zero_without_a_deposit() -> None:
    """A call without an automatic deposit counts its price only."""
    assert deposit_counted({"offchain": OFFCHAIN}) == 0


@pytest.mark.parametrize(
    "auto, caps, offchain, said",
    [
        ({"native": PRICE}, {}, "only", "needs --max-spend native="),
        ({"usdc": 10**6}, {"native": PRICE}, "auto", "needs --max-spend usdc="),
        ({"native": PRICE}, {"native": PRICE}, "never", "give --offchain auto"),
        ({"native": 2 * PRICE}, {"native": PRICE}, "only", "at most --max-spend"),
        ({"native": 0}, {"native": PRICE}, "only", "must be above 0"),
    ],
)
def test_an_auto_prepay_no_cap_bounds_is_refused_at_start(
    auto: dict, caps: dict, offchain: str, said: str
) -> None:
    """Exit 2 before anything runs: an LLM's calls never deposit past a cap."""
    with pytest.raises(click.UsageError) as raised:
        _check_auto_prepay(auto, caps, offchain)
    assert said in str(raised.value)


def test_an_auto_prepay_within_its_cap_is_accepted() -> None:
    """Opted in with a cap per asset: the server starts."""
    _check_auto_prepay({"native": PRICE}, {"native": 10 * PRICE}, "auto")
    _check_auto_prepay({}, {}, "never")
