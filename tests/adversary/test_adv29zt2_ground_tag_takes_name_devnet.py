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

"""adv29zt2 on the devnet: after a restart, an honest tool's MCP name pays a stranger.

Severity: MEDIUM (issue #29 (a); the kind and its cost are in
``test_adv29zt2_ground_tag_takes_name.py``).

Observed on main 4594d36e (devnet, the SDK's client over stdio): marketplace mech A's
service declares the honest tool (a 69-character name, served tagged as T); server 1
lists T for it and a call by T pays mech A (delivered: its tenure starts). Then mech
B's service (a stranger) declares a tool whose name shares the honest name's first 55
characters and its 8-hex-digit tag and sorts first. Server 2, a fresh process (a
restart), lists T with ``mechToolName`` the stranger's and the honest tool under its
second tag; the same call by T pays mech B.

Expected: T keeps standing for the honest (senior) tool across restarts.
"""

import json
from pathlib import Path
from typing import Any, Dict, List, Tuple

import anyio
import pytest

from scripts.devnet import Devnet
from tests.adversary.test_adv29zt2_ground_tag_takes_name import HONEST, NAME, STRANGER
from tests.devnet.mcp_helpers import market_nonce, responder, stdio_client

pytestmark = pytest.mark.devnet

#: the result's ``_meta`` key naming the request paid
REQUEST_META = "io.olas/mech-request"


def _manifest(tool: str) -> bytes:
    """A one-tool manifest declaring ``tool`` with one required ``prompt``."""
    return json.dumps(
        {
            "name": "Sentiment",
            "description": "Sentiment of the news about a question.",
            "tools": [tool],
            "toolMetadata": {
                tool: {
                    "name": tool,
                    "description": "Sentiment of the news about a question.",
                    "input": {
                        "type": "text",
                        "description": "a question",
                        "schema": {
                            "type": "object",
                            "properties": {"prompt": {"type": "string"}},
                            "required": ["prompt"],
                        },
                    },
                    "output": {"type": "object", "description": "the sentiment"},
                }
            },
        }
    ).encode()


def _served_as(
    devnet: Devnet, state: Path, prompt: str, timeout: str
) -> Tuple[str, Dict[str, Any]]:
    """Start a fresh server, read what T stands for, call T once (paid).

    :param devnet: the devnet.
    :param state: the server's state folder.
    :param prompt: the call's argument.
    :param timeout: the call's ``--timeout``.
    :return: the mech tool T stands for, and the call's request record (the request
        paid, delivered or not).
    """

    async def main() -> Tuple[str, Any]:
        async with stdio_client(devnet, state, "--timeout", timeout) as client:
            listed = await client.list_tools(cache_mode="refresh")
            (tool,) = [t for t in listed.tools if t.name == NAME]
            meta = (tool.meta or {}).get("io.olas/mech-tool", {})
            result = await client.call_tool(NAME, {"prompt": prompt})
            return str(meta.get("mechToolName")), result

    with responder(devnet):
        mech_tool, result = anyio.run(main)
    assert REQUEST_META in (result.meta or {}), result.content[0].text[:300]
    return mech_tool, result.meta[REQUEST_META]


def test_a_restart_keeps_the_honest_tool_s_name(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Server 1 pays mech A by T; server 2, after B's ground name, still does.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the servers' state folders.
    """
    devnet = chain_snapshot
    mechs: List[Dict[str, Any]] = [
        m for m in devnet.info.mechs if m["kind"] == "marketplace"
    ]
    # the seed's deployed service (its Safe delivers), and the "market" service's mech
    honest, stranger = mechs[2], mechs[0]
    assert honest["service_id"] != stranger["service_id"]
    _, digest = devnet.add_manifest(_manifest(HONEST))
    devnet.change_service_hash(honest["service_id"], digest)
    nonce = market_nonce(devnet)
    before, paid = _served_as(devnet, tmp_path / "one", "adv29zt2: before", "60")
    assert before == HONEST
    assert paid["mech"].lower() == honest["address"].lower()
    _, digest = devnet.add_manifest(_manifest(STRANGER))
    devnet.change_service_hash(stranger["service_id"], digest)
    after, paid = _served_as(devnet, tmp_path / "two", "adv29zt2: restarted", "8")
    assert market_nonce(devnet) == nonce + 2
    assert (after, paid["mech"].lower()) == (HONEST, honest["address"].lower()), (
        f"{NAME} now stands for {after!r} and paid mech {paid['mech']} (the stranger's "
        f"is {stranger['address']})"
    )
