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

"""The MCP server says the version of the installed distribution, as server.json does.

``serverInfo.version`` was the literal ``"1"`` while the package and ``server.json`` said
0.1.0. Read here by the MCP SDK's own client, connected in-process to the server object
(a catalogue stand-in serves one tool; no chain or IPFS is reached by a handshake).
"""

import importlib.metadata
import json
from typing import Any

import anyio
from mcp import Client

from mech_catalogue_cli.folders import DISTRIBUTION
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from scripts.toolchain import REPO_ROOT
from tests.test_mcp_pins import _served, _Source, _tool


def server_info_version() -> Any:
    """Connect the SDK's client to a server object and read its ``serverInfo.version``.

    :return: the version the server reports.
    """
    server = MechToolServer(
        _Source(_served(_tool("tides", port="str"))), CallSettings("g", "a"), None, None
    )
    server.refresh()

    async def handshake() -> Any:
        async with Client(server.server) as client:
            info = client.server_info
            assert info is not None
            return info.version

    return anyio.run(handshake)


def test_server_info_version_is_the_distributions() -> None:
    """The installed distribution's version, the one server.json publishes."""
    reported = server_info_version()
    assert reported == importlib.metadata.version(DISTRIBUTION)
    published = json.loads((REPO_ROOT / "server.json").read_text(encoding="utf-8"))
    assert reported == published["version"] == published["packages"][0]["version"]
