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

"""The wheels, installed as a user installs them, against the session devnet.

The two wheels (``make dist``: scripts/dist.py, cached by the digest of their sources in
``~/.cache/mech-catalogue/dist/``) are installed with ``pip install`` (a full resolve on
PyPI, pip's cache making later runs quicker; without pip in the venv and without
byte-compiling, see :func:`_pip_install`) into a fresh venv in a temporary folder. Every command then runs from
that venv, in another temporary folder, with no PYTHONPATH: the checkout, its
``packages/`` and its ``.venv`` are out of reach. Nothing is mocked: the MCP server is
driven over stdio by the MCP SDK's own client, ``list`` reads the real devnet.
"""

import json
import os
import subprocess  # nosec B404: runs the venv's own interpreter and console script
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List

import anyio
import click
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mech_catalogue_core.chain.registry import selector

from mech_catalogue_cli import EXIT_INVALID, EXIT_OK
from mech_catalogue_cli.app import cli
from scripts.devnet import Devnet
from scripts.dist import cached_wheels
from tests.devnet.mcp_helpers import market_nonce

#: a tool the three devnet marketplace mechs offer with a typed schema
OFFERED_TOOL = "prediction-online"


@dataclass(frozen=True)
class Installed:
    """A fresh venv holding the two wheels, and where to run its command from.

    :param venv: the venv folder.
    :param elsewhere: a folder outside the checkout (the commands' working folder).
    :param state_home: ``$XDG_STATE_HOME`` of the commands (the per-user state folder).
    """

    venv: Path
    elsewhere: Path
    state_home: Path

    @property
    def command(self) -> str:
        """The installed ``mech-catalogue`` console script."""
        return str(self.venv / "bin" / "mech-catalogue")

    def env(self) -> Dict[str, str]:
        """Return a user's environment: no PYTHONPATH, the venv first on PATH.

        :return: the environment.
        """
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in {"PYTHONPATH", "VIRTUAL_ENV", "MECH_CATALOGUE_DEVNET_DIR"}
        }
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["XDG_STATE_HOME"] = str(self.state_home)
        return env

    def python(self, code: str) -> subprocess.CompletedProcess:
        """Run Python code with the venv's interpreter from :attr:`elsewhere`.

        :param code: the program.
        :return: the finished process (text output).
        """
        return self._run([str(self.venv / "bin" / "python"), "-c", code])

    def run(self, *args: str) -> subprocess.CompletedProcess:
        """Run the installed command from :attr:`elsewhere`.

        :param args: its arguments.
        :return: the finished process (text output).
        """
        return self._run([self.command, *args])

    def _run(self, argv: List[str]) -> subprocess.CompletedProcess:
        return subprocess.run(  # nosec B603: the venv's interpreter or console script
            argv,
            cwd=self.elsewhere,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )


