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

"""The devnet responder (``scripts/devnet/responder.py``), a STAND-IN for a mech operator.

Real components: anvil with the real MechMarketplace bytecode and our fixture mechs, kubo.
Requests are sent through ``MechMarketplace.request`` with native payment; the delivery is
read back the way mech-interact reads it: the mech's ``Deliver`` event filtered with
mech-interact's own MechMM ABI, then ``<gateway>/ipfs/f01701220<data>/<request id>``.
"""

import json
import subprocess  # nosec B404: runs this repository's own module
import sys
from typing import Any, Dict, List

import pytest
import requests
from web3 import Web3

from scripts.devnet import Devnet
from scripts.devnet.responder import (
    DEFAULT_RESULT,
    V1_DAG_PB_PREFIX,
    Responder,
    response_document,
)
from scripts.sync_packages import mech_interact_missing_notice
from scripts.toolchain import REPO_ROOT
from tests.mech_interact import MECH_INTERACT


def marketplace_mechs(devnet: Devnet) -> List[str]:
    """Return the seeded marketplace mechs' addresses.

    :param devnet: the devnet.
    :return: addresses, seeding order.
    """
    return [m["address"] for m in devnet.info.mechs if m["kind"] == "marketplace"]


def operated_mech(devnet: Devnet) -> str:
    """Return the seeded native mech whose service is deployed (a Safe that can deliver).

    :param devnet: the devnet.
    :return: its address (the token-priced mechs of that service come after it).
    """
    native = [
        m["address"]
        for m in devnet.info.mechs
        if m["kind"] == "marketplace" and m.get("asset", "native") == "native"
    ]
    return native[-1]


def deploy_service(devnet: Devnet, service_id: int) -> str:
    """Deploy a registered service (its Safe becomes the mech's operator).

    :param devnet: the devnet.
    :param service_id: the ServiceRegistryL2 service id (agents registered).
    :return: the service's Safe.
    """
    registry = devnet.contract("ServiceRegistryL2")
    owner = registry.functions.ownerOf(service_id).call()
    devnet.transact(
        registry.functions.deploy(
            owner, service_id, devnet.info.contracts["ServiceSafeMultisig"], b""
        ),
        devnet.address("deployer"),
    )
    safe = devnet.service_multisig(service_id)
    assert safe is not None
    return safe


def request(devnet: Devnet, mech: str, payload: Any) -> bytes:
    """Upload ``payload`` as mech-interact does (a CIDv1 dag-pb file) and request ``mech``.

    :param devnet: the devnet.
    :param mech: the priority mech.
    :param payload: a JSON value, or raw bytes to upload as they are.
    :return: the request id.
    """
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    _, digest = devnet.add_manifest(data)
    return devnet.request_mech(mech, digest, devnet.address("stranger"))


def deliver_events(devnet: Devnet, mech: str, request_id: bytes) -> List[Any]:
    """Filter the mech's ``Deliver`` events as mech-interact's ``MechMM.get_response`` does.

    :param devnet: the devnet.
    :param mech: the mech.
    :param request_id: the request id.
    :return: the matching decoded events.
    """
    abi_file = (
        MECH_INTERACT / "valory" / "contracts" / "mech_mm" / "build" / "mech.json"
    )
    if not abi_file.is_file():
        pytest.skip(
            f"mech-interact's MechMM ABI not present at {abi_file}: "
            + mech_interact_missing_notice(MECH_INTERACT)
        )
    contract = devnet.w3.eth.contract(
        address=Web3.to_checksum_address(mech),
        abi=json.loads(abi_file.read_text())["abi"],
    )
    event = contract.events.Deliver()
    logs = devnet.w3.eth.get_logs(
        {"fromBlock": 0, "address": contract.address, "topics": [event.topic]}
    )
    return [
        decoded
        for decoded in (event.process_log(log) for log in logs)
        if decoded["args"]["requestId"] == request_id
    ]


