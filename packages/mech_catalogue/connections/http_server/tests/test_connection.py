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

"""The http_server connection on a real socket, with raw request lines of our own.

Issue #34 item 8: ``valory/http_server`` rebuilt every URL before the skill saw it, so
``GET ftp://host/tools`` was served 200. Here the connection runs (its own asyncio loop in
a thread) and each request is written as raw bytes on a TCP socket, as an attacker
would; no HTTP client, which would refuse most of these lines. The agent's skill is
played by the test: it answers with the library's strict parser
(``mech_catalogue_core.http_api.request.parse_request``, the skill's own) and records
every request it is handed, so a test can say what reached it, exactly as sent.
"""

import asyncio
import json
import socket
import threading
import time
from typing import Any, Dict, Iterator, List, Optional, Tuple
from unittest.mock import MagicMock

import pytest
from aea.configurations.base import ConnectionConfig
from aea.identity.base import Identity
from aea.mail.base import Envelope, Message
from aea.protocols.dialogue.base import Dialogue as BaseDialogue
from mech_catalogue_core.http_api.page_files import page_redirect
from mech_catalogue_core.http_api.request import (
    ERROR_STATUS,
    PAGE_ALIAS_ROUTE,
    HttpResult,
    json_result,
    parse_request,
)

from packages.mech_catalogue.connections.http_server.connection import (
    PUBLIC_ID,
    HttpServerConnection,
)
from packages.valory.protocols.http.dialogues import HttpDialogue
from packages.valory.protocols.http.dialogues import HttpDialogues as BaseHttpDialogues
from packages.valory.protocols.http.message import HttpMessage

SKILL = "mech_catalogue/tool_metadata_chained_abci:0.1.0"
#: a path the played skill never answers (to run out the response timeout)
SILENT = "/silent"


class _SkillDialogues(BaseHttpDialogues):
    def __init__(self) -> None:
        def role(  # pylint: disable=unused-argument
            message: Message, receiver_address: str
        ) -> BaseDialogue.Role:
            return HttpDialogue.Role.SERVER

        BaseHttpDialogues.__init__(
            self, self_address=SKILL, role_from_first_message=role
        )


def _skill_answer(message: HttpMessage) -> HttpResult:
    """Answer as the skill's handler does: its strict parser, then a 200 naming the request."""
    parsed = parse_request(message.method, message.url, message.body)
    if isinstance(parsed, HttpResult):
        return parsed
    if parsed.path == PAGE_ALIAS_ROUTE:
        return page_redirect()
    return json_result(200, {"path": parsed.path, "tool": parsed.tool_name})


