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

"""The catalogue API's HTTP server: the request line as sent reaches the skill.

``valory/http_server`` parses requests with aiohttp and hands the skill
``str(request.url)``, a URL aiohttp rebuilds from its own host and the path: ``GET
ftp://host/tools``, ``GET http://elsewhere/tools`` and ``GET /tools`` all arrived as
``http://127.0.0.1:8000/tools`` and were served 200, so the skill's strict parser
(``mech_catalogue_core/http_api/request.py``) never saw what was asked. This connection
speaks the same ``valory/http`` protocol (a REQUEST to the skill, its RESPONSE back), so
the skill's handler is unchanged, but:

- requests are parsed by ``h11`` (RFC 9112, strict: an HTTP/0.9 line, a control byte,
  a malformed header field, two ``Host`` fields or an HTTP/1.1 request without one are
  400 ``malformed_request``); only HTTP/1.0 and HTTP/1.1 are answered (505
  ``http_version_not_supported`` otherwise);
- the REQUEST carries the method, the request target and the header fields exactly as
  received (``version`` is ``HTTP/1.x``); which target forms go on is decided by
  :func:`mech_catalogue_core.http_api.request_line.target_refusal` (an absolute
  ``http://`` URL only when it names the address the client connected to; ``ftp://``,
  ``CONNECT host:443`` and ``*`` are refused here);
- sizes and times are bounded (configuration, defaults in :class:`Limits`): the request
  head (414 ``url_too_long`` when the request line alone is over it, else 431
  ``headers_too_large``), the number of header fields (431), the body (413
  ``body_too_large``; a GET carries none), the time to send the request (408
  ``request_timeout``; a connection that sent nothing is closed silently), the time the
  skill takes to answer (503 ``not_answered``), and the connections open at once (503
  ``server_busy``);
- one request per connection: every response says ``Connection: close``.

Errors answered here have the API's body ``{"error": {"code", "message"}}``, codes and
statuses from ``mech_catalogue_core/http_api/request.py``. The listening socket is
asyncio's, which sets ``SO_REUSEADDR``: a restarted agent gets its port back while the
old connections are in TIME-WAIT (issue #34 item 12).
"""

import asyncio
import re
from dataclasses import dataclass, fields
from typing import Any, Dict, Optional, Set, Tuple, Union

import h11
from aea.common import Address
from aea.configurations.base import PublicId
from aea.connections.base import Connection, ConnectionStates
from aea.mail.base import Envelope, Message
from aea.protocols.dialogue.base import Dialogue as BaseDialogue
from aea.protocols.dialogue.base import DialogueLabel
from mech_catalogue_core.http_api.request import (
    BODY_TOO_LARGE,
    HEADERS_TOO_LARGE,
    HTTP_VERSION_NOT_SUPPORTED,
    INTERNAL_ERROR,
    MALFORMED_REQUEST,
    NOT_ANSWERED,
    REQUEST_TIMEOUT,
    SERVER_BUSY,
    URL_TOO_LONG,
    HttpResult,
    error_result,
    quoted,
)
from mech_catalogue_core.http_api.request_line import authority_of, target_refusal

from packages.valory.protocols.http.dialogues import HttpDialogue
from packages.valory.protocols.http.dialogues import HttpDialogues as BaseHttpDialogues
from packages.valory.protocols.http.message import HttpMessage

PUBLIC_ID = PublicId.from_str("mech_catalogue/http_server:0.1.0")
#: the HTTP versions answered (RFC 9112; HTTP/2 and later do not use this request line)
SERVED_VERSIONS = (b"1.0", b"1.1")
#: the first bytes of a request, as kept while reading
Head = Union[bytes, bytearray]
#: bytes read from a socket at once
CHUNK = 4096
#: a request line with a version (RFC 9112 section 3); tokens are h11's to check
_VERSIONED_LINE = re.compile(rb"[^ ]+ [^ ]+ HTTP/[0-9]\.[0-9]\r?")


