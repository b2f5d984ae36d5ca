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

"""The requester service with four agents and four Tendermint nodes, end to end (``e2e4``).

Real components as in ``test_requester_one_agent.py``, and four real Tendermint 0.34.19
nodes under open-autonomy's control server instead of the mock. The Safe is owned by the
four agents, threshold 3: transaction settlement collects their signatures over
Tendermint. The mech operator is the devnet responder, a STAND-IN. Slow (minutes): marked
``e2e4``, run beside ``make e2e-4`` (``pytest tests/e2e -m e2e4``).
"""

import json
from typing import Any, Dict, Iterator, List, Optional
from urllib.request import urlopen

import pytest
from web3 import Web3

from scripts.devnet import Devnet
from scripts.devnet.contracts import contract_at
from scripts.devnet.responder import DEFAULT_RESULT
from scripts.run_local.runner import LocalRun
from tests.e2e.conftest import E2E_DIR, log_tail, wait_for
from tests.e2e.test_requester_one_agent import requests_from

AGENTS = 4
#: seconds for four agents to start, agree and have the first answer read
ANSWER_TIMEOUT = 360.0


@pytest.fixture(scope="module")
def four_requesters() -> Iterator[LocalRun]:
    """Four requester agents on a fresh seeded devnet, with the responder answering.

    :yield: the run.
    """
    work = E2E_DIR / "requester_four_agents"
    devnet = Devnet.start(seed=True, state_dir=work / "devnet")
    run = LocalRun(
        agents=AGENTS,
        work_dir=work,
        devnet=devnet,
        service="requester",
        settings={"RESET_PAUSE_DURATION": "10", "MECH_RESPONSE_TIMEOUT": "60"},
    )
    try:
        run.start()
        yield run
    finally:
        run.stop()
        devnet.stop()


def documents(run: LocalRun) -> List[Dict[str, Any]]:
    """Every agent's ``GET /synchronized_data`` (``{}`` while one does not answer).

    :param run: the run.
    :return: one document per agent, agent order.
    """
    found = []
    for process in run.processes:
        assert process.alive(), f"{process.name} stopped:\n{log_tail(process.log_path)}"
        try:
            with urlopen(f"{process.http_url}/synchronized_data", timeout=5) as answer:
                found.append(dict(json.loads(answer.read())))
        except OSError:
            found.append({})
    return found


def answered_everywhere(run: LocalRun) -> Optional[List[Dict[str, Any]]]:
    """The first answered response on every agent, once all four have read one.

    :param run: the run.
    :return: one response view per agent, or None.
    """
    views = []
    for document in documents(run):
        responses = (document.get("request") or {}).get("responses", [])
        done = [r for r in responses if r.get("answer") is not None]
        if not done:
            return None
        views.append(done[0])
    return views


@pytest.mark.e2e4
def test_four_agents_pay_through_their_safe_and_read_the_same_answer(
    four_requesters: LocalRun,
) -> None:
    """Signed by the agents (3 of 4), paid by the Safe, delivered, read by all four."""
    run = four_requesters
    devnet, setup = run.devnet, run.requester
    assert devnet is not None and setup is not None
    agents = [process.address for process in run.processes]
    responses = wait_for(
        lambda: answered_everywhere(run),
        ANSWER_TIMEOUT,
        "an answer read by all four agents",
        interval=2.0,
    )
    assert {r["request_id"] for r in responses} == {responses[0]["request_id"]}
    assert {r["answer"] for r in responses} == {DEFAULT_RESULT.split("\n", 1)[0]}

    safe = contract_at(devnet.w3, "GnosisSafe", setup.safe)
    assert sorted(safe.functions.getOwners().call()) == sorted(agents)
    assert safe.functions.getThreshold().call() == 3
    sent = requests_from(run, setup.safe)
    assert sent, "no MarketplaceRequest from the requester Safe"
    first = sent[0]
    assert (
        "0x" + bytes(first["args"]["requestIds"][0]).hex() == responses[0]["request_id"]
    )
    tx = devnet.w3.eth.get_transaction(first["transactionHash"])
    assert Web3.to_checksum_address(tx["to"]) == setup.safe
    assert Web3.to_checksum_address(tx["from"]) in agents  # the keeper

    def same_digest() -> bool:
        digests = {d.get("catalogue_digest") for d in documents(run)}
        return len(digests) == 1 and "" not in digests and None not in digests

    wait_for(same_digest, 120.0, "the same catalogue digest on all four agents")
