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


"""A paid call whose delivered result hides markup, and what the server must do with it.

Shared by the markup reproductions on the devnet (adv29n): the stand-in responder
delivers a chosen ``result`` to the seeded marketplace mechs' request, paid through the
MCP SDK's client over stdio.
"""

from pathlib import Path
from typing import Any, Set

import anyio
from mcp import types

from scripts.devnet import Devnet
from tests.adversary.test_mcp_paid_answer import REQUEST_META, _responder
from tests.answer_shape import answer_of
from tests.devnet.mcp_helpers import market_nonce, stdio_client
from tests.devnet.test_mcp_server import TOOL


def paid_answer(
    devnet: Devnet, state_dir: Path, answer: str, prompt: str
) -> types.CallToolResult:
    """Call TOOL once with ``prompt``; the mech delivers ``answer`` as its ``result``.

    :param devnet: the devnet.
    :param state_dir: the server's state folder.
    :param answer: the delivered result text.
    :param prompt: the call's prompt (its own per test: a new request).
    :return: the call's result, after asserting one request was paid on chain.
    """
    nonce = market_nonce(devnet)
    mechs = [m["address"] for m in devnet.info.mechs if m["kind"] == "marketplace"]

    async def call() -> Any:
        async with stdio_client(devnet, state_dir, "--timeout", "60") as client:
            return await client.call_tool(TOOL, {"prompt": prompt})

    with _responder(devnet, mechs, result=answer):
        result = anyio.run(call)
    assert market_nonce(devnet) == nonce + 1  # paid once, on chain
    return result


def answer_text(result: types.CallToolResult) -> str:
    """The text of a paid call's first content block ("" when it is not text).

    :param result: a paid call's result.
    :return: the text.
    """
    block = result.content[0] if result.content else None
    return block.text if isinstance(block, types.TextContent) else ""


def warning_codes(result: types.CallToolResult) -> Set[str]:
    """The codes of a paid call's warnings (``_meta["io.olas/mech-request"]``).

    :param result: a paid call's result.
    :return: e.g. ``{"invisible_text", "instruction_like_text"}``.
    """
    meta = (result.meta or {}).get(REQUEST_META, {})
    return {w["code"] for w in meta.get("warnings", [])}


def assert_never_structured_unflagged(
    result: types.CallToolResult, answer: str
) -> None:
    """The answer is never a structured value unless an ``invisible_text`` warning says so.

    Withheld, the answer comes as text beside the warning: ``answer`` of the server's
    envelope is its text, never an error (``results.answer_result``, adv29zu C3).

    :param result: a paid call's result.
    :param answer: the delivered result text.
    """
    assert result.content, result
    codes = warning_codes(result)
    structured = answer_of(result) or {}  # the mech's value; its text is no structure
    held = [s for s in structured.values() if isinstance(s, str)]
    assert answer not in held or "invisible_text" in codes, (held, codes)
