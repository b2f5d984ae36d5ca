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

"""Process handling of the devnet: free ports, stopping by pid, readiness errors."""

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.devnet.processes import (
    ProcessError,
    free_port,
    is_alive,
    spawn,
    stop_pid,
    wait_until,
)

IGNORE_SIGTERM = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2"])
def test_free_port_can_be_bound(host):
    """The port returned is bindable on that loopback address."""
    port = free_port(host)
    with socket.socket() as sock:
        sock.bind((host, port))


def test_stop_pid_kills_a_process_that_ignores_sigterm(tmp_path):
    """After the timeout SIGKILL follows; the process is gone."""
    log = tmp_path / "stubborn.log"
    pid = spawn([sys.executable, "-c", IGNORE_SIGTERM], log)
    wait_until(lambda: "ready" in log.read_text(), 10, "stubborn", pid, log)
    stop_pid(pid, timeout=0.3)
    assert not is_alive(pid)


def test_stop_pid_tolerates_dead_and_missing_pids():
    """Stopping nothing, or an exited process, is a no-op."""
    done = subprocess.run([sys.executable, "-c", "pass"], check=True)
    assert done.returncode == 0
    stop_pid(None)
    assert not is_alive(None)


def test_wait_until_reports_a_dead_process_with_its_log(tmp_path):
    """A process that exits before being ready fails fast, quoting its log."""
    log = tmp_path / "dying.log"
    pid = spawn([sys.executable, "-c", "print('bind: address already in use')"], log)
    with pytest.raises(ProcessError, match="address already in use"):
        wait_until(lambda: False, 10, "dying", pid, log)


def test_stop_pid_leaves_a_pid_running_another_program(tmp_path):
    """A recorded pid now running something else (pid reuse) is not signalled."""
    log = tmp_path / "other.log"
    pid = spawn([sys.executable, "-c", "import time; time.sleep(60)"], log)
    try:
        stop_pid(pid, "anvil", timeout=0.1)
        assert is_alive(pid) and not is_alive(pid, "anvil")
    finally:
        stop_pid(pid, Path(sys.executable).name, timeout=5)
    assert not is_alive(pid)


def test_a_process_seen_inside_execve_is_still_stopped(tmp_path, monkeypatch):
    """/proc shows an empty command line while execve runs: read again, then stopped.

    The window lasts milliseconds and cannot be produced on demand, so the first three
    reads of this process's command line are made empty (as the kernel shows it then);
    before the fix the process was taken for another program and left running.

    :param tmp_path: the process's log folder.
    :param monkeypatch: makes the first reads of the command line empty.
    """
    pid = spawn([sys.executable, "-c", "import time; time.sleep(60)"], tmp_path / "l")
    cmdline, read_bytes = Path(f"/proc/{pid}/cmdline"), Path.read_bytes
    empty = iter([b"", b"", b""])

    def mid_exec(path: Path) -> bytes:
        if path == cmdline:
            shown = next(empty, None)
            if shown is not None:
                return shown
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", mid_exec)
    try:
        stop_pid(pid, Path(sys.executable).name, timeout=5)
        assert not is_alive(pid)
    finally:
        monkeypatch.undo()
        stop_pid(pid, timeout=1)


def test_processes_stopped_right_after_start_are_gone(tmp_path):
    """Fifty processes, each stopped as soon as spawn returns: none is left running."""
    left = []
    for n in range(50):
        pid = spawn(
            [sys.executable, "-c", "import time; time.sleep(60)"], tmp_path / f"{n}"
        )
        stop_pid(pid, Path(sys.executable).name, timeout=5)
        if is_alive(pid):
            left.append(pid)
            stop_pid(pid, timeout=1)
    assert not left
