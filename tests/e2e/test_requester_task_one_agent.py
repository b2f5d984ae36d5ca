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

"""The requester service, one agent, driven by a task file that changes while it runs.

Real components as in ``test_requester_one_agent.py`` (anvil with the MechMarketplace
fixtures, kubo, the agent process with mech-interact v0.32.3 unchanged, transaction
settlement; mocked: Tendermint, by the abci connection's ``use_mock`` mode; the mech
operator is the devnet responder, a STAND-IN that runs no tool).

In one agent start-up:

1. the task file asks for a tool kind no devnet manifest declares: the agent logs why no
   request is made, sends none, and the next period starts (no stall);
2. the file is rewritten to name ``prediction-online``: read at the next period, the
   request is made, paid through the Safe to the mech the consumer logged as chosen
   (mech-interact's pin), delivered and read into ``mech_responses``.
"""

import re
from pathlib import Path
from typing import Iterator

import pytest
from web3 import Web3

from scripts.devnet.responder import DEFAULT_RESULT
from scripts.run_local.runner import LocalRun
from tests.e2e.conftest import E2E_DIR, log_tail, wait_for
from tests.e2e.test_requester_one_agent import (
    ANSWER_TIMEOUT,
    PERIOD_START,
    answered,
    requests_from,
    task_file_run,
)

NO_KIND = (
    "requester: no request this period: no usable mech in the catalogue offers "
    "tool kind 'prediction'"
)
CHOSEN = re.compile(
    r"requester: requesting tool 'prediction-online' \(tool 'prediction-online'\) "
    r"from mech (0x[0-9a-f]{40})"
)
ARGUMENTS = "arguments:\n  max_tokens: 120\n  temperature: 0.25\n"


def task_file() -> Path:
    """The run's task file, outside the run's work folder (which the run owns).

    :return: its path.
    """
    return E2E_DIR / "requester_task.yaml"


@pytest.fixture(scope="module")
def task_run() -> Iterator[LocalRun]:
    """One requester agent whose task comes from a file (first: a kind nobody offers).

    :yield: the run; its task file is :func:`task_file`.
    """
    with task_file_run(
        "requester_task_one_agent",
        task_file(),
        "prompt: Will it rain in Lisbon tomorrow?\nkind: prediction\n",
    ) as run:
        yield run


def test_a_kind_nobody_offers_then_a_named_tool_from_the_same_file(
    task_run: LocalRun,
) -> None:
    """No request (said why) and the periods go on; after the edit, a paid answer."""
    run = task_run
    setup = run.requester
    assert setup is not None
    log: Path = run.processes[0].log_path

    def text() -> str:
        assert run.processes[0].alive(), log_tail(log)
        return log.read_text(errors="replace")

    wait_for(lambda: NO_KIND in text(), ANSWER_TIMEOUT, "the no-kind log line")
    said_at = text().index(NO_KIND)
    period = max([0, *(int(p) for p in PERIOD_START.findall(text()[:said_at]))])
    wait_for(
        lambda: any(int(p) > period for p in PERIOD_START.findall(text()[said_at:])),
        90.0,
        "the period after the one without a request",
    )
    assert not requests_from(run, setup.safe), "paid although no tool was chosen"

    task_file().write_text(
        "prompt: Will it rain in Lisbon tomorrow?\ntool: prediction-online\n"
        + ARGUMENTS
    )
    response = wait_for(
        lambda: answered(run), ANSWER_TIMEOUT, "an answer after the edit"
    )
    assert response["answer"] == DEFAULT_RESULT.split("\n", 1)[0]
    chosen = CHOSEN.search(text())
    assert chosen is not None, log_tail(log)
    sent, *_ = requests_from(run, setup.safe)
    assert Web3.to_checksum_address(sent["args"]["priorityMech"]) == (
        Web3.to_checksum_address(chosen.group(1))
    )
    assert response["request_id"] == "0x" + bytes(sent["args"]["requestIds"][0]).hex()
