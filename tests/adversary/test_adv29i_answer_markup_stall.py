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

r"""A delivered answer of unclosed links freezes the whole server while it is read (adv29i).

Severity: MEDIUM (a stall: every session's ``tools/list`` and every other call wait,
for seconds per read of one answer, at each read again; nothing is paid or lost).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the devnet's
stand-in operator :class:`scripts.devnet.responder.Responder` delivering the bytes the
test chooses) with the MCP SDK's client launching ``mech-catalogue mcp`` over stdio,
one agent, an on-chain call.

A mech delivers 512 KiB of ``[](`` repeated (under the 1 MiB response cap). Before the
answer is returned, ``results.visible_text`` asks ``markup.Markup.kinds`` what markup
it holds; its ``_LINK_TITLE`` pattern

    ``\]\(\s{0,64}(?:<[^>\n]{0,2048}>|[^\s)]{0,2048})\s{1,64}["'(]``

scans up to 2 x 2,048 characters and backtracks over them at every ``](``: about 11 s
for this answer on one idle CPU (0.77 s at 64 KiB, 4.5 s at 256 KiB, 13.6 s at 1 MiB
of ``[a](<b``), although the module says its patterns are "linear" and "take under a
millisecond". ``DeliveryReader.delivered_result`` calls ``answer_result`` on the event
loop, and ``re`` holds the GIL while it matches: the whole server stops meanwhile,
every session included. Reading the paid answer again (free for anyone who can call
the tool with the same arguments) stops it again. The same pattern checks manifest
text (``untrusted_text.render_hidden_kinds``, every agent and direct read): 0.27 s for
one 10,000-character description of ``[](<``, so about 27 s (estimated) for the
hundred such texts a 1 MiB manifest holds.

Expected: reading a delivered answer never holds the event loop for long: a
``tools/list`` sent while a call's answer is checked is answered before that call
ends (the markup kinds found in time linear in the answer, or the check run where it
cannot stop the loop): no ``tools/list`` sent during the read waits four fifths as
long as the read (fix29j: lists are sent all along the read, where the review sent one 3 s in,
which a quick check may already have passed).
"""

import time
from pathlib import Path
from typing import Any, Dict, List

import anyio

from scripts.devnet import Devnet
from scripts.devnet.responder import Responder
from tests.devnet.mcp_helpers import stdio_client
from tests.devnet.test_mcp_server import TOOL

#: the delivered bytes: unclosed inline links, 512 KiB
HOSTILE_ANSWER = b"[](" * ((1 << 19) // 3)


def test_reading_an_answer_of_unclosed_links_leaves_tools_list_answered(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A paid answer read again while tools/list is asked: the list comes first.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    arguments = {"prompt": "an answer of unclosed links"}
    mechs = [m["address"] for m in devnet.info.mechs if m["kind"] == "marketplace"]
    done: List[str] = []
    waits: List[float] = []
    seen: Dict[str, Any] = {}

    async def main() -> None:
        async with stdio_client(devnet, tmp_path, "--timeout", "120") as client:
            started = time.monotonic()
            seen["first"] = await client.call_tool(TOOL, arguments)  # paid, read
            seen["first_s"] = time.monotonic() - started
            started = time.monotonic()
            await client.list_tools()
            seen["idle_list_s"] = time.monotonic() - started

            async def read_again() -> None:
                seen["again"] = await client.call_tool(TOOL, arguments)
                done.append("call")

            async def list_meanwhile() -> None:
                # tools/list again and again while the answer is read (its fetch, then
                # its check): each list's wait is kept
                while "call" not in done:
                    began = time.monotonic()
                    await client.list_tools()
                    waits.append(time.monotonic() - began)
                    await anyio.sleep(0.1)
                done.append("tools/list")

            began = time.monotonic()
            async with anyio.create_task_group() as group:
                group.start_soon(read_again)
                group.start_soon(list_meanwhile)
            seen["again_s"] = time.monotonic() - began

    with Responder(
        devnet.info,
        mechs,
        from_block=devnet.w3.eth.block_number,
        interval=0.3,
        encode=lambda document: HOSTILE_ANSWER,
    ):
        anyio.run(main)
    first, again = seen["first"], seen["again"]
    observed = (
        f"order {done}; first call {seen['first_s']:.1f} s, read again "
        f"{seen['again_s']:.1f} s; tools/list idle {seen['idle_list_s']:.2f} s, "
        f"longest during the read {max(waits, default=-1):.2f} s of {len(waits)}; "
        f"{str(first.content[0].text)[:160]!r}"
    )
    print(observed)
    # the answer is returned as text (shown inert), the same both times
    assert "&#91;](" in str(first.content[0].text), observed
    assert first.content[0].text == again.content[0].text, observed
    # observed on main: a tools/list sent as the check began waited for the whole check
    # (the order was ['call', 'tools/list'] with one list sent 3 s into the read). Once
    # the check is quick the read can end before a list sent 3 s in, so lists are sent
    # all along, and the longest wait is compared with the read it ran beside (a ratio
    # of the same run, not a time): held, the loop made one list wait most of the read
    # (24.87 s of 25.3 s); free, at most 0.34 of it at load 8
    assert len(waits) >= 2, observed
    assert max(waits) < seen["again_s"] * 0.8, observed
