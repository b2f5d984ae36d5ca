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

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from mech_catalogue_core.model.payment import ASSET_NATIVE, say_amount

from .outstanding import Hold

#: ``--spend-window`` by default: what ``--max-spend`` caps is the spending of the last
#: 24 hours, across restarts of the server on the same ``--state-dir``
DEFAULT_SPEND_WINDOW_SECONDS = 24 * 3600.0


@dataclass(frozen=True)
class PaidRecord:
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
    return _held_price(record, chain_nonce, owner, seen is None)


@dataclass
class SpendLedger:
    """What was paid within ``--spend-window``, against ``--max-spend``.

    This run's requests are counted as they are sent (:meth:`record`); requests that
    earlier or other server processes journalled in the same ``--state-dir`` are counted
    from the journal (:meth:`count_journal`), so a restart does not reset the cap.

    :param max_spend: the cap, smallest units of ``asset`` (None: no cap).
    :param spent: paid by this run so far (requests sent, delivered or not), same units.
    :param requests: request ids paid for by this run, in order.
    :param window: seconds of spending the cap covers (None: this run only).
    :param earlier: paid by the journal's other requests of ``asset`` within the window.
    :param earlier_requests: how many requests those are.
    :param unreadable: why a journal entry within the window could not be read ("":
        none); nothing is paid while one stays, since its price is unknown.
    :param refunded: this run's requests that were mined and reverted (their journal
        entries stay, and are not counted; an earlier run's reverted request is, to be
        safe: the journal does not say it reverted). Off-chain requests that can never
        be settled are not refunded but released (:meth:`release`): their entries say
        so and count what is left.
    :param prices: what :meth:`record` counted for each of ``requests``.
    :param asset: the ``model.payment.ASSETS`` key this ledger counts (``native``,
        ``olas``, ``usdc``): journal records of other assets are not counted.
    """

    max_spend: Optional[int] = None
    spent: int = 0
    requests: List[str] = field(default_factory=list)
    window: Optional[float] = DEFAULT_SPEND_WINDOW_SECONDS
    earlier: int = 0
    earlier_requests: int = 0
    unreadable: str = ""
    refunded: List[str] = field(default_factory=list)
    asset: str = ASSET_NATIVE
    prices: Dict[str, int] = field(default_factory=dict)

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

        :param records: every journal entry (:class:`PaidRecord`); an unreadable one in
            the window is remembered whatever the asset (its asset is unknown).
        :param now: unix seconds.
        :param chain_nonce: ``mapNonces(requester)`` now (None: unread, and every hold
            of a record older than the window counts: the cap errs on the safe side).
        :param owner: whose nonce ``chain_nonce`` is (:func:`.outstanding.owner_text`;
            "": every hold read as this requester's).
        """
        if self.window is None:
            return
        since = now - self.window
        mine = set(self.requests) | set(self.refunded)
        recent = [r for r in records if r.written_at >= since]
        counted = [
            (r, _counted(r, since, now, chain_nonce, owner))
            for r in records
            if not r.problem and r.asset == self.asset and r.request_id not in mine
        ]
        others = [(r, price) for r, price in counted if r.written_at >= since or price]
        self.earlier = sum(price for _, price in others)
        self.earlier_requests = len(others)
        self.unreadable = next((r.problem for r in recent if r.problem), "")

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
                f"{self.unreadable}; check the entry, then move it away"
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

    def record(self, price: int, request_id: str) -> None:
        """Count a paid request.

        :param price: paid, smallest units of ``asset``.
        :param request_id: the marketplace request id (0x hex).
        """
        self.spent += price
        self.requests.append(request_id)
        self.prices[request_id] = self.prices.get(request_id, 0) + price

    def replace(self, earlier: Sequence[str], price: int, request_id: str) -> None:
        """Count a call's request signed again in place of its earlier ones.

        The requests of one off-chain call that may still be settled hold one nonce, so
        at most one is ever settled: the call counts ``price`` (the highest of them)
        once, under its current id (the one its journal entry names).

        :param earlier: the call's earlier request ids (those this run did not count
            are ignored).
        :param price: what the call counts now, smallest units of ``asset``.
        :param request_id: its current request id.
        """
        for rid in earlier:
            if rid in self.requests and rid != request_id:
                self.requests.remove(rid)
                self.spent -= self.prices.pop(rid, 0)
        if request_id in self.requests:
            self.requests.remove(request_id)
            self.spent -= self.prices.pop(request_id, 0)
        self.record(price, request_id)

    def release(self, request_id: str) -> None:
        """Stop counting a request of this run; its journal entry says what it counts.

        For an off-chain request the chain shows can never be settled: its entry records
        it (``released`` or ``passed``), so :meth:`count_journal` reads what the entry
        still counts (an automatic deposit, an earlier request of its call that may
        still be settled) instead of leaving the entry out as :meth:`refund` does.

        :param request_id: its request id.
        """
        if request_id in self.requests:
            self.requests.remove(request_id)
            self.spent -= self.prices.pop(request_id, 0)

    def refund(self, price: int, request_id: str) -> None:
        """Take back a request counted by :meth:`record` that can never be paid.

        Only for an on-chain request the chain shows unpaid (mined and reverted): its
        journal entry is left out of :meth:`count_journal` from then on.

        :param price: counted for it, smallest units of ``asset``.
        :param request_id: its request id.
        """
        if request_id in self.requests:
            self.requests.remove(request_id)
            self.spent -= self.prices.pop(request_id, price)
            self.refunded.append(request_id)
