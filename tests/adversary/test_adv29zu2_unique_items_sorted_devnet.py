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

"""adv29zu2 P2 on the devnet: a duplicate list jsonschema misses loses the paid answer.

Severity: MEDIUM (see ``test_adv29zu2_unique_items_sorted.py``).

Observed on main (devnet: the chosen mech's service hash moved to ``tide-table`` with
the output schema ``{"tides": array of arrays, uniqueItems}``, the stand-in responder
delivering ``{"tides": [[1], [true], [1]]}``, paid once on chain): the server pays,
verifies the delivery and returns it structured; ``@modelcontextprotocol/client``
2.4.0's ``callTool`` throws at the call and at the free re-read ("... data/answer/tides
must NOT have duplicate items (items ## 0 and 2 are identical) ..."): the client never
reads the paid answer.

Expected: the paid answer reaches the client (as text when a client would refuse its
structure), paid once.
"""

import json
from pathlib import Path

from scripts.devnet import Devnet
from tests.adversary.adv29zy_ts_clients import ts_paid_answer_devnet

OUTPUT = {
    "type": "object",
    "properties": {
        "tides": {
            "type": "array",
            "uniqueItems": True,
            "items": {"type": "array", "items": {"type": ["integer", "boolean"]}},
        }
    },
    "required": ["tides"],
}
DELIVERED = {"tides": [[1], [True], [1]]}


def test_a_typescript_client_reads_the_paid_answer_with_duplicate_lists(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """Paid once; the call or its free re-read returns the answer."""
    results, errors = ts_paid_answer_devnet(chain_snapshot, tmp_path, OUTPUT, DELIVERED)
    print(errors)
    # observed on main: two errors, "... must NOT have duplicate items ..."
    assert results, errors
    # structured, or as text (the answer's JSON quoted in the result's own JSON)
    assert any(
        '"tides"' in json.dumps(r) or '\\"tides\\"' in json.dumps(r) for r in results
    ), results
