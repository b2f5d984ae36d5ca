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

"""Who may reach the paying HTTP endpoint (issue #29, review: an open LAN endpoint).

The server runs as the CLI on the session devnet (anvil with the marketplace's real
bytecode, kubo); clients are a real HTTP client (httpx) and the MCP SDK's own client,
connecting over this machine's non-loopback address.
"""

import socket
import subprocess  # nosec B404: the CLI under test
from pathlib import Path
from typing import Dict, List, Optional

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import (
    ROOT,
    _env,
    command,
    http_server,
    market_nonce,
)
from tests.devnet.test_mcp_server import TOOL

TOKEN = "tok-" + "Zq7" * 12  # a made-up bearer token: 40 characters


def _lan_address() -> str:
    """This machine's outbound IPv4 address (a UDP connect sends nothing)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        try:
            udp.connect(("198.51.100.7", 9))
        except OSError:
            pytest.skip("this machine has no non-loopback IPv4 route")
        address = str(udp.getsockname()[0])
    if address.startswith("127."):
        pytest.skip("this machine has no non-loopback IPv4 address")
    return address


def _token_file(folder: Path, text: str = TOKEN) -> Path:
    path = folder / "token"
    path.write_text(text + "\n")
    return path


def _refused(devnet: Devnet, state: Path, *extra: str) -> str:
    """Run the HTTP server expecting it to refuse; return its output."""
    done = subprocess.run(  # nosec B603: our own CLI
        command(devnet, state, "--transport", "http", "--port", "9", *extra),
        env=_env(),
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0, done.stdout[-500:] + done.stderr[-500:]
    return done.stdout + done.stderr


def _initialize(url: str, headers: Dict[str, str]) -> httpx.Response:
    """POST an MCP ``initialize`` (the first request a client sends)."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "lan-peer", "version": "0"},
        },
    }
    base = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    return httpx.post(url, headers={**base, **headers}, json=body, timeout=30)


@pytest.mark.parametrize(
    "extra",
    [
        ["--host", "0.0.0.0"],  # nosec B104: the refused bind
        ["--host", "0.0.0.0", "--allow-remote"],  # nosec B104
        ["--host", "LAN", "--auth-token-file", "TOKEN"],
    ],
)
def test_a_non_loopback_host_needs_allow_remote_and_a_token(
    chain_snapshot: Devnet, tmp_path: Path, extra: List[str]
) -> None:
    """Without both, the server refuses to start, saying what to give; nothing is paid."""
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    token = _token_file(tmp_path)
    argv = [
        {"LAN": _lan_address(), "TOKEN": str(token)}.get(word, word) for word in extra
    ]
    output = _refused(devnet, tmp_path, *argv)
    assert "not a loopback address" in output and "--auth-token-file" in output
    assert TOKEN not in output and market_nonce(devnet) == nonce


@pytest.mark.parametrize(
    "text", ["", "short-token", "two words " + "x" * 40, "ключ" * 10]
)
def test_a_malformed_token_file_is_refused_without_quoting_it(
    chain_snapshot: Devnet, tmp_path: Path, text: str
) -> None:
    """An empty, short, spaced or non-ASCII token file: refused, its text not echoed."""
    token = _token_file(tmp_path, text)
    output = _refused(
        chain_snapshot,
        tmp_path,
        "--host",
        "0.0.0.0",  # nosec B104
        "--allow-remote",
        "--auth-token-file",
        str(token),
    )
    assert "must hold one bearer token" in output
    assert not text or text not in output


def _tool_call(url: str, token: Optional[str]) -> List[str]:
    """List the tools and call one with the SDK's own client, sending a bearer token."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}

    async def main() -> List[str]:
        http = create_mcp_http_client(headers=headers)
        async with http, Client(streamable_http_client(url, http_client=http)) as mcp:
            listed = await mcp.list_tools()
            called = await mcp.call_tool(TOOL, {"prompt": "asked from the LAN"})
            return [t.name for t in listed.tools] + [
                getattr(called.content[0], "text", "")
            ]

    return anyio.run(main)


def test_a_lan_client_pays_only_with_the_token(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Bound to every interface with a token: a LAN peer without it gets 401, pays nothing."""
    devnet = chain_snapshot
    lan = _lan_address()
    nonce = market_nonce(devnet)
    log = tmp_path / "server.log"
    options = ["--host", "0.0.0.0", "--allow-remote", "--timeout", "1"]  # nosec B104
    token = _token_file(tmp_path)
    with http_server(
        devnet, tmp_path, *options, "--auth-token-file", str(token), stderr=log
    ) as url:
        url = url.replace("127.0.0.1", lan)
        host = url.split("/")[2]
        statuses = [
            _initialize(url, {}).status_code,
            _initialize(
                url, {"Authorization": "Bearer " + TOKEN[:-1] + "X"}
            ).status_code,
            _initialize(url, {"Authorization": TOKEN}).status_code,
            _initialize(
                url, {"Authorization": f"Bearer {TOKEN}", "Host": "evil.example"}
            ).status_code,
            _initialize(
                url,
                {"Authorization": f"Bearer {TOKEN}", "Origin": "http://evil.example"},
            ).status_code,
            _initialize(
                url, {"Authorization": f"Bearer {TOKEN}", "Host": host}
            ).status_code,
        ]
        assert market_nonce(devnet) == nonce
        with pytest.raises(BaseException):  # the SDK client without the token: 401
            _tool_call(url, None)
        assert market_nonce(devnet) == nonce
        texts = _tool_call(url, TOKEN)
    assert statuses == [401, 401, 401, 421, 403, 200]
    assert TOOL in texts and "was not delivered" in texts[-1]  # paid, once
    assert market_nonce(devnet) == nonce + 1
    assert TOKEN not in log.read_text(errors="replace")


def test_loopback_answers_only_loopback_host_names(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The default bind: a rebound Host or a foreign Origin is refused, nothing paid."""
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    with http_server(devnet, tmp_path, "--timeout", "1") as url:
        port = url.split("/")[2].split(":")[1]
        statuses = [
            _initialize(url, {"Host": f"rebound.example:{port}"}).status_code,
            _initialize(url, {"Origin": "http://rebound.example"}).status_code,
            _initialize(url, {}).status_code,
        ]
    assert statuses == [421, 403, 200]
    assert market_nonce(devnet) == nonce


def test_the_page_s_paths_say_where_mcp_and_the_page_are(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Issue 33: / and /catalogue[/] are 404 naming /mcp and the page's servers, not bare."""
    with http_server(chain_snapshot, tmp_path, "--timeout", "1") as url:
        base = url[: -len("/mcp")]
        answers = [httpx.get(base + path, timeout=30) for path in ("/", "/catalogue")]
        answers.append(httpx.get(base + "/catalogue/", timeout=30))
        mcp_alive = _initialize(url, {}).status_code
    for answer in answers:
        assert answer.status_code == 404, answer.url
        error = answer.json()["error"]
        assert error["code"] == "unknown_path"
        assert "/mcp" in error["message"] and "mech-catalogue serve" in error["message"]
    assert mcp_alive == 200
