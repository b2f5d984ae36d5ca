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

"""Sending one paid request: at most once per call key, at the price read now.

:meth:`RequestSender.ensure_sent` runs under one lock per server: the journal is read
again inside it, so two identical calls at once pay once, and the run cap
(:class:`.spend_cap.SpendLedger`) is checked against what was really sent. The signed
transaction is journalled before its broadcast, so a retry re-sends the same bytes
(never a second request under the next nonce). A call with no journal entry is first
looked for on chain (:meth:`RequestSender.resumed_from_chain`). A token-priced offer
(OLAS, USDC) is paid with no value after an ERC-20 approval of exactly what the
tracker's prepaid balance lacks (:class:`.payment.TokenPayer`, journalled in the same
entry); caps and the run's spending are kept per asset.
"""

import json
import logging
import time
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Dict, Optional, Tuple, Union

import anyio
import mcp_types as types
from filelock import Timeout
from mech_catalogue_core.ipfs.cid import DAG_PB, digest_to_cid
from mech_catalogue_core.ipfs.unixfs import root_digest
from mech_catalogue_core.model.payment import ASSET_NATIVE, ASSETS, payment_terms
from mech_catalogue_core.model.vocabulary import CallStatus, PaymentWay

from .call_identity import payload_nonce, request_payload
from .ipfs import payload_bytes, upload_json
from .market import (
    STATUS_DOES_NOT_EXIST,
    Journal,
    JournalEntry,
    MarketError,
    Marketplace,
    RequestReverted,
    SignedRequest,
    correct_request_id,
)
from .offchain import OffchainMode, OffchainPoster, OffchainRefusal
from .offers import Offer, send_time_refusal
from .payment import TokenPayer
from .results import REQUEST_META_KEY, text_content
from .settings import CallSettings, PhaseTimer
from .source import ServedTool
from .spend_cap import SpendLedger
from .spending import journal_records

LOGGER = logging.getLogger("mech_catalogue.mcp")


class PriceRefusal(str):
    """Why an offer was not paid because of its price at send time: try the next one."""


