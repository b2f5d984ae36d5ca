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

# a call's steps; the signed-call recall joined them (fix29zzg): to split
# pylint: disable=too-many-lines
"""The MCP server: ``tools/list`` is the catalogue, ``tools/call`` a paid mech request.

Built on the ``mcp`` SDK's low-level ``Server`` (no hand-written JSON-RPC); served over
stdio or Streamable HTTP by :func:`serve`. Change notifications: a poller re-reads the
source every ``poll_seconds``; when the catalogue digest changes it publishes
``ToolsListChanged`` on the ``subscriptions/listen`` bus (protocol 2026-07-28) and sends
``notifications/tools/list_changed`` to every handshake-era session that has talked to it.

A call (:meth:`MechToolServer.call`): a paid call's journal entry, found by its call key
before anything is checked, is only waited for (:mod:`.recall`) -> validate the
arguments (an ``isError`` result naming each bad argument, nothing sent) -> journal
lookup (a retry of an unfinished call never pays again) -> rank the offers
(:func:`.offers.rank_offers`: the incumbent first) -> for each in turn, under one lock:
read its price now (the amount sent; over ``--max-price`` or unread: the next offer is
tried, :func:`.offers.send_time_refusal`) -> spend cap -> upload the payload -> derive
the request id -> send ``MechMarketplace.request`` (a request that reverts, at its gas
estimate or mined with only gas spent, also moves on to the next offer:
:mod:`.refused_offers`) -> wait for the delivery (progress notifications every poll,
``--timeout``, cancellable) -> fetch and verify the response -> return it
(``structuredContent`` the server's note, then the answer: structured when it validates
against the mech's schema, else its text: :mod:`.answer_envelope`).
``_meta["io.olas/mech-request"]`` carries the request id (hex, and decimal as a string),
mech, price, transaction, CIDs, the delivering mech, warnings, where the time went
(seconds) and, for a request sent by this call, ``choice``: the mech chosen and why
(:func:`.offers.choice_reason`).

Sending is :mod:`.sending` (at most once per call key), reading the answer
:mod:`.delivery` (after payment nothing escapes as a protocol error).
"""

import importlib.metadata
import logging
import math
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ToolsListChanged,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from mech_catalogue_core.model.vocabulary import CallStatus

from ..folders import DISTRIBUTION
from .bounded import warm_up_in_background
from .call_end_words import (
    call_end_said,
    earlier_attempt_words,
    entry_now,
    nothing_sent_words,
    refusals_said,
    unresumed_words,
)
from .call_identity import (
    IDEMPOTENCY_META_KEY,
    call_key,
    normalised_arguments,
    payload_nonce,
    request_payload,
)
from .checked_definitions import CHECKED
from .delivery import DeliveryReader
from .discovery import Discovery
from .dropped import NeverMined, NotFinal, held_pause
from .first_read import CATALOGUE_META_KEY, READING_NOTE, FirstRead
from .http_access import HttpAccess, http_access
from .ipfs import IpfsError
from .journal import Journal, JournalEntry, loaded
from .listed_schemas import ListedSchemas, without_output_schema
from .market import MarketError, Marketplace
from .names import flag_lookalikes
from .node_deadline import reads_until, reads_within
from .offchain import OffchainRefusal
from .offchain_sending import OffchainRetry
from .offers import NoOffer, Offer, rank_offers
from .outstanding import HeldBehind, Hold
from .pins import approved_tools
from .recall import (
    NameIndex,
    departed_tool,
    recall_paid,
    recall_signed,
    request_may_pay,
    resumed_tool,
)
from .refused_offers import skipped_meta, with_skipped
from .results import (
    called_name,
    checked_arguments,
    error_result,
    with_choice,
    with_earlier_attempt,
    with_orders_flagged,
)
from .sending import PriceRefusal, RequestSender
from .served_names import ServedNames
from .server_notes import note_changes
from .settings import CallSettings, PhaseTimer
from .signed_parts import signed_parts
from .source import (
    MAX_LISTED_TOOL_BYTES,
    META_KEY,
    ServedCatalogue,
    ServedTool,
    SourceError,
)
from .spend_cap import SpendLedger
from .spending import JournalIndex
from .tasks import CallTasks
from .unsettled import given_up_mechs, tried_last, tried_last_meta

LOGGER = logging.getLogger("mech_catalogue.mcp")
#: seconds between looks at a first read still running (:meth:`MechToolServer.poll`)
FIRST_READ_CHECK = 0.25
SERVER_NAME = "mech-catalogue"

#: what the server notifies a handshake-era client of: its tool list changes with the
#: catalogue (``notifications/tools/list_changed``, sent by :meth:`MechToolServer.announce`)
NOTIFICATIONS = NotificationOptions(tools_changed=True)


