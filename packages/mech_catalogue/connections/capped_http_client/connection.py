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

"""An HTTP client connection that never holds more of a response body than a cap.

The ``valory/http_client`` connection reads every body whole (``await resp.read()``)
before answering, so a server that streams without end makes the agent hold all of it.
This connection speaks the same ``valory/http`` protocol (a REQUEST in, a RESPONSE out)
but streams the body and stops after the request's limit:

- a request with ``Range: bytes=0-<n>`` (what the skill's manifest fetch sends, see
  ``mech_catalogue_core/ipfs/size_cap.py``) is read to at most ``n + 1`` bytes, whatever
  the server does with the Range;
- any other request to at most the ``max_body_bytes`` configuration value.

The rest of the body is never read: the connection to the server is closed. The
RESPONSE carries the status, the headers and the bytes kept; a request that fails (DNS,
refused, timeout) is answered with status 600 and the exception's type, like
``valory/http_client``. ``timeout`` (seconds, per request) bounds the time as well.
"""

import asyncio
import email.message
import re
from typing import Any, Optional, Set

import aiohttp
from aea.common import Address
from aea.configurations.base import PublicId
from aea.connections.base import Connection, ConnectionStates
from aea.mail.base import Envelope, Message
from aea.protocols.dialogue.base import Dialogue as BaseDialogue

from packages.valory.protocols.http.dialogues import HttpDialogue
from packages.valory.protocols.http.dialogues import HttpDialogues as BaseHttpDialogues
from packages.valory.protocols.http.message import HttpMessage

PUBLIC_ID = PublicId.from_str("mech_catalogue/capped_http_client:0.1.0")
#: status of a request that could not be made (the http_client connection's convention)
REQUEST_FAILED = 600
DEFAULT_MAX_BODY_BYTES = 1_048_577
DEFAULT_TIMEOUT = 30.0
CHUNK = 65536
_RANGE_FROM_ZERO = re.compile(r"bytes=0-(\d{1,15})\s*$")


def body_limit(headers: str, default: int) -> int:
    """Return how many body bytes to keep for a request.

    :param headers: the request's ``Name: value`` lines.
    :param default: the limit without a ``Range: bytes=0-<n>`` header.
    :return: ``n + 1`` for such a Range (never more than ``default``), else ``default``.
    """
    value = email.message_from_string(headers or "").get("Range") or ""
    match = _RANGE_FROM_ZERO.match(value.strip())
    if match is None:
        return default
    return min(default, int(match.group(1)) + 1)


class HttpDialogues(BaseHttpDialogues):
    """The connection's side of the http dialogues (it answers as the server)."""

    def __init__(self) -> None:
        """Initialise with the server role for every dialogue."""

        def role(  # pylint: disable=unused-argument
            message: Message, receiver_address: Address
        ) -> BaseDialogue.Role:
            return HttpDialogue.Role.SERVER

        BaseHttpDialogues.__init__(
            self,
            self_address=str(PUBLIC_ID),
            role_from_first_message=role,
            dialogue_class=HttpDialogue,
        )


class CappedHttpClientConnection(Connection):
    """HTTP requests for skills, with every response body cut at a limit while reading."""

    connection_id = PUBLIC_ID

    def __init__(self, **kwargs: Any) -> None:
        """Read ``max_body_bytes`` and ``timeout`` from the configuration.

        :param kwargs: the connection's keyword arguments.
        """
        super().__init__(**kwargs)
        config = self.configuration.config
        self.max_body_bytes = int(config.get("max_body_bytes", DEFAULT_MAX_BODY_BYTES))
        self.timeout = float(config.get("timeout", DEFAULT_TIMEOUT))
        self.dialogues = HttpDialogues()
        self._responses: Optional[asyncio.Queue] = None
        self._session: Optional[aiohttp.ClientSession] = None
        self._tasks: Set[asyncio.Task] = set()

    async def connect(self) -> None:
        """Open the HTTP session."""
        if self.is_connected:  # pragma: nocover
            return
        self._responses = asyncio.Queue()
        self._session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=self.timeout)
        )
        self.state = ConnectionStates.connected

    async def disconnect(self) -> None:
        """Cancel requests in flight and close the session."""
        if self.is_disconnected:  # pragma: nocover
            return
        self.state = ConnectionStates.disconnecting
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks)
        if self._session is not None:
            await self._session.close()
        self._session = None
        self.state = ConnectionStates.disconnected

    async def send(self, envelope: Envelope) -> None:
        """Start the request an envelope carries; its response is queued when done.

        :param envelope: an envelope with an ``HttpMessage`` REQUEST.
        """
        task = asyncio.ensure_future(self._request(envelope))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def receive(self, *args: Any, **kwargs: Any) -> Optional[Envelope]:
        """Wait for the next response.

        :param args: unused.
        :param kwargs: unused.
        :return: the response envelope (None once disconnected).
        """
        if self._responses is None:  # pragma: nocover
            return None
        try:
            return await self._responses.get()
        except asyncio.CancelledError:  # pragma: nocover
            return None

    async def _request(self, envelope: Envelope) -> None:
        message = envelope.message
        if (
            not isinstance(message, HttpMessage)
            or message.performative != HttpMessage.Performative.REQUEST
        ):
            self.logger.warning(
                "dropped a message that is no http REQUEST: %r", message
            )
            return
        dialogue = self.dialogues.update(message)
        if dialogue is None:
            self.logger.warning("no dialogue for %r", message)
            return
        limit = body_limit(message.headers, self.max_body_bytes)
        try:
            status, reason, headers, body = await self._fetch(message, limit)
        except Exception as exc:  # pylint: disable=broad-exception-caught
            status, reason, headers, body = (
                REQUEST_FAILED,
                "request failed",
                "",
                f"{type(exc).__name__}: {exc}"[:500].encode(),
            )
        response = dialogue.reply(
            performative=HttpMessage.Performative.RESPONSE,
            target_message=message,
            version="",
            status_code=status,
            status_text=reason,
            headers=headers,
            body=body,
        )
        if self._responses is not None:
            await self._responses.put(
                Envelope(
                    to=response.to,
                    sender=response.sender,
                    message=response,
                    context=envelope.context,
                )
            )

    async def _fetch(self, message: HttpMessage, limit: int) -> tuple:
        """Make the request and read at most ``limit`` body bytes.

        :param message: the request.
        :param limit: most body bytes kept.
        :return: (status, reason, header lines, body).
        :raises ConnectionError: when the connection is not connected.
        """
        if self._session is None:  # pragma: nocover
            raise ConnectionError("the connection is not connected")
        headers = dict(email.message_from_string(message.headers or "").items())
        async with self._session.request(
            method=message.method,
            url=message.url,
            headers=headers,
            data=message.body or None,
        ) as response:
            body = bytearray()
            async for chunk in response.content.iter_chunked(CHUNK):
                body += chunk[: limit - len(body)]
                if len(body) >= limit:
                    break  # leaving the block closes the connection unread
            lines = "".join(f"{k}: {v}\n" for k, v in response.headers.items())
            return response.status, response.reason or "", lines, bytes(body)
