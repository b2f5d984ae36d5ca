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

"""The devnet responder's command line as a user meets it (no devnet needed).

``python -m scripts.devnet.responder`` finds the running devnet the way the CLI's
``--devnet`` does (``.devnet``, then ``make run``'s ``<run dir>/devnet``), shows no
docstring fields in ``--help``, and ends with a one-line error when the devnet is gone or
stops answering. A devnet whose chain is gone is made here from a ``devnet.json`` and a
live process named ``anvil`` (``sleep`` started under that name, so the CLI's rule takes
it for a running devnet) whose RPC address is a closed port: the real anvil is not
needed to show what happens once it stops answering.
"""

import json
import os
import subprocess  # nosec B404: runs this checkout's own module
import sys
from pathlib import Path
from typing import Dict, Iterator, List

import pytest

from scripts.toolchain import REPO_ROOT

MECH = "0x" + "11" * 20
#: a port nothing listens on
CLOSED = "http://127.0.0.1:9"


def responder(
    args: List[str], env: Dict[str, str]
) -> "subprocess.CompletedProcess[str]":
    """Run the responder's command line from the checkout.

    :param args: its arguments.
    :param env: extra environment variables.
    :return: the finished process.
    """
    environment = {
        k: v
        for k, v in os.environ.items()
        if k not in ("MECH_CATALOGUE_DEVNET_DIR", "MECH_CATALOGUE_RUN_DIR")
    }
    return subprocess.run(  # nosec B603: fixed module, test arguments
        [sys.executable, "-m", "scripts.devnet.responder", *args],
        cwd=REPO_ROOT,
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture(name="fake_anvil")
def fixture_fake_anvil() -> Iterator[int]:
    """A live process whose argv[0] is ``anvil``.

    :yield: its pid.
    """
    with subprocess.Popen(  # nosec B603 B607: a fixed sleep
        ["anvil", "120"], executable="/bin/sleep"
    ) as process:
        try:
            yield process.pid
        finally:
            process.kill()


def recorded(folder: Path, anvil_pid: int) -> Path:
    """Write a devnet.json whose chain and IPFS node are a closed port.

    :param folder: the devnet's folder (created).
    :param anvil_pid: the pid recorded as anvil's.
    :return: the folder.
    """
    folder.mkdir(parents=True)
    info = {
        "state_dir": str(folder),
        "chain_id": 31337,
        "rpc_url": CLOSED,
        "anvil_pid": anvil_pid,
        "ipfs_api_url": CLOSED,
        "ipfs_api_multiaddr": "/ip4/127.0.0.1/tcp/9/http",
        "ipfs_gateway_url": CLOSED,
        "ipfs_pid": anvil_pid,
        "ipfs_path": str(folder / "ipfs"),
        "accounts": {},
        "contracts": {"MechMarketplace": "0x" + "22" * 20},
    }
    (folder / "devnet.json").write_text(json.dumps(info), encoding="utf-8")
    return folder


def one_line_error(done: "subprocess.CompletedProcess[str]") -> str:
    """The error of a run that must fail in one line.

    :param done: the finished process.
    :return: its stderr line.
    """
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_help_shows_no_docstring_fields() -> None:
    """`--help` is for people: no `:param` or `:raises` text, the default rule said."""
    done = responder(["--help"], {})
    assert done.returncode == 0
    assert ":param" not in done.stdout and ":raises" not in done.stdout
    assert ".run/devnet" in done.stdout and "--devnet-dir" in done.stdout


def test_make_runs_devnet_is_found_without_options(
    tmp_path: Path, fake_anvil: int
) -> None:
    """`make run`'s devnet (<run dir>/devnet) is used; its stopped chain is one line."""
    run_dir = tmp_path / "run"
    folder = recorded(run_dir / "devnet", fake_anvil)
    done = responder(
        ["--mech", MECH, "--once"], {"MECH_CATALOGUE_RUN_DIR": str(run_dir)}
    )
    line = one_line_error(done)
    assert f"the devnet in {folder} stopped answering" in line
    assert CLOSED in line


@pytest.mark.parametrize("option", ["--devnet-dir", "--state-dir"])
def test_a_devnet_that_stopped_is_one_line(tmp_path: Path, option: str) -> None:
    """devnet.json left behind, anvil gone: the CLI's message, no traceback."""
    with subprocess.Popen(["true"]) as gone:  # nosec B603 B607: an exited pid
        gone.wait()
    folder = recorded(tmp_path / "devnet", gone.pid)
    line = one_line_error(
        responder(["--mech", MECH, "--once", option, str(folder)], {})
    )
    assert f"no running devnet in {folder}" in line
    assert "anvil has stopped" in line


def test_no_devnet_anywhere_names_both_folders(tmp_path: Path) -> None:
    """Neither `.devnet` nor `make run`'s folder runs one: both named, how to start."""
    line = one_line_error(
        responder(
            ["--mech", MECH, "--once"],
            {"MECH_CATALOGUE_RUN_DIR": str(tmp_path / "run")},
        )
    )
    assert "no running devnet in" in line and "run/devnet" in line
    assert "make devnet-up" in line
