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

"""An accepted off-chain request its mech does not settle in time is given up (fix29i).

The bound (:func:`.outstanding.given_up`): the ``--timeout`` of the call that posted
the request, recorded in its entry (the server's own ``--timeout`` for an entry
without it), from its acceptance. Past it, other calls sign at its nonce or send on
chain; it still counts against ``--max-spend`` until its nonce passes, and a late
settlement is counted once (never doubled, never lost). Offer choice then tries its
mech after the tool's other offers (:mod:`mech_catalogue_cli.mcp_server.unsettled`).
Pure decisions on hand-made holds and real journal files; the sender's decisions under
the send lock run against the marketplace stand-in of ``tests/test_mcp_offchain_release.py`` (nonce and statuses
set by the test: a settlement at a chosen moment, between two of the server's reads,
which the devnet cannot be made to show on demand). The devnet run is
``tests/adversary/test_adv29g_offchain_one_acceptance_freezes_all.py``.
"""

# the sender's decisions and the listing helper are called directly
# pylint: disable=protected-access

import math
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

import anyio
import pytest
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import STATUS_DELIVERED
from mech_catalogue_cli.mcp_server.offchain import OffchainPoster, record_passed
from mech_catalogue_cli.mcp_server.offchain_sending import OffchainSending
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE, Offer
from mech_catalogue_cli.mcp_server.outstanding import (
    BOUND_KEY,
    PASSED_SEEN_KEY,
    HeldBehind,
    Hold,
    acceptances_of,
    blocking_hold,
    counted_price,
    earlier_attempts,
    give_up_text,
    given_up,
    holds_of,
    next_nonce,
    onchain_blocker,
    remember_attempt,
    stranding_text,
)
from mech_catalogue_cli.mcp_server.results import with_choice
from mech_catalogue_cli.mcp_server.settings import CallSettings
from mech_catalogue_cli.mcp_server.spend_cap import PaidRecord, SpendLedger
from mech_catalogue_cli.mcp_server.spending import JournalIndex, journal_records
from mech_catalogue_cli.mcp_server.unsettled import (
    given_up_mechs,
    tried_last,
    tried_last_meta,
)
from tests.test_mcp_offchain_journal import OFFCHAIN
from tests.test_mcp_offchain_journal import entry as offchain_entry
from tests.test_mcp_offchain_release import REQUESTER, Chain

PRICE = 5 * 10**15  # the price of tests.test_mcp_offchain_journal.entry
MECH = "0x" + "11" * 20  # the mech of tests.test_mcp_offchain_journal.entry
OTHER_MECH = "0x" + "99" * 20
ACCEPTED_AT = 1000.0
WINDOW = 3600.0


def hold(since: float, bound: float = 0.0, accepted: bool = True) -> Hold:
    """Another call's request at nonce 5, accepted at ``since``, with ``bound``."""
    # :param since: its acceptance, unix seconds.
    # :param bound: its recorded bound (0: none).
    # :param accepted: whether its endpoint accepted it.
    # :return: the hold.
    return Hold("cd" * 32, "0x" + "55" * 32, 5, MECH, accepted, since, PRICE, "", bound)


# --- the bound ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "bound, default, now, expected",
    [
        (30.0, 300.0, ACCEPTED_AT + 29.999, False),  # recorded: just before
        (30.0, 300.0, ACCEPTED_AT + 30.0, True),  # recorded: at the bound
        (0.0, 300.0, ACCEPTED_AT + 299.0, False),  # none: the server's --timeout
        (0.0, 300.0, ACCEPTED_AT + 300.0, True),
        (600.0, 5.0, ACCEPTED_AT + 100.0, False),  # recorded, longer than ours: kept
    ],
    ids=["before", "at", "default-before", "default-at", "recorded-longer"],
)
def test_an_accepted_request_is_given_up_at_its_bound(
    bound: float, default: float, now: float, expected: bool
) -> None:
    """The recorded bound wins; without one, the server's --timeout."""
    assert given_up(hold(ACCEPTED_AT, bound), now, default) is expected


