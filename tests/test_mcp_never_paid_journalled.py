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

"""A request seen never paid is a journal fact, for every process (issue #29, fix29zd).

``RequestSender.refund_if_never_paid`` gave a request's price back to ``--max-spend``
in the memory of the process that saw it unpaid for good (its nonce final, its receipt
reverted or absent): another server on the same ``--state-dir`` kept counting it, and a
restart read its receipt and finality again. Each history below runs one call on a
stand-in chain (:class:`tests.test_mcp_dropped_request_unit.ReorgedMarket`), then reads
the same journal as a second process does (its own index and ledger) and as a restart
does (a new server whose chain counts what it is asked).
"""

import time
from pathlib import Path
from typing import Any, Dict, List

import pytest
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.dropped import NEVER_MINED_KEY
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import MarketError
from mech_catalogue_cli.mcp_server.mined_reverts import REVERTED_KEY, never_paid
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from mech_catalogue_cli.mcp_server.spending import JournalIndex

# the delivery's body without IPFS (a fixture, used by name)
from tests.test_mcp_dropped_request_unit import (  # noqa: F401 # pylint: disable=unused-import
    KEY,
    SENT_AT,
    ReorgedMarket,
    _call,
    _gone,
    delivered_body,
)
from tests.test_mcp_paid_answer_unit import OneTool

PRICE = 10  # the entry's price
CAP = 15  # room for one price, not two
TX = "0x" + "ef" * 32  # the entry's transaction


class CountingMarket(ReorgedMarket):
    """The stand-in chain, counting the reads of a request's fate."""

    def __init__(self, **facts: Any) -> None:
        """Start as :class:`ReorgedMarket`; ``head_fails``: the head cannot be read.

        :param facts: its facts.
        """
        self.head_fails = bool(facts.pop("head_fails", False))
        super().__init__(**facts)
        self.reads: List[str] = []

    def head(self) -> int:
        """The head block, unless ``head_fails``.

        :return: its block number.
        :raises MarketError: when ``head_fails``.
        """
        if self.head_fails:
            raise MarketError("the head was not read: connection reset")
        return super().head()

    def transaction_reverted(self, tx_hash: str) -> Any:
        """Read the receipt, counted.

        :param tx_hash: the transaction.
        :return: its status.
        """
        self.reads.append("receipt")
        return super().transaction_reverted(tx_hash)

    def final_nonce(self, depth: int) -> int:
        """Read the final count, counted.

        :param depth: blocks deep.
        :return: the count.
        """
        self.reads.append("final_nonce")
        return super().final_nonce(depth)


def _server(folder: Path, market: ReorgedMarket) -> MechToolServer:
    """A server process on ``folder`` (its journal as it is), ``--max-spend`` CAP."""
    journal = Journal(folder)
    market.journal = journal
    app = MechToolServer(
        OneTool(),
        CallSettings(
            gateway_url="",
            ipfs_api_url="",  # the new request stops at its upload
            timeout=0.3,
            delivery_poll=0.05,
            max_spend=CAP,
        ),
        market,  # type: ignore[arg-type]
        journal,
    )
    app.refresh()
    return app


def _other_process_count(folder: Path) -> SpendLedger:
    """What another server on the same state folder counts: its own index and ledger."""
    ledger = SpendLedger(CAP)
    ledger.count_journal(JournalIndex(Journal(folder).folder).records(), time.time())
    return ledger


#: one per way a request is seen never paid: (the entry journalled, the chain's facts)
HISTORIES: Dict[str, Any] = {
    # a receipt timeout, then its nonce taken by another transaction, final
    "prepared, nonce taken": (
        {"status": CallStatus.PREPARED},
        {"confirmed": 5},
    ),
    # a receipt timeout, then read reverted (a front-running price raise), final
    "prepared, reverted": (
        {"status": CallStatus.PREPARED},
        {"confirmed": 5, "receipt": True, "blocks": {TX: SENT_AT + 1}},
    ),
    # seen mined, then a reorg gave its nonce to another transaction, final
    "sent, nonce taken": ({}, {"confirmed": 5}),
}


