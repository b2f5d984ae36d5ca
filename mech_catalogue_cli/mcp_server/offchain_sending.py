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

"""The off-chain half of sending a call: which nonce, which request, never stranded.

:class:`OffchainSending` is the base of :class:`.sending.RequestSender`: the pieces both
halves use (the caps of an asset, the cross-process send lock) and the off-chain
decisions under that lock (``.outstanding``: a signed request holds its marketplace
nonce until the nonce passes it). :class:`PriceRefusal` is why an offer is not paid
(the next offer is tried), whichever half refused it.
"""

import logging
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import (
    Any,
    AsyncIterator,
    Dict,
    List,
    Optional,
    Sequence,
    Tuple,
    Union,
)

import anyio
from filelock import Timeout
from mech_catalogue_core.ipfs.cid import DAG_PB, digest_to_cid
from mech_catalogue_core.ipfs.unixfs import root_digest
from mech_catalogue_core.model.payment import payment_terms
from mech_catalogue_core.model.vocabulary import CallStatus

from .auto_prepay import AutoPrepayer
from .call_end_words import offchain_signed_words, unposted_words
from .ipfs import payload_bytes
from .journal import Journal, JournalEntry, loaded, recorded, saved
from .market import STATUS_DOES_NOT_EXIST, MarketError, Marketplace
from .offchain import (
    POST_SECONDS,
    OffchainPoster,
    OffchainRefusal,
    record_passed,
    release_unsettleable,
)
from .offchain_refusals import said
from .offers import Offer
from .option_defaults import OffchainMode
from .outstanding import (
    BOUND_KEY,
    Hold,
    accepted_ahead_text,
    blocking_hold,
    held_behind,
    holds_of,
    mark_passed,
    mark_unsent,
    never_posted_before,
    next_nonce,
    not_accepted_text,
    onchain_blocker,
    outstanding,
    owner_text,
    passed_text,
    remember_attempt,
    settle_on,
    stranding_text,
)
from .settings import CallSettings, PhaseTimer
from .signed_parts import signed_parts
from .source import ServedTool
from .spend_cap import PaidRecord, SpendLedger, passed_unseen
from .spending import JournalIndex
from .unmined import learn_fates

LOGGER = logging.getLogger("mech_catalogue.mcp")


class PriceRefusal(str):
    """Why an offer was not paid (its price or this requester's funds now): try the next.

    ``payment`` holds the payment decision behind it (``Payment.to_dict``), when one was
    made, for the result's ``_meta``; ``mined`` whether the offer's request was mined
    and reverted (gas spent), whatever the reads after its receipt said.
    """

    payment: Optional[Dict[str, Any]] = None
    mined: bool = False


def refusal_with(text: str, payment: Dict[str, Any]) -> PriceRefusal:
    """A :class:`PriceRefusal` carrying its payment decision (``Payment.to_dict``)."""
    refusal = PriceRefusal(text)
    refusal.payment = payment
    return refusal


@dataclass(frozen=True)
class OffchainRetry:
    """A call whose off-chain requests were not accepted: how it is signed again.

    :param entry: its journal entry (its current and earlier requests).
    :param nonce: the nonce its requests hold (signed again at it), or None when the
        requester's nonce passed them unsettled (a new request, at a free nonce).
    """

    entry: JournalEntry
    nonce: Optional[int]