class RequestSender:
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
        :param ledger: the run's spend ledger.
        """
        self.market = market
        self.journal = journal
        self.settings = settings
        self.ledger = ledger
        # one run cap per token asset (--max-spend olas=...), as ``ledger`` for native
        self.token_ledgers = {
            asset: SpendLedger(settings.token_max_spend.get(asset))
            for asset in ASSETS
            if asset != ASSET_NATIVE
        }
        self.payer = TokenPayer(market) if market is not None else None
        self.offchain = (
            OffchainPoster(market, self.payer)
            if market is not None and self.payer is not None
            else None
        )
        self.lock = anyio.Lock()

    def _request_value(self, offer: Offer) -> Dict[str, int]:
        """``request_transaction``'s value argument: none (the price) for native, 0 else.

        :param offer: the offer.
        :return: ``{}`` or ``{"value": 0}`` (a token tracker reverts on any value).
        """
        token = payment_terms(offer.payment_type).way is PaymentWay.TOKEN
        return {"value": 0} if token else {}

    def _token_allowance(
        self, offer: Offer, prepared: JournalEntry, previous: Optional[JournalEntry]
    ) -> str:
        """Approve what a token offer's price lacks (blocking); "" when ready or native.

        :param offer: the offer.
        :param prepared: the call's prepared entry (the approval is journalled in it).
        :param previous: the call's earlier entry, when a retry.
        :return: why the request cannot be sent ("" when it can).
        """
        if self.payer is None or not self._request_value(offer):
            return ""
        assert self.journal is not None  # nosec: a payer exists only with a journal
        short = self.payer.ensure_allowance(
            prepared, previous, self.journal.save, self.settings.io_timeout
        )
        return f"mech {offer.address}: {short}" if short else ""

    def _caps(self, offer: Offer) -> Tuple[Optional[int], SpendLedger]:
        """The per-call cap and the run's ledger of the offer's payment asset.

        :param offer: the offer.
        :return: ``(--max-price of its asset or None, its SpendLedger)``.
        """
        asset = payment_terms(offer.payment_type).asset
        if asset in self.token_ledgers:
            return self.settings.token_max_price.get(asset), self.token_ledgers[asset]
        return self.settings.max_price, self.ledger

    def dry_run(
        self, tool: ServedTool, offer: Offer, payload: Dict[str, Any], key: str
    ) -> types.CallToolResult:
        """Describe the request a call would send, sending nothing.

        :param tool: the tool called.
        :param offer: the offer that would be paid.
        :param payload: the request payload.
        :param key: the call key.
        :return: an ``isError`` result (the tool did not run) with the transaction,
            payload and ``payment`` (``model.payment.Payment.to_dict`` with this
            requester's funds read: payable, approve how much, or why not) in its text
            and ``_meta``.
        """
        data = payload_bytes(payload)
        _, digest = root_digest(data, raw_leaves=False, cid_version=0)
        body: Dict[str, Any] = {
            "dry_run": True,
            "tool": tool.mech_tool,
            "call_key": key,
            "mech": offer.to_meta(),
            "payload": payload,
            "request_data": (
                "0x" + digest.hex() if isinstance(digest, bytes) else str(digest)
            ),
        }
        if self.payer is not None and offer.price:
            # how this requester would pay now: funds read, nothing approved or sent
            try:
                body["payment"] = self.payer.plan(
                    offer.payment_type, offer.price
                ).to_dict()
            except MarketError as exc:
                body["payment"] = {"error": str(exc)}
        if self.market is not None:
            body["transaction"] = {
                k: (hex(v) if isinstance(v, int) and k == "value" else v)
                for k, v in self.market.request_transaction(
                    offer.address,
                    bytes.fromhex(body["request_data"][2:]),
                    int(offer.price or 0),
                    offer.payment_type,
                    self.market.longest_response_timeout(),
                    **self._request_value(offer),
                ).items()
            }
        # isError: the tool did not run, so there is no output to match its outputSchema
        # (the SDK client refuses a success without structured content for such tools)
        return types.CallToolResult(
            content=[
                text_content(
                    "dry run: nothing was uploaded or sent; this is the request "
                    "transaction and payload that would be:\n"
                    + json.dumps(body, indent=1)
                )
            ],
            is_error=True,
            _meta={REQUEST_META_KEY: body},
        )

    async def ensure_sent(  # pylint: disable=too-many-arguments,too-many-locals,too-many-statements,too-many-return-statements,too-many-branches
        self,
        tool: ServedTool,
        offer: Offer,
        payload: Dict[str, Any],
        key: str,
        timer: PhaseTimer,
    ) -> Union[JournalEntry, str]:
        """Send the request unless the chain already has it (the journal says which).

        Under one lock per server: the journal is read again inside it, so two identical
        calls at once pay once, and the run cap is checked against what was really sent.

        :param tool: the tool called.
        :param offer: the chosen mech.
        :param payload: the request payload.
        :param key: the call key.
        :param timer: the call's phase timer.
        :return: the journal entry of the request on chain, or why nothing was sent (a
            :class:`PriceRefusal` when it was this offer's price: the caller tries the
            next offer).
        """
        market, journal = self.market, self.journal
        assert (
            market is not None and journal is not None
        )  # nosec: a sender exists only with both
        async with self.lock, self.state_folder_lock() as locked:
            if not locked:
                return (
                    f"another server process sending from {journal.folder} held its "
                    f"lock for {self._lock_wait():g} s; nothing was sent: call again"
                )
            entry = journal.load(key)
            if entry is not None and "offchain" in entry.extra:
                again = await self._offchain_again(entry)
                if again is not None:
                    return again  # accepted by its mech, or settled: only wait
                entry = None  # never accepted, so never paid: prepared anew below
            if entry is not None:
                status = await anyio.to_thread.run_sync(market.status, entry.request_id)
                if status == STATUS_DOES_NOT_EXIST and entry.tx_hash:
                    # mined under another id than the one derived before sending?
                    if await anyio.to_thread.run_sync(self.correct_request_id, entry):
                        status = await anyio.to_thread.run_sync(
                            market.status, entry.request_id
                        )
                if status != STATUS_DOES_NOT_EXIST:
                    if entry.status == CallStatus.PREPARED:
                        entry.status = CallStatus.SENT
                        journal.save(entry)
                    return entry  # already paid: never again
                if entry.raw_tx:
                    mined = await anyio.to_thread.run_sync(market.confirmed_nonce)
                    if mined <= entry.account_nonce:
                        # the signed request may still be mined: send it again, never a
                        # new one (a new one would take the next nonce: both paid)
                        return await anyio.to_thread.run_sync(
                            self.broadcast_again, entry
                        )
                # else its nonce went to another transaction, or it was mined and
                # reverted: it can never pay, so it no longer counts against the cap
                await anyio.to_thread.run_sync(self.refund_if_never_paid, entry)
            price_now = await anyio.to_thread.run_sync(market.mech_price, offer.address)
            ledger = self._caps(offer)[1]
            moved = send_time_refusal(offer, price_now, self._caps(offer)[0])
            if moved or price_now is None:
                return PriceRefusal(moved)
            price = price_now  # the amount sent: the price now, never the listed one
            if ledger is self.ledger and self.settings.max_spend is not None:
                # earlier runs' native spending too (token caps are per run)
                records = await anyio.to_thread.run_sync(
                    journal_records, journal.folder
                )
                self.ledger.count_journal(records, time.time())
            refusal = ledger.refusal(price)
            if refusal:
                return refusal
            way = await self._offchain_way(offer, price)
            if isinstance(way, PriceRefusal):
                return way
            if way:
                return await self._send_offchain(
                    tool, offer, payload, key, price, timer
                )
            uploaded = await anyio.to_thread.run_sync(
                upload_json,
                self.settings.ipfs_api_url,
                payload,
                self.settings.io_timeout,
            )
            timer.lap("ipfs_upload")
            data = bytes.fromhex(uploaded.digest[2:])

            def prepare_and_send() -> (
                Union[JournalEntry, PriceRefusal]  # pylint: disable=too-many-locals
            ):
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
                )
                # a token offer: approve exactly the shortfall (journalled first)
                short = self._token_allowance(offer, prepared, entry)
                if short:
                    return PriceRefusal(short)
                try:
                    signed = market.sign(
                        market.request_transaction(
                            offer.address,
                            data,
                            price,
                            offer.payment_type,
                            market.longest_response_timeout(),
                            **self._request_value(offer),
                        )
                    )
                except MarketError:
                    # the gas estimate reverted: if the price moved since it was read,
                    # say so in words (not the contract's error hex); nothing was sent
                    again = market.mech_price(offer.address)
                    if again is None or again == price:
                        raise
                    return PriceRefusal(
                        f"mech {offer.address}'s price moved from {price} wei to {again} "
                        "wei while the request was being prepared"
                    )
                prepared.raw_tx = signed.raw_tx
                prepared.tx_hash = signed.tx_hash
                prepared.account_nonce = signed.account_nonce
                prepared.paid_at = time.time()
                journal.save(
                    prepared
                )  # before the broadcast: a retry re-sends these bytes
                # counted before sending: a send that fails after the broadcast (no
                # receipt in time) may still be mined, so it must count against the cap
                ledger.record(price, prepared.request_id)
                try:
                    return self.broadcast_again(prepared)
                except RequestReverted:
                    # mined and reverted: nothing was paid but gas, so it does not count
                    # against --max-spend; a price raised while it was pending (a mech
                    # front-running the request) is said in words, and the next offer tried
                    ledger.refund(price, prepared.request_id)
                    again = market.mech_price(offer.address)
                    if again is None or again == price:
                        raise
                    return PriceRefusal(
                        f"mech {offer.address} changed its price from {price} wei to "
                        f"{again} wei while the request was pending; the transaction "
                        "reverted (only gas was spent)"
                    )

            sent = await anyio.to_thread.run_sync(prepare_and_send)
            if isinstance(sent, PriceRefusal):
                return sent
            timer.lap("transaction")
            LOGGER.info(
                "request %s sent to mech %s for %d wei (tx %s)",
                sent.request_id,
                sent.mech,
                price,
                sent.tx_hash,
            )
            return sent

    async def _offchain_again(self, entry: JournalEntry) -> Optional[JournalEntry]:
        """A journalled off-chain request: wait for it when its mech accepted it.

        :param entry: an entry with ``extra.offchain``.
        :return: the entry to wait for (accepted by the mech, or already settled on
            chain), or None when it was never accepted (nothing was paid: the caller
            prepares the call anew; the same nonce gives the same id and signature).
        """
        assert self.market is not None and self.journal is not None  # nosec
        status = await anyio.to_thread.run_sync(self.market.status, entry.request_id)
        if status != STATUS_DOES_NOT_EXIST or entry.extra["offchain"].get("accepted"):
            if entry.status == CallStatus.PREPARED:
                entry.status = CallStatus.SENT
                self.journal.save(entry)
            return entry
        asset = payment_terms(entry.payment_type).asset
        self.token_ledgers.get(asset, self.ledger).refund(entry.price, entry.request_id)
        return None

    async def _offchain_way(
        self, offer: Offer, price: int
    ) -> Union[bool, PriceRefusal]:
        """Whether this offer is called off-chain (``--offchain``), or why it is skipped.

        :param offer: the offer.
        :param price: its price now.
        :return: True for off-chain, False for the on-chain request, or a
            :class:`PriceRefusal` (``only`` and no endpoint: the next offer is tried).
        """
        mode = OffchainMode(self.settings.offchain)
        if mode is OffchainMode.NEVER or self.offchain is None:
            return False
        if not offer.endpoint:
            if mode is OffchainMode.ONLY:
                return PriceRefusal(
                    f"mech {offer.address} declares no off-chain endpoint "
                    "(--offchain only)"
                )
            return False
        if mode is OffchainMode.ONLY:
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
        price: int,
        timer: PhaseTimer,
    ) -> Union[JournalEntry, str]:
        """Sign the request and post it to the offer's endpoint; journalled first.

        :param tool: the tool called.
        :param offer: the offer (with an endpoint).
        :param payload: the request payload.
        :param key: the call key.
        :param price: the price now (the delivery rate signed).
        :param timer: the call's phase timer.
        :return: the entry to wait for, or why the mech did not accept it (nothing paid).
        """
        poster, journal = self.offchain, self.journal
        assert poster is not None and journal is not None  # nosec
        _, digest = root_digest(payload_bytes(payload), raw_leaves=False, cid_version=0)
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
        )
        journal.save(prepared)  # before the post: a retry never posts a second request
        ledger = self._caps(offer)[1]
        ledger.record(price, prepared.request_id)
        refused = await anyio.to_thread.run_sync(poster.post, prepared, payload)
        timer.lap("offchain_post")
        if isinstance(refused, OffchainRefusal):
            ledger.refund(price, prepared.request_id)
            prepared.extra["offchain"]["refused"] = refused[:1000]
            journal.save(prepared)
            return str(refused)
        prepared.extra["offchain"]["accepted"] = True
        prepared.status = CallStatus.SENT
        prepared.paid_at = time.time()  # charged to the prepaid balance from now on
        journal.save(prepared)
        LOGGER.info(
            "request %s posted to mech %s's endpoint for %d (no transaction)",
            prepared.request_id,
            prepared.mech,
            price,
        )
        return prepared

    def refund_if_never_paid(self, entry: JournalEntry) -> None:
        """Uncount a journalled request whose nonce was mined but which is not on chain.

        Its receipt says which: reverted (a mech front-running it with a price raise;
        only gas was spent), or none (its nonce went to another transaction). Either
        way it can never be mined with a payment, so ``--max-spend`` gives its price
        back (:meth:`.spend_cap.SpendLedger.refund`; nothing when this run never
        counted it). A receipt that succeeded while the request does not exist is left
        counted: the chain is not understood, and the cap errs on the safe side.

        :param entry: the journal entry (its ``tx_hash``, ``price``, ``request_id``).
        """
        assert self.market is not None  # nosec: a sender exists only with one
        if entry.tx_hash and self.market.transaction_reverted(entry.tx_hash) is False:
            return
        asset = payment_terms(entry.payment_type).asset
        self.token_ledgers.get(asset, self.ledger).refund(entry.price, entry.request_id)

    def broadcast_again(self, entry: JournalEntry) -> JournalEntry:
        """Broadcast a journalled request and wait for it; mark it sent (blocking).

        :param entry: a journal entry holding the signed request.
        :return: the entry, sent.
        """
        market, journal = self.market, self.journal
        assert (
            market is not None and journal is not None
        )  # nosec: a sender exists only with both
        entry.tx_hash = market.broadcast(
            SignedRequest(entry.raw_tx, entry.tx_hash, entry.account_nonce),
            self.settings.io_timeout,
        )
        entry.status = CallStatus.SENT
        self.correct_request_id(entry)
        journal.save(entry)
        return entry

    def correct_request_id(self, entry: JournalEntry) -> bool:
        """:func:`.market.correct_request_id` with this sender's market and journal.

        :param entry: a journal entry with its ``tx_hash``.
        :return: whether the id was corrected.
        """
        assert (
            self.market is not None and self.journal is not None
        )  # nosec: a sender exists only with both
        return correct_request_id(self.market, self.journal, entry)

    def _lock_wait(self) -> float:
        """Seconds a send waits for another process's: its reads, upload and receipt.

        :return: seconds.
        """
        return 4 * self.settings.io_timeout

    @asynccontextmanager
    async def state_folder_lock(self) -> AsyncIterator[bool]:
        """Hold the journal's cross-process send lock (:meth:`.market.Journal.send_lock`).

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

    async def resumed_from_chain(
        self, tool: ServedTool, arguments: Dict[str, Any], key: str
    ) -> Optional[JournalEntry]:
        """Find a call with no journal entry on chain; journal it as sent when found.

        The payload (whose nonce derives from the call key) gives the request data
        before anything is uploaded; this requester's request with that data is the
        call's (:meth:`.market.Marketplace.own_request`).

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
        payload = request_payload(tool.mech_tool, arguments, payload_nonce(key))
        _, digest = root_digest(payload_bytes(payload), raw_leaves=False, cid_version=0)
        data = "0x" + bytes(digest).hex()
        found = await anyio.to_thread.run_sync(market.own_request, data)
        if found is None:
            return None
        info = await anyio.to_thread.run_sync(market.request_info, found.request_id)
        entry = JournalEntry(
            key=key,
            tool=tool.mech_tool,
            mech=info["priority_mech"],
            price=int(info["delivery_rate"]),
            payment_type=str(info["payment_type"]),
            cid=digest_to_cid(bytes(digest), DAG_PB),
            data=data,
            market_nonce=-1,  # not needed once sent: the id is known
            request_id=found.request_id,
            from_block=found.block,
            tx_hash=found.tx_hash,
            status=CallStatus.SENT,
            extra={"resumed_from_chain": True},
        )
        journal.save(entry)
        LOGGER.warning(
            "call %s had no journal entry; its request %s (block %d) was found on chain "
            "and is resumed, not paid again",
            key,
            found.request_id,
            found.block,
        )
        return entry