def fetch_response(devnet: Devnet, data: bytes, request_id: bytes) -> Dict[str, Any]:
    """Read the delivered answer at the URL mech-interact builds.

    :param devnet: the devnet.
    :param data: the delivered data (32-byte digest).
    :param request_id: the request id.
    :return: the JSON document.
    """
    url = (
        f"{devnet.info.ipfs_gateway_url.rstrip('/')}/ipfs/{V1_DAG_PB_PREFIX}"
        f"{data.hex()}/{int.from_bytes(request_id, 'big')}"
    )
    response = requests.get(url, timeout=30)
    response.raise_for_status()
    return response.json()


def test_a_request_is_answered_once_in_the_shape_mech_interact_reads(
    chain_snapshot: Devnet,
) -> None:
    """Typed arguments are echoed, the Deliver event matches MechMM's ABI, no second delivery."""
    devnet = chain_snapshot
    mech = operated_mech(devnet)
    start = devnet.w3.eth.block_number + 1
    payload = {
        "prompt": "Will it rain?",
        "tool": "prediction-online",
        "nonce": "n-1",
        "schema_version": "2.0",
        "max_tokens": 120,
        "temperature": 0.25,
        "sources": ["a", "b"],
    }
    request_id = request(devnet, mech, payload)
    responder = Responder(devnet.info, [mech], from_block=start)
    made = responder.poll()
    assert [d.request_id for d in made] == [request_id]
    info = devnet.contract("MechMarketplace").functions.mapRequestIdInfos(request_id)
    assert info.call()[1] == mech

    events = deliver_events(devnet, mech, request_id)
    assert len(events) == 1
    assert events[0]["args"]["mech"] == mech
    assert events[0]["args"]["deliveryRate"] == (
        devnet.mech(mech).functions.maxDeliveryRate().call()
    )
    document = fetch_response(devnet, bytes(events[0]["args"]["data"]), request_id)
    assert document["requestId"] == int.from_bytes(request_id, "big")
    assert document["result"] == DEFAULT_RESULT and isinstance(document["result"], str)
    assert document["tool"] == "prediction-online"
    assert document["prompt"] == "Will it rain?"
    assert document["arguments"] == {
        "max_tokens": 120,
        "temperature": 0.25,
        "sources": ["a", "b"],
    }
    assert "request_error" not in document

    assert not responder.poll(), "a second pass delivered again"
    fresh = Responder(devnet.info, [mech], from_block=start)
    assert not fresh.poll(), "a new responder re-delivered a delivered request"
    assert len(deliver_events(devnet, mech, request_id)) == 1


def test_unreadable_requests_are_still_answered_and_say_why(
    chain_snapshot: Devnet,
) -> None:
    """Short request data, non-JSON and non-object payloads each get an explained answer."""
    devnet = chain_snapshot
    mech = operated_mech(devnet)
    start = devnet.w3.eth.block_number + 1
    short = devnet.request_mech(mech, b"not a digest", devnet.address("stranger"))
    not_json = request(devnet, mech, b"\xff\xfe not json at all")
    a_list = request(devnet, mech, ["prompt", "tool"])
    made = {d.request_id: d for d in Responder(devnet.info, [mech], start).poll()}
    assert set(made) == {short, not_json, a_list}
    assert "12 bytes, not a 32-byte digest" in made[short].response["request_error"]
    assert made[short].request_cid == ""
    assert "is not JSON" in made[not_json].response["request_error"]
    assert made[not_json].request_cid.startswith(V1_DAG_PB_PREFIX)
    assert "JSON list, not an object" in made[a_list].response["request_error"]
    for delivery in made.values():
        assert delivery.response["arguments"] == {}
        assert delivery.response["tool"] is None


def test_only_watched_mechs_are_answered_and_log_ranges_are_bounded(
    chain_snapshot: Devnet,
) -> None:
    """Requests to other mechs stay undelivered; every log query spans <= max_range blocks."""
    devnet = chain_snapshot
    watched, other = operated_mech(devnet), marketplace_mechs(devnet)[0]
    start = devnet.w3.eth.block_number + 1
    mine = [request(devnet, watched, {"prompt": str(n), "tool": "t"}) for n in range(3)]
    theirs = request(devnet, other, {"prompt": "x", "tool": "t"})
    responder = Responder(devnet.info, [watched], from_block=start, max_range=3)
    head = devnet.w3.eth.block_number  # deliveries add blocks after the read
    assert sorted(d.request_id for d in responder.poll()) == sorted(mine)
    market = devnet.contract("MechMarketplace")
    assert market.functions.mapRequestIdInfos(theirs).call()[1] == "0x" + "00" * 20
    ranges = responder.ranges
    assert ranges[0][0] == start and ranges[-1][1] == head
    assert all(b - a + 1 <= 3 for a, b in ranges)
    assert all(ranges[i][1] + 1 == ranges[i + 1][0] for i in range(len(ranges) - 1))


