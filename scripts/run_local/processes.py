"""Start a detached child process in a folder with an exact environment."""

import subprocess  # nosec B404: starts the aea CLI and the pinned Tendermint only
from pathlib import Path
from typing import Dict, List


def spawn_in(args: List[str], cwd: Path, env: Dict[str, str], log_path: Path) -> int:
    """Start ``args`` in ``cwd`` in its own session, stdout and stderr appended to ``log_path``.

    Stop it with ``scripts.devnet.processes.stop_pid`` (by pid, never by name).

    :param args: the command line.
    :param cwd: its working folder.
    :param env: its whole environment.
    :param log_path: file receiving its output.
    :return: the pid.
    """
    with open(log_path, "ab") as log:
        process = subprocess.Popen(  # nosec B603 # pylint: disable=consider-using-with
            args,
            cwd=cwd,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
    return process.pid