@dataclass(frozen=True)
class Limits:
    """What one request may take; each is a configuration key of ``connection.yaml``.

    :param max_head_bytes: request line and header fields together, bytes (h11's
        ``max_incomplete_event_size``).
    :param max_header_fields: header fields at most.
    :param max_body_bytes: request body bytes at most (a GET carries none).
    :param read_timeout: seconds for the client to send the whole request.
    :param response_timeout: seconds for the skill to answer.
    :param max_connections: connections served at once; more are answered 503.
    """

    max_head_bytes: int = 16384
    max_header_fields: int = 100
    max_body_bytes: int = 65536
    read_timeout: float = 10.0
    response_timeout: float = 10.0
    max_connections: int = 64

    @classmethod
    def from_config(cls, config: Dict[str, Any]) -> "Limits":
        """Read the limits from a connection configuration (absent keys: defaults).

        :param config: the ``config`` of ``connection.yaml`` (or the agent's override).
        :return: the limits.
        """
        values: Dict[str, Any] = {}
        for field in fields(cls):
            if config.get(field.name) is not None:
                kind = float if field.type in (float, "float") else int
                values[field.name] = kind(config[field.name])
        return cls(**values)


@dataclass(frozen=True)
class Received:
    """A request the skill is asked to answer, exactly as sent.

    :param method: the method (case kept).
    :param target: the request target (the protocol's ``url``).
    :param version: ``HTTP/1.0`` or ``HTTP/1.1``.
    :param headers: the header fields, ``Name: value`` lines (names as sent).
    :param body: the body (at most ``max_body_bytes``).
    """

    method: str
    target: str
    version: str
    headers: str
    body: bytes


class HttpDialogues(BaseHttpDialogues):
    """The connection's side of the http dialogues (it speaks for the client)."""

    def __init__(self) -> None:
        """Initialise with the client role for every dialogue (as ``valory/http_server``)."""

        def role(  # pylint: disable=unused-argument
            message: Message, receiver_address: Address
        ) -> BaseDialogue.Role:
            return HttpDialogue.Role.CLIENT

        BaseHttpDialogues.__init__(
            self, self_address=str(PUBLIC_ID), role_from_first_message=role
        )


def protocol_error(exc: h11.RemoteProtocolError, head: Head) -> HttpResult:
    """Say what is wrong with bytes h11 could not read as a request.

    :param exc: h11's error (its ``error_status_hint`` says 400, 431 or 501).
    :param head: the first bytes received (at least the cap when the head was too long).
    :return: 414 when the request line alone is over the head cap, 431 for a longer
        head, else 400.
    """
    if exc.error_status_hint == 431:
        if b"\n" not in head:
            return error_result(
                URL_TOO_LONG,
                f"the request line is over {len(head)} bytes; the API's URLs are short",
            )
        return error_result(
            HEADERS_TOO_LARGE,
            f"the request line and header fields are over {len(head)} bytes",
        )
    return error_result(
        MALFORMED_REQUEST,
        f"this is not an HTTP/1.1 request (RFC 9112): {quoted(str(exc))}; send "
        "'GET /tools HTTP/1.1', a Host header field, each line ending CRLF",
    )


def simple_request(head: Head) -> bool:
    """Whether the first line received is an HTTP/0.9 simple request (no version).

    h11 waits for the blank line that ends a head, which an HTTP/0.9 client never
    sends: such a line is refused as soon as it is whole, not after ``read_timeout``.

    :param head: the first bytes received.
    :return: True when the first line is whole and does not end in ``HTTP/<d>.<d>``.
    """
    line, newline, _ = head.partition(b"\n")
    return bool(newline) and _VERSIONED_LINE.fullmatch(line) is None


def method_of(head: Head) -> str:
    """The method of the request whose first bytes these are (to answer a HEAD bodiless).

    :param head: the first bytes received.
    :return: the bytes before the first space, as ASCII ("" when none or not ASCII).
    """
    method, space, _ = bytes(head[:64]).partition(b" ")
    return method.decode("ascii", "replace") if space else ""


def head_within(head: Head, max_head_bytes: int) -> bool:
    """Whether the request head ends within the cap.

    :param head: the first bytes received (at most ``max_head_bytes + 1`` kept).
    :param max_head_bytes: the cap.
    :return: True when the blank line ending the head (CRLF CRLF, or bare LFs, which
        RFC 9112 section 2.2 lets a recipient accept) lies within the first
        ``max_head_bytes`` bytes.
    """
    first = head[:max_head_bytes]
    return b"\r\n\r\n" in first or b"\n\n" in first or b"\n\r\n" in first


