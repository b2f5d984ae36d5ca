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

Deliveries come from ``scripts/devnet/responder.py``, a stand-in for a mech operator
(no mech server runs here): it answers each request with a fixed result and echoes the
request's typed arguments, in the folder layout mech-interact fetches.
"""

import copy
import http.server
import json
import os
import re
import socket
import subprocess  # nosec: runs our own CLI
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import anyio
from eth_typing import ChecksumAddress
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.chain.marketplace import (
    MarketplaceSource,
)
from mech_catalogue_core.chain.registry import (
    parse_registry_sources,
)
from mech_catalogue_core.http_api.routes import (
    CatalogueView,
    route,
)
from web3 import Web3
from web3.types import RPCEndpoint

from mech_catalogue_cli.devnet_options import DevnetSettings
from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH
from mech_catalogue_cli.mcp_server.source import DirectSource
from mech_catalogue_cli.sync_driver import SyncConfig
from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import FIXTURES_DIR
from scripts.devnet.responder import Delivery, Responder

ROOT = Path(__file__).resolve().parents[2]


#: a paid answer as the server frames it (``results.answer_result``): its line, then
#: the mech's answer between markers naming the response's CID
FRAMED_ANSWER = re.compile(
    r"(?P<line>[^\n]*)\n--- (?P<label>(untrusted )?response) (?P<cid>\S+) begins ---\n"
    r"(?P<answer>.*)\n--- (?P=label) (?P=cid) ends ---",
    re.DOTALL,
)


def framed_answer(text: str) -> str:
    """The mech's answer inside a paid call's framed text.

    :param text: the result's first text content.
    :return: what the markers enclose.
    :raises AssertionError: when the text is not framed.
    """
    framed = FRAMED_ANSWER.fullmatch(text)
    assert framed, text[:400]
    return framed.group("answer")


def responder(devnet: Devnet) -> Responder:
    """Return the devnet's stand-in mech operator for every marketplace mech.

    ``scripts/devnet/responder.py``, answering requests from the current block on.

    :param devnet: the devnet.
    :return: the responder; enter it with ``with`` to answer in a background thread.
    """
    mechs = [m["address"] for m in devnet.info.mechs if m["kind"] == "marketplace"]
    return Responder(
        devnet.info, mechs, from_block=devnet.w3.eth.block_number, interval=0.3
    )


def delivery_of(answering: Responder, request_id: str) -> Delivery:
    """Return what the responder delivered for a request.

    :param answering: the responder.
    :param request_id: 0x hex.
    :return: its delivery.
    """
    return answering.delivered[bytes.fromhex(request_id[2:])]


def requester(devnet: Devnet) -> str:
    """The account the server pays from on the devnet (no key given).

    :param devnet: the devnet.
    :return: its address.
    """
    return devnet.address("stranger")


async def final_once_sent(
    devnet: Devnet, sent_before: int, within: float = 30.0
) -> None:
    """Make the requester's next mined transaction final, once it is mined.

    Time passing on the devnet, which mines a block per transaction only: once the
    requester account's mined count is past ``sent_before`` (a request mined and
    reverted, a cancellation), ``FINAL_DEPTH`` blocks are mined, so a call waiting
    for that nonce's finality (adv29u) goes on within its ``--timeout``. Start it in
    a task group beside the call (its reads run in a worker thread).

    :param devnet: the running devnet.
    :param sent_before: the account's mined transaction count before the call.
    :param within: seconds to wait for the transaction.
    :raises AssertionError: when none is mined within ``within``.
    """
    account = Web3.to_checksum_address(requester(devnet))
    deadline = time.monotonic() + within
    while await anyio.to_thread.run_sync(
        devnet.w3.eth.get_transaction_count, account
    ) <= int(sent_before):
        if time.monotonic() > deadline:
            raise AssertionError(f"no transaction of {account} mined in {within:g} s")
        await anyio.sleep(0.1)
    devnet.w3.provider.make_request(RPCEndpoint("anvil_mine"), [FINAL_DEPTH])


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
    # this checkout's library too, not whichever one the environment installed
    paths = (str(ROOT), str(ROOT / "libs" / "mech-catalogue-core"))
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


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


def call_once(
    devnet: Devnet, state_dir: Path, name: str, arguments: Dict[str, Any], *extra: str
) -> Any:
    """One ``tools/call`` through the SDK's client, the server launched over stdio for it.

    :param devnet: the devnet.
    :param state_dir: the server's state folder (its journal).
    :param name: the tool.
    :param arguments: its arguments.
    :param extra: server options.
    :return: the SDK's ``CallToolResult``.
    """

    async def main() -> Any:
        async with stdio_client(devnet, state_dir, *extra) as client:
            return await client.call_tool(name, arguments)

    return anyio.run(main)


def marketplace_mech_of(devnet: Devnet, asset: str) -> str:
    """The deployed service's marketplace mech paid in ``asset`` (its Safe delivers).

    :param devnet: the devnet.
    :param asset: ``native``, ``olas``, ``usdc`` or ``subscription``.
    :return: its address.
    """
    deployed = [m for m in devnet.info.mechs if m.get("asset") == "olas"][0]
    return next(
        m["address"]
        for m in devnet.info.mechs
        if m["kind"] == "marketplace"
        and m.get("asset", "native") == asset
        and m["service_id"] == deployed["service_id"]
    )


def price_of(devnet: Devnet, mech: str) -> int:
    """The mech's ``maxDeliveryRate`` now (smallest units of its asset).

    :param devnet: the devnet.
    :param mech: the mech's address.
    :return: the price.
    """
    return int(devnet.mech(mech).functions.maxDeliveryRate().call())


def declare_tool(
    devnet: Devnet, service_id: int, name: str, output: Dict[str, Any]
) -> None:
    """Publish a service's manifest: the seed fixture plus tool ``name``.

    The new tool is a copy of the fixture's ``prediction-online``
    (scripts/devnet/fixtures/service_input_schema.json) whose output schema's properties
    are updated with ``output``; the service's hash is changed to the manifest's digest.

    :param devnet: the devnet.
    :param service_id: the service of the mech.
    :param name: the tool's name.
    :param output: output schema properties set (e.g. ``{"result": {"type": "string"}}``).
    """
    manifest = json.loads(
        (FIXTURES_DIR / "service_input_schema.json").read_text(encoding="utf-8")
    )
    manifest.pop("url", None)
    tool = copy.deepcopy(manifest["toolMetadata"]["prediction-online"])
    tool["name"] = name
    tool["output"]["schema"]["properties"].update(output)
    manifest["tools"].append(name)
    manifest["toolMetadata"][name] = tool
    _, digest = devnet.add_manifest(json.dumps(manifest).encode("utf-8"))
    devnet.change_service_hash(service_id, digest)


def free_port() -> int:
    """A loopback TCP port nothing listens on now (bound, then closed).

    :return: the port.
    """
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def http_server(
    devnet: Devnet,
    state_dir: Path,
    *extra: str,
    stderr: Optional[Path] = None,
    port: Optional[int] = None,
) -> Iterator[str]:
    """Run the server with ``--transport http``; yield its ``/mcp`` URL.

    :param devnet: the devnet.
    :param state_dir: the journal folder.
    :param extra: more server options.
    :param stderr: where its stderr goes, appended (default: state_dir/server.log).
    :param port: the port (default: a free one); the same one across a restart keeps
        a client's URL.
    :yield: the URL.
    :raises RuntimeError: when it does not listen within 60 s.
    """
    port = port or free_port()
    log_path = stderr or state_dir / "server.log"
    argv = command(
        devnet, state_dir, "--transport", "http", "--port", str(port), *extra
    )
    with (
        open(log_path, "ab") as log,
        subprocess.Popen(  # nosec
            argv, env=_env(), cwd=str(ROOT), stdout=log, stderr=log
        ) as process,
    ):
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
                            + log_path.read_text(errors="replace")[-2000:]
                        ) from None
                    time.sleep(0.2)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


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


def checksum(address: str) -> ChecksumAddress:
    """Return a checksummed address.

    :param address: any case.
    :return: checksummed.
    """
    return Web3.to_checksum_address(address)


def direct_source(devnet: Devnet) -> DirectSource:
    """A direct read of the devnet's registries and marketplace (what ``--devnet`` builds).

    :param devnet: the devnet.
    :return: the source (close it).
    """
    settings = DevnetSettings(devnet.info)
    config = SyncConfig(
        rpc_url=devnet.info.rpc_url,
        gateway_url=devnet.info.ipfs_gateway_url,
        sources=parse_registry_sources(settings.registries, devnet.info.chain_id),
        multicall=settings.multicall,
    )
    market = MarketplaceSource(
        devnet.info.chain_id,
        devnet.info.contracts["MechMarketplace"],
        legacy_factory=devnet.info.contracts["FixtureLegacyMechFactory"],
        confirmations=0,
    )
    return DirectSource(config, market)


@contextmanager
def agent_api(exposed: ExposedCatalogue, page_size: int = 4) -> Iterator[str]:
    """Serve the skill's HTTP API routes (``http_api.routes.route``) for a catalogue.

    :param exposed: the agreed catalogue to serve.
    :param page_size: tools per ``/tools`` page.
    :yield: the base URL.
    """
    view = CatalogueView.build(exposed)

    class Handler(http.server.BaseHTTPRequestHandler):
        """GET through the skill's pure router."""

        def do_GET(self) -> None:  # pylint: disable=invalid-name
            """Answer one GET."""
            result = route("GET", self.path, b"", view, time.time(), page_size, 1e9)
            self.send_response(result.status_code)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(result.body)

        def log_message(self, *args: Any) -> None:  # pylint: disable=arguments-differ
            """Keep the test output quiet."""

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