class _CatalogueServer(Server[Any]):
    """The SDK's server, announcing one set of capabilities on every transport.

    The SDK's Streamable HTTP session manager builds each session's ``initialize``
    answer from :meth:`create_initialization_options` with no arguments (only stdio's
    ``run`` is handed options), so a default of "no notifications" told HTTP clients
    ``tools.listChanged: false`` while stdio clients were told ``true``: a client that
    honours it never re-lists, and keeps reading an old price, mech and arguments.
    """

    def create_initialization_options(
        self,
        notification_options: Optional[NotificationOptions] = None,
        experimental_capabilities: Optional[Dict[str, Dict[str, Any]]] = None,
        extensions: Optional[Dict[str, Dict[str, Any]]] = None,
    ) -> Any:
        """The SDK's options, with :data:`NOTIFICATIONS` unless others are given.

        :param notification_options: what change notifications to announce (None:
            :data:`NOTIFICATIONS`).
        :param experimental_capabilities: as the SDK's.
        :param extensions: as the SDK's.
        :return: the SDK's ``InitializationOptions``.
        """
        return super().create_initialization_options(
            notification_options or NOTIFICATIONS,
            experimental_capabilities,
            extensions,
        )


class MechToolServer:  # pylint: disable=too-many-instance-attributes
    """The server's state: the catalogue served, spending, the journal, the SDK server."""

    def __init__(
        self,
        source: Any,
        settings: CallSettings,
        market: Optional[Marketplace],
        journal: Optional[Journal],
        state_dir: Optional[Path] = None,
    ) -> None:
        """Wire the pieces (the catalogue is read by :meth:`refresh`).

        :param source: an ``AgentSource`` or ``DirectSource``.
        :param settings: call settings.
        :param market: the marketplace (None: no key, only ``--dry-run`` calls).
        :param journal: the call journal (None with no key).
        :param state_dir: the state folder (``--state-dir``), where what sessionless
            clients were listed is kept across restarts (None: in memory only).
        """
        self.source = source
        self.settings = settings
        self.market = market
        self.journal = journal
        self.catalogue = ServedCatalogue("", ())  # every tool: calls and retries
        self.listed = self.catalogue  # what tools/list pages through
        self.changed: Dict[str, str] = (
            {}
        )  # MCP name -> why its new definition is refused
        self._read_once = False
        # the first read still running past --start-wait (None: read, or not begun)
        self.first_read: Optional[FirstRead] = None
        self.served_names = ServedNames()
        self.ledger = SpendLedger(settings.max_spend, window=settings.spend_window)
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)
        # handshake-era client connections, weakly: ctx.session is a per-request proxy,
        # so remembering it kept one object per request (and sent one notification per
        # request made) until a catalogue change; a connection the SDK closed and dropped
        # is forgotten here too
        self._handshake_connections: "weakref.WeakSet[Any]" = weakref.WeakSet()
        self.sender = RequestSender(market, journal, settings, self.ledger)
        # the sender's: it learns and reads them under its send lock
        self.reverting = self.sender.reverting
        # what each session's client was listed: its answers are checked against it too
        self.listed_schemas = ListedSchemas(
            state_dir, used_before=journal is not None and journal.written()
        )
        self.reader = (
            DeliveryReader(
                market,
                journal,
                settings,
                self.sender.offchain_target,
                self.sender.journal_holds,
                self.listed_schemas,
            )
            if market and journal
            else None
        )
        self.names = NameIndex(journal) if journal else None
        self.server: Server[Any] = _CatalogueServer(
            SERVER_NAME,
            version=importlib.metadata.version(DISTRIBUTION),  # server.json's too
            instructions=(
                "Each tool is an Olas mech tool; calling one pays a mech on chain "
                "(price in the tool's _meta offers) and returns its delivered answer."
            ),
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_subscriptions_listen=self.listen,
            get_tool_input_schema=self._input_schema,
        )
        self.discovery = Discovery(self)  # search mode's three tools (--discovery)
        self.tasks = CallTasks(self.discovery.routed)
        self.server.middleware.append(self.tasks)

    # --- catalogue -----------------------------------------------------------------
    def refresh(self) -> bool:
        """Read the source (blocking); keep the new catalogue when its digest changed.

        ``catalogue`` keeps every tool (calls, and retries of paid requests, resolve
        against it); ``listed`` is what ``tools/list`` serves: the payable tools with
        their price, or every tool with ``--all-tools``, each described with the
        server's facts first (:meth:`.source.ServedCatalogue.with_facts`), never a
        tool that asks for a secret or still hides text
        (:meth:`.source.ServedCatalogue.refusing_unsafe`).

        :return: True when it changed.
        """
        if (
            self._read_once
            and getattr(self.source, "digest_is_cheap", False)
            and self.source.digest() == self.catalogue.digest
        ):
            return False  # an agent's unchanged digest: its pages are not read again
        served = self.source.read()
        if self._read_once and served.digest == self.catalogue.digest:
            return False
        self._read_once = True
        served = self.served_names.assign(served)  # a served name keeps its tool
        self.catalogue = served
        listable, refused = served.refusing_unsafe()
        if refused:
            LOGGER.warning(
                "%d tools not listed: they ask for a secret or hide text (%s)",
                len(refused),
                ", ".join(refused[:10]),
            )
        listable, self.changed = approved_tools(listable, self.settings.pin_file)
        # look-alike names, withheld text and names not the mech's said in tools/list,
        # then every description composed
        listed, left_out = (
            note_changes(flag_lookalikes(listable, served))
            .with_facts(
                self.settings.max_price,
                self.settings.pinned,
                self.settings.allowed,
                self.settings.token_max_price,
                keep_unpayable=self.settings.all_tools,
            )
            .within_bytes()
        )
        if left_out:
            LOGGER.warning(
                "%d tools not listed: each Tool's definition is over %d bytes (%s)",
                len(left_out),
                MAX_LISTED_TOOL_BYTES,
                ", ".join(left_out[:10]),
            )
        self.listed = listed
        return True

    async def poll(self) -> None:
        """Re-read the source forever; announce a changed catalogue.

        A first read still running at start (:attr:`first_read`) is waited for first,
        and announced when it read the catalogue.
        """
        await self._first_read_ended()
        while True:
            await anyio.sleep(self.settings.poll_seconds)
            try:
                changed = await anyio.to_thread.run_sync(self.refresh)
            except SourceError as exc:
                LOGGER.warning("catalogue not refreshed: %s", exc)
                continue
            except Exception:  # pylint: disable=broad-exception-caught
                # a source's bug must not end the server: the last catalogue stays served
                LOGGER.exception("catalogue not refreshed (a bug; report it)")
                continue
            if changed:
                await self.announce()

    async def _first_read_ended(self) -> None:
        """Wait for a first read past ``--start-wait``; announce what it read."""
        first = self.first_read
        if first is None:
            return
        while not first.done:
            await anyio.sleep(FIRST_READ_CHECK)
        self.first_read = None
        if first.error is None:
            LOGGER.info(
                "the catalogue's first read ended: %d tools listed",
                len(self.listed.tools),
            )
            await self.announce()
        elif isinstance(first.error, SourceError):
            LOGGER.warning("the catalogue's first read failed: %s", first.error)
        else:
            LOGGER.error(
                "the catalogue's first read failed (a bug; report it)",
                exc_info=first.error,
            )

    async def announce(self) -> None:
        """Tell every listener the tool list changed."""
        await self.bus.publish(ToolsListChanged())
        notification = types.ToolListChangedNotification().model_dump(
            by_alias=True, mode="json", exclude_none=True
        )
        for connection in list(self._handshake_connections):
            # Connection.notify never raises: a closed stream drops the notification
            await connection.notify(notification["method"], notification.get("params"))

    def _remember(self, ctx: Any) -> None:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return
        # the SDK's ServerSession exposes no public accessor for its connection
        connection = getattr(ctx.session, "_connection", None)
        if connection is not None:
            self._handshake_connections.add(connection)

    def _input_schema(self, name: str) -> Optional[Dict[str, Any]]:
        if self.discovery.handles(name):  # never a mech tool's, whatever is served
            return self.discovery.input_schema(name)
        tool = self.catalogue.named(name)
        return None if tool is None else tool.tool["inputSchema"]

    async def list_tools(
        self, ctx: Any, params: Optional[types.PaginatedRequestParams]
    ) -> types.ListToolsResult:
        """Answer ``tools/list``: one page of the catalogue's tools.

        :param ctx: the request context.
        :param params: the cursor.
        :return: the page.
        :raises MCPError: INVALID_PARAMS for a cursor not issued for this catalogue.
        """
        from mcp.shared.exceptions import (  # pylint: disable=import-outside-toplevel
            MCPError,
        )

        self._remember(ctx)
        try:
            if self.discovery.active():
                return self.discovery.list_result(params.cursor if params else None)
            page, cursor = self.listed.page(
                params.cursor if params else None, self.settings.page_size
            )
        except ValueError as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from exc
        # the journal's mined reverts, any process's, named too (as last read)
        await self.sender.journal_records(listing=True)
        remembered = await self._given_up_mechs(listing=True)
        tools = [self._with_tried_last(tool, remembered) for tool in page]
        # as the SDK's client caches them: a one-page listing replaces, pages add
        complete = (params is None or params.cursor is None) and cursor is None
        if self.listed_schemas.remember(ctx.session, tools, complete):
            # kept before the client has it: a restart must not forget what it holds
            await anyio.to_thread.run_sync(
                self.listed_schemas.save, self.listed_schemas.snapshot()
            )
            if not self.listed_schemas.durable:  # a restart could not tell: none held
                tools = [without_output_schema(tool) for tool in tools]
        return types.ListToolsResult(
            tools=[types.Tool.model_validate(tool) for tool in tools],
            next_cursor=cursor,
            # until a read succeeds (one failing past --start-wait is read again)
            _meta={CATALOGUE_META_KEY: READING_NOTE} if not self._read_once else None,
        )

    async def _given_up_mechs(self, listing: bool = False) -> Dict[str, Hold]:
        """The mechs a call tries last (:func:`.unsettled.given_up_mechs`).

        :param listing: for ``tools/list``, which never waits for a journal read (the
            first whole one takes seconds at 10,000 entries: it is made at start, by
            :func:`serve`, and by the first paid call): it uses what is already read
            (:meth:`.JournalIndex.records_read`).
        :return: lowercase address -> its acceptance given up unsettled, from the
            journal; empty without one, or when ``listing`` before its first whole
            read is done. The journal's read and the look over its records (linear,
            still journal-sized: adv29l) run in a worker thread, never on the event
            loop.
        """
        index = self.sender.index
        if index is None:
            return {}
        read = index.records_read if listing else index.records
        timeout, window = self.settings.timeout, self.settings.spend_window

        def remembered() -> Dict[str, Hold]:
            return given_up_mechs(read(), time.time(), timeout, window)

        return await anyio.to_thread.run_sync(remembered)

    async def _given_up_for_call(self, paying: bool) -> Dict[str, Hold]:
        """The mechs a call tries last, once what the chain says passed is recorded.

        A request its mech settled but whose answer was never read (its call was
        interrupted) is no acceptance given up: when some mech would go last, the
        passing of journalled requests is recorded first
        (:meth:`.offchain_sending.OffchainSending.passing_recorded_first`), then the
        journal read again (adversarial review adv29l: the choice came before that
        record, and put the honest mech last).

        :param paying: False for a dry run (nothing is written, the journal as it is).
        :return: :meth:`_given_up_mechs`.
        """
        remembered = await self._given_up_mechs()
        if remembered and paying and await self.sender.passing_recorded_first():
            remembered = await self._given_up_mechs()
        return remembered

    def _with_tried_last(
        self, tool: ServedTool, remembered: Dict[str, Hold]
    ) -> Dict[str, Any]:
        """A listed tool, its ``_meta`` saying which offers a call tries last and why.

        :param tool: the served tool.
        :param remembered: :meth:`_given_up_mechs`.
        :return: its MCP Tool (a copy with ``_meta["io.olas/mech-tool"]["tried_last"]``
            when one of its offers is remembered; else the tool as served).
        """
        last = tried_last_meta(tool.offers, remembered, self.settings.timeout)
        last += self.reverting.listed(tool.offers)
        if not last:
            return tool.tool
        meta = dict(tool.tool["_meta"])
        meta[META_KEY] = with_orders_flagged({**meta[META_KEY], "tried_last": last})
        return {**tool.tool, "_meta": meta}

    # --- calls ---------------------------------------------------------------------
    async def _recalled(
        self, name: str, arguments: Dict[str, Any], requester: str, idempotency: str
    ) -> Optional[Tuple[ServedTool, JournalEntry]]:
        """A paid call's tool and entry, found before anything is checked (.recall).

        The journal is read in a worker thread (never on the event loop).

        :param name: the MCP tool name.
        :param arguments: the call's arguments (normalised).
        :param requester: this server's requester address.
        :param idempotency: the client's idempotency key ("" when none).
        :return: the tool and the paid call's entry, or None.
        """
        paid = await self._from_journal(
            recall_paid, name, arguments, requester, idempotency
        )
        if paid:
            self._remember_name(name, arguments, requester, idempotency, paid[1].key)
        return paid

    async def _signed_before(
        self, name: str, arguments: Dict[str, Any], requester: str, idempotency: str
    ) -> Optional[JournalEntry]:
        """The entry of an earlier attempt of this call that signed anything (.recall).

        :param name: the MCP tool name.
        :param arguments: the call's arguments (normalised).
        :param requester: this server's requester address.
        :param idempotency: the client's idempotency key ("" when none).
        :return: :func:`.recall.recall_signed` (read in a worker thread), or None.
        """
        return await self._from_journal(
            recall_signed, name, arguments, requester, idempotency
        )

    async def _from_journal(  # pylint: disable=too-many-arguments
        self,
        recall: Callable[..., Any],
        name: str,
        arguments: Dict[str, Any],
        requester: str,
        idempotency: str,
    ) -> Any:
        """Run one of :mod:`.recall`'s lookups of this call in a worker thread.

        :param recall: :func:`.recall.recall_paid` or :func:`.recall.recall_signed`.
        :param name: the MCP tool name.
        :param arguments: the call's arguments (normalised).
        :param requester: this server's requester address.
        :param idempotency: the client's idempotency key ("" when none).
        :return: what it returns; None when this server pays nothing (no journal).
        """
        if self.reader is None or self.names is None:
            return None
        return await anyio.to_thread.run_sync(
            recall,
            self.reader.journal,
            self.names,
            self.catalogue,
            name,
            arguments,
            requester,
            idempotency,
        )

    async def _resumed_unserved(  # pylint: disable=too-many-arguments
        self,
        name: str,
        arguments: Dict[str, Any],
        entry: JournalEntry,
        timer: PhaseTimer,
        session: Any,
    ) -> Optional[types.CallToolResult]:
        """A signed call whose mech tool is not served now: its request read, no other.

        Its request is read as a served tool's is: looked up on chain by its data
        (mined since, or broadcast by a node after the call that signed it ended), then
        :meth:`.sending.RequestSender.journalled_now` (the reading ``ensure_sent``
        makes: an off-chain request settled, accepted or passed; an on-chain one paid,
        or unmined and cancelled, since no offer of it may be paid now). A paid one is
        waited for and its answer returned; one its mech may still settle, or whose
        cancellation is not final, is said, and no other mech tool is paid for the
        call, by whatever its name stands for now (adv29zt2). In a ``--start-wait``
        window (:attr:`first_read` running) it says the catalogue is still being read.

        :param name: the MCP tool name called.
        :param arguments: the call's arguments (normalised).
        :param entry: the call's signed entry (:func:`.recall.recall_signed`).
        :param timer: the call's phase timer.
        :param session: the SDK session for progress notifications (None: none).
        :return: the paid call's answer, an ``isError`` result saying why not, or None
            when nothing the attempt signed can pay a mech (an approval alone, or
            requests that can never be paid): the call is then resolved anew.
        """
        if not request_may_pay(entry):
            return None  # an approval moves no funds to a mech
        called = called_name(name)
        tool = departed_tool(name, entry)
        reading = self.first_read is not None and not self.first_read.done
        # still being read, its tool may be served: an unmined request is not cancelled
        read_again = not reading or signed_parts(entry).offchain
        try:
            with reads_within(timer.within(self.settings.timeout, math.inf)):
                now: Any = (
                    await self.sender.resumed_from_chain(tool, arguments, entry.key)
                    if entry.status == CallStatus.PREPARED
                    else None
                )
                if now is None and read_again:
                    now = await self.sender.journalled_now(entry.key, timer)
                elif now is None:
                    now = unresumed_words(entry)
        except MarketError as exc:
            return error_result(f"{called}: {exc}; {unresumed_words(entry)}")
        if isinstance(now, JournalEntry):
            return await self._waited(tool, now, timer, session)
        if isinstance(now, OffchainRetry) and now.nonce is not None:
            # held signed by its mech, which may settle it: never signed again here
            said = unresumed_words(now.entry)
        elif isinstance(now, str) and not isinstance(now, PriceRefusal):
            said = str(now)
        else:
            return None  # never accepted and passed, never mined, or reverted
        why = (
            "the catalogue is still being read (list the tools again in a moment)"
            if reading
            else f"its mech tool {called_name(entry.tool)} is not served now"
        )
        return error_result(
            f"{called}: {why}; no other tool is paid for this call: {said}"
        )

    async def _sent_when_free(  # pylint: disable=too-many-arguments
        self,
        tool: ServedTool,
        offer: Offer,
        payload: Dict[str, Any],
        call: Tuple[str, PhaseTimer, Sequence[Offer]],
        session: Any,
    ) -> Union[JournalEntry, str]:
        """:meth:`.sending.RequestSender.ensure_sent`, again while the nonce is held.

        Another call's request holding this requester's marketplace nonce
        (:class:`.outstanding.HeldBehind`) may be settled soon, and an earlier request
        of this call that could still be mined (:class:`.dropped.NotFinal`) may become
        final: the call waits for either within what is left of its ``--timeout``
        (the call's clock, ``timer``: the delivery wait after a send gets only the
        rest), saying so in its progress, then ends with the sentence. A final block
        that cannot come within the call's time, on a chain whose pace is known, is said
        at once; one that can is asked again at the pace of blocks
        (:func:`.dropped.held_pause`, adv29yp S1: each try reads the chain under the
        send lock). Each try's node reads end with the call, a second at least
        (:meth:`.settings.PhaseTimer.within`, :mod:`.node_deadline`): a call whose time
        went to its checks still tries once, as one asked again at its end.

        :param tool: the tool called.
        :param offer: the chosen mech.
        :param payload: the request payload.
        :param call: the call key, its phase timer and every offer it may pay now.
        :param session: the SDK session for progress notifications (None: none).
        :raises MarketError: ``ensure_sent``'s, saying what the call signed when its
            reads were cut by the call's end or a refusal before signing followed a
            signed approval (:func:`.call_end_words.call_end_said`).
        :return: what ``ensure_sent`` returned last (asked once at least: what the
            call did before it is work, not a wait).
        """
        key, timer, ranked = call
        assert self.reader is not None  # nosec: only a paying server sends
        wait = self.settings.timeout
        while True:
            try:
                with reads_within(timer.within(wait, wait)):
                    sent = await self.sender.ensure_sent(
                        tool, offer, payload, key, timer, ranked
                    )
            except MarketError as exc:  # say once what the call signed
                said = await call_end_said(exc, self.reader.journal, key)
                if said is exc:
                    raise
                raise MarketError(str(said)) from exc
            if not isinstance(sent, HeldBehind):
                return sent
            # said at least once, even when the call's time is already spent
            waited = min(timer.elapsed(), wait)
            pause = held_pause(sent, self.settings.delivery_poll, timer.left(wait))
            await self.reader.progress(session, waited, wait, sent.progress)
            if pause is None or timer.left(wait) <= 0:
                return sent  # final past this call's time: said now
            await anyio.sleep(min(pause, timer.left(wait)))

    def _ranked(self, offers: Sequence[Offer]) -> Sequence[Offer]:
        """The offers a call may pay, in order (:func:`.offers.rank_offers` of its caps).

        :param offers: a tool's offers.
        :return: the acceptable offers, best first (``NoOffer`` when none is).
        """
        settings = self.settings
        return rank_offers(
            offers,
            settings.max_price,
            settings.pinned,
            settings.allowed,
            settings.token_max_price,
        )

    async def _waited(
        self, tool: ServedTool, entry: JournalEntry, timer: PhaseTimer, session: Any
    ) -> Optional[types.CallToolResult]:
        """Wait for a paid request's answer, sending it again if the chain dropped it.

        A request the chain no longer holds (a reorg dropped it: :mod:`.dropped`) is
        sent again with the same signed transaction before the wait
        (:meth:`.sending.RequestSender.sent_again_if_dropped`); any other is only
        waited for, never paid again. A request that can never be mined (its nonce
        taken, final), or whose bytes sent again reverted when mined, frees the call
        key: None, the caller then pays an offer as for a new call (after a revert,
        once it is final: :func:`.dropped.held_until_final`).

        :param tool: the tool called (as served now, or as it was paid).
        :param entry: the call's journal entry (``sent`` or ``delivered``).
        :param timer: the call's phase timer.
        :param session: the SDK session for progress notifications (None: none).
        :return: :meth:`.delivery.DeliveryReader.await_result`, an ``isError`` result
            saying why a dropped request was not sent again, or None (the call key
            freed, nothing paid for it).
        """
        assert self.reader is not None  # nosec: only a paying server waits
        if entry.status == CallStatus.SENT:
            try:
                payable: Sequence[Offer] = self._ranked(tool.offers)
            except NoOffer:
                payable = ()  # a dropped request is then cancelled, never sent again
            try:
                again = await self.sender.sent_again_if_dropped(entry, payable, timer)
            except MarketError as exc:
                return error_result(f"{tool.name}: {exc}")
            if isinstance(again, (NeverMined, PriceRefusal)):
                return None  # nothing paid for it: the call key is free
            if isinstance(again, str):
                return error_result(f"{tool.name}: {again}")
            entry = again or entry
        return await self.reader.await_result(tool, entry, timer, session)

    def _remember_name(  # pylint: disable=too-many-arguments
        self,
        name: str,
        arguments: Dict[str, Any],
        requester: str,
        idempotency: str,
        key: str,
    ) -> None:
        if self.names:
            self.names.remember(name, arguments, requester, idempotency, key)

    async def call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        """Answer ``tools/call`` (see the module docstring); never raises on bad input.

        :param ctx: the request context (progress goes to ``ctx.session``).
        :param params: name, arguments, ``_meta``.
        :return: the result (``isError`` with a sentence when the call failed).
        """
        self._remember(ctx)
        if self.discovery.handles(params.name):
            return await self.discovery.call_tool(ctx, params)
        meta = params.meta if isinstance(params.meta, dict) else {}
        if params.meta is not None and not isinstance(params.meta, dict):
            meta = params.meta.model_dump(by_alias=True)
        idempotency = str(meta.get(IDEMPOTENCY_META_KEY, ""))
        try:
            return await self.call(
                params.name, params.arguments or {}, idempotency, ctx.session
            )
        except (MarketError, IpfsError, SourceError) as exc:
            return error_result(f"{called_name(params.name)}: {exc}")

    async def paid_answer(
        self,
        name: str,
        arguments: Dict[str, Any],
        idempotency: str = "",
        session: Any = None,
    ) -> Optional[types.CallToolResult]:
        """The answer of a call paid before (journal), without any other check.

        :param name: the MCP tool name (it may be listed no more).
        :param arguments: the arguments.
        :param idempotency: the client's idempotency key ("" when none).
        :param session: the SDK session for progress notifications (None: none).
        :return: the paid call's result, or None when this call was never paid (or its
            request can never be mined: the call key freed, journalled).
        """
        try:
            arguments = normalised_arguments(arguments)
        except RecursionError:
            return None
        reader = None if self.settings.dry_run else self.reader
        requester = self.market.requester if self.market else "0x" + "0" * 40
        paid = (
            await self._recalled(name, arguments, requester, idempotency)
            if reader
            else None
        )
        if reader is None or paid is None:
            return None
        timer = PhaseTimer()
        with reads_until(timer.began, self.settings.timeout):
            return await self._waited(paid[0], paid[1], timer, session)

    async def call(
        self,
        name: str,
        arguments: Dict[str, Any],
        idempotency: str = "",
        session: Any = None,
    ) -> types.CallToolResult:
        """Run one call, every node read of it within its ``--timeout``.

        The call's clock starts here; its node reads, in this task and the worker
        threads it runs them in, end when its ``--timeout`` does
        (:func:`.node_deadline.reads_until`: each read's timeout is what is left).

        :param name: the MCP tool name.
        :param arguments: the arguments.
        :param idempotency: the client's idempotency key ("" when none).
        :param session: the SDK session for progress notifications (None: none).
        :return: the result. Raises ``MarketError`` (a failed chain read or
            transaction, or one cut by the call's end, saying what was signed) and
            ``IpfsError`` (a failed upload or fetch); :meth:`call_tool` turns them
            into ``isError`` results.
        """
        timer = PhaseTimer()
        with reads_until(timer.began, self.settings.timeout):
            return await self._call(name, arguments, idempotency, session, timer)

    async def _call(  # pylint: disable=too-many-arguments
        self,
        name: str,
        arguments: Dict[str, Any],
        idempotency: str,
        session: Any,
        timer: PhaseTimer,
    ) -> types.CallToolResult:
        """Run one call (:meth:`call`), on the call's clock ``timer``.

        A paid call is waited for first; a call whose earlier attempt signed anything
        goes on under that attempt's key (:meth:`_resumed_unserved` when its mech tool
        is not served now); only a call with nothing that can pay a mech is resolved
        by its name now (:meth:`_resolved`), saying what an earlier attempt signed.

        :param name: the MCP tool name.
        :param arguments: the arguments.
        :param idempotency: the client's idempotency key ("" when none).
        :param session: the SDK session for progress notifications (None: none).
        :param timer: the call's phase timer, started by :meth:`call`.
        :return: :meth:`call`'s.
        """
        # one form per meaning: the key, the payload and a resumed request agree
        try:
            arguments = normalised_arguments(arguments)
        except RecursionError:
            pass  # nested too deeply: the argument check below refuses them
        requester = self.market.requester if self.market else "0x" + "0" * 40
        reader = None if self.settings.dry_run else self.reader  # None: a dry run
        paid = (
            await self._recalled(name, arguments, requester, idempotency)
            if reader
            else None
        )
        if reader and paid:  # first: a paid call stays readable (.recall)
            answered = await self._waited(paid[0], paid[1], timer, session)
            if answered is not None:
                return answered
        signed = (
            await self._signed_before(name, arguments, requester, idempotency)
            if reader
            else None
        )
        # a call that signed anything goes on under its key, whatever its name is now
        tool = resumed_tool(self.catalogue, signed) if signed else None
        if signed is None or tool is not None:
            return await self._resolved(
                name, arguments, idempotency, session, timer, tool
            )
        resumed = await self._resumed_unserved(name, arguments, signed, timer, session)
        if resumed is not None:
            return resumed
        # nothing of the earlier attempt can pay a mech: the name is resolved anew
        result = await self._resolved(
            name, arguments, idempotency, session, timer, None
        )
        words = earlier_attempt_words(signed, called_name(signed.tool))
        return with_earlier_attempt(result, words)

    async def _resolved(  # pylint: disable=too-many-arguments,too-many-positional-arguments,too-many-locals,too-many-return-statements,too-many-branches,too-many-statements
        self,
        name: str,
        arguments: Dict[str, Any],
        idempotency: str,
        session: Any,
        timer: PhaseTimer,
        tool: Optional[ServedTool],
    ) -> types.CallToolResult:
        """Run one call by the tool its name stands for now, or the one it resumes.

        :param name: the MCP tool name.
        :param arguments: the arguments (normalised).
        :param idempotency: the client's idempotency key ("" when none).
        :param session: the SDK session for progress notifications (None: none).
        :param timer: the call's phase timer, started by :meth:`call`.
        :param tool: the served tool whose signed entry the call resumes (None: the
            tool ``name`` stands for now).
        :return: :meth:`call`'s.
        """
        called = called_name(name)
        requester = self.market.requester if self.market else "0x" + "0" * 40
        reader = None if self.settings.dry_run else self.reader  # None: a dry run
        tool = tool or self.catalogue.named(name)
        if tool is None:
            stood_for = self.served_names.stood_for(name)
            was = (
                f" (it stood for mech tool {called_name(stood_for)}, "
                "no longer offered; no other tool is given its name)"
                if stood_for
                else ""
            )
            return error_result(
                f"no tool named {called} is served now{was}; list the tools again"
            )
        invalid = await checked_arguments(name, tool, arguments)
        timer.lap("validation")
        if invalid is not None:
            return invalid
        key = call_key(tool.mech_tool, arguments, requester, idempotency)
        entry = await loaded(reader.journal, key) if reader else None
        if reader and (entry is None or entry.status == CallStatus.PREPARED):
            # a missing entry, or one not known to be sent (a crash before the receipt,
            # or a rewritten file): this requester's request with the call's data on
            # chain is the call's, whatever the entry says
            try:  # work before the send: done once, a second at least (as the send)
                with reads_within(timer.within(self.settings.timeout, math.inf)):
                    entry = (
                        await self.sender.resumed_from_chain(tool, arguments, key)
                        or entry
                    )
            except MarketError as exc:  # said with what this call sent: nothing new
                return error_result(f"{called}: {exc}; {unresumed_words(entry)}")
        if reader and entry and entry.status in (CallStatus.SENT, CallStatus.DELIVERED):
            # paid already (its receipt was seen): only wait, whatever the offers are now
            self._remember_name(name, arguments, requester, idempotency, key)
            answered = await self._waited(tool, entry, timer, session)
            if answered is not None:
                return answered
        refusal = self.changed.get(tool.name) or CHECKED.refusal(
            tool.name, tool.tool, tool.mech_tool
        )
        if refusal:  # after the journal: an answer paid before is still returned
            return error_result(f"{called}: {refusal}; {nothing_sent_words(entry)}")
        settings = self.settings
        try:
            ranked = self._ranked(tool.offers)
        except NoOffer as exc:
            return error_result(f"{called}: {exc}; {nothing_sent_words(entry)}")
        # a mech whose request was mined and reverted is not sent another (gas), one
        # that reverted at its estimate goes after the others, and one that accepted a
        # request and did not settle it in time after all of them (the journal read
        # first: its mined reverts, any process's, are skipped too)
        await self.sender.journal_records()
        ranked, skipped = self.reverting.skipped(ranked)
        ranked, reverted = self.reverting.tried_last(ranked)
        remembered = await self._given_up_for_call(paying=reader is not None)
        ranked, moved = tried_last(ranked, remembered, settings.timeout)
        moved = {**reverted, **moved}
        payload = request_payload(tool.mech_tool, arguments, payload_nonce(key))
        if reader is None:  # a dry run sends nothing, so remembers no revert
            return self.sender.dry_run(tool, ranked[0], payload, key)
        # before anything is signed: a retry finds this key whatever the name is then
        self._remember_name(name, arguments, requester, idempotency, key)
        for offer in ranked:
            sent = await self._sent_when_free(
                tool, offer, payload, (key, timer, ranked), session
            )
            if isinstance(sent, PriceRefusal):
                skipped.append((offer, sent))  # nothing paid: the next one is tried
                continue
            if isinstance(sent, NotFinal):
                # an earlier request of this call (one just mined and reverted, say)
                # could still be mined in a fork: said, with the offers skipped
                return error_result(
                    f"{called}: {sent}",
                    {"final_at": sent.final_at, "skipped": skipped_meta(skipped)},
                )
            if isinstance(sent, OffchainRefusal):
                # it says what was sent, held or deposited (OffchainRefusal.said)
                return error_result(f"{called}: {sent}")
            if isinstance(sent, str):
                return error_result(f"{called}: {sent}; nothing was sent")
            self._remember_name(name, arguments, requester, idempotency, key)
            self.reverting.forget(sent.mech)
            result = await reader.await_result(tool, sent, timer, session)
            if sent.mech != offer.address:  # a journalled request: chosen before
                return result
            return with_skipped(
                with_choice(
                    result, offer, ranked, (settings.pinned, settings.allowed), moved
                ),
                skipped,
            )
        decisions = [
            {"reason": str(r), "payment": r.payment}
            for _, r in skipped
            if r.payment is not None
        ]
        mined = any(r.mined for _, r in skipped)
        # what the call signed (an approval before a refused request) said once
        entry = await entry_now(reader.journal, key)
        refused = f"{called}: no offer could be paid now: " + refusals_said(
            [r for _, r in skipped], entry
        )
        unsent_words = nothing_sent_words(entry, refused)
        return error_result(
            refused
            + (
                "; nothing was paid (only the gas of the requests mined and reverted)"
                if mined
                else f"; {unsent_words}"
            ),
            {"refused": decisions, "skipped": skipped_meta(skipped)},
        )


