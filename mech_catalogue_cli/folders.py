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

r"""Where the CLI keeps its state by default: in the checkout, or in a per-user folder.

The CLI runs two ways (docs/cli.md, "Default folders"):

- **from a checkout** (``make setup``'s editable install): the package folder sits in the
  repository, next to its ``pyproject.toml``. The defaults are today's repository folders:
  ``.devnet`` (``make devnet-up``), ``.run`` (``make run``) and, relative to the current
  folder, ``.mech-catalogue/mcp`` (the MCP server's call journal) and
  ``.mech-catalogue/list`` (``list``'s marketplace checkpoints);
- **installed from a wheel** (``pip install``, ``pipx``, ``uvx``): the package folder is in
  ``site-packages``, which is no place for state. Every default is under the per-user
  state folder platformdirs names for ``mech-catalogue`` (``$XDG_STATE_HOME/mech-catalogue``,
  else ``~/.local/state/mech-catalogue`` on Linux; ``~/Library/Application
  Support/mech-catalogue`` on macOS; ``%LOCALAPPDATA%\\mech-catalogue`` on Windows):
  ``devnet``, ``run``, ``mcp`` and ``list``.

The choice is :func:`default_folders`, a pure function of the two facts it depends on.
"""

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import platformdirs

#: the CLI's distribution name, as the root ``pyproject.toml`` ``[project] name`` gives it
DISTRIBUTION = "mech-catalogue"
#: this package's folder
PACKAGE_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class DefaultFolders:
    """The default state folders of one way of running the CLI.

    :param checkout: the repository the CLI runs from, or None when installed from a wheel.
    :param devnet: where ``--devnet`` looks first for ``devnet.json`` (``make devnet-up``'s
        folder in a checkout).
    :param run: ``make run``'s working folder (its devnet is ``<run>/devnet``).
    :param mcp: the MCP server's call journal (``mech-catalogue mcp --state-dir``).
    :param list: the marketplace scan's checkpoints (``mech-catalogue list --state-dir``).
    """

    checkout: Optional[Path]
    devnet: Path
    run: Path
    mcp: Path
    list: Path


def checkout_of(package_dir: Path) -> Optional[Path]:
    """Return the checkout a package folder lies in, or None when it is installed.

    A checkout is the package folder's parent holding a ``pyproject.toml`` whose
    ``[project] name`` is :data:`DISTRIBUTION`; a wheel's ``site-packages`` holds none.

    :param package_dir: the folder of the ``mech_catalogue_cli`` package.
    :return: the repository root, or None.
    """
    pyproject = package_dir.parent / "pyproject.toml"
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    if isinstance(project, dict) and project.get("name") == DISTRIBUTION:
        return package_dir.parent
    return None


def default_folders(checkout: Optional[Path], user_state: Path) -> DefaultFolders:
    """Choose the default state folders (see the module docstring).

    :param checkout: the repository root (:func:`checkout_of`), or None when installed.
    :param user_state: the per-user state folder for ``mech-catalogue``.
    :return: the repository's folders in a checkout, else folders under ``user_state``.
    """
    if checkout is not None:
        return DefaultFolders(
            checkout=checkout,
            devnet=checkout / ".devnet",
            run=checkout / ".run",
            mcp=Path(".mech-catalogue") / "mcp",
            list=Path(".mech-catalogue") / "list",
        )
    return DefaultFolders(
        checkout=None,
        devnet=user_state / "devnet",
        run=user_state / "run",
        mcp=user_state / "mcp",
        list=user_state / "list",
    )


#: the folders of this process: its package's checkout, or the user's state folder
DEFAULTS = default_folders(
    checkout_of(PACKAGE_DIR), Path(platformdirs.user_state_dir(DISTRIBUTION))
)


def devnet_folders_help(defaults: DefaultFolders) -> str:
    """Say where ``--devnet`` looks, for the way the CLI runs (help text).

    :param defaults: :data:`DEFAULTS`, or another way's folders (tests).
    :return: the checkout's ``.devnet`` and ``.run/devnet`` (``make devnet-up``, ``make
        run``), or, installed, the per-user state folder's ``devnet`` and ``run/devnet``
        (named in full; a devnet is started there from a checkout).
    """
    if defaults.checkout is not None:
        return ".devnet (make devnet-up) and .run/devnet (make run) in the checkout"
    return (
        f"{defaults.devnet} and {defaults.run / 'devnet'} (this user's state folder; "
        "a devnet is started from a mech-catalogue checkout)"
    )


def samples_help(defaults: DefaultFolders, repository: str) -> str:
    """Say where the help examples' ``examples/`` sample packages are (help text).

    :param defaults: :data:`DEFAULTS`, or another way's folders (tests).
    :param repository: the project's repository URL (``problems.PROJECT_URL``).
    :return: the checkout's ``examples`` folder, or, installed (the wheel holds no
        samples), the repository's.
    """
    if defaults.checkout is not None:
        return f"examples/ is the checkout's sample folder ({defaults.checkout / 'examples'})."
    return (
        "examples/ is the project's sample folder, not installed with the CLI: "
        f"{repository}/tree/main/examples"
    )
