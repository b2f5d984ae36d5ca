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

"""Attack: Streamable HTTP session churn (open, tools/list, DELETE; repeat).

A handshake-era session (protocol 2025-06-18) that lists tools is remembered for
``notifications/tools/list_changed`` in ``MechToolServer._handshake_sessions``; it is only
dropped when a later announcement to it fails, i.e. after the next catalogue change. A
client that opens and closes sessions in a loop grows that list (and keeps each session
object alive) for as long as the catalogue does not change.

The server runs in-process over a stub catalogue (one tool, dry run: no chain, no IPFS;
only the HTTP transport and the session bookkeeping are under test).

Usage: ``PYTHONPATH=. .venv/bin/python -m scripts.adversary.mcp_session_churn [N]``
"""

import sys
import threading
import time
from typing import Any, Dict

import anyio
import requests

from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE, Offer
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer, serve
from mech_catalogue_cli.mcp_server.source import ServedCatalogue, ServedTool

PORT = 8765
HEADERS = {"Accept": "application/json, text/event-stream"}


class StubSource:  # pylint: disable=too-few-public-methods
    """One tool, never changing."""

    def read(self) -> ServedCatalogue:
        """Return the catalogue.

        :return: one tool.
        """
        offer = Offer("k", "0x" + "11" * 20, 10, NATIVE_PAYMENT_TYPE, 1, 1, 1, True)
        entry: Dict[str, Any] = {
            "name": "echo",
            "inputSchema": {
                "type": "object",
                "properties": {"prompt": {"type": "string"}},
            },
        }
        return ServedCatalogue("d", (ServedTool("echo", "echo", entry, (offer,)),))


def rss_kib() -> int:
    """Resident memory of this process.

    :return: KiB.
    """
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def one_session(http: requests.Session, url: str, close: bool = True) -> str:
    """Open a handshake-era session, list the tools, close it.

    :param http: the HTTP client.
    :param url: the server's ``/mcp`` URL.
    :param close: send the DELETE that ends the session.
    :return: the session id.
    """
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "churn", "version": "0"},
        },
    }
    answer = http.post(url, json=init, headers=HEADERS, timeout=10)
    sid = answer.headers["mcp-session-id"]
    headers = dict(
        HEADERS, **{"mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"}
    )
    http.post(
        url,
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        headers=headers,
        timeout=10,
    )
    http.post(
        url,
        json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        headers=headers,
        timeout=10,
    )
    if close:
        http.delete(url, headers=headers, timeout=10)
    return str(sid)


def start(port: int) -> MechToolServer:
    """Serve the stub catalogue over Streamable HTTP in a daemon thread.

    :param port: the TCP port.
    :return: the server (its state can be inspected while it serves).
    """
    settings = CallSettings(
        gateway_url="http://127.0.0.1:9",
        ipfs_api_url="",
        dry_run=True,
        poll_seconds=3600,
    )
    app = MechToolServer(StubSource(), settings, None, None)
    app.refresh()
    threading.Thread(
        target=lambda: anyio.run(serve, app, "http", "127.0.0.1", port), daemon=True
    ).start()
    for _ in range(100):
        try:
            requests.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
            break
        except requests.ConnectionError:
            time.sleep(0.1)
    return app


def main(rounds: int) -> None:
    """Run the attack and print the figures.

    :param rounds: sessions to open and close.
    """
    app = start(PORT)
    url = f"http://127.0.0.1:{PORT}/mcp"
    http = requests.Session()
    before = rss_kib()
    began = time.monotonic()
    for n in range(1, rounds + 1):
        one_session(http, url)
        if n % max(1, rounds // 5) == 0:
            print(
                f"{n} sessions opened and closed: {len(app._handshake_connections)} "  # pylint: disable=protected-access
                f"remembered, RSS +{rss_kib() - before} KiB, "
                f"{time.monotonic() - began:.1f} s"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
