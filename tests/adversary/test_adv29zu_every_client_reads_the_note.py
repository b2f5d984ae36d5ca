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


"""Every MCP client hands its model the server's note before a paid answer (adv29zu).

Devnet: the chosen mech's service hash moves to a ``tide-table`` manifest whose output
schema is one of :data:`KINDS`' (none for a text answer), the stand-in responder
delivers the kind's answer, the server runs over stdio and each client makes the call
through its own classes (``tests/adversary/adv29zu_clients.py``): pydantic-ai (which
prefers ``structuredContent`` and unwraps a lone ``result``), openai-agents by default
and with ``use_structured_content=True``, langchain-mcp-adapters, and the MCP SDK's.
Whatever a client reads of the result, it is no error, it holds the answer, and the
server's line (what was paid to whom; the mech's data, not the server's words) comes
before it. One payment per call, and the same arguments again pay nothing.

Here, beside the reproductions, for their clients' venvs (installed on first use) and
their place among the long tests (``make faults-long``): 20 calls, about 190 s.
"""

import json
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import anyio
import pytest

from scripts.devnet import Devnet
from tests.adversary.adv29zu_clients import model_view
from tests.adversary.test_mcp_paid_answer import _paid_mechs, _responder
from tests.adversary.tides_manifest import TIDES, tides_manifest
from tests.answer_shape import answer_of, enveloped
from tests.devnet.mcp_helpers import ROOT, _env, command, market_nonce, stdio_client

LEVEL_SCHEMA = {
    "type": "object",
    "properties": {"port": {"type": "string"}, "level_m": {"type": "number"}},
    "required": ["port", "level_m"],
}
LONE_RESULT = {
    "type": "object",
    "properties": {"result": {"type": "string"}},
    "required": ["result"],
}
#: kind -> (the mech's output schema or None, what it delivers, a word of the answer)
KINDS: Dict[str, Tuple[Optional[Dict[str, Any]], bytes, str]] = {
    "structured": (
        LEVEL_SCHEMA,
        json.dumps({"port": "Douarnenez", "level_m": 5.25}).encode(),
        "Douarnenez",
    ),
    "lone-result": (
        LONE_RESULT,
        json.dumps({"result": "Slack water at Ouessant 09:40"}).encode(),
        "Ouessant",
    ),
    "mismatch": (
        LONE_RESULT,
        json.dumps({"levels": ["Roscoff 7.1 m"]}).encode(),
        "Roscoff",
    ),
    "text": (None, b"Low tide at Concarneau 16:55.", "Concarneau"),
}
CLIENTS = ["pydantic-ai", "agents", "agents-structured", "langchain", "sdk"]


def _serve_kind(devnet: Devnet, kind: str) -> str:
    """Move the chosen mech's service hash to a ``tide-table`` of this kind's schema.

    :param devnet: the devnet.
    :param kind: a key of :data:`KINDS`.
    :return: the chosen mech's address.
    """
    chosen, _, _ = _paid_mechs(devnet)
    (mech,) = [m for m in devnet.info.mechs if m["address"].lower() == chosen.lower()]
    output = KINDS[kind][0]
    manifest = tides_manifest({"type": "string", "description": "a port"}, output)
    _, digest = devnet.add_manifest(json.dumps(manifest).encode())
    devnet.change_service_hash(mech["service_id"], digest)
    return chosen


def _sdk_reads(devnet: Devnet, state: Path, calls: int) -> Dict[str, Any]:
    """The MCP SDK's client: ``calls`` calls of the same arguments, what each returned.

    :param devnet: the devnet.
    :param state: the server's state folder.
    :param calls: how many calls.
    :return: ``{"results": [CallToolResult, ...]}``.
    """

    async def main() -> Dict[str, Any]:
        async with stdio_client(devnet, state, "--timeout", "60") as client:
            await client.list_tools()
            return {
                "results": [
                    await client.call_tool(TIDES, {"prompt": "Brest"})
                    for _ in range(calls)
                ]
            }

    return anyio.run(main)


def _read_by_model(client: str, view: Dict[str, Any]) -> str:
    """What the client's model reads of the call, as one string; asserts no error.

    :param client: one of :data:`CLIENTS` but ``sdk``.
    :param view: the driver's JSON.
    :return: the text.
    """
    call = view["call"]
    assert not (isinstance(call, dict) and {"raised", "retry_prompt"} & set(call)), call
    if client == "langchain":
        assert call["status"] != "error", call
        return json.dumps(call["content"], ensure_ascii=False)
    return call if isinstance(call, str) else json.dumps(call, ensure_ascii=False)


def _sdk_checked(devnet: Devnet, state: Path, kind: str, chosen: str) -> None:
    """The MCP SDK's client: two calls of the same arguments; one payment; both framed.

    :param devnet: the devnet.
    :param state: the server's state folder.
    :param kind: a key of :data:`KINDS`.
    :param chosen: the mech that delivers.
    """
    _, delivered, word = KINDS[kind]
    nonce = market_nonce(devnet)
    with _responder(devnet, [chosen], encode=lambda _: delivered):
        results = _sdk_reads(devnet, state, calls=2)["results"]
    assert market_nonce(devnet) == nonce + 1  # the second call: free
    for result in results:
        assert not result.is_error, result.content[0].text
        text = result.content[0].text
        assert text.index("was paid") < text.index(word) < text.index("ends ---")
        note_and_answer = json.dumps(enveloped(result), ensure_ascii=False)
        assert note_and_answer.index("was paid") < note_and_answer.index(word)
        structured = answer_of(result)
        assert (structured is None) == (kind in ("mismatch", "text")), structured


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_client_reads_the_servers_note_before_the_answer(
    chain_snapshot: Devnet, tmp_path: Path, kind: str, client: str
) -> None:
    """One paid call of each kind, through each client.

    :param chain_snapshot: the devnet.
    :param tmp_path: the server's state folder.
    :param kind: a key of :data:`KINDS`.
    :param client: one of :data:`CLIENTS`.
    """
    devnet = chain_snapshot
    chosen = _serve_kind(devnet, kind)
    if client == "sdk":
        _sdk_checked(devnet, tmp_path, kind, chosen)
        return
    _, delivered, word = KINDS[kind]
    nonce = market_nonce(devnet)
    with _responder(devnet, [chosen], encode=lambda _: delivered):
        view = model_view(
            client.split("-structured")[0],
            command(devnet, tmp_path, "--timeout", "60"),
            _env(),
            str(ROOT),
            tool=TIDES,
            arguments={"prompt": "Brest"},
            structured=client.endswith("-structured"),
        )
    assert market_nonce(devnet) == nonce + 1  # paid once
    read = _read_by_model(client, view)
    assert "was paid" in read and "the mech's data" in read, read[:600]
    assert read.index("was paid") < read.index(word), read[:600]
    if kind == "mismatch":
        assert "does not match the mech's declared output schema" in read, read[:600]