@pytest.mark.parametrize(
    "since",
    [0.0, -5.0, math.nan, math.inf, ACCEPTED_AT + 10_000.0],
    ids=["unknown", "negative", "nan", "infinite", "future"],
)
def test_an_undatable_acceptance_never_keeps_the_nonce(since: float) -> None:
    """Unknown, malformed or future acceptance times: given up, never held for ever."""
    assert given_up(hold(since, 30.0), ACCEPTED_AT, 300.0)
    assert blocking_hold([hold(since, 30.0)], 5, ACCEPTED_AT, 300.0) is None


def test_a_request_its_endpoint_did_not_accept_is_never_given_up_here() -> None:
    """Its own call retries it at its nonce, or an on-chain request retires it."""
    refused = hold(ACCEPTED_AT, 1.0, accepted=False)
    assert not given_up(refused, ACCEPTED_AT + 10**6, 1.0)
    assert blocking_hold([refused], 5, ACCEPTED_AT + 10**6, 1.0) == refused
    assert next_nonce([refused], 5, ACCEPTED_AT + 10**6, 1.0) == 6


def test_past_its_bound_another_call_signs_at_its_nonce_or_goes_on_chain() -> None:
    """Within its bound it blocks both ways; after it, neither."""
    accepted = hold(ACCEPTED_AT, 30.0)
    within, after = ACCEPTED_AT + 10.0, ACCEPTED_AT + 31.0
    assert blocking_hold([accepted], 5, within, 300.0) == accepted
    assert onchain_blocker([accepted], 5, within, 300.0) == accepted
    assert next_nonce([accepted], 5, within, 300.0) == 6
    assert blocking_hold([accepted], 5, after, 300.0) is None
    assert onchain_blocker([accepted], 5, after, 300.0) is None
    # its nonce is free: the first of the two settled is charged, the other never
    assert next_nonce([accepted], 5, after, 300.0) == 5
    # one still within its bound behind it still blocks
    later = Hold("ef" * 32, "0x" + "66" * 32, 6, MECH, True, after - 1.0, PRICE)
    assert blocking_hold([accepted, later], 5, after, 300.0) == later


@pytest.mark.parametrize(
    "recorded",
    [30, 30.0, 0, -1, "30", True, math.nan, math.inf, None],
    ids=["int", "float", "zero", "negative", "text", "bool", "nan", "inf", "none"],
)
def test_the_bound_is_read_from_the_entry_and_a_malformed_one_ignored(
    recorded: Any,
) -> None:
    """Only a finite positive number is a bound; else the server's --timeout applies."""
    offchain: Dict[str, Any] = dict(OFFCHAIN, accepted=True)
    if recorded is not None:
        offchain[BOUND_KEY] = recorded
    written = offchain_entry(offchain)
    written.paid_at = ACCEPTED_AT
    (current,) = holds_of(written)
    valid = recorded in (30, 30.0)
    assert current.bound == (30.0 if valid else 0.0)
    assert given_up(current, ACCEPTED_AT + 31.0, 300.0) is valid


def test_an_earlier_attempt_keeps_its_bound(tmp_path: Path) -> None:
    """Re-signed, the earlier request keeps its bound; the journal round trip too."""
    first = offchain_entry(dict(OFFCHAIN, accepted=False, **{BOUND_KEY: 7.0}))
    first.status = CallStatus.PREPARED
    second = offchain_entry(dict(OFFCHAIN, accepted=False, **{BOUND_KEY: 9.0}))
    second.status, second.request_id = CallStatus.PREPARED, "0x" + "34" * 32
    remember_attempt(second, first)
    journal = Journal(tmp_path)
    journal.save(second)
    loaded = journal.load(second.key)
    assert loaded is not None
    assert earlier_attempts(loaded)[first.request_id][BOUND_KEY] == 7.0
    assert sorted(h.bound for h in holds_of(loaded)) == [7.0, 9.0]


# --- what the waiting call and the given-up call say ---------------------------------


