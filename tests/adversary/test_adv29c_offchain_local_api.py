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

"""A manifest's ``url`` makes the server post to the user's own local services (adv29c).

On the devnet (anvil with the real marketplace, kubo) with the MCP SDK's client launching
``mech-catalogue mcp --offchain only`` over stdio. A mech's owner declares as its
off-chain endpoint the HTTP API of an IPFS daemon on the user's machine, with a path:
``http://127.0.0.2:<port>/api/v0/shutdown``. The validation (``offchain_endpoint``)
accepts it (http, a host, no query), and the server posts the signed request to
``<url>/send_signed_requests``. Kubo reads path segments past a command as its
arguments, so that is ``ipfs shutdown`` with one ignored argument: the daemon stops.
The same form reaches ``/api/v0/repo/gc``, ``/api/v0/config/<key>`` (sets ``<key>`` to
"send_signed_requests") and any other local HTTP API that routes by prefix. No prepaid
balance is needed: ``--offchain only`` posts before the mech's 402.

A second kubo daemon started for this test stands for the user's own (the devnet's kubo,
which the server reads answers from, is left alone).

Expected: no post reaches a service the mech does not run: the endpoint a manifest
declares does not reach the user's loopback or private network services (or a path
into them); the daemon keeps running and the mech is not called off-chain (fixed: an
endpoint is a host without a path, and off the devnet a host must resolve to internet
addresses only).
"""

from pathlib import Path
from typing import Any

import anyio

from scripts.devnet import Devnet
from scripts.devnet.kubo import start_kubo
from scripts.devnet.offchain_responder import declare_endpoint
from scripts.devnet.processes import is_alive, stop_pid
from tests.devnet.mcp_helpers import stdio_client
from tests.devnet.test_mcp_offchain import ARGUMENTS, TOOL, native_mech


def test_a_manifest_url_cannot_shut_down_the_users_ipfs_daemon(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The endpoint is the path of a local kubo's shutdown command: nothing reaches it."""
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    (tmp_path / "users-node").mkdir()
    users_kubo = start_kubo(tmp_path / "users-node")
    try:
        assert is_alive(users_kubo.pid, "ipfs")
        declare_endpoint(devnet, service_id, f"{users_kubo.api_url}/api/v0/shutdown")

        async def main() -> Any:
            async with stdio_client(
                devnet, tmp_path / "state", "--timeout", "30", "--offchain", "only"
            ) as client:
                return await client.call_tool(TOOL, ARGUMENTS)

        result = anyio.run(main)
        text = getattr(result.content[0], "text", "") if result.content else ""
        anyio.run(anyio.sleep, 2)  # kubo stops asynchronously after answering
        # observed now: the daemon logs "Received interrupt signal, shutting down..."
        # and exits; the call is the mech's error ("answered HTTP ...")
        assert is_alive(users_kubo.pid, "ipfs"), (
            "the user's IPFS daemon was shut down by a post to a manifest's url",
            text,
            (users_kubo.log_path).read_text(encoding="utf-8")[-300:],
        )
        # the endpoint with a path is no endpoint (``offchain_endpoint`` refuses it): the
        # mech is not called off-chain, so nothing of the user's kubo is in the answer
        assert users_kubo.api_url not in text and mech.lower() not in text.lower()
    finally:
        stop_pid(users_kubo.pid, "ipfs")
