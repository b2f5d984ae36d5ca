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

"""adv29zz E1 on the devnet: the SDK's client refuses a paid answer, at every read.

Severity: HIGH (issue #29 (b): paid, delivered, never returned to the caller).

The devnet (anvil with the real MechMarketplace bytecode, kubo, the stand-in operator
delivering ``{"requestId", "result", "prompt"}``), the MCP SDK's client launching
``mech-catalogue mcp --mech M`` over stdio. The mech's manifest declares a tool whose
output schema's ``result`` is ``{"$dynamicRef": "#/properties/text"}`` beside
``"text": {"type": "string"}``: valid JSON Schema 2020-12, met by every honest
delivery (``result`` a string), and not rewritten by ``manifest.schema_refs`` (only
``$ref`` is). The server checks the delivery against the mech's schema (it passes) and
returns it structured inside the envelope it lists (fix29zl), where the mech's schema
sits at ``/properties/answer/anyOf/0`` and ``#/properties/text`` names nothing.

Observed on main: the paid call raises ``RuntimeError("Invalid schema for tool ..:
PointerToNowhere: '/properties/text' does not exist ..")`` in the client; the
second call (the journal's answer, not paid again) raises the same; one payment on
chain (measured: 16 s with the devnet up).

Expected: the SDK's client returns the paid answer (structured when it matches the
listed envelope, else as text with the server's note).
"""

from pathlib import Path
from typing import Any, Dict, List

import anyio

from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import (
    declare_tool,
    market_nonce,
    responder,
    stdio_client,
)
from tests.devnet.test_mcp_offchain import native_mech

MECH_TOOL = "adv29zz-dynamic-ref"
OUTPUT = {
    "text": {"type": "string"},
    "result": {"$dynamicRef": "#/properties/text"},
}


def test_a_paid_answer_under_a_dynamic_ref_reaches_the_sdk_client(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """One paid call, one free re-read: both return the answer, one payment.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the server's state folder.
    """
    devnet = chain_snapshot
    mech, service_id = native_mech(devnet)
    declare_tool(devnet, service_id, MECH_TOOL, OUTPUT)
    seen: Dict[str, Any] = {}
    failures: List[str] = []
    nonce = market_nonce(devnet)

    async def main() -> None:
        async with stdio_client(
            devnet, tmp_path, "--mech", mech, "--timeout", "60"
        ) as client:
            listed = await client.list_tools()
            (tool,) = [t for t in listed.tools if MECH_TOOL in t.name]
            for attempt in ("first", "again"):
                try:
                    seen[attempt] = await client.call_tool(
                        tool.name, {"prompt": "Will the client read it?"}
                    )
                except RuntimeError as exc:  # the SDK's validation of the result
                    failures.append(f"{attempt}: {exc}"[:300])

    with responder(devnet):
        anyio.run(main)
    assert market_nonce(devnet) == nonce + 1  # paid once, on chain
    # observed on main: both raise "Invalid schema for tool ..: ... #/properties/text"
    assert not failures, failures
    for attempt in ("first", "again"):
        assert "devnet stand-in" in str(seen[attempt].content[0].text)
