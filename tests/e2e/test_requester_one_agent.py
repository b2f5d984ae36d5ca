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

"""The requester service, one agent, end to end on the devnet: catalogue -> paid request -> answer.

Real components: anvil with the registry stack and the MechMarketplace fixtures, kubo, the
agent process (``aea run``) with its real connections, mech-interact v0.32.3's skill
unchanged, open-autonomy's transaction settlement rounds (keeper, signature, finalisation,
validation). The requester Safe is a Gnosis Safe 1.3.0 whose only owner is the agent
(threshold 1). Mocked: Tendermint, by the abci connection's ``use_mock`` mode (one agent
needs no consensus network; four agents: not done here); drand is unreachable, so
settlement uses its randomness failsafe. The mech operator is the devnet responder, a
STAND-IN that runs no tool and answers every request with a fixed result.

What is checked, in one run (one agent start-up):

1. a request is paid through the Safe with the agent's signature (the Safe's nonce moves;
   the MarketplaceRequest names the Safe as requester and the mech mech-interact ranked;
   the Safe transaction was sent by the agent), delivered by the responder, read into
   ``mech_responses`` (the answer's first line served at ``GET /synchronized_data``), and
   the request's catalogue digest is the one the agent agreed and serves;
2. the responder is then stopped: the next request is not delivered, mech-interact's
   response round times out (``MECH_RESPONSE_TIMEOUT``) and the next period starts; no
   stall.
"""

import json
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional
from urllib.request import urlopen

import pytest
from web3 import Web3
from web3.logs import DISCARD

from scripts.devnet import Devnet
from scripts.devnet.contracts import contract_at
from scripts.devnet.responder import DEFAULT_RESULT
from scripts.run_local.runner import LocalRun
from scripts.run_local.workspace import service_unavailable
from tests.e2e.conftest import E2E_DIR, log_tail, wait_for

#: seconds mech-interact waits for a delivery before its timeout path (the devnet
#: MechMarketplace's minResponseTimeout: a shorter one reverts every request)
RESPONSE_TIMEOUT = 60
#: seconds for the first answer (start-up, catalogue, request, settlement, delivery)
ANSWER_TIMEOUT = 240.0
TIMEOUT_EVENT = "'mech_response_round' round is done with event: Event.ROUND_TIMEOUT"
PERIOD_START = re.compile(
    r"Entered in the 'registry_snapshot_round' round for period (\d+)"
)


@contextmanager
def task_file_run(work_name: str, task: Path, first_task: str) -> Iterator[LocalRun]:
    """One requester agent on a fresh seeded devnet, its task read from a file.

    Skips (with what to provide) when mech-interact's release is not there.

    :param work_name: the run's folder under the e2e folder.
    :param task: the task file (outside the run's folder, which the run owns).
    :param first_task: what the file holds when the agent starts (YAML).
    :yield: the started run; it and its devnet are stopped on exit.
    """
    unavailable = service_unavailable("requester")
    if unavailable is not None:  # no mech-interact release (../shared): say so
        pytest.skip(unavailable)
    work = E2E_DIR / work_name
    task.parent.mkdir(parents=True, exist_ok=True)
    task.write_text(first_task)
    devnet = Devnet.start(seed=True, state_dir=work / "devnet")
    run = LocalRun(
        agents=1,
        work_dir=work,
        devnet=devnet,
        service="requester",
        settings={
            "RESET_PAUSE_DURATION": "10",
            "MECH_RESPONSE_TIMEOUT": str(RESPONSE_TIMEOUT),
            "REQUESTER_TASK_FILE": str(task),
        },
    )
    try:
        run.start()
        yield run
    finally:
        run.stop()
        devnet.stop()


@pytest.fixture(scope="module")
def requester_run() -> Iterator[LocalRun]:
    """One requester agent on a fresh seeded devnet, with the responder answering.

    :yield: the run.
    """
    unavailable = service_unavailable("requester")
    if (
        unavailable is not None
    ):  # no mech-interact release (../shared): say what to provide
        pytest.skip(unavailable)
    work = E2E_DIR / "requester_one_agent"
    devnet = Devnet.start(seed=True, state_dir=work / "devnet")
    run = LocalRun(
        agents=1,
        work_dir=work,
        devnet=devnet,
        service="requester",
        settings={
            "RESET_PAUSE_DURATION": "10",
            "MECH_RESPONSE_TIMEOUT": str(RESPONSE_TIMEOUT),
        },
    )
    try:
        run.start()
        yield run
    finally:
        run.stop()
        devnet.stop()


def synchronized_data(run: LocalRun) -> Dict[str, Any]:
    """The agent's ``GET /synchronized_data``, failing the test when the agent stopped.

    :param run: the run.
    :return: the document.
    """
    process = run.processes[0]
    assert process.alive(), f"the agent stopped:\n{log_tail(process.log_path)}"
    try:
        with urlopen(f"{process.http_url}/synchronized_data", timeout=5) as answer:
            return dict(json.loads(answer.read()))
    except OSError:
        return {}


