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

"""The MCP server: ``tools/list`` is the catalogue, ``tools/call`` a paid mech request.

Built on the ``mcp`` SDK's low-level ``Server`` (no hand-written JSON-RPC); served over
stdio or Streamable HTTP by :func:`serve`. Change notifications: a poller re-reads the
source every ``poll_seconds``; when the catalogue digest changes it publishes
``ToolsListChanged`` on the ``subscriptions/listen`` bus (protocol 2026-07-28) and sends
``notifications/tools/list_changed`` to every handshake-era session that has talked to it.

A call (:meth:`MechToolServer.call`): validate the arguments (an ``isError`` result naming
each bad argument, nothing sent) -> journal lookup (a retry of an unfinished call never
pays again) -> rank the offers (:func:`.decisions.rank_offers`: the incumbent first) ->
for each in turn, under one lock: read its price now (the amount sent; over
``--max-price`` or unread: the next offer is tried, :func:`.decisions.send_time_refusal`)
-> spend cap -> upload the payload -> derive the request id -> send
``MechMarketplace.request`` (a gas estimate that reverts because the price moved meanwhile
also moves on to the next offer, nothing sent) -> wait for the
delivery (progress notifications every poll, ``--timeout``, cancellable) -> fetch and
verify the response -> return it (``structuredContent`` when it validates against the
tool's ``outputSchema``). ``_meta["io.olas/mech-request"]`` carries the request id (hex,
and decimal as a string), mech, price, transaction, CIDs, the delivering mech, warnings,
where the time went (seconds) and, for a request sent by this call, ``choice``: the mech
chosen and why (:func:`.decisions.choice_reason`).

After payment nothing escapes as a protocol error (:meth:`MechToolServer._await_result`):
a failure is an ``isError`` result naming the paid request and saying that calling again
with the same arguments waits for it, never pays again; a response that cannot be
structured is returned as text with a warning; an answer delivered by a mech other than
the one paid is said to be, and is an error marked untrusted unless that mech offers the
same tool with the same schema (:func:`.decisions.check_delivery`). A call with no
journal entry is first looked for on chain (:meth:`.market.Marketplace.own_request`) and
resumed when found.
"""

import json
import logging
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ToolsListChanged,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from mech_catalogue_core.ipfs.cid import DAG_PB, digest_to_cid
from mech_catalogue_core.ipfs.unixfs import (
    root_digest,
)
from mech_catalogue_core.model.vocabulary import CallStatus

from .bounded import (
    CHECK_SECONDS,
    MAX_CHECKS,
    CheckBusy,
    CheckTimeout,
    run_bounded,
    warm_up,
)
from .decisions import (
    IDEMPOTENCY_META_KEY,
    NoOffer,
    Offer,
    SpendLedger,
    argument_errors,
    call_key,
    check_delivery,
    choice_reason,
    hidden_text_refusal,
    payload_nonce,
    pin_refusal,
    rank_offers,
    request_payload,
    secret_refusal,
    send_time_refusal,
)
from .ipfs import IpfsError, fetch_response, payload_bytes, upload_json
from .market import (
    STATUS_DOES_NOT_EXIST,
    Delivered,
    Journal,
    JournalEntry,
    MarketError,
    Marketplace,
    RequestReverted,
    SignedRequest,
)
from .pins import definition_digest, definition_of, load_pins, save_pins
from .results import (
    REQUEST_META_KEY,
    answer_result,
    error_result,
    failure_text,
    structured_or_why,
    text_content,
)
from .source import (
    DEFAULT_PAGE_SIZE,
    MAX_LISTED_TOOL_BYTES,
    ServedCatalogue,
    ServedTool,
    SourceError,
)

LOGGER = logging.getLogger("mech_catalogue.mcp")
SERVER_NAME = "mech-catalogue"


