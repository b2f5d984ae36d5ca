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

"""Two servers paying from one state folder at once (adv29q, devnet).

On the devnet with the MCP SDK's client over Streamable HTTP (sessions), one agent
with two servers on one ``--state-dir``, both pinned to the native mech, the stand-in
operator answering; the two calls are made at the same moment:

- the same arguments from both: one request on chain, both answers the same;
- different arguments, both servers' ``--max-spend`` at 1.5 prices: one request on
  chain, the other call refused by the cap;
- different arguments, one server's ``--max-spend`` at 1.5 prices and the other's at
  10: at most two requests, and the capped one pays only when the other had not
  paid before it (then the other pays too).
"""

import json
from pathlib import Path
from typing import Any, Dict, List, Tuple

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import http_server, market_nonce, price_of, responder
from tests.devnet.test_mcp_offchain import native_mech
from tests.devnet.test_mcp_server import REQUEST_META, TOOL

#: case: (second call's prompt differs, caps in prices of the two servers)
CASES = {
    "same arguments": (False, (10.0, 10.0)),
    "different arguments, both capped": (True, (1.5, 1.5)),
    "different arguments, one capped lower": (True, (10.0, 1.5)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_two_servers_on_one_folder_pay_once_within_the_cap(  # pylint: disable=R0914
    chain_snapshot: Devnet, tmp_path: Path, case: str
) -> None:
    """Two servers, one folder, calls at once: never paid twice nor over a cap.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the shared state folder.
    :param case: a key of :data:`CASES`.
    """
    devnet = chain_snapshot
    differ, caps = CASES[case]
    mech, _ = native_mech(devnet)
    price = price_of(devnet, mech)
    nonce = market_nonce(devnet)
    arguments: List[Dict[str, Any]] = [
        {"prompt": f"Two servers, {case}?", "temperature": 0.5},
        {"prompt": f"Two servers, {case}{'!' if differ else '?'}", "temperature": 0.5},
    ]
    results: List[Any] = [None, None]

    def options(cap: float) -> Tuple[str, ...]:
        return ("--mech", mech, "--max-spend", str(int(price * cap)), "--timeout", "60")

    async def call(url: str, index: int) -> None:
        async with Client(streamable_http_client(url), mode="legacy") as client:
            await client.list_tools()
            results[index] = await client.call_tool(TOOL, arguments[index])

    async def main(urls: List[str]) -> None:
        async with anyio.create_task_group() as group:
            for index, url in enumerate(urls):
                group.start_soon(call, url, index)

    state = tmp_path / "state"
    state.mkdir()
    with responder(devnet):
        with http_server(devnet, state, *options(caps[0])) as first:
            with http_server(devnet, state, *options(caps[1])) as second:
                anyio.run(main, [first, second])
    paid = [
        (
            (r.meta or {}).get(REQUEST_META, {}).get("request_id")
            if not r.is_error
            else None
        )
        for r in results
    ]
    observed = json.dumps(
        {
            "price": price,
            "market nonce": [nonce, market_nonce(devnet)],
            "results": [
                {"error": r.is_error, "text": str(r.content[0].text)[:300]}
                for r in results
            ],
            "request ids": paid,
        }
    )
    requests = market_nonce(devnet) - nonce
    if not differ:
        assert requests == 1, observed
        assert paid[0] == paid[1] and paid[0], observed
    elif caps == (1.5, 1.5):
        assert requests == 1, observed
        assert sum(1 for p in paid if p) == 1, observed
    else:
        assert requests <= 2, observed
    for result, asked in zip(results, arguments):
        if not result.is_error:
            assert asked["prompt"] in str(result.content[0].text), observed
