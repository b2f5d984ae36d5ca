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


"""Stopping ``make run``: stuck agents are stopped together, and a second Ctrl-C cannot cut it short."""

import os
import signal
import subprocess  # nosec B404
import sys
import time
from pathlib import Path
from typing import List

from scripts.devnet.processes import is_alive
from scripts.run_local.__main__ import spoken_summary, stop_uninterrupted
from scripts.run_local.agents import AgentPorts, AgentProcess, stop_agents

#: an agent that ignores aea's clean-shutdown signal, noting when each signal arrived
STUCK_AGENT = """
import signal, sys, time
log = open(sys.argv[1], "a", buffering=1)
def on_int(signum, frame):
    log.write(f"int {time.monotonic()}\\n")
def on_term(signum, frame):
    log.write(f"term {time.monotonic()}\\n")
    sys.exit(0)
signal.signal(signal.SIGINT, on_int)
signal.signal(signal.SIGTERM, on_term)
log.write("ready\\n")
while True:
    time.sleep(0.05)
"""


def _stuck_agents(tmp_path: Path, count: int) -> List[AgentProcess]:
    agents = []
    for index in range(count):
        log = tmp_path / f"agent_{index}.signals"
        child = subprocess.Popen(  # nosec B603 # pylint: disable=consider-using-with
            [sys.executable, "-c", STUCK_AGENT, str(log)]
        )
        agents.append(
            AgentProcess(
                name=f"agent_{index}",
                agent_dir=tmp_path / f"agent_{index}",
                address="0x" + "00" * 20,
                ports=AgentPorts(0, 0, 0, 0, 0),
                pid=child.pid,
            )
        )
    for index in range(count):
        log = tmp_path / f"agent_{index}.signals"
        deadline = time.monotonic() + 30
        while "ready" not in (log.read_text() if log.exists() else ""):
            assert time.monotonic() < deadline, "the stand-in agent did not start"
            time.sleep(0.05)
    return agents


def _signals(tmp_path: Path, index: int) -> List[tuple]:
    lines = (tmp_path / f"agent_{index}.signals").read_text().split()
    return [
        (lines[i], float(lines[i + 1]))
        for i in range(len(lines))
        if lines[i] in ("int", "term")
    ]


def test_stuck_agents_are_asked_together_then_forced(tmp_path: Path) -> None:
    """Every stuck agent gets SIGINT before any is forced, and none is left running."""
    agents = _stuck_agents(tmp_path, 3)
    stop_agents(agents, timeout=1.0)
    assert not any(is_alive(agent.pid) for agent in agents)
    received = [_signals(tmp_path, index) for index in range(3)]
    interrupts = [t for signals in received for kind, t in signals if kind == "int"]
    terminations = [t for signals in received for kind, t in signals if kind == "term"]
    assert len(interrupts) == 3 and len(terminations) == 3
    assert max(interrupts) < min(terminations)


def test_stopping_agents_that_already_exited_or_never_started_is_quiet(
    tmp_path: Path,
) -> None:
    """A run stopped before its agents started, or after they died, stops without error."""
    agents = _stuck_agents(tmp_path, 1)
    pid = agents[0].pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    never_started = AgentProcess(
        name="agent_1",
        agent_dir=tmp_path,
        address="0x" + "00" * 20,
        ports=AgentPorts(0, 0, 0, 0, 0),
    )
    stop_agents([agents[0], never_started], timeout=0.5)
    assert not is_alive(pid)


def test_a_second_ctrl_c_does_not_cut_the_stop_short(tmp_path: Path) -> None:
    """Ctrl-C arriving while everything is being stopped is ignored; handlers come back after."""
    agents = _stuck_agents(tmp_path, 2)
    handler_before = signal.getsignal(signal.SIGINT)

    def stop_with_a_ctrl_c_in_the_middle() -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.1)  # let the signal be delivered while stopping
        stop_agents(agents, timeout=0.5)

    stop_uninterrupted(stop_with_a_ctrl_c_in_the_middle)
    assert not any(is_alive(agent.pid) for agent in agents)
    assert signal.getsignal(signal.SIGINT) is handler_before


def test_ctrl_c_stops_a_run_started_with_sigint_ignored() -> None:
    """SIGINT and SIGTERM reach the stop path even when SIGINT came in ignored.

    A run launched from a script or in the background inherits SIGINT as ignored.
    """
    probe = (
        "import os, signal\n"
        "from scripts.run_local.__main__ import install_stop_signals\n"
        "install_stop_signals()\n"
        "for signum in (signal.SIGINT, signal.SIGTERM):\n"
        "    try:\n"
        "        os.kill(os.getpid(), signum)\n"
        "        import time; time.sleep(1)\n"
        "        print('ignored', int(signum))\n"
        "    except KeyboardInterrupt:\n"
        "        print('stopping', int(signum))\n"
    )
    result = subprocess.run(  # nosec B603
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),  # nosec B605
        cwd=Path(__file__).resolve().parents[1],
    )
    assert result.stdout.split("\n")[:2] == [
        f"stopping {int(signal.SIGINT)}",
        f"stopping {int(signal.SIGTERM)}",
    ]


def test_the_closing_summary_is_one_spoken_line() -> None:
    """The phases, the first catalogue and the periods are said; the digests are not."""
    said = spoken_summary(
        {
            "timings": {"devnet": 4.25, "agents": 3.0},
            "digests": {"agent_0": ["ab" * 32]},
            "first_catalogue_after_start_s": 13.84,
            "periods": 12,
            "period_s": 5.04,
        }
    )
    assert said == (
        "timings: devnet 4.2 s, agents 3.0 s; first catalogue 13.8 s after the start; "
        "12 periods, 5.0 s each on average"
    )
    assert "{" not in said and "ab" * 32 not in said


def test_a_run_stopped_before_its_agents_says_so() -> None:
    """No phase recorded, no catalogue, no period: the line still reads."""
    assert spoken_summary({"timings": {}, "periods": 0}) == "timings: none recorded"