@pytest.mark.parametrize("history", sorted(HISTORIES))
def test_a_request_never_paid_is_journalled_for_other_processes_and_restarts(
    tmp_path: Path, history: str
) -> None:
    """The entry says so; another process counts 0; a restart reads nothing of it.

    :param tmp_path: the state folder.
    :param history: a key of :data:`HISTORIES`.
    """
    changes, facts = HISTORIES[history]
    Journal(tmp_path).save(_gone(paid_at=time.time(), **changes))
    before = _other_process_count(tmp_path)
    assert before.earlier == PRICE and before.refusal(PRICE)  # counted while unsure

    market = CountingMarket(**facts)
    first = _server(tmp_path, market)
    text = str(_call(first).content[0].text)
    assert "IPFS" in text, text  # the call went on to a new request
    assert first.sender.ledger.refusal(PRICE) is None

    entry = Journal(tmp_path).load(KEY)
    assert entry is not None and entry.tx_hash == TX and never_paid(entry)
    if facts.get("receipt"):
        assert entry.extra[REVERTED_KEY][entry.mech.lower()]["final_at"] == (
            SENT_AT + 3
        )
    else:
        assert entry.extra[NEVER_MINED_KEY]["tx_hash"] == TX

    other = _other_process_count(tmp_path)
    assert other.earlier == 0 and other.refusal(PRICE) is None

    restarted = CountingMarket(**facts)
    again = _server(tmp_path, restarted)
    text = str(_call(again).content[0].text)
    assert "IPFS" in text, text
    assert not restarted.reads  # neither its receipt nor its finality read again
    assert again.sender.ledger.refusal(PRICE) is None
    assert not market.broadcasts and not restarted.broadcasts


def test_a_record_never_written_for_want_of_the_head_keeps_counting(
    tmp_path: Path,
) -> None:
    """The head unread: this run gives the price back, the journal keeps it counted.

    The safe side: another process or a restart counts it and reads it again.

    :param tmp_path: the state folder.
    """
    Journal(tmp_path).save(_gone(paid_at=time.time(), status=CallStatus.PREPARED))
    market = CountingMarket(confirmed=5, head_fails=True)
    _call(_server(tmp_path, market))
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None and not never_paid(entry)
    assert NEVER_MINED_KEY not in entry.extra
    assert _other_process_count(tmp_path).earlier == PRICE


def test_a_successful_receipt_keeps_the_request_counted(tmp_path: Path) -> None:
    """Mined and succeeded, yet not on chain: not understood, never journalled unpaid.

    :param tmp_path: the state folder.
    """
    Journal(tmp_path).save(_gone(paid_at=time.time(), status=CallStatus.PREPARED))
    market = CountingMarket(confirmed=5, receipt=False)
    _call(_server(tmp_path, market))
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None and not never_paid(entry)
    assert _other_process_count(tmp_path).earlier == PRICE


@pytest.mark.parametrize(
    "extra",
    [
        {NEVER_MINED_KEY: {"tx_hash": "0x" + "aa" * 32}},  # an earlier request's
        {NEVER_MINED_KEY: {"block": 9}},  # written before fix29zd: no transaction
        {NEVER_MINED_KEY: "yes"},
        {NEVER_MINED_KEY: [TX]},
        {REVERTED_KEY: {"0x" + "11" * 20: {"tx_hash": TX, "at": 1.0}}},  # not final
        {
            REVERTED_KEY: {
                "0x" + "11" * 20: {"tx_hash": "0x1", "at": 1.0, "final_at": 9}
            }
        },
        {},
    ],
)
def test_only_a_record_naming_the_entry_s_own_transaction_frees_its_price(
    tmp_path: Path, extra: Dict[str, Any]
) -> None:
    """Any other record, or none: the entry counts its price (the cap's safe side).

    :param tmp_path: the state folder.
    :param extra: the entry's ``extra``.
    """
    entry = _gone(paid_at=time.time(), extra=extra)
    assert not never_paid(entry)
    Journal(tmp_path).save(entry)
    assert _other_process_count(tmp_path).earlier == PRICE
