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

"""Closed Streamable HTTP sessions are forgotten (scripts/adversary/mcp_session_churn.py).

Before the fix every handshake-era session that listed tools stayed referenced until the
next catalogue change, and once per request (``ctx.session`` is a per-request proxy):
500 open/list/close cycles kept 500 objects and ~9.5 MB, and an open client got one
``list_changed`` per request it had made.
"""

import gc
import socket
import time

import requests

from scripts.adversary.mcp_session_churn import one_session, start


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_closed_sessions_are_forgotten_and_open_ones_kept() -> None:
    """30 closed sessions leave nothing; one open session listing 11 times is kept once."""
    port = _free_port()
    app = start(port)
    url = f"http://127.0.0.1:{port}/mcp"
    http = requests.Session()
    for _ in range(30):
        one_session(http, url)
    sid = one_session(http, url, close=False)
    headers = {
        "Accept": "application/json, text/event-stream",
        "mcp-session-id": sid,
        "mcp-protocol-version": "2025-06-18",
    }
    for n in range(10):  # each request had its own ServerSession proxy: 10 more kept
        listing = {"jsonrpc": "2.0", "id": 10 + n, "method": "tools/list"}
        http.post(url, json=listing, headers=headers, timeout=10)
    remembered = 31
    for _ in range(50):  # the SDK drops a closed session's task asynchronously
        gc.collect()
        remembered = len(app._handshake_connections)  # pylint: disable=protected-access
        if remembered <= 1:
            break
        time.sleep(0.1)
    assert remembered == 1