def head_refusal(
    request: h11.Request, limits: Limits, served: Set[str]
) -> Optional[HttpResult]:
    """Decide whether a parsed request head may go on to the skill.

    :param request: h11's request (its method, target, version and fields as sent).
    :param limits: the caps.
    :param served: this server's authorities (:func:`authority_of`).
    :return: None to go on, else the error to answer (505, 431, 413, or a target
        refusal).
    """
    if request.http_version not in SERVED_VERSIONS:
        return error_result(
            HTTP_VERSION_NOT_SUPPORTED,
            f"HTTP/{request.http_version.decode('ascii', 'replace')} is not served; "
            "send HTTP/1.1",
        )
    if len(request.headers) > limits.max_header_fields:
        return error_result(
            HEADERS_TOO_LARGE,
            f"{len(request.headers)} header fields; at most {limits.max_header_fields}",
        )
    length = dict(request.headers).get(b"content-length", b"0")  # digits (h11)
    if len(length) > 15 or int(length) > limits.max_body_bytes:
        return error_result(
            BODY_TOO_LARGE,
            f"a body of {quoted(length.decode('ascii'))} bytes; at most "
            f"{limits.max_body_bytes} (a GET carries none)",
        )
    return target_refusal(
        request.method.decode("ascii"), request.target.decode("ascii"), served
    )


def received_of(request: h11.Request, body: bytes) -> Received:
    """The request as the skill receives it.

    :param request: h11's request.
    :param body: its body.
    :return: method, target and fields exactly as sent (field values as ISO-8859-1,
        RFC 9110 section 5.5).
    """
    lines = "".join(
        f"{name.decode('ascii')}: {value.decode('latin-1')}\n"
        for name, value in request.headers.raw_items()
    )
    return Received(
        method=request.method.decode("ascii"),
        target=request.target.decode("ascii"),
        version="HTTP/" + request.http_version.decode("ascii"),
        headers=lines,
        body=body,
    )


def response_events(
    method: str, status: int, reason: str, header_lines: str, body: bytes
) -> Tuple[Any, ...]:
    """The h11 events of a response: status line and fields, body, end.

    :param method: the request's method ("" when unknown): a HEAD answer has no body.
    :param status: the status code.
    :param reason: the reason phrase.
    :param header_lines: ``Name: value`` lines (the skill's); ``Content-Length`` (not
        for a HEAD) and ``Connection`` are set here.
    :param body: the body.
    :return: ``(Response, Data, EndOfMessage)`` (no ``Data`` for a HEAD).
    """
    headers = [
        (name.strip(), value.strip())
        for name, _, value in (
            line.partition(":") for line in header_lines.splitlines() if line.strip()
        )
        if name.strip().lower() not in ("content-length", "connection")
    ]
    if method == "HEAD":  # no body, and no length (RFC 9110 section 8.6: MAY omit)
        headers.append(("Connection", "close"))
        response = h11.Response(status_code=status, headers=headers, reason=reason)
        return response, h11.EndOfMessage()
    headers += [("Content-Length", str(len(body))), ("Connection", "close")]
    head = h11.Response(status_code=status, headers=headers, reason=reason.encode())
    return head, h11.Data(data=body), h11.EndOfMessage()


