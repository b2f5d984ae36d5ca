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

"""A key in the IPFS API URL reaches neither the model nor the server's log (issue #29).

The CLI serves the session devnet over HTTP; the SDK's own client calls a tool whose
upload goes to a closed port of this machine (kubo's API "down"), so the error is the
``requests`` library's own, which quotes the URL's path.
"""

import socket
from pathlib import Path

import anyio
import pytest
from mcp import Client

from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import http_server, market_nonce
from tests.devnet.test_mcp_server import TOOL

SECRET = "kuboTOKEN7c1e55d0a9b34f2e"  # a made-up API key


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    "spelling", ["http://127.0.0.1:{port}/{s}", "http://ipfs:{s}@127.0.0.1:{port}"]
)
def test_an_ipfs_api_key_reaches_neither_result_nor_log(
    chain_snapshot: Devnet, tmp_path: Path, spelling: str
) -> None:
    """The call fails before paying, saying where; the key is in no text or log."""
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    api = spelling.format(port=_closed_port(), s=SECRET)
    log = tmp_path / "server.log"

    async def main() -> str:
        with http_server(
            devnet, tmp_path, "--ipfs-api", api, "--timeout", "1", stderr=log
        ) as url:
            async with Client(url) as client:
                result = await client.call_tool(TOOL, {"prompt": "kubo is down"})
                assert result.is_error
                return result.model_dump_json()

    text = anyio.run(main)
    assert "127.0.0.1" in text  # it still says where it failed
    assert SECRET not in text and SECRET not in log.read_text(errors="replace")
    assert market_nonce(devnet) == nonce
