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

"""After a failed write of the listed record, a paid answer is lost (adv29p, devnet).

Severity: MEDIUM (see :mod:`.test_adv29p_listed_failed_write`: one failed write of
``listed-schemas.json`` at a listing made before the state folder's first paid call).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
operator) with the MCP SDK's client over Streamable HTTP at protocol 2026-07-28 (no
session), one agent, one on-chain call:

- the server starts on a new state folder (the record is written: empty, complete);
  the record's lock is made unusable (a directory: stands for a full disk or any
  OSError), and the agent lists the tool, whose ``result`` is a string of at most 3
  characters; the write fails, the server removes the file and logs that answers are
  text after a restart until the client lists again;
- the server stops; the failure passes (the lock usable again); the manifest's author
  changes the schema to ``result`` any string; the server starts again on the same
  port and state folder: no journal was written, so the missing file reads as a first
  start (a complete, empty record);
- the agent calls the tool with the same client: paid, delivered, structured against
  the new schema only; the client validates it against the schema it listed and raises
  ``RuntimeError("Invalid structured content ...")``; calling again (free) raises again.

Expected: the paid answer reaches the client (text saying why, as the log promises).
"""

import contextlib
import json
from pathlib import Path
from typing import Any, Dict, List

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mech_catalogue_cli.mcp_server.listed_file import FILE_NAME, LOCK_NAME
from scripts.devnet import Devnet
from tests.adversary.test_adv29l_answer_lost_after_restart_sessionless import (
    MECH_TOOL,
    MODERN,
)
from tests.answer_shape import listed_mech_properties
from tests.devnet.mcp_helpers import (
    declare_tool,
    free_port,
    http_server,
    market_nonce,
    responder,
)
from tests.devnet.test_mcp_offchain import native_mech


def test_a_failed_record_write_does_not_lose_the_answer(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Listed, record not written, restarted, paid under a new schema: it is read.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    declare_tool(
        devnet, service_id, MECH_TOOL, {"result": {"type": "string", "maxLength": 3}}
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    state = tmp_path / "state"
    log = tmp_path / "server.log"
    options = ("--mech", mech, "--timeout", "60", "--poll", "1")
    nonce = market_nonce(devnet)
    seen: Dict[str, Any] = {}
    failures: List[str] = []

    async def main() -> None:
        async with contextlib.AsyncExitStack() as stack:
            with http_server(devnet, state, *options, stderr=log, port=port):
                seen["record at start"] = (state / FILE_NAME).exists()
                (state / LOCK_NAME).unlink(missing_ok=True)
                (state / LOCK_NAME).mkdir()
                agent = await stack.enter_async_context(
                    Client(streamable_http_client(url), mode=MODERN)
                )
                listed = await agent.list_tools()
                (tool,) = [t for t in listed.tools if MECH_TOOL in t.name]
                seen["listed"] = listed_mech_properties(tool.output_schema)["result"]
                seen["record after the listing"] = (state / FILE_NAME).exists()
            (state / LOCK_NAME).rmdir()
            declare_tool(devnet, service_id, MECH_TOOL, {"result": {"type": "string"}})
            with (
                http_server(devnet, state, *options, stderr=log, port=port),
                responder(devnet),
            ):
                for attempt in ("first", "again"):
                    try:
                        seen[attempt] = await agent.call_tool(
                            tool.name, {"prompt": "Will the client read it?"}
                        )
                    except RuntimeError as exc:  # the SDK's validation of the result
                        failures.append(f"{attempt}: {exc}"[:300])

    anyio.run(main)
    server_log = log.read_text(errors="replace")
    observed = (
        f"record at start {seen['record at start']}, after the listing "
        f"{seen['record after the listing']}; listed {json.dumps(seen['listed'])}; "
        f"client errors {failures}"
    )
    assert seen["record at start"] and not seen["record after the listing"], observed
    assert "could not be written" in server_log, observed  # premise: the write failed
    assert seen["listed"] == {"type": "string", "maxLength": 3}, observed
    assert market_nonce(devnet) == nonce + 1, observed  # paid once: the again is free
    # observed on main: both calls raise "Invalid structured content returned by tool
    # ...: '...' is too long"
    assert not failures, observed
    for attempt in ("first", "again"):
        assert "devnet stand-in" in str(seen[attempt].content[0].text), observed
