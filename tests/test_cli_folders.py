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

"""Default state folders: the checkout's when run from one, the user's when installed.

The installed case end to end (a wheel in a fresh venv) is tests/devnet/
test_installed_wheels.py; these check the choice itself on folders laid out here.
"""

from pathlib import Path

import pytest

from mech_catalogue_cli.devnet import locate, state
from mech_catalogue_cli.folders import (
    DEFAULTS,
    DISTRIBUTION,
    PACKAGE_DIR,
    checkout_of,
    default_folders,
)
from scripts.toolchain import REPO_ROOT


def _package_in(root: Path, pyproject: str) -> Path:
    package = root / "mech_catalogue_cli"
    package.mkdir(parents=True)
    if pyproject:
        (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return package


def test_a_folder_beside_our_pyproject_is_a_checkout(tmp_path: Path) -> None:
    """The package's parent holding a pyproject.toml named mech-catalogue: a checkout."""
    package = _package_in(tmp_path, f'[project]\nname = "{DISTRIBUTION}"\n')
    assert checkout_of(package) == tmp_path


@pytest.mark.parametrize(
    "pyproject",
    [
        "",  # site-packages: no pyproject.toml at all
        '[project]\nname = "someone-elses-app"\n',  # a project vendoring the package
        "[tool.black]\nline-length = 88\n",  # a pyproject without [project]
        '[project]\nname = "mech-catalogue\n',  # not TOML
        "project = 3\n",  # [project] of the wrong type
    ],
)
def test_anything_else_is_an_installed_package(tmp_path: Path, pyproject: str) -> None:
    """No pyproject.toml, another project's, or an unreadable one: not a checkout."""
    assert checkout_of(_package_in(tmp_path / "site-packages", pyproject)) is None


def test_undecodable_pyproject_is_not_a_checkout(tmp_path: Path) -> None:
    """A pyproject.toml that is not UTF-8 is no checkout of ours (and no crash)."""
    package = _package_in(tmp_path, "")
    (tmp_path / "pyproject.toml").write_bytes(b"\xff\xfe[project]")
    assert checkout_of(package) is None


def test_checkout_folders_are_the_repositorys(tmp_path: Path) -> None:
    """In a checkout: .devnet and .run in it, the MCP journal relative to the working folder."""
    folders = default_folders(tmp_path / "repo", tmp_path / "user")
    assert folders.checkout == tmp_path / "repo"
    assert folders.devnet == tmp_path / "repo" / ".devnet"
    assert folders.run == tmp_path / "repo" / ".run"
    assert folders.mcp == Path(".mech-catalogue") / "mcp"
    assert folders.list == Path(".mech-catalogue") / "list"


def test_installed_folders_are_under_the_users_state_folder(tmp_path: Path) -> None:
    """Installed: devnet, run and mcp under the per-user state folder, none elsewhere."""
    user = tmp_path / "state" / DISTRIBUTION
    folders = default_folders(None, user)
    assert folders.checkout is None
    assert {folders.devnet, folders.run, folders.mcp, folders.list} == {
        user / "devnet",
        user / "run",
        user / "mcp",
        user / "list",
    }


def test_this_checkout_keeps_todays_folders() -> None:
    """Run from this repository, the defaults stay .devnet and .run of the repository."""
    assert checkout_of(PACKAGE_DIR) == REPO_ROOT
    assert DEFAULTS.checkout == REPO_ROOT
    assert state.DEFAULT_STATE_DIR == REPO_ROOT / ".devnet"
    assert locate.DEFAULT_RUN_DIR == REPO_ROOT / ".run"
