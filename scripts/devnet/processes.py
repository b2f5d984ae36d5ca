"""Free loopback ports, detached child processes, and stopping them by pid."""

import os
import signal
import socket
import subprocess  # nosec B404: starts the pinned devnet tools only
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional


class ProcessError(RuntimeError):
    """A devnet process could not be started or did not become ready."""


def free_port(host: str) -> int:
    """Return a TCP port that is free on ``host`` right now.

    :param host: a loopback address, e.g. ``127.0.0.1`` or ``127.0.0.2``.
    :return: the port number the kernel picked.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def spawn(args: List[str], log_path: Path, env: Optional[Dict[str, str]] = None) -> int:
    """Start ``args`` detached (own session) with stdout and stderr to ``log_path``.

    The process outlives this Python process, so ``devnet up`` can exit; stop it with
    :func:`stop_pid`.

    :param args: the command line.
    :param log_path: file receiving the process's output.
    :param env: extra environment variables.
    :return: the pid.
    """
    full_env = dict(os.environ)
    full_env.update(env or {})
    with open(log_path, "ab") as log:
        process = subprocess.Popen(  # nosec B603 # pylint: disable=consider-using-with
            args,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=full_env,
            start_new_session=True,
        )
    return process.pid


def runs_program(pid: int, program: str) -> bool:
    """Tell whether ``pid`` runs ``program`` (basename of argv[0], from /proc).

    Guards against signalling an unrelated process that reused a stale recorded pid.

    :param pid: a process id.
    :param program: e.g. ``anvil`` or ``ipfs``.
    :return: ``True`` when argv[0]'s basename is ``program`` (or /proc is unavailable).
    """
    cmdline = Path(f"/proc/{pid}/cmdline")
    try:
        argv0 = cmdline.read_bytes().split(b"\0", 1)[0].decode(errors="replace")
    except FileNotFoundError:
        return not Path("/proc/self").exists()
    except OSError:
        return False
    return Path(argv0).name == program


def is_alive(pid: Optional[int], program: Optional[str] = None) -> bool:
    """Tell whether ``pid`` is a running (not zombie) process, running ``program`` if given.

    :param pid: a process id, or ``None``.
    :param program: the expected program name (see :func:`runs_program`).
    :return: ``True`` when it runs.
    """
    if not pid:
        return False
    if program is not None and not runs_program(pid, program):
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        try:
            state = (
                stat.read_text(encoding="ascii", errors="replace")
                .rsplit(")", 1)[1]
                .split()[0]
            )
        except (OSError, IndexError):
            return True
        return state != "Z"
    return True


def _reap(pid: int) -> None:
    """Collect ``pid`` if it is our child, so it does not linger as a zombie."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


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