@dataclass
class CallSettings:  # pylint: disable=too-many-instance-attributes
    """How calls are paid and waited for.

    :param gateway_url: IPFS gateway (responses).
    :param ipfs_api_url: kubo RPC API (request upload).
    :param max_price: per-call cap, wei (None: none).
    :param max_spend: per-run cap, wei (None: none).
    :param pinned: ``--mech`` (a mech contract address or catalogue entry key).
    :param allowed: ``--allow-mech`` (addresses or entry keys; empty: any mech).
    :param dry_run: return the transaction and payload instead of sending.
    :param timeout: seconds to wait for a delivery.
    :param delivery_poll: seconds between delivery checks (and progress notifications).
    :param poll_seconds: seconds between catalogue reads.
    :param page_size: tools per ``tools/list`` page.
    :param io_timeout: seconds per IPFS or RPC request.
    :param all_tools: list every tool, not only those a call can pay for now.
    :param pin_file: ``--pin``: the approved tool definitions (:mod:`.pins`; "" for none).
    """

    gateway_url: str
    ipfs_api_url: str
    max_price: Optional[int] = None
    max_spend: Optional[int] = None
    pinned: str = ""
    allowed: Tuple[str, ...] = ()
    dry_run: bool = False
    timeout: float = 300.0
    delivery_poll: float = 1.0
    poll_seconds: float = 30.0
    page_size: int = DEFAULT_PAGE_SIZE
    io_timeout: float = 30.0
    all_tools: bool = False
    pin_file: str = ""


class PriceRefusal(str):
    """Why an offer was not paid because of its price at send time: try the next one."""


@dataclass
class _Timer:
    marks: Dict[str, float] = field(default_factory=dict)
    last: float = field(default_factory=time.monotonic)

    def lap(self, name: str) -> None:
        """Add the time since the last lap to ``name``."""
        now = time.monotonic()
        self.marks[name] = round(self.marks.get(name, 0.0) + now - self.last, 4)
        self.last = now


