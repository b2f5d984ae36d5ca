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

"""A paid answer under a schema changed since the listing, then listed again (adv29j).

On the devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in
operator ``scripts.devnet.responder.Responder``) with the MCP SDK's client launching
``mech-catalogue mcp`` over stdio, on the initialize handshake and on the 2026-07-28
protocol: the tool's manifest is listed with ``result`` at most 3 characters, changed
to any string, the server says the list changed; the call pays once and its answer is
text saying the schema changed since the listing (the SDK's client would refuse it
structured), the free re-read says the same, and after the client lists again the
re-read (free: one request on chain) is structured.
"""

from pathlib import Path
from typing import Any, Dict, List

import anyio
import mcp_types as types
import pytest

from scripts.devnet import Devnet
from tests.adversary.test_adv29j_answer_schema_changed_after_list import MECH_TOOL
from tests.answer_shape import answer_of
from tests.devnet.mcp_helpers import (
    declare_tool,
    market_nonce,
    responder,
    stdio_client,
)
from tests.devnet.test_mcp_offchain import native_mech

#: seconds waited at most for the server's list change (a bound, not a timing)
CHANGE_WAIT = 60.0


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_client_that_lists_again_reads_the_paid_answer_structured(
    chain_snapshot: Devnet, tmp_path: Path, mode: str
) -> None:
    """Text with the reason while the listing is old; structured once listed again.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    :param mode: the SDK client's protocol (handshake, or 2026-07-28 over ``auto``).
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    declare_tool(
        devnet, service_id, MECH_TOOL, {"result": {"type": "string", "maxLength": 3}}
    )
    changed = anyio.Event()
    results: List[Any] = []
    seen: Dict[str, Any] = {}

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async def main() -> None:
        client = stdio_client(
            devnet,
            tmp_path,
            "--mech",
            mech,
            "--timeout",
            "60",
            "--poll",
            "1",
            mode=mode,
            message_handler=on_message,
        )
        async with client:
            listed = await client.list_tools(cache_mode="refresh")
            (tool,) = [t for t in listed.tools if MECH_TOOL in t.name]
            if mode == "legacy":
                declare_tool(
                    devnet, service_id, MECH_TOOL, {"result": {"type": "string"}}
                )
                with anyio.fail_after(CHANGE_WAIT):
                    await changed.wait()
            else:
                async with client.listen(tools_list_changed=True) as events:
                    declare_tool(
                        devnet, service_id, MECH_TOOL, {"result": {"type": "string"}}
                    )
                    with anyio.fail_after(CHANGE_WAIT):
                        async for _ in events:
                            break
            seen["requests before"] = market_nonce(devnet)
            for _ in range(2):
                results.append(
                    await client.call_tool(tool.name, {"prompt": "Listed again?"})
                )
            await client.list_tools(cache_mode="refresh")
            results.append(
                await client.call_tool(tool.name, {"prompt": "Listed again?"})
            )
            seen["requests after"] = market_nonce(devnet)

    with responder(devnet):
        anyio.run(main)
    assert len(results) == 3, results
    listed_again = results[2]
    for result in results[:2]:
        text = result.content[0].text
        # the text, which every envelope listed takes: no error (adv29zu C3)
        assert answer_of(result) is None and not result.is_error, text
        assert "output schema changed since this client listed" in text, text
        assert "devnet stand-in" in text, text
    assert not listed_again.is_error, listed_again.content[0].text
    assert "devnet stand-in" in str(listed_again.structured_content)
    request = {
        r.meta["io.olas/mech-request"]["request_id"] for r in results  # type: ignore
    }
    assert len(request) == 1  # one request, read three times
    assert seen["requests after"] - seen["requests before"] == 1  # paid once
