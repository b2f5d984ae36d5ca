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

"""An RPC answer dripped a byte at a time holds a chain read past its timeout (adv29q).

Severity: MEDIUM (STALL, needs the user's RPC, or what sits between it and the server,
to trickle; the same cause as ``test_adv29q_dripped_delivery.py``, where a mech can
cause it).

``Marketplace(rpc_url, marketplace, key, timeout)`` says ``timeout`` is "seconds per RPC
request", but it is passed to ``requests`` (web3's ``HTTPProvider``), which applies it to
each socket read: an answer that sends one byte more often than ``timeout`` holds the
read as long as it lasts. Every chain read of a paid call runs in a worker thread
(the delivery wait, the send under the folder's send lock), which no cancel frees.
Here the RPC sends its headers, then a space each 0.2 s, with ``timeout`` 1 s:
observed on main, ``Marketplace.head()`` is still reading after 15 s.

Expected: the read fails within a few times ``timeout``.
"""

import http.server
import threading
import time
from typing import Any, Dict, Iterator

import pytest

from mech_catalogue_cli.mcp_server.market import Marketplace

#: seconds between the dripped bytes, and the read's timeout
DRIP, TIMEOUT = 0.2, 1.0
#: how long the test waits for the read to end
BOUND = 15.0
#: any key: nothing is signed
KEY = "0x" + "42" * 32


@pytest.fixture(name="dripping_rpc")
def dripping_rpc_fixture() -> Iterator[str]:
    """A JSON-RPC endpoint answering every POST ``200`` and a space each :data:`DRIP` s.

    :yield: its URL.
    """
    stop = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        """Drip."""

        def do_POST(self) -> None:  # pylint: disable=invalid-name
            """Answer with a body that never ends in time."""
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(1 << 30))
            self.end_headers()
            while not stop.wait(DRIP):
                self.wfile.write(b" ")
                self.wfile.flush()

        def log_message(self, *args: Any) -> None:  # pylint: disable=arguments-differ
            """Quiet."""

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        stop.set()
        server.shutdown()
        server.server_close()


def test_a_dripping_rpc_read_ends_within_its_timeout(dripping_rpc: str) -> None:
    """A chain read fails within a few timeouts.

    :param dripping_rpc: the RPC's URL.
    """
    outcome: Dict[str, Any] = {}
    market = Marketplace(dripping_rpc, "0x" + "11" * 20, KEY, timeout=TIMEOUT)

    def read() -> None:
        began = time.monotonic()
        try:
            market.head()
        except Exception as exc:  # pylint: disable=broad-except
            outcome["error"] = type(exc).__name__
        outcome["seconds"] = time.monotonic() - began

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(BOUND)
    # observed on main: still reading after BOUND s
    assert not reader.is_alive(), f"still reading after {BOUND} s"
    assert "error" in outcome, outcome
    assert outcome["seconds"] < 5 * TIMEOUT, outcome
