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

"""Helpers for the MCP server's devnet tests: start ``mech-catalogue mcp``, answer requests.

:class:`StandInResponder` stands in for a mech operator (there is no mech server here):
it watches the devnet mechs' ``Request`` events, reads each request payload from kubo,
adds a deterministic answer as ``<dir>/<request id>`` (the layout mech-interact fetches)
and delivers the directory's digest from the mech's service Safe
(``deliverToMarketplace``). It is a test stand-in, not a mech.
"""

import json
import os
import socket
import subprocess  # nosec: runs our own CLI
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import requests
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from web3 import Web3

from packages.mech_catalogue.skills.tool_metadata_abci.domain.ipfs.cid import (
    cid_to_digest,
    digest_to_cid,
)

from scripts.devnet import Devnet

ROOT = Path(__file__).resolve().parents[2]


def answer_for(payload: Dict[str, Any]) -> Dict[str, Any]:
    """The stand-in's deterministic answer to a request payload.

    :param payload: the request JSON.
    :return: ``{"p_yes", "p_no", "confidence", "info_utility", "echo"}``: a prediction
        tool's declared output, plus the payload's arguments echoed.
    """
    return {
        "p_yes": 0.25,
        "p_no": 0.75,
        "confidence": 0.5,
        "info_utility": 0.1,
        "echo": {k: v for k, v in payload.items() if k not in ("nonce",)},
    }


class StandInResponder:
    """Deliver every request to the devnet mechs (a stand-in for mech operators)."""

    def __init__(self, devnet: Devnet, poll: float = 0.3) -> None:
        """Prepare.

        :param devnet: the devnet.
        :param poll: seconds between log reads.
        """
        self.devnet = devnet
        self.poll = poll
        self.delivered: List[str] = []
        self.payloads: Dict[str, Dict[str, Any]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._from = devnet.w3.eth.block_number

    def __enter__(self) -> "StandInResponder":
        """Start watching.

        :return: self.
        """
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        """Stop watching."""
        self._stop.set()
        self._thread.join(timeout=10)

    def _mechs(self) -> List[str]:
        return [
            m["address"] for m in self.devnet.info.mechs if m["kind"] == "marketplace"
        ]

    def _run(self) -> None:
        while not self._stop.is_set():
            head = self.devnet.w3.eth.block_number
            if head < self._from:
                self._stop.wait(self.poll)
                continue
            for mech in self._mechs():
                contract = self.devnet.mech(mech)
                events = contract.events.Request().get_logs(
                    from_block=self._from, to_block=head
                )
                for event in events:
                    request_id = bytes(event["args"]["requestId"])
                    if "0x" + request_id.hex() not in self.delivered:
                        self.deliver(mech, request_id, bytes(event["args"]["data"]))
            self._from = head + 1
            self._stop.wait(self.poll)

    def deliver(self, mech: str, request_id: bytes, data: bytes) -> None:
        """Read the payload, add the answer under ``<dir>/<id>``, deliver the digest.

        :param mech: the mech.
        :param request_id: the request id.
        :param data: the request data (the payload's dag-pb digest).
        """
        gateway = self.devnet.info.ipfs_gateway_url
        cid = digest_to_cid(data)
        payload = requests.get(f"{gateway}/ipfs/{cid}", timeout=10).json()
        rid = "0x" + request_id.hex()
        self.payloads[rid] = payload
        response = {
            "requestId": int(rid, 16),
            "result": json.dumps(answer_for(payload)),
            "prompt": payload.get("prompt", ""),
            "tool": payload.get("tool", ""),
        }
        added = (
            requests.post(
                f"{self.devnet.info.ipfs_api_url}/api/v0/add",
                params={
                    "cid-version": "0",
                    "wrap-with-directory": "true",
                    "pin": "true",
                },
                files={"file": (str(int(rid, 16)), json.dumps(response).encode())},
                timeout=10,
            )
            .text.strip()
            .splitlines()
        )
        directory = json.loads(added[-1])["Hash"]
        digest = bytes.fromhex(cid_to_digest(directory)[1][2:])
        contract = self.devnet.mech(mech)
        safe = contract.functions.getOperator().call()
        call = contract.encode_abi(
            "deliverToMarketplace", args=[[request_id], [digest]]
        )
        self.devnet.exec_safe_transaction(safe, contract.address, call)
        self.delivered.append(rid)


def requester(devnet: Devnet) -> str:
    """The account the server pays from on the devnet (no key given).

    :param devnet: the devnet.
    :return: its address.
    """
    return devnet.address("stranger")


def market_nonce(devnet: Devnet) -> int:
    """``MechMarketplace.mapNonces(requester)``: moves by one per request sent.

    :param devnet: the devnet.
    :return: the nonce.
    """
    return (
        devnet.contract("MechMarketplace").functions.mapNonces(requester(devnet)).call()
    )


def command(devnet: Devnet, state_dir: Path, *extra: str) -> List[str]:
    """The server's command line.

    :param devnet: the devnet.
    :param state_dir: the journal folder.
    :param extra: more options.
    :return: argv.
    """
    return [
        sys.executable,
        "-m",
        "mech_catalogue_cli",
        "mcp",
        "--devnet-dir",
        str(devnet.info.state_dir),
        "--state-dir",
        str(state_dir),
        *extra,
    ]


def _env() -> Dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def stdio_client(devnet: Devnet, state_dir: Path, *extra: str, **kwargs: Any) -> Client:
    """An SDK client that launches the server over stdio.

    :param devnet: the devnet.
    :param state_dir: the journal folder.
    :param extra: more server options.
    :param kwargs: more ``Client`` fields.
    :return: the client (enter it with ``async with``).
    """
    argv = command(devnet, state_dir, *extra)
    params = StdioServerParameters(
        command=argv[0], args=argv[1:], env=_env(), cwd=str(ROOT)
    )
    return Client(params, **kwargs)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def http_server(
    devnet: Devnet, state_dir: Path, *extra: str, stderr: Optional[Path] = None
) -> Iterator[str]:
    """Run the server with ``--transport http``; yield its ``/mcp`` URL.

    :param devnet: the devnet.
    :param state_dir: the journal folder.
    :param extra: more server options.
    :param stderr: where its stderr goes (default: state_dir/server.log).
    :yield: the URL.
    :raises RuntimeError: when it does not listen within 60 s.
    """
    port = _free_port()
    log = open(
        stderr or state_dir / "server.log", "wb"
    )  # pylint: disable=consider-using-with
    argv = command(
        devnet, state_dir, "--transport", "http", "--port", str(port), *extra
    )
    process = subprocess.Popen(  # nosec
        argv, env=_env(), cwd=str(ROOT), stdout=log, stderr=log
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the MCP server did not listen on {port}: "
                        + Path(log.name).read_text(errors="replace")[-2000:]
                    ) from None
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def request_info(devnet: Devnet, request_id: str) -> Dict[str, Any]:
    """``MechMarketplace.mapRequestIdInfos(id)`` as a dict.

    :param devnet: the devnet.
    :param request_id: 0x hex.
    :return: priorityMech, deliveryMech, requester, responseTimeout, deliveryRate, paymentType.
    """
    names = (
        "priorityMech",
        "deliveryMech",
        "requester",
        "responseTimeout",
        "deliveryRate",
        "paymentType",
    )
    values = (
        devnet.contract("MechMarketplace")
        .functions.mapRequestIdInfos(bytes.fromhex(request_id[2:]))
        .call()
    )
    return dict(zip(names, values))


def checksum(address: str) -> str:
    """Return a checksummed address.

    :param address: any case.
    :return: checksummed.
    """
    return Web3.to_checksum_address(address)
