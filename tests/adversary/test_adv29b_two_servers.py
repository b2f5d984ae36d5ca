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

"""Adversarial review adv29b: one call, two server processes on one state folder, paid twice.

"A retry never pays twice" holds inside one process: sends are serialised by an
``anyio.Lock`` and the journal is read again inside it. Nothing serialises two processes
that share ``--state-dir`` (the default folder: every desktop client launching its own
stdio server, a client restarting its server while the old one still runs, two agents
of one user). The journal file is only looked at (``Journal.load``) before the upload
and written after signing, so a second process that looks while the first is uploading
finds nothing, uploads, reads fresh nonces once the first request is mined, and sends a
second request for the same call key (and overwrites the first's journal entry).

Here the second server's kubo API is behind a slower proxy (a slow upload is all it
takes; any delay between ``load`` and ``save`` does). Expected (stated here; fails on
main fb8e46c): one call key, one request: the marketplace nonce moves by one.

Devnet: anvil with the marketplace's real bytecode, kubo, two ``mech-catalogue mcp``
processes driven by the SDK's own stdio client.
"""

from pathlib import Path
from typing import Any, Dict, Tuple

import anyio

from scripts.devnet import Devnet
from scripts.loopback_proxy import LoopbackProxy
from tests.devnet.mcp_helpers import market_nonce, stdio_client

TOOL = "prediction-online"
PROMPT = "Will it rain in Porto on Friday?"


def two_servers_call(
    devnet: Devnet, state: Path, prompts: Tuple[str, str], *extra: str
) -> Dict[str, Any]:
    """Two servers on one state folder, the second slower to upload, each calls once.

    :param devnet: the devnet.
    :param state: the shared state folder.
    :param prompts: the first and the second server's prompt.
    :param extra: more server options (both).
    :return: name -> the call's result.
    """
    api = devnet.info.ipfs_api_url
    with LoopbackProxy(api) as fast, LoopbackProxy(api) as slow:
        fast.latency, slow.latency = 1.0, 3.0
        results = {}

        async def one(name: str, proxy: LoopbackProxy, delay: float) -> None:
            prompt = prompts[0] if name == "first" else prompts[1]
            async with stdio_client(
                devnet, state, "--ipfs-api", proxy.url, "--timeout", "6", *extra
            ) as client:
                await client.list_tools()
                await anyio.sleep(delay)
                results[name] = await client.call_tool(TOOL, {"prompt": prompt})

        async def main() -> None:
            async with anyio.create_task_group() as group:
                group.start_soon(one, "first", fast, 5.0)
                group.start_soon(one, "second", slow, 5.5)

        anyio.run(main)
    return results


def _ids(results: Dict[str, Any]) -> Dict[str, Any]:
    return {
        name: (result.meta or {}).get("io.olas/mech-request", {}).get("request_id")
        for name, result in results.items()
    }


def test_two_processes_on_one_state_dir_pay_one_call_twice(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The same call through two servers sharing a journal: the mech is paid twice.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the shared state folder.
    """
    devnet = chain_snapshot
    before = market_nonce(devnet)
    results = two_servers_call(devnet, tmp_path, (PROMPT, PROMPT))
    ids = _ids(results)
    sent = market_nonce(devnet) - before
    assert sent == 1, (
        f"one call key, {sent} paid requests: {ids}; "
        f"journal files: {sorted(p.name for p in (tmp_path / 'calls').glob('*'))}"
    )


def test_two_processes_on_one_state_dir_spend_past_max_spend(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """docs/mcp.md: concurrent servers' requests in one --state-dir count: they do not.

    ``--max-spend`` is one price (of the ``deployed`` incumbent, 0.005 ETH); two
    different calls through two servers on one state folder: both are paid.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the shared state folder.
    """
    devnet = chain_snapshot
    before = market_nonce(devnet)
    price = str(5 * 10**15)
    results = two_servers_call(
        devnet,
        tmp_path,
        (PROMPT, "Will it snow in Oslo on Sunday?"),
        "--max-spend",
        price,
    )
    sent = market_nonce(devnet) - before
    assert (
        sent <= 1
    ), f"--max-spend {price} wei, {sent} requests of {price} wei paid: {_ids(results)}"
