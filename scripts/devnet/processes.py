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

"""Free loopback ports, detached child processes, and stopping them by pid.

The one process spawner of the developer tooling: the devnet (anvil, kubo) and ``make run``
(agents, Tendermint nodes) start their processes here.
"""

import os
import random
import signal
import socket
import subprocess  # nosec B404: starts the pinned devnet tools only
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Set

from mech_catalogue_cli.devnet.pids import is_alive, runs_program

__all__ = [
    "ProcessError",
    "can_listen",
    "free_port",
    "is_alive",
    "listen_port",
    "runs_program",
    "spawn",
    "stop_pid",
    "wait_until",
]


class ProcessError(RuntimeError):
    """A devnet process could not be started or did not become ready."""


def can_listen(host: str, port: int) -> bool:
    """Say whether a server could listen on ``host:port`` now.

    The probe sets ``SO_REUSEADDR`` as the servers we start do (asyncio's, so aiohttp's
    and the agent's HTTP server; Go's net.Listen, so Tendermint and kubo): a port that
    only holds TIME-WAIT connections of a server stopped a moment ago is free for them,
    while a port some process listens on is still refused. Without it, restarting
    `make run` within a minute moved the catalogue API off its port.

    :param host: a loopback address.
    :param port: the TCP port.
    :return: True when a listening socket can be bound there.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str) -> int:
    """Return a TCP port that is free on ``host`` right now.

    :param host: a loopback address, e.g. ``127.0.0.1`` or ``127.0.0.2``.
    :return: the port number the kernel picked.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def spawn(
    args: List[str],
    log_path: Path,
    env: Optional[Dict[str, str]] = None,
    *,
    cwd: Optional[Path] = None,
    inherit_env: bool = True,
) -> int:
    """Start ``args`` detached (own session) with stdout and stderr appended to ``log_path``.

    The process outlives this Python process, so ``devnet up`` can exit; stop it with
    :func:`stop_pid` (by pid, never by name).

    :param args: the command line.
    :param log_path: file receiving the process's output.
    :param env: environment variables: added to this process's environment, or the whole
        environment when ``inherit_env`` is False (an agent or Tendermint node of
        ``make run``, which must not see the caller's variables).
    :param cwd: its working folder (default: this process's).
    :param inherit_env: whether ``env`` extends this process's environment.
    :return: the pid.
    """
    full_env = dict(os.environ) if inherit_env else {}
    full_env.update(env or {})
    with open(log_path, "ab") as log:
        process = subprocess.Popen(  # nosec B603 # pylint: disable=consider-using-with
            args,
            cwd=cwd,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=full_env,
            start_new_session=True,
        )
    return process.pid


def _reap(pid: int) -> None:
    """Collect ``pid`` if it is our child, so it does not linger as a zombie."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


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
        if not can_listen(host, port):
            continue
        _taken.add(port)
        return port
    raise RuntimeError(
        f"no free port in {LISTEN_PORTS.start}-{LISTEN_PORTS.stop - 1} on {host}"
    )


def stop_pid(
    pid: Optional[int], program: Optional[str] = None, timeout: float = 10.0
) -> None:
    """Stop one process: SIGTERM, wait up to ``timeout`` seconds, then SIGKILL.

    Only the recorded pid is signalled, never a process group or a name; with
    ``program`` it is signalled only if it still runs that program.

    :param pid: the pid recorded when the process was started, or ``None``.
    :param program: the expected program name, e.g. ``anvil``.
    :param timeout: seconds to wait after SIGTERM.
    """
    if not pid or not is_alive(pid, program):
        if pid:
            _reap(pid)
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _reap(pid)
        if not is_alive(pid):
            return
        time.sleep(0.05)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 5.0
    while is_alive(pid) and time.monotonic() < deadline:
        _reap(pid)
        time.sleep(0.02)


def wait_until(
    ready: Callable[[], bool], timeout: float, what: str, pid: int, log_path: Path
) -> None:
    """Poll ``ready()`` until it returns ``True``.

    :param ready: a cheap probe, returning ``False`` (or raising) while not ready.
    :param timeout: seconds before giving up.
    :param what: name of the service, for the error message.
    :param pid: the process being waited for; if it dies the wait stops early.
    :param log_path: its log, quoted in the error.
    :raises ProcessError: when the process exits or the timeout passes.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if ready():
                return
        except Exception:  # pylint: disable=broad-except  # nosec B110: not ready yet
            pass
        if not is_alive(pid):
            break
        time.sleep(0.05)
    tail = log_path.read_text(errors="replace")[-2000:] if log_path.exists() else ""
    raise ProcessError(
        f"{what} (pid {pid}) did not become ready in {timeout:.0f} s; log {log_path}:\n{tail}"
    )
