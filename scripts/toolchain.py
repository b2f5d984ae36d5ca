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

"""Where the project's pinned external tools live, and one clear error when one is missing.

Every tool is installed by ``scripts/install_tools.sh`` into the git-ignored ``.tools/``
folder of the repository (binaries in ``.tools/bin``, npm packages in
``.tools/node_modules``). Go builds are also kept in ``~/.cache/mech-catalogue`` so that a
fresh clone on the same machine (as CI makes) reuses them instead of rebuilding.
"""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
TOOLS_DIR = REPO_ROOT / ".tools"
BIN_DIR = TOOLS_DIR / "bin"
NODE_MODULES = TOOLS_DIR / "node_modules"

# Pinned versions; scripts/install_tools.sh reads the same values from here.
ANVIL_VERSION = "1.7.1"  # npm @foundry-rs/anvil
SOLC_VERSION = "0.8.30"  # npm solc (solcjs)
KUBO_VERSION = "v0.42.0"  # Go module github.com/ipfs/kubo (v0.43 replaces a module the proxy lacks)
TENDERMINT_VERSION = (
    "v0.34.19"  # Go module github.com/tendermint/tendermint, as open-autonomy checks
)
ADDLICENSE_VERSION = "v1.1.1"  # Go module github.com/google/addlicense (make copyright)

INSTALL_HINT = "run `make tools` (scripts/install_tools.sh)"


class MissingTool(RuntimeError):
    """A pinned external tool is not installed."""


def tool_path(name: str) -> Path:
    """Return the path of an installed tool binary.

    :param name: one of ``anvil``, ``ipfs``, ``tendermint``, ``addlicense``.
    :return: the absolute path of the executable in ``.tools/bin``.
    :raises MissingTool: with one line naming the tool and the command that installs it.
    """
    path = BIN_DIR / name
    if not path.is_file():
        raise MissingTool(f"{name} is not installed at {path}: {INSTALL_HINT}")
    return path


def solc_js() -> Path:
    """Return the path of the npm ``solc`` package's ``solc.js`` (run with ``node``).

    :return: the absolute path of ``.tools/node_modules/solc/solc.js``.
    :raises MissingTool: when the npm package is not installed.
    """
    path = NODE_MODULES / "solc" / "solc.js"
    if not path.is_file():
        raise MissingTool(f"solc (npm) is not installed at {path}: {INSTALL_HINT}")
    return path
