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

"""A journalled, mined request the chain no longer holds (adv29p), without a chain.

:func:`.dropped.dropped_from_chain` decides from four facts (a head past the block read
before sending, the request unknown, no receipt, the account nonce unused), each
varied alone here, and RPC errors; then the server's call of a journalled ``sent``
entry with a stand-in marketplace: gone, its same signed transaction is sent again
(journalled first) and the answer read, the cap counting it once; its mech no longer
payable, its nonce is cancelled instead; anything else, only waited for. The devnet
reproduction (``anvil_reorg``) is ``tests/adversary/test_adv29p_reorg_request_devnet.py``.
"""

import json
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import anyio
import pytest
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server import delivery as delivery_module
from mech_catalogue_cli.mcp_server.cancel import CANCEL_KEY
from mech_catalogue_cli.mcp_server.dropped import DROPPED_KEY, dropped_from_chain
from mech_catalogue_cli.mcp_server.finality import FinalBlock
from mech_catalogue_cli.mcp_server.ipfs import IpfsError
from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import (
    STATUS_DELIVERED,
    STATUS_DOES_NOT_EXIST,
    STATUS_REQUESTED_PRIORITY,
    Delivered,
    MarketError,
    SignedRequest,
)
from mech_catalogue_cli.mcp_server.results import REQUEST_META_KEY, error_result
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.settings import PhaseTimer
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from mech_catalogue_cli.mcp_server.spending import JournalIndex
from tests.test_mcp_paid_answer_unit import (
    KEY,
    PAID,
    REQUEST_ID,
    REQUESTER,
    OneTool,
    _entry,
)

#: the head read before the request was sent (the entry's ``from_block``)
SENT_AT = 5
CANCEL_HASH = "0x" + "cc" * 32


