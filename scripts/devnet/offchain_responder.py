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

"""A STAND-IN for a mech's off-chain endpoint on the devnet, following the real mech's.

The real mech (valory-xyz/mech, ``task_execution/handlers.py``) serves two routes:
``POST /send_signed_requests`` (a form: ``request_id`` decimal, ``ipfs_hash``,
``ipfs_data``, ``sender``, ``delivery_rate``, ``nonce``, ``signature``) and ``GET
/fetch_offchain_info``. This one, for the mechs it is given:

1. checks the form (canonical decimal id, 0x + 64 hex hash, a uint256 rate equal to the
   mech's ``maxDeliveryRate()``), recomputes the request id with the marketplace's own
   ``getRequestId`` at ``mapNonces(sender)`` and recovers the signer of that raw digest
   (as ``MechMarketplace._verifySignedHash``): another id, or another signer, is 400;
2. reads the sender's prepaid balance on the tracker the marketplace names for the mech's
   payment type: short, it answers 402 with the ``olas-prepay`` challenge (``scheme``,
   ``payTo`` the tracker, ``asset``, ``chainId``, ``currentBalance``, ``required``) and a
   ``WWW-Authenticate: Payment`` header;
3. otherwise answers 200 ``{"request_id"}`` and, in a worker thread, adds the response
   folder to kubo (as :mod:`.responder` does) and settles on chain from the mech's Safe
   with ``FixtureMech.deliverMarketplaceWithSignatures``: the marketplace checks the
   signature, records the request as delivered, charges the prepaid balance, and the mech
   emits ``Deliver`` with the folder's digest.

``behaviour`` makes it hostile for tests: ``redirect`` (302 to another host),
``oversized`` (a 2 MiB answer), ``slow`` (answers after ``slow_seconds``),
``other_pay_to`` (a 402 whose ``payTo`` is not the tracker), ``wrong_id`` (accepts
another request id), ``no_settle`` (accepts, never delivers), ``always_402`` (a
true challenge, the real tracker, whatever the balance: a mech that keeps asking).
"""

import json
import re
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple
from urllib.parse import parse_qs

import click
from eth_keys import keys
from mech_catalogue_core.chain.offchain import (
    FETCH_ROUTE,
    PREPAY_SCHEME,
    SEND_ROUTE,
    split_signature,
)
from mech_catalogue_core.ipfs.cid import cid_to_digest
from web3 import Web3

from mech_catalogue_cli.devnet.state import DevnetInfo
from scripts.devnet.marketplace import MarketplaceHelpers
from scripts.devnet.responder import DEFAULT_RESULT, devnet_for, response_document

if TYPE_CHECKING:  # pragma: no cover
    from scripts.devnet.devnet import Devnet

FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"
#: the real handler's cap on an inbound body (``MAX_HTTP_BODY_BYTES``)
MAX_BODY_BYTES = 1_048_576
_DECIMAL = re.compile(r"\A(0|[1-9][0-9]{0,77})\Z")
_HASH = re.compile(r"\A0x[0-9a-fA-F]{64}\Z")
_TRACKER_ABI = [
    {
        "type": "function",
        "name": "mapRequesterBalances",
        "stateMutability": "view",
        "inputs": [{"name": "", "type": "address"}],
        "outputs": [{"name": "", "type": "uint256"}],
    }
]
ZERO_ADDRESS = "0x" + "00" * 20


