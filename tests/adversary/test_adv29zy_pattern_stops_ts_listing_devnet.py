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

r"""adv29zy F2 on the devnet: one output ``pattern`` stops the MCP Inspector's listing.

The pattern is one ECMA-262 refuses; the Inspector then lists no tool of the server.

Severity: MEDIUM (see ``test_adv29zy_pattern_stops_ts_listing.py``).

Observed on main (devnet: the chosen mech's service hash moved to ``tide-table`` with
an output schema whose ``port`` has ``"pattern": "^\\d+\\Z"``, valid for Python's
``re``): the server lists it among the devnet's tools; the MCP Inspector CLI 0.15.0
(``@modelcontextprotocol/sdk`` 1.32.2) run with ``--method tools/list`` fails with
"Invalid regular expression: /^\\d+\\Z/u: Invalid escape" and prints no tool: no tool
of the server, the devnet's honest ``prediction-online`` included, can be listed.

Expected: the Inspector lists the server's tools.
"""

import json
import subprocess  # nosec B404: the Inspector, our argv
from pathlib import Path

import pytest

from scripts.devnet import Devnet
from tests.adversary.adv29zu_clients import inspector
from tests.adversary.test_mcp_paid_answer import _paid_mechs
from tests.adversary.tides_manifest import TIDES, tides_manifest
from tests.devnet.mcp_helpers import ROOT, _env, command

STRANGER = "^\\d+\\Z"
#: the control: the same tool with a pattern ECMA-262 compiles
CONTROL = "^[0-9]+$"


def _inspector_listing(devnet: Devnet, state: Path, pattern: str) -> str:
    """``--cli --method tools/list`` with ``tide-table``'s output ``port`` pattern."""
    try:
        head = inspector()
    except Exception as exc:  # pylint: disable=broad-exception-caught
        pytest.skip(f"the MCP Inspector could not be installed: {exc}")
    output = {
        "type": "object",
        "properties": {"port": {"type": "string", "pattern": pattern}},
        "required": ["port"],
    }
    chosen, _, _ = _paid_mechs(devnet)
    (mech,) = [m for m in devnet.info.mechs if m["address"].lower() == chosen.lower()]
    manifest = tides_manifest({"type": "string", "description": "a port"}, output)
    _, digest = devnet.add_manifest(json.dumps(manifest).encode())
    devnet.change_service_hash(mech["service_id"], digest)
    argv = command(devnet, state, "--timeout", "60")
    env = _env()
    done = subprocess.run(  # nosec B603: the Inspector and our server's argv
        [*head, "--cli", "-e", f"PYTHONPATH={env['PYTHONPATH']}", *argv]
        + ["--method", "tools/list"],
        cwd=str(ROOT),
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-2000:]
    return done.stdout


def test_the_control_lists_every_tool(chain_snapshot: Devnet, tmp_path: Path) -> None:
    """A pattern both dialects compile: the Inspector lists both tools."""
    listed = _inspector_listing(chain_snapshot, tmp_path, CONTROL)
    assert "prediction-online" in listed and TIDES in listed, listed[-2000:]


def test_the_inspector_lists_the_servers_tools(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """``--cli --method tools/list`` prints the honest tools."""
    # observed on main: exit 1, "Invalid regular expression: /^\\d+\\Z/u: Invalid escape"
    listed = _inspector_listing(chain_snapshot, tmp_path, STRANGER)
    assert "prediction-online" in listed, listed[-2000:]
