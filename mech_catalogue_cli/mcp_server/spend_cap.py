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

"""The spending cap: what was paid within ``--spend-window``, against ``--max-spend``.

One :class:`SpendLedger` per payment asset (native, OLAS, USDC: ``--max-spend
olas=5e18``) counts this run's requests as they are sent and the journal's requests of
earlier or other runs in that asset (:class:`PaidRecord`, read by :mod:`.spending`), so
a restart does not reset any asset's cap. Amounts are integers in the asset's smallest
unit (wei for native and OLAS, 1e-6 USDC for USDC) and are said in whole units too
(``model.payment.format_amount``). No I/O.
"""

import math
import time
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from mech_catalogue_core.model.payment import ASSET_NATIVE, say_amount

from .mined_reverts import MinedRevert
from .outstanding import Hold

#: ``--spend-window`` by default: what ``--max-spend`` caps is the spending of the last
#: 24 hours, across restarts of the server on the same ``--state-dir``
DEFAULT_SPEND_WINDOW_SECONDS = 24 * 3600.0


@dataclass(frozen=True)
class PaidRecord:  # pylint: disable=too-many-instance-attributes  # one per entry field
    """One journalled request, as the spending cap reads it.

    :param request_id: 0x + 64 hex ("" for an entry that could not be read).
    :param price: paid, in the smallest unit of ``asset`` (0 for an unreadable entry).
    :param written_at: unix seconds the request was paid (the entry's ``paid_at``; its
        file's mtime for entries older than that field).
    :param problem: why the entry could not be read ("" when it was); such an entry
        counts against every asset's cap, since its asset is unknown too.
    :param asset: ``model.payment.ASSETS`` key of the entry's payment type ("" for an
        unreadable entry or an unknown type).
    :param key: the entry's call key ("" when unknown).
    :param unsettled_nonce: for an off-chain request its mech did not accept (and whose
        release the chain has not shown yet), the requester's marketplace nonce it was
        signed at: it counts while the mech may still settle it (``offchain.py``,
        :func:`.offchain.release_unsettleable`); -1 for every other entry.
    :param holds: the entry's off-chain requests that may still be settled
        (:func:`.outstanding.holds_of`; empty for an on-chain call): the nonces they
        hold, whatever their window.
    :param passed_seen_at: unix seconds this server first saw the requester's nonce
        past the entry's off-chain request (:func:`.outstanding.passed_seen`; None: not
        seen yet).
    :param passed_settled: whether the chain showed it settled then (False: none of
        its requests can ever be settled, nor charged).
    :param deposit: what the call's automatic deposit counts (``--auto-prepay``;
        0: none), smallest units: spent whether or not a request is ever settled.
    :param acceptances: the entry's requests its mech's endpoint accepted and that
        are not known settled (:func:`.outstanding.acceptances_of`: what offer choice
        remembers, ``.unsettled``); they count nothing more here.
    :param settled: when the chain showed one of the entry's requests settled (or its
        answer was read), its requests (``.unsettled.settled_requests``): one of them
        took its nonce, which no other request can then be blamed for not settling.
    :param reverted: the mined reverts the entry records, its call's requests'
        (:func:`.mined_reverts.mined_reverts`): their mechs are sent nothing more
        within the window, by any process (``.refused_offers.journalled_reverts``).
    :param reverted_in: for an entry whose own request was mined and reverted and is
        not seen final yet, the block it was mined in (0: not read): it counts its
        price until :func:`.mined_reverts.release_final_reverts` sees it final (a
        reorg may mine it paid until then); None for every other entry.
    :param owner: whose request the entry holds (``unmined.owner_of_entry``: the
        requester and chain id; "": not said, counted by every server).
    :param unmined_nonce: for an on-chain request signed whose fate the journal does
        not record (mined, or its nonce taken), its account nonce: it counts its
        price whatever its age, since it may still be mined (adv29zp C4); -1 for every
        other entry.
    """

    request_id: str
    price: int
    written_at: float
    problem: str = ""
    asset: str = ASSET_NATIVE
    key: str = ""
    unsettled_nonce: int = -1
    holds: Tuple[Hold, ...] = ()
    passed_seen_at: Optional[float] = None
    passed_settled: bool = True
    deposit: int = 0
    acceptances: Tuple[Hold, ...] = ()
    settled: Tuple[Hold, ...] = ()
    reverted: Tuple[MinedRevert, ...] = ()
    reverted_in: Optional[int] = None
    owner: str = ""
    unmined_nonce: int = -1

    def held_by(self, owner: str) -> bool:
        """Whether this is ``owner``'s entry (not said: yes, the safe reading).

        :param owner: ``outstanding.owner_text`` of a requester and chain ("": any).
        :return: True when the entry is ``owner``'s (its requester's, when it does
            not say the chain), or either is unknown.
        """
        if not self.owner or not owner:
            return True
        if "@" not in self.owner:  # signed where the chain id was not known
            return owner.startswith(self.owner + "@")
        return self.owner == owner


