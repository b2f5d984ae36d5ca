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

"""Fixtures and markers of the end-to-end tests.

``e2e4`` marks the four-agent test (four agents, four real Tendermint nodes): it takes a
few minutes, so it runs only when selected (``pytest -m e2e4`` or ``make e2e-4``).
"""

import os
import shutil
import time
from pathlib import Path
from typing import Callable, List, Optional, TypeVar

import pytest

from scripts.devnet.processes import is_alive
from scripts.run_local.runner import LocalRun
from scripts.run_local.view import AgentView, read_agent
from scripts.toolchain import REPO_ROOT

T = TypeVar("T")

E2E4 = "e2e4"
#: work folders of the end-to-end runs (git-ignored), one per pytest session so that
#: concurrent sessions never share agents; kept after the session for its logs, removed
#: by the next session once the owning process has exited
E2E_ROOT = REPO_ROOT / ".run" / "e2e"
E2E_DIR = E2E_ROOT / f"session-{os.getpid()}"


def log_tail(path: Path, lines: int = 40) -> str:
    """The end of a log, for failure messages.

    :param path: the log file.
    :param lines: how many lines.
    :return: the last lines (or a note that the file is missing).
    """
    if not path.exists():
        return f"({path} does not exist)"
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``e2e4`` marker; remove work folders of sessions that have ended.

    :param config: pytest's configuration.
    """
    for folder in E2E_ROOT.glob("session-*"):
        pid = folder.name.split("-", 1)[1]
        if pid.isdigit() and not is_alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
    config.addinivalue_line(
        "markers", f"{E2E4}: four agents with real Tendermint; run with -m {E2E4}"
    )


def pytest_collection_modifyitems(
    config: pytest.Config, items: List[pytest.Item]
) -> None:
    """Skip ``e2e4`` tests unless the marker expression selects them.

    :param config: pytest's configuration.
    :param items: the collected tests.
    """
    if E2E4 in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(
        reason=f"four-agent run: select it with `pytest -m {E2E4}` (make e2e-4)"
    )
    for item in items:
        if E2E4 in item.keywords:
            item.add_marker(skip)


def wait_for(
    probe: Callable[[], Optional[T]], timeout: float, what: str, interval: float = 1.0
) -> T:
    """Poll ``probe`` until it returns something truthy.

    :param probe: returns the awaited value, or None/False while not there yet.
    :param timeout: seconds before failing the test.
    :param what: what is awaited, for the failure message.
    :param interval: seconds between polls.
    :return: the probe's first truthy value.
    :raises Exception: pytest's ``Failed`` when the timeout passes (the test fails).
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(interval)
    raise pytest.fail.Exception(f"timed out after {timeout:.0f} s waiting for {what}")


def agent_views(run: LocalRun) -> List[AgentView]:
    """Read every agent of a multi-agent run, failing the test when one stopped.

    :param run: the run.
    :return: what each agent serves, agent order.
    """
    for process in run.processes:
        assert (
            process.alive()
        ), f"{process.name} stopped; {process.log_path}:\n{log_tail(process.log_path)}"
    assert (
        run.network is None or run.network.alive()
    ), "a Tendermint node's control server stopped"
    return [read_agent(process.name, process.http_url) for process in run.processes]
