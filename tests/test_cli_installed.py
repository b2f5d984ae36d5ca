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

"""The installed ``mech-catalogue`` command, and how it finds the skill's domain library.

``make setup`` installs the CLI editable into the venv (pyproject.toml); these tests run
real interpreters in a temporary folder with no PYTHONPATH, as a user's shell would, so
the repository root is not on the path (docs/ARCHITECTURE.md, "How the CLI and the skill
share the domain").
"""

import json
import os
import shutil
import subprocess  # nosec B404: runs the venv's own interpreter and console script
import sys
from pathlib import Path
from typing import Dict, List

from packages.mech_catalogue.skills.tool_metadata_abci.domain.ipfs.cid import (
    digest_to_cid,
)

from mech_catalogue_cli import REPO_ROOT

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


def test_the_domain_is_the_checkouts_not_a_copy(tmp_path: Path) -> None:
    """Found through the CLI package (as the editable finder maps it), not PYTHONPATH.

    ``packages`` itself is the open-autonomy wheel's (site-packages); the checkout's
    ``packages/`` folder is put first on its search path, so the domain module imported is
    the file in this repository.

    :param tmp_path: a folder outside the repository.
    """
    finder = tmp_path / "finder"
    finder.mkdir()
    (finder / "mech_catalogue_cli").symlink_to(REPO_ROOT / "mech_catalogue_cli")
    probe = tmp_path / "elsewhere"
    probe.mkdir()
    code = (
        f"import sys; sys.path.append({str(finder)!r})\n"
        "import mech_catalogue_cli, packages\n"
        "from packages.mech_catalogue.skills.tool_metadata_abci.domain.ipfs import cid\n"
        "print(packages.__file__); print(cid.__file__)\n"
    )
    done = _python(code, probe)
    assert done.returncode == 0, done.stderr
    package_file, domain_file = done.stdout.split()
    assert "site-packages" in package_file
    assert Path(domain_file).resolve() == (
        REPO_ROOT
        / "packages/mech_catalogue/skills/tool_metadata_abci/domain/ipfs/cid.py"
    )


def test_a_checkout_without_the_skill_is_refused_saying_what_to_run(
    tmp_path: Path,
) -> None:
    """A CLI package with no skill beside it (not an editable install): a clear error."""
    fake = tmp_path / "fake_checkout" / "mech_catalogue_cli"
    fake.mkdir(parents=True)
    shutil.copy(REPO_ROOT / "mech_catalogue_cli" / "__init__.py", fake / "__init__.py")
    done = _python(
        f"import sys; sys.path.insert(0, {str(fake.parent)!r}); import mech_catalogue_cli",
        tmp_path,
    )
    assert done.returncode != 0
    assert "DomainNotFound" in done.stderr
    assert str(fake.parent / "packages") in done.stderr and "make setup" in done.stderr