def test_the_waiting_call_says_its_bound_in_seconds_and_unix_time() -> None:
    """The progress and the final sentence name the bound and when it ends."""
    accepted = hold(ACCEPTED_AT, 30.0)
    text = stranding_text(accepted, 5, 300.0)
    assert "after 30 s from its acceptance" in text and "unix time 1030)" in text
    assert "the --timeout of the call that posted it" in text
    unrecorded = stranding_text(hold(ACCEPTED_AT), 5, 300.0)
    assert "this server's --timeout; unix time 1300)" in unrecorded
    # sending.py wraps it so; the progress says the same bound
    from mech_catalogue_cli.mcp_server.outstanding import (  # noqa: E501 pylint: disable=import-outside-toplevel
        held_behind,
    )

    refusal = held_behind(text, accepted, 300.0)
    assert isinstance(refusal, HeldBehind)
    assert "at most until unix time 1030 (its bound: 30 s" in refusal.progress


def test_a_given_up_calls_timeout_says_what_its_mech_risks() -> None:
    """The timeout text: after the bound other calls take its nonce; late: charged once."""
    offchain = dict(OFFCHAIN, accepted=True, **{BOUND_KEY: 12.0})
    written = offchain_entry(offchain)
    written.paid_at = ACCEPTED_AT
    text = give_up_text(written, 300.0)
    assert "after 12 s from its acceptance (unix time 1012)" in text
    assert "may take nonce 3" in text and "charged once" in text
    del written.extra["offchain"][BOUND_KEY]
    assert "after 300 s from its acceptance (unix time 1300)" in give_up_text(
        written, 300.0
    )


# --- the sender, under the send lock (the marketplace stand-in) ----------------------


class _Sender(OffchainSending):
    """The off-chain half of the sender on a stand-in marketplace and a real journal."""

    def __init__(self, chain: Chain, journal: Journal, timeout: float) -> None:
        # :param chain: the stand-in marketplace.
        # :param journal: the journal.
        # :param timeout: the server's --timeout.
        self.market = chain  # type: ignore[assignment]
        self.journal = journal
        self.settings = CallSettings(
            "http://127.0.0.1:1", "http://127.0.0.1:1", timeout=timeout
        )  # no IPFS is read here
        self.ledger = SpendLedger(10 * PRICE, window=WINDOW)
        self.token_ledgers = {}
        self.offchain = OffchainPoster(chain, None)  # type: ignore[arg-type]
        self.auto_prepay = None
        self.lock = anyio.Lock()
        self.index = JournalIndex(journal.folder)


def _accepted(poster: OffchainPoster, key: str, bound: float) -> JournalEntry:
    """An accepted request at nonce 3 of this requester, accepted at ACCEPTED_AT."""
    # :param poster: the poster (its requester signs the id).
    # :param key: the call key.
    # :param bound: its recorded bound.
    # :return: the entry.
    written = offchain_entry(
        dict(OFFCHAIN, accepted=True, requester=REQUESTER, chain_id=100)
    )
    written.extra["offchain"][BOUND_KEY] = bound
    written.key = key
    written.request_id = poster.own_request_id(written)
    written.paid_at = ACCEPTED_AT
    return written


def _setup(tmp_path: Path, timeout: float) -> Tuple[Chain, _Sender, JournalEntry]:
    chain = Chain(50, {50: 3})
    sender = _Sender(chain, Journal(tmp_path), timeout)
    assert sender.offchain is not None
    held = _accepted(sender.offchain, "ab" * 32, 30.0)
    _save(sender, held)
    return chain, sender, held


def _records(sender: _Sender) -> List[PaidRecord]:
    assert sender.index is not None  # nosec
    return sender.index.records()


def _load(sender: _Sender, key: str) -> JournalEntry:
    assert sender.journal is not None  # nosec
    found = sender.journal.load(key)
    assert found is not None
    return found


def _again(sender: _Sender, key: str) -> Any:
    """The sender's decision on a call's journalled request, as a retry reads it."""
    # :param sender: the sender.
    # :param key: the call key.
    # :return: the entry to wait for, the sentence, or how to sign again.
    entry = _load(sender, key)

    async def decide() -> Any:
        return await sender._offchain_again(entry)

    return anyio.run(decide)


