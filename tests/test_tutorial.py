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

"""docs/tutorial.md, followed as a mech author would: every command, in order, output checked.

The commands are taken from the tutorial's ```sh blocks in document order and run with
bash in a throwaway copy of the repository (a folder of symbolic links to its top-level
entries, so that ``my-mech/`` and the run's state land there, not in the checkout). A
```text block checks the output of the ```sh block before it: each of its lines must
appear in one output line, ``…`` standing for anything and runs of spaces compared as one
(rich's table padding). Comments on a command line set how it runs:

- ``# exits N``: the exit code expected (default 0);
- ``# keep it running``: started in the background (``make run``); its text block is
  awaited in its output, and it is stopped (SIGTERM, as Ctrl-C) at the end;
- ``# again until it answers``: rerun until its text block matches (one agent period).

What differs from a person at a terminal, and why:

- the venv is active (its ``bin/`` first on ``PATH``), as the tutorial asks after
  ``make setup``, so ``mech-catalogue`` is the installed console script;
- ``make setup`` is skipped: CI (``make test``) has just run it, and it must not reinstall
  the shared environment under other tests; ``make <target>`` runs as ``make -o setup
  <target>`` for the same reason;
- ``make run`` works in a temporary run folder (``$MECH_CATALOGUE_RUN_DIR``) and serves the
  agent's API on a free port instead of 8000 (``$MECH_CATALOGUE_HTTP_PORT``; the commands'
  ``127.0.0.1:8000`` is rewritten to it), so that it never meets a developer's own run.
  Everything else, ``--devnet`` finding that run's devnet included, is as printed.

Real components throughout: anvil with the registry contracts, kubo, and one agent on the
abci connection's mock Tendermint (as ``make run`` starts it). About 1-2 minutes.
"""

import os
import re
import signal
import subprocess  # nosec B404: runs the tutorial's own commands
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Dict, List, Optional

import pytest

from mech_catalogue_cli.devnet.locate import DEVNET_DIR_ENV, RUN_DIR_ENV
from scripts.devnet.devnet import Devnet, DevnetError
from scripts.devnet.processes import listen_port
from scripts.toolchain import REPO_ROOT

TUTORIAL = REPO_ROOT / "docs" / "tutorial.md"
DOC_PORT = "127.0.0.1:8000"
#: top-level entries not linked into the copy: state of the checkout's own runs, git, and
#: what the tutorial creates
NOT_LINKED = {".git", ".run", ".devnet", "my-mech"}
COMMAND_TIMEOUT = 120.0
BACKGROUND_TIMEOUT = 300.0
AGAIN_TIMEOUT = 240.0
ELLIPSIS = "…"

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
_EXITS = re.compile(r"#.*\bexits (\d+)")


@dataclass
class Command:
    """One command line of the tutorial.

    :param line: the line as printed (comment included; bash ignores it).
    :param exit_code: the exit code it should end with.
    :param background: started and left running (``# keep it running``).
    :param again: rerun until the block's expected output appears.
    """

    line: str
    exit_code: int = 0
    background: bool = False
    again: bool = False


@dataclass
class Block:
    """A ```sh block and the ```text block that follows it (if any).

    :param commands: its command lines, in order.
    :param expected: the lines its output must show.
    """

    commands: List[Command]
    expected: List[str] = field(default_factory=list)


def parse_tutorial(text: str) -> List[Block]:
    """Return the tutorial's sh blocks in order, each with the expected output after it.

    :param text: the markdown.
    :return: the blocks.
    """
    blocks: List[Block] = []
    for match in _FENCE.finditer(text):
        language, body = match.group(1), match.group(2)
        lines = [line for line in body.splitlines() if line.strip()]
        if language == "sh":
            commands = []
            for line in lines:
                exits = _EXITS.search(line)
                commands.append(
                    Command(
                        line,
                        int(exits.group(1)) if exits else 0,
                        "# keep it running" in line,
                        "# again until" in line,
                    )
                )
            blocks.append(Block(commands))
        elif language == "text" and blocks:
            blocks[-1].expected.extend(lines)
    return blocks


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def line_matches(expected: str, output: str) -> bool:
    """Tell whether one output line shows the expected line (``…`` = anything).

    :param expected: a line of a text block.
    :param output: the whole output.
    :return: True when some output line holds the expected parts, in order.
    """
    parts = [_squeeze(p) for p in expected.split(ELLIPSIS)]
    parts = [p for p in parts if p]
    for line in output.splitlines():
        line = _squeeze(line)
        position = 0
        for part in parts:
            found = line.find(part, position)
            if found < 0:
                break
            position = found + len(part)
        else:
            return True
    return False


def missing(expected: List[str], output: str) -> List[str]:
    """Return the expected lines the output does not show.

    :param expected: lines of a text block.
    :param output: the output.
    :return: those not found.
    """
    return [line for line in expected if not line_matches(line, output)]


def _copy_of_repository(folder: Path) -> Path:
    folder.mkdir()
    for entry in REPO_ROOT.iterdir():
        if entry.name not in NOT_LINKED:
            (folder / entry.name).symlink_to(entry)
    return folder


