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

"""One agent publishes the service's manifest through its Safe, end to end, on the devnet.

Real components: anvil with the registry stack and a deployed service whose multisig is a
Gnosis Safe 1.3.0 (threshold 1), kubo, and the agent process (``aea run``) with its real
connections (ledger, valory/ipfs, http). The agent's key is the service's agent instance
key, so it is the Safe's owner. Mocked: Tendermint, by the abci connection's ``use_mock``
mode (one agent needs no consensus network); drand is unreachable here, so transaction
settlement uses its randomness failsafe.

The FSM path checked: publish prepare (generate from the tool packages, compare digests)
-> upload through valory/ipfs with read-back -> Safe transaction -> transaction
settlement -> back to the registry snapshot, whose catalogue shows the new tools; the
next periods find the digest up to date and send nothing.
"""

import json
from typing import Any, Iterator, List, Optional, Tuple

import pytest
from mech_catalogue_core.publish.publish import (
    prepare_manifest,
    update_event_digest,
)
from web3 import Web3
from web3.types import RPCEndpoint

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.base import (
    CONNECTION_CID_VERSION,
)

from scripts.devnet import Devnet
from scripts.run_local import runner
from scripts.run_local.runner import LocalRun
from tests.devnet.publish_helpers import (
    TOOL_PACKAGES,
    SeededMech,
    deployed_service,
    generated_manifest,
    publisher,
    reader_tools,
)
from tests.e2e.conftest import E2E_DIR, log_tail, wait_for

PUBLISH_TIMEOUT = 300.0
OVERRIDES = {"name": "Published by the agent"}
PACKAGES = [str(TOOL_PACKAGES / "echo_tool"), str(TOOL_PACKAGES / "typed_tool")]


@pytest.fixture(scope="module")
def publishing_agent() -> Iterator[Tuple[LocalRun, SeededMech, str]]:
    """One agent, keyed as the deployed service's agent instance, with publishing on.

    :yield: the run, the service, its Safe.
    """
    work = E2E_DIR / "publish_one_agent"
    devnet = Devnet.start(seed=True, state_dir=work / "devnet")
    mech, safe, instance = deployed_service(devnet)
    devnet.w3.provider.make_request(
        RPCEndpoint("anvil_setBalance"), [instance.address, hex(10**18)]
    )
    settings = {
        "PUBLISH_ENABLED": "true",
        "PUBLISH_TOOL_PACKAGES": json.dumps(PACKAGES),
        "PUBLISH_OVERRIDES": json.dumps(OVERRIDES),
        "PUBLISH_REGISTRY_KIND": mech.target.kind,
        "PUBLISH_REGISTRY_ADDRESS": mech.target.registry,
        "PUBLISH_MECH_ID": str(mech.target.mech_id),
        "SAFE_CONTRACT_ADDRESS": safe,
    }
    make_agent = runner.make_agent
    key = "0x" + instance.key.hex().removeprefix("0x")
    # LocalRun makes fresh keys; this agent must hold the Safe owner's (agent instance) key
    runner.make_agent = lambda template, agent_dir, private_key=None: make_agent(
        template, agent_dir, key
    )
    run = LocalRun(agents=1, work_dir=work, devnet=devnet, settings=settings)
    try:
        run.start()
        yield run, mech, safe
    finally:
        runner.make_agent = make_agent
        run.stop()
        devnet.stop()


def test_agent_publishes_through_the_safe_once(publishing_agent) -> None:
    """The digest changes to the generated manifest's, the event is emitted, the reader sees the tools, once."""
    run, mech, safe = publishing_agent
    devnet = run.devnet
    assert devnet is not None
    process = run.processes[0]
    expected = prepare_manifest(
        generated_manifest(OVERRIDES["name"]), CONNECTION_CID_VERSION
    )
    safe_nonce = devnet.w3.eth.contract(
        address=Web3.to_checksum_address(safe),
        abi=[
            {
                "name": "nonce",
                "type": "function",
                "inputs": [],
                "outputs": [{"type": "uint256"}],
                "stateMutability": "view",
            }
        ],
    ).functions.nonce
    nonce_before = safe_nonce().call()

    def published() -> bool:
        assert process.alive(), f"the agent stopped:\n{log_tail(process.log_path)}"
        return publisher(devnet).read_digest(mech.target) == expected.digest

    wait_for(
        published,
        PUBLISH_TIMEOUT,
        "the registry digest to become the generated manifest's",
    )

    def update_events() -> Tuple[List[Any], List[Optional[str]]]:
        logs = devnet.w3.eth.get_logs(
            {"address": Web3.to_checksum_address(mech.target.registry), "fromBlock": 0}
        )
        return logs, [
            update_event_digest(
                mech.target,
                [
                    {
                        "address": log["address"],
                        "topics": [bytes(t) for t in log["topics"]],
                        "data": bytes(log["data"]),
                    }
                ],
            )
            for log in logs
        ]

    logs, events = update_events()
    assert events and events[-1] == expected.digest  # the registry's last update event
    receipt = devnet.w3.eth.get_transaction_receipt(logs[-1]["transactionHash"])
    print(
        json.dumps(
            {
                "settled_tx": Web3.to_hex(receipt["transactionHash"]),
                "gas_used": receipt["gasUsed"],
            }
        )
    )
    assert reader_tools(devnet, mech.target) == ("ok", list(expected.tools))

    wait_for(
        lambda: process.log_path.read_text(errors="replace").count(
            "publish: up_to_date"
        )
        >= 2,
        PUBLISH_TIMEOUT,
        "two later periods finding the digest up to date",
    )
    # settlement waited for the receipt before those periods read the digest: exactly one
    # Safe transaction and one update event
    assert safe_nonce().call() == nonce_before + 1
    assert update_events()[1].count(expected.digest) == 1