class MechToolServer:  # pylint: disable=too-many-instance-attributes
    """The server's state: the catalogue served, spending, the journal, the SDK server."""

    def __init__(
        self,
        source: Any,
        settings: CallSettings,
        market: Optional[Marketplace],
        journal: Optional[Journal],
    ) -> None:
        """Wire the pieces (the catalogue is read by :meth:`refresh`).

        :param source: an ``AgentSource`` or ``DirectSource``.
        :param settings: call settings.
        :param market: the marketplace (None: no key, only ``--dry-run`` calls).
        :param journal: the call journal (None with no key).
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
        self.ledger = SpendLedger(settings.max_spend)
        self.bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self.bus)
        # handshake-era client connections, weakly: ctx.session is a per-request proxy,
        # so remembering it kept one object per request (and sent one notification per
        # request made) until a catalogue change; a connection the SDK closed and dropped
        # is forgotten here too
        self._handshake_connections: "weakref.WeakSet[Any]" = weakref.WeakSet()
        self._send_lock = anyio.Lock()
        self.server: Server[Any] = Server(
            SERVER_NAME,
            version="1",
            instructions=(
                "Each tool is an Olas mech tool; calling one pays a mech on chain "
                "(price in the tool's _meta offers) and returns its delivered answer."
            ),
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_subscriptions_listen=self.listen,
            get_tool_input_schema=self._input_schema,
        )

    # --- catalogue -----------------------------------------------------------------
    def refresh(self) -> bool:
        """Read the source (blocking); keep the new catalogue when its digest changed.

        ``catalogue`` keeps every tool (calls, and retries of paid requests, resolve
        against it); ``listed`` is what ``tools/list`` serves: the payable tools with
        their price (:meth:`.source.ServedCatalogue.payable_only`), or every tool with
        ``--all-tools``, never a tool that asks for a secret or still hides text
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
        self.catalogue = served
        listable, refused = served.refusing_unsafe()
        if refused:
            LOGGER.warning(
                "%d tools not listed: they ask for a secret or hide text (%s)",
                len(refused),
                ", ".join(refused[:10]),
            )
        listable = self._approved(listable)
        listed, left_out = (
            listable
            if self.settings.all_tools
            else listable.payable_only(
                self.settings.max_price, self.settings.pinned, self.settings.allowed
            )
        ).within_bytes()
        if left_out:
            LOGGER.warning(
                "%d tools not listed: each Tool is over %d bytes (%s)",
                len(left_out),
                MAX_LISTED_TOOL_BYTES,
                ", ".join(left_out[:10]),
            )
        self.listed = listed
        return True

    def _approved(self, served: ServedCatalogue) -> ServedCatalogue:
        """Keep the tools whose definition is approved in ``--pin`` (:mod:`.pins`).

        A tool not in the file is approved now (written back); one whose definition
        differs is left out and remembered in :attr:`changed` with what changed.

        :param served: the tools that may be listed.
        :return: the approved ones (same digest); ``served`` without ``--pin``.
        """
        self.changed = {}
        if not self.settings.pin_file:
            return served
        path = Path(self.settings.pin_file)
        pins = load_pins(path)
        kept: List[ServedTool] = []
        approved_now = 0
        for tool in served.tools:
            definition = definition_of(tool.tool)
            digest = definition_digest(definition)
            entry = pins.get(tool.name)
            if entry is None:
                pins[tool.name] = {"digest": digest, "definition": definition}
                approved_now += 1
            elif entry["digest"] != digest:
                self.changed[tool.name] = pin_refusal(
                    entry.get("definition") or {}, definition, str(path)
                )
                continue
            kept.append(tool)
        if approved_now:
            save_pins(path, pins)
            LOGGER.info("%d new tool definitions approved in %s", approved_now, path)
        if self.changed:
            LOGGER.warning(
                "%d tools not listed: changed since approved in %s (%s)",
                len(self.changed),
                path,
                ", ".join(sorted(self.changed)[:10]),
            )
        return ServedCatalogue(served.digest, tuple(kept))

    async def poll(self) -> None:
        """Re-read the source forever; announce a changed catalogue."""
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
            page, cursor = self.listed.page(
                params.cursor if params else None, self.settings.page_size
            )
        except ValueError as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from exc
        return types.ListToolsResult(
            tools=[types.Tool.model_validate(tool.tool) for tool in page],
            next_cursor=cursor,
        )

    # --- calls ---------------------------------------------------------------------
    async def call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        """Answer ``tools/call`` (see the module docstring); never raises on bad input.

        :param ctx: the request context (progress goes to ``ctx.session``).
        :param params: name, arguments, ``_meta``.
        :return: the result (``isError`` with a sentence when the call failed).
        """
        self._remember(ctx)
        meta = params.meta if isinstance(params.meta, dict) else {}
        if params.meta is not None and not isinstance(params.meta, dict):
            meta = params.meta.model_dump(by_alias=True)
        idempotency = str(meta.get(IDEMPOTENCY_META_KEY, ""))
        try:
            return await self.call(
                params.name, params.arguments or {}, idempotency, ctx.session
            )
        except (MarketError, IpfsError, SourceError) as exc:
            return error_result(f"{params.name}: {exc}")

    async def _progress(
        self, session: Any, done: float, total: float, message: str
    ) -> None:
        if session is None:
            return
        try:
            await session.report_progress(done, total, message)
        except Exception:  # pylint: disable=broad-except  # progress is best effort
            LOGGER.debug("progress not sent", exc_info=True)

    async def call(  # pylint: disable=too-many-locals,too-many-return-statements
        self,
        name: str,
        arguments: Dict[str, Any],
        idempotency: str = "",
        session: Any = None,
    ) -> types.CallToolResult:
        """Run one call.

        :param name: the MCP tool name.
        :param arguments: the arguments.
        :param idempotency: the client's idempotency key ("" when none).
        :param session: the SDK session for progress notifications (None: none).
        :return: the result. Raises ``MarketError`` (a failed chain read or
            transaction) and ``IpfsError`` (a failed upload or fetch);
            :meth:`call_tool` turns them into ``isError`` results.
        """
        timer = _Timer()
        tool = self.catalogue.named(name)
        if tool is None:
            return error_result(
                f"no tool named {name!r} is served now; list the tools again"
            )
        invalid = await self._check_arguments(name, tool, arguments)
        timer.lap("validation")
        if invalid is not None:
            return invalid
        requester = self.market.requester if self.market else "0x" + "0" * 40
        key = call_key(tool.mech_tool, arguments, requester, idempotency)
        live = not self.settings.dry_run and self.market and self.journal
        entry = self.journal.load(key) if live and self.journal else None
        if live and (entry is None or entry.status == CallStatus.PREPARED):
            # a missing entry, or one not known to be sent (a crash before the receipt,
            # or a rewritten file): this requester's request with the call's data on
            # chain is the call's, whatever the entry says
            entry = await self._resumed_from_chain(tool, arguments, key) or entry
        if entry is not None and entry.status in (
            CallStatus.SENT,
            CallStatus.DELIVERED,
        ):
            # paid already (its receipt was seen): only wait, whatever the offers are now
            return await self._await_result(tool, entry, timer, session)
        refusal = (
            self.changed.get(name)
            or secret_refusal(tool.tool["inputSchema"])
            or hidden_text_refusal(tool.tool)
        )
        if refusal:  # after the journal: an answer paid before is still returned
            return error_result(f"{name}: {refusal}; nothing was sent")
        settings = self.settings
        try:
            ranked = rank_offers(
                tool.offers, settings.max_price, settings.pinned, settings.allowed
            )
        except NoOffer as exc:
            return error_result(f"{name}: {exc}; nothing was sent")
        payload = request_payload(tool.mech_tool, arguments, payload_nonce(key))
        if not live:
            return self._dry_run(tool, ranked[0], payload, key)
        refused: list[str] = []
        for offer in ranked:
            sent = await self._ensure_sent(tool, offer, payload, key, timer)
            if isinstance(sent, PriceRefusal):
                refused.append(sent)  # nothing sent: the next offer is tried
                continue
            if isinstance(sent, str):
                return error_result(f"{name}: {sent}; nothing was sent")
            result = await self._await_result(tool, sent, timer, session)
            if sent.mech != offer.address:  # a journalled request: chosen before
                return result
            return self._with_choice(result, offer, ranked)
        return error_result(
            f"{name}: no offer could be paid at its price now: "
            + "; ".join(refused)
            + "; nothing was sent"
        )

    @staticmethod
    async def _check_arguments(
        name: str, tool: ServedTool, arguments: Dict[str, Any]
    ) -> Optional[types.CallToolResult]:
        """Check the arguments against the tool's input schema, in the bounded pool.

        :param name: the MCP tool name.
        :param tool: the served tool.
        :param arguments: the call's arguments.
        :return: the error result to answer (nothing was sent), None when they are valid.
        """
        try:
            errors = await anyio.to_thread.run_sync(
                run_bounded, argument_errors, (tool.tool["inputSchema"], arguments)
            )
        except RecursionError:  # too deep to even hand to the checking process
            return error_result(
                f"{name}: invalid arguments, nothing was sent: arguments: nested too "
                "deeply to check"
            )
        except CheckBusy:
            return error_result(
                f"{name}: the server is checking as many calls as it runs at once "
                f"({MAX_CHECKS}) and none finished in time; nothing was sent: call again"
            )
        except CheckTimeout:
            return error_result(
                f"{name}: the arguments could not be checked against the tool's input "
                f"schema within {CHECK_SECONDS:g} s (a backtracking pattern?); nothing "
                "was sent"
            )
        if errors:
            return error_result(
                f"{name}: invalid arguments, nothing was sent: " + "; ".join(errors)
            )
        return None

    def _with_choice(
        self, result: types.CallToolResult, offer: Offer, ranked: list[Offer]
    ) -> types.CallToolResult:
        """Add ``choice`` (which mech, why) to a call's ``_meta``, when it has one.

        :param result: the call's result.
        :param offer: the offer paid.
        :param ranked: the eligible offers, in the order they were tried.
        :return: the result.
        """
        meta = result.meta or {}
        request = meta.get(REQUEST_META_KEY)
        if isinstance(request, dict):
            request["choice"] = {
                "mech": offer.mech_key,
                "address": offer.address,
                "created_block": (
                    None if offer.created_block is None else str(offer.created_block)
                ),
                "why": choice_reason(
                    offer, ranked, self.settings.pinned, self.settings.allowed
                ),
            }
        return result

    def _dry_run(
        self, tool: ServedTool, offer: Offer, payload: Dict[str, Any], key: str
    ) -> types.CallToolResult:
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
        if self.market is not None:
            body["transaction"] = {
                k: (hex(v) if isinstance(v, int) and k == "value" else v)
                for k, v in self.market.request_transaction(
                    offer.address,
                    bytes.fromhex(body["request_data"][2:]),
                    int(offer.price or 0),
                    offer.payment_type,
                    self.market.response_timeout(self.settings.timeout),
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

    async def _ensure_sent(  # pylint: disable=too-many-arguments
        self,
        tool: ServedTool,
        offer: Offer,
        payload: Dict[str, Any],
        key: str,
        timer: _Timer,
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
        assert market is not None and journal is not None  # nosec: checked by call()
        async with self._send_lock:
            entry = journal.load(key)
            if entry is not None:
                status = await anyio.to_thread.run_sync(market.status, entry.request_id)
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
                            self._broadcast_again, entry
                        )
                # else its nonce went to another transaction: it can never be mined
            price_now = await anyio.to_thread.run_sync(market.mech_price, offer.address)
            moved = send_time_refusal(offer, price_now, self.settings.max_price)
            if moved or price_now is None:
                return PriceRefusal(moved)
            price = price_now  # the amount sent: the price now, never the listed one
            refusal = self.ledger.refusal(price)
            if refusal:
                return refusal
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
                try:
                    signed = market.sign(
                        market.request_transaction(
                            offer.address,
                            data,
                            price,
                            offer.payment_type,
                            market.response_timeout(self.settings.timeout),
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
                journal.save(
                    prepared
                )  # before the broadcast: a retry re-sends these bytes
                # counted before sending: a send that fails after the broadcast (no
                # receipt in time) may still be mined, so it must count against the cap
                self.ledger.record(price, prepared.request_id)
                try:
                    return self._broadcast_again(prepared)
                except RequestReverted:
                    # mined and reverted: nothing was paid but gas, so it does not count
                    # against --max-spend; a price raised while it was pending (a mech
                    # front-running the request) is said in words, and the next offer tried
                    self.ledger.refund(price, prepared.request_id)
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

    def _broadcast_again(self, entry: JournalEntry) -> JournalEntry:
        """Broadcast a journalled request and wait for it; mark it sent (blocking).

        :param entry: a journal entry holding the signed request.
        :return: the entry, sent.
        """
        market, journal = self.market, self.journal
        assert market is not None and journal is not None  # nosec: checked by call()
        entry.tx_hash = market.broadcast(
            SignedRequest(entry.raw_tx, entry.tx_hash, entry.account_nonce),
            self.settings.io_timeout,
        )
        entry.status = CallStatus.SENT
        journal.save(entry)
        return entry

    async def _resumed_from_chain(
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
        assert market is not None and journal is not None  # nosec: checked by call()
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

    async def _await_result(
        self,
        tool: ServedTool,
        entry: JournalEntry,
        timer: _Timer,
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
            "tx_hash": entry.tx_hash,
            "request_cid": entry.cid,
        }
        try:
            delivered = await self._wait_for_delivery(tool, entry, timer, session, meta)
            if isinstance(delivered, types.CallToolResult):
                return delivered
            return await self._delivered_result(tool, entry, delivered, timer, meta)
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # after payment nothing may escape as "Internal server error"
            if not isinstance(exc, (MarketError, IpfsError)):
                LOGGER.exception(
                    "request %s: reading its answer failed", entry.request_id
                )
            meta["seconds"] = timer.marks
            return error_result(
                f"{tool.name}: request {entry.request_id} to mech {entry.mech} "
                f"({entry.price} wei, tx {entry.tx_hash}) is paid, but its answer could "
                f"not be read now: {failure_text(exc)}. Call again with the same arguments to "
                "read it (that will not pay again).",
                meta,
            )

    async def _wait_for_delivery(
        self,
        tool: ServedTool,
        entry: JournalEntry,
        timer: _Timer,
        session: Any,
        meta: Dict[str, Any],
    ) -> Union[Delivered, types.CallToolResult]:
        """Poll the marketplace until the request is delivered or ``--timeout`` passes.

        :param tool: the tool called.
        :param entry: the journal entry of the paid request.
        :param timer: the call's phase timer.
        :param session: the SDK session for progress notifications (None: none).
        :param meta: the result's ``_meta`` so far.
        :return: the delivery, or the timeout's ``isError`` result.
        """
        market = self.market
        assert market is not None  # nosec: checked by call()
        began = time.monotonic()
        total = self.settings.timeout
        while True:
            delivered = await anyio.to_thread.run_sync(
                market.delivery, entry.request_id, entry.from_block
            )
            waited = time.monotonic() - began
            if delivered is not None:
                timer.lap("delivery_wait")
                return delivered
            if waited >= total:
                timer.lap("delivery_wait")
                meta["seconds"] = timer.marks
                return error_result(
                    f"{tool.name}: request {entry.request_id} to mech {entry.mech} "
                    f"({entry.price} wei, tx {entry.tx_hash}) was not delivered within "
                    f"{total:g} s. It stays paid on chain; call again with the same "
                    "arguments to keep waiting (that will not pay again).",
                    meta,
                )
            await self._progress(
                session,
                round(waited, 1),
                total,
                f"waiting for mech {entry.mech} to deliver request {entry.request_id}",
            )
            await anyio.sleep(self.settings.delivery_poll)

    async def _delivered_result(  # pylint: disable=too-many-arguments
        self,
        tool: ServedTool,
        entry: JournalEntry,
        delivered: Delivered,
        timer: _Timer,
        meta: Dict[str, Any],
    ) -> types.CallToolResult:
        """Fetch and verify the delivered response, journal it, and say what it is.

        :param tool: the tool called.
        :param entry: the journal entry of the paid request.
        :param delivered: the delivery (data and delivering mech).
        :param timer: the call's phase timer.
        :param meta: the result's ``_meta`` so far.
        :return: the result.
        :raises MarketError: when the request is another account's (a tampered entry).
        """
        market, journal = self.market, self.journal
        assert market is not None and journal is not None  # nosec: checked by call()
        if delivered.requester != market.requester.lower():
            raise MarketError(
                f"the journal entry of this call names request {entry.request_id}, which "
                f"account {delivered.requester} sent, not this one; move the entry away"
            )
        body, response_cid = await anyio.to_thread.run_sync(
            fetch_response,
            self.settings.gateway_url,
            delivered.data,
            int(entry.request_id, 16),
            self.settings.io_timeout,
        )
        timer.lap("fetch")
        entry.status, entry.response_cid = CallStatus.DELIVERED, response_cid
        journal.save(entry)
        check = check_delivery(entry.mech, delivered.mech, tool.offers)
        meta.update(
            response_cid=response_cid,
            delivery_mech=check.delivery_mech,
            seconds=timer.marks,
        )
        try:
            structured, problem = await anyio.to_thread.run_sync(
                structured_or_why, tool, body
            )
        except Exception as exc:  # pylint: disable=broad-exception-caught
            structured, problem = (
                None,
                f"it could not be structured ({failure_text(exc)})",
            )
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


async def serve(
    app: MechToolServer, transport: str, host: str = "127.0.0.1", port: int = 8000
) -> None:
    """Serve until the transport closes (stdio) or the process is stopped (http).

    :param app: the server, its catalogue read once already.
    :param transport: ``stdio`` or ``http`` (Streamable HTTP at ``/mcp``).
    :param host: HTTP bind address.
    :param port: HTTP port.
    """
    options = app.server.create_initialization_options(
        NotificationOptions(tools_changed=True)
    )
    async with anyio.create_task_group() as group:
        group.start_soon(app.poll)
        group.start_soon(anyio.to_thread.run_sync, warm_up)
        if transport == "stdio":
            from mcp.server.stdio import (  # pylint: disable=import-outside-toplevel
                stdio_server,
            )

            async with stdio_server() as (read_stream, write_stream):
                await app.server.run(read_stream, write_stream, options)
        else:
            import uvicorn  # pylint: disable=import-outside-toplevel

            starlette = app.server.streamable_http_app(host=host)
            config = uvicorn.Config(
                starlette, host=host, port=port, log_level="warning"
            )
            await uvicorn.Server(config).serve()
        group.cancel_scope.cancel()
