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

"""A delivery read from a gateway that drips is not bounded in time (adv29q, no chain).

Severity: HIGH (STALL; the devnet reproduction, with the MCP SDK's client, is
``test_adv29q_dripped_delivery_devnet.py``).

``ipfs.fetch_response(gateway, digest, request_id, timeout)`` says ``timeout`` is
"seconds per GET", but ``adapters.ipfs.gateway_bytes`` passes it to ``requests`` as a
per-read timeout: a gateway that sends one byte more often than ``timeout`` keeps the
read going until ``MAX_RESPONSE_BYTES`` (1 MiB) arrive. Here the gateway sends a byte
each 0.2 s with ``timeout`` 1 s: observed on main, the read is still going after 15 s
(at that pace it would last about 58 hours).

Expected: the read fails with :class:`IpfsError` within a few times ``timeout``.
"""

import http.server
import threading
import time
from typing import Any, Dict, Iterator

import pytest

from mech_catalogue_cli.mcp_server.ipfs import IpfsError, fetch_response

#: seconds between the dripped bytes, and the read's timeout
DRIP, TIMEOUT = 0.2, 1.0
#: how long the test waits for the read to end
BOUND = 15.0


@pytest.fixture(name="dripping_gateway")
def dripping_gateway_fixture() -> Iterator[str]:
    """A gateway answering every GET ``200`` and a byte each :data:`DRIP` s.

    :yield: its URL.
    """
    stop = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        """Drip."""

        def do_GET(self) -> None:  # pylint: disable=invalid-name
            """Answer with a body that never ends in time."""
            self.send_response(200)
            self.send_header("Content-Length", str(1 << 30))
            self.end_headers()
            while not stop.wait(DRIP):
                self.wfile.write(b"\0")
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


def test_a_dripping_gateway_read_ends_within_its_timeout(dripping_gateway: str) -> None:
    """The delivery read fails with IpfsError within a few timeouts.

    :param dripping_gateway: the gateway's URL.
    """
    outcome: Dict[str, Any] = {}

    def read() -> None:
        began = time.monotonic()
        try:
            fetch_response(dripping_gateway, b"\x11" * 32, 7, TIMEOUT)
        except IpfsError as exc:
            outcome["error"] = str(exc)
        outcome["seconds"] = time.monotonic() - began

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(BOUND)
    # observed on main: still reading after BOUND s
    assert not reader.is_alive(), f"still reading after {BOUND} s"
    assert "error" in outcome, outcome
    assert outcome["seconds"] < 5 * TIMEOUT, outcome
