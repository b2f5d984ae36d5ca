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

"""An off-chain endpoint that never answers holds a call no longer than its ``--timeout``.

fix29yb gave one deadline to a paid call's finality wait, send, receipt and delivery;
the off-chain post kept its own 10 s bound (``offchain.POST_SECONDS``) and an
automatic deposit its own ``--io-timeout`` per receipt, whatever was left of the call
(fix29zd). On the devnet with the MCP SDK's client over stdio (``--offchain only``, the
native marketplace mech prepaid), the mech's declared endpoint is a loopback socket
that accepts the connection and never answers: the call must end within its
``--timeout`` and a small margin, saying the request may have been received.
"""

import socket
import threading
import time
from pathlib import Path
from typing import Any, Iterator, List, Tuple

import anyio
import pytest

from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import price_of, stdio_client
from tests.devnet.test_mcp_offchain import (
    ARGUMENTS,
    TOOL,
    declare_url,
    native_mech,
    prepay,
)

pytestmark = pytest.mark.devnet

TIMEOUT = 4.0  # the call's --timeout, seconds (the post alone may take 10)
#: thread hops, the journal's writes and the answer's way back on a loaded machine
MARGIN = 1.5


@pytest.fixture(name="silent_endpoint")
def _silent_endpoint() -> Iterator[str]:
    """An endpoint URL whose socket accepts every connection and never answers."""
    # :yield: its URL.
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: List[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return  # closed at the end of the test
            held.append(conn)

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    server.close()
    for conn in held:
        conn.close()


def _timed_call(devnet: Devnet, state: Path, *options: str) -> Tuple[Any, float]:
    """One tools/call through a stdio server; the result and its seconds (call only)."""
    timed: List[Any] = []

    async def main() -> None:
        async with stdio_client(devnet, state, *options) as client:
            began = time.monotonic()
            result = await client.call_tool(TOOL, ARGUMENTS)
            timed.extend((result, time.monotonic() - began))

    anyio.run(main)
    return timed[0], timed[1]


def test_a_silent_endpoint_holds_the_call_no_longer_than_its_timeout(
    chain_snapshot: Devnet, tmp_path: Path, silent_endpoint: str
) -> None:
    """Connected, never answered: the call ends within ``--timeout`` and a margin.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    :param silent_endpoint: the mech's endpoint.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    prepay(devnet, 3 * price_of(devnet, mech))
    declare_url(devnet, service_id, silent_endpoint)
    options = ("--mech", mech, "--offchain", "only", "--timeout", f"{TIMEOUT:g}")
    result, seconds = _timed_call(devnet, tmp_path, *options)
    text = str(result.content[0].text)
    assert seconds <= TIMEOUT + MARGIN, f"{seconds:.1f} s: {text[:400]}"
    assert result.is_error, text
    assert silent_endpoint in text, text  # said: which endpoint did not answer
