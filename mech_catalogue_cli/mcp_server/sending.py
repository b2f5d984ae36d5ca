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

# the one sender of a paid request; its journal reading joined it (fix29zzj): to split
# pylint: disable=too-many-lines
"""Sending one paid request: at most once per call key, at the price read now.

:meth:`RequestSender.ensure_sent` runs under one lock per server: the journal is read
again inside it, so two identical calls at once pay once, and the run cap
(:class:`.spend_cap.SpendLedger`) is checked against what was really sent. The signed
transaction is journalled before its broadcast, so a retry re-sends the same bytes
(never a second request under the next nonce). A call with no journal entry is first
looked for on chain (:func:`.recall.resume_from_chain`). How the request pays
is the library's :func:`~mech_catalogue_core.model.payment.plan_payment` over this
requester's funds read right before signing (:class:`.payment.TokenPayer`): a native
offer sends only what the tracker's prepaid balance lacks (0 when it covers the price);
a token-priced offer (OLAS, USDC) sends no value, after an ERC-20 approval of exactly
what the prepaid balance lacks (journalled in the same entry); a subscription offer
sends no value and needs the credits. A request whose gas estimate or mining fails
because the funds changed in the meantime (an allowance revoked after the approval) is
refused in words, never the contract's error data. ``--max-price`` and ``--max-spend``
are kept per asset, and every asset's ``--max-spend`` counts the journal's requests of
that asset within ``--spend-window`` (:class:`.spending.JournalIndex`), across restarts
and other server processes.
"""

import logging
import math
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import anyio
import mcp_types as types
from mech_catalogue_core.model.payment import (
    ASSET_NATIVE,
    ASSETS,
    payment_terms,
    say_amount,
)
from mech_catalogue_core.model.vocabulary import CallStatus, PaymentStatus, PaymentWay

from .auto_prepay import AUTO_PREPAY_KEY, AutoPrepayer
from .call_end_words import cancel_unsettled, nothing_new_words, with_approval
from .cancel import CANCEL_KEY, cancel_record, record_cancel, stale_request
from .dropped import (
    DROPPED_KEY,
    NEVER_MINED_KEY,
    NeverMined,
    chain_fate,
    dropped_text,
    held_until_final,
    record_dropped,
    record_never_mined,
)
from .gas_skips import GasSkip
from .ipfs import upload_json
from .journal import (
    Journal,
    JournalEntry,
    JournalError,
    correct_request_id,
    loaded,
    recorded,
    saved,
)
from .market import (
    STATUS_DOES_NOT_EXIST,
    EstimateReverted,
    GasOverBound,
    MarketError,
    Marketplace,
    RequestReverted,
    SentTransaction,
    SignedRequest,
)
from .market_errors import ESTIMATE_UNSENT, GAS_KEY
from .mined_reverts import (
    REVERTED_KEY,
    never_paid,
    record_never_paid,
    record_reverted,
    release_final_reverts,
)
from .offchain import OffchainPoster
from .offchain_sending import OffchainRetry, OffchainSending, PriceRefusal, refusal_with
from .offers import Offer, send_time_refusal
from .option_defaults import OffchainMode
from .payment import TokenPayer
from .recall import resume_from_chain
from .refused_offers import (
    RevertingMechs,
    RevertRefusal,
    gas_refusal,
    journalled_reverts,
    remembered_refusal,
    revert_refusal,
    reverted_for_call,
)
from .request_preview import dry_run_result, request_value
from .settings import CallSettings, PhaseTimer
from .source import ServedTool
from .spend_cap import PaidRecord, SpendLedger
from .spending import JournalIndex
from .unmined import record_mined, record_signer

LOGGER = logging.getLogger("mech_catalogue.mcp")

#: seconds a send begun at the end of its call's ``--timeout`` still waits for its
#: receipt (:meth:`RequestSender.receipt_wait`)
LEAST_RECEIPT_WAIT = 1.0