def _counted(sender: _Sender, chain_nonce: int) -> int:
    ledger = SpendLedger(max_spend=10 * PRICE, window=WINDOW)
    ledger.count_journal(_records(sender), time.time(), chain_nonce)
    return ledger.earlier


def _save(sender: _Sender, entry: JournalEntry) -> None:
    assert sender.journal is not None  # nosec
    sender.journal.save(entry)


def _record_passed(sender: _Sender) -> None:
    assert sender.offchain is not None and sender.journal is not None  # nosec
    record_passed(sender.offchain, sender.journal, _records(sender))


def test_another_call_waits_within_the_bound_and_goes_after_it(
    tmp_path: Path,
) -> None:
    """A's request accepted long ago (bound 30 s): B's call is not held by it."""
    _, sender, held = _setup(tmp_path, timeout=3600.0)
    others = sender.own_holds(_records(sender))
    # past the bound (accepted at unix 1000): the nonce is free both ways
    assert anyio.run(sender._offchain_nonce, others, None, True) == 3
    assert anyio.run(sender._onchain_stranding, _records(sender)) == ""
    # the same request accepted just now is waited for, its bound said
    held.paid_at = time.time()
    _save(sender, held)
    others = sender.own_holds(_records(sender))
    waited = anyio.run(sender._offchain_nonce, others, None, True)
    assert isinstance(waited, HeldBehind) and "after 30 s from its acceptance" in waited
    stranded = anyio.run(sender._onchain_stranding, _records(sender))
    assert isinstance(stranded, HeldBehind) and "at most until unix time" in (
        stranded.progress
    )


@pytest.mark.parametrize("settled_before_next", [True, False])
def test_a_late_settlement_is_counted_once_and_its_answer_returned(
    tmp_path: Path, settled_before_next: bool
) -> None:
    """Given up, then settled (before or after the next request is signed): once."""
    chain, sender, held = _setup(tmp_path, timeout=5.0)
    assert _counted(sender, 3) == PRICE  # given up, still counted: it may be charged
    if settled_before_next:
        chain.statuses[held.request_id] = STATUS_DELIVERED
        chain.nonces[50] = 4
    # the next call's request: at the given-up nonce (or the next when settled)
    others = sender.own_holds(_records(sender))
    nonce = anyio.run(sender._offchain_nonce, others, None, True)
    assert nonce == (4 if settled_before_next else 3)
    poster = sender.offchain
    assert poster is not None and isinstance(nonce, int)
    nxt = _accepted(poster, "ef" * 32, 30.0)
    nxt.market_nonce = nonce
    nxt.data = "0x" + "23" * 32  # another call's payload: another id
    nxt.request_id = poster.own_request_id(nxt)
    assert nxt.request_id != held.request_id
    nxt.paid_at = time.time()
    _save(sender, nxt)
    if not settled_before_next:  # A's mech wins the race at nonce 3
        chain.statuses[held.request_id] = STATUS_DELIVERED
        chain.nonces[50] = 4
    # both count until their passing is seen
    assert _counted(sender, 4) == 2 * PRICE
    _record_passed(sender)
    # A settled: counted once; the next one at nonce 4 may still be settled (counted),
    # at nonce 3 (the race lost) the chain showed it never can be: nothing
    assert _counted(sender, 4) == (2 if settled_before_next else 1) * PRICE
    # A's call again: its answer is read, whatever the bound said
    again = _again(sender, held.key)
    assert isinstance(again, JournalEntry) and again.request_id == held.request_id
    if not settled_before_next:  # the loser's call says so and signs anew next time
        lost = _again(sender, nxt.key)
        assert (
            isinstance(lost, str) and "given up" in lost and "nothing is paid" in lost
        )
        assert _counted(sender, 4) == PRICE  # still once, never doubled