def _as_run_here(line: str, port: int) -> Optional[str]:
    """Return the line as this test runs it (see the module docstring), None to skip it."""
    line = line.replace(DOC_PORT, f"127.0.0.1:{port}")
    command = line.split("#", 1)[0].strip()
    if command == "make setup":
        return None
    if command.startswith("make "):
        return "make -o setup " + line[len("make ") :]
    return line


@dataclass
class Background:
    """The ``make run`` the tutorial leaves running."""

    process: subprocess.Popen
    log: Path
    handle: IO[bytes]

    def output(self) -> str:
        """:return: what it printed so far."""
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self, run_dir: Path) -> None:
        """SIGTERM its process group (Ctrl-C); make run then stops agent and devnet.

        :param run_dir: its run folder (a devnet left behind is stopped by its pids).
        """
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=90)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        self.handle.close()
        try:
            Devnet.attach(run_dir / "devnet").stop()
        except DevnetError:
            pass  # stopped by make run, as it should be


def _run(line: str, cwd: Path, env: Dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(  # nosec B603 B607: the tutorial's command, run as printed
        ["bash", "-c", line],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )


def test_tutorial_parses_into_the_author_journey() -> None:
    """The tutorial holds the whole journey, in order, with output to check for each step."""
    blocks = parse_tutorial(TUTORIAL.read_text(encoding="utf-8"))
    lines = [command.line for block in blocks for command in block.commands]
    journey = ["make setup", "make run", " derive ", " generate ", " validate "]
    journey += [" publish ", " list --devnet", "curl "]
    positions = [
        next(i for i, l in enumerate(lines) if step in f" {l}") for step in journey
    ]
    assert positions == sorted(positions), lines
    unchecked = [
        c.line for b in blocks if not b.expected for c in b.commands
    ]  # only set-up steps print nothing worth checking
    assert all(line == "make setup" or line.startswith("cp ") for line in unchecked)
    assert sum(c.background for b in blocks for c in b.commands) == 1


@pytest.mark.parametrize(
    "expected,output,found",
    [
        ("│ a │ any │ … │", "│ a      │ any  │ yes  │", True),
        ("valid …: 2 tool(s)", "valid my-mech/m.json: 2 tool(s), 0 warning(s)", True),
        ("b … a", "a b", False),
        ("x", "y\nz", False),
    ],
)
def test_expected_lines_match_as_documented(
    expected: str, output: str, found: bool
) -> None:
    """``…`` stands for anything, parts keep their order, padding is one space."""
    assert line_matches(expected, output) is found


def test_tutorial_commands_run_in_order_with_the_documented_output(
    tmp_path: Path,
) -> None:
    """Every command of docs/tutorial.md, run in order against the devnet and agent it starts."""
    blocks = parse_tutorial(TUTORIAL.read_text(encoding="utf-8"))
    clone = _copy_of_repository(tmp_path / "clone")
    run_dir = tmp_path / "run"
    port = listen_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MECH_CATALOGUE_")}
    env.pop("PYTHONPATH", None)
    # the venv activated, as the tutorial asks after `make setup` (mech-catalogue on PATH)
    venv_bin = Path(sys.executable).parent
    env["PATH"] = f"{venv_bin}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv_bin.parent)
    env.update({RUN_DIR_ENV: str(run_dir), "MECH_CATALOGUE_HTTP_PORT": str(port)})
    assert DEVNET_DIR_ENV not in env
    background: Optional[Background] = None
    try:
        for block in blocks:
            expected = [
                e.replace(DOC_PORT, f"127.0.0.1:{port}") for e in block.expected
            ]
            outputs = []
            for command in block.commands:
                line = _as_run_here(command.line, port)
                if line is None:
                    continue
                if command.background:
                    log = tmp_path / "make-run.log"
                    handle = log.open("wb")  # pylint: disable=consider-using-with
                    background = Background(
                        subprocess.Popen(  # nosec B603 B607 # pylint: disable=consider-using-with
                            ["bash", "-c", line],
                            cwd=clone,
                            env=env,
                            stdout=handle,
                            stderr=subprocess.STDOUT,
                            start_new_session=True,
                        ),
                        log,
                        handle,
                    )
                    _await(background, expected)
                    expected = []
                    continue
                deadline = time.monotonic() + (AGAIN_TIMEOUT if command.again else 0)
                while True:
                    result = _run(line, clone, env)
                    text = result.stdout + result.stderr
                    if not command.again or not missing(expected, text):
                        break
                    if time.monotonic() > deadline:
                        break
                    time.sleep(3)
                assert (
                    result.returncode == command.exit_code
                ), f"{command.line}\nexit {result.returncode}\n{text}" + (
                    f"\nmake run:\n{background.output()[-3000:]}" if background else ""
                )
                outputs.append(text)
            absent = missing(expected, "\n".join(outputs))
            assert not absent, (
                f"{[c.line for c in block.commands]} did not print {absent}:\n"
                + "\n".join(outputs)
            )
    finally:
        if background is not None:
            background.stop(run_dir)
    assert background is not None
    assert "and devnet stopped" in background.output()  # what this run started


def _await(background: Background, expected: List[str]) -> None:
    deadline = time.monotonic() + BACKGROUND_TIMEOUT
    while missing(expected, background.output()):
        if background.process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(
                f"make run did not print {missing(expected, background.output())}:\n"
                f"{background.output()[-4000:]}"
            )
        time.sleep(1)
