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

"""Cancelling a stale journalled request: the rule and each way the nonce can go.

The marketplace is an in-process stand-in (which of two transactions a node mines at
one nonce cannot be ordered from anvil in a unit test); the journal is real files. The
devnet test is ``tests/adversary/test_mcp_stale_pending.py``.
"""

from pathlib import Path
from typing import Any, List

import pytest

from mech_catalogue_cli.mcp_server.cancel import CANCEL_KEY, stale_request
from mech_catalogue_cli.mcp_server.journal import Journal, JournalError
from mech_catalogue_cli.mcp_server.market import MarketError, SignedRequest
from mech_catalogue_cli.mcp_server.sending import RequestSender
from mech_catalogue_cli.mcp_server.settings import CallSettings
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_paid_answer_unit import KEY, PAID, _entry


class NonceMarket:  # pylint: disable=too-few-public-methods
    """Holds one account nonce; ``winner`` says which transaction takes it."""

    def __init__(self, winner: str) -> None:
        """Set who wins: ``request``, ``cancel`` or ``none`` (nothing mined in time).

        :param winner: the outcome.
        """
        self.winner = winner
        self.signed: List[int] = []
        self.broadcast_raw: List[str] = []

    def sign_cancel(self, pending: SignedRequest) -> SignedRequest:
        """Sign a cancellation at the pending nonce.

        :param pending: the request.
        :return: the cancellation.
        """
        self.signed.append(pending.account_nonce)
        return SignedRequest("0xcc", "0x" + "cc" * 32, pending.account_nonce)

    def broadcast(self, signed: SignedRequest, wait: float) -> str:
        """Broadcast; fail as a node does when the nonce went elsewhere or no receipt.

        :param signed: the transaction.
        :param wait: ignored.
        :return: its hash.
        :raises MarketError: unless the cancellation wins.
        """
        del wait
        self.broadcast_raw.append(signed.raw_tx)
        if self.winner != "cancel":
            raise MarketError("nonce too low" if self.winner == "request" else "slow")
        return signed.tx_hash

    def status(self, request_id: str) -> int:
        """The request exists only when it won.

        :param request_id: ignored.
        :return: 1 or 0.
        """
        del request_id
        return 1 if self.winner == "request" else 0

    def mined_request_id(self, tx_hash: str, data: str) -> None:
        """No receipt names another id here (the derived one is the request's).

        :param tx_hash: ignored.
        :param data: ignored.
        """
        del tx_hash, data

    def confirmed_nonce(self) -> int:
        """Mined past the entry's nonce (4) unless nothing was mined.

        :return: the nonce.
        """
        return 4 if self.winner == "none" else 5


def _sender(market: Any, tmp_path: Path) -> RequestSender:
    return RequestSender(
        market, Journal(tmp_path), CallSettings("g", "a"), SpendLedger()
    )


def test_a_request_is_stale_unless_its_mech_is_payable_now_within_the_cap() -> None:
    """Not among the offers, price over the cap or unread: a sentence; else ""."""
    entry = _entry(price=10)
    assert "no longer among the offers" in stale_request(entry, [], 10, None)
    others = [offer("0x" + "0b" * 20, 1, price=10)]
    assert "no longer among the offers" in stale_request(entry, others, 10, None)
    mine = [offer(PAID, 1, price=10)]
    assert stale_request(entry, mine, 10, None) == ""
    assert stale_request(entry, mine, 12, 20) == ""
    assert "over --max-price 11 wei" in stale_request(entry, mine, 12, 11)
    assert "could not be read" in stale_request(entry, mine, None, None)


def test_the_cancellation_taking_the_nonce_lets_the_call_go_on(tmp_path: Path) -> None:
    """Cancel mined: None (nothing paid), the cancellation journalled with why."""
    market = NonceMarket("cancel")
    sender = _sender(market, tmp_path)
    entry = _entry(status="prepared")
    assert sender.cancel_request(entry, "mech gone") is None
    saved = Journal(tmp_path).load(KEY)
    assert saved is not None and saved.extra[CANCEL_KEY]["reason"] == "mech gone"
    assert market.broadcast_raw == ["0xcc"] and market.signed == [4]


def test_a_request_mined_before_its_cancellation_is_paid_and_kept(
    tmp_path: Path,
) -> None:
    """The request won the nonce: the entry is sent (its answer is read, never repaid)."""
    sender = _sender(NonceMarket("request"), tmp_path)
    won = sender.cancel_request(_entry(status="prepared"), "price over the cap")
    assert won is not None and won.status == "sent"
    saved = Journal(tmp_path).load(KEY)
    assert saved is not None and saved.status == "sent"


def test_a_retry_sends_the_same_cancellation_never_the_request(tmp_path: Path) -> None:
    """Nothing mined in time: an error saying to call again; the retry re-sends 0xcc."""
    market = NonceMarket("none")
    sender = _sender(market, tmp_path)
    with pytest.raises(MarketError, match="the cancellation is sent again"):
        sender.cancel_request(_entry(status="prepared"), "not pinned")
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None
    market.winner = "cancel"
    assert sender.cancel_request(entry, "") is None
    assert market.signed == [4] and market.broadcast_raw == ["0xcc", "0xcc"]
    assert "0x02f8" not in market.broadcast_raw  # the request's bytes, never


def test_a_tampered_cancellation_record_sends_nothing(tmp_path: Path) -> None:
    """A record this server did not write: JournalError, nothing broadcast."""
    market = NonceMarket("cancel")
    entry = _entry(status="prepared")
    entry.extra[CANCEL_KEY] = {"raw_tx": "0x02f8", "tx_hash": "0x" + "ef" * 32}
    with pytest.raises(JournalError, match="cancellation record"):
        _sender(market, tmp_path).cancel_request(entry, "")
    assert not market.broadcast_raw