def test_a_given_up_request_another_request_passed_says_so_and_signs_anew(
    tmp_path: Path,
) -> None:
    """Never settled, its nonce taken: called again it says so; nothing is charged."""
    chain, sender, held = _setup(tmp_path, timeout=5.0)
    # its mech may still settle it while nobody took the nonce: its call waits
    waiting = _again(sender, held.key)
    assert isinstance(waiting, JournalEntry) and waiting.status == CallStatus.SENT
    chain.nonces[50] = 4  # another call's request took nonce 3
    said = _again(sender, held.key)
    assert isinstance(said, str)
    assert "given up" in said and "can never be settled nor charged" in said
    assert "Call again with the same arguments to sign a new request" in said
    written = _load(sender, held.key)
    assert written.status == CallStatus.PREPARED
    assert counted_price(written) == 0
    _record_passed(sender)
    assert _counted(sender, 4) == 0
    # called again: a new request (its retry is signed at a free nonce)
    retry = _again(sender, held.key)
    assert not isinstance(retry, (str, JournalEntry)) and retry.nonce is None


# --- offer choice --------------------------------------------------------------------


def _offer(address: str, key: str) -> Offer:
    return Offer(
        mech_key=key,
        address=address,
        price=PRICE,
        payment_type=NATIVE_PAYMENT_TYPE,
        requests=None,
        deliveries=None,
        karma=None,
        confirmed=True,
    )


def _record(*acceptances: Hold) -> PaidRecord:
    return PaidRecord("0x" + "55" * 32, PRICE, ACCEPTED_AT, acceptances=acceptances)


def test_a_mech_whose_acceptance_was_given_up_is_tried_after_the_others() -> None:
    """Moved after the other offers, order otherwise kept, and said why."""
    hostile, first, second = (
        _offer(MECH, "hostile"),
        _offer("0x" + "22" * 20, "a"),
        _offer("0x" + "33" * 20, "b"),
    )
    remembered = given_up_mechs(
        [_record(hold(ACCEPTED_AT, 30.0))], ACCEPTED_AT + 60.0, 300.0, WINDOW
    )
    assert set(remembered) == {MECH.lower()}
    order, why = tried_last([hostile, first, second], remembered, 300.0)
    assert order == [first, second, hostile]
    assert set(why) == {MECH} and "did not settle it within its bound of 30 s" in (
        why[MECH]
    )
    # pinned (its only offer): still tried
    assert tried_last([hostile], remembered, 300.0)[0] == [hostile]
    (listed,) = tried_last_meta([first, hostile], remembered, 300.0)
    assert listed["address"] == MECH and listed["mech"] == "hostile"


@pytest.mark.parametrize(
    "acceptance, now",
    [
        (hold(ACCEPTED_AT, 30.0), ACCEPTED_AT + 10.0),  # within its bound
        (hold(ACCEPTED_AT, 30.0), ACCEPTED_AT + WINDOW + 1.0),  # remembered no more
        (hold(ACCEPTED_AT + 500.0, 30.0), ACCEPTED_AT),  # a future acceptance
        (hold(0.0, 30.0), ACCEPTED_AT),  # undated
    ],
    ids=["within-bound", "past-period", "future", "undated"],
)
def test_an_acceptance_within_its_bound_or_outside_the_period_moves_nothing(
    acceptance: Hold, now: float
) -> None:
    """Only a dated acceptance past its bound, within the period, is remembered."""
    assert not given_up_mechs([_record(acceptance)], now, 300.0, WINDOW)


def test_what_offer_choice_remembers_from_the_journal() -> None:
    """A delivered call, or one whose settlement was seen, is not held against its mech."""
    offchain = dict(OFFCHAIN, accepted=True, **{BOUND_KEY: 5.0})
    sent = offchain_entry(offchain)
    sent.paid_at = ACCEPTED_AT
    (current,) = acceptances_of(sent)
    assert (current.mech, current.bound, current.since) == (MECH, 5.0, ACCEPTED_AT)
    delivered = offchain_entry(dict(offchain), status=CallStatus.DELIVERED)
    assert not acceptances_of(delivered)
    seen = offchain_entry(
        dict(offchain, **{PASSED_SEEN_KEY: {"at": 1.0, "settled": True}})
    )
    assert not acceptances_of(seen)
    refused = offchain_entry(dict(OFFCHAIN, accepted=False))
    assert not acceptances_of(refused)
    # a passed one (its call found the nonce past it, unsettled) is remembered
    passed = offchain_entry(dict(offchain, passed=True), status=CallStatus.PREPARED)
    passed.paid_at = ACCEPTED_AT
    assert [h.request_id for h in acceptances_of(passed)] == [passed.request_id]