class ReorgedMarket:  # pylint: disable=too-many-instance-attributes
    """A marketplace whose one request a reorg dropped (each fact settable).

    Broadcasting the journalled transaction mines it again (a receipt, its nonce used,
    the request known, then delivered); a cancellation takes the nonce instead.
    """

    requester = REQUESTER

    def __init__(self, **facts: Any) -> None:
        """Start from "gone": a head past SENT_AT, no request, no receipt, nonce free.

        :param facts: overrides of ``head``, ``status``, ``receipt`` (None: none,
            False: succeeded, True: reverted), ``confirmed`` (the account's mined
            transaction count; the entry's nonce is 4), ``price`` (the mech's now),
            ``blocks`` (tx hash -> the block it was mined in) and ``fails`` (an
            exception every read raises).
        """
        self.head_block: int = facts.get("head", SENT_AT + 3)
        self.request_status: int = facts.get("status", STATUS_DOES_NOT_EXIST)
        self.receipt: Optional[bool] = facts.get("receipt")
        self.confirmed: int = facts.get("confirmed", 4)
        #: the account's count FINAL_DEPTH blocks deep (None: as ``confirmed``)
        self.final: Optional[int] = facts.get("final")
        self.price: int = facts.get("price", 10)
        self.blocks: Dict[str, int] = dict(facts.get("blocks", {}))
        self.fails: Optional[BaseException] = facts.get("fails")
        self.mined_as: Optional[str] = None
        #: broadcasts that fail before anything is mined (a node refusing it)
        self.refusals: int = facts.get("refusals", 0)
        self.broadcasts: List[Dict[str, Any]] = []
        self.journal: Optional[Journal] = None

    def _read(self) -> None:
        if self.fails is not None:
            raise self.fails

    def head(self) -> int:
        """Read the head.

        :return: its block number.
        """
        self._read()
        return self.head_block

    def status(self, request_id: str, block: Optional[int] = None) -> int:
        """Read the request's status.

        :param request_id: ignored.
        :param block: ignored.
        :return: its status now.
        """
        del request_id, block
        self._read()
        return self.request_status

    def final_block(self, depth: int) -> FinalBlock:
        """Read the final block: ``depth`` below the head (no ``finalized`` tag).

        :param depth: blocks below the head.
        :return: the block and the head.
        """
        head = self.head()
        return FinalBlock(max(head - depth, 0), head, False)

    def final_nonce(self, depth: int) -> int:
        """Read the account's transaction count ``depth`` blocks below the head.

        :param depth: ignored.
        :return: ``final`` when given, else the mined count (the nonce's use final).
        """
        del depth
        self._read()
        return int(self.final if self.final is not None else self.confirmed)

    def transaction_reverted(self, tx_hash: str) -> Optional[bool]:
        """Read the receipt.

        :param tx_hash: ignored.
        :return: its status (None: no receipt).
        """
        del tx_hash
        self._read()
        return self.receipt

    def mined_block(self, tx_hash: str) -> Optional[int]:
        """Read the block a transaction was mined in.

        :param tx_hash: the transaction.
        :return: its block from ``blocks`` (None: no receipt).
        """
        self._read()
        return self.blocks.get(tx_hash)

    def confirmed_nonce(self) -> int:
        """Read the account's mined transaction count.

        :return: it.
        """
        self._read()
        return self.confirmed

    def mined_request_id(self, tx_hash: str, data: str) -> Optional[str]:
        """Read the id mined.

        :param tx_hash: ignored.
        :param data: ignored.
        :return: ``mined_as`` (None: the id derived is the id mined).
        """
        del tx_hash, data
        return self.mined_as

    def mech_price(self, mech: str) -> int:
        """Read the mech's price.

        :param mech: ignored.
        :return: its price now.
        """
        del mech
        return self.price

    @staticmethod
    def sign_cancel(pending: SignedRequest) -> SignedRequest:
        """Sign a cancellation.

        :param pending: the request cancelled.
        :return: a zero-value transfer at its nonce.
        """
        return SignedRequest("0xcancel", CANCEL_HASH, pending.account_nonce)

    def broadcast(self, signed: SignedRequest, wait: float = 60.0) -> str:
        """Mine a transaction; remember it and what the journal said then.

        :param signed: the transaction.
        :param wait: ignored.
        :return: its hash.
        :raises MarketError: while ``refusals`` last (nothing mined).
        """
        del wait
        if self.refusals:
            self.refusals -= 1
            raise MarketError("the request transaction failed: connection reset")
        assert self.journal is not None
        entry = self.journal.load(KEY)
        assert entry is not None
        self.broadcasts.append(
            {
                "raw_tx": signed.raw_tx,
                "account_nonce": signed.account_nonce,
                "journal": (entry.status, dict(entry.extra)),
            }
        )
        self.confirmed, self.receipt = signed.account_nonce + 1, False
        if signed.tx_hash != CANCEL_HASH:
            self.request_status = STATUS_REQUESTED_PRIORITY
        return signed.tx_hash

    def delivery(self, request_id: str, from_block: int) -> Optional[Delivered]:
        """Read the delivery.

        :param request_id: ignored.
        :param from_block: ignored.
        :return: it, once the request is on chain again.
        """
        del request_id, from_block
        if self.request_status == STATUS_DOES_NOT_EXIST:
            return None
        return Delivered(b"\x01" * 32, PAID, 9, REQUESTER.lower())

    def sign(self, transaction: Dict[str, Any]) -> None:
        """A new request is what must never be signed here.

        :param transaction: the transaction.
        :raises AssertionError: always.
        """
        raise AssertionError(f"a new request was signed: {transaction}")

    market_nonce = sign

    @staticmethod
    def own_request(data: str) -> None:
        """The chain holds no request of this requester with the call's data.

        :param data: the request data.
        """
        del data


def _gone(**changes: Any) -> JournalEntry:
    return _entry(from_block=SENT_AT, **changes)


@pytest.mark.parametrize(
    "facts",
    [
        {"head": SENT_AT},  # a node not past the block read before sending: lagging
        {"head": SENT_AT - 2},
        {"status": STATUS_REQUESTED_PRIORITY},
        {"status": STATUS_DELIVERED},
        {"receipt": False},  # mined and succeeded: a node that lost only the state
        {"receipt": True},  # mined and reverted
        {"confirmed": 5},  # its nonce used (by it, or by another transaction)
        {"fails": MarketError("rpc down")},
        {"fails": ValueError("bad answer")},
        {"fails": OSError("connection reset")},
    ],
)
def test_a_request_is_gone_only_when_every_fact_says_so(facts: Dict[str, Any]) -> None:
    """Any one fact of "still there", or any unread one: not gone (never sent again).

    :param facts: the one fact changed from "gone".
    """
    assert dropped_from_chain(ReorgedMarket(), _gone()) == SENT_AT + 3  # type: ignore
    assert dropped_from_chain(ReorgedMarket(**facts), _gone()) is None  # type: ignore


