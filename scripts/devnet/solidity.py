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

"""Compile the devnet's own Solidity contracts with the npm ``solc`` package (solc.js).

Sources: ``scripts/devnet/contracts/*.sol``. The standard-JSON output is cached in
``~/.cache/mech-catalogue/solc/<sha256>.json``, keyed by the solc version, the settings
and every source's text, so a devnet start compiles only after a source changes.
"""

import hashlib
import json
import os
import subprocess  # nosec B404: runs node with the pinned solc.js only
from pathlib import Path
from typing import Any, Dict

from scripts.toolchain import SOLC_VERSION, solc_js

CONTRACTS_DIR = Path(__file__).resolve().parent / "contracts"
CACHE_DIR = (
    Path(
        os.environ.get(
            "MECH_CATALOGUE_CACHE", Path.home() / ".cache" / "mech-catalogue"
        )
    )
    / "solc"
)

SETTINGS: Dict[str, Any] = {
    "optimizer": {"enabled": True, "runs": 200},
    "evmVersion": "cancun",
    "outputSelection": {"*": {"*": ["abi", "evm.bytecode.object"]}},
}

# node reads the standard-JSON input on stdin and prints solc's output; the CLI wrapper
# (solc.js) is avoided because it prints a banner line before the JSON.
_NODE_COMPILE = (
    "const solc = require(process.argv[1]);"
    "let input = '';"
    "process.stdin.on('data', (c) => { input += c; });"
    "process.stdin.on('end', () => { process.stdout.write(solc.compile(input)); });"
)


class CompileError(RuntimeError):
    """solc reported errors for a devnet contract."""


def _standard_input() -> Dict[str, Any]:
    sources = {
        path.name: {"content": path.read_text()}
        for path in sorted(CONTRACTS_DIR.glob("*.sol"))
    }
    return {"language": "Solidity", "sources": sources, "settings": SETTINGS}


def compile_contracts() -> Dict[str, Dict[str, Any]]:
    """Return every devnet contract's ABI and creation bytecode, compiling when needed.

    :return: ``{contract name: {"abi": [...], "bytecode": "0x..."}}``, e.g. for
        ``LegacyMechAgentRegistry`` and ``ServiceSafeMultisig``.
    :raises CompileError: when solc reports an error (the messages are included).
        A missing npm solc package raises ``scripts.toolchain.MissingTool``.
    """
    standard_input = _standard_input()
    text = json.dumps(standard_input, sort_keys=True)
    key = hashlib.sha256(f"{SOLC_VERSION}\n{text}".encode()).hexdigest()
    cached = CACHE_DIR / f"{key}.json"
    if cached.is_file():
        return json.loads(cached.read_text())

    package_dir = solc_js().parent
    result = subprocess.run(  # nosec B603
        ["node", "-e", _NODE_COMPILE, str(package_dir)],
        input=text,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if result.returncode != 0:
        raise CompileError(
            f"solc.js failed (exit {result.returncode}): {result.stderr[-2000:]}"
        )
    output = json.loads(result.stdout)
    errors = [e for e in output.get("errors", []) if e.get("severity") == "error"]
    if errors:
        raise CompileError(
            "\n".join(e.get("formattedMessage", e.get("message", "")) for e in errors)
        )

    compiled: Dict[str, Dict[str, Any]] = {}
    for contracts in output["contracts"].values():
        for name, data in contracts.items():
            bytecode = data["evm"]["bytecode"]["object"]
            if bytecode:
                compiled[name] = {"abi": data["abi"], "bytecode": "0x" + bytecode}
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(".tmp")
    tmp.write_text(json.dumps(compiled))
    tmp.replace(cached)
    return compiled
