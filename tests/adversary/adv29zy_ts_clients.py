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

"""The TypeScript MCP SDK's clients reading a listing and a result (adv29zy).

``js/adv29zy_ts_check.mjs`` runs with the SDK's first major (``@modelcontextprotocol/sdk``
1.32.2, installed with the MCP Inspector 0.15.0 by ``adv29zu_clients.inspector``, on its
Node 22) or its second (``@modelcontextprotocol/client`` 2.4.0 in ``.tools/mcp-js``, as
``tests/devnet/test_mcp_tasks.py`` installs it). Each is the SDK's own code: the Ajv
provider every ``Client`` validates ``structuredContent`` with by default, and, for the
first major, ``Client.cacheToolMetadata``, which ``listTools()`` runs on every listing.
The script is run from a temporary folder whose ``node_modules`` links to the SDK's, so
nothing is written into either install. A test skips when a client is missing.
"""

import json
import shutil
import subprocess  # nosec B404: our own script
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from tests.adversary.adv29zu_clients import inspector
from tests.adversary.test_mcp_paid_answer import _paid_mechs, _responder
from tests.adversary.tides_manifest import TIDES, tides_manifest
from tests.devnet.mcp_helpers import _env, command, market_nonce

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).parent / "js" / "adv29zy_ts_check.mjs"
CALL_SCRIPT = Path(__file__).parent / "js" / "adv29zy_ts_call.mjs"
V2_MODULES = ROOT / ".tools" / "mcp-js" / "node_modules"


def _install(version: str) -> List[str]:
    """``[node, modules folder]`` of one major, or skip."""
    if version == "v1":
        try:
            node = inspector()[0]
        except Exception as exc:  # pylint: disable=broad-exception-caught
            pytest.skip(f"the MCP Inspector (SDK 1.x) could not be installed: {exc}")
        modules = Path(node).parents[2]
        if not (modules / "@modelcontextprotocol" / "sdk").is_dir():
            pytest.skip("the Inspector's install holds no @modelcontextprotocol/sdk")
        return [node, str(modules)]
    found = shutil.which("node")
    if found is None or not (V2_MODULES / "@modelcontextprotocol" / "client").is_dir():
        pytest.skip("@modelcontextprotocol/client 2.4.0 is not in .tools/mcp-js")
    return [found, str(V2_MODULES)]


def ts_client(
    version: str, tools: List[Dict[str, Any]], name: str, value: Optional[Any] = None
) -> Dict[str, str]:
    """What one major of the TypeScript SDK's client does with a listing and a result.

    :param version: ``v1`` or ``v2``.
    :param tools: the ``tools/list`` entries as served (JSON objects).
    :param name: the tool whose ``outputSchema`` is compiled and checked.
    :param value: a ``structuredContent`` to check (None: compile only).
    :return: ``{"listed", "compiled", "refused"}``, each "" or the client's error.
    """
    node, modules = _install(version)
    spec: Dict[str, Any] = {"tools": tools, "name": name}
    if value is not None:
        spec["value"] = value
    with tempfile.TemporaryDirectory(prefix="adv29zy-ts-") as folder:
        here = Path(folder)
        (here / "node_modules").symlink_to(modules)
        (here / "package.json").write_text('{"private": true, "type": "module"}')
        shutil.copy(SCRIPT, here / SCRIPT.name)
        done = subprocess.run(  # nosec B603: our own script
            [node, str(here / SCRIPT.name), version],
            input=json.dumps(spec),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0 and done.stdout.strip(), done.stderr[-3000:]
    seen: Dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return seen


def ts_paid_calls(
    server: Dict[str, Any], tool: str, arguments: Dict[str, Any]
) -> Dict[str, Any]:
    """List, call ``tool``, call it again, through the SDK's second major over stdio.

    :param server: ``{"command", "args", "env", "cwd"}`` of the MCP server.
    :param tool: the tool's listed name.
    :param arguments: its arguments.
    :return: ``{"tools": [names], "calls": [{"result": ...} or {"error": "..."}] * 2}``.
    """
    node, modules = _install("v2")
    with tempfile.TemporaryDirectory(prefix="adv29zy-ts-") as folder:
        here = Path(folder)
        (here / "node_modules").symlink_to(modules)
        (here / "package.json").write_text('{"private": true, "type": "module"}')
        shutil.copy(CALL_SCRIPT, here / CALL_SCRIPT.name)
        done = subprocess.run(  # nosec B603: our own script
            [
                node,
                str(here / CALL_SCRIPT.name),
                json.dumps(server),
                tool,
                json.dumps(arguments),
            ],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    assert done.stdout.strip(), done.stderr[-3000:]
    seen: Dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return seen


def ts_paid_answer_devnet(
    devnet: Any, tmp_path: Path, output_schema: Dict[str, Any], delivered: Any
) -> Tuple[List[Any], List[Any]]:
    """One paid ``tide-table`` call (and its free re-read) by the TS client, on the devnet.

    The chosen mech's service hash is moved to a ``tide-table`` manifest declaring
    ``output_schema``; the stand-in responder delivers ``delivered`` as JSON.

    :param devnet: the devnet (a ``chain_snapshot``).
    :param tmp_path: the test's folder (the server's state).
    :param output_schema: the tool's declared output schema.
    :param delivered: the mech's answer (JSON-serialisable).
    :return: ``(results, errors)`` of the client's calls, once the tool was listed and
        exactly one request was paid on chain (asserted).
    """
    chosen, _, _ = _paid_mechs(devnet)
    (mech,) = [m for m in devnet.info.mechs if m["address"].lower() == chosen.lower()]
    manifest = tides_manifest(
        {"type": "string", "description": "a port"}, output_schema
    )
    _, digest = devnet.add_manifest(json.dumps(manifest).encode())
    devnet.change_service_hash(mech["service_id"], digest)
    nonce = market_nonce(devnet)
    argv = command(devnet, tmp_path, "--timeout", "60")
    server = {
        "command": argv[0],
        "args": argv[1:],
        "env": _env(),
        "cwd": str(ROOT),
    }
    answer = json.dumps(delivered).encode()
    with _responder(devnet, [chosen], encode=lambda _: answer):
        seen = ts_paid_calls(server, TIDES, {"prompt": "Brest"})
    assert TIDES in seen["tools"], seen
    assert market_nonce(devnet) == nonce + 1, seen  # paid once, on chain
    results = [c["result"] for c in seen["calls"] if "result" in c]
    errors = [c["error"] for c in seen["calls"] if "error" in c]
    return results, errors
