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
from pathlib import Path
from typing import Optional


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
