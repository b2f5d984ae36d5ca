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

"""``make dist`` needs the venv only, not the whole ``make setup``.

The two wheels are pure Python (``scripts/dist.py`` runs ``pip wheel``), so building them
must not wait for setup's Go builds of kubo and Tendermint, npm tools, requirements and
package sync. ``make -n`` shows what make would run, without running it; the venv step
(``scripts/setup.sh --venv-only``) is run for real in a copy of the script, so the shared
``.venv`` is never touched.
"""

import shutil
import subprocess  # nosec B404: make and bash on this checkout's files
import sys
from pathlib import Path
from typing import List

import pytest

from scripts.toolchain import REPO_ROOT

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make")


def planned(*targets: str) -> List[str]:
    """The commands ``make -n`` would run for the targets, in this checkout.

    :param targets: make targets.
    :return: the command lines.
    """
    done = subprocess.run(  # nosec B603 B607: make, dry run
        ["make", "-n", "--no-print-directory", *targets],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return [line.strip() for line in done.stdout.splitlines() if line.strip()]


def test_dist_runs_the_venv_step_and_the_build_only() -> None:
    """No full setup (tools, npm, requirements, sync) before the wheels."""
    commands = planned("dist")
    assert commands[-1].endswith("-m scripts.dist --out dist"), commands
    assert "bash scripts/setup.sh" not in commands, commands
    assert not any("install_tools" in c or "sync_packages" in c for c in commands)
    assert commands[:-1] == ["bash scripts/setup.sh --venv-only"], commands


def test_dist_with_another_interpreter_prepares_nothing() -> None:
    """With tox's own PYTHON, make builds with it and creates no .venv."""
    commands = planned("dist", f"PYTHON={sys.executable}")
    assert commands == [f"{sys.executable} -m scripts.dist --out dist"], commands


def test_setup_still_runs_everything_for_the_other_targets() -> None:
    """`test-unit` keeps the whole setup (it needs the tools and packages)."""
    assert "bash scripts/setup.sh" in planned("test-unit")


def test_the_venv_step_makes_a_bare_venv_once(tmp_path: Path) -> None:
    """A copy of setup.sh with --venv-only: .venv with no requirements; again: no-op."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO_ROOT / "scripts" / "setup.sh", tmp_path / "scripts" / "setup.sh")
    for _ in range(2):
        done = subprocess.run(  # nosec B603 B607: the copied script
            ["bash", "scripts/setup.sh", "--venv-only"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    python = tmp_path / ".venv" / "bin" / "python"
    assert python.is_file()
    nothing_installed = subprocess.run(  # nosec B603: the new venv's python
        [str(python), "-c", "import click"], capture_output=True, check=False
    )
    assert nothing_installed.returncode != 0
    assert not (tmp_path / ".tools").exists()