def seen_at(record: PaidRecord, now: float) -> Optional[float]:
    """When the server saw the record's request passed, as the cap believes it (pure).

    :param record: a journal record.
    :param now: unix seconds.
    :return: :attr:`PaidRecord.passed_seen_at`; None when not recorded or later than
        ``now`` (a forged or skewed time: read as not seen, so it counts now and is
        recorded again at now, never held off for ever).
    """
    seen = record.passed_seen_at
    return None if seen is None or seen > now else seen


def passed_unseen(records: Sequence[PaidRecord], now: float) -> List[PaidRecord]:
    """The records whose requests' passing the server has still to record (pure).

    :param records: the journal's records.
    :param now: unix seconds.
    :return: readable records holding off-chain requests with no time their nonce was
        seen passed (:func:`seen_at`), for :func:`.offchain.record_passed`.
    """
    return [
        record
        for record in records
        if record.holds
        and record.key
        and not record.problem
        and seen_at(record, now) is None
    ]


def _held_price(
    record: PaidRecord, chain_nonce: Optional[int], owner: str, unseen: bool
) -> int:
    """What a record older than the window counts: its requests that may be charged.

    :param record: a journal record.
    :param chain_nonce: ``mapNonces(requester)`` now (None: unread).
    :param owner: whose nonce ``chain_nonce`` is (:func:`.outstanding.owner_text`).
    :param unseen: the server has not recorded when it saw the nonce pass the
        record's requests: one whose nonce passed may have been settled (charged) a
        moment ago, so it counts too.
    :return: the highest price of its holds at ``chain_nonce`` or later (every hold
        when None or ``unseen``, and every hold of another requester or chain: its
        nonce is not read), smallest units; 0 when none.
    """
    return max(
        (
            hold.price
            for hold in record.holds
            if chain_nonce is None
            or unseen
            or not hold.held_by(owner)
            or hold.nonce >= chain_nonce
        ),
        default=0,
    )


def _counted(
    record: PaidRecord,
    since: float,
    now: float,
    chain_nonce: Optional[int],
    owner: str,
) -> int:
    """What one record counts in the window from ``since`` (pure).

    :param record: a readable journal record of the ledger's asset.
    :param since: the window's start, unix seconds.
    :param now: unix seconds.
    :param chain_nonce: ``mapNonces(requester)`` now (None: unread).
    :param owner: whose nonce ``chain_nonce`` is.
    :return: smallest units.
    """
    seen = seen_at(record, now)
    if seen is not None and not record.passed_settled:
        # the chain showed none of its requests settled once the nonce passed them:
        # none ever can be (a request given up and its nonce taken, fix29i); only its
        # call's deposit was spent
        return record.deposit
    if record.written_at >= since or (
        seen is not None and record.passed_settled and seen >= since
    ):
        return record.price  # paid, or seen settled, within the window
    if record.unmined_nonce >= 0:
        return record.price  # signed, not known mined: it may be mined at any time
    return _held_price(record, chain_nonce, owner, seen is None)


#: stands for a run call's missing journal record when sorting
_NO_RECORD = PaidRecord("", 0, 0.0)


def _entry(record: PaidRecord) -> Tuple[str, str]:
    """Which journal entry a record is: (call key, request id)."""
    return record.key, record.request_id


