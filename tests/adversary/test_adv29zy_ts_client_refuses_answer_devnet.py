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

"""adv29zy F1 on the devnet: a paid answer the TypeScript SDK's client refuses, twice.

Severity: MEDIUM (see ``test_adv29zy_ts_client_refuses_answer.py``).

Observed on main (devnet: the chosen mech's service hash moved to ``tide-table`` with
the output schema ``{"when": string, format date-time}``, the stand-in responder
delivering ``{"when": "tomorrow at noon"}``, paid once on chain): the server lists the
tool, pays, verifies the delivery and returns ``{"server_note", "answer"}`` as
``structuredContent``; ``@modelcontextprotocol/client`` 2.4.0's ``callTool`` throws
"Structured content does not match the tool's output schema: data/answer/when must
match format "date-time"..." instead of returning it, and so does the free re-read
with the same arguments: the client never reads the paid answer.

Expected: the paid answer reaches the client, at the call or at the re-read (given as
text when a client would refuse its structure), paid once.
"""

import json
from pathlib import Path

from scripts.devnet import Devnet
from tests.adversary.adv29zy_ts_clients import ts_paid_answer_devnet

OUTPUT = {
    "type": "object",
    "properties": {"when": {"type": "string", "format": "date-time"}},
    "required": ["when"],
}
DELIVERED = {"when": "tomorrow at noon"}


def test_a_typescript_client_reads_the_paid_answer(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Paid once; the call or its free re-read returns the answer."""
    results, errors = ts_paid_answer_devnet(chain_snapshot, tmp_path, OUTPUT, DELIVERED)
    # observed on main: two errors, "Structured content does not match ... date-time"
    assert results, errors
    assert any("tomorrow at noon" in json.dumps(r) for r in results), results