class RequestSender(OffchainSending):
    """Sends a call's request to one offer, or finds it already sent."""

    def __init__(
        self,
        market: Optional[Marketplace],
        journal: Optional[Journal],
        settings: CallSettings,
        ledger: SpendLedger,
    ) -> None:
        """Keep the pieces a send needs.

        :param market: the marketplace (None: only dry runs).
        :param journal: the call journal (None with no market).
        :param settings: call settings (caps, timeouts, IPFS API).
        :param ledger: the native spend ledger (``--max-spend`` of native).
        """
        self.market = market
        self.journal = journal
        self.settings = settings
        self.ledger = ledger
        # one cap per token asset (--max-spend olas=...), over the same window as native
        self.token_ledgers = {
            asset: SpendLedger(
                settings.token_max_spend.get(asset),
                window=settings.spend_window,
                asset=asset,
            )
            for asset in ASSETS
            if asset != ASSET_NATIVE
        }
        self.index = JournalIndex(journal.folder) if journal is not None else None
        self.payer = TokenPayer(market) if market is not None else None
        self.offchain = (
            OffchainPoster(market, self.payer)
            if market is not None and self.payer is not None
            else None
        )
        self.auto_prepay = (
            AutoPrepayer(
                market, journal.folder.parent, settings.auto_prepay, settings.io_timeout
            )
            if market is not None and journal is not None and settings.auto_prepay
            else None
        )
        # mechs whose request reverted for the marketplace: read and written under
        # self.lock, so concurrent calls never each spend gas on the same one
        self.reverting = RevertingMechs(
            settings.spend_window, journal.folder.parent if journal else None
        )
        self.lock = anyio.Lock()

    def _ready_to_pay(
        self,
        offer: Offer,
        prepared: JournalEntry,
        previous: Optional[JournalEntry],
        wait: float,
    ) -> Tuple[str, Dict[str, int]]:
        """Read this requester's funds; approve what a token offer lacks (blocking).

        :param offer: the offer.
        :param prepared: the call's prepared entry (an approval is journalled in it).
        :param previous: the call's earlier entry, when a retry.
        :param wait: seconds an approval's receipt is waited for (:meth:`receipt_wait`).
        :return: why the request cannot be sent ("" when it can; a
            :class:`PriceRefusal` carrying the decision), and the request's value
            argument (:func:`.request_preview.request_value`).
        :raises MarketError: when a token or subscription offer's funds cannot be read
            (nothing is sent; a native offer then sends its price).
        """
        if self.payer is None:
            return "", request_value(offer)
        if payment_terms(offer.payment_type).way is PaymentWay.TOKEN:
            assert self.journal is not None  # nosec: a payer exists only with a journal
            short = self.payer.ensure_allowance(
                prepared, previous, self.journal.save, wait
            )
            return (f"mech {offer.address}: {short}" if short else ""), {"value": 0}
        native = payment_terms(offer.payment_type).way is PaymentWay.NATIVE
        try:
            plan = self.payer.plan(offer.payment_type, prepared.price)
        except MarketError:
            if not native:
                raise
            # the tracker's prepaid balance unread: send the price, as before prepaid
            # balances were read (any excess stays prepaid for the next call)
            return "", request_value(offer)
        if plan.status is not PaymentStatus.PAYABLE:
            why = f"mech {offer.address}: {plan.reason or plan.status}"
            return refusal_with(why, plan.to_dict()), {}
        return "", request_value(offer, plan)

    def refused_when_mined(self, entry: JournalEntry) -> PriceRefusal:
        """The refusal of an offer whose journalled request was mined and reverted (blocking).

        One handling for a fresh request and for journalled bytes sent again (after a
        restart, or a drop): nothing was paid but gas, yet a reorg within
        ``final_depth`` may still mine it paid, so its price stays counted against
        ``--max-spend`` until its block is final (:meth:`_reverts_released`, adv29yp
        C1); the mech is not sent another request for ``--spend-window``,
        whatever the reads after the receipt suggest (:meth:`_reverted_when_mined`); a
        price raised while it was pending (a mech front-running the request) or funds
        changed are said in words, else the mech refuses the marketplace's call
        (:func:`.refused_offers.revert_refusal`); the caller tries the next offer (the
        receipt proves nothing paid).

        :param entry: the call's entry, its request mined and reverted.
        :return: the refusal, ``mined`` (a :class:`.refused_offers.RevertRefusal`
            unless the price or the funds moved).
        """
        assert self.market is not None  # nosec: a sender exists only with one
        price = entry.price
        asset = payment_terms(entry.payment_type).asset
        try:
            again = self.market.mech_price(entry.mech)
        except MarketError:  # the call's time ended: the revert is said as read
            again = None
        refusal: Optional[PriceRefusal] = None
        if again is None or again == price:
            refusal = self._funds_changed(entry.mech, entry.payment_type, price)
            if refusal is None:
                refusal = revert_refusal(
                    entry.mech,
                    "when mined (only gas was spent)",
                    "a receipt holds no reason",
                    mined=True,
                )
        else:
            refusal = PriceRefusal(
                f"mech {entry.mech} changed its price from {say_amount(price, asset)} "
                f"to {say_amount(again, asset)} while the request was pending; the "
                "transaction reverted (only gas was spent)"
            )
        refusal.mined = True
        self._reverted_when_mined(entry, refusal)
        return refusal

    def _reverted_when_mined(self, entry: JournalEntry, why: str) -> None:
        """Never send the mech of a request mined and reverted another one (blocking).

        Journalled in the call's entry with the block it was mined in
        (:func:`.mined_reverts.record_reverted`: the call, called again after the
        revert is final or after a restart, tries its other offers; every process
        reading the journal skips the mech, :meth:`journal_records`) and remembered in
        :attr:`reverting` for the other calls of this process, for ``--spend-window``.

        :param entry: the call's entry, its request mined and reverted.
        :param why: what the call says of it.
        """
        assert self.journal is not None and self.market is not None  # nosec: both
        try:
            block = self.market.mined_block(entry.tx_hash)
        except MarketError:
            block = None  # not read: its finality is read in full each time
        at, recorded_now = record_reverted(entry, block)
        if recorded_now:
            self.journal.save(entry)
        if recorded_now or self.reverting.why(entry.mech) is None:
            self.reverting.remember_mech(entry.mech, why, mined=True, now=at)

    def _remembered(self, refusal: RevertRefusal) -> RevertRefusal:
        """Remember a refusal's mech in :attr:`reverting` (under the send lock).

        :param refusal: an offer's revert refusal.
        :return: the refusal.
        """
        self.reverting.remember(refusal)
        return refusal

    async def journal_records(self, listing: bool = False) -> List[PaidRecord]:
        """The journal's records, their mined reverts learnt into :attr:`reverting`.

        The journal is the memory of reverts for every process on the state folder
        (adv29yp R1): its records within ``--spend-window`` are learnt at each read
        (at start the index reads every entry, later those any process appended), as
        are the mechs refused for gas (:mod:`.gas_skips`, read when its file changed).

        :param listing: for ``tools/list``, which never waits for a journal read: the
            records as last read (:meth:`.spending.JournalIndex.records_read`).
        :return: :meth:`.spending.JournalIndex.records` (empty without a journal); the
            read and the look over the records run in a worker thread.
        """
        index = self.index
        if index is None:
            return []
        read_records = index.records_read if listing else index.records

        def read() -> Tuple[List[PaidRecord], list, List[GasSkip]]:
            records = read_records()
            return records, journalled_reverts(records), self.reverting.kept.load()

        records, reverts, gas_skips = await anyio.to_thread.run_sync(read)
        self.reverting.learn(reverts)
        if gas_skips and self.market is not None:
            self.reverting.learn_gas(gas_skips, self.market.max_gas)
        return records

    async def _reverts_released(self, records: Sequence[PaidRecord]) -> bool:
        """Stop counting the journalled mined reverts whose block is final now.

        Held under the send lock. Only entries within ``--spend-window`` (older ones
        count nothing) whose revert is in a final block (:meth:`.Marketplace.final_block`:
        the node's ``finalized`` block, else ``final_depth`` below the head), or whose
        block was not read, are read on chain
        (:func:`.mined_reverts.release_final_reverts`); the others keep counting their
        price without a read but the final block's.

        :param records: the journal's records.
        :return: whether any entry was released (its price counted no more, in this
            run's ledger either).
        """
        window = self.settings.spend_window
        since = time.time() - window if window is not None else -math.inf
        held = [
            r
            for r in records
            if r.reverted_in is not None and r.key and r.written_at >= since
        ]
        if not held:
            return False
        market, journal = self.market, self.journal
        assert market is not None and journal is not None  # nosec: see __init__
        depth = self.settings.final_depth
        try:
            final = await anyio.to_thread.run_sync(market.final_block, depth)
        except MarketError:
            return False  # not read: they keep counting, the safe side
        due = [r.key for r in held if (r.reverted_in or 0) <= final.number]
        if not due:
            return False
        released = await anyio.to_thread.run_sync(
            release_final_reverts, market, journal, due, depth
        )
        for entry in released:
            asset = payment_terms(entry.payment_type).asset
            self.token_ledgers.get(asset, self.ledger).refund(
                entry.price, entry.request_id
            )
        return bool(released)

    def _funds_changed(
        self, mech: str, payment_type: str, price: int
    ) -> Optional[PriceRefusal]:
        """Why a request that failed (estimate or mining) cannot be paid now, if funds say.

        Read after a failure whose price did not move: an allowance revoked, a balance
        or credits spent by another transaction since they were read.

        :param mech: the offer's mech address.
        :param payment_type: the offer's payment type.
        :param price: the price the request was signed with.
        :return: the refusal in words, or None when the funds still cover the price
            (the failure is then not explained by them).
        """
        if self.payer is None:
            return None
        try:
            plan = self.payer.plan(payment_type, price)
        except MarketError:
            return None
        if plan.status is PaymentStatus.PAYABLE:
            return None
        return refusal_with(
            f"mech {mech}: the request would not pay any more: "
            f"{plan.reason or plan.status} (this account's funds changed after they "
            "were read: an allowance revoked, or a balance spent by another "
            "transaction); calling again reads them anew and approves at most what "
            "the price lacks",
            plan.to_dict(),
        )

    def dry_run(
        self, tool: ServedTool, offer: Offer, payload: Dict[str, Any], key: str
    ) -> types.CallToolResult:
        """Describe the request a call would send, sending nothing.

        :param tool: the tool called.
        :param offer: the offer that would be paid.
        :param payload: the request payload.
        :param key: the call key.
        :return: :func:`.request_preview.dry_run_result` with this server's market and
            payer.
        """
        return dry_run_result(tool, offer, payload, key, self.market, self.payer)

    async def _journalled(  # pylint: disable=too-many-return-statements,too-many-branches
        self,
        entry: Optional[JournalEntry],
        offers: Sequence[Offer],
        timer: PhaseTimer,
        carried: Dict[str, Any],
    ) -> Union[JournalEntry, str, OffchainRetry, None]:
        """What a call's journalled request is now, read on chain (under the send lock).

        The one reading of a signed entry, for a tool served now (:meth:`ensure_sent`)
        and for one that left (:meth:`journalled_now`): an off-chain call's requests
        are looked up (:meth:`_offchain_again`); an on-chain request on chain is paid,
        one still unmined is broadcast again while its mech is among ``offers`` at a
        price within the cap, else cancelled, and nothing else is paid until that is
        final.

        :param entry: the call's journal entry (None: none).
        :param offers: the offers the call may pay now (empty: none, its tool left).
        :param timer: the call's phase timer.
        :param carried: filled with what the call's next entry keeps of this one (its
            reverts, its automatic deposit, a cancelled request).
        :return: the entry to wait for (paid); why nothing is paid now (a
            :class:`PriceRefusal` when it reverted when mined, a
            :class:`.dropped.NotFinal` while it could still be mined in a fork, an
            off-chain request's sentence); an :class:`OffchainRetry` when its off-chain
            requests were not accepted; or None when nothing journalled can pay (no
            entry, nothing signed, or its request can never be mined).
        """
        assert self.market is not None and self.journal is not None  # nosec
        if entry is not None and REVERTED_KEY in entry.extra:
            # the mechs this call's requests reverted for: kept in its next entry
            carried[REVERTED_KEY] = entry.extra[REVERTED_KEY]
        if entry is not None and "offchain" in entry.extra:
            again = await self._offchain_again(entry)
            if isinstance(again, OffchainRetry) and AUTO_PREPAY_KEY in entry.extra:
                carried[AUTO_PREPAY_KEY] = entry.extra[AUTO_PREPAY_KEY]  # never twice
            return again  # accepted, settled, said, or how to sign it again
        if entry is None:
            return None
        if never_paid(entry):
            # journalled never paid by any process: read no more on chain
            await anyio.to_thread.run_sync(self.refund_if_never_paid, entry)
            return None
        status = await anyio.to_thread.run_sync(self.market.status, entry.request_id)
        if status == STATUS_DOES_NOT_EXIST and entry.tx_hash:
            # mined under another id than the one derived before sending?
            if await anyio.to_thread.run_sync(self.correct_request_id, entry):
                status = await anyio.to_thread.run_sync(
                    self.market.status, entry.request_id
                )
        if status != STATUS_DOES_NOT_EXIST:
            if entry.status == CallStatus.PREPARED:
                entry.status = CallStatus.SENT
                await recorded(self.journal, entry)
            return entry  # already paid: never again
        if entry.raw_tx:
            mined = await anyio.to_thread.run_sync(self.market.confirmed_nonce)
            if mined <= entry.account_nonce:
                stale = ""
                if CANCEL_KEY not in entry.extra:
                    stale = await anyio.to_thread.run_sync(self._stale, entry, offers)
                if not stale and CANCEL_KEY not in entry.extra:
                    # the signed request may still be mined: send it again,
                    # never a new one (a new one takes the next nonce: both paid)
                    try:
                        return await anyio.to_thread.run_sync(
                            self.broadcast_again,
                            entry,
                            self.receipt_wait(timer),
                        )
                    except RequestReverted:
                        return await anyio.to_thread.run_sync(
                            self.refused_when_mined, entry
                        )
                won = await anyio.to_thread.run_sync(
                    self.cancel_request, entry, stale, self.receipt_wait(timer)
                )
                if won is not None:
                    return won  # mined before its cancellation: paid
            if CANCEL_KEY in entry.extra:
                carried["cancelled"] = {
                    "request_id": entry.request_id,
                    "mech": entry.mech,
                    "tx_hash": entry.tx_hash,
                    "cancel_tx": entry.extra[CANCEL_KEY]["tx_hash"],
                    "reason": entry.extra[CANCEL_KEY]["reason"],
                }
            # its nonce taken by another transaction: a fork without it could
            # still mine the request, so nothing else is paid until it is final
            waiting = await anyio.to_thread.run_sync(
                held_until_final,
                self.market,
                entry,
                self.settings.final_depth,
                self.settings.block_seconds,
            )
            if waiting:
                return waiting
        # else its nonce went to another transaction, or it was mined and
        # reverted: it can never pay, so it no longer counts against the cap
        await anyio.to_thread.run_sync(self.refund_if_never_paid, entry)
        if REVERTED_KEY in entry.extra:  # learnt from its receipt just now
            carried[REVERTED_KEY] = entry.extra[REVERTED_KEY]
        return None

    async def journalled_now(
        self, key: str, timer: PhaseTimer
    ) -> Union[JournalEntry, str, OffchainRetry, None]:
        """A signed call's request read as :meth:`ensure_sent` reads it, nothing new sent.

        For a call whose mech tool is not served now: no offer may be paid, so an
        unmined on-chain request is cancelled rather than broadcast again, and an
        off-chain request not accepted is not signed again.

        :param key: the call key.
        :param timer: the call's phase timer.
        :return: :meth:`_journalled` of the call's entry, under the send lock (a
            sentence when another process held it).
        """
        journal = self.journal
        assert journal is not None  # nosec: a sender exists only with one
        async with self.lock, self.state_folder_lock() as locked:
            if not locked:
                return (
                    f"another server process sending from {journal.folder} held its "
                    f"lock for {self._lock_wait():g} s; nothing was sent: call again"
                )
            entry = await loaded(journal, key)
            return await self._journalled(entry, (), timer, {})

    async def ensure_sent(  # pylint: disable=too-many-arguments,too-many-locals,too-many-statements,too-many-return-statements,too-many-branches
        self,
        tool: ServedTool,
        offer: Offer,
        payload: Dict[str, Any],
        key: str,
        timer: PhaseTimer,
        offers: Sequence[Offer] = (),
    ) -> Union[JournalEntry, str]:
        """Send the request unless the chain already has it (the journal says which).

        Under one lock per server: the journal is read again inside it, so two identical
        calls at once pay once, and the run cap is checked against what was really sent.
        A journalled request whose nonce is unmined is broadcast again only while its
        mech is among ``offers`` at a price within the cap now; otherwise it is
        cancelled (:meth:`cancel_request`) before anything else is paid.

        :param tool: the tool called.
        :param offer: the chosen mech.
        :param payload: the request payload.
        :param key: the call key.
        :param timer: the call's phase timer.
        :param offers: every offer the call may pay now (``rank_offers``; empty: only
            ``offer``).
        :return: the journal entry of the request on chain, or why nothing was sent (a
            :class:`PriceRefusal` when this offer failed before anything was paid: its
            price, the funds for it, its mech remembered as reverting when mined
            (:attr:`reverting`, read again under the lock: another call may have
            learnt it meanwhile), or a :class:`.refused_offers.RevertRefusal` when its
            request reverted at the gas estimate or when mined; the caller tries the
            next offer; a :class:`.dropped.NotFinal` while an earlier request of the
            call could still be mined, :func:`.dropped.held_until_final`).
        """
        market, journal = self.market, self.journal
        assert (
            market is not None and journal is not None
        )  # nosec: a sender exists only with both
        carried: Dict[str, Any] = {}  # a cancelled request, said in the new entry
        if self.index is not None and self._caps(offer)[1].max_spend:
            await anyio.to_thread.run_sync(self.index.prime)  # before the send lock
        async with self.lock, self.state_folder_lock() as locked:
            if not locked:
                return (
                    f"another server process sending from {journal.folder} held its "
                    f"lock for {self._lock_wait():g} s; nothing was sent: call again"
                )
            entry = await loaded(journal, key)
            journalled = await self._journalled(
                entry, offers or (offer,), timer, carried
            )
            retry: Optional[OffchainRetry] = None
            if isinstance(journalled, OffchainRetry):
                retry = journalled  # not accepted: signed again below, the earlier kept
            elif journalled is not None:
                return journalled  # paid, said, or waited for: never paid again
            earlier = reverted_for_call(
                carried, offer.address, self.reverting.period, time.time()
            )
            if earlier:  # this call's request to it reverted: journalled, any process
                return earlier
            # the journal read now: another process's mined reverts learnt too
            records = await self.journal_records()
            reverted = self.reverting.skipped((offer,))[1]
            if reverted:  # remembered since the call ranked its offers (another call)
                return remembered_refusal(offer.address, reverted[0][1])
            price_now = await anyio.to_thread.run_sync(market.mech_price, offer.address)
            ledger = self._caps(offer)[1]
            moved = send_time_refusal(offer, price_now, self._caps(offer)[0])
            if moved or price_now is None:
                return PriceRefusal(moved)
            price = price_now  # the amount sent: the price now, never the listed one
            asset = payment_terms(offer.payment_type).asset

            def amount(value: int) -> str:
                return say_amount(value, asset)

            if self.index is not None and not self.index.has_read:
                # never read whole (adv29j): neither the cap nor the nonces held by
                # earlier requests can be known, so nothing is paid
                return records[0].problem if records else "the journal was not read"
            if ledger.max_spend is not None:
                # earlier and other runs' spending of this asset too
                if self.index is not None and await self._released(records):
                    records = await anyio.to_thread.run_sync(self.index.records)
                # a request settled since its date counts from when that was seen
                if self.index is not None and await self._passing_recorded(records):
                    records = await anyio.to_thread.run_sync(self.index.records)
                # a mined revert counts until its block is final, then no more
                if self.index is not None and await self._reverts_released(records):
                    records = await anyio.to_thread.run_sync(self.index.records)
                records, owner = await self.fates_learnt(records)
                now = time.time()
                ledger.count_journal(
                    records, now, await self._held_nonce(records, ledger, now), owner
                )
            refusal = ledger.refusal(price)
            if refusal:
                return refusal + ledger.reverts_words(records, time.time())
            if self.index is not None:  # under the send lock: one compaction at a time
                await anyio.to_thread.run_sync(self.index.compact_if_due)
            # this requester's requests on this chain hold its nonces, no one else's
            mine = await anyio.to_thread.run_sync(self.own_holds, records)
            others = [hold for hold in mine if hold.key != key]
            way = await self._offchain_way(offer, price, retry)
            if isinstance(way, PriceRefusal):
                return way
            if way:
                nonce = await self._offchain_nonce(
                    others, retry, self.settings.offchain == OffchainMode.ONLY.value
                )
                if isinstance(nonce, int):
                    return await self._send_offchain(
                        tool, offer, payload, key, (price, nonce), timer, carried, retry
                    )
                if nonce:
                    return nonce  # --offchain only, behind a request not accepted
            stranding = await self._onchain_stranding(records)
            if stranding:
                return stranding  # an accepted off-chain request holds the nonce
            uploaded = await anyio.to_thread.run_sync(
                upload_json,
                self.settings.ipfs_api_url,
                payload,
                timer.within(self.settings.timeout, self.settings.io_timeout),
            )
            timer.lap("ipfs_upload")
            data = bytes.fromhex(uploaded.digest[2:])

            def prepare_and_send() -> (
                Union[JournalEntry, PriceRefusal]  # pylint: disable=too-many-locals
            ):
                try:
                    nonce = market.market_nonce()
                    prepared = JournalEntry(
                        key=key,
                        tool=tool.mech_tool,
                        mech=offer.address,
                        price=price,
                        payment_type=offer.payment_type,
                        cid=uploaded.cid,
                        data=uploaded.digest,
                        market_nonce=nonce,
                        request_id=market.next_request_id(
                            offer.address, data, price, offer.payment_type, nonce
                        ),
                        from_block=market.head(),
                        extra=dict(carried),
                    )
                except MarketError as exc:
                    raise MarketError(f"{exc}; {nothing_new_words(entry)}") from exc
                # funds read now; a token offer: approve exactly the shortfall
                # (journalled first); native: value = what the prepaid balance lacks
                short, value = self._ready_to_pay(
                    offer, prepared, entry, self.receipt_wait(timer)
                )
                if short:
                    return (
                        short
                        if isinstance(short, PriceRefusal)
                        else PriceRefusal(short)
                    )
                try:
                    transaction = market.request_transaction(
                        offer.address,
                        data,
                        price,
                        offer.payment_type,
                        market.longest_response_timeout(),
                        **value,
                    )
                    signed = market.sign(transaction)
                except GasOverBound as exc:
                    # the mech's code, run in the request, sets the gas: refused
                    # before signing, and the mech not sent another for the window
                    refused = gas_refusal(offer.address, exc.estimate, exc.bound)
                    return with_approval(self._remembered(refused), prepared)
                except MarketError as exc:
                    # the gas estimate failed: if the price moved since it was read,
                    # or the funds (an allowance revoked), say so in words (not the
                    # contract's error hex); a revert the mech chose refuses only this
                    # offer; nothing was sent
                    again = market.mech_price(offer.address)
                    if again is None or again == price:
                        changed = self._funds_changed(
                            offer.address, offer.payment_type, price
                        )
                        if changed is not None:
                            return with_approval(changed, prepared)
                        if isinstance(exc, EstimateReverted):
                            refused = revert_refusal(
                                offer.address,
                                f"at its gas estimate{exc.within} {ESTIMATE_UNSENT}",
                                exc.reason,
                            )
                            return with_approval(self._remembered(refused), prepared)
                        raise
                    return with_approval(
                        PriceRefusal(
                            f"mech {offer.address}'s price moved from {amount(price)} "
                            f"to {amount(again)} while the request was being prepared"
                        ),
                        prepared,
                    )
                prepared.raw_tx = signed.raw_tx
                prepared.tx_hash = signed.tx_hash
                prepared.account_nonce = signed.account_nonce
                prepared.paid_at = time.time()
                record_signer(prepared, market.requester, transaction)
                journal.save(
                    prepared
                )  # before the broadcast: a retry re-sends these bytes
                # counted before sending: a send that fails after the broadcast (no
                # receipt in time) may still be mined, so it must count against the cap
                ledger.record(price, prepared.request_id, prepared.key)
                try:
                    return self.broadcast_again(prepared, self.receipt_wait(timer))
                except RequestReverted:
                    return self.refused_when_mined(prepared)
                except MarketError as exc:  # it may be mined yet: say which request
                    raise MarketError(
                        f"request {prepared.request_id} to mech {offer.address} "
                        f"({amount(price)}, tx {prepared.tx_hash}) was signed and "
                        f"journalled before its broadcast, which ended: {exc}"
                    ) from exc

            sent = await anyio.to_thread.run_sync(prepare_and_send)
            if isinstance(sent, PriceRefusal):
                return sent
            timer.lap("transaction")
            LOGGER.info(
                "request %s sent to mech %s for %s (tx %s)",
                sent.request_id,
                sent.mech,
                amount(price),
                sent.tx_hash,
            )
            return sent

    async def sent_again_if_dropped(  # pylint: disable=too-many-return-statements
        self, entry: JournalEntry, offers: Sequence[Offer], timer: PhaseTimer
    ) -> Union[JournalEntry, str, None]:
        """Send a journalled request again when the chain dropped it (:mod:`.dropped`).

        Under the send lock, the entry read again (another call may have sent it
        again meanwhile). A request :func:`.dropped.dropped_from_chain` says is gone is
        journalled as such (:func:`.dropped.record_dropped`) before anything is sent,
        then its same signed transaction is broadcast again (the same account nonce:
        at most one of the two can ever be mined; nothing more counts against
        ``--max-spend``, the entry still being the call's one request), unless its mech
        may not be paid now (:meth:`_stale`): then its nonce is cancelled
        (:meth:`cancel_request`) and the call says so; nothing else is paid for the
        call until that cancellation is final (:func:`.dropped.held_until_final`). A request whose
        nonce another transaction took, final (:func:`.dropped.chain_fate`), can never
        be mined: the entry is journalled as such (:func:`.dropped.record_never_mined`)
        and the call key freed, the caller sending anew.

        :param entry: the call's entry, status ``sent``.
        :param offers: the offers the call may pay now (the tool's as served).
        :param timer: the call's clock: the broadcast again, or the cancellation's,
            waits within its ``--timeout`` (:meth:`receipt_wait`).
        :return: None when the request is not known to be gone (wait for it, as
            before); the entry sent again (or found mined meanwhile); a
            :class:`.dropped.NeverMined` sentence when the call key was freed, or a
            :class:`PriceRefusal` when its bytes sent again reverted when mined
            (:meth:`refused_when_mined`): the caller then tries the offers anew; or a
            sentence when it was cancelled instead (nothing is paid for it).
        :raises MarketError: when the transaction sent again, or its cancellation, is
            not mined in time or refused (the journal says which: a call with the same
            arguments resolves it, never paying twice); the first says the request was
            dropped.
        """
        market, journal = self.market, self.journal
        assert market is not None and journal is not None  # nosec: see __init__
        depth = self.settings.final_depth
        if await anyio.to_thread.run_sync(chain_fate, market, entry, depth) is None:
            return None  # on chain, or unsure: no lock taken, nothing read again
        async with self.lock, self.state_folder_lock() as locked:
            try:
                current = await loaded(journal, entry.key) if locked else None
            except JournalError:
                current = None
            if current is None:
                return None  # unread, or the lock held elsewhere: wait, as before
            fate = await anyio.to_thread.run_sync(chain_fate, market, current, depth)
            if fate is None:
                return None
            if fate[0] == NEVER_MINED_KEY:
                said = record_never_mined(current, fate[1], depth)
                await saved(journal, current)  # before anything is sent anew
                LOGGER.warning("%s", said)
                return NeverMined(said)
            assert fate[0] == DROPPED_KEY  # nosec: chain_fate's two outcomes
            record = record_dropped(current, fate[1])
            await saved(journal, current)  # before anything is sent
            LOGGER.warning("%s", dropped_text(record))
            stale = await anyio.to_thread.run_sync(self._stale, current, offers)
            if not stale:
                try:
                    return await anyio.to_thread.run_sync(
                        self.broadcast_again, current, self.receipt_wait(timer)
                    )
                except RequestReverted:  # nothing paid: the caller tries the offers
                    return await anyio.to_thread.run_sync(
                        self.refused_when_mined, current
                    )
                except MarketError as exc:  # the entry says prepared: the next call
                    raise MarketError(f"{dropped_text(record)}, but {exc}") from exc
            won = await anyio.to_thread.run_sync(
                self.cancel_request, current, stale, self.receipt_wait(timer)
            )
            if won is not None:
                return won  # mined before its cancellation: paid, its answer read
            return (
                f"request {record['request_id']} (tx {record['tx_hash']}) is no longer "
                f"on chain (a reorg dropped it) and was not sent again: {stale}; its "
                f"account nonce was taken by cancellation "
                f"{current.extra[CANCEL_KEY]['tx_hash']}, so nothing is paid for it. "
                f"Call again with the same arguments once the cancellation is "
                f"{depth} blocks deep (final) to send a new request"
            )

    def _stale(self, entry: JournalEntry, offers: Sequence[Offer]) -> str:
        """Why a journalled, unmined request may not be re-broadcast now (blocking).

        :param entry: the call's entry.
        :param offers: the offers the call may pay now.
        :return: :func:`.cancel.stale_request`'s sentence ("" : broadcast it again).
        """
        assert self.market is not None  # nosec: a sender exists only with one
        price_now = self.market.mech_price(entry.mech)
        asset = payment_terms(entry.payment_type).asset
        max_price = (
            self.settings.max_price
            if asset == ASSET_NATIVE
            else self.settings.token_max_price.get(asset)
        )
        return stale_request(entry, offers, price_now, max_price)

    def cancel_request(
        self, entry: JournalEntry, reason: str, wait: Optional[float] = None
    ) -> Optional[JournalEntry]:
        """Take a stale request's nonce with a zero-value transfer; say who won (blocking).

        The cancellation is signed once and journalled in the entry before its first
        broadcast (a retry broadcasts the same bytes). When the nonce is mined the chain
        says which transaction took it.

        :param entry: the call's entry, its request signed and its nonce unmined.
        :param reason: why the request may not be sent ("" when the entry already
            records its cancellation).
        :param wait: seconds its broadcast and receipt may take (the call's
            :meth:`receipt_wait`; None: ``--io-timeout``).
        :return: the entry marked sent when the request was mined after all (it is
            paid: its answer is read), or None when the cancellation took the nonce
            (nothing was paid for it).
        :raises MarketError: when neither is mined in time (call again: the
            cancellation, never the request, is broadcast again).
        """
        market, journal = self.market, self.journal
        assert market is not None and journal is not None  # nosec: see __init__
        cancel = cancel_record(entry)
        if cancel is None:
            cancel = market.sign_cancel(
                SignedRequest(entry.raw_tx, entry.tx_hash, entry.account_nonce)
            )
            record_cancel(entry, cancel, reason)
            journal.save(entry)  # before the broadcast: a retry re-sends these bytes
            LOGGER.warning(
                "request %s to mech %s (tx %s, not mined) is cancelled with tx %s: %s",
                entry.request_id,
                entry.mech,
                entry.tx_hash,
                cancel.tx_hash,
                reason,
            )
        failure: Optional[MarketError] = None
        try:
            market.broadcast(cancel, self.settings.io_timeout if wait is None else wait)
        except MarketError as exc:  # e.g. the request took the nonce first
            failure = exc
        try:
            # the request mined first, perhaps under another id than the derived one
            self.correct_request_id(entry)
            won = market.status(entry.request_id) != STATUS_DOES_NOT_EXIST
            taken = won or market.confirmed_nonce() > entry.account_nonce
        except MarketError as exc:  # unread (the call's time ended): which won unsaid
            why = f"{failure or 'no receipt'}; then {exc}"
            raise MarketError(cancel_unsettled(entry, cancel.tx_hash, why)) from exc
        if won:
            entry.status = CallStatus.SENT
            journal.save(entry)
            LOGGER.warning(
                "request %s to mech %s was mined before its cancellation: it is paid",
                entry.request_id,
                entry.mech,
            )
            return entry
        if not taken:
            raise MarketError(
                cancel_unsettled(entry, cancel.tx_hash, failure or "no receipt")
            )
        return None

    def refund_if_never_paid(self, entry: JournalEntry) -> None:
        """Uncount a journalled request whose nonce is final but which is not on chain.

        Its receipt says reverted (a front-running price raise) or none (its nonce went
        to another transaction): it can never be paid, so ``--max-spend`` gives its
        price back (:meth:`.spend_cap.SpendLedger.refund`) and the entry says so for
        every process and restart (:func:`.mined_reverts.record_never_paid`, read by
        :func:`.mined_reverts.never_paid`: no receipt read again). A receipt that
        succeeded leaves it counted (the chain not understood: the safe side). A
        revert seen here first skips its mech as :meth:`refused_when_mined` does.

        :param entry: the journal entry (its ``tx_hash``, ``price``, ``request_id``),
            its account nonce final (:func:`.dropped.held_until_final` said "").
        """
        market = self.market
        assert market is not None  # nosec: a sender exists only with one
        journalled = never_paid(entry)
        reverted = (
            market.transaction_reverted(entry.tx_hash)
            if entry.tx_hash and not journalled
            else None
        )
        if reverted is False:
            return
        asset = payment_terms(entry.payment_type).asset
        self.token_ledgers.get(asset, self.ledger).refund(entry.price, entry.request_id)
        if reverted:  # its receipt unseen until now (a timeout, a restart)
            self._reverted_when_mined(
                entry,
                f"mech {entry.mech}'s request (tx {entry.tx_hash}) was mined and "
                "reverted (only gas was spent)",
            )
        if not journalled:
            record_never_paid(
                market, self.journal, entry, bool(reverted), self.settings.final_depth
            )

    def receipt_wait(self, timer: PhaseTimer) -> float:
        """Seconds a call's send waits for its receipt: within the call's ``--timeout``.

        :param timer: the call's clock.
        :return: ``--io-timeout``, or what is left of the call's time when less, but
            :data:`LEAST_RECEIPT_WAIT` at least (a send begun is given a look at its
            receipt; one not seen is journalled and found by the next call).
        """
        return timer.within(
            self.settings.timeout, self.settings.io_timeout, LEAST_RECEIPT_WAIT
        )

    def broadcast_again(
        self, entry: JournalEntry, wait: Optional[float] = None
    ) -> JournalEntry:
        """Broadcast a journalled request and wait for it; mark it sent (blocking).

        The market's ``MarketError`` (not mined in time, not sent) leaves the entry as
        journalled: a call with the same arguments finds it.

        :param entry: a journal entry holding the signed request.
        :param wait: seconds to wait for its receipt (None: ``--io-timeout``).
        :return: the entry, sent.
        """
        market, journal = self.market, self.journal
        assert (
            market is not None and journal is not None
        )  # nosec: a sender exists only with both
        sent = market.broadcast(
            SignedRequest(entry.raw_tx, entry.tx_hash, entry.account_nonce),
            self.settings.io_timeout if wait is None else wait,
        )
        entry.tx_hash = str(sent)
        entry.status = CallStatus.SENT
        record_mined(entry, time.time())  # its receipt just seen: mined by now
        if isinstance(sent, SentTransaction) and sent.gas is not None:
            entry.extra[GAS_KEY] = sent.gas  # said in the result's _meta (.delivery)
        self.correct_request_id(entry)
        journal.save(entry)
        return entry

    def correct_request_id(self, entry: JournalEntry) -> bool:
        """:func:`.journal.correct_request_id` with this sender's market and journal.

        :param entry: a journal entry with its ``tx_hash``.
        :return: whether the id was corrected.
        """
        assert (
            self.market is not None and self.journal is not None
        )  # nosec: a sender exists only with both
        derived = entry.request_id
        if not correct_request_id(self.market, self.journal, entry):
            return False
        # the caps count the request under the id mined, never under both
        asset = payment_terms(entry.payment_type).asset
        self.token_ledgers.get(asset, self.ledger).renamed(derived, entry.request_id)
        return True

    async def resumed_from_chain(
        self, tool: ServedTool, arguments: Dict[str, Any], key: str
    ) -> Optional[JournalEntry]:
        """Find a call with no journal entry on chain (:func:`.recall.resume_from_chain`).

        A chain that cannot be read raises ``MarketError`` (nothing is paid then).

        :param tool: the tool called.
        :param arguments: the validated arguments.
        :param key: the call key.
        :return: the resumed entry, or None when the chain has no such request.
        """
        market, journal = self.market, self.journal
        assert (
            market is not None and journal is not None
        )  # nosec: a sender exists only with both
        return await anyio.to_thread.run_sync(
            resume_from_chain, market, journal, tool, arguments, key
        )