class OffchainResponder:  # pylint: disable=too-many-instance-attributes
    """Serves the real mech's off-chain routes for some devnet mechs, on loopback.

    :param info: the devnet.
    :param mechs: the mechs it answers for (a request to another is 400).
    :param port: the port to listen on (0: any free one; :attr:`url` says which).
    :param behaviour: ``honest`` or a hostile one (module docstring).
    """

    def __init__(
        self,
        info: DevnetInfo,
        mechs: Sequence[str],
        port: int = 0,
        behaviour: str = "honest",
        slow_seconds: float = 12.0,
    ) -> None:
        """Bind the port; nothing is served until :meth:`start`.

        :param info: the devnet.
        :param mechs: the mech addresses.
        :param port: the port (0: a free one).
        :param behaviour: ``honest`` or a hostile one.
        :param slow_seconds: how long ``slow`` waits before answering.
        """
        self.devnet = MarketplaceHelpers(info)
        self.mechs = {Web3.to_checksum_address(m) for m in mechs}
        self.behaviour = behaviour
        self.slow_seconds = slow_seconds
        self.market = self.devnet.contract("MechMarketplace")
        self.posts: List[Dict[str, str]] = []
        self.settled: Dict[str, str] = {}
        self.errors: List[str] = []
        self._lock = threading.Lock()
        self._workers: List[threading.Thread] = []
        responder = self

        class Handler(BaseHTTPRequestHandler):
            """One request to the stand-in endpoint."""

            def log_message(self, *_: Any) -> None:  # quiet
                """Log nothing."""

            def do_POST(self) -> None:  # noqa: N802  # pylint: disable=invalid-name
                """``send_signed_requests``."""
                responder.handle_post(self)

            def do_GET(self) -> None:  # noqa: N802  # pylint: disable=invalid-name
                """``fetch_offchain_info``."""
                responder.handle_get(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._thread: Optional[threading.Thread] = None

    @property
    def url(self) -> str:
        """The base URL a manifest declares for these mechs.

        :return: ``http://127.0.0.1:PORT``.
        """
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    # --- the routes -----------------------------------------------------------------

    def _answer(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        body: Any,
        headers: Tuple[Tuple[str, str], ...] = (),
    ) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        if self.behaviour != "oversized":  # else the body runs to the connection's end
            handler.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            handler.send_header(name, value)
        handler.end_headers()
        try:
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading (an oversized answer)

    def handle_post(self, handler: BaseHTTPRequestHandler) -> None:
        """Check a signed request and accept it (200), ask for a prepayment (402) or refuse.

        :param handler: the request.
        """
        if handler.path.rstrip("/") != "/" + SEND_ROUTE:
            self._answer(handler, 404, {"error": "no such route"})
            return
        length = int(handler.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            self._answer(handler, 400, {"error": "body too large"})
            return
        form = {
            k: v[0]
            for k, v in parse_qs(handler.rfile.read(length).decode("utf-8")).items()
        }
        with self._lock:
            self.posts.append(form)
        hostile = self._hostile(handler, form)
        if hostile:
            return
        try:
            mech, sender, rid, payment_type = self._checked(form)
        except ValueError as exc:
            self._answer(handler, 400, {"status": "rejected", "reason": str(exc)})
            return
        rate = int(form["delivery_rate"])
        tracker = self.market.functions.mapPaymentTypeBalanceTrackers(
            payment_type
        ).call()
        balance = (
            self.devnet.w3.eth.contract(address=tracker, abi=_TRACKER_ABI)
            .functions.mapRequesterBalances(sender)
            .call()
        )
        if balance < rate or self.behaviour in ("other_pay_to", "always_402"):
            self._challenge(handler, form, tracker, balance, rate)
            return
        self._answer(handler, 200, {"request_id": form["request_id"]})
        if self.behaviour != "no_settle":
            worker = threading.Thread(
                target=self._settle, args=(mech, sender, rid, form), daemon=True
            )
            with self._lock:
                self._workers.append(worker)
            worker.start()

    def _hostile(self, handler: BaseHTTPRequestHandler, form: Dict[str, str]) -> bool:
        behaviour = self.behaviour
        if behaviour == "redirect":
            handler.send_response(302)
            handler.send_header("Location", "http://attacker.example/collect")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return True
        if behaviour == "oversized":
            self._answer(handler, 200, b"[" + b"0," * (1 << 20) + b"0]")
            return True
        if behaviour == "slow":
            time.sleep(self.slow_seconds)
            self._answer(handler, 200, {"request_id": form.get("request_id")})
            return True
        if behaviour == "wrong_id":
            self._answer(handler, 200, {"request_id": "1"})
            return True
        return False

    def _checked(self, form: Dict[str, str]) -> Tuple[str, str, bytes, bytes]:
        """The form's mech, sender, request id and payment type, once every check passed.

        :param form: the posted form.
        :return: ``(mech, sender, request id, payment type)``.
        :raises ValueError: naming the first check that failed.
        """
        for name in ("request_id", "delivery_rate", "nonce"):
            if not _DECIMAL.match(form.get(name, "")):
                raise ValueError(f"{name} is not a canonical decimal")
        if not _HASH.match(form.get("ipfs_hash", "")):
            raise ValueError("ipfs_hash is not 0x + 64 hex")
        sender = Web3.to_checksum_address(form.get("sender", ZERO_ADDRESS))
        data = bytes.fromhex(form["ipfs_hash"][2:])
        signature = bytes.fromhex(form.get("signature", "0x")[2:])
        mechs = sorted(self.mechs)
        nonce = self.market.functions.mapNonces(sender).call()
        for mech in mechs:
            contract = self.devnet.mech(mech)
            rate = contract.functions.maxDeliveryRate().call()
            payment_type = contract.functions.paymentType().call()
            rid = self.market.functions.getRequestId(
                mech, sender, data, rate, payment_type, nonce
            ).call()
            if int.from_bytes(rid, "big") != int(form["request_id"]):
                continue
            if int(form["delivery_rate"]) != rate:
                raise ValueError("delivery_rate is not the mech's price")
            v, r, s = split_signature(signature)
            signer = (
                keys.Signature(vrs=(v - 27, r, s))
                .recover_public_key_from_msg_hash(bytes(rid))
                .to_checksum_address()
            )
            if signer != sender:
                raise ValueError("the signature does not recover to the sender")
            return mech, sender, bytes(rid), bytes(payment_type)
        raise ValueError("the request id is not one of this endpoint's mechs")

    def _challenge(
        self,
        handler: BaseHTTPRequestHandler,
        form: Dict[str, str],
        tracker: str,
        balance: int,
        rate: int,
    ) -> None:
        pay_to = "0x" + "ab" * 20 if self.behaviour == "other_pay_to" else tracker
        self._answer(
            handler,
            402,
            {
                "request_id": form["request_id"],
                "status": "rejected",
                "reason": "insufficient balance",
                "scheme": PREPAY_SCHEME,
                "payTo": pay_to,
                "asset": ZERO_ADDRESS,
                "chainId": self.devnet.w3.eth.chain_id,
                "currentBalance": str(balance),
                "required": str(rate),
                "depositInstructions": {
                    "contract": pay_to,
                    "abi": "depositFor(address requester, uint256 amount)",
                },
                "error": "insufficient balance",
            },
            (("WWW-Authenticate", f'Payment scheme="{PREPAY_SCHEME}"'),),
        )

    def handle_get(self, handler: BaseHTTPRequestHandler) -> None:
        """``fetch_offchain_info``: what was settled for a request id (by query or body).

        :param handler: the request.
        """
        if not handler.path.startswith("/" + FETCH_ROUTE):
            self._answer(handler, 404, {"error": "no such route"})
            return
        length = int(handler.headers.get("Content-Length") or 0)
        text = handler.rfile.read(min(length, MAX_BODY_BYTES)).decode("utf-8")
        query = handler.path.partition("?")[2]
        asked = parse_qs(text or query).get("request_id", [""])[0]
        with self._lock:
            settled = self.settled.get(asked)
        self._answer(
            handler, 200, {"request_id": asked, "tx_hash": settled} if settled else {}
        )

    # --- settlement -----------------------------------------------------------------

    def _settle(self, mech: str, sender: str, rid: bytes, form: Dict[str, str]) -> None:
        """Add the response folder to kubo and deliver it with the requester's signature.

        :param mech: the mech.
        :param sender: the requester.
        :param rid: the request id.
        :param form: the posted form.
        """
        try:
            payload = json.loads(form.get("ipfs_data") or "{}")
            document = response_document(
                rid,
                payload if isinstance(payload, dict) else None,
                "",
                DEFAULT_RESULT,
            )
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp) / "response"
                folder.mkdir()
                (folder / str(document["requestId"])).write_bytes(
                    json.dumps(document, sort_keys=True).encode("utf-8")
                )
                response_cid = self.devnet.ipfs.add_directory(folder)
            digest = bytes.fromhex(cid_to_digest(response_cid)[1][2:])
            contract = self.devnet.mech(mech)
            call = contract.encode_abi(
                "deliverMarketplaceWithSignatures",
                args=[
                    sender,
                    [
                        (
                            bytes.fromhex(form["ipfs_hash"][2:]),
                            bytes.fromhex(form["signature"][2:]),
                            digest,
                        )
                    ],
                    b"",
                ],
            )
            safe = contract.functions.getOperator().call()
            receipt = self.devnet.exec_safe_transaction(safe, contract.address, call)
            with self._lock:
                self.settled[form["request_id"]] = (
                    "0x" + bytes(receipt["transactionHash"]).hex()
                )
        except Exception as exc:  # pylint: disable=broad-except
            with self._lock:
                self.errors.append(f"request {form.get('request_id')}: {exc}")

    # --- life -----------------------------------------------------------------------

    def start(self) -> "OffchainResponder":
        """Serve in a daemon thread.

        :return: this responder.
        """
        self._thread = threading.Thread(
            target=self.server.serve_forever, name="devnet-offchain", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and wait for settlements under way."""
        self.server.shutdown()
        self.server.server_close()
        for worker in list(self._workers):
            worker.join(timeout=60)

    def __enter__(self) -> "OffchainResponder":
        """Start serving.

        :return: this responder.
        """
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        """Stop serving.

        :param exc_info: the exception, if any (not suppressed).
        """
        self.stop()


def declare_endpoint(
    devnet: "Devnet",
    service_id: int,
    url: str,
    fixture: str = "service_input_schema.json",
) -> None:
    """Set a service's manifest to a seed fixture whose top-level ``url`` is ``url``.

    :param devnet: the devnet.
    :param service_id: the service (its owner or Safe sends ``changeHash``).
    :param url: the endpoint declared.
    :param fixture: the fixture under ``scripts/devnet/fixtures/``.
    """
    manifest = json.loads((FIXTURES_DIR / fixture).read_text(encoding="utf-8"))
    manifest["url"] = url
    _, digest = devnet.add_manifest(json.dumps(manifest).encode("utf-8"))
    devnet.change_service_hash(service_id, digest)


def prepay_native(devnet: "Devnet", requester: str, amount: int) -> None:
    """Deposit ``amount`` wei on the native tracker for ``requester`` (from ``deployer``).

    :param devnet: the devnet.
    :param requester: the account credited.
    :param amount: wei.
    """
    tracker = devnet.contract("FixtureBalanceTracker")
    devnet.transact(
        tracker.functions.depositFor(Web3.to_checksum_address(requester)),
        devnet.address("deployer"),
        value=amount,
    )


@click.command(
    help="Serve the off-chain endpoint of MECH on the devnet (a stand-in following the "
    "real mech's routes) on 127.0.0.1:PORT until Ctrl-C. --declare sets the url of each "
    "mech's service manifest (the seeded one) to it; --prepay deposits WEI on the "
    "native tracker for the account mcp --devnet pays from."
)
@click.option("--mech", "mechs", multiple=True, required=True, help="A mech address.")
@click.option(
    "--devnet-dir",
    "state_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder of the devnet's devnet.json (default: as the CLI's --devnet).",
)
@click.option("--port", type=click.IntRange(min=1, max=65535), default=8010)
@click.option("--declare", is_flag=True, help="Declare the endpoint in the manifests.")
@click.option("--prepay", type=click.IntRange(min=0), default=0, help="Wei to prepay.")
def main(
    mechs: Tuple[str, ...],
    state_dir: Optional[Path],
    port: int,
    declare: bool,
    prepay: int,
) -> None:
    """Serve until interrupted.

    :param mechs: the mech addresses.
    :param state_dir: the devnet state folder, or None for the CLI's rule.
    :param port: the port.
    :param declare: set each mech's service manifest ``url`` to the endpoint.
    :param prepay: wei deposited for the devnet requester (``stranger``).
    """
    # imported here: the devnet package imports the seed, which is not needed to serve
    from scripts.devnet.devnet import Devnet  # pylint: disable=import-outside-toplevel

    info = devnet_for(state_dir)
    endpoint = OffchainResponder(info, mechs, port=port).start()
    devnet = Devnet(info)
    wanted = {m.lower() for m in mechs}
    if declare:
        for service in sorted(
            {int(m["service_id"]) for m in info.mechs if m["address"].lower() in wanted}
        ):
            declare_endpoint(devnet, service, endpoint.url)
    if prepay:
        prepay_native(devnet, devnet.address("stranger"), prepay)
    click.echo(f"off-chain endpoint of {', '.join(mechs)}: {endpoint.url}")
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        endpoint.stop()


if __name__ == "__main__":
    main()  # pylint: disable=no-value-for-parameter