class OffchainSending:
    """What :class:`.sending.RequestSender` keeps, and its off-chain decisions."""

    market: Optional[Marketplace]
    journal: Optional[Journal]
    settings: CallSettings
    ledger: SpendLedger
    token_ledgers: Dict[str, SpendLedger]
    offchain: Optional[OffchainPoster]
    auto_prepay: Optional[AutoPrepayer]
    lock: anyio.Lock
    index: Optional[JournalIndex]
    #: :func:`.outstanding.owner_text` of this requester and chain, once read
    _owner: str = ""

    def owner(self) -> str:
        """Whose marketplace nonce this server's requests hold (blocking, read once).

        :return: :func:`.outstanding.owner_text` of the requester and the chain's id
            (read from the RPC the first time; its failure raises ``MarketError`` or
            the RPC client's error).
        """
        if not self._owner:
            assert self.market is not None  # nosec: a sender exists only with one
            chain_id = (
                self.offchain.chain_id()
                if self.offchain is not None
                else int(self.market.w3.eth.chain_id)
            )
            self._owner = owner_text(self.market.requester, chain_id)
        return self._owner

    def own_holds(self, records: Sequence[PaidRecord]) -> List[Hold]:
        """The journalled requests holding this requester's nonces on this chain (blocking).

        :param records: the journal's records.
        :return: their holds of this requester on this chain (and of entries that do
            not say whose: :meth:`.outstanding.Hold.held_by`).
        """
        owner = self.owner_of(records)
        return [
            hold for record in records for hold in record.holds if hold.held_by(owner)
        ]

    def owner_of(self, records: Sequence[PaidRecord]) -> str:
        """:meth:`owner` when some record holds a nonce or says whose it is, else "".

        Blocking. A journal whose entries never say whose they are compares nothing,
        so nothing more is read than before entries had owners. The chain id not read
        (an RPC or a stand-in without ``eth_chainId``) is logged and gives "": every
        entry is then counted as this requester's (the safe side).

        :param records: the journal's records.
        :return: the owner text, or "".
        """
        if not any(record.holds or record.owner for record in records):
            return ""
        try:
            return self.owner()
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # MarketError, the RPC client's errors: never a reason to count less
            LOGGER.warning("the chain id was not read (%s)", type(exc).__name__)
            return ""

    def journal_holds(self) -> List[Hold]:
        """Every journalled off-chain request of this requester that may still be settled.

        Blocking.

        :return: the holds of the journal's records (:attr:`.spend_cap.PaidRecord.holds`,
            the index brought up to date) of this requester on this chain; empty
            without a journal.
        """
        if self.index is None:
            return []
        return self.own_holds(self.index.records())

    def _caps(self, offer: Offer) -> Tuple[Optional[int], SpendLedger]:
        """The per-call cap and the run's ledger of the offer's payment asset.

        :param offer: the offer (or a journal entry: its ``payment_type``).
        :return: ``(--max-price of its asset or None, its SpendLedger)``.
        """
        asset = payment_terms(offer.payment_type).asset
        if asset in self.token_ledgers:
            return self.settings.token_max_price.get(asset), self.token_ledgers[asset]
        return self.settings.max_price, self.ledger

    def _lock_wait(self) -> float:
        """Seconds a send waits for another process's: its reads, upload and receipt.

        :return: seconds.
        """
        return 4 * self.settings.io_timeout

    @asynccontextmanager
    async def state_folder_lock(self) -> AsyncIterator[bool]:
        """Hold the journal's cross-process send lock (:meth:`.journal.Journal.send_lock`).

        :yield: True when held; False when another process held it past
            :meth:`_lock_wait` (then nothing may be sent).
        """
        assert self.journal is not None  # nosec: a sender exists only with one
        lock = self.journal.send_lock(self._lock_wait())
        try:
            await anyio.to_thread.run_sync(lock.acquire)
        except Timeout:
            yield False
            return
        try:
            yield True
        finally:
            lock.release()

    async def offchain_target(self, entry: JournalEntry) -> Union[JournalEntry, str]:
        """Which of a sent off-chain call's requests to wait for, or why none can be.

        Under the send lock, the call's entry read again (:meth:`_offchain_again`): the
        one settled among every request signed for the call, else the accepted one
        while its nonce is not passed; once passed unsettled, the sentence saying so
        (the entry is then ``prepared`` again: the next call signs a new request).

        :param entry: a ``sent`` entry with ``extra.offchain``.
        :return: the entry to wait for, or the sentence.
        """
        journal = self.journal
        assert journal is not None  # nosec: a sender exists only with one
        async with self.lock, self.state_folder_lock() as locked:
            if not locked:
                return entry  # another process is sending: wait for the one journalled
            current = await loaded(journal, entry.key) or entry
            if "offchain" not in current.extra or current.status != CallStatus.SENT:
                return current
            again = await self._offchain_again(current)
            if isinstance(again, OffchainRetry):
                return (
                    f"the off-chain request {current.request_id} to mech "
                    f"{current.mech} was not accepted by its endpoint; call again with "
                    "the same arguments to sign it again at its nonce"
                )
            return again

    async def _offchain_again(
        self, entry: JournalEntry
    ) -> Union[JournalEntry, str, OffchainRetry]:
        """A journalled off-chain call: wait, say why not, or sign again (``.outstanding``).

        Every request signed for the call is looked up on chain: one settled (or
        recorded) is the one waited for, whichever it is. Else, while the requester's
        marketplace nonce has not passed them, an accepted one is waited for and a
        refused or unposted one is signed again at its nonce (never refunded: the mech
        holds it signed). Once the nonce passed them unsettled, they can never be
        settled: the entry says so, ``--max-spend`` gives their price back, and the call
        says so (an accepted one) or signs a new request (one never accepted).

        :param entry: an entry with ``extra.offchain``.
        :return: the entry to wait for; why nothing is waited for (the accepted request
            can never be settled: call again); or how to sign again.
        """
        market, journal = self.market, self.journal
        assert market is not None and journal is not None  # nosec
        holds = holds_of(entry)
        # the nonce and every status at one block: a request settled between two
        # reads at the head would otherwise look passed unsettled (the nonce is read
        # only when none is settled)
        block = await anyio.to_thread.run_sync(market.head)
        for hold in holds:
            status = await anyio.to_thread.run_sync(
                market.status, hold.request_id, block
            )
            if status != STATUS_DOES_NOT_EXIST:
                earlier = hold.request_id != entry.request_id
                changed = (
                    earlier or not hold.accepted or entry.status != CallStatus.SENT
                )
                if earlier:
                    LOGGER.warning(
                        "call %s: its earlier off-chain request %s was settled; its "
                        "answer is read",
                        entry.key,
                        hold.request_id,
                    )
                settle_on(entry, hold.request_id)  # the mech took it, whatever it said
                asset = payment_terms(entry.payment_type).asset
                # its call counts it alone: the others held its nonce
                self.token_ledgers.get(asset, self.ledger).settle(hold.request_id)
                entry.status = CallStatus.SENT
                if changed:  # paid whatever is written: a failed write only logged
                    await recorded(journal, entry)
                return entry
        chain_nonce = await anyio.to_thread.run_sync(market.market_nonce, block)
        live = outstanding(holds, chain_nonce)
        # a call re-signs only while none of its requests is accepted: an accepted one
        # is its current request
        if any(hold.accepted for hold in live):
            if entry.status == CallStatus.PREPARED:
                entry.status = CallStatus.SENT
                await recorded(journal, entry)
            return entry  # accepted by its mech, its nonce not passed: only wait
        if live:
            return OffchainRetry(entry, live[0].nonce)
        marked = mark_passed(entry)
        entry.status = CallStatus.PREPARED  # nothing paid, nothing to wait for
        await saved(journal, entry)  # before the cap gives their price back
        asset = payment_terms(entry.payment_type).asset
        ledger = self.token_ledgers.get(asset, self.ledger)
        for hold in marked:
            ledger.release(hold.request_id)  # the entry now counts them 0 too
        if any(hold.accepted for hold in marked):
            return passed_text(entry, marked, chain_nonce)
        return OffchainRetry(entry, None)

    async def _offchain_nonce(
        self, others: List[Hold], retry: Optional[OffchainRetry], only: bool
    ) -> Union[int, str]:
        """The nonce to sign a call's off-chain request at, or why none (``.outstanding``).

        :param others: the other calls' holds of this requester, from the journal
            (under the send lock).
        :param retry: the call's earlier requests, when it has some.
        :param only: ``--offchain only`` (else ``auto``, or a call's own retry).
        :return: the nonce; or, when another call's request is outstanding, "" under
            ``auto`` (the on-chain request is sent: it retires a request its mech did
            not accept, and waits for an accepted one, ``_onchain_stranding``), else
            the sentence saying so (a :class:`.outstanding.HeldBehind` for an accepted
            one: the call waits for it to be settled).
        """
        assert self.market is not None  # nosec
        if retry is not None and retry.nonce is not None:
            return retry.nonce  # the same nonce: only one of the call's can settle
        chain_nonce = await anyio.to_thread.run_sync(self.market.market_nonce)
        now, bound = time.time(), self.settings.timeout
        blocking = blocking_hold(others, chain_nonce, now, bound)
        if blocking is None:
            # chain_nonce, or a given-up request's nonce: the first settled is charged
            return next_nonce(others, chain_nonce, now, bound)
        if not only:
            return ""
        if not blocking.accepted:
            return not_accepted_text(blocking, chain_nonce)
        return held_behind(
            accepted_ahead_text(blocking, chain_nonce, bound), blocking, bound
        )

    async def _onchain_stranding(self, records: Sequence[Any]) -> str:
        """Why no on-chain request is sent now (an accepted off-chain one holds the nonce).

        :param records: the journal's records (their ``holds``: this requester's on
            this chain count).
        :return: the sentence (a :class:`.outstanding.HeldBehind`: the call waits for
            it to be settled), or "" (also when no off-chain request is journalled).
        """
        if self.market is None or not any(record.holds for record in records):
            return ""
        holds = await anyio.to_thread.run_sync(self.own_holds, records)
        if not holds:
            return ""
        market = self.market
        chain_nonce = await anyio.to_thread.run_sync(market.market_nonce)
        if not outstanding(holds, chain_nonce):
            return ""
        bound = self.settings.timeout
        blocker = onchain_blocker(holds, chain_nonce, time.time(), bound)
        if blocker is None:
            return ""  # none, or past its bound: given up, the nonce is taken
        return held_behind(stranding_text(blocker, chain_nonce, bound), blocker, bound)

    async def _held_nonce(
        self, records: Sequence[PaidRecord], ledger: SpendLedger, now: float
    ) -> Optional[int]:
        """``mapNonces(requester)`` when a record older than the window holds a nonce.

        Such a request still counts against ``--max-spend`` while its nonce is not
        passed (:meth:`.spend_cap.SpendLedger.count_journal`); the chain is read only
        then.

        :param records: the journal's records.
        :param ledger: the ledger counting them (its window).
        :param now: unix seconds.
        :return: the nonce; None when no such record (or the chain unread: logged,
            and every such request counts).
        """
        if ledger.window is None or self.market is None:
            return None
        since = now - ledger.window
        if not any(record.holds and record.written_at < since for record in records):
            return None
        try:
            return int(await anyio.to_thread.run_sync(self.market.market_nonce))
        except MarketError as exc:
            LOGGER.warning(
                "the marketplace nonce could not be read (%s): every off-chain request "
                "older than --spend-window that may be outstanding is counted",
                exc,
            )
            return None

    async def fates_learnt(
        self, records: List[PaidRecord]
    ) -> Tuple[List[PaidRecord], str]:
        """Learn the fates of this requester's old unmined requests, under the send lock.

        A signed request counts until the chain shows it mined (then from its block's
        time) or its nonce taken, whatever its age (:func:`.unmined.learn_fates`).

        :param records: the journal's records.
        :return: the records (read again when an entry was written), and this
            requester and chain (:meth:`owner_of`; "": unread).
        """
        owner = await anyio.to_thread.run_sync(self.owner_of, records)
        window, depth = self.settings.spend_window, self.settings.final_depth
        if window is None or self.market is None or self.journal is None:
            return records, owner
        if self.index is None:
            return records, owner
        since = time.time() - window
        learn = partial(learn_fates, since=since, owner=owner, depth=depth)
        if await anyio.to_thread.run_sync(learn, self.market, self.journal, records):
            records = await anyio.to_thread.run_sync(self.index.records)
        return records, owner

    async def _released(self, records: List[PaidRecord]) -> bool:
        """Release the refused off-chain requests that can never be settled.

        :param records: the journal's records.
        :return: whether any was released (its price no longer counts, in this run's
            ledger either: :func:`.offchain.release_unsettleable`; the journal's entry
            says what it still counts, e.g. an earlier request of its call).
        """
        if self.offchain is None or self.journal is None:
            return False
        if not any(record.unsettled_nonce >= 0 for record in records):
            return False
        released = await anyio.to_thread.run_sync(
            release_unsettleable, self.offchain, self.journal, records
        )
        for entry in released:
            asset = payment_terms(entry.payment_type).asset
            self.token_ledgers.get(asset, self.ledger).release(entry.request_id)
        return bool(released)

    async def _passing_recorded(self, records: List[PaidRecord]) -> bool:
        """Record when the requester's nonce was first seen past journalled requests.

        :param records: the journal's records.
        :return: whether any entry was written (:func:`.offchain.record_passed`: the
            cap then counts it within the window from now, or nothing when the chain
            showed it never settled).
        """
        if self.offchain is None or self.journal is None:
            return False
        if not passed_unseen(records, time.time()):
            return False
        recorded_now = await anyio.to_thread.run_sync(
            record_passed, self.offchain, self.journal, records
        )
        return bool(recorded_now)

    async def passing_recorded_first(self) -> bool:
        """Before a call decides which mechs go last: record what the chain says passed.

        A call interrupted after its mech accepted and settled its request, before the
        server read the answer, leaves an acceptance that looks given up once its bound
        passes; recorded settled (:func:`.offchain.record_passed`, as each payment
        under ``--max-spend`` does), it no longer puts that honest mech last
        (adversarial review adv29l). Takes the send lock (this process's and the
        state folder's) and reads the chain only for journalled requests whose passing
        is not yet recorded; a chain or lock not had records nothing (logged), and the
        call goes on with the journal as it is.

        :return: whether any entry was written (then read the journal again).
        """
        if self.offchain is None or self.journal is None or self.index is None:
            return False
        index = self.index
        if not passed_unseen(index.records_read(), time.time()):
            return False  # nothing to learn (as last read): no lock, no chain read
        async with self.lock, self.state_folder_lock() as locked:
            if not locked:
                return False
            records = await anyio.to_thread.run_sync(index.records)
            if not index.has_read:
                return False
            return await self._passing_recorded(records)

    async def _offchain_way(  # pylint: disable=too-many-return-statements
        self, offer: Offer, price: int, retry: Optional[OffchainRetry] = None
    ) -> Union[bool, PriceRefusal]:
        """Whether this offer is called off-chain (``--offchain``), or why it is skipped.

        A call whose signed off-chain request is outstanding is signed again off-chain
        at its nonce, whatever ``--offchain`` says: an on-chain request would take
        another nonce, and both could be paid.

        :param offer: the offer.
        :param price: its price now.
        :param retry: the call's earlier requests, when it has some.
        :return: True for off-chain, False for the on-chain request, or a
            :class:`PriceRefusal` (``only`` and no endpoint: the next offer is tried).
        """
        mode = OffchainMode(self.settings.offchain)
        held = retry is not None and retry.nonce is not None
        if held and (not offer.endpoint or self.offchain is None):
            assert retry is not None  # nosec: held
            return PriceRefusal(
                f"mech {offer.address} is not called: this call's off-chain request "
                f"{retry.entry.request_id} to mech {retry.entry.mech} is outstanding at "
                f"nonce {retry.nonce} (the mech may still settle it), so the call is "
                "signed again only off-chain at that nonce, never on chain (both could "
                "be paid)"
            )
        if mode is OffchainMode.NEVER and not held or self.offchain is None:
            return False
        if not offer.endpoint:
            if mode is OffchainMode.ONLY:
                return PriceRefusal(
                    f"mech {offer.address} declares no off-chain endpoint "
                    "(--offchain only)"
                )
            return False
        unsigned = await anyio.to_thread.run_sync(self.offchain.signer_refusal)
        if unsigned:
            if mode is OffchainMode.ONLY:
                return PriceRefusal(
                    f"mech {offer.address} is not called off-chain: {unsigned} "
                    "(--offchain only)"
                )
            LOGGER.warning("mech %s is called on chain: %s", offer.address, unsigned)
            return False
        if (
            held
            or mode is OffchainMode.ONLY
            or (
                self.auto_prepay is not None
                and self.auto_prepay.opted_for(offer.payment_type)
            )
        ):
            return True  # the mech says whether the balance covers it (402)
        try:
            prepaid = await anyio.to_thread.run_sync(
                self.offchain.prepaid, offer.payment_type
            )
        except MarketError:
            return False  # unread: the on-chain request, which needs no balance
        return prepaid >= price

    async def _send_offchain(  # pylint: disable=too-many-arguments
        self,
        tool: ServedTool,
        offer: Offer,
        payload: Dict[str, Any],
        key: str,
        price_nonce: Tuple[int, int],
        timer: PhaseTimer,
        carried: Dict[str, Any],
        retry: Optional[OffchainRetry] = None,
    ) -> Union[JournalEntry, str]:
        """Sign the request and post it to the offer's endpoint; journalled first.

        A believed 402 for an asset the user opted in for (``--auto-prepay``) is
        followed by one deposit and one retry of the same request (:mod:`.auto_prepay`).
        The post, the deposit's receipts and the retry wait within the call's
        ``--timeout`` (:meth:`.settings.PhaseTimer.within`): an endpoint that accepts
        the connection and never answers holds the call no longer than its time.
        The call's earlier requests stay in its entry (``.outstanding.remember_attempt``)
        and the call counts the highest price of those that may still be settled.

        :param tool: the tool called.
        :param offer: the offer (with an endpoint).
        :param payload: the request payload.
        :param key: the call key.
        :param price_nonce: the price now (the delivery rate signed) and the
            marketplace nonce to sign at (``_offchain_nonce``).
        :param timer: the call's phase timer.
        :param carried: what an earlier attempt of the call left for this one (its
            automatic deposit).
        :param retry: the call's earlier requests, when it has some.
        :return: the entry to wait for, or why the mech did not accept it (nothing paid
            for the request; an :class:`OffchainRefusal` with ``deposited`` when an
            automatic deposit was made).
        :raises MarketError: when the request cannot be signed (the chain id, the
            nonce or the head unread): nothing was signed nor posted, said so, or
            the call's automatic deposit made before (:func:`.call_end_words.unposted_words`).
        """
        poster, journal = self.offchain, self.journal
        assert poster is not None and journal is not None  # nosec
        price, nonce = price_nonce
        _, digest = root_digest(payload_bytes(payload), raw_leaves=False, cid_version=0)
        try:
            prepared = await anyio.to_thread.run_sync(
                poster.prepare,
                key,
                tool.mech_tool,
                offer.address,
                price,
                offer.payment_type,
                digest_to_cid(bytes(digest), DAG_PB),
                "0x" + bytes(digest).hex(),
                offer.endpoint,
                nonce,
            )
        except MarketError as exc:  # before signing: no new request
            if retry is not None and signed_parts(retry.entry).settleable:
                raise MarketError(
                    f"{exc}; {offchain_signed_words(retry.entry)}"
                ) from exc
            raise MarketError(f"{exc}; {unposted_words(carried)}") from exc
        prepared.extra.update(carried)
        # how long its mech has to settle it before other calls take its nonce
        prepared.extra["offchain"][BOUND_KEY] = self.settings.timeout
        if retry is not None:
            remember_attempt(prepared, retry.entry)
        await saved(journal, prepared)  # before the post: never a second request
        ledger = self._caps(offer)[1]
        ledger.hold(key, holds_of(prepared))  # each request counts until shown unpaid
        refused = await anyio.to_thread.run_sync(
            poster.post,
            prepared,
            payload,
            timer.within(self.settings.timeout, POST_SECONDS),
        )
        timer.lap("offchain_post")
        if (
            isinstance(refused, OffchainRefusal)
            and refused.unsent
            and never_posted_before(prepared, None if retry is None else retry.entry)
        ):
            # nobody holds it: it holds no nonce, counts nothing, retries sign anew
            mark_unsent(prepared)
            prepared.extra["offchain"]["refused"] = refused[:1000]
            await saved(journal, prepared)
            ledger.release(prepared.request_id)  # this one only: adv29i
            return said(refused, prepared)
        auto = self.auto_prepay
        if (
            isinstance(refused, OffchainRefusal)
            and refused.challenged
            and auto is not None
            and auto.opted_for(offer.payment_type)
        ):
            refused = await anyio.to_thread.run_sync(
                auto.prepay_and_retry,
                poster,
                prepared,
                payload,
                refused,
                ledger,
                journal.save,
                (timer, self.settings.timeout),
            )
        if isinstance(refused, OffchainRefusal):
            # still counted against --max-spend: the mech holds the signed request and
            # can settle it on chain whatever it answered (the cap errs on the safe side)
            prepared.extra["offchain"]["refused"] = refused[:1000]
            await saved(journal, prepared)
            return said(refused, prepared)
        prepared.extra["offchain"]["accepted"] = True
        prepared.status = CallStatus.SENT
        prepared.paid_at = time.time()  # charged to the prepaid balance from now on
        await saved(journal, prepared)
        LOGGER.info(
            "request %s posted to mech %s's endpoint for %d (no transaction)",
            prepared.request_id,
            prepared.mech,
            price,
        )
        return prepared
