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

"""A devnet responder: a STAND-IN for a mech operator, answering marketplace requests.

It runs no tool. For the given mech(s) it reads the real MechMarketplace's
``MarketplaceRequest`` events (bounded ``eth_getLogs`` ranges from a start block, then
incrementally), and for each request that is not delivered yet:

1. reads the request's IPFS payload (the 32-byte request data is the digest of a CIDv1
   dag-pb file, as mech-interact's ``MechRequestBehaviour`` uploads it: ``prompt``,
   ``tool``, ``nonce`` and the tool's typed arguments at the top level);
2. adds to kubo a folder holding one file named by the request id as a decimal integer,
   with the JSON :func:`response_document` (``requestId``, ``result``, and the request's
   ``prompt``, ``tool`` and typed ``arguments`` echoed). That is where mech-interact's
   ``MechResponseBehaviour`` looks: ``<ipfs_address>f01701220<delivered data hex>/<id>``,
   reading the key ``result`` as a string;
3. delivers the folder's digest through ``FixtureMech.deliverToMarketplace``, sent by the
   mech's service Safe (:meth:`MarketplaceHelpers.deliver`), so the mech emits the
   ``Deliver(mech, mechServiceMultisig, requestId, deliveryRate, data)`` event that
   mech-interact's ``MechMM.get_response`` filters.

It never delivers a request twice: a request is skipped when this responder delivered it
or the marketplace records a delivery mech for it (``mapRequestIdInfos``). A request whose
payload cannot be read is still answered (its ``request_error`` says why), so a requester
is never left waiting.

Use from tests as a context manager (a background thread polling every ``interval``
seconds) or call :meth:`Responder.poll` for one pass; from a shell against the running
devnet (``make devnet-up``'s or ``make run``'s, found as the CLI's ``--devnet`` finds it,
or ``--devnet-dir DIR``)::

    python -m scripts.devnet.responder --mech 0xMECH [--mech 0xOTHER] [--once]
"""

import json
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import click
from mech_catalogue_core.ipfs.cid import (
    cid_to_digest,
)
from mech_catalogue_core.publish.publish import (
    PublishError,
)
from web3 import Web3

from mech_catalogue_cli.devnet.locate import (
    DEVNET_DIR_ENV,
    DevnetNotFound,
    find_devnet,
)
from mech_catalogue_cli.devnet.state import DevnetInfo
from scripts.devnet.marketplace import MarketplaceHelpers

#: the CIDv1 prefix (base16 multibase ``f``, version 1, dag-pb, sha2-256, 32 bytes) of a
#: 32-byte request or delivery digest; mech-interact's ``IPFS_HASH_PREFIX``
V1_DAG_PB_PREFIX = "f01701220"
#: the fixed answer every request gets (a prediction-tool shaped JSON text)
DEFAULT_RESULT = json.dumps(
    {"p_yes": 0.6, "p_no": 0.4, "confidence": 0.5, "info_utility": 0.5},
    sort_keys=True,
)
#: payload keys that are not the tool's arguments
RESERVED_KEYS = ("prompt", "tool", "nonce", "schema_version", "request_context")
#: the name of mech-interact's request file when the digest names a folder
METADATA_FILENAME = "metadata.json"
ZERO_ADDRESS = "0x" + "00" * 20


@dataclass
class Delivery:
    """One request this responder answered.

    :param request_id: the marketplace request id (32 bytes).
    :param mech: the mech that delivered (checksummed).
    :param request_cid: the request payload's CID (base16 CIDv1), or ``""`` when the
        request data is not a 32-byte digest.
    :param response_cid: the CID of the response folder.
    :param response: the JSON document in it (see :func:`response_document`).
    :param tx_hash: the delivering transaction (``0x`` hex).
    """

    request_id: bytes
    mech: str
    request_cid: str
    response_cid: str
    response: Dict[str, Any]
    tx_hash: str


@dataclass
class PendingRequest:
    """A ``MarketplaceRequest`` entry for one of the watched mechs."""

    request_id: bytes
    mech: str
    data: bytes
    block: int


@dataclass
class _State:
    next_block: int
    delivered: Dict[bytes, Delivery] = field(default_factory=dict)
    errors: List[str] = field(default_factory=list)
    ranges: List[Tuple[int, int]] = field(default_factory=list)
    retry: List["PendingRequest"] = field(default_factory=list)


