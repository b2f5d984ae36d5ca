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

"""The capped_http_client connection against real local HTTP servers (no mocks of HTTP).

One server streams without end and ignores Range, as a misbehaving gateway would; the
connection must keep at most the limit, stop reading, and close. The agent framework's
pieces (envelopes, dialogues) are the real ones; only the skill is played by the test.
"""

import asyncio
import http.server
import socket
import threading
import tracemalloc
from typing import Iterator, List, Tuple
from unittest.mock import MagicMock

import pytest
from aea.configurations.base import ConnectionConfig
from aea.identity.base import Identity
from aea.mail.base import Envelope, Message
from aea.protocols.dialogue.base import Dialogue as BaseDialogue

from packages.mech_catalogue.connections.capped_http_client.connection import (
    PUBLIC_ID,
    REQUEST_FAILED,
    CappedHttpClientConnection,
    body_limit,
)
from packages.valory.protocols.http.dialogues import HttpDialogue
from packages.valory.protocols.http.dialogues import HttpDialogues as BaseHttpDialogues
from packages.valory.protocols.http.message import HttpMessage

SKILL = "mech_catalogue/tool_metadata_abci:0.1.0"
CAP = 1_048_576


class _Server(http.server.BaseHTTPRequestHandler):
    """``/endless``: 200 and bytes without end (Range ignored); ``/small``: 200 ``hello``."""

    sent: List[int] = []

    def log_message(self, *args: object) -> None:  # pylint: disable=arguments-differ
        """Stay quiet."""

    def do_GET(self) -> None:  # pylint: disable=invalid-name
        """Answer."""
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if self.path == "/small":
            self.send_header("Content-Length", "5")
            self.end_headers()
            self.wfile.write(b"hello")
            return
        self.end_headers()
        block, sent = b"y" * 65536, 0
        try:
            while sent < 4 * 1024**3:
                self.wfile.write(block)
                sent += len(block)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass
        self.sent.append(sent)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """A threaded local HTTP server.

    :yield: its base URL.
    """
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Server)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


class _SkillDialogues(BaseHttpDialogues):
    def __init__(self) -> None:
        def role(  # pylint: disable=unused-argument
            message: Message, receiver_address: str
        ) -> BaseDialogue.Role:
            return HttpDialogue.Role.CLIENT

        BaseHttpDialogues.__init__(
            self, self_address=SKILL, role_from_first_message=role
        )


def _connection(max_body_bytes: int = CAP + 1) -> CappedHttpClientConnection:
    configuration = ConnectionConfig(
        connection_id=PUBLIC_ID, max_body_bytes=max_body_bytes, timeout=20.0
    )
    return CappedHttpClientConnection(
        configuration=configuration,
        data_dir=MagicMock(),
        identity=Identity("agent", address="agent", public_key="key"),
    )


async def _get(
    connection: CappedHttpClientConnection, url: str, headers: str = ""
) -> HttpMessage:
    dialogues = _SkillDialogues()
    request, _ = dialogues.create(
        counterparty=str(PUBLIC_ID),
        performative=HttpMessage.Performative.REQUEST,
        method="GET",
        url=url,
        headers=headers,
        version="",
        body=b"",
    )
    await connection.send(
        Envelope(to=request.to, sender=request.sender, message=request)
    )
    envelope = await asyncio.wait_for(connection.receive(), 30)
    assert envelope is not None
    response = envelope.message
    assert isinstance(response, HttpMessage)
    assert dialogues.update(response) is not None  # a valid reply in the dialogue
    return response


def _run(
    url: str, headers: str = "", max_body_bytes: int = CAP + 1
) -> Tuple[HttpMessage, int]:
    async def go() -> HttpMessage:
        connection = _connection(max_body_bytes)
        await connection.connect()
        try:
            return await _get(connection, url, headers)
        finally:
            await connection.disconnect()

    tracemalloc.start()
    try:
        response = asyncio.run(go())
        return response, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.timeout(60, method="thread")
def test_endless_body_ignoring_range_is_cut_at_the_range(server: str) -> None:
    """Range bytes=0-CAP against a server streaming without end: CAP + 1 bytes kept, read stops."""
    _Server.sent.clear()
    response, peak = _run(f"{server}/endless", f"Range: bytes=0-{CAP}\n")
    assert response.status_code == 200 and len(response.body) == CAP + 1
    assert peak < 8 * CAP, f"peak {peak} bytes"
    deadline = 50
    while not _Server.sent and deadline:  # the server notices the closed socket
        asyncio.run(asyncio.sleep(0.1))
        deadline -= 1
    assert _Server.sent and _Server.sent[0] < 64 * 1024 * 1024  # not 4 GiB


@pytest.mark.timeout(60, method="thread")
def test_without_range_max_body_bytes_applies(server: str) -> None:
    """No Range header: the configured max_body_bytes is the limit."""
    response, _ = _run(f"{server}/endless", "", max_body_bytes=1000)
    assert len(response.body) == 1000


def test_small_body_is_whole_with_status_and_headers(server: str) -> None:
    """A body under the limit arrives whole, with the server's status and headers."""
    response, _ = _run(f"{server}/small", f"Range: bytes=0-{CAP}\n")
    assert response.status_code == 200 and response.body == b"hello"
    assert "Content-Length: 5" in response.headers


def test_unreachable_server_is_status_600() -> None:
    """A refused connection: status 600 naming the exception, no raise."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    response, _ = _run(f"http://127.0.0.1:{port}/x")
    assert response.status_code == REQUEST_FAILED
    assert b"ClientConnectorError" in response.body


@pytest.mark.parametrize(
    "headers,limit",
    [
        ("Range: bytes=0-1048576\n", 1_048_577),
        ("range: bytes=0-99\r\n", 100),
        ("Range: bytes=0-999999999999\n", 5_000_000),  # never above max_body_bytes
        ("Range: bytes=10-99\n", 5_000_000),  # not from 0: the default
        ("Range: bytes=0-\n", 5_000_000),
        ("", 5_000_000),
    ],
)
def test_body_limit(headers: str, limit: int) -> None:
    """The limit comes from a Range from byte 0, capped by max_body_bytes."""
    assert body_limit(headers, 5_000_000) == limit
