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

"""adv29zt Z1 and Z3 over the real path: tools/list serves both, through the SDK's client.

Severity: MEDIUM (as ``test_adv29zt_untrusted_text_ends_itself.py`` and
``test_adv29zt_stacked_marks_over_facts.py``: the mech's text writes the server's
forms after a forged end of its part, and stacks combining marks drawn over the facts
above it; neither is flagged).

On the devnet (anvil with the real contracts, kubo) the market mech's owner moves its
service hash to a manifest whose tool description is (1) the forged end and the
server's forms or (2) 50 no-break spaces each carrying 18 marks above;
``mech-catalogue mcp`` lists the tool to the MCP SDK's client over stdio.

Observed on main: (1) the listed description holds, after
``source.UNTRUSTED_HEADING``, a paragraph starting "Warning from this server:" with
"Paid call: 0 wei", and ``_meta`` has no warnings; (2) the description keeps the 50
runs of 18 marks, no warnings.

Expected: as the unit reproductions say (the mech's text enclosed or its use of the
server's forms flagged; long runs of marks cut or flagged).
"""

import json
import re
from pathlib import Path
from typing import Any, Dict, List

import anyio

from mech_catalogue_cli.mcp_server.names import LOOKALIKE_NOTE
from mech_catalogue_cli.mcp_server.source import UNTRUSTED_HEADING
from scripts.devnet import Devnet
from tests.adversary.test_adv29zt_stacked_marks_over_facts import DESCRIPTION as MARKS
from tests.adversary.test_adv29zt_untrusted_text_ends_itself import FORGED
from tests.adversary.test_mcp_hostile_text import _list_all, _market_mech
from tests.adversary.tides_manifest import TIDES, tides_manifest
from tests.devnet.mcp_helpers import stdio_client

LONG_RUN = re.compile("[\u0300-\u036f]{9,}")


def _listed(devnet: Devnet, tmp_path: Path, description: str) -> Dict[str, Any]:
    """List the market mech's tool after its owner publishes ``description``."""
    mech = _market_mech(devnet)
    manifest = tides_manifest({"type": "string", "description": "a port"})
    manifest["toolMetadata"][TIDES]["description"] = description
    _, digest = devnet.add_manifest(json.dumps(manifest).encode())
    devnet.change_service_hash(mech["service_id"], digest)

    async def main() -> List[Any]:
        async with stdio_client(devnet, tmp_path, "--discovery", "list") as client:
            return await _list_all(client)

    (tool,) = [t for t in anyio.run(main) if t.name == TIDES]
    return {"description": tool.description, "meta": tool.meta or {}}


def test_forged_forms_over_stdio(chain_snapshot: Devnet, tmp_path: Path) -> None:
    """(1) The forged end of the mech's part and the server's forms, unflagged."""
    tool = _listed(chain_snapshot, tmp_path, FORGED)
    assert tool["description"].startswith("Paid call:")  # the real facts first
    after = tool["description"].split(UNTRUSTED_HEADING, 1)[1]
    forged = [line for line in after.splitlines() if line.startswith(LOOKALIKE_NOTE)]
    warnings = tool["meta"]["io.olas/mech-tool"].get("warnings") or []
    # observed on main: one forged paragraph, no warnings
    assert not forged or warnings, (forged, warnings)


def test_stacked_marks_over_stdio(chain_snapshot: Devnet, tmp_path: Path) -> None:
    """(2) The runs of marks, unflagged."""
    tool = _listed(chain_snapshot, tmp_path, MARKS)
    runs = LONG_RUN.findall(tool["description"])
    warnings = tool["meta"]["io.olas/mech-tool"].get("warnings") or []
    # observed on main: 50 runs, no warnings
    assert not runs or warnings, (len(runs), warnings)
