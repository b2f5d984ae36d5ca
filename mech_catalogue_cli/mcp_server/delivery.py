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

"""Reading a paid request's answer: wait for the delivery, fetch, verify, say what it is.

After payment nothing escapes as a protocol error (:meth:`DeliveryReader.await_result`):
a failure is an ``isError`` result naming the paid request and saying that calling again
with the same arguments waits for it, never pays again; a response that cannot be
structured is returned as text with a warning; an answer delivered by a mech other than
the one paid is said to be, and is an error marked untrusted unless that mech offers the
same tool with the same schema and is one this call could have paid (pinned/allowed,
confirmed, within ``--max-price``) (:func:`.offers.check_delivery`).
"""

import logging
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple, Union

import anyio
import mcp_types as types
from mech_catalogue_core.model.payment import payment_terms, say_amount
from mech_catalogue_core.model.quoted_text import sentence_for_model
from mech_catalogue_core.model.vocabulary import CallStatus

from .dropped import DROPPED_KEY, dropped_text
from .ipfs import IpfsError, fetch_response
from .journal import (
    Journal,
    JournalEntry,
    JournalError,
    correct_request_id,
    loaded,
    recorded,
)
from .listed_schemas import NEVER_LISTED, ListedSchemas
from .market import (
    STATUS_DOES_NOT_EXIST,
    Delivered,
    MarketError,
    Marketplace,
)
from .market_errors import GAS_KEY
from .node_deadline import reads_within, time_spent
from .offers import check_delivery
from .outstanding import Hold, ahead_text, give_up_text
from .paid_reads import PaidReads
from .results import answer_result, error_result, failure_text, structured_or_why
from .settings import CallSettings, PhaseTimer
from .signed_parts import signed_parts
from .source import ServedTool

LOGGER = logging.getLogger("mech_catalogue.mcp")
#: an off-chain call's entry -> the entry to wait for, or why nothing is waited for
OffchainTarget = Callable[[JournalEntry], Awaitable[Union[JournalEntry, str]]]


def _paid(entry: JournalEntry) -> str:
    """What a journalled request paid, in its asset's units (``model.payment``)."""
    return say_amount(entry.price, payment_terms(entry.payment_type).asset)