def response_document(
    request_id: bytes, payload: Optional[Dict[str, Any]], error: str, result: str
) -> Dict[str, Any]:
    """Build the answer to one request.

    :param request_id: the request id (32 bytes).
    :param payload: the request's JSON object, or None when unreadable.
    :param error: why the payload could not be read (``""`` when it could).
    :param result: the fixed result text.
    :return: ``{"requestId": int, "result": str, "prompt", "tool", "arguments": {...},
        "responder": "devnet stand-in"}`` plus ``request_error`` when ``error``.
    """
    payload = payload or {}
    document: Dict[str, Any] = {
        "requestId": int.from_bytes(request_id, "big"),
        "result": result,
        "prompt": payload.get("prompt"),
        "tool": payload.get("tool"),
        "arguments": {k: v for k, v in payload.items() if k not in RESERVED_KEYS},
        "responder": "devnet stand-in",
    }
    if error:
        document["request_error"] = error
    return document


class Responder:  # pylint: disable=too-many-instance-attributes
    """Answers marketplace requests to the given mechs on the devnet (a stand-in operator).

    :param info: the devnet (its ``MechMarketplace`` and kubo API are used).
    :param mechs: the mech addresses to answer for.
    :param from_block: the first block whose requests are answered (default: 0).
    :param max_range: most blocks per ``eth_getLogs`` query.
    :param interval: seconds between polls of the background thread.
    :param result: the result text every answer carries.
    :param encode: the response file's bytes from the document (default: its sorted-key
        JSON); a test delivers anything through it (invalid UTF-8, deep nesting...).
    :param deliver_as: the mech that delivers instead of the one requested (a mech
        sniping requests past their response timeout); None: the requested mech.
    """

    def __init__(  # pylint: disable=too-many-arguments
        self,
        info: DevnetInfo,
        mechs: Sequence[str],
        from_block: int = 0,
        max_range: int = 1000,
        interval: float = 0.5,
        result: str = DEFAULT_RESULT,
        encode: Optional[Callable[[Dict[str, Any]], bytes]] = None,
        deliver_as: Optional[str] = None,
    ) -> None:
        """Bind to the devnet; nothing is read until :meth:`poll` or :meth:`start`.

        :param info: the devnet.
        :param mechs: the mech addresses to answer for.
        :param from_block: the first block read.
        :param max_range: most blocks per log query (at least 1).
        :param interval: seconds between background polls.
        :param result: the fixed result text.
        :param encode: the response file's bytes from the document (None: JSON).
        :param deliver_as: the delivering mech (None: the requested one).
        :raises ValueError: for no mech or a ``max_range`` below 1.
        """
        if not mechs:
            raise ValueError("the responder needs at least one mech address")
        if max_range < 1:
            raise ValueError(f"max_range must be at least 1, not {max_range}")
        self.devnet = MarketplaceHelpers(info)
        self.mechs = [Web3.to_checksum_address(m) for m in mechs]
        self.max_range = max_range
        self.interval = interval
        self.result = result
        self.encode = encode or (
            lambda document: json.dumps(document, sort_keys=True).encode("utf-8")
        )
        self.deliver_as = Web3.to_checksum_address(deliver_as) if deliver_as else None
        self._state = _State(next_block=from_block)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        market = self.devnet.contract("MechMarketplace")
        self._market = market
        self._event = market.events.MarketplaceRequest()

    # --- what it did -----------------------------------------------------------------

    @property
    def delivered(self) -> Dict[bytes, Delivery]:
        """Requests answered so far, by request id (a copy).

        :return: request id -> :class:`Delivery`.
        """
        with self._lock:
            return dict(self._state.delivered)

    @property
    def errors(self) -> List[str]:
        """Failures so far (each names the block range or the request and mech).

        :return: the messages, oldest first (a copy).
        """
        with self._lock:
            return list(self._state.errors)

    @property
    def ranges(self) -> List[Tuple[int, int]]:
        """The ``(from, to)`` block ranges of every log query made.

        :return: the ranges (a copy).
        """
        with self._lock:
            return list(self._state.ranges)

    # --- one pass ----------------------------------------------------------------------

    def pending(self) -> List[PendingRequest]:
        """Read new ``MarketplaceRequest`` logs for the watched mechs, up to the head.

        Advances the start block past what was read (each query spans at most
        ``max_range`` blocks).

        :return: the requests found, in log order.
        """
        head = self.devnet.w3.eth.block_number
        found: List[PendingRequest] = []
        topics = [
            self._event.topic,
            [
                "0x" + bytes(12).hex() + m[2:].lower()
                for m in self.mechs  # priorityMech is indexed
            ],
        ]
        while self._state.next_block <= head:
            start = self._state.next_block
            end = min(head, start + self.max_range - 1)
            logs = self.devnet.w3.eth.get_logs(
                {
                    "address": self._market.address,
                    "topics": topics,
                    "fromBlock": start,
                    "toBlock": end,
                }
            )
            for log in logs:
                args = self._event.process_log(log)["args"]
                for request_id, data in zip(args["requestIds"], args["requestDatas"]):
                    found.append(
                        PendingRequest(
                            bytes(request_id),
                            Web3.to_checksum_address(args["priorityMech"]),
                            bytes(data),
                            log["blockNumber"],
                        )
                    )
            with self._lock:
                self._state.ranges.append((start, end))
                self._state.next_block = end + 1
        return found

    def is_delivered(self, request_id: bytes) -> bool:
        """Tell whether this responder or any mech delivered ``request_id``.

        :param request_id: the request id.
        :return: True when delivered (the marketplace records a delivery mech).
        """
        if request_id in self._state.delivered:
            return True
        info = self._market.functions.mapRequestIdInfos(request_id).call()
        return info[1] != ZERO_ADDRESS

    def read_request(self, data: bytes) -> Tuple[str, Optional[Dict[str, Any]], str]:
        """Read a request's IPFS payload from kubo.

        :param data: the request data (a 32-byte digest, by mech-interact's convention).
        :return: ``(request CID or "", the JSON object or None, error text or "")``.
        """
        if len(data) != 32:
            return "", None, f"request data is {len(data)} bytes, not a 32-byte digest"
        cid = V1_DAG_PB_PREFIX + data.hex()
        raw = None
        problems = []
        for path in (cid, f"{cid}/{METADATA_FILENAME}"):
            try:
                raw = self.devnet.ipfs.cat(path)
                break
            except PublishError as exc:
                problems.append(str(exc))
        if raw is None:
            return cid, None, f"kubo could not read {cid}: {'; '.join(problems)}"
        try:
            payload = json.loads(raw)
        except ValueError as exc:
            return cid, None, f"{cid} is not JSON: {exc}"
        if not isinstance(payload, dict):
            return (
                cid,
                None,
                f"{cid} holds a JSON {type(payload).__name__}, not an object",
            )
        return cid, payload, ""

    def answer(self, request: PendingRequest) -> Delivery:
        """Upload the answer to ``request`` and deliver it from the mech's Safe.

        :param request: the request.
        :return: the delivery.
        """
        cid, payload, error = self.read_request(request.data)
        document = response_document(request.request_id, payload, error, self.result)
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "response"
            folder.mkdir()
            (folder / str(document["requestId"])).write_bytes(self.encode(document))
            response_cid = self.devnet.ipfs.add_directory(folder)
        digest = bytes.fromhex(cid_to_digest(response_cid)[1][2:])
        mech = self.deliver_as or request.mech
        receipt = self.devnet.deliver(mech, [request.request_id], [digest])
        return Delivery(
            request.request_id,
            mech,
            cid,
            response_cid,
            document,
            "0x" + bytes(receipt["transactionHash"]).hex(),
        )

    def poll(self) -> List[Delivery]:
        """One pass: read new requests and answer every one not delivered yet.

        :return: the deliveries made in this pass.
        """
        made = []
        with self._lock:
            retry, self._state.retry = self._state.retry, []
        for request in retry + self.pending():
            if self.is_delivered(request.request_id):
                continue
            try:
                delivery = self.answer(request)
            except Exception as exc:  # pylint: disable=broad-except
                # e.g. the mech's service has no Safe yet: keep it for the next pass
                message = (
                    f"request 0x{request.request_id.hex()} to {request.mech} "
                    f"could not be delivered (retried next pass): "
                    f"{type(exc).__name__}: {exc}"
                )
                with self._lock:
                    self._state.retry.append(request)
                    if message not in self._state.errors:  # once, not every pass
                        self._state.errors.append(message)
                continue
            with self._lock:
                self._state.delivered[request.request_id] = delivery
            made.append(delivery)
        return made

    # --- background thread ------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.poll()
            except Exception as exc:  # pylint: disable=broad-except
                # keep serving: a failed pass is retried from the same block next time
                with self._lock:
                    self._state.errors.append(
                        f"poll from block {self._state.next_block} failed: "
                        f"{type(exc).__name__}: {exc}"
                    )
            self._stop.wait(self.interval)

    def start(self) -> "Responder":
        """Start polling in a daemon thread.

        :return: this responder.
        """
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(
                target=self._run, name="devnet-responder", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread (waits for the current pass)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
            self._thread = None

    def __enter__(self) -> "Responder":
        """Start the background thread.

        :return: this responder.
        """
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        """Stop the background thread.

        :param exc_info: the exception, if any (not suppressed).
        """
        self.stop()

    def wait_for(self, request_id: bytes, timeout: float = 60.0) -> Delivery:
        """Wait until the background thread delivered ``request_id``.

        :param request_id: the request id.
        :param timeout: seconds.
        :return: the delivery.
        :raises TimeoutError: when it was not delivered in time (with the poll errors).
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            delivered = self.delivered.get(request_id)
            if delivered is not None:
                return delivered
            time.sleep(0.1)
        raise TimeoutError(
            f"the devnet responder did not deliver request 0x{request_id.hex()} within "
            f"{timeout} s; last poll errors: {self.errors[-3:] or 'none'}"
        )


def devnet_for(state_dir: Optional[Path]) -> DevnetInfo:
    """The running devnet the responder answers on, found as the CLI's ``--devnet`` finds it.

    :param state_dir: ``--devnet-dir``/``--state-dir``, or None for the CLI's rule
        (:func:`mech_catalogue_cli.devnet.locate.find_devnet`: ``$MECH_CATALOGUE_DEVNET_DIR``,
        else whichever of ``.devnet`` (``make devnet-up``) and ``.run/devnet``
        (``make run``) runs, the newer when both do).
    :return: the devnet's ``devnet.json``.
    :raises ClickException: when no running devnet is there (the message names the
        folders looked in and the command that starts one).
    """
    try:
        return find_devnet(None if state_dir is None else str(state_dir))
    except DevnetNotFound as exc:
        raise click.ClickException(str(exc)) from exc


#: what ``--help`` says (the command's docstring holds fields for developers)
HELP = (
    "Answer marketplace requests to MECH on the devnet (a stand-in mech operator). "
    "Runs until Ctrl-C (or one pass with --once); exits with a one-line error when no "
    "devnet runs or when it stops answering."
)


@click.command(help=HELP)
@click.option(
    "--mech",
    "mechs",
    multiple=True,
    required=True,
    help="A mech address to answer for (repeatable).",
)
@click.option(
    "--devnet-dir",
    "--state-dir",
    "state_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder of the devnet's devnet.json. Default: as the CLI's --devnet, "
    f"${DEVNET_DIR_ENV}, else the running one of .devnet (make devnet-up) and "
    ".run/devnet (make run).",
)
@click.option("--from-block", type=int, default=0, show_default=True)
@click.option("--interval", type=float, default=1.0, show_default=True)
@click.option("--once", is_flag=True, help="Answer what is pending, then exit.")
def main(
    mechs: Tuple[str, ...],
    state_dir: Optional[Path],
    from_block: int,
    interval: float,
    once: bool,
) -> None:
    """Answer marketplace requests to MECH on the devnet (a stand-in mech operator).

    ``--help`` shows :data:`HELP`, not this docstring's fields.

    :param mechs: the mech addresses.
    :param state_dir: the devnet state folder, or None for the CLI's rule.
    :param from_block: the first block read.
    :param interval: seconds between polls.
    :param once: exit after one pass.
    :raises ClickException: when no devnet runs, or its chain or IPFS node stops
        answering (a connection error, not a traceback).
    """
    info = devnet_for(state_dir)
    try:
        responder = Responder(info, mechs, from_block=from_block, interval=interval)
        while True:
            for delivery in responder.poll():
                click.echo(
                    f"delivered 0x{delivery.request_id.hex()} for {delivery.mech}: "
                    f"{delivery.response_cid} (tx {delivery.tx_hash})"
                )
            if once:
                return
            time.sleep(interval)
    except OSError as exc:  # requests' ConnectionError is one: anvil or kubo stopped
        raise click.ClickException(
            f"the devnet in {info.state_dir} stopped answering ({info.rpc_url}: "
            f"{type(exc).__name__}); start it again and rerun this command"
        ) from exc


if __name__ == "__main__":
    main()  # pylint: disable=no-value-for-parameter