def answered(run: LocalRun) -> Optional[Dict[str, Any]]:
    """The first response read into ``mech_responses`` with an answer, if any yet.

    :param run: the run.
    :return: the response's view, or None.
    """
    request = synchronized_data(run).get("request") or {}
    done = [r for r in request.get("responses", []) if r.get("answer") is not None]
    return done[0] if done else None


def requests_from(run: LocalRun, safe: str) -> List[Any]:
    """The MarketplaceRequest events whose requester is ``safe``.

    :param run: the run.
    :param safe: the requester Safe.
    :return: the events, oldest first.
    """
    devnet = run.devnet
    assert devnet is not None
    market = contract_at(
        devnet.w3, "MechMarketplace", devnet.info.contracts["MechMarketplace"]
    )
    found = []
    for log in devnet.w3.eth.get_logs({"address": market.address, "fromBlock": 0}):
        receipt = devnet.w3.eth.get_transaction_receipt(log["transactionHash"])
        for event in market.events.MarketplaceRequest().process_receipt(
            receipt, errors=DISCARD
        ):
            if Web3.to_checksum_address(event["args"]["requester"]) == safe:
                found.append(event)
    return found


def test_a_request_is_paid_through_the_safe_delivered_and_read(
    requester_run: LocalRun,
) -> None:
    """Paid by the agent's Safe transaction, delivered, read; the catalogue agreed."""
    run = requester_run
    devnet, setup = run.devnet, run.requester
    assert devnet is not None and setup is not None
    safe = setup.safe
    agent = run.processes[0].address

    response = wait_for(
        lambda: answered(run), ANSWER_TIMEOUT, "an answer in mech_responses"
    )
    assert response["answer"] == DEFAULT_RESULT.split("\n", 1)[0]
    assert response["error"] is None

    # paid through the Safe: the request event names it, the agent sent the Safe transaction
    sent = requests_from(run, safe)
    assert sent, "no MarketplaceRequest from the requester Safe"
    first = sent[0]
    request_id = "0x" + bytes(first["args"]["requestIds"][0]).hex()
    assert response["request_id"] == request_id
    tx = devnet.w3.eth.get_transaction(first["transactionHash"])
    assert Web3.to_checksum_address(tx["to"]) == safe
    assert Web3.to_checksum_address(tx["from"]) == agent
    safe_contract = contract_at(devnet.w3, "GnosisSafe", safe)
    assert safe_contract.functions.getOwners().call() == [agent]
    assert safe_contract.functions.nonce().call() >= 1
    mech = Web3.to_checksum_address(first["args"]["priorityMech"])
    price = devnet.mech(mech).functions.maxDeliveryRate().call()
    assert tx["value"] == 0  # the Safe pays, not the agent

    # delivered by the stand-in operator, for that request
    assert setup.responder is not None
    delivered = setup.responder.delivered
    assert bytes(first["args"]["requestIds"][0]) in delivered
    delivery = delivered[bytes(first["args"]["requestIds"][0])]
    assert delivery.mech == mech
    assert delivery.response["tool"] == "prediction-online"

    # the catalogue the request came from is the one the agent agreed and serves
    data = synchronized_data(run)
    with urlopen(f"{run.processes[0].http_url}/healthcheck", timeout=5) as answer:
        health = json.loads(answer.read())
    assert data["catalogue_digest"] and data["catalogue_digest"] == health.get(
        "catalogue_digest"
    )
    assert data["request"]["tool"] == "prediction-online"
    assert data["request"]["price"] == price
    print(
        json.dumps(
            {"mech": mech, "price": price, "request_id": request_id, "safe": safe}
        )
    )


def test_a_mech_that_never_delivers_times_out_into_the_next_period(
    requester_run: LocalRun,
) -> None:
    """With the responder stopped, mech-interact's timeout path ends the period; the next starts."""
    run = requester_run
    setup = run.requester
    assert setup is not None and run.devnet is not None
    wait_for(lambda: answered(run), ANSWER_TIMEOUT, "a first answer")
    setup.stop()  # from now on no mech delivers
    log = run.processes[0].log_path
    paid_before = len(requests_from(run, setup.safe))

    def timed_out() -> bool:
        assert run.processes[0].alive(), log_tail(log)
        return TIMEOUT_EVENT in log.read_text(errors="replace")

    wait_for(
        timed_out,
        ANSWER_TIMEOUT + RESPONSE_TIMEOUT,
        "mech-interact's response round to time out",
    )
    text = log.read_text(errors="replace")
    timeout_at = text.index(TIMEOUT_EVENT)
    period = max(int(p) for p in PERIOD_START.findall(text[:timeout_at]))

    def next_period() -> bool:
        later = log.read_text(errors="replace")[timeout_at:]
        return any(int(p) > period for p in PERIOD_START.findall(later))

    wait_for(next_period, 60.0, "the period after the timeout")
    after = log.read_text(errors="replace")[timeout_at:]
    assert "Entered in the 'reset_and_pause_round'" in after
    # the request that timed out was made and paid through the Safe
    assert len(requests_from(run, setup.safe)) > paid_before