def _pip_install(venv: Path, wheels: List[Path]) -> None:
    """Install the wheels into a new venv with a full resolve, as ``pip install`` does.

    Two steps of a user's install are left out, as neither decides what is installed:
    pip inside the venv (this interpreter's pip installs into it: ``--python``), and
    byte-compiling every installed module (the commands compile what they import).
    Measured side by side with a user's install (docs/testing.md): the file 181 s -> 160 s
    of wall time, 73 s -> 52 s of CPU.

    :param venv: the venv folder to create.
    :param wheels: the wheels to install.
    """
    subprocess.run(  # nosec B603: fixed arguments
        [sys.executable, "-m", "venv", "--without-pip", str(venv)],
        check=True,
        timeout=300,
    )
    # a user's environment: with the checkout on PYTHONPATH, pip would find the editable
    # installs' egg-info there and skip the wheels as "already satisfied"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(  # nosec B603: this interpreter's pip, our wheels
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
        + ["install", "--quiet", "--no-compile"]
        + [str(wheel) for wheel in wheels],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, f"pip install of the wheels failed:\n{done.stderr}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheels of the current sources, installed into a fresh venv in a temporary folder.

    :param tmp_path_factory: pytest's temporary folder factory.
    :return: the installation.
    """
    root = tmp_path_factory.mktemp("installed")
    _pip_install(root / "venv", cached_wheels())
    (root / "elsewhere").mkdir()
    return Installed(root / "venv", root / "elsewhere", root / "state")


def test_every_command_loads_from_the_wheels_alone(installed: Installed) -> None:
    """--help, and every command loaded, from the wheels alone.

    The console script's ``--help`` names every command; one interpreter of the venv
    loads each command (the lazily imported ``list``, ``mcp`` and ``publish`` included)
    and prints its help; neither the framework (aea, autonomy) nor the checkout
    (packages, scripts) is importable there, and both packages come from the venv.

    :param installed: the wheels in a fresh venv.
    """
    helped = installed.run("--help")
    assert helped.returncode == EXIT_OK, helped.stderr
    commands = cli.list_commands(click.Context(cli))  # the lazily loaded ones too
    assert {"list", "mcp", "publish", "validate"} <= set(commands)
    assert all(name in helped.stdout for name in commands)
    loaded = installed.python(
        "import importlib.util as u, click, json, mech_catalogue_cli as c\n"
        "import mech_catalogue_core as l\n"
        "from mech_catalogue_cli.app import cli\n"
        "ctx = click.Context(cli, info_name='mech-catalogue')\n"
        "helps = {n: bool(cli.get_command(ctx, n).get_help(ctx))\n"
        "         for n in cli.list_commands(ctx)}\n"
        "absent = [m for m in ('aea', 'autonomy', 'packages', 'scripts') if u.find_spec(m)]\n"
        "print(json.dumps([c.__file__, l.__file__, helps, absent]))\n"
    )
    assert loaded.returncode == EXIT_OK, loaded.stderr
    cli_file, library_file, helps, importable = json.loads(loaded.stdout)
    assert helps == {name: True for name in commands}
    site = installed.venv / "lib"
    assert Path(cli_file).is_relative_to(site)
    assert Path(library_file).is_relative_to(site)
    assert not importable


def _manifest(tool: str, description: Any) -> Dict[str, Any]:
    return {
        "name": "Installed check",
        "description": description,
        "inputFormat": "ipfs-v0.1",
        "outputFormat": "ipfs-v0.1",
        "tools": [tool],
        "toolMetadata": {
            tool: {
                "name": "Rain odds",
                "description": "Chance of rain tomorrow in a city.",
                "input": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
                "output": {"type": "object"},
            }
        },
    }


def test_validate_judges_manifests_from_the_wheels(installed: Installed) -> None:
    """Validate: a sound manifest exits 0 naming its tool; a broken one exits 1.

    The broken one's description is a list: the problem codes are the checkout CLI's.

    :param installed: the wheels in a fresh venv.
    """
    good = installed.elsewhere / "good.json"
    good.write_text(json.dumps(_manifest("rain-odds", "Chance of rain, by city.")))
    done = installed.run("--json", "validate", str(good))
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert json.loads(done.stdout)["tools"] == ["rain-odds"]
    bad = installed.elsewhere / "bad.json"
    bad.write_text(json.dumps(_manifest("rain-odds", ["Chance of rain"])))
    refused = installed.run("--json", "validate", str(bad))
    assert refused.returncode == EXIT_INVALID
    here = CliRunner().invoke(cli, ["--json", "validate", str(bad)], obj={})
    assert here.exit_code == EXIT_INVALID
    codes = {p["code"] for p in json.loads(refused.stdout)["problems"]}
    assert "wrong_type" in codes
    assert codes == {p["code"] for p in json.loads(here.stdout)["problems"]}


def test_list_reads_the_devnet_as_the_checkout_does(
    installed: Installed, devnet: Devnet
) -> None:
    """List --json --devnet-dir: the same catalogue JSON as the checkout's CLI prints.

    :param installed: the wheels in a fresh venv.
    :param devnet: the session devnet.
    """
    args = ["--json", "list", "--devnet-dir", str(devnet.info.state_dir)]
    done = installed.run(*args)
    assert done.returncode == EXIT_OK, done.stderr
    here = CliRunner().invoke(cli, args, obj={})
    assert here.exit_code == EXIT_OK, here.stderr
    listed = json.loads(done.stdout)
    assert listed["mechs"] and listed == json.loads(here.stdout)


def test_default_folders_are_the_users_not_site_packages(installed: Installed) -> None:
    """Installed, --devnet and mcp's journal default to the per-user state folder.

    The refusal names that folder and how to get a devnet; nothing points into
    site-packages (where a checkout's ``.devnet`` would land).

    :param installed: the wheels in a fresh venv.
    """
    user = installed.state_home / "mech-catalogue"
    missing = installed.run("--json", "list", "--devnet")
    assert missing.returncode == EXIT_INVALID
    message = json.loads(missing.stdout)["error"]["message"]
    assert str(user / "devnet") in message and "site-packages" not in message
    assert "--devnet-dir" in message and "checkout" in message
    named = installed.run("--json", "list", "--devnet-dir", str(user / "nowhere"))
    assert named.returncode == EXIT_INVALID
    said = json.loads(named.stdout)["error"]["message"]
    # leaving the folder out would not find a checkout's devnet from here
    assert "leave it out" not in said and "<checkout>/.devnet" in said
    helped = installed.run("mcp", "--help")
    assert str(user / "mcp") in " ".join(helped.stdout.split()).replace("- ", "-")


def test_mcp_over_stdio_from_the_wheels(
    installed: Installed, devnet: Devnet, tmp_path: Path
) -> None:
    """MCP over stdio, the SDK's client: the devnet's offered tools are listed.

    Calling an unknown tool is an error result and pays nothing (the requester's
    MechMarketplace nonce stays where it was).

    :param installed: the wheels in a fresh venv.
    :param devnet: the session devnet.
    :param tmp_path: the call journal's folder.
    """
    params = StdioServerParameters(
        command=installed.command,
        args=[
            "mcp",
            "--devnet-dir",
            str(devnet.info.state_dir),
            "--state-dir",
            str(tmp_path / "journal"),
        ],
        env=installed.env(),
        cwd=str(installed.elsewhere),
    )
    nonce = market_nonce(devnet)

    async def main() -> Any:
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            refused = await client.call_tool("no-such-tool", {})
            return tools, refused

    tools, refused = anyio.run(main)
    assert OFFERED_TOOL in {tool.name for tool in tools}
    assert all(tool.input_schema.get("type") == "object" for tool in tools)
    assert refused.is_error
    assert market_nonce(devnet) == nonce


def test_the_library_wheel_alone_imports_every_module_and_hashes(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """``pip install`` of the library's wheel alone gives a library that works whole.

    Installed beside the CLI, web3's dependencies hid that eth-utils' ``keccak`` needs a
    hashing backend the library did not declare: alone, ``chain.marketplace`` and
    ``chain.rpc_limits`` failed to import and every selector failed (a new user's
    report). Every module is imported here (the optional LangChain exporter only loads
    its SDK when asked), a selector is computed and a file of the catalogue page served.

    :param tmp_path_factory: pytest's temporary folder factory.
    """
    root = tmp_path_factory.mktemp("library")
    (library,) = [
        w for w in cached_wheels() if w.name.startswith("mech_catalogue_core")
    ]
    _pip_install(root / "venv", [library])
    (root / "elsewhere").mkdir()
    alone = Installed(root / "venv", root / "elsewhere", root / "state")
    done = alone.python(
        "import importlib, pkgutil, mech_catalogue_core\n"
        "for module in pkgutil.walk_packages(mech_catalogue_core.__path__, "
        "'mech_catalogue_core.'):\n"
        "    importlib.import_module(module.name)\n"
        "from mech_catalogue_core.chain.registry import selector\n"
        "print(selector('getHashes(uint256)').hex())\n"
        "from mech_catalogue_core.http_api.routes import route\n"
        "print(route('GET', '/catalogue/app.js', b'', None, 0.0, 1, 1.0).status_code)\n"
    )
    assert done.returncode == 0, done.stderr
    # the catalogue page's files are package data of the wheel, served from it
    assert done.stdout.split() == [selector("getHashes(uint256)").hex(), "200"]
