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

"""Both transports announce the same capabilities, in every protocol era (issue 29).

Over Streamable HTTP the SDK builds each session's ``initialize`` answer itself; it
said ``tools.listChanged: false`` while stdio said ``true``, so an HTTP client that
honours the capability never re-listed after a price, offer or schema change. Checked
with the MCP SDK's own client against the CLI on the session devnet (anvil with the
marketplace's real bytecode, kubo): the handshake at 2025-06-18 (the client's offered
version set to it) and 2025-11-25 (its default), and the 2026-07-28 ``server/discover``.
"""

from pathlib import Path
from typing import Any, Dict

import anyio
import mcp.client.session
import pytest
from mcp import Client

from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import http_server, stdio_client

#: (the client's ``mode``, the handshake version it offers; "" for the modern era)
ERAS = [("legacy", "2025-06-18"), ("legacy", "2025-11-25"), ("auto", "")]


async def _capabilities(client: Client) -> Dict[str, Any]:
    async with client:
        return {
            "protocol": client.protocol_version,
            "capabilities": client.server_capabilities.model_dump(
                by_alias=True, mode="json", exclude_none=True
            ),
        }


@pytest.mark.parametrize("mode,version", ERAS)
def test_http_and_stdio_announce_the_same_capabilities(
    devnet: Devnet,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    version: str,
) -> None:
    """Same protocol, same capabilities, tools' list changes announced on both.

    :param devnet: the devnet (nothing is sent).
    :param tmp_path: the state folders.
    :param monkeypatch: sets the handshake version the SDK's client offers.
    :param mode: the SDK client's connect mode.
    :param version: the handshake version offered ("": the modern era).
    """
    if version:
        monkeypatch.setattr(mcp.client.session, "LATEST_HANDSHAKE_VERSION", version)
    (tmp_path / "stdio").mkdir()
    (tmp_path / "http").mkdir()
    over_stdio = anyio.run(
        _capabilities, stdio_client(devnet, tmp_path / "stdio", mode=mode)
    )
    with http_server(devnet, tmp_path / "http") as url:
        over_http = anyio.run(_capabilities, Client(url, mode=mode))
    assert over_http == over_stdio
    assert over_http["capabilities"]["tools"]["listChanged"] is True, over_http
    if version:
        assert over_http["protocol"] == version
    if version == "2025-11-25":  # the tasks of that revision, on both transports
        assert "tasks" in over_http["capabilities"], over_http