class HttpServerConnection(Connection):
    """The catalogue API's HTTP server (``valory/http`` protocol towards the skill)."""

    connection_id = PUBLIC_ID

    def __init__(self, **kwargs: Any) -> None:
        """Read ``host``, ``port``, ``target_skill_id`` and the limits.

        :param kwargs: the connection's keyword arguments.
        :raises ValueError: when host, port or target_skill_id is missing or invalid.
        """
        super().__init__(**kwargs)
        config = self.configuration.config
        host, port = config.get("host"), config.get("port")
        skill = PublicId.try_from_str(str(config.get("target_skill_id") or ""))
        if host is None or port is None or skill is None:
            raise ValueError(
                "the http_server connection needs host, port and a target_skill_id "
                "(a public id such as author/skill:0.1.0)"
            )
        self.host, self.port, self.target_skill_id = str(host), int(port), skill
        self.limits = Limits.from_config(config)
        self.dialogues = HttpDialogues()
        self._requests: Optional[asyncio.Queue] = None
        self._pending: Dict[DialogueLabel, asyncio.Future] = {}
        self._server: Optional[asyncio.AbstractServer] = None
        self._clients: Set[asyncio.Task] = set()

    async def connect(self) -> None:
        """Listen on host:port (``SO_REUSEADDR``, as asyncio sets it)."""
        if self.is_connected:  # pragma: nocover
            return
        self.state = ConnectionStates.connecting
        self._requests = asyncio.Queue()
        self._server = await asyncio.start_server(
            self._client, self.host, self.port, reuse_address=True
        )
        self.state = ConnectionStates.connected
        self.logger.info("HTTP server listening on %s:%d", self.host, self.port)

    async def disconnect(self) -> None:
        """Stop listening; requests in flight are cut."""
        if self.is_disconnected:  # pragma: nocover
            return
        self.state = ConnectionStates.disconnecting
        if self._server is not None:
            self._server.close()
        for task in list(self._clients):
            task.cancel()
        if self._clients:
            await asyncio.wait(self._clients)
        if self._server is not None:
            await self._server.wait_closed()
        self._server = None
        self.state = ConnectionStates.disconnected

    async def receive(self, *args: Any, **kwargs: Any) -> Optional[Envelope]:
        """Wait for the next request for the skill.

        :param args: unused.
        :param kwargs: unused.
        :return: the request envelope (None once disconnected).
        """
        if self._requests is None:  # pragma: nocover
            return None
        try:
            return await self._requests.get()
        except asyncio.CancelledError:  # pragma: nocover
            return None

    async def send(self, envelope: Envelope) -> None:
        """Hand the skill's response to the client waiting for it.

        :param envelope: an envelope with the ``HttpMessage`` RESPONSE.
        """
        message = envelope.message
        dialogue = (
            self.dialogues.update(message) if isinstance(message, HttpMessage) else None
        )
        if dialogue is None:
            self.logger.warning(
                "dropped a message that answers no request: %r", message
            )
            return
        future = self._pending.pop(dialogue.incomplete_dialogue_label, None)
        if future is None or future.done():
            self.logger.warning("dropped a response to a request no longer waiting")
            return
        future.set_result(message)

    async def _client(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """Serve one connection: one request, one response, close."""
        task = asyncio.current_task()
        busy = len(self._clients) >= self.limits.max_connections
        if task is not None:
            self._clients.add(task)
        parser = h11.Connection(
            h11.SERVER, max_incomplete_event_size=self.limits.max_head_bytes
        )
        head = bytearray()
        try:
            if busy:
                result: Optional[HttpResult] = error_result(
                    SERVER_BUSY,
                    f"{self.limits.max_connections} connections are open; try again",
                    headers="Retry-After: 1\n",
                )
            else:
                read = await self._read(parser, reader, writer, head)
                result = (
                    await self._answer(read) if isinstance(read, Received) else read
                )
            if result is not None:
                await self._write(parser, writer, method_of(head), result)
        except (ConnectionError, asyncio.TimeoutError):
            pass  # the client went away
        except Exception as exc:  # pylint: disable=broad-exception-caught
            self.logger.error("an HTTP request could not be answered: %r", exc)
        finally:
            if task is not None:
                self._clients.discard(task)
            writer.close()

    async def _read(
        self,
        parser: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        head: bytearray,
    ) -> Union[Received, HttpResult, None]:
        """Read one request within ``read_timeout``.

        :param parser: the connection's h11 parser.
        :param reader: the socket's reader.
        :param writer: the socket's writer (for the local address).
        :param head: filled with the first bytes received (up to the head cap).
        :return: the request, the error to answer, or None (nothing to answer: the
            client sent nothing, or closed).
        """
        try:
            return await asyncio.wait_for(
                self._request(parser, reader, writer, head), self.limits.read_timeout
            )
        except asyncio.TimeoutError:
            if not head:
                return None
            return error_result(
                REQUEST_TIMEOUT,
                f"the request was not sent whole within {self.limits.read_timeout:g} s",
            )
        except h11.RemoteProtocolError as exc:
            return protocol_error(exc, head)

    async def _request(
        self,
        parser: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        head: bytearray,
    ) -> Union[Received, HttpResult, None]:
        """Parse a request, its head checked before its body is read.

        :param parser: the connection's h11 parser.
        :param reader: the socket's reader.
        :param writer: the socket's writer (for the local address).
        :param head: filled with the first bytes received (up to the head cap).
        :return: as :meth:`_read`.
        """
        event = await self._next(parser, reader, head)
        if not isinstance(event, h11.Request):
            return None
        if not head_within(head, self.limits.max_head_bytes):
            # h11 caps only a head still incomplete; one completed by its last read
            # may be longer
            return protocol_error(
                h11.RemoteProtocolError("head too long", error_status_hint=431), head
            )
        refusal = head_refusal(event, self.limits, self._served(writer))
        if refusal is not None:
            return refusal
        body = bytearray()
        while True:
            part = await self._next(parser, reader, head)
            if isinstance(part, h11.Data):
                body += part.data
                if len(body) > self.limits.max_body_bytes:
                    return error_result(
                        BODY_TOO_LARGE,
                        f"a body over {self.limits.max_body_bytes} bytes (a GET "
                        "carries none)",
                    )
            elif isinstance(part, h11.EndOfMessage):
                return received_of(event, bytes(body))
            else:
                return None

    async def _next(
        self, parser: h11.Connection, reader: asyncio.StreamReader, head: bytearray
    ) -> Any:
        """Return h11's next event, reading from the socket as it needs.

        :param parser: the connection's h11 parser.
        :param reader: the socket's reader.
        :param head: the first bytes received, kept up to the head cap.
        :return: the event (``ConnectionClosed`` when the client closed).
        :raises RemoteProtocolError: h11's, or for an HTTP/0.9 request line.
        """
        while True:
            event = parser.next_event()
            if event is not h11.NEED_DATA:
                return event
            data = await reader.read(CHUNK)
            room = self.limits.max_head_bytes + 1 - len(head)
            if room > 0:
                head += data[:room]
            if simple_request(head):
                raise h11.RemoteProtocolError("an HTTP/0.9 request line (no version)")
            parser.receive_data(data)

    def _served(self, writer: asyncio.StreamWriter) -> Set[str]:
        """This server's authority as the client reached it (the socket's local address).

        :param writer: the socket's writer.
        :return: ``{host:port}`` (empty when the address is unknown).
        """
        local = writer.get_extra_info("sockname")
        if not isinstance(local, tuple) or len(local) < 2:
            return set()
        return {authority_of(str(local[0]), int(local[1]))}

    async def _answer(self, request: Received) -> HttpResult:
        """Ask the skill and wait for its answer, at most ``response_timeout``.

        :param request: the request.
        :return: the skill's response, or 503 ``not_answered``.
        """
        message, dialogue = self.dialogues.create(
            counterparty=str(self.target_skill_id),
            performative=HttpMessage.Performative.REQUEST,
            method=request.method,
            url=request.target,
            headers=request.headers,
            body=request.body,
            version=request.version,
        )
        label = dialogue.incomplete_dialogue_label
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self._pending[label] = future
        try:
            assert self._requests is not None  # nosec: set by connect()
            await self._requests.put(
                Envelope(to=message.to, sender=message.sender, message=message)
            )
            response = await asyncio.wait_for(future, self.limits.response_timeout)
        except asyncio.TimeoutError:
            return error_result(
                NOT_ANSWERED,
                f"the agent did not answer within {self.limits.response_timeout:g} s "
                "(it is busy); try again",
                headers="Retry-After: 5\n",
            )
        finally:
            self._pending.pop(label, None)
        return HttpResult(
            response.status_code, response.body or b"", response.headers or ""
        )

    async def _write(
        self,
        parser: h11.Connection,
        writer: asyncio.StreamWriter,
        method: str,
        result: HttpResult,
    ) -> None:
        """Send the response (a 500 when h11 refuses the skill's), then flush.

        :param parser: the connection's h11 parser.
        :param writer: the socket's writer.
        :param method: the request's method ("" when none was read).
        :param result: the response.
        """
        try:
            events = response_events(
                method,
                result.status_code,
                result.status_text,
                result.headers,
                result.body,
            )
            data = b"".join(parser.send(event) or b"" for event in events)
        except h11.LocalProtocolError as exc:
            self.logger.error("the skill's response cannot be sent: %s", exc)
            fallback = error_result(INTERNAL_ERROR, "the agent's answer was malformed")
            events = response_events(
                method, 500, fallback.status_text, fallback.headers, fallback.body
            )
            fresh = h11.Connection(h11.SERVER)  # the first one is in its ERROR state
            data = b"".join(fresh.send(event) or b"" for event in events)
        writer.write(data)
        await asyncio.wait_for(writer.drain(), self.limits.read_timeout)
