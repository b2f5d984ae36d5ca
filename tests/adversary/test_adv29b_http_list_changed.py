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

"""Adversarial review adv29b: over Streamable HTTP the server says its tools never change.

``serve`` passes ``NotificationOptions(tools_changed=True)`` to the stdio transport only;
``Server.streamable_http_app`` builds its own initialization options, so a
handshake-era client (protocol 2025-06-18 or 2025-11-25: today's desktop clients and
IDEs) is told ``"tools": {"listChanged": false}`` over HTTP, and ``true`` over stdio.
A client that honours the capability never re-lists: after a rug pull, a schema
takeover, a price or offer change, the person keeps reading the old "Paid call: N wei
to mech X" text and the old arguments, while the server pays what is served now.

Expected (stated here; fails on main fb8e46c): ``listChanged`` is true on both
transports, as docs/mcp.md ("notifications/tools/list_changed is sent when the
catalogue changes") says.
"""

import json
import subprocess  # nosec B404: this checkout's own server, argv list
from pathlib import Path
from typing import Any, Dict

import pytest
import requests

from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import ROOT, _env, command, http_server

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "adv29b", "version": "1"},
    },
}


def _over_stdio(devnet: Devnet, state: Path) -> Dict[str, Any]:
    with subprocess.Popen(  # nosec B603
        command(devnet, state),
        env=_env(),
        cwd=str(ROOT),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        process.stdin.flush()
        line = process.stdout.readline()
        process.kill()
    return json.loads(line)["result"]["capabilities"]


def _over_http(devnet: Devnet, state: Path) -> Dict[str, Any]:
    with http_server(devnet, state) as url:
        answer = requests.post(
            url,
            data=json.dumps(INITIALIZE),
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
            timeout=30,
        )
    data = next(
        line[len("data:") :]
        for line in answer.text.splitlines()
        if line.startswith("data:")
    )
    return json.loads(data)["result"]["capabilities"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_handshake_era_client_is_told_the_tools_change(
    devnet: Devnet, tmp_path: Path, transport: str
) -> None:
    """``initialize`` at 2025-06-18 says ``tools.listChanged: true`` on both transports.

    :param devnet: the devnet (nothing is sent).
    :param tmp_path: the state folder.
    :param transport: stdio or http.
    """
    read = _over_stdio if transport == "stdio" else _over_http
    capabilities = read(devnet, tmp_path)
    assert capabilities.get("tools", {}).get("listChanged") is True, capabilities
