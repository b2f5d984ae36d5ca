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

"""Which devnet a command means: the one rule every ``--devnet`` option follows.

A devnet is a folder holding ``devnet.json`` (:mod:`mech_catalogue_cli.devnet.state`). Two commands
of a checkout start one: ``make devnet-up`` (in ``.devnet``) and ``make run`` (in
``<run dir>/devnet``, ``.run/devnet`` unless ``$MECH_CATALOGUE_RUN_DIR`` names another run
folder). The rule:

1. ``--devnet-dir DIR`` when given;
2. else ``$MECH_CATALOGUE_DEVNET_DIR`` when set;
3. else, of the default devnet folder and ``<run dir>/devnet``, the one whose devnet is
   running (its anvil process alive); when both run, the one started last (newest
   ``devnet.json``).

A folder named by 1 or 2 must hold a running devnet too. Nothing else is guessed. The
default folders are the checkout's ``.devnet`` and ``.run``; a CLI installed from a wheel
has no checkout, and uses ``devnet`` and ``run`` under its per-user state folder
(:mod:`mech_catalogue_cli.folders`), where a devnet is found only if one was started there.
"""

import os
import shlex
from pathlib import Path
from typing import List, Optional

from mech_catalogue_cli.devnet.pids import is_alive
from mech_catalogue_cli.devnet.state import DEFAULT_STATE_DIR, STATE_FILE, DevnetInfo
from mech_catalogue_cli.folders import DEFAULTS

DEVNET_DIR_ENV = "MECH_CATALOGUE_DEVNET_DIR"
RUN_DIR_ENV = "MECH_CATALOGUE_RUN_DIR"
#: ``make run``'s folder: ``.run`` in a checkout, ``<user state>/run`` installed
DEFAULT_RUN_DIR = DEFAULTS.run
#: how a user without a checkout gets a devnet (the devnet tooling is not in the wheel)
FROM_A_CHECKOUT = (
    "the devnet is started from a mech-catalogue checkout (`make devnet-up`); "
    f"name its folder with --devnet-dir or ${DEVNET_DIR_ENV}"
)


class DevnetNotFound(Exception):
    """No running devnet where the rule looks; the message says where it looked and what to run."""


def run_dir() -> Path:
    """Return the folder ``make run`` works in.

    :return: ``$MECH_CATALOGUE_RUN_DIR``, else :data:`DEFAULT_RUN_DIR`.
    """
    return Path(os.environ.get(RUN_DIR_ENV) or DEFAULT_RUN_DIR)


def candidates() -> List[Path]:
    """Return the folders rule 3 looks in, in order.

    :return: :data:`DEFAULT_STATE_DIR` (``make devnet-up``), then ``<run dir>/devnet``
        (``make run``).
    """
    return [DEFAULT_STATE_DIR, run_dir() / "devnet"]


def _running(folder: Path) -> Optional[DevnetInfo]:
    try:
        info = DevnetInfo.load(folder)
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return info if is_alive(info.anvil_pid, "anvil") else None


def _shown(folder: Path) -> str:
    try:
        return str(folder.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(folder)


def find_devnet(explicit: Optional[str] = None) -> DevnetInfo:
    """Find the running devnet by the module's rule.

    :param explicit: ``--devnet-dir``, or None.
    :return: the devnet's ``devnet.json`` content.
    :raises DevnetNotFound: when the named folder, or neither default folder, holds a
        running devnet; the message names the folders and the command that starts one.
    """
    named = explicit or os.environ.get(DEVNET_DIR_ENV)
    if named:
        info = _running(Path(named))
        if info is None:
            how = "--devnet-dir" if explicit else f"${DEVNET_DIR_ENV}"
            raise DevnetNotFound(
                f"no running devnet in {_shown(Path(named))} ({how}: no "
                f"{STATE_FILE}, or its anvil has stopped); start one there with "
                f"`{up_command(Path(named))}`, {_or_without_folder()}."
            )
        return info
    running = [info for info in map(_running, candidates()) if info is not None]
    if not running:
        looked = " and ".join(_shown(folder) for folder in candidates())
        raise DevnetNotFound(f"no running devnet in {looked}: {_how_to_start()}.")
    return max(
        running, key=lambda info: (Path(info.state_dir) / STATE_FILE).stat().st_mtime
    )


def _or_without_folder() -> str:
    """Say where the CLI looks when no folder is named: a checkout's, or none it can know."""
    if DEFAULTS.checkout is None:  # an installed CLI looks in its own state folder only
        return (
            "or name a checkout's devnet folder (`<checkout>/.devnet` for `make "
            "devnet-up`, `<checkout>/.run/devnet` for `make run`)"
        )
    return "or leave it out to use `make devnet-up`'s or `make run`'s devnet"


def _how_to_start() -> str:
    if DEFAULTS.checkout is None:
        return FROM_A_CHECKOUT
    return (
        "start one with `make devnet-up` (or `make run`, which also runs the agent), "
        f"or name its folder with --devnet-dir / ${DEVNET_DIR_ENV}"
    )


def devnet_command(state_dir: Path, action: str) -> str:
    """Return the command that starts or stops the devnet in ``state_dir``, as a user types it.

    :param state_dir: the devnet's folder.
    :param action: ``up`` or ``down``.
    :return: ``make devnet-<action>`` for ``.devnet``, else the venv's module call with
        ``--state-dir`` (both run from the repository root; an installed CLI says so).
    """
    folder = shlex.quote(str(state_dir))
    module_call = f".venv/bin/python -m scripts.devnet --state-dir {folder} {action}"
    if DEFAULTS.checkout is None:
        return f"from a mech-catalogue checkout: {module_call}"
    if Path(state_dir).resolve() == DEFAULT_STATE_DIR.resolve():
        return f"make devnet-{action}"
    return module_call


def up_command(state_dir: Path) -> str:
    """Return the command that starts a devnet in ``state_dir`` (:func:`devnet_command`).

    :param state_dir: the devnet's folder.
    :return: the command line.
    """
    return devnet_command(state_dir, "up")


def down_command(state_dir: Path) -> str:
    """Return the command that stops the devnet in ``state_dir`` (:func:`devnet_command`).

    :param state_dir: the devnet's folder.
    :return: the command line.
    """
    return devnet_command(state_dir, "down")