def test_the_result_says_which_offers_went_last(tmp_path: Path) -> None:
    """The call's _meta choice lists them and its why says so."""
    import mcp_types as types  # pylint: disable=import-outside-toplevel

    from mech_catalogue_cli.mcp_server.results import (  # pylint: disable=import-outside-toplevel
        REQUEST_META_KEY,
    )

    paid = _offer("0x" + "22" * 20, "a")
    result = types.CallToolResult(content=[], _meta={REQUEST_META_KEY: {}})
    out = with_choice(result, paid, [paid], ("", ()), {MECH: "its endpoint accepted"})
    choice: Dict[str, Any] = out.meta[REQUEST_META_KEY]["choice"]  # type: ignore[index]
    assert choice["tried_last"] == [{"address": MECH, "why": "its endpoint accepted"}]
    assert f"mech {MECH} is tried after the others" in choice["why"]
    plain = with_choice(
        types.CallToolResult(content=[], _meta={REQUEST_META_KEY: {}}),
        paid,
        [paid],
        ("", ()),
    )
    assert plain.meta[REQUEST_META_KEY]["choice"]["tried_last"] == []  # type: ignore[index]
    assert tmp_path.exists()


def test_journal_records_carry_acceptances(tmp_path: Path) -> None:
    """The index reads them from the journal (what offer choice remembers)."""
    journal = Journal(tmp_path)
    written = offchain_entry(dict(OFFCHAIN, accepted=True, **{BOUND_KEY: 5.0}))
    written.paid_at = ACCEPTED_AT
    journal.save(written)
    (record,) = journal_records(journal.folder)
    remembered: List[str] = list(
        given_up_mechs([record], ACCEPTED_AT + 6.0, 300.0, WINDOW)
    )
    assert remembered == [MECH.lower()]
    assert not given_up_mechs([record], ACCEPTED_AT + 4.0, 300.0, WINDOW)


def test_tools_list_says_which_offers_a_call_tries_last() -> None:
    """The listed tool's _meta names them; a tool without one is listed as served."""
    from types import SimpleNamespace  # pylint: disable=import-outside-toplevel

    from mech_catalogue_cli.mcp_server.server import (  # pylint: disable=import-outside-toplevel
        MechToolServer,
    )
    from mech_catalogue_cli.mcp_server.source import (  # pylint: disable=import-outside-toplevel
        META_KEY,
        ServedTool,
    )

    hostile, other = _offer(MECH, "hostile"), _offer("0x" + "22" * 20, "a")
    served: Dict[str, Any] = {"name": "t", "_meta": {META_KEY: {"offers": []}}}
    from mech_catalogue_cli.mcp_server.refused_offers import (  # pylint: disable=import-outside-toplevel
        RevertingMechs,
    )

    server = SimpleNamespace(
        settings=SimpleNamespace(timeout=300.0), reverting=RevertingMechs()
    )
    remembered = {MECH.lower(): hold(ACCEPTED_AT, 30.0)}
    listed = MechToolServer._with_tried_last(
        server, ServedTool("t", "t", served, (other, hostile)), remembered  # type: ignore[arg-type]
    )
    (last,) = listed["_meta"][META_KEY]["tried_last"]
    assert last["address"] == MECH and "within its bound of 30 s" in last["why"]
    assert "tried_last" not in served["_meta"][META_KEY]  # the served tool unchanged
    plain = ServedTool("t", "t", served, (other,))
    assert MechToolServer._with_tried_last(server, plain, remembered) is served  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "seen, settled, deposit, expected",
    [
        (-0.5, False, 0, 0),  # the chain showed it never settled: nothing
        (-0.5, False, PRICE // 2, PRICE // 2),  # only its call's deposit
        (-0.5, True, 0, PRICE),  # settled: counted within the window from then
        (None, False, 0, PRICE),  # its passing not seen yet: counted
        (100.0, False, 0, PRICE),  # a time from the future: read as not seen
    ],
    ids=["never-settled", "deposit", "settled", "unseen", "future"],
)
def test_a_recent_request_the_chain_showed_never_settled_counts_nothing(
    seen: Any, settled: bool, deposit: int, expected: int
) -> None:
    """A given-up request whose nonce the next call took is not a second price."""
    now = time.time()
    record = PaidRecord(
        "0x" + "55" * 32,
        PRICE,
        now - 1.0,  # within the window
        key="ab" * 32,
        holds=(hold(now - 1.0, 5.0),),
        passed_seen_at=None if seen is None else now + seen,
        passed_settled=settled,
        deposit=deposit,
    )
    ledger = SpendLedger(max_spend=10 * PRICE, window=WINDOW)
    ledger.count_journal([record], now, 6)
    assert ledger.earlier == expected