@dataclass
class _RunCall:
    """One call of this run as the cap counts it (a group of its requests).

    :param live: its requests that may still be charged: request id -> price, smallest
        units (an on-chain request, or an off-chain one not shown unsettleable).
    :param settled: the off-chain request the chain showed settled ("" when none).
    :param deposit: the call's automatic deposit (``--auto-prepay``), smallest units.
    :param key: its call key ("" when not told: an on-chain request counted by id).
    :param at: unix seconds it was last counted (a request signed, a deposit made).
    :param journalled: what its journal entry counted at the last journal read
        (:meth:`SpendLedger.count_journal`), smallest units; None when it has been
        counted again since, or not read yet: then the run's own count stands.
    """

    live: Dict[str, int] = field(default_factory=dict)
    settled: str = ""
    deposit: int = 0
    key: str = ""
    at: float = field(default_factory=time.time)
    journalled: Optional[int] = None

    def counted(self) -> int:
        """What the call counts: its journal entry's count when read since, else its own.

        :return: :attr:`journalled` when set; else the highest price of its live
            requests (they hold one nonce, so at most one is ever settled), at least
            its deposit; smallest units.
        """
        if self.journalled is not None:
            return self.journalled
        return max(max(self.live.values(), default=0), self.deposit)

    def counted_again(self) -> None:
        """The call signed a request or made a deposit: its own count stands, dated now."""
        self.at = time.time()
        self.journalled = None


