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

"""The installed ``mech-catalogue`` command, and how it finds the domain library.

``make setup`` installs the CLI and the ``mech-catalogue-core`` library editable into the
venv (pyproject.toml, libs/mech-catalogue-core/pyproject.toml); these tests run real
interpreters in a temporary folder with no PYTHONPATH, as a user's shell would, so the
repository root is not on the path (docs/ARCHITECTURE.md).
"""

import json
import os
import shutil
import subprocess  # nosec B404: runs the venv's own interpreter and console script
import sys
from pathlib import Path
from typing import Dict, List

from mech_catalogue_core.ipfs.cid import (
    digest_to_cid,
)

from scripts.toolchain import REPO_ROOT

VENV_BIN = Path(sys.executable).parent
DIGEST = "0x" + "5a" * 32


def _clean_env() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def _run(args: List[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(  # nosec B603: the venv's interpreter or console script
        args,
        cwd=cwd,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess:
    return _run([sys.executable, "-c", code], cwd)


def test_the_installed_command_runs_from_any_folder(tmp_path: Path) -> None:
    """`mech-catalogue --json cid <digest>` from an unrelated folder: the domain's answer."""
    command = shutil.which("mech-catalogue", path=str(VENV_BIN))
    assert (
        command
    ), f"no mech-catalogue in {VENV_BIN}: run `make setup` (editable install)"
    done = _run([command, "--json", "cid", DIGEST], tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["dag_pb_v1"] == digest_to_cid(DIGEST)
    helped = _run([command, "--help"], tmp_path)
    assert helped.returncode == 0 and "validate" in helped.stdout


def test_the_library_is_the_checkouts_installed_distribution(tmp_path: Path) -> None:
    """``mech_catalogue_core`` is found as an installed distribution, not through PYTHONPATH.

    The editable install maps the import to this checkout's files, and the distribution's
    version is the one the skills pin in their skill.yaml.

    :param tmp_path: a folder outside the repository.
    """
    code = (
        "from importlib.metadata import version\n"
        "from mech_catalogue_core.ipfs import cid\n"
        "print(cid.__file__); print(version('mech-catalogue-core'))\n"
    )
    done = _python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    library_file, installed_version = done.stdout.split()
    assert Path(library_file).resolve() == (
        REPO_ROOT / "libs/mech-catalogue-core/mech_catalogue_core/ipfs/cid.py"
    )
    skill = (
        REPO_ROOT / "packages/mech_catalogue/skills/tool_metadata_abci/skill.yaml"
    ).read_text(encoding="utf-8")
    assert f"mech-catalogue-core:\n    version: =={installed_version}\n" in skill


def test_the_cli_imports_no_aea_package(tmp_path: Path) -> None:
    """Every command module loads without the ``packages`` namespace (skills, third party).

    The CLI is built over the library alone, so a wheel of it needs no ``packages/``
    folder and rewrites no other distribution's ``packages.__path__``.

    :param tmp_path: a folder outside the repository.
    """
    code = (
        "import sys\n"
        "import mech_catalogue_cli.app\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'packages'))\n"
    )
    done = _python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
