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

"""Outstanding off-chain requests: the nonces they hold and what they count (adv29d).

The decisions of :mod:`mech_catalogue_cli.mcp_server.outstanding` on hand-made holds,
and the journal round trip of a call's every signed request with the spending cap
(:class:`SpendLedger`, :func:`journal_records`) on a real journal folder. The devnet
tests (``tests/devnet/test_mcp_offchain_nonces.py``) run them against the marketplace.
"""

from pathlib import Path
from typing import Any, Dict, Optional

from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE
from mech_catalogue_cli.mcp_server.outstanding import (
    Hold,
    accepted_ahead_text,
    blocking_hold,
    counted_price,
    earlier_attempts,
    holds_of,
    mark_passed,
    next_nonce,
    not_accepted_text,
    onchain_blocker,
    remember_attempt,
    settle_on,
    stranding_text,
)
from mech_catalogue_cli.mcp_server.spend_cap import SpendLedger
from mech_catalogue_cli.mcp_server.spending import journal_records

KEY = "ab" * 32
OTHER = "cd" * 32
MECH = "0x" + "11" * 20
PRICE = 5 * 10**15


def signed(
    request_id: str, price: int, nonce: int = 3, accepted: bool = False
) -> JournalEntry:
    """An off-chain entry of the call ``KEY`` as the server writes it."""
    # :param request_id: its current request id.
    # :param price: its price.
    # :param nonce: its marketplace nonce.
    # :param accepted: whether its endpoint accepted it.
    # :return: the entry.
    offchain: Dict[str, Any] = {
        "endpoint": "http://127.0.0.1:8010",
        "signature": "0x" + "44" * 65,
        "accepted": accepted,
    }
    return JournalEntry(
        key=KEY,
        tool="prediction-online",
        mech=MECH,
        price=price,
        payment_type=NATIVE_PAYMENT_TYPE,
        cid="bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
        data="0x" + "22" * 32,
        market_nonce=nonce,
        request_id=request_id,
        from_block=10,
        status=CallStatus.SENT if accepted else CallStatus.PREPARED,
        paid_at=1000.0 if accepted else 0.0,
        extra={"offchain": offchain},
    )


def hold(nonce: int, accepted: bool, since: float = 0.0, key: str = OTHER) -> Hold:
    """A hold of another call."""
    # :param nonce: its nonce.
    # :param accepted: accepted by its endpoint.
    # :param since: when accepted.
    # :param key: its call key.
    # :return: the hold.
    return Hold(key, "0x" + f"{nonce:064x}", nonce, MECH, accepted, since, PRICE)


def test_no_request_is_signed_behind_an_accepted_one() -> None:
    """An accepted request at 5 blocks the next (fix29g); below the chain's nonce none."""
    holds = [hold(5, True, 1000.0), hold(7, True, 1000.0), hold(2, False)]
    blocking = blocking_hold(holds, 5, 1100.0, 300.0)
    assert blocking is not None and (blocking.nonce, blocking.accepted) == (5, True)
    # every one passed: the nonce is free
    assert blocking_hold(holds, 8, 1100.0, 300.0) is None
    assert next_nonce(holds, 8, 1100.0, 300.0) == 8
    assert next_nonce([], 4, 1100.0, 300.0) == 4
    text = accepted_ahead_text(blocking, 5, 300.0)
    assert "no request is signed behind it" in text and "300 s" in text
    assert "takes nonce 5" in text and OTHER[:16] in text
    assert "unix time 1300)" in text  # when it is given up: a date
    # its mech can still settle it before the other request is: said
    assert "unless its mech settles it before the other request is" in text


def test_no_request_is_signed_behind_one_its_mech_did_not_accept() -> None:
    """A refused request at 6 blocks; the sentence names its mech, nonce and call."""
    holds = [hold(6, False), hold(7, True, 1000.0)]
    blocking = blocking_hold(holds, 5, 1100.0, 300.0)
    assert blocking is not None and blocking.nonce == 6
    text = not_accepted_text(blocking, 5)
    assert f"mech {MECH} is outstanding at nonce 6" in text
    assert OTHER[:16] in text and "--offchain auto" in text


def test_an_on_chain_request_waits_for_an_accepted_request_not_given_up() -> None:
    """Accepted and within its bound blocks; given up, refused or passed do not."""
    window = 300.0
    assert onchain_blocker([hold(5, True, since=1000.0)], 5, 1100.0, window)
    assert onchain_blocker([hold(5, True, since=1000.0)], 5, 1301.0, window) is None
    assert onchain_blocker([hold(5, False)], 5, 1100.0, window) is None
    assert onchain_blocker([hold(4, True, since=1000.0)], 5, 1100.0, window) is None
    blocker = onchain_blocker([hold(6, True, since=1000.0)], 5, 1100.0, window)
    assert blocker is not None
    text = stranding_text(blocker, 5, window)
    assert "would take nonce 5" in text and "300 s" in text
    assert "unix time 1300)" in text  # when it no longer holds the nonce: a date


def test_a_resigned_call_keeps_every_id_and_counts_the_highest_price_once(
    tmp_path: Path,
) -> None:
    """Re-signed at the same nonce 1 wei lower: both ids kept, the call counts one price."""
    # Read back from the journal (the entry's nesting stays within what it accepts).
    journal = Journal(tmp_path)
    first = signed("0x" + "33" * 32, PRICE)
    journal.save(first)
    second = signed("0x" + "55" * 32, PRICE - 1, accepted=True)
    remember_attempt(second, first)
    journal.save(second)
    loaded = journal.load(KEY)
    assert loaded is not None
    assert list(earlier_attempts(loaded)) == [first.request_id]
    assert [h.request_id for h in holds_of(loaded)] == [
        second.request_id,
        first.request_id,
    ]
    assert counted_price(loaded) == PRICE
    (record,) = journal_records(journal.folder)
    assert record.price == PRICE and len(record.holds) == 2
    # the same request signed again (same price, same nonce) is not an earlier attempt
    again = signed(first.request_id, PRICE)
    remember_attempt(again, first)
    assert not earlier_attempts(again)


