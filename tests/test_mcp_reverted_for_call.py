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

"""A mech whose request was mined and reverted is not sent the call's request again.

Whatever the reads after the receipt say (the price moved, unchanged), whether the
receipt was read when sent or only found later (a timeout, a restart), in this process
(:class:`.refused_offers.RevertingMechs`) and after a restart (the call's journal
entry, :func:`.refused_offers.reverted_for_call`), for ``--spend-window``. A stand-in
chain, no node (adv29x P1's kind).
"""

import math
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH, NotFinal
from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import (
    STATUS_DOES_NOT_EXIST,
    STATUS_REQUESTED_PRIORITY,
    MarketError,
    SignedRequest,
)
from mech_catalogue_cli.mcp_server.mined_reverts import REVERTED_KEY, record_reverted
from mech_catalogue_cli.mcp_server.offchain_sending import PriceRefusal
from mech_catalogue_cli.mcp_server.refused_offers import reverted_for_call
from mech_catalogue_cli.mcp_server.sending import RequestSender
from tests.adversary.test_adv29u_mined_revert_not_final import (
    HEAD,
    KEY,
    FrontRunChain,
    sent_to,
)
from tests.test_mcp_refused_offers import (  # noqa: F401 # pylint: disable=unused-import
    HONEST,
    MECH,
    PRICE,
    _no_upload,
    _sender,
)

OTHER = "0x" + "0d" * 20
WINDOW = 3600.0


class Chain(FrontRunChain):
    """Requests to ``reverting`` mechs are mined and revert; others are mined paid.

    :param prices: what ``mech_price`` reads after each revert (in turn, the last kept).
    :param receipt_lost: whether a reverted request's broadcast times out instead of
        saying so (its receipt found only later).
    """

    def __init__(
        self,
        prices: List[int],
        reverting: Tuple[str, ...] = (MECH,),
        receipt_lost: bool = False,
    ) -> None:
        """At block ``HEAD``, nothing of the call mined or paid."""
        super().__init__()
        self.after = list(prices)
        self.reverting = reverting
        self.receipt_lost = receipt_lost
        self.requested_mech = ""
        self.paid: List[str] = []  # the hashes of the requests mined paid

    def request_transaction(self, *args: Any, **value: Any) -> Dict[str, Any]:
        """The request transaction, its mech kept."""
        self.requested_mech = args[0]
        return super().request_transaction(*args, **value)

    def broadcast(self, signed: SignedRequest, wait: float) -> str:
        """Mined: reverted for a reverting mech (its receipt lost if told), else paid."""
        if self.requested_mech not in self.reverting:
            self.paid.append(signed.tx_hash)
            self.mined_at[signed.tx_hash] = self.head_block
            return signed.tx_hash
        if self.receipt_lost:
            self.broadcasts.append(signed.raw_tx)
            self.mined_at[signed.tx_hash] = self.head_block
            raise MarketError(f"no receipt for {signed.tx_hash} in time")
        return super().broadcast(signed, wait)

    def mech_price(self, _mech: str) -> Optional[int]:
        """The price before a send; after a revert, the next one told."""
        if self.broadcasts and self.after:
            return self.after.pop(0)
        return PRICE

    def status(self, _request_id: str, _block: Optional[int] = None) -> int:
        """Held once a request was paid."""
        return STATUS_REQUESTED_PRIORITY if self.paid else STATUS_DOES_NOT_EXIST

    def transaction_reverted(self, tx_hash: str) -> Optional[bool]:
        """Reverted unless paid."""
        if tx_hash not in self.mined_at:
            return None
        return tx_hash not in self.paid


def _restarted(tmp_path: Path, chain: Chain) -> RequestSender:
    """A new server process over the same journal (nothing remembered in memory).

    :param tmp_path: the journal folder.
    :param chain: the chain.
    :return: its sender.
    """
    return _sender(tmp_path, chain)


@pytest.mark.usefixtures("no_upload")
@pytest.mark.parametrize(
    "prices",
    [[PRICE], [PRICE + 1, PRICE], [PRICE - 1]],
    ids=["price-unchanged", "raised-then-lowered", "lowered"],
)
def test_a_mined_revert_skips_its_mech_whatever_the_price_read_after(
    tmp_path: Path, prices: List[int]
) -> None:
    """Remembered, journalled, and the call resumes with the next offer once final.

    :param tmp_path: the journal folder.
    :param prices: the reads after the revert.
    """
    chain = Chain(prices)
    sender = _sender(tmp_path, chain)
    first = sent_to(sender, MECH)
    assert isinstance(first, PriceRefusal) and first.mined, first
    assert sender.reverting.why(MECH) is not None
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None and MECH in entry.extra[REVERTED_KEY]
    assert isinstance(sent_to(sender, HONEST), NotFinal)  # fix29pa's hold kept
    chain.head_block = HEAD + FINAL_DEPTH
    again = sent_to(sender, MECH)  # the server ranks it out; at send too
    assert isinstance(again, PriceRefusal) and again.mined, again
    paid = sent_to(sender, HONEST)
    assert isinstance(paid, JournalEntry) and paid.mech == HONEST, paid
    assert len(chain.broadcasts) == 1 and len(chain.paid) == 1
    assert MECH in paid.extra[REVERTED_KEY]  # carried into the call's next entry