class Agent:
    """The connection running in its own loop, and the skill played against it."""

    def __init__(self, port: int = 0, **limits: Any) -> None:
        """Start the connection on 127.0.0.1 (a free port when 0) and the skill.

        :param port: the port.
        :param limits: ``connection.yaml`` limits to override.
        """
        self.port = port or _free_port()
        configuration = ConnectionConfig(
            connection_id=PUBLIC_ID,
            host="127.0.0.1",
            port=self.port,
            target_skill_id=SKILL,
            **limits,
        )
        self.connection = HttpServerConnection(
            configuration=configuration,
            data_dir=MagicMock(),
            identity=Identity("agent", address="agent", public_key="key"),
        )
        self.seen: List[HttpMessage] = []
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self._call(self.connection.connect())
        self._skill = asyncio.run_coroutine_threadsafe(self._play(), self.loop)

    def _call(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(30)

    async def _play(self) -> None:
        dialogues = _SkillDialogues()
        while True:
            envelope = await self.connection.receive()
            if envelope is None:
                return
            message = envelope.message
            assert isinstance(message, HttpMessage)
            self.seen.append(message)
            dialogue = dialogues.update(message)
            assert dialogue is not None
            if message.url == SILENT:
                continue
            result = _skill_answer(message)
            reply = dialogue.reply(
                performative=HttpMessage.Performative.RESPONSE,
                target_message=message,
                version=message.version,
                status_code=result.status_code,
                status_text=result.status_text,
                headers=result.headers,
                body=result.body,
            )
            await self.connection.send(
                Envelope(to=reply.to, sender=reply.sender, message=reply)
            )

    def stop(self) -> None:
        """Stop the skill and the connection, then the loop."""
        self._skill.cancel()
        self._call(self.connection.disconnect())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(name="agent", scope="module")
def agent_fixture() -> Iterator[Agent]:
    """One running connection with the played skill; short timeouts.

    :yield: it.
    """
    running = Agent(read_timeout=2.0, response_timeout=2.0)
    try:
        yield running
    finally:
        running.stop()


class Answer:
    """A raw HTTP answer: status line, header fields, body."""

    def __init__(self, raw: bytes) -> None:
        """Split the bytes received.

        :param raw: everything the server sent before closing.
        """
        self.raw = raw
        head, _, self.body = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        self.status: Optional[int] = int(parts[1]) if len(parts) > 1 else None
        self.headers: Dict[str, str] = {
            name.strip().lower(): value.strip()
            for name, _, value in (line.partition(":") for line in lines[1:])
        }

    @property
    def code(self) -> str:
        """Return the API error code of the body ("" when none).

        :return: ``error.code``.
        """
        try:
            return str(json.loads(self.body)["error"]["code"])
        except (ValueError, KeyError, TypeError):
            return ""


def send(agent: Agent, raw: bytes, pause: float = 0.0) -> Answer:
    """Write raw bytes on a new connection and read all until the server closes.

    :param agent: the running connection.
    :param raw: the bytes.
    :param pause: seconds to wait after writing before reading.
    :return: the answer.
    """
    with socket.create_connection(("127.0.0.1", agent.port), timeout=20) as client:
        client.sendall(raw)
        time.sleep(pause)
        received = b""
        while True:
            try:
                chunk = client.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            received += chunk
    return Answer(received)


def request(target: bytes, host: bytes = b"127.0.0.1", extra: bytes = b"") -> bytes:
    """A GET request line with a Host field.

    :param target: the request target, as sent.
    :param host: the Host field's value.
    :param extra: more header lines, each ending CRLF.
    :return: the bytes.
    """
    return b"GET " + target + b" HTTP/1.1\r\nHost: " + host + b"\r\n" + extra + b"\r\n"


def _reached(agent: Agent, url: str) -> List[str]:
    return [m.url for m in agent.seen if m.url == url]


def test_a_path_reaches_the_skill_exactly_as_sent(agent: Agent) -> None:
    """Origin-form: 200 from the skill, which got the method, target and fields as sent."""
    answer = send(agent, request(b"/tools/a%2Fb?cursor=1", extra=b"X-Mine: Value\r\n"))
    assert answer.status == 200 and json.loads(answer.body)["tool"] == "a/b"
    assert answer.headers["connection"] == "close"
    assert answer.headers["content-length"] == str(len(answer.body))
    message = agent.seen[-1]
    assert (message.method, message.url) == ("GET", "/tools/a%2Fb?cursor=1")
    assert "X-Mine: Value\n" in message.headers and message.version == "HTTP/1.1"


@pytest.mark.parametrize(
    "target,status,code",
    [
        (b"ftp://127.0.0.1/tools", 400, "invalid_url"),  # the kind
        (b"gopher://mechs.example/tools", 400, "invalid_url"),
        (b"file:///etc/passwd", 400, "invalid_url"),
        (b"HTTPS://127.0.0.1:{port}/tools", 400, "invalid_url"),  # no TLS here
        (b"http://mechs.example/tools", 421, "misdirected_request"),
        (b"http://127.0.0.1:1/tools", 421, "misdirected_request"),  # another port
        (b"http://user:pw@127.0.0.1:{port}/tools", 400, "invalid_url"),
        (b"*", 400, "invalid_url"),
        (b"tools", 400, "invalid_url"),
        (b"127.0.0.1:{port}", 400, "invalid_url"),  # authority-form without CONNECT
    ],
)
def test_targets_not_for_this_server_never_reach_the_skill(
    agent: Agent, target: bytes, status: int, code: str
) -> None:
    """Foreign schemes, other hosts, userinfo, '*', bare words: refused before the skill."""
    target = target.replace(b"{port}", str(agent.port).encode())
    answer = send(agent, request(target, host=b"mechs.example"))
    assert (answer.status, answer.code) == (status, code), answer.raw[:300]
    assert not _reached(agent, target.decode())


def test_an_absolute_url_naming_this_server_is_served_as_sent(agent: Agent) -> None:
    """http://<the address connected to>/tools: passed on unchanged; the skill serves it."""
    url = f"http://127.0.0.1:{agent.port}/tools".encode()
    for target in (url, url.replace(b"http", b"HTTP", 1)):
        answer = send(agent, request(target))
        assert answer.status == 200, answer.raw[:300]
        assert _reached(agent, target.decode())


def test_connect_is_not_a_tunnel(agent: Agent) -> None:
    """CONNECT host:port (authority-form): 405 with Allow: GET."""
    answer = send(
        agent, b"CONNECT mechs.example:443 HTTP/1.1\r\nHost: mechs.example:443\r\n\r\n"
    )
    assert (answer.status, answer.code) == (405, "method_not_allowed")
    assert answer.headers["allow"] == "GET"


@pytest.mark.parametrize(
    "raw,status,code",
    [
        (b"GET /tools\r\n\r\n", 400, "malformed_request"),  # HTTP/0.9 style
        (b"GET /tools\n", 400, "malformed_request"),
        (b"GET /tools HTTP/2.0\r\nHost: a\r\n\r\n", 505, "http_version_not_supported"),
        (b"GET /tools HTTP/1.1\r\n\r\n", 400, "malformed_request"),  # no Host
        (
            b"GET /tools HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
            400,
            "malformed_request",
        ),
        (b"GET  /tools HTTP/1.1\r\nHost: a\r\n\r\n", 400, "malformed_request"),
        (b"GET /to\x00ols HTTP/1.1\r\nHost: a\r\n\r\n", 400, "malformed_request"),
        (b"GET /t\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n", 400, "malformed_request"),
        (
            b"GET /tools HTTP/1.1\r\nHost: a\r\nno colon\r\n\r\n",
            400,
            "malformed_request",
        ),
        (b"G(T /tools HTTP/1.1\r\nHost: a\r\n\r\n", 400, "malformed_request"),
    ],
)
def test_malformed_request_lines_are_refused_by_the_server(
    agent: Agent, raw: bytes, status: int, code: str
) -> None:
    """HTTP/0.9, HTTP/2.0 lines, missing or doubled Host, bad bytes: refused, never passed on."""
    before = len(agent.seen)
    answer = send(agent, raw)
    assert (answer.status, answer.code) == (status, code), answer.raw[:300]
    assert len(agent.seen) == before


@pytest.mark.parametrize(
    "target,status,code",
    [
        (b"/tools/%zz", 400, "invalid_path"),
        (b"/tools/%E2%82", 400, "invalid_path"),  # not UTF-8
        (b"/tools/%", 400, "invalid_path"),
        (b"/%74ools", 404, "unknown_path"),  # a percent-encoded route is no route
        (b"/tools#frag", 400, "invalid_url"),
        (b"/tools?cursor=1&cursor=2", 400, "duplicate_parameter"),
        (b"/" + b"a" * 3000, 414, "url_too_long"),  # within the head cap: the skill's
    ],
)
def test_the_skill_s_parser_sees_the_exact_target(
    agent: Agent, target: bytes, status: int, code: str
) -> None:
    """Bad percent-encoding and the rest: the target reaches the skill's parser unchanged."""
    answer = send(agent, request(target))
    assert (answer.status, answer.code) == (status, code), answer.raw[:300]
    assert _reached(agent, target.decode())


def test_the_method_reaches_the_skill_as_sent(agent: Agent) -> None:
    """``get`` is not ``GET`` (methods are case-sensitive): the skill sees it and says 405."""
    answer = send(agent, b"get /mechs HTTP/1.1\r\nHost: a\r\n\r\n")
    assert (answer.status, answer.code) == (405, "method_not_allowed")
    assert agent.seen[-1].method == "get"


def test_over_long_lines_and_header_floods_are_bounded(agent: Agent) -> None:
    """Request line over the head cap: 414; too many or too large fields: 431."""
    before = len(agent.seen)
    line = send(agent, request(b"/tools?cursor=" + b"9" * 40_000))
    assert (line.status, line.code) == (414, "url_too_long")
    flood = b"".join(b"X-F%d: v\r\n" % i for i in range(500))
    assert send(agent, request(b"/tools", extra=flood)).code == "headers_too_large"
    big = b"Cookie: " + b"c" * 20_000 + b"\r\n"
    assert send(agent, request(b"/tools", extra=big)).status == 431
    assert len(agent.seen) == before


def test_bodies_are_bounded(agent: Agent) -> None:
    """Content-Length over the cap: 413 before any body is read; absurd: 400."""
    for length in (b"10000000", b"9" * 15):
        answer = send(
            agent, request(b"/tools", extra=b"Content-Length: " + length + b"\r\n")
        )
        assert (answer.status, answer.code) == (413, "body_too_large")
    absurd = send(
        agent, request(b"/tools", extra=b"Content-Length: " + b"9" * 50 + b"\r\n")
    )
    assert (absurd.status, absurd.code) == (400, "malformed_request")
    small = send(agent, request(b"/tools", extra=b"Content-Length: 3\r\n") + b"abc")
    assert (small.status, small.code) == (400, "unexpected_body")  # the skill's


def test_a_slow_client_gets_408_and_a_silent_one_is_closed(agent: Agent) -> None:
    """Half a request line, then nothing: 408 after read_timeout; nothing sent: closed."""
    slow = send(agent, b"GET /tools HTTP/1.1\r\nHost:", pause=3.0)
    assert (slow.status, slow.code) == (408, "request_timeout")
    assert send(agent, b"", pause=3.0).raw == b""


def test_a_skill_that_does_not_answer_is_503_not_a_hang(agent: Agent) -> None:
    """The skill keeps silent: 503 not_answered after response_timeout, with Retry-After."""
    started = time.monotonic()
    answer = send(agent, request(SILENT.encode()))
    assert (answer.status, answer.code) == (503, "not_answered")
    assert answer.headers["retry-after"] and time.monotonic() - started < 10


@pytest.mark.parametrize(
    "target,status",
    [
        (b"/tools", 405),  # the skill's answer
        (b"ftp://mechs.example/tools", 400),  # the connection's answers
        (b"http://mechs.example/tools", 421),
        (b"/" + b"a" * 40_000, 414),
    ],
)
def test_head_gets_the_status_without_a_body(
    agent: Agent, target: bytes, status: int
) -> None:
    """HEAD is not served; whoever answers, the answer carries no body (RFC 9110 9.3.2)."""
    answer = send(agent, b"HEAD " + target + b" HTTP/1.1\r\nHost: a\r\n\r\n")
    assert answer.status == status and answer.body == b"", answer.raw[:200]


@pytest.mark.parametrize("target", [b"/", b"/catalogue"])
def test_the_skill_s_redirect_to_the_page_reaches_the_client(
    agent: Agent, target: bytes
) -> None:
    """The skill's 302 for / and /catalogue reaches the socket with its Location (issue 33)."""
    answer = send(agent, request(target))
    assert answer.status == 302, answer.raw[:200]
    assert answer.headers["location"] == "/catalogue/"
    assert answer.raw.startswith(b"HTTP/1.1 302 Found\r\n")


def test_every_refusal_has_the_api_s_error_body(agent: Agent) -> None:
    """Errors answered by the connection have the API's body, its status per code."""
    for raw in (b"GET /tools\r\n\r\n", request(b"ftp://x/tools"), request(b"*")):
        answer = send(agent, raw)
        assert ERROR_STATUS[answer.code] == answer.status


def test_connections_over_the_cap_are_told_to_come_back() -> None:
    """max_connections open and silent: the next one is 503 server_busy at once."""
    agent = Agent(max_connections=2, read_timeout=5.0)
    idle: List[socket.socket] = []
    try:
        for _ in range(2):
            idle.append(socket.create_connection(("127.0.0.1", agent.port)))
        time.sleep(0.3)
        answer = send(agent, request(b"/tools"))
        assert (answer.status, answer.code) == (503, "server_busy")
        for held in idle:
            held.close()
        time.sleep(0.3)
        assert send(agent, request(b"/tools")).status == 200
    finally:
        for held in idle:
            held.close()
        agent.stop()


def test_a_restart_gets_the_same_port_back() -> None:
    """Stop after serving, start again at once on that port (TIME-WAIT; item 12's rule)."""
    first = Agent()
    port = first.port
    try:
        assert send(first, request(b"/tools")).status == 200
    finally:
        first.stop()
    second = Agent(port=port)
    try:
        assert send(second, request(b"/healthcheck")).status == 200
    finally:
        second.stop()


def _concurrent(agent: Agent, count: int) -> Tuple[int, ...]:
    results: List[int] = []

    def one() -> None:
        results.append(send(agent, request(b"/mechs")).status or 0)

    threads = [threading.Thread(target=one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return tuple(results)


def test_sixteen_clients_at_once_are_all_answered(agent: Agent) -> None:
    """As the agent's flood test does: sixteen clients at once, all 200."""
    assert _concurrent(agent, 16) == (200,) * 16