def test_tools_list_never_waits_for_the_journals_first_read(tmp_path: Path) -> None:
    """Unread: the listing says nothing (a call reads it); read once: it says so."""
    from types import SimpleNamespace  # pylint: disable=import-outside-toplevel

    from mech_catalogue_cli.mcp_server.server import (  # pylint: disable=import-outside-toplevel
        MechToolServer,
        read_journal_in_background,
    )

    journal = Journal(tmp_path)
    written = offchain_entry(dict(OFFCHAIN, accepted=True, **{BOUND_KEY: 5.0}))
    written.paid_at = time.time() - 60.0
    journal.save(written)
    index = JournalIndex(journal.folder)
    server = SimpleNamespace(
        sender=SimpleNamespace(index=index),
        settings=SimpleNamespace(timeout=300.0, spend_window=WINDOW),
    )

    def remembered(listing: bool) -> Any:
        async def read() -> Any:
            return await MechToolServer._given_up_mechs(
                server, listing  # type: ignore[arg-type]
            )

        return anyio.run(read)

    assert not remembered(True) and not index.has_read
    assert list(remembered(False)) == [MECH.lower()]  # a call reads it
    fresh = JournalIndex(journal.folder)
    server.sender.index = fresh
    read_journal_in_background(fresh)  # at start
    for thread in threading.enumerate():
        if thread.name == "journal first read":
            thread.join(timeout=30)  # a bound, not a timing: the read is milliseconds
    assert list(remembered(True)) == [MECH.lower()]


# --- the call's choice learns what passed first (adv29l) ----------------------------


def _server(sender: _Sender) -> Any:
    from types import SimpleNamespace  # pylint: disable=import-outside-toplevel

    return SimpleNamespace(
        sender=sender, settings=SimpleNamespace(timeout=5.0, spend_window=WINDOW)
    )


def _for_call(server: Any, paying: bool = True) -> List[str]:
    from mech_catalogue_cli.mcp_server.server import (  # pylint: disable=import-outside-toplevel
        MechToolServer,
    )

    async def choose() -> Any:
        server._given_up_mechs = lambda listing=False: MechToolServer._given_up_mechs(
            server, listing
        )
        return await MechToolServer._given_up_for_call(server, paying)

    return list(anyio.run(choose))


def _interrupted(tmp_path: Path) -> Tuple[Chain, _Sender, JournalEntry]:
    """A call's request accepted 100 s ago (bound 30 s), its answer never read."""
    chain = Chain(50, {50: 3})
    sender = _Sender(chain, Journal(tmp_path), timeout=5.0)
    assert sender.offchain is not None
    held = _accepted(sender.offchain, "ab" * 32, 30.0)
    held.paid_at = time.time() - 100.0  # within the window, past its bound
    _save(sender, held)
    return chain, sender, held


