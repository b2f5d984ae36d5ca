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

"""A second ``make run`` in the same work folder: the right advice, no stop messages.

The first run's devnet is stood in for by a ``devnet.json`` whose anvil is a live process
named ``anvil`` (``sleep`` started under that name, what the devnet's pid check reads):
starting a real devnet and agents is not needed to see what the second run says, and the
stand-in must still be alive afterwards (the second run stops nothing of the first).
"""

import json
import os
import subprocess  # nosec B404: this checkout's own module
import sys
from pathlib import Path
from typing import Iterator

import pytest

from scripts.run_local.runner import (
    LocalRun,
    RunInUse,
    in_use_message,
    spoken_list,
    started_parts,
)
from scripts.toolchain import REPO_ROOT


def record(folder: Path, pid: int) -> None:
    """Write a devnet.json naming ``pid`` as anvil's and kubo's.

    :param folder: the devnet folder (exists).
    :param pid: the process id recorded.
    """
    info = {
        "state_dir": str(folder),
        "chain_id": 31337,
        "rpc_url": "http://127.0.0.1:9",
        "anvil_pid": pid,
        "ipfs_api_url": "http://127.0.0.1:9",
        "ipfs_api_multiaddr": "/ip4/127.0.0.1/tcp/9/http",
        "ipfs_gateway_url": "http://127.0.0.1:9",
        "ipfs_pid": pid,
        "ipfs_path": str(folder / "ipfs"),
        "accounts": {},
        "contracts": {},
    }
    (folder / "devnet.json").write_text(json.dumps(info), encoding="utf-8")


@pytest.fixture(name="first_run")
def fixture_first_run(tmp_path: Path) -> Iterator[Path]:
    """A work folder whose devnet runs (another run's).

    :param tmp_path: pytest's.
    :yield: the work folder.
    """
    work = tmp_path / "work"
    (work / "devnet").mkdir(parents=True)
    with subprocess.Popen(  # nosec B603 B607: a fixed sleep
        ["anvil", "120"], executable="/bin/sleep"
    ) as anvil:
        record(work / "devnet", anvil.pid)
        try:
            yield work
            assert anvil.poll() is None, "the second run stopped the first run's devnet"
        finally:
            anvil.kill()


def test_a_second_run_refuses_before_starting_anything(first_run: Path) -> None:
    """Refused with the advice; nothing written in the folder, the devnet untouched."""
    before = sorted(p.name for p in first_run.rglob("*"))
    run = LocalRun(agents=1, work_dir=first_run)
    with pytest.raises(RunInUse) as refused:
        run.start()
    assert str(refused.value) == in_use_message(first_run)
    assert "Ctrl-C it or pass --work-dir DIR" in str(refused.value)
    assert "devnet-down" not in str(refused.value)
    assert run.started() == []
    assert sorted(p.name for p in first_run.rglob("*")) == before


def test_the_command_says_so_and_prints_no_stop_messages(first_run: Path) -> None:
    """`python -m scripts.run_local` (what `make run` runs): one reason, exit 1."""
    env = {k: v for k, v in os.environ.items() if k != "MECH_CATALOGUE_RUN_DIR"}
    done = subprocess.run(  # nosec B603: fixed module
        [sys.executable, "-m", "scripts.run_local", "--work-dir", str(first_run)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 1, out
    assert f"another run is using {first_run}: Ctrl-C it or pass --work-dir DIR" in out
    assert "MECH_CATALOGUE_RUN_DIR=DIR make run" in out
    assert "stopping" not in out and "stopped" not in out, out
    assert "devnet-down" not in out and "stop it first" not in out, out


@pytest.mark.parametrize(
    "flags,said",
    [
        ((False, False, False), ""),
        ((True, False, False), "agents"),
        ((True, False, True), "agents and devnet"),
        ((True, True, True), "agents, Tendermint and devnet"),
        ((False, False, True), "devnet"),
    ],
)
def test_stop_messages_name_only_what_was_started(
    flags: "tuple[bool, bool, bool]", said: str
) -> None:
    """A given devnet, or a failure before the agents, is not said to be stopped."""
    assert spoken_list(started_parts(*flags)) == said


def test_a_fresh_folder_is_not_in_use(tmp_path: Path) -> None:
    """No devnet.json, or one whose processes are gone (a crashed run): not in use."""
    from scripts.run_local.runner import (  # pylint: disable=import-outside-toplevel
        devnet_runs_in,
    )

    assert not devnet_runs_in(tmp_path / "devnet")
    with subprocess.Popen(["true"]) as gone:  # nosec B603 B607: an exited pid
        gone.wait()
    (tmp_path / "devnet").mkdir()
    record(tmp_path / "devnet", gone.pid)  # a run that crashed left it behind
    assert not devnet_runs_in(tmp_path / "devnet")
