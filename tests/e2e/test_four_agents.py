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

"""Four tool metadata agents, each with its own Tendermint 0.34.19 node, reaching consensus.

Real components only: anvil with the registry stack, kubo, four ``aea run`` processes
(without the ACN client, see docs/running.md) and four Tendermint nodes under
open-autonomy's control server (hard resets included). Slow (minutes): marked ``e2e4``,
run with ``make e2e-4`` / ``pytest -m e2e4``.
"""

from typing import Dict, Iterator, List, Optional

import pytest

from scripts.run_local.logs import agreed_catalogues
from scripts.run_local.runner import LocalRun
from scripts.run_local.view import AgentView, get_json
from tests.e2e.conftest import E2E_DIR, agent_views, wait_for

AGENTS = 4
START_TIMEOUT = 300.0
#: periods to watch: reset_tendermint_after is 2, so the run passes a Tendermint hard reset
PERIODS = 3


@pytest.fixture(scope="module")
def four_agents() -> Iterator[LocalRun]:
    """Four agents and four Tendermint nodes on their own devnet; all stopped by pid after.

    :yield: the run.
    """
    run = LocalRun(
        agents=AGENTS,
        work_dir=E2E_DIR / "four_agents",
        settings={"RESET_PAUSE_DURATION": "10"},
    )
    run.start()
    try:
        yield run
    finally:
        run.stop()


def _views(run: LocalRun) -> List[AgentView]:
    return agent_views(run)


def _all_agreed(run: LocalRun, period: int) -> Optional[List[AgentView]]:
    views = _views(run)
    if all(
        view.has_catalogue and view.health.get("period", -1) >= period for view in views
    ):
        return views
    return None


@pytest.mark.e2e4
def test_four_agents_agree_on_the_catalogue_over_periods(four_agents: LocalRun) -> None:
    """Every agent serves a catalogue; all agree on the same digest, period after period."""
    first = wait_for(
        lambda: _all_agreed(four_agents, 0),
        START_TIMEOUT,
        "a catalogue on all four agents",
        interval=2.0,
    )
    assert len({view.health["catalogue_digest"] for view in first}) == 1
    wait_for(
        lambda: _all_agreed(four_agents, PERIODS),
        PERIODS * 120.0,
        f"period {PERIODS} on all four agents",
        interval=2.0,
    )
    agreed: Dict[str, List[str]] = {
        p.name: [a.digest for a in agreed_catalogues(p.log_path)]
        for p in four_agents.processes
    }
    assert all(len(digests) >= PERIODS for digests in agreed.values()), agreed
    for digests in agreed.values():
        assert digests[:PERIODS] == agreed["agent_0"][:PERIODS]
    data = [
        get_json(f"{process.http_url}/synchronized_data")
        for process in four_agents.processes
    ]
    assert {entry["participants"] for entry in data} == {AGENTS}
    assert (
        len({(entry["catalogue_digest"], tuple(entry["mech_tools"])) for entry in data})
        == 1
    )
    tools = [
        sorted(tool["name"] for tool in view.tools) for view in _views(four_agents)
    ]
    assert all(names == tools[0] for names in tools) and tools[0]
    log = four_agents.processes[0].log_path.read_text(errors="replace")
    assert "Resetting tendermint node successful" in log
