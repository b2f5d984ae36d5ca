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


"""``mech-catalogue --help`` starts without the commands' imports (issue 33 item 9).

The group's help listed each command's short help by importing every command module
(web3, eth-account, the MCP SDK, jsonschema, the exporters): 4-5 s on a loaded 2-CPU
machine for a help page. Checked by what a fresh interpreter has imported after the
help, not by timing (the figures are in the change's report).
"""

import json
import subprocess  # nosec B404: this interpreter, a fixed program
import sys
import tomllib
from pathlib import Path

import click

from mech_catalogue_cli.app import _LazyGroup, cli

ROOT = Path(__file__).resolve().parent.parent
#: what a help page must not import: each is a second or more of a loaded machine
HEAVY = (
    "web3",
    "eth_account",
    "mcp",
    "jsonschema",
    "uvicorn",
    "mech_catalogue_core.exporters",
    "mech_catalogue_core.model.untrusted_text",
)
PROGRAM = (
    "import atexit, json, sys\n"
    "atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
    "sys.argv = ['mech-catalogue', '--help']\n"
    "from mech_catalogue_cli.app import main\n"
    "main()\n"
)


def _imported_by_help(program: str = PROGRAM) -> set:
    done = subprocess.run(  # nosec B603: this interpreter, a fixed program
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Usage:" in done.stdout
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_the_group_help_imports_no_command_and_no_heavy_library() -> None:
    """After ``--help``: no commands/*_cmd module, none of :data:`HEAVY`."""
    modules = _imported_by_help()
    commands = sorted(
        m for m in modules if m.startswith("mech_catalogue_cli.commands.")
    )
    assert commands == []
    heavy = sorted(m for m in modules for h in HEAVY if m == h or m.startswith(h + "."))
    assert heavy == []


def test_the_mcp_help_imports_neither_the_mcp_sdk_nor_the_server() -> None:
    """``mcp --help`` reads its choices and defaults from a light module.

    The MCP SDK, uvicorn and the server's modules load once the options are read (the
    help took 1.8 s of an idle machine with them, 1.0 s without).
    """
    modules = _imported_by_help(PROGRAM.replace("'--help'", "'mcp', '--help'"))
    assert "mech_catalogue_cli.commands.mcp_cmd" in modules
    server = {"mcp", "uvicorn", "mech_catalogue_cli.mcp_server.server"}
    assert sorted(m for m in modules if m.split(".")[0] in server or m in server) == []
    assert "mech_catalogue_cli.mcp_server.market" not in modules


def test_each_summary_is_the_start_of_its_command_s_help() -> None:
    """The group lists every command, each summary the opening words of its own help."""
    assert set(_LazyGroup.summaries) == set(_LazyGroup.lazy)
    ctx = click.Context(cli)
    for name, summary in _LazyGroup.summaries.items():
        command = cli.get_command(ctx, name)
        assert command is not None and command.help, name
        assert " ".join(command.help.split()).startswith(summary), name


def test_version_prints_the_installed_distribution_s_version() -> None:
    """``--version``: the name and the version pyproject.toml gives, no command imported."""
    expected = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    program = PROGRAM.replace("'--help'", "'--version'")
    done = subprocess.run(  # nosec B603: this interpreter, a fixed program
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    project = expected["project"]
    assert done.stdout == f"{project['name']} {project['version']}\n"
    modules = json.loads(done.stderr.strip().splitlines()[-1])
    assert not [m for m in modules if m.startswith("mech_catalogue_cli.commands.")]
