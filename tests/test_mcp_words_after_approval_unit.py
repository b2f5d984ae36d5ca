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

"""A paid call cut after its token approval was sent says so, never "nothing signed".

The approval is signed, journalled and broadcast by the real :class:`TokenPayer`; the
market under it is a stand-in whose broadcast returns the approval's receipt and whose
next read is cut by the call's end (:class:`CallTimeSpent`), as a ``--timeout`` ending
right after that receipt does. The words the call ends with (:func:`cut_words`, and
:func:`unresumed_words` for a lookup that failed) name the approval's hash, say the
request itself was not signed, and that calling again reuses the approval.
"""

from pathlib import Path
from typing import Any, List

import anyio
import pytest
from mech_catalogue_core.model.payment import Funds, plan_payment
from web3 import Web3

from mech_catalogue_cli.mcp_server.call_end_words import (
    NOTHING_SIGNED,
    call_end_said,
    cut_words,
    unresumed_words,
    with_approval,
)
from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import MarketError, SignedRequest
from mech_catalogue_cli.mcp_server.market_errors import FeeOverCap
from mech_catalogue_cli.mcp_server.node_deadline import CallTimeSpent
from mech_catalogue_cli.mcp_server.offchain_sending import refusal_with
from mech_catalogue_cli.mcp_server.payment import APPROVAL_KEY, TokenPayer
from mech_catalogue_cli.mcp_server.refused_offers import RevertRefusal, gas_refusal
from tests.test_mcp_paid_answer_unit import KEY, _entry

OLAS_PAYMENT = "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9"
TOKEN = "0x" + "70" * 20
TRACKER = "0x" + "7a" * 20
APPROVAL_TX = "0x" + "a9" * 32
PRICE = 5 * 10**17


class ApprovingMarket:  # pylint: disable=too-few-public-methods
    """A market whose approval is signed and mined, the call's time ending after it."""

    requester = "0x" + "11" * 20
    w3 = Web3()

    def __init__(self) -> None:
        """Nothing broadcast yet."""
        self.broadcast_txs: List[str] = []

    def chain_id(self) -> int:
        """The chain's id.

        :return: 1.
        """
        return 1

    def sign(self, transaction: Any) -> SignedRequest:
        """Sign the approval (bytes stand in).

        :param transaction: the approve call.
        :return: a signed transaction with :data:`APPROVAL_TX` as its hash.
        """
        assert transaction["to"] == Web3.to_checksum_address(TOKEN)
        return SignedRequest("0x02f8", APPROVAL_TX, 7)

    def broadcast(self, signed: SignedRequest, wait: float) -> str:
        """Send it: its receipt comes back.

        :param signed: the approval.
        :param wait: seconds.
        :return: its hash.
        """
        del wait
        self.broadcast_txs.append(signed.tx_hash)
        return signed.tx_hash


class CutAfterApproval(TokenPayer):
    """Funds short of allowance once; every read after the approval: the call's end."""

    def __init__(self, market: Any) -> None:
        """Read nothing yet.

        :param market: the stand-in market.
        """
        super().__init__(market)
        self.reads = 0

    def funds(self, payment_type: str) -> Funds:
        """The allowance lacking the price; then the read cut by the call's end.

        :param payment_type: the offer's.
        :return: the funds read first.
        :raises MarketError: every read after the first, its cause the call's end.
        """
        self.reads += 1
        if self.reads > 1:
            raise MarketError(
                f"the funds for payment type {payment_type} could not be read"
            ) from CallTimeSpent(1.5)
        return Funds(TRACKER, TOKEN, 18, wallet=10**18, allowance=0, prepaid=0)


def _token_entry() -> JournalEntry:
    return _entry(
        payment_type=OLAS_PAYMENT,
        price=PRICE,
        raw_tx="",
        tx_hash="",
        account_nonce=-1,
        status="prepared",
    )


def _approved_then_cut(tmp_path: Path) -> "tuple[Journal, MarketError]":
    """Run the real approval, the call's time ending right after its receipt."""
    journal = Journal(tmp_path)
    market = ApprovingMarket()
    payer = CutAfterApproval(market)
    with pytest.raises(MarketError) as cut:
        payer.ensure_allowance(_token_entry(), None, journal.save, 1.0)
    assert market.broadcast_txs == [APPROVAL_TX]  # the approval went out
    assert plan_payment(OLAS_PAYMENT, PRICE).terms.symbol == "OLAS"
    return journal, cut.value