def read_journal_in_background(index: Optional[JournalIndex]) -> None:
    """Read the journal once at start, in a daemon thread (:meth:`.JournalIndex.prime`).

    A daemon thread, so that a client that leaves at once is not kept waiting for it
    (anyio's worker threads are joined at exit). A failure is logged, never raised: the
    first paid call reads the journal again, and says why when it cannot.

    :param index: the sender's journal index (None: no journal, nothing read).
    """
    if index is None:
        return

    def run() -> None:
        try:
            index.prime()
        except (OSError, ValueError) as exc:
            LOGGER.warning("the call journal could not be read at start: %s", exc)

    threading.Thread(target=run, name="journal first read", daemon=True).start()


async def serve(
    app: MechToolServer,
    transport: str,
    host: str = "127.0.0.1",
    port: int = 8000,
    access: Optional[HttpAccess] = None,
) -> None:
    """Serve until the transport closes (stdio) or the process is stopped (http).

    :param app: the server, its catalogue read once already.
    :param transport: ``stdio`` or ``http`` (Streamable HTTP at ``/mcp``).
    :param host: HTTP bind address.
    :param port: HTTP port.
    :param access: the HTTP guard (:mod:`.http_access`; None: loopback, no token).
    """
    options = app.server.create_initialization_options()  # HTTP's sessions: the same
    # what calls count and tools/list remembers (.unsettled), read once before they ask
    read_journal_in_background(app.sender.index)
    async with anyio.create_task_group() as group:
        app.tasks.group = group  # task-augmented calls run on after their request
        group.start_soon(app.poll)
        warm_up_in_background()
        if transport == "stdio":
            from mcp.server.stdio import (  # pylint: disable=import-outside-toplevel
                stdio_server,
            )

            async with stdio_server() as (read_stream, write_stream):
                await app.server.run(read_stream, write_stream, options)
        else:
            import uvicorn  # pylint: disable=import-outside-toplevel

            guard = access or http_access(host, port, False, None)
            starlette = app.server.streamable_http_app(host=host, **guard.app_options())
            config = uvicorn.Config(
                starlette, host=host, port=port, log_level="warning"
            )
            shown_host = f"[{host}]" if ":" in host else host
            LOGGER.info("serving MCP at http://%s:%d/mcp", shown_host, port)
            await uvicorn.Server(config).serve()
        group.cancel_scope.cancel()