@pytest.mark.parametrize(
    "changes",
    [
        {"status": CallStatus.PREPARED},  # never known mined: the send path's
        {"status": CallStatus.DELIVERED},
        {"raw_tx": ""},  # nothing to send again
        {"tx_hash": ""},
        {"account_nonce": -1},
        {"extra": {"offchain": {}}},  # an off-chain request: not this account's tx
    ],
)
def test_only_a_mined_onchain_entry_with_its_transaction_can_be_gone(
    changes: Dict[str, Any],
) -> None:
    """Another status, no signed transaction or nonce, off-chain: never "gone".

    :param changes: the entry's fields changed.
    """
    assert dropped_from_chain(ReorgedMarket(), _gone(**changes)) is None  # type: ignore


def _server(tmp_path: Path, market: ReorgedMarket, **settings: Any) -> MechToolServer:
    journal = Journal(tmp_path)
    journal.save(_gone())
    market.journal = journal
    app = MechToolServer(
        OneTool(),
        CallSettings(
            gateway_url="", ipfs_api_url="", timeout=0.3, delivery_poll=0.05, **settings
        ),
        market,  # type: ignore[arg-type]
        journal,
    )
    app.refresh()
    return app


@pytest.fixture(autouse=True)
def delivered_body(monkeypatch: pytest.MonkeyPatch) -> None:
    """The delivery's body, without IPFS.

    :param monkeypatch: pytest's monkeypatch.
    """

    def fetch(url: str, data: bytes, request_id: int, timeout: float) -> Any:
        del url, data, request_id, timeout
        return json.dumps({"requestId": 1, "result": "rain"}).encode(), "QmResponse"

    monkeypatch.setattr(delivery_module, "fetch_response", fetch)


def _call(app: MechToolServer) -> Any:
    """One call as a client sees it: a chain or IPFS failure is the call's error."""
    try:
        return anyio.run(app.call, "t", {"prompt": "x"})
    except (MarketError, IpfsError) as exc:
        return error_result(f"t: {exc}")


def test_a_dropped_request_is_sent_again_with_its_own_transaction(
    tmp_path: Path,
) -> None:
    """Gone: journalled as dropped, the same bytes at the same nonce, answer read, once."""
    market = ReorgedMarket()
    app = _server(tmp_path, market, max_spend=15)
    result = _call(app)
    assert not result.is_error, result.content[0].text
    assert len(market.broadcasts) == 1
    sent = market.broadcasts[0]
    assert (sent["raw_tx"], sent["account_nonce"]) == ("0x02f8", 4)
    status, extra = sent["journal"]  # journalled before it was sent
    assert status == CallStatus.PREPARED and extra[DROPPED_KEY]["request_id"] == (
        REQUEST_ID
    )
    said = result.meta[REQUEST_META_KEY]["dropped_request"]
    assert said["tx_hash"] == "0x" + "ef" * 32 and "sent again" in said["said"]
    journal = app.reader.journal if app.reader else None
    assert journal is not None
    entry = journal.load(KEY)
    assert entry is not None and entry.status == CallStatus.DELIVERED
    # calling again reads the answer: nothing more is sent
    assert not _call(app).is_error and len(market.broadcasts) == 1
    # one request in the journal: the cap counts one price (15 leaves room for no other)
    ledger = SpendLedger(15)
    index = JournalIndex(journal.folder)
    ledger.count_journal(index.records(), entry.paid_at + 1)
    assert ledger.earlier == 10 and ledger.earlier_requests == 1
    assert ledger.refusal(10) and not ledger.refusal(5)


