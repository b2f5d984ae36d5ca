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


"""A refusal never says "nothing was signed" of a call that signed something before it.

Every sentence that can say nothing was signed or sent is checked against one
predicate, :func:`signed_parts` of the call's entry: a refusal before signing (a fee,
a tip or gas over its bound) rebuilt by ``call_end_said`` into one sentence naming the
approval and its hash, the request signed before, or the off-chain requests its mech
may settle; the call's last words when every offer was refused
(``nothing_sent_words``); an offer's refusal after the approval (``with_approval``);
a deposit refused after its approval (``Prepayer.deposit``). A call that signed
nothing keeps the refusal's words as they were.
"""

from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import anyio
import pytest
from mech_catalogue_core.model.payment import Funds
from web3 import Web3

from mech_catalogue_cli.mcp_server.call_end_words import (
    call_end_said,
    nothing_sent_words,
    refusals_said,
    unposted_words,
    with_approval,
)
from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import SignedRequest
from mech_catalogue_cli.mcp_server.market_errors import (
    ESTIMATE_UNSENT,
    TIP_FROM_NODE,
    TIP_TYPED,
    CancelOverCap,
    FeeOverCap,
    GasOverBound,
    MarketError,
    TipOverCap,
    UnsignedRefusal,
)
from mech_catalogue_cli.mcp_server.node_deadline import CallTimeSpent
from mech_catalogue_cli.mcp_server.payment import APPROVAL_KEY
from mech_catalogue_cli.mcp_server.prepay import Prepayer
from mech_catalogue_cli.mcp_server.refused_offers import gas_refusal, revert_refusal
from mech_catalogue_cli.mcp_server.signed_parts import signed_parts
from tests.test_mcp_paid_answer_unit import KEY, REQUEST_ID, _entry

APPROVAL_TX = "0x" + "a9" * 32
REQUEST_TX = "0x" + "ef" * 32
TOKEN = "0x" + "70" * 20
TRACKER = "0x" + "7a" * 20
OLAS_PAYMENT = "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9"
GWEI = 10**9
NOTHING = ("nothing was signed", "nothing was sent")


def _approval_record() -> Dict[str, Any]:
    return {
        "tx_hash": APPROVAL_TX,
        "raw_tx": "0x02f8",
        "account_nonce": 6,
        "token": TOKEN,
        "tracker": TRACKER,
        "amount": 5 * 10**17,
    }


def _unsigned() -> JournalEntry:
    return _entry(raw_tx="", tx_hash="", status="prepared", account_nonce=-1)


def _approved() -> JournalEntry:
    entry = _unsigned()
    entry.extra[APPROVAL_KEY] = _approval_record()
    return entry


def _offchain(nonce_passed: bool = False) -> JournalEntry:
    entry = _unsigned()
    entry.extra["offchain"] = {
        "endpoint": "http://127.0.0.1:9/",
        "signature": "0x" + "5a" * 65,
        "accepted": True,
        "requester": "0x" + "11" * 20,
        "chain_id": 1,
    }
    if nonce_passed:
        entry.extra["offchain"]["nonce_passed"] = True
    return entry


#: each kind of entry, and the words naming what it signed ("": nothing)
ENTRIES: Dict[str, Callable[[], Optional[JournalEntry]]] = {
    "none": lambda: None,
    "prepared": _unsigned,
    "approval": _approved,
    "transaction": lambda: _entry(raw_tx="0x02f8", tx_hash=REQUEST_TX),
    "offchain": _offchain,
}
NAMED = {
    "none": "",
    "prepared": "",
    "approval": APPROVAL_TX,
    "transaction": REQUEST_TX,
    "offchain": REQUEST_ID,
}
REFUSALS: Dict[str, Callable[[], UnsignedRefusal]] = {
    "fee": lambda: FeeOverCap("block 9 on http://node", 99 * GWEI, 100 * GWEI),
    "fee, the node's tip": lambda: FeeOverCap(
        "block 9 on http://node", 90 * GWEI, 100 * GWEI, 20 * GWEI, TIP_FROM_NODE
    ),
    "fee, a typed tip": lambda: FeeOverCap(
        "block 9 on http://node", 90 * GWEI, 100 * GWEI, 20 * GWEI, TIP_TYPED
    ),
    "tip": lambda: TipOverCap("http://node", 101 * GWEI, 100 * GWEI),
    "gas": lambda: GasOverBound("0x" + "84" * 20, 2_000_000, 1_000_000),
}


def _said(refusal: MarketError, entry: Optional[JournalEntry], tmp_path: Path) -> Any:
    journal = Journal(tmp_path)
    if entry is not None:
        journal.save(entry)
    return anyio.run(call_end_said, refusal, journal, KEY)


