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

"""adv29zu C4: a stranger's tool name stops every openai-agents / pydantic-ai run.

Severity: MEDIUM (issue #29 (e): one registration stops the agent; nothing is paid).
``tools/list`` serves names under the MCP rule (``exporters.names.MCP_TOOL_RULE``:
``[a-zA-Z0-9_.-]``, up to 128 characters). OpenAI's and Anthropic's APIs take a
function name only when it matches ``^[a-zA-Z0-9_-]{1,64}$`` (the library's own
``OPENAI_RULE`` and ``ANTHROPIC_RULE``) and reject the whole request with HTTP 400
("Invalid 'tools[3].name': string does not match pattern") otherwise, before the model
runs. openai-agents (``MCPUtil.to_function_tool``: the name as listed) and pydantic-ai
(``ToolDefinition(name=mcp_tool.name)``) forward every listed name as written; so a mech
owner who registers a tool named ``tide.table`` or 65 characters long makes every turn of
such an agent fail, for as long as the tool is payable, in list mode (``--discovery
list``, or ``auto`` below its threshold). Reported widely for other servers (e.g.
openai/codex#8174, CherryHQ/cherry-studio#2895).

Observed on main: ``export_names`` keeps ``tide.table`` and a 90-character name as
they are; on the devnet (the market mech's manifest moved to a tool named with 90
``x``) openai-agents' function tools include that name and the seed's
``resolve-market-reasoning-gpt-4.1``, both outside the pattern.

Expected: listed names within ``^[a-zA-Z0-9_-]{1,64}$`` (the others tagged, as the
exporters for OpenAI and Anthropic already do), or the dot and length allowed only
behind an option.

Fixed (fix29zm): ``MCP_TOOL_RULE`` is that rule; a name outside it is listed as
``<name>_<8 hex>``, the mech's name in ``_meta`` and the server's note, and a call by
either name reaches the same offers.
"""

import json
import re
from pathlib import Path

from mech_catalogue_core.exporters.names import MCP_TOOL_RULE, export_names

from scripts.devnet import Devnet
from tests.adversary.adv29zu_clients import model_view
from tests.adversary.test_mcp_hostile_text import _market_mech
from tests.adversary.tides_manifest import TIDES, tides_manifest
from tests.devnet.mcp_helpers import ROOT, _env, command

FUNCTION_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
LONG = "x" * 90


def test_mcp_names_are_function_names() -> None:
    """Without a chain: the server's name rule on a dotted and a long name."""
    names = export_names(["tide.table", LONG], MCP_TOOL_RULE)
    # observed on main: {"tide.table": "tide.table", LONG: LONG}
    refused = [n for n in names.values() if not FUNCTION_NAME.fullmatch(n)]
    assert not refused, refused


def test_openai_agents_function_names_fit_the_apis(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """tools/list through openai-agents: the names it would send to the model's API."""
    devnet = chain_snapshot
    mech = _market_mech(devnet)
    text = json.dumps(tides_manifest({"type": "string"})).replace(TIDES, LONG)
    _, digest = devnet.add_manifest(text.encode())
    devnet.change_service_hash(mech["service_id"], digest)
    view = model_view("agents", command(devnet, tmp_path), _env(), str(ROOT))
    names = [tool["name"] for tool in view["tools"].values()]
    # observed on main: [LONG, "resolve-market-reasoning-gpt-4.1"], both sent as they are
    refused = [n for n in names if not FUNCTION_NAME.fullmatch(n)]
    assert not refused, refused
    assert any(n.startswith("x" * 47 + "_") for n in names), names