@pytest.mark.parametrize(
    "facts",
    [
        {"receipt": False},
        {"confirmed": 5, "final": 4},  # its nonce taken, not final yet
        {"head": SENT_AT},
        {"fails": MarketError("rpc down")},
    ],
)
def test_a_request_not_known_to_be_gone_is_only_waited_for(
    tmp_path: Path, facts: Dict[str, Any]
) -> None:
    """Not gone, or unsure: the wait's answer as before, nothing sent, journal as it was.

    :param tmp_path: the state folder.
    :param facts: the one fact changed from "gone".
    """
    market = ReorgedMarket(**facts)
    app = _server(tmp_path, market)
    result = _call(app)
    assert result.is_error and not market.broadcasts
    text = result.content[0].text
    assert "will not pay again" in text or "could not be read" in text, text
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None and entry.status == CallStatus.SENT
    assert DROPPED_KEY not in entry.extra


def test_a_dropped_request_whose_mech_is_over_max_price_is_cancelled(
    tmp_path: Path,
) -> None:
    """Gone, its mech's price now over --max-price: its nonce cancelled, said, no answer."""
    market = ReorgedMarket(price=50)
    app = _server(tmp_path, market, max_price=20)
    result = _call(app)
    text = result.content[0].text
    assert result.is_error and "was not sent again" in text and CANCEL_HASH in text
    assert len(market.broadcasts) == 1
    cancel = market.broadcasts[0]
    assert (cancel["raw_tx"], cancel["account_nonce"]) == ("0xcancel", 4)
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None and entry.status == CallStatus.PREPARED
    assert CANCEL_KEY in entry.extra and DROPPED_KEY in entry.extra


def test_a_request_mined_under_another_id_is_counted_once(tmp_path: Path) -> None:
    """Counted as derived, journalled as mined: the cap counts one price, not two."""
    mined = "0x" + "ac" * 32
    journal = Journal(tmp_path)
    journal.save(_gone(request_id=mined, paid_at=time.time()))
    records = JournalIndex(journal.folder).records()

    def counted(rename: bool) -> SpendLedger:
        ledger = SpendLedger(25)
        ledger.record(10, REQUEST_ID)
        if rename:
            ledger.renamed(REQUEST_ID, mined)
        ledger.renamed("0x" + "00" * 32, mined)  # a request this run never counted
        ledger.count_journal(records, time.time())
        return ledger

    assert counted(rename=False).earlier == 10  # the journal's id: another call's
    ledger = counted(rename=True)
    assert (ledger.spent, ledger.earlier, ledger.requests) == (10, 0, [mined])
    assert not ledger.refusal(15) and ledger.refusal(16)


def test_a_request_on_chain_costs_one_read_and_no_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The common case: getRequestStatus only; the send lock is not taken.

    :param tmp_path: the state folder.
    :param monkeypatch: pytest's monkeypatch.
    """
    market = ReorgedMarket(status=STATUS_REQUESTED_PRIORITY)
    reads: List[str] = []

    def counted(name: str) -> Any:
        read = getattr(market, name)

        def counting(*args: Any) -> Any:
            reads.append(name)
            return read(*args)

        return counting

    for name in ("head", "status", "transaction_reverted", "confirmed_nonce"):
        monkeypatch.setattr(market, name, counted(name))
    app = _server(tmp_path, market)

    def no_lock() -> None:
        raise AssertionError("the send lock was taken")

    monkeypatch.setattr(app.sender, "state_folder_lock", no_lock)
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None
    assert anyio.run(app.sender.sent_again_if_dropped, entry, (), PhaseTimer()) is None
    assert reads == ["status"]


def test_a_dropped_request_whose_resend_fails_is_sent_by_the_next_call(
    tmp_path: Path,
) -> None:
    """The re-send refused: said, journalled prepared; the next call sends those bytes."""
    market = ReorgedMarket(refusals=1)
    app = _server(tmp_path, market)
    failed = _call(app)
    text = failed.content[0].text
    assert failed.is_error and "no longer on chain" in text and "connection" in text
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None and entry.status == CallStatus.PREPARED
    assert DROPPED_KEY in entry.extra and not market.broadcasts
    answered = _call(app)
    assert not answered.is_error, answered.content[0].text
    assert [(b["raw_tx"], b["account_nonce"]) for b in market.broadcasts] == [
        ("0x02f8", 4)
    ]
    assert "dropped_request" in answered.meta[REQUEST_META_KEY]