def test_a_settled_request_whose_answer_was_not_read_does_not_put_its_mech_last(
    tmp_path: Path,
) -> None:
    """adv29l: the chain's settlement is recorded before the call chooses who goes last.

    Unit level (the marketplace stand-in: a settlement whose answer the server never
    read, which the devnet shows only by killing a call at the right moment). Before
    the fix the choice read the journal as it was: the honest mech went last, in the
    call and in every ``tools/list`` after.

    :param tmp_path: the state folder.
    """
    chain, sender, held = _interrupted(tmp_path)
    server = _server(sender)
    assert list(given_up_mechs(_records(sender), time.time(), 5.0, WINDOW)) == [
        MECH.lower()
    ]  # what the journal alone says: stale
    chain.statuses[held.request_id] = STATUS_DELIVERED  # its mech settled it
    chain.nonces[50] = 4
    assert not _for_call(server)
    seen = _load(sender, held.key).extra["offchain"][PASSED_SEEN_KEY]
    assert seen["settled"] is True  # recorded: tools/list reads it too
    assert not given_up_mechs(_records(sender), time.time(), 5.0, WINDOW)


def test_a_mech_that_never_settled_stays_last_after_the_record(tmp_path: Path) -> None:
    """The nonce passed by another request, this one never settled: still last.

    :param tmp_path: the state folder.
    """
    chain, sender, held = _interrupted(tmp_path)
    chain.nonces[50] = 4  # passed; its request does not exist on chain
    assert _for_call(_server(sender)) == [MECH.lower()]
    assert (
        _load(sender, held.key).extra["offchain"][PASSED_SEEN_KEY]["settled"] is False
    )
    assert _for_call(_server(sender)) == [MECH.lower()]  # recorded once, still last


def test_an_unreadable_chain_or_a_dry_run_leaves_the_journal_as_it_is(
    tmp_path: Path,
) -> None:
    """No chain: nothing recorded, the call goes on; a dry run reads no chain.

    :param tmp_path: the state folder.
    """
    chain, sender, held = _interrupted(tmp_path)
    chain.statuses[held.request_id] = STATUS_DELIVERED
    chain.nonces[50] = 4
    assert _for_call(_server(sender), paying=False) == [MECH.lower()]
    chain.fail = True
    assert _for_call(_server(sender)) == [MECH.lower()]
    assert PASSED_SEEN_KEY not in _load(sender, held.key).extra["offchain"]
    chain.fail = False
    assert not _for_call(_server(sender))


@pytest.mark.parametrize("seed", range(40))
def test_the_settled_index_decides_as_comparing_every_pair(seed: int) -> None:
    """Random journals (few nonces, owners, keys, times): the same mechs, same holds.

    The baseline is the pairwise check before adv29l
    (``scripts/bench_tried_last.pairwise_given_up_mechs``).

    :param seed: the journal's seed.
    """
    import random  # pylint: disable=import-outside-toplevel

    from scripts.bench_tried_last import (  # pylint: disable=import-outside-toplevel
        pairwise_given_up_mechs,
    )

    rng = random.Random(seed)
    now = 10_000.0
    owners = ["", "100:0xaa", "100:0xbb", "1:0xaa"]
    keys = [f"{number:064x}" for number in range(6)]
    mechs = ["0x" + byte * 20 for byte in ("11", "22", "33")]

    def random_hold() -> Hold:
        return Hold(
            rng.choice(keys),
            "0x" + f"{rng.randrange(10**6):064x}",
            rng.randrange(4),
            rng.choice(mechs),
            True,
            rng.choice([0.0, now - 7_000.0, now - 300.0, now - 50.0, now - 5.0]),
            PRICE,
            rng.choice(owners),
            rng.choice([0.0, 10.0, 100.0]),
        )

    records = [
        PaidRecord(
            "0x" + "55" * 32,
            PRICE,
            now,
            asset="native",
            key=rng.choice(keys),
            passed_seen_at=rng.choice([None, now - 280.0, now - 1.0]),
            acceptances=tuple(random_hold() for _ in range(rng.randrange(3))),
            settled=tuple(random_hold() for _ in range(rng.randrange(4))),
        )
        for _ in range(rng.randrange(1, 12))
    ]
    assert given_up_mechs(records, now, 60.0, WINDOW) == pairwise_given_up_mechs(
        records, now, 60.0, WINDOW
    )
