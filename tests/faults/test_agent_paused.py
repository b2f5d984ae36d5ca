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

"""Agent-level fault: the agent process paused past the block stall tolerance, and hard resets.

One tool metadata agent (``scripts.run_local``, the abci connection's mock Tendermint) on
the session devnet, resetting Tendermint at the end of every period
(``RESET_TENDERMINT_AFTER=1``; the runner's default for the mock is never). Both faults
restart the mock's heights at 1 without ``init_chain``; before the skill's ABCI handler
followed such a chain, the first stopped the agent (``AddBlockError: expected height 8, got
1``) and the second left it in registration for ever.
"""

import os
import signal
import time
from typing import Callable, Iterator, List, Optional

import pytest
from web3.types import RPCEndpoint

from packages.valory.skills.abstract_round_abci.base import BLOCKS_STALL_TOLERANCE

from scripts.devnet import Devnet, RegisteredManifest
from scripts.run_local.runner import LocalRun
from scripts.run_local.view import AgentView
from tests.e2e.conftest import wait_for
from tests.e2e.test_one_agent import _view  # the same probe as the e2e tests
from tests.faults.one_agent import add_probe_manifest, one_agent, served_legacy_mech

START_TIMEOUT = 180.0
PERIOD_TIMEOUT = 120.0
#: longer than abstract_round_abci's tolerance, so the agent asks the mock for a gentle reset
PAUSE_SECONDS = BLOCKS_STALL_TOLERANCE + 15
PROBE_TOOL = "faults-paused-agent-probe"
STALL_WARNING = "The local deadline for the next `begin_block` request"


@pytest.fixture(scope="module")
def resetting_agent(
    devnet: Devnet, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalRun]:
    """One agent that hard-resets its (mock) Tendermint every period.

    :param devnet: the session devnet.
    :param tmp_path_factory: pytest's temporary folders.
    :yield: the running agent.
    """
    with one_agent(
        devnet, tmp_path_factory.mktemp("agent_paused"), RESET_TENDERMINT_AFTER="1"
    ) as run:
        yield run


def _period(view: AgentView) -> int:
    return int(view.health.get("period", 0))


def _after_period(run: LocalRun, period: int) -> Optional[AgentView]:
    view = _view(run)
    return view if view.has_catalogue and _period(view) >= period else None


def _log(run: LocalRun) -> str:
    return run.processes[0].log_path.read_text(encoding="utf-8", errors="replace")


@pytest.mark.long_faults
def test_hard_reset_every_period_keeps_the_mock_agent_going(
    resetting_agent: LocalRun,
) -> None:
    """Three periods, each ended by /hard_reset on the mock: the agent leaves registration each time."""
    run = resetting_agent
    first = wait_for(
        lambda: _after_period(run, 0), START_TIMEOUT, "the first agreed catalogue"
    )
    wait_for(
        lambda: _after_period(run, _period(first) + 3),
        3 * PERIOD_TIMEOUT,
        "three more periods, each after a hard reset",
    )
    log = _log(run)
    assert log.count("Resetting tendermint node successful!") >= 3
    assert "AddBlockError" not in log
    assert run.processes[0].alive()


@pytest.mark.long_faults
def test_agent_paused_past_the_stall_tolerance_keeps_going(
    resetting_agent: LocalRun,
    devnet: Devnet,
    registered: Callable[..., List[RegisteredManifest]],
) -> None:
    """SIGSTOP for 75 s while a manifest changes on chain: the agent goes on and serves it."""
    run = resetting_agent
    before = wait_for(
        lambda: _after_period(run, 0), START_TIMEOUT, "the first agreed catalogue"
    )
    target = served_legacy_mech(before, registered)
    digest = add_probe_manifest(devnet, PROBE_TOOL, "set while the agent was paused")
    pid = run.processes[0].pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        devnet.update_legacy_hash(target.owner, target.id, digest)
        devnet.w3.provider.make_request(RPCEndpoint("anvil_mine"), [hex(20)])
        time.sleep(PAUSE_SECONDS)  # the fault itself: no block reaches the agent
    finally:
        os.kill(pid, signal.SIGCONT)
    try:
        resumed = wait_for(
            lambda: _after_period(run, _period(before) + 1),
            3 * PERIOD_TIMEOUT,
            "a new period after the pause",
        )
        after = wait_for(
            lambda: (
                _after_period(run, _period(resumed))
                if PROBE_TOOL in {t["name"] for t in _view(run).tools}
                else None
            ),
            3 * PERIOD_TIMEOUT,
            f"{PROBE_TOOL} in GET /tools after the pause",
        )
        assert after.has_catalogue
        log = _log(run)
        assert STALL_WARNING in log  # the pause did reach the stall check
        assert "AddBlockError" not in log
        assert run.processes[0].alive()
    finally:
        devnet.update_legacy_hash(
            target.owner, target.id, bytes.fromhex(target.digest[2:])
        )