@dataclass
class SpendLedger:
    """What was paid within ``--spend-window``, against ``--max-spend``.

    This run's requests are counted as they are sent (:meth:`record`, :meth:`hold`),
    then, at each journal read, by their journal entries (:meth:`count_journal`), as
    every process reads them (adv29yq); requests that earlier or other server
    processes journalled in the same ``--state-dir`` are counted from the journal too,
    so a restart does not reset the cap.

    This run counts **per request**, grouped by call (adversarial review adv29i): each
    request that may still be charged counts until the chain shows it settled (then
    the call counts it alone, :meth:`settle`) or never settleable (:meth:`release`,
    which drops that request only); a call counts the highest of its requests, at least
    its deposit, as its journal entry does (``spending.read_record``), so this ledger
    and a window's journal count give the same answer for the same history.

    :param max_spend: the cap, smallest units of ``asset`` (None: no cap).
    :param window: seconds of spending the cap covers (None: this run only).
    :param earlier: paid by the journal's requests of ``asset`` within the window that
        are not this run's calls'.
    :param earlier_requests: how many requests those are.
    :param unreadable: why a journal entry within the window could not be read ("":
        none); nothing is paid while one stays, since its price is unknown.
    :param refunded: this run's requests that can never be paid: mined and reverted,
        once final (their journal entries stay, and are not counted; an entry whose
        revert was seen final by any process counts nothing,
        ``spending.read_record``). Off-chain requests that can never be settled are not
        refunded but released (:meth:`release`).
    :param asset: the ``model.payment.ASSETS`` key this ledger counts (``native``,
        ``olas``, ``usdc``): journal records of other assets are not counted.
    """

    max_spend: Optional[int] = None
    window: Optional[float] = DEFAULT_SPEND_WINDOW_SECONDS
    earlier: int = 0
    earlier_requests: int = 0
    unreadable: str = ""
    refunded: List[str] = field(default_factory=list)
    asset: str = ASSET_NATIVE
    #: this run's calls, by call key (an on-chain request: by its own id)
    _calls: Dict[str, _RunCall] = field(default_factory=dict, init=False, repr=False)
    #: the call of every request this run counted, live or released
    _call_of: Dict[str, str] = field(default_factory=dict, init=False, repr=False)

    @property
    def spent(self) -> int:
        """Paid by this run: the sum of what each of its calls counts, smallest units."""
        return sum(call.counted() for call in self._calls.values())

    @property
    def requests(self) -> List[str]:
        """This run's request ids that may still be charged, in the order counted.

        :return: the live requests of the calls that count something (a call its
            journal entry counts nothing, e.g. its revert final, is left out).
        """
        return [
            rid for call in self._calls.values() if call.counted() for rid in call.live
        ]

    def count_journal(
        self,
        records: Sequence[PaidRecord],
        now: float,
        chain_nonce: Optional[int] = None,
        owner: str = "",
    ) -> None:
        """Count the journal's requests of this asset within the window, except this run's.

        An off-chain request older than the window still counts while it is outstanding
        (its nonce not passed: the mech may still settle it, and the marketplace then
        charges it, whatever its age): the highest price of the record's
        :attr:`PaidRecord.holds` at ``chain_nonce`` or later. Once its nonce passed, it
        may have been settled, and charged, at any moment since, which this server does
        not see: it counts until the server recorded when it saw the nonce passed
        (:attr:`PaidRecord.passed_seen_at`, at or after the settlement), then within the
        window from that time when the chain showed it settled; when it showed it can
        never be, only its call's deposit, however recent (fix29i: a request given up
        and its nonce taken by the next call counted a second price until its own call
        was called again).

        This run's calls are counted by their journal entries too (adv29yq), the one
        source every process shares: a call whose entry is found (by its call key, or
        by a request id it counted) counts what that entry counts, by the same window
        rule, in place of the run's own count. So a request another process saw never
        paid (its revert final, its nonce taken, its off-chain request unsettleable:
        the entry says so) stops counting here too (C2), and this run's spending leaves
        the window as a restart's would (W1). A call whose entry is not found (moved
        away) counts its own count while it was counted within the window, then
        nothing, as a restart would count it. A request :meth:`refund` took back
        counts nothing. The run counts a call again from its own count as soon as it
        signs a request or deposits (:meth:`record`, :meth:`hold`, :meth:`deposit`),
        until the next read: its entry is saved before, but read here only then.

        :param records: every journal entry (:class:`PaidRecord`); an unreadable one in
            the window is remembered whatever the asset (its asset is unknown).
        :param now: unix seconds.
        :param chain_nonce: ``mapNonces(requester)`` now (None: unread, and every hold
            of a record older than the window counts: the cap errs on the safe side).
        :param owner: this server's requester and chain
            (:func:`.outstanding.owner_text`; "": unread, every entry and hold read as
            this requester's): the entries of another requester or chain count
            nothing here, whatever their asset.
        """
        since = -math.inf if self.window is None else now - self.window
        refunded = set(self.refunded)
        # this requester's on this chain (or not said whose): every asset's, since a
        # run call's entry may now name another asset (adv29zp C3)
        mine = [r for r in records if not r.problem and r.held_by(owner)]
        readable = [r for r in mine if r.asset == self.asset]
        ours = self._reconcile(mine, since, now, chain_nonce, owner)
        others: List[Tuple[PaidRecord, int]] = []
        if self.window is not None:
            for record in readable:
                if _entry(record) in ours or record.request_id in refunded:
                    continue
                price = _counted(record, since, now, chain_nonce, owner)
                if record.written_at >= since or price:
                    others.append((record, price))
        self.earlier = sum(price for _, price in others)
        self.earlier_requests = len(others)
        self.unreadable = ""
        if self.window is not None:  # under `run`, a call whose entry is torn counts
            # by the run's own count, and no other entry counts
            self.unreadable = next(
                (r.problem for r in records if r.problem and r.written_at >= since), ""
            )

    def _reconcile(  # pylint: disable=too-many-arguments
        self,
        records: Sequence[PaidRecord],
        since: float,
        now: float,
        chain_nonce: Optional[int],
        owner: str,
    ) -> Set[Tuple[str, str]]:
        """Count each of this run's calls by its journal entry (see :meth:`count_journal`).

        :param records: the readable journal records of this requester, every asset.
        :param since: the window's start, unix seconds (-inf: no window).
        :param now: unix seconds.
        :param chain_nonce: ``mapNonces(requester)`` now (None: unread).
        :param owner: whose nonce ``chain_nonce`` is.
        :return: the records this run's calls were counted by (:func:`_entry`).
        """
        found = self._entries_of_calls(records)
        refunded = set(self.refunded)
        ours: Set[Tuple[str, str]] = set()
        for name, record in found:
            call = self._calls[name]
            if record is None:  # its entry moved away: counted as a restart would
                call.journalled = None if call.at >= since else 0
            elif (
                _entry(record) in ours
                or record.request_id in refunded
                or record.asset != self.asset  # that asset's ledger counts it now
            ):
                call.journalled = 0
            else:
                call.journalled = _counted(record, since, now, chain_nonce, owner)
            if record is not None:
                ours.add(_entry(record))
        return ours

    def _entries_of_calls(
        self, records: Sequence[PaidRecord]
    ) -> List[Tuple[str, Optional[PaidRecord]]]:
        """Each run call's journal record: by its call key, else a request id it counted.

        :param records: the readable journal records of this requester.
        :return: (run call name, its record or None), a call naming its record's
            request before the calls it replaced under the same key (a retry): the
            record is counted once, by the first.
        """
        by_key = {record.key: record for record in records if record.key}
        by_request = {record.request_id: record for record in records}
        named: Dict[str, List[str]] = {name: [name] for name in self._calls}
        for request_id, name in self._call_of.items():
            named.setdefault(name, []).append(request_id)
        found = [
            (
                name,
                by_key.get(call.key)
                or next((by_request[r] for r in named[name] if r in by_request), None),
            )
            for name, call in self._calls.items()
        ]
        return sorted(
            found,
            key=lambda pair: (pair[1] or _NO_RECORD).request_id not in named[pair[0]],
        )

    def _window_words(self) -> str:
        asset = "" if self.asset == ASSET_NATIVE else f"{self.asset} "
        if self.window is None:
            return f"this run's {asset}spending"
        return f"the {asset}spending of the last {self.window:g} s (--spend-window)"

    def amount(self, value: int) -> str:
        """Say an amount of this ledger's asset (``model.payment.say_amount``).

        :param value: smallest units.
        :return: e.g. ``"5000 wei"`` or ``"1.5 USDC (1500000 smallest units)"``.
        """
        return say_amount(value, self.asset)

    def _option(self) -> str:
        """``--max-spend`` as the user wrote it for this asset."""
        if self.asset == ASSET_NATIVE:
            return f"--max-spend {self.max_spend} wei"
        return f"--max-spend {self.asset}={self.max_spend}"

    def refusal(self, price: int) -> Optional[str]:
        """Say why paying ``price`` now would break the cap, or None when it fits.

        :param price: the request's price, smallest units of ``asset``.
        :return: a sentence naming the asset and amounts in its units, or None.
        """
        if self.max_spend is None:
            return None
        if self.unreadable:
            return (
                f"the {self.asset} spending within --spend-window cannot be counted: "
                f"{self.unreadable}"
                # an entry's problem names its file; the journal's own says what to do
                + (
                    "; check the entry, then move it away"
                    if self.unreadable.startswith("journal entry")
                    else ""
                )
            )
        total = self.earlier + self.spent + price
        if total > self.max_spend:
            return (
                f"paying {self.amount(price)} would bring {self._window_words()} to "
                f"{self.amount(total)}, over {self._option()} "
                f"({self.amount(self.spent)} spent on {len(self.requests)} request(s) "
                f"by this run, {self.amount(self.earlier)} on {self.earlier_requests} "
                "journalled request(s) of earlier or other runs)"
            )
        return None

    def reverts_words(self, records: Sequence[PaidRecord], now: float) -> str:
        """What of the count is requests mined and reverted, not final yet (pure).

        :param records: the journal's records.
        :param now: unix seconds.
        :return: a clause starting with "; " for :meth:`refusal`'s sentence ("" when
            none of this asset is counted within the window).
        """
        since = -math.inf if self.window is None else now - self.window
        held = [
            record
            for record in records
            if record.reverted_in is not None
            and not record.problem
            and record.asset == self.asset
            and record.written_at >= since
        ]
        if not held:
            return ""
        return (
            f"; {self.amount(sum(record.price for record in held))} of it on "
            f"{len(held)} request(s) mined and reverted whose blocks are not final "
            "yet: a reorg could still mine them paid, so they count until final, "
            "then no more"
        )

    def record(self, price: int, request_id: str, key: str = "") -> None:
        """Count a paid on-chain request (a call of its own).

        :param price: paid, smallest units of ``asset``.
        :param request_id: the marketplace request id (0x hex).
        :param key: its call key, which finds its journal entry when another request
            replaced it there ("": found by request id only).
        """
        call = self._calls.setdefault(request_id, _RunCall(key=key))
        call.counted_again()
        call.live[request_id] = call.live.get(request_id, 0) + price
        self._call_of[request_id] = request_id

    def hold(self, key: str, holds: Iterable[Hold]) -> None:
        """Count a call's off-chain requests that may still be settled, as its entry says.

        Called when the call signs a request (its first, or again at the same nonce):
        ``holds`` are :func:`.outstanding.holds_of` its journal entry, the new request
        and the earlier ones the chain has not shown unsettleable. The call counts the
        highest of them once (they hold one nonce, so at most one is ever settled).

        :param key: the call key.
        :param holds: the call's holds (prices in smallest units of ``asset``).
        """
        call = self._calls.setdefault(key, _RunCall(key=key))
        call.counted_again()
        call.live = {}
        for hold in holds:
            moved = self._call_of.get(hold.request_id, key)
            if moved != key:
                self._calls[moved].live.pop(hold.request_id, None)
            call.live[hold.request_id] = hold.price
            self._call_of[hold.request_id] = key

    def deposit(self, key: str, amount: int) -> None:
        """Count a call's automatic deposit: the call counts at least that much.

        :param key: the call key.
        :param amount: deposited, smallest units of ``asset``.
        """
        call = self._calls.setdefault(key, _RunCall(key=key))
        call.counted_again()
        call.deposit = max(call.deposit, amount)

    def deposit_excess(self, key: str, amount: int) -> int:
        """What a deposit for a call would add to this run's spending (pure).

        :param key: the call key.
        :param amount: the deposit, smallest units of ``asset``.
        :return: ``amount`` less what the call counts already, at least 0.
        """
        call = self._calls.get(key)
        return max(amount - (call.counted() if call else 0), 0)

    def settle(self, request_id: str) -> None:
        """The chain shows a request of this run settled: its call counts it alone.

        Its call's other requests held the same nonce, which the settlement used: none
        of them can ever be settled. A request this run did not count changes nothing
        (its journal entry counts it).

        :param request_id: the request found settled.
        """
        call = self._calls.get(self._call_of.get(request_id, ""))
        if call is not None and request_id in call.live:
            call.live = {request_id: call.live[request_id]}
            call.settled = request_id
            call.journalled = None  # its own count until its entry is read again

    def release(self, request_id: str) -> None:
        """Stop counting one request of this run: the chain shows it can never be settled.

        For an off-chain request whose nonce passed unsettled, or that never left this
        host (``unsent``): its entry records it, and its call's other requests keep
        counting (releasing one request never releases another: adv29i). A settled
        request is never released.

        :param request_id: its request id.
        """
        call = self._calls.get(self._call_of.get(request_id, ""))
        if call is not None and call.settled != request_id:
            call.live.pop(request_id, None)
            call.journalled = None  # its own count until its entry is read again

    def renamed(self, request_id: str, mined_as: str) -> None:
        """Count a request of this run under the id it was mined as (one request still).

        The id derived before sending is not the one mined when the requester's
        marketplace nonce moved meanwhile (:func:`.journal.correct_request_id`); its
        journal entry then names the mined id, which :meth:`count_journal` must find
        counted by this run, not count a second time.

        :param request_id: the id this run counted.
        :param mined_as: the id the chain gave it.
        """
        name = self._call_of.pop(request_id, None)
        call = self._calls.get(name or "")
        if name is None or call is None:
            return
        if request_id in call.live:
            call.live[mined_as] = call.live.pop(request_id)
        self._call_of[mined_as] = name

    def refund(self, price: int, request_id: str) -> None:
        """Take back a request counted by :meth:`record` that can never be paid.

        Only for an on-chain request the chain shows unpaid for good (mined and
        reverted, its block final; or its nonce taken by another transaction, final):
        its journal entry is left out of :meth:`count_journal` from then on.

        :param price: counted for it, smallest units of ``asset`` (unused: the ledger
            knows what it counted).
        :param request_id: its request id.
        """
        del price
        name = self._call_of.pop(request_id, None)
        call = self._calls.get(name or "")
        if call is not None and request_id in call.live:
            call.live.pop(request_id)
            call.journalled = None  # its own count until its entry is read again
            self.refunded.append(request_id)