@pytest.mark.usefixtures("no_upload")
def test_a_restarted_server_does_not_send_the_call_to_the_reverting_mech(
    tmp_path: Path,
) -> None:
    """The journal, not the process's memory, keeps the call off the mech.

    :param tmp_path: the journal folder.
    """
    chain = Chain([PRICE + 1, PRICE])
    sent_to(_sender(tmp_path, chain), MECH)
    chain.head_block = HEAD + FINAL_DEPTH
    sender = _restarted(tmp_path, chain)
    assert sender.reverting.remembered() == {}
    refused = sent_to(sender, MECH)
    assert isinstance(refused, PriceRefusal) and refused.mined, refused
    assert "this call's request to it" in refused and "--spend-window" in refused
    assert len(chain.broadcasts) == 1
    assert isinstance(sent_to(sender, HONEST), JournalEntry)


@pytest.mark.usefixtures("no_upload")
def test_a_revert_whose_receipt_was_lost_is_learnt_when_the_call_resumes(
    tmp_path: Path,
) -> None:
    """No receipt in time, a restart: found reverted when final, the mech skipped.

    :param tmp_path: the journal folder.
    """
    chain = Chain([PRICE], receipt_lost=True)
    with pytest.raises(MarketError):
        sent_to(_sender(tmp_path, chain), MECH)
    chain.head_block = HEAD + FINAL_DEPTH
    sender = _restarted(tmp_path, chain)
    refused = sent_to(sender, MECH)
    assert isinstance(refused, PriceRefusal) and refused.mined, refused
    assert sender.reverting.why(MECH) is not None  # the other calls skip it too
    assert len(chain.broadcasts) == 1
    assert isinstance(sent_to(sender, HONEST), JournalEntry)


@pytest.mark.usefixtures("no_upload")
def test_each_mech_that_reverted_for_the_call_is_kept_off_it(tmp_path: Path) -> None:
    """Two mechs revert in turn: both are journalled; the third is paid.

    :param tmp_path: the journal folder.
    """
    chain = Chain([PRICE], reverting=(MECH, HONEST))
    sent_to(_sender(tmp_path, chain), MECH)
    chain.head_block = HEAD + FINAL_DEPTH
    sent_to(_sender(tmp_path, chain), HONEST)
    chain.head_block = HEAD + 2 * FINAL_DEPTH
    sender = _restarted(tmp_path, chain)
    for mech in (MECH, HONEST):
        said = sent_to(sender, mech)
        assert isinstance(said, PriceRefusal) and said.mined, (mech, said)
    assert len(chain.broadcasts) == 2
    assert isinstance(sent_to(sender, OTHER), JournalEntry)


def _entry(**extra: Any) -> JournalEntry:
    return JournalEntry(
        KEY, "tool", MECH, PRICE, "0x" + "00" * 32, "", "0x" + "00" * 32, 0,
        "0x" + "77" * 32, 1, tx_hash="0x" + "99" * 32, extra=dict(extra),
    )  # fmt: skip


def test_the_record_keeps_the_first_time_and_expires_after_the_window() -> None:
    """Dated once; refused within the window, not after it."""
    entry = _entry()
    assert record_reverted(entry, now=1000.0) == (1000.0, True)
    assert record_reverted(entry, now=5000.0) == (1000.0, False)  # not re-dated
    assert reverted_for_call(
        entry.extra, MECH.upper().replace("0X", "0x"), WINDOW, 4599.0
    )
    assert reverted_for_call(entry.extra, MECH, WINDOW, 4601.0) is None
    assert reverted_for_call(entry.extra, HONEST, WINDOW, 1001.0) is None


@pytest.mark.parametrize(
    "record",
    [
        [MECH],
        {MECH: "0x" + "99" * 32},
        {MECH: {"tx_hash": "0x", "at": "1000"}},
        {MECH: {"tx_hash": "0x", "at": True}},
        {MECH: {"tx_hash": "0x", "at": math.nan}},
        {MECH: {"tx_hash": "0x", "at": math.inf}},
    ],
    ids=["list", "no-record", "text-time", "bool-time", "nan", "inf"],
)
def test_a_record_not_of_this_servers_shape_refuses_nothing_and_is_replaced(
    record: Any,
) -> None:
    """A rewritten journal never keeps a mech off forever; a new revert replaces it.

    :param record: the ``extra`` record as read.
    """
    entry = _entry(**{REVERTED_KEY: record})
    assert reverted_for_call(entry.extra, MECH, WINDOW, 2000.0) is None
    assert record_reverted(entry, now=2000.0) == (2000.0, True)
    assert reverted_for_call(entry.extra, MECH, WINDOW, 2001.0) is not None


def test_an_address_not_of_a_mechs_shape_is_never_refused() -> None:
    """Only a mech address is looked up (a sentence in an offer is not)."""
    entry = _entry(**{REVERTED_KEY: {"x": {"tx_hash": "0x", "at": 1000.0}}})
    assert reverted_for_call(entry.extra, "x", WINDOW, 1001.0) is None