def _says_the_approval(words: str) -> None:
    assert APPROVAL_TX in words, words
    assert "request itself was not signed" in words, words
    assert "same arguments" in words and "reuse" in words, words
    assert NOTHING_SIGNED not in words, words


def test_a_call_cut_right_after_its_approval_s_receipt_names_the_approval(
    tmp_path: Path,
) -> None:
    """Cut after the approval's receipt: its hash, the request unsigned, call again.

    :param tmp_path: the state folder.
    """
    journal, error = _approved_then_cut(tmp_path)
    words = anyio.run(cut_words, error, journal, KEY)
    assert words is not None
    _says_the_approval(words)
    entry = journal.load(KEY)
    assert entry is not None and entry.extra[APPROVAL_KEY]["tx_hash"] == APPROVAL_TX
    _says_the_approval(unresumed_words(entry))  # a chain lookup failed after it


def test_a_request_refused_after_its_approval_names_the_approval(
    tmp_path: Path,
) -> None:
    """Not only a time ending: a fee over the cap after the approval names it too.

    :param tmp_path: the state folder.
    """
    journal, _ = _approved_then_cut(tmp_path)
    over_cap = FeeOverCap("block 9 on http://node", 200 * 10**9, 100 * 10**9, 1)
    assert "nothing was signed" in str(over_cap)  # of the request: alone, a lie
    said = anyio.run(call_end_said, over_cap, journal, KEY)
    assert isinstance(said, FeeOverCap) and said.fee == 200 * 10**9
    _says_the_approval(str(said))
    assert "nothing was signed" not in str(said), said  # one sentence, not two
    assert str(said).startswith(over_cap.why) and str(said).endswith(over_cap.advice)


def test_an_error_naming_the_approval_or_a_signed_request_gets_no_more_words(
    tmp_path: Path,
) -> None:
    """The approval's own broadcast error names it; a signed request keeps its words.

    :param tmp_path: the state folder.
    """
    journal, _ = _approved_then_cut(tmp_path)
    named = MarketError(f"tx {APPROVAL_TX} was not mined within 1 s")
    named.__cause__ = CallTimeSpent(1)
    assert anyio.run(cut_words, named, journal, KEY) is None
    entry = journal.load(KEY)
    assert entry is not None
    entry.raw_tx, entry.tx_hash = "0x02f8", "0x" + "ef" * 32
    journal.save(entry)
    cut = MarketError("the latest block could not be read")
    cut.__cause__ = CallTimeSpent(1)
    words = anyio.run(cut_words, cut, journal, KEY)
    assert words is not None and "signed and journalled" in words, words
    assert APPROVAL_TX not in words


@pytest.mark.parametrize("record", [None, {"tx_hash": "not ours"}])
def test_no_approval_or_a_foreign_record_says_nothing_of_one(record: Any) -> None:
    """No approval journalled (or one this server did not write): nothing signed.

    :param record: the entry's approval record (None: none).
    """
    entry = _token_entry()
    if record is not None:
        entry.extra[APPROVAL_KEY] = record
    assert unresumed_words(entry) == NOTHING_SIGNED
    assert unresumed_words(None) == NOTHING_SIGNED


def test_an_offer_refused_after_the_approval_says_it_and_keeps_its_fields(
    tmp_path: Path,
) -> None:
    """A gas or revert refusal after the approval: the approval said, fields kept.

    :param tmp_path: the state folder.
    """
    journal, _ = _approved_then_cut(tmp_path)
    entry = journal.load(KEY)
    assert entry is not None
    refusal = gas_refusal("0x" + "11" * 20, 150_000, 100_000)
    said = with_approval(refusal, entry)
    assert isinstance(said, RevertRefusal)
    # one sentence: the request unsigned, never "nothing was sent" beside the approval
    unsigned = str(refusal).replace(
        "not signed, nothing was sent", "its request not signed"
    )
    assert said.startswith(unsigned) and "nothing was sent" not in said, said
    assert (said.mech, said.skip, said.estimate) == (
        refusal.mech,
        refusal.skip,
        refusal.estimate,
    )
    _says_the_approval(said[len(unsigned) :])
    priced = refusal_with("price moved", {"status": "payable"})
    assert with_approval(priced, entry).payment == {"status": "payable"}
    assert with_approval(priced, _token_entry()) is priced  # no approval: as it is