@pytest.mark.parametrize("kind", sorted(ENTRIES))
@pytest.mark.parametrize("refused", sorted(REFUSALS))
def test_a_refusal_before_signing_says_what_the_call_signed_once(
    tmp_path: Path, kind: str, refused: str
) -> None:
    """Each refusal with each entry: one sentence, true to ``signed_parts``.

    :param tmp_path: the state folder.
    :param kind: the call's entry.
    :param refused: the refusal.
    """
    refusal = REFUSALS[refused]()
    entry = ENTRIES[kind]()
    said = _said(refusal, entry, tmp_path)
    assert type(said) is type(refusal)
    assert said.__dict__ == refusal.__dict__  # its fields kept
    text = str(said)
    assert text.startswith(refusal.why) and text.endswith(refusal.advice), text
    if not signed_parts(entry).anything:
        assert said is refusal and "nothing was signed nor sent" in text
        return
    assert NAMED[kind] in text, text
    assert not any(words in text for words in NOTHING), text


def test_a_refusal_after_an_approval_reads_as_one_sentence(tmp_path: Path) -> None:
    """The fee over the cap, then the approval, then what to do: nothing contradicts.

    :param tmp_path: the state folder.
    """
    refusal = REFUSALS["fee, the node's tip"]()
    text = str(_said(refusal, _approved(), tmp_path))
    assert (
        "over --max-fee-per-gas 100 gwei (100,000,000,000 wei): the request itself "
        "was not signed, but this call's token approval (tx " + APPROVAL_TX
    ) in text, text
    assert text.index(APPROVAL_TX) < text.index("Call again when the fee is lower")
    assert "the tip the node suggested (20 gwei" in text


def test_a_cancellation_over_the_cap_keeps_its_own_words(tmp_path: Path) -> None:
    """Its request was signed before it: the cancellation's sentence says so itself.

    :param tmp_path: the state folder.
    """
    refusal = CancelOverCap("transaction 0x.. is not mined ...", 11 * GWEI, 10 * GWEI)
    entry = _entry(raw_tx="0x02f8", tx_hash=REQUEST_TX)
    entry.extra[APPROVAL_KEY] = _approval_record()
    assert _said(refusal, entry, tmp_path) is refusal


def test_another_error_not_cut_is_kept_and_a_cut_one_says_the_approval(
    tmp_path: Path,
) -> None:
    """A node's failure not cut by the call's end is kept; the approval said once.

    :param tmp_path: the state folder.
    """
    failed = MarketError("the nonce could not be read")
    assert _said(failed, None, tmp_path) is failed
    cut = MarketError("the head could not be read")
    cut.__cause__ = CallTimeSpent(1.5)
    text = str(_said(cut, _approved(), tmp_path))
    assert text.startswith("the head could not be read; ") and APPROVAL_TX in text
    assert not any(words in text for words in NOTHING), text


@pytest.mark.parametrize("kind", sorted(ENTRIES))
def test_the_call_s_last_words_follow_what_it_signed(kind: str) -> None:
    """Every offer refused: "nothing was sent" only when nothing was signed.

    :param kind: the call's entry.
    """
    entry = ENTRIES[kind]()
    words = nothing_sent_words(entry)
    if not signed_parts(entry).anything:
        assert words == "nothing was sent"
        return
    assert NAMED[kind] in words, words
    assert not any(nothing in words for nothing in NOTHING), words


def test_an_approval_named_before_is_not_named_again() -> None:
    """The offers' refusals named the approval: the last words refer to it."""
    said = f"no offer could be paid now: ...; this call's token approval (tx {APPROVAL_TX})"
    words = nothing_sent_words(_approved(), said)
    assert APPROVAL_TX not in words and "named above" in words, words
    assert "nothing was sent" not in words


def test_an_offer_s_refusal_after_the_approval_says_its_request_unsigned() -> None:
    """Gas over the bound, a revert at the estimate: the request alone unsigned."""
    entry = _approved()
    for refusal in (
        gas_refusal("0x" + "11" * 20, 150_000, 100_000),
        revert_refusal(
            "0x" + "11" * 20,
            f"at its gas estimate {ESTIMATE_UNSENT}",
            'reason "(nothing was sent)"',  # a mech's words: kept as written
        ),
    ):
        said = with_approval(refusal, entry)
        assert "request not signed" in said and APPROVAL_TX in said, said
        mine = said.split("reason", 1)[0]  # the server's words, before the mech's
        assert "nothing was sent" not in mine, said
    assert said.count("(nothing was sent)") == 1  # the mech's, kept as written
    # joined with the others after the approval: the mech's words still as written
    assert refusals_said([said], entry) == said