def test_a_mech_that_cannot_deliver_is_reported_and_retried(
    chain_snapshot: Devnet,
) -> None:
    """A mech whose service has no Safe: no crash, one error naming it, delivered once it has one."""
    devnet = chain_snapshot
    mech = marketplace_mechs(devnet)[0]  # the "market" service is never deployed
    start = devnet.w3.eth.block_number + 1
    request_id = request(devnet, mech, {"prompt": "p", "tool": "t"})
    responder = Responder(devnet.info, [mech], from_block=start)
    assert not responder.poll() and not responder.poll()
    errors = responder.errors
    assert len(errors) == 1, errors  # the same failure is reported once
    assert f"0x{request_id.hex()} to {mech}" in errors[0]
    assert "retried next pass" in errors[0]
    # once the service is deployed (it has a Safe), the kept request is delivered
    service_id = devnet.mech(mech).functions.serviceId().call()
    deploy_service(devnet, service_id)
    assert [d.request_id for d in responder.poll()] == [request_id]
    assert set(responder.delivered) == {request_id}


def test_the_background_thread_delivers_while_requests_arrive(
    chain_snapshot: Devnet,
) -> None:
    """As a context manager it keeps polling: requests sent after start are answered."""
    devnet = chain_snapshot
    mech = operated_mech(devnet)
    start = devnet.w3.eth.block_number + 1
    with Responder(devnet.info, [mech], from_block=start, interval=0.2) as responder:
        first = request(devnet, mech, {"prompt": "1", "tool": "t", "k": 1})
        assert responder.wait_for(first).response["arguments"] == {"k": 1}
        second = request(devnet, mech, {"prompt": "2", "tool": "t", "k": 2})
        assert responder.wait_for(second).response["arguments"] == {"k": 2}
    assert not responder.errors
    assert set(responder.delivered) == {first, second}


def test_the_command_line_answers_pending_requests(chain_snapshot: Devnet) -> None:
    """``python -m scripts.devnet.responder --mech X --once`` against devnet.json."""
    devnet = chain_snapshot
    mech = operated_mech(devnet)
    start = devnet.w3.eth.block_number + 1
    request_id = request(devnet, mech, {"prompt": "cli", "tool": "t"})
    command = [sys.executable, "-m", "scripts.devnet.responder", "--mech", mech]
    done = subprocess.run(  # nosec B603: fixed arguments
        command
        + ["--state-dir", devnet.info.state_dir, "--from-block", str(start), "--once"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"delivered 0x{request_id.hex()} for {mech}" in done.stdout
    assert len(deliver_events(devnet, mech, request_id)) == 1


def test_the_command_line_names_a_missing_devnet(tmp_path: Any) -> None:
    """No devnet.json: a clear error that says how to start one, exit status 1."""
    done = subprocess.run(  # nosec B603: fixed arguments
        [sys.executable, "-m", "scripts.devnet.responder", "--mech", "0x" + "11" * 20]
        + ["--state-dir", str(tmp_path), "--once"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert f"no running devnet in {tmp_path}" in done.stderr
    assert "python -m scripts.devnet" in done.stderr and " up" in done.stderr


def test_response_document_and_arguments() -> None:
    """Reserved keys are not arguments; an error is carried; the id is the integer."""
    document = response_document(
        b"\x00" * 31 + b"\x07",
        {"prompt": "p", "tool": "t", "nonce": "n", "request_context": {}, "x": [1]},
        "",
        "r",
    )
    assert document["requestId"] == 7 and document["arguments"] == {"x": [1]}
    assert "request_error" not in document
    failed = response_document(b"\x01" * 32, None, "broken", "r")
    assert failed["request_error"] == "broken" and failed["arguments"] == {}
    with pytest.raises(ValueError, match="at least one mech"):
        Responder(None, [])  # type: ignore[arg-type]
