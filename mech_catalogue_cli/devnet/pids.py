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

"""Whether a recorded pid still runs a given program (``devnet.json`` records anvil's and kubo's).

The CLI's ``--devnet`` needs this to tell a running devnet from a stopped one; the devnet
and ``make run`` (scripts/devnet/processes.py) use it to stop only their own processes.
"""

import os
import time
from pathlib import Path
from typing import Optional

#: how long an empty /proc/<pid>/cmdline is read again: a process that ``Popen`` has just
#: returned may still be inside ``execve`` for a few milliseconds, with no command line yet
EXEC_SETTLE_SECONDS = 1.0


def process_state(pid: int) -> Optional[str]:
    """Read a process's state letter from ``/proc/<pid>/stat`` (``R``, ``S``, ``Z``...).

    :param pid: a process id.
    :return: the letter, or ``None`` when the process is gone or /proc cannot say.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
        return stat.rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def runs_program(pid: int, program: str) -> bool:
    """Tell whether ``pid`` runs ``program`` (basename of argv[0], from /proc).

    Guards against signalling an unrelated process that reused a stale recorded pid. A
    live process with an empty command line is in the middle of ``execve`` (just started):
    it is read again for up to :data:`EXEC_SETTLE_SECONDS` instead of being taken for
    another program, which left a just-started process running when it was stopped.

    :param pid: a process id.
    :param program: e.g. ``anvil`` or ``ipfs``.
    :return: ``True`` when argv[0]'s basename is ``program`` (or /proc is unavailable).
    """
    cmdline = Path(f"/proc/{pid}/cmdline")
    deadline = time.monotonic() + EXEC_SETTLE_SECONDS
    while True:
        try:
            raw = cmdline.read_bytes()
        except FileNotFoundError:
            return not Path("/proc/self").exists()
        except OSError:
            return False
        if raw or process_state(pid) in (None, "Z") or time.monotonic() > deadline:
            break
        time.sleep(0.005)
    argv0 = raw.split(b"\0", 1)[0].decode(errors="replace")
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
    if not Path("/proc/self").exists():
        return True
    state = process_state(pid)
    return state is not None and state != "Z"