def test_the_settled_earlier_request_becomes_the_one_waited_for(
    tmp_path: Path,
) -> None:
    """The mech settled the first id: the entry waits for it, the other is passed."""
    journal = Journal(tmp_path)
    first = signed("0x" + "33" * 32, PRICE)
    second = signed("0x" + "55" * 32, PRICE - 1, accepted=True)
    second.from_block = 20
    remember_attempt(second, first)
    settle_on(second, first.request_id)
    journal.save(second)
    loaded = journal.load(KEY)
    assert loaded is not None
    assert (loaded.request_id, loaded.price, loaded.from_block) == (
        first.request_id,
        PRICE,
        10,
    )
    assert earlier_attempts(loaded)["0x" + "55" * 32]["passed"] is True
    assert [h.request_id for h in holds_of(loaded)] == [first.request_id]


def test_requests_whose_nonce_passed_count_nothing_in_the_journal_or_the_run(
    tmp_path: Path,
) -> None:
    """Marked passed: the journal counts 0, and so does the run once it releases them."""
    journal = Journal(tmp_path)
    first = signed("0x" + "33" * 32, PRICE)
    second = signed("0x" + "55" * 32, PRICE, accepted=True)
    remember_attempt(second, first)
    marked = mark_passed(second)
    assert {h.request_id for h in marked} == {first.request_id, second.request_id}
    second.status = CallStatus.PREPARED
    journal.save(second)
    (record,) = journal_records(journal.folder)
    assert record.price == 0 and not record.holds
    ledger = SpendLedger(max_spend=PRICE, window=3600.0)
    ledger.record(PRICE, second.request_id)
    ledger.release(second.request_id)
    ledger.count_journal(journal_records(journal.folder), 2000.0)
    assert (ledger.spent, ledger.earlier) == (0, 0)
    assert ledger.refusal(PRICE) is None


def test_a_released_current_request_still_counts_its_call_s_earlier_one(
    tmp_path: Path,
) -> None:
    """The cap's release of the current request leaves an earlier one of the call counted."""
    # the earlier request, at the same nonce, may be the one the mech settled: the
    # release (``offchain.release_unsettleable``) is about the current id only
    journal = Journal(tmp_path)
    first = signed("0x" + "33" * 32, PRICE)
    second = signed("0x" + "55" * 32, PRICE - 1)
    remember_attempt(second, first)
    second.extra["offchain"]["released"] = {"market_nonce": 4, "block": 99}
    journal.save(second)
    (record,) = journal_records(journal.folder)
    assert record.price == PRICE and record.unsettled_nonce == -1
    assert [h.request_id for h in record.holds] == [first.request_id]
    ledger = SpendLedger(max_spend=PRICE, window=3600.0)
    ledger.record(PRICE - 1, second.request_id)
    ledger.release(second.request_id)
    ledger.count_journal(journal_records(journal.folder), 2000.0)
    assert ledger.spent + ledger.earlier == PRICE


def test_a_refused_request_is_never_given_back_to_the_cap_while_outstanding(
    tmp_path: Path,
) -> None:
    """Counted by this run, then by the journal after a restart: one price either way."""
    # Found by adv29d: a retry refunded a refused request and the journal's count left
    # refunded ids out, so it was counted nowhere.
    journal = Journal(tmp_path)
    first = signed("0x" + "33" * 32, PRICE)
    journal.save(first)
    run = SpendLedger(max_spend=PRICE, window=3600.0)
    run.record(PRICE, first.request_id)
    run.count_journal(journal_records(journal.folder), 2000.0)
    assert run.refusal(1) is not None  # one price spent: nothing more fits
    later = SpendLedger(max_spend=PRICE, window=3600.0)  # a restart
    later.count_journal(journal_records(journal.folder), 2000.0)
    assert later.earlier == PRICE and later.refusal(1) is not None


def _ledger_after_resign(
    carried: Optional[JournalEntry], again: JournalEntry
) -> SpendLedger:
    """A ledger that re-signed the call (its first request counted by it or not)."""
    # :param carried: the call's first entry when this run signed it, else None.
    # :param again: the call's entry re-signed (its first request an earlier attempt).
    # :return: the ledger.
    ledger = SpendLedger(max_spend=2 * PRICE, window=3600.0)
    if carried:
        ledger.hold(carried.key, holds_of(carried))
    ledger.hold(again.key, holds_of(again))
    return ledger


def test_a_resigned_call_is_counted_once_by_the_run_and_the_journal(
    tmp_path: Path,
) -> None:
    """Same process or another one re-signs: the call counts one price in total."""
    journal = Journal(tmp_path)
    first = signed("0x" + "33" * 32, PRICE)
    second = signed("0x" + "55" * 32, PRICE - 1, accepted=True)
    remember_attempt(second, first)
    journal.save(second)
    for carried in (first, None):
        ledger = _ledger_after_resign(carried, second)
        ledger.count_journal(journal_records(journal.folder), 2000.0)
        assert ledger.spent + ledger.earlier == PRICE, carried
        assert ledger.refusal(PRICE) is None and ledger.refusal(PRICE + 1) is not None
