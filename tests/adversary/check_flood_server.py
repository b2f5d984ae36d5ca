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

"""The MCP server over stdio, serving one tool with a backtracking ``pattern`` (a dry run).

Started as a process by ``tests/adversary/test_mcp_check_flood.py`` with the SDK's own
stdio client: the server's real ``serve(app, "stdio")``, the SDK's stdio transport and
the real forkserver checkers; only the catalogue source is fixed (no chain, no IPFS: the
argument checks are under test). Each check is given :data:`CHECK_LIMIT` seconds and
waits in line at most :data:`QUEUE_LIMIT` seconds, so a flood keeps the pool busy long
enough to see whether ``tools/list`` waits behind it.
"""

from typing import Any, Callable, Tuple

import anyio

from mech_catalogue_cli.mcp_server import bounded
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE, Offer
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer, serve
from mech_catalogue_cli.mcp_server.source import ServedCatalogue, ServedTool

#: seconds a check may take here (the backtracking pattern takes far longer)
CHECK_LIMIT = 12.0
#: seconds a check waits for a slot here
QUEUE_LIMIT = 20.0
EVIL_SCHEMA = {
    "type": "object",
    "properties": {"word": {"type": "string", "pattern": "^(d+)+e$"}},
}


class FixedSource:  # pylint: disable=too-few-public-methods
    """One tool with a backtracking pattern, one plain tool."""

    def read(self) -> ServedCatalogue:
        """Return the catalogue.

        :return: the two tools.
        """
        offer = Offer("k", "0x" + "13" * 20, 10, NATIVE_PAYMENT_TYPE, 1, 1, 1, True)
        tools = tuple(
            ServedTool(name, name, {"name": name, "inputSchema": schema}, (offer,))
            for name, schema in (("slow", EVIL_SCHEMA), ("plain", {"type": "object"}))
        )
        return ServedCatalogue("d", tools)


def main() -> None:
    """Serve over stdio until the client closes it."""
    original = bounded._run_child  # pylint: disable=protected-access

    def limited(function: Callable[..., Any], args: Tuple, _seconds: float) -> Any:
        return original(function, args, CHECK_LIMIT)

    setattr(bounded, "_run_child", limited)
    bounded.QUEUE_SECONDS = QUEUE_LIMIT
    settings = CallSettings(
        gateway_url="http://127.0.0.1:9", ipfs_api_url="", dry_run=True
    )
    app = MechToolServer(FixedSource(), settings, None, None)
    app.refresh()
    anyio.run(serve, app, "stdio")


if __name__ == "__main__":
    main()
