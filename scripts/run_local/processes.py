"""Detached child processes in a folder with an exact environment, and listening ports."""

import random
import socket
import subprocess  # nosec B404: starts the aea CLI and the pinned Tendermint only
from pathlib import Path
from typing import Dict, List, Set


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


#: listening ports are taken below Linux's default ephemeral range (32768-60999): a port
#: the kernel handed out as free may be given to an outgoing connection (Tendermint peers
#: and ABCI dials make many) before the agent that was meant to listen on it starts
LISTEN_PORTS = range(20000, 32768)
_taken: Set[int] = set()


def listen_port(host: str = "127.0.0.1") -> int:
    """A port free on ``host`` now, outside the ephemeral range, not handed out before.

    :param host: a loopback address.
    :return: the port.
    :raises RuntimeError: when no port of :data:`LISTEN_PORTS` is free.
    """
    candidates = [port for port in LISTEN_PORTS if port not in _taken]
    random.shuffle(candidates)
    for port in candidates:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind((host, port))
            except OSError:
                continue
        _taken.add(port)
        return port
    raise RuntimeError(
        f"no free port in {LISTEN_PORTS.start}-{LISTEN_PORTS.stop - 1} on {host}"
    )
