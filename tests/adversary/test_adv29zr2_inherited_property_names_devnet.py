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

"""adv29zr2 on the devnet: an optional ``constructor`` property loses the paid answer.

Severity: MEDIUM (see ``test_adv29zr2_inherited_property_names.py``).

Observed on main (devnet: the chosen mech's service hash moved to ``tide-table`` with
the output schema ``{"constructor": string, "port": string}``, ``port`` required, the
stand-in responder delivering ``{"port": "Brest"}``, paid once on chain): the server
lists the tool, pays, verifies the delivery and returns ``{"server_note", "answer"}``
as ``structuredContent``; ``@modelcontextprotocol/client`` 2.4.0's ``callTool`` throws
"Structured content does not match the tool's output schema: data/answer/constructor
must be string..." at the call and at the free re-read: the client never reads the
paid answer.

Expected: the paid answer reaches the client, at the call or at the re-read (given as
text when a client would refuse its structure), paid once.
"""

import json
from pathlib import Path

from scripts.devnet import Devnet
from tests.adversary.adv29zy_ts_clients import ts_paid_calls
from tests.adversary.test_mcp_paid_answer import _paid_mechs, _responder
from tests.adversary.tides_manifest import TIDES, tides_manifest
from tests.devnet.mcp_helpers import ROOT, _env, command, market_nonce

OUTPUT = {
    "type": "object",
    "properties": {"constructor": {"type": "string"}, "port": {"type": "string"}},
    "required": ["port"],
}
DELIVERED = {"port": "Brest harbour"}


def test_a_typescript_client_reads_the_paid_answer_without_constructor(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Paid once; the call or its free re-read returns the answer."""
    devnet = chain_snapshot
    chosen, _, _ = _paid_mechs(devnet)
    (mech,) = [m for m in devnet.info.mechs if m["address"].lower() == chosen.lower()]
    manifest = tides_manifest({"type": "string", "description": "a port"}, OUTPUT)
    _, digest = devnet.add_manifest(json.dumps(manifest).encode())
    devnet.change_service_hash(mech["service_id"], digest)
    nonce = market_nonce(devnet)
    argv = command(devnet, tmp_path, "--timeout", "60")
    server = {"command": argv[0], "args": argv[1:], "env": _env(), "cwd": str(ROOT)}
    delivered = json.dumps(DELIVERED).encode()
    with _responder(devnet, [chosen], encode=lambda _: delivered):
        seen = ts_paid_calls(server, TIDES, {"prompt": "Brest"})
    assert TIDES in seen["tools"], seen
    assert market_nonce(devnet) == nonce + 1, seen  # paid once, on chain
    results = [c["result"] for c in seen["calls"] if "result" in c]
    errors = [c["error"] for c in seen["calls"] if "error" in c]
    # observed on main: two errors, "... data/answer/constructor must be string"
    assert results, errors
    assert any("Brest harbour" in json.dumps(r) for r in results), results