class DeliveryReader:
    """Waits for a paid request's delivery and turns the answer into a call result."""

    def __init__(
        self,
        market: Marketplace,
        journal: Journal,
        settings: CallSettings,
        offchain_target: Optional[OffchainTarget] = None,
        journal_holds: Optional[Callable[[], List[Hold]]] = None,
        listed: Optional[ListedSchemas] = None,
        paid_reads: Optional[PaidReads] = None,
    ) -> None:
        """Keep the pieces a read needs.

        :param market: the marketplace.
        :param journal: the call journal.
        :param settings: call settings (gateway, timeouts, poll interval).
        :param offchain_target: which of an off-chain call's requests to wait for, or
            why none (``sending.RequestSender.offchain_target``; None: the entry's).
        :param journal_holds: the journalled off-chain requests that may still be
            settled, blocking (``RequestSender.journal_holds``; None: unknown), to say
            which one a queued request waits behind.
        :param listed: the output schemas each session was listed (None: none
            remembered), so that an answer is structured only when the session's
            client accepts it (:mod:`.listed_schemas`).
        :param paid_reads: where the chain and gateway reads run (None: threads of
            their own, :mod:`.paid_reads`): never in the default pool that the
            transport and the journal use, one delivery read per request in flight.
        """
        self.market = market
        self.journal = journal
        self.settings = settings
        self.offchain_target = offchain_target
        self.journal_holds = journal_holds
        self.listed = listed
        self.paid_reads = paid_reads or PaidReads()

    async def progress(
        self, session: Any, done: float, total: float, message: str
    ) -> None:
        """Send one progress notification, best effort.

        :param session: the SDK session (None: nothing is sent).
        :param done: seconds waited.
        :param total: seconds the call waits at most.
        :param message: what is being waited for (shown as a sentence of the server's,
            ``quoted_text.sentence_for_model``: it may name what a mech wrote).
        """
        if session is None:
            return
        try:
            await session.report_progress(done, total, sentence_for_model(message))
        except Exception:  # pylint: disable=broad-except  # progress is best effort
            LOGGER.debug("progress not sent", exc_info=True)

    async def await_result(
        self,
        tool: ServedTool,
        entry: JournalEntry,
        timer: PhaseTimer,
        session: Any,
    ) -> types.CallToolResult:
        """Wait for a paid request's delivery and return it; never raises but cancellation.

        Everything after payment runs under this guard: a chain or IPFS failure, and
        anything unforeseen, is an ``isError`` result naming the paid request and saying
        that a call with the same arguments waits for it again without paying.

        :param tool: the tool called.
        :param entry: the journal entry of the paid request.
        :param timer: the call's phase timer.
        :param session: the SDK session for progress notifications (None: none).
        :return: the result.
        """
        meta: Dict[str, Any] = {
            "request_id": entry.request_id,
            "request_id_decimal": str(int(entry.request_id, 16)),
            "mech": entry.mech,
            "price_wei": str(entry.price),
            "price_units": _paid(entry),
            "tx_hash": entry.tx_hash,
            "request_cid": entry.cid,
            # how the request reached the mech: its own transaction, or posted to the
            # mech's endpoint and settled by the mech (``offchain.py``)
            "way": "offchain" if "offchain" in entry.extra else "onchain",
        }
        if isinstance(entry.extra.get(GAS_KEY), dict):
            # what the request transaction cost in gas, from its receipt
            meta["gas"] = entry.extra[GAS_KEY]
        if isinstance(entry.extra.get("auto_prepay"), dict):
            # the call's automatic deposit after its mech's 402 (.auto_prepay)
            meta["auto_prepay"] = entry.extra["auto_prepay"]
        if isinstance(entry.extra.get(DROPPED_KEY), dict):
            # a reorg dropped the request once; its same transaction was sent again
            meta["dropped_request"] = {
                **entry.extra[DROPPED_KEY],
                "said": dropped_text(entry.extra[DROPPED_KEY]),
            }
        if isinstance(entry.extra.get("cancelled"), dict):
            # an earlier signed request of this call, to a mech it may no longer pay,
            # was cancelled before this one was sent (.cancel)
            meta["cancelled_request"] = entry.extra["cancelled"]
        try:
            if (
                self.offchain_target is not None
                and entry.status == CallStatus.SENT
                and "offchain" in entry.extra
            ):
                # every request signed for the call: the settled one, or why none can be
                target = await self._offchain_target_in_time(entry, timer)
                if isinstance(target, str):
                    meta["seconds"] = timer.marks
                    return error_result(f"{tool.name}: {target}", meta)
                if target.request_id != entry.request_id:
                    entry = target
                    meta.update(
                        request_id=entry.request_id,
                        request_id_decimal=str(int(entry.request_id, 16)),
                        mech=entry.mech,
                        price_wei=str(entry.price),
                        price_units=_paid(entry),
                    )
            delivered = await self.wait_for_delivery(tool, entry, timer, session, meta)
            if isinstance(delivered, types.CallToolResult):
                return delivered
            return await self.delivered_result(
                tool, entry, delivered, (timer, session), meta
            )
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # after payment nothing may escape as "Internal server error"
            if not isinstance(exc, (MarketError, IpfsError)):
                LOGGER.exception(
                    "request %s: reading its answer failed", entry.request_id
                )
            meta["seconds"] = timer.marks
            return error_result(
                f"{tool.name}: request {entry.request_id} to mech {entry.mech} "
                f"({_paid(entry)}, tx {entry.tx_hash}) is paid, but its answer could "
                f"not be read now: {failure_text(exc)}. Call again with the same arguments to "
                "read it (that will not pay again).",
                meta,
            )

    async def wait_for_delivery(
        self,
        tool: ServedTool,
        entry: JournalEntry,
        timer: PhaseTimer,
        session: Any,
        meta: Dict[str, Any],
    ) -> Union[Delivered, types.CallToolResult]:
        """Poll the marketplace until the request is delivered or the call's time is up.

        The call's ``--timeout`` counts from the call's start (``timer``): what a wait
        before the send (a held nonce, finality) and the send took is not waited
        again here. The marketplace is read at least once. Each poll's node reads end
        with the call (:mod:`.node_deadline`); a poll cut there is taken as undelivered.

        :param tool: the tool called.
        :param entry: the journal entry of the paid request.
        :param timer: the call's phase timer (its clock).
        :param session: the SDK session for progress notifications (None: none).
        :param meta: the result's ``_meta`` so far.
        :return: the delivery, or the timeout's ``isError`` result (what was paid,
            where the request stands, and that calling again reads it unpaid).
        :raises MarketError: when a poll's reads fail otherwise (``await_result`` says
            the request paid and how to read it).
        """
        market = self.market
        assert market is not None  # nosec: a reader exists only with both
        before = timer.elapsed()  # of the call, spent before this wait
        total = self.settings.timeout
        first_poll = True
        while True:
            try:
                delivered = await self._polled(entry, timer, first_poll)
            except MarketError as exc:
                if not time_spent(exc):
                    raise
                if timer.elapsed() < total:
                    continue  # another call's read it shared, cut at that call's end
                delivered = None  # cut at this call's end: said as not delivered
            waited = timer.elapsed()
            if delivered is not None:
                timer.lap("delivery_wait")
                return delivered
            if first_poll:
                first_poll = False
                if await self._corrected_in_time(entry):
                    meta["request_id"] = entry.request_id
                    meta["request_id_decimal"] = str(int(entry.request_id, 16))
                    continue
            if waited >= total:
                timer.lap("delivery_wait")
                meta["seconds"] = timer.marks
                if "offchain" in entry.extra:
                    # the wait's own outcome: its reads given a look of their own
                    with reads_within(self._look(timer)):
                        where = (
                            "posted to its endpoint and accepted; the mech charges "
                            "the prepaid balance when it settles it on chain; "
                            + await self._nonce_words(entry)
                            + await self._give_up_words(entry)
                        )
                else:
                    where = f"tx {entry.tx_hash}; it stays paid on chain"
                return error_result(
                    f"{tool.name}: request {entry.request_id} to mech {entry.mech} "
                    f"({_paid(entry)}) was not delivered within {total:g} s, this "
                    f"call's --timeout ({before:.1f} s of it went before this wait: "
                    f"the send, and any wait for a held nonce or finality; "
                    f"{max(waited - before, 0.0):.1f} s waiting for the delivery) "
                    f"({where}). Call again with the same arguments to keep waiting "
                    "(that will not pay again).",
                    meta,
                )
            waiting = (
                f"waiting for mech {entry.mech} to deliver request {entry.request_id}"
            )
            if "offchain" in entry.extra:
                waiting = await self._queued_words(entry) or waiting
            await self.progress(session, round(waited, 1), total, waiting)
            await anyio.sleep(min(self.settings.delivery_poll, max(total - waited, 0)))

    async def _polled(
        self, entry: JournalEntry, timer: PhaseTimer, first: bool
    ) -> Optional[Delivered]:
        """One delivery poll (:meth:`.market.Marketplace.delivery`), its reads bounded.

        Its node reads end with the call's ``--timeout`` (:mod:`.node_deadline`); the
        first poll is given :data:`.settings.LEAST_WAIT` at least (the marketplace is
        read at least once, a send that took the call's time included).

        :param entry: the paid request's entry.
        :param timer: the call's clock.
        :param first: whether it is the call's first poll.
        :return: the delivery, or None while undelivered (the market's
            ``MarketError`` when the reads fail or are cut at their end).
        """
        read = self.paid_reads.once(
            ("delivery", entry.request_id, entry.from_block),
            self.market.delivery,
            entry.request_id,
            entry.from_block,
        )
        if not first:
            return await read
        with reads_within(self._look(timer)):
            return await read

    def _look(self, timer: PhaseTimer) -> float:
        """Seconds the wait's reads may take: the call's time left, a look at least.

        :param timer: the call's clock.
        :return: :meth:`.settings.PhaseTimer.within` of ``--timeout`` and
            ``--io-timeout`` (:data:`.settings.LEAST_WAIT` when the time is spent).
        """
        return timer.within(self.settings.timeout, self.settings.io_timeout)

    async def _offchain_target_in_time(
        self, entry: JournalEntry, timer: PhaseTimer
    ) -> Union[JournalEntry, str]:
        """Which off-chain request the wait is for (:attr:`offchain_target`), in time.

        Its chain reads begin the wait for the request's outcome: like the first
        delivery poll they are given a look when the call's time is spent
        (:meth:`_look`); cut even then, the request the journal holds now for the
        call is waited for (:meth:`_journalled_now`: a retry may have signed and posted
        a newer one since ``entry`` was read), and the wait ends in its own words
        (accepted, not settled within the call's time, how it is given up), never as
        an answer unread.

        :param entry: a ``sent`` entry with ``extra.offchain``.
        :param timer: the call's clock.
        :return: the entry to wait for, or why none can be.
        :raises MarketError: when its reads fail otherwise.
        """
        assert self.offchain_target is not None  # nosec: called only with one
        try:
            with reads_within(self._look(timer)):
                return await self.offchain_target(entry)
        except MarketError as exc:
            if not time_spent(exc):
                raise
            return await self._journalled_now(entry)

    async def _journalled_now(self, entry: JournalEntry) -> JournalEntry:
        """The call's off-chain request as the journal holds it now, else ``entry``.

        The journal keeps one entry per call key, rewritten by each retry: a call that
        re-signed and re-posted the request (another id, the same marketplace nonce)
        and saw it delivered left the newer one there. Only an entry holding a signed
        off-chain request, sent or delivered, is waited for: one ``prepared`` again (a
        retry signing now, or a nonce passed) has nothing posted to wait for yet.

        :param entry: the entry the wait was given.
        :return: the journal's entry for ``entry.key`` when it holds such a request,
            else ``entry`` (none journalled, or a file this server did not write).
        """
        try:
            newest = await loaded(self.journal, entry.key)
        except JournalError:
            return entry
        if (
            newest is None
            or newest.status not in (CallStatus.SENT, CallStatus.DELIVERED)
            or not signed_parts(newest).offchain
        ):
            return entry
        return newest

    async def _queued_words(self, entry: JournalEntry) -> str:
        """Which request an off-chain request waits behind, when it is queued (progress).

        :param entry: the call's off-chain entry.
        :return: :func:`.outstanding.ahead_text`, or "" when the marketplace's nonce is
            at or past the request's (or unread).
        """
        try:
            now = await self.paid_reads.run(self.market.market_nonce)
        except MarketError:
            return ""
        if now >= entry.market_nonce:
            return ""
        holds = (
            await anyio.to_thread.run_sync(self.journal_holds)
            if self.journal_holds is not None
            else []
        )
        holder = next((hold for hold in holds if hold.nonce == now), None)
        return ahead_text(entry, holder, now)

    async def _give_up_words(self, entry: JournalEntry) -> str:
        """When an accepted request not settled in time is given up (a timeout's text).

        :param entry: the call's off-chain entry.
        :return: "; " and :func:`.outstanding.give_up_text`, or "" when the nonce
            passed the request (calling again says whether it was settled) or the
            marketplace cannot be read.
        """
        try:
            now = await self.paid_reads.run(self.market.market_nonce)
        except MarketError:
            return ""
        if now > entry.market_nonce:
            return ""
        return "; " + give_up_text(entry, self.settings.timeout)

    async def _nonce_words(self, entry: JournalEntry) -> str:
        """What an off-chain request waits on: its nonce against the marketplace's.

        The marketplace settles a signed request only at the requester's nonce it was
        signed at (``outstanding``), so a wait says which.

        :param entry: the call's off-chain entry.
        :return: a clause.
        """
        try:
            now = await self.paid_reads.run(self.market.market_nonce)
        except MarketError as exc:
            return f"signed at nonce {entry.market_nonce} (the nonce now unread: {exc})"
        if now == entry.market_nonce:
            return f"signed at nonce {entry.market_nonce}, the next one to be settled"
        if now < entry.market_nonce:
            return (
                f"signed at nonce {entry.market_nonce}: it can be settled only after "
                f"this requester's requests at nonces {now} to "
                f"{entry.market_nonce - 1} (the marketplace is at {now})"
            )
        return (
            f"signed at nonce {entry.market_nonce}, which the marketplace passed (now "
            f"{now}): unless it was just settled, it never can be; calling again says "
            "which"
        )

    async def _corrected_in_time(self, entry: JournalEntry) -> bool:
        """:meth:`corrected_request_id`, False when the call's time ended in its reads.

        :param entry: the journal entry of the paid request.
        :return: True when the entry now names another id.
        :raises MarketError: when its reads fail otherwise.
        """
        try:
            return await self.corrected_request_id(entry)
        except MarketError as exc:
            if not time_spent(exc):
                raise
            return False  # read again by the next call, which says its request

    async def corrected_request_id(self, entry: JournalEntry) -> bool:
        """Whether a request id that does not exist was mined under another (corrected).

        An entry journalled before its id could be read from the receipt (an earlier
        run, a receipt unread) waits for a derived id; the chain says which it became
        (:func:`.journal.correct_request_id`).

        :param entry: the journal entry of the paid request.
        :return: True when the entry now names another id.
        """
        if not entry.tx_hash:
            return False
        status = await self.paid_reads.run(self.market.status, entry.request_id)
        if status != STATUS_DOES_NOT_EXIST:
            return False
        return await self.paid_reads.run(
            correct_request_id, self.market, self.journal, entry
        )

    async def delivered_result(  # pylint: disable=too-many-arguments
        self,
        tool: ServedTool,
        entry: JournalEntry,
        delivered: Delivered,
        timed: Tuple[PhaseTimer, Any],
        meta: Dict[str, Any],
    ) -> types.CallToolResult:
        """Fetch and verify the delivered response, journal it, and say what it is.

        :param tool: the tool called.
        :param entry: the journal entry of the paid request.
        :param delivered: the delivery (data and delivering mech).
        :param timed: the call's phase timer, and its SDK session (None: none),
            whose client's listed output schemas the structured answer must match.
        :param meta: the result's ``_meta`` so far.
        :return: the result.
        :raises MarketError: when the request is another account's (a tampered entry).
        """
        market, journal = self.market, self.journal
        timer, session = timed
        assert (
            market is not None and journal is not None
        )  # nosec: a reader exists only with both
        if delivered.requester != market.requester.lower():
            raise MarketError(
                f"the journal entry of this call names request {entry.request_id}, which "
                f"account {delivered.requester} sent, not this one; move the entry away"
            )
        body, response_cid = await self.paid_reads.once(
            ("response", entry.request_id, delivered.data),
            fetch_response,
            self.settings.gateway_url,
            delivered.data,
            int(entry.request_id, 16),
            timer.within(self.settings.timeout, self.settings.io_timeout),
        )
        timer.lap("fetch")
        if (entry.status, entry.response_cid) != (CallStatus.DELIVERED, response_cid):
            entry.status, entry.response_cid = CallStatus.DELIVERED, response_cid
            unsaved = await recorded(journal, entry)
            if unsaved:  # the answer is paid and read: returned whatever the journal
                meta["journal_not_written"] = unsaved
        check = check_delivery(
            entry.mech,
            delivered.mech,
            tool.offers,
            self.settings.max_price,
            self.settings.pinned,
            self.settings.allowed,
            self.settings.token_max_price,
        )
        meta.update(
            response_cid=response_cid,
            delivery_mech=check.delivery_mech,
            seconds=timer.marks,
        )
        try:
            held = self.listed.held(session, tool.name) if self.listed else NEVER_LISTED
            structured, problem = await structured_or_why(tool, body, held)
        except Exception as exc:  # pylint: disable=broad-exception-caught
            structured, problem = (
                None,
                f"it could not be structured ({failure_text(exc)})",
            )
        # a worker thread: composing reads the whole answer (up to the 1 MiB cap) for
        # hidden text, linear but not instant, and must not hold the event loop that
        # answers every other session (adv29i: 13.6 s before the markup patterns were
        # made linear)
        return await anyio.to_thread.run_sync(
            _composed, tool, entry, body, check, structured, problem, meta
        )


def _composed(  # pylint: disable=too-many-arguments
    tool: ServedTool,
    entry: JournalEntry,
    body: bytes,
    check: Any,
    structured: Any,
    problem: str,
    meta: Dict[str, Any],
) -> types.CallToolResult:
    """:func:`.results.answer_result` of the same arguments, as text if unserialisable."""
    result = answer_result(tool, entry, body, check, structured, problem, meta)
    try:  # what the SDK will do with it: a value it cannot serialise must not escape
        result.model_dump_json(by_alias=True, exclude_none=True)
    except Exception as exc:  # pylint: disable=broad-exception-caught
        result = answer_result(
            tool,
            entry,
            body,
            check,
            None,
            f"its structured form could not be serialised ({failure_text(exc)})",
            meta,
        )
    return result
