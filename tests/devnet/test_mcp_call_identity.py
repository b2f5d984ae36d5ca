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

"""Equivalent arguments are one call, paid once (issue #29), on the devnet.

Through the ``mcp`` SDK's own client: a prompt sent with a composed ``é`` and again with
``e`` + a combining acute accent (the same text, Unicode NFC) gives one marketplace
request and the same answer; a prompt that differs in meaning is a second request.
"""

from pathlib import Path
from typing import Any, List

import anyio

from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import market_nonce, responder, stdio_client

TOOL = "prediction-online"
REQUEST_META = "io.olas/mech-request"


def _calls(devnet: Devnet, state: Path, prompts: List[str]) -> List[Any]:
    async def main() -> List[Any]:
        async with stdio_client(devnet, state, "--timeout", "60") as client:
            await client.list_tools()
            return [
                await client.call_tool(TOOL, {"prompt": prompt}) for prompt in prompts
            ]

    return anyio.run(main)


def test_a_prompt_in_another_unicode_form_is_not_paid_twice(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Composed, decomposed, then another prompt: two requests, not three.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    nonce = market_nonce(devnet)
    prompts = ["Caf\u00e9 open on Sunday?", "Cafe\u0301 open on Sunday?", "Cafe?"]
    with responder(devnet) as answering:
        results = _calls(devnet, tmp_path, prompts)
    assert not any(r.is_error for r in results), (
        [r.content[0].text for r in results],
        answering.errors,
    )
    ids = [r.meta[REQUEST_META]["request_id"] for r in results]
    assert ids[0] == ids[1] != ids[2]
    assert market_nonce(devnet) == nonce + 2