@pytest.mark.parametrize("kind", sorted(ENTRIES))
def test_offers_refused_before_the_approval_are_said_unsigned_after_it(
    kind: str,
) -> None:
    """An offer refused before a later offer's approval: its request alone unsigned.

    :param kind: the call's entry when every offer was refused.
    """
    entry = ENTRIES[kind]()
    earlier = gas_refusal("0x" + "11" * 20, None, 100_000)  # refused before it
    later = with_approval(gas_refusal("0x" + "22" * 20, None, 100_000), _approved())
    said = refusals_said([earlier, later], entry)
    if not signed_parts(entry).anything:
        assert said == f"{earlier}; {later}"
        return
    whole = f"{said}; {nothing_sent_words(entry, said)}"
    assert said.count("its request not signed") == 2, said
    assert not any(words in whole for words in NOTHING), whole


class DepositMarket:  # pylint: disable=too-few-public-methods
    """A market whose approval is signed and sent, the deposit then refused."""

    requester = "0x" + "11" * 20
    address = "0x" + "84" * 20
    w3 = Web3()

    def __init__(self, refusal: Optional[UnsignedRefusal]) -> None:
        """Nothing sent yet.

        :param refusal: what signing the deposit raises (None: it is signed).
        """
        self.refusal = refusal
        self.sent: List[str] = []

    def chain_id(self) -> int:
        """The chain's id.

        :return: 1.
        """
        return 1

    def sign(self, transaction: Any) -> SignedRequest:
        """The approval signed; the deposit refused.

        :param transaction: the transaction.
        :return: the signed approval.
        :raises UnsignedRefusal: for the deposit (:attr:`refusal`'s words).
        """
        if transaction["to"] == Web3.to_checksum_address(TOKEN):
            return SignedRequest("0x02f8", APPROVAL_TX, 6)
        assert self.refusal is not None
        raise UnsignedRefusal(self.refusal.why, self.refusal.advice)

    def broadcast(self, signed: SignedRequest, wait: float) -> str:
        """Send it.

        :param signed: the transaction.
        :param wait: seconds.
        :return: its hash.
        """
        del wait
        self.sent.append(signed.tx_hash)
        return signed.tx_hash


class ApprovingFunds:  # pylint: disable=too-few-public-methods
    """The allowance short until the approval was sent."""

    def __init__(self, market: DepositMarket) -> None:
        """Read the market's sends.

        :param market: the stand-in market.
        """
        self.market = market

    def funds(self, payment_type: str) -> Funds:
        """The funds: allowance 0, then the amount once approved.

        :param payment_type: the deposit's.
        :return: the funds.
        """
        del payment_type
        allowance = 10**18 if self.market.sent else 0
        return Funds(TRACKER, TOKEN, 18, wallet=10**18, allowance=allowance, prepaid=0)


@pytest.mark.parametrize("refused", sorted(REFUSALS))
def test_a_deposit_refused_after_its_approval_names_the_approval(
    tmp_path: Path, refused: str
) -> None:
    """``prepay``'s deposit refused before signing: its approval named, not "nothing".

    :param tmp_path: the state folder.
    :param refused: the refusal.
    """
    market = DepositMarket(REFUSALS[refused]())
    prepayer = Prepayer(market, tmp_path)  # type: ignore[arg-type]
    prepayer.payer = ApprovingFunds(market)  # type: ignore[assignment]
    with pytest.raises(MarketError) as raised:
        prepayer.deposit(OLAS_PAYMENT, 10**17, None)
    text = str(raised.value)
    assert market.sent == [APPROVAL_TX]
    assert APPROVAL_TX in text and "the deposit itself was not signed" in text, text
    assert not any(words in text for words in NOTHING), text


@pytest.mark.parametrize(
    "record",
    [None, "not a record", {"status": "prepared", "tx_hash": ""}],
)
def test_an_offchain_call_with_no_deposit_made_says_nothing_signed(record: Any) -> None:
    """No automatic deposit made (none, malformed, prepared only): nothing signed.

    :param record: the call's ``extra["auto_prepay"]``.
    """
    carried = {} if record is None else {"auto_prepay": record}
    assert unposted_words(carried).startswith("nothing was signed nor posted")


def test_an_offchain_call_after_its_deposit_names_the_deposit() -> None:
    """Its automatic deposit made: named by hash, never "nothing was signed"."""
    deposit_tx = "0x" + "de" * 32
    words = unposted_words(
        {
            "auto_prepay": {
                "amount": "100",
                "tracker": TRACKER,
                "status": "deposited",
                "tx_hash": deposit_tx,
                "idempotency": "x",
            }
        }
    )
    assert deposit_tx in words and "never made twice" in words, words
    assert not any(nothing in words for nothing in NOTHING), words
