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

"""Request upload (kubo RPC API) and verified response fetch (HTTP gateway).

Both through the CLI's one IPFS adapter (:mod:`mech_catalogue_cli.adapters.ipfs`:
``KuboRpc.add``, ``gateway_bytes`` capped at :data:`MAX_RESPONSE_BYTES`); its failures
become :class:`IpfsError`, naming the node by scheme and host only.

Request: the payload JSON is added with ``cid-version=0`` (dag-pb root, as
mech-interact's ``send_to_ipfs`` stores it), so the marketplace request ``data`` is the
root's 32-byte sha2-256 digest (mech-interact sends ``f01701220`` + that hex, cut after
the prefix).

Response: a mech delivers the 32-byte digest of a dag-pb directory holding a file named
by the request id in decimal (mech-interact fetches ``<gateway>/f01701220<hex>/<id>``).
Nothing is trusted from the gateway: the directory block is fetched raw
(``?format=raw``) and its sha2-256 compared with the delivered digest, the link named by
the request id is read from it (``domain.ipfs.dag_pb``), and
the file's bytes are re-hashed against that link's CID
(``domain.ipfs.cid.verify``). A delivery whose digest is a file rather than a directory is
verified the same way against the digest itself.
"""

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any, Dict, Tuple

from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    cid_to_digest,
    digest_to_cid,
    verify,
)
from mech_catalogue_core.ipfs.dag_pb import (
    DagPbError,
    decode_node,
)

from mech_catalogue_cli.adapters.http import DeadlineExceeded, Session, new_session
from mech_catalogue_cli.adapters.ipfs import (
    IpfsTransportError,
    KuboRpc,
    gateway_bytes,
)
from mech_catalogue_cli.adapters.urls import redacted_url

#: largest response this server reads (1 MiB), like the manifest byte cap
MAX_RESPONSE_BYTES = 1 << 20


class IpfsError(RuntimeError):
    """An upload or fetch failed, or the bytes did not match their digest."""


@dataclass(frozen=True)
class Uploaded:
    """A request payload on IPFS.

    :param cid: the CIDv0 kubo returned.
    :param digest: its sha2-256 digest, 0x + 64 hex (the marketplace request data).
    :param size: bytes uploaded.
    """

    cid: str
    digest: str
    size: int


def payload_bytes(payload: Dict[str, Any]) -> bytes:
    """Encode a request payload as uploaded (sorted keys, UTF-8, compact).

    :param payload: the request payload.
    :return: its bytes.
    """
    return json.dumps(
        payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")


def upload_json(api_url: str, payload: Dict[str, Any], timeout: float) -> Uploaded:
    """Add a payload through kubo's RPC API (``POST /api/v0/add``), pinned.

    :param api_url: the kubo RPC API base URL (``http://host:5001``).
    :param payload: the request payload.
    :param timeout: seconds.
    :return: the CID and digest.
    :raises IpfsError: when the node refuses or is unreachable.
    """
    data = payload_bytes(payload)
    node = redacted_url(api_url)
    try:
        entries = KuboRpc(api_url, timeout).add(
            {"cid-version": "0", "pin": "true"}, {"file": ("metadata.json", data)}
        )
        cid = str(entries[-1]["Hash"])
    except (IpfsTransportError, IndexError, KeyError) as exc:
        raise IpfsError(
            f"cannot add the request to IPFS through {node} ({_why(exc)}); "
            "check --ipfs-api and that the node runs"
        ) from exc
    codec, digest = cid_to_digest(cid)
    if codec != DAG_PB:
        raise IpfsError(f"{node} stored the request as {codec}, not dag-pb")
    return Uploaded(cid, digest, len(data))


def directory_links(block: bytes) -> Dict[str, str]:
    """Return a dag-pb directory block's links by name.

    :param block: the raw block, already checked against its digest.
    :return: link name -> the linked block's CID text.
    :raises IpfsError: when the block is not dag-pb or a link is not a sha2-256 CID.
    """
    try:
        return dict(decode_node(block).links)
    except DagPbError as exc:
        raise IpfsError(
            f"the delivered block is not a readable directory ({exc})"
        ) from exc


def _why(exc: Exception) -> str:
    """Name a failure briefly: the transport error's type, an HTTP status, or the kind.

    :param exc: the adapter's error (or a missing ``Hash``).
    :return: e.g. ``ConnectionError``, ``HTTP 500``.
    """
    if isinstance(exc, IpfsTransportError):
        if exc.status is not None:
            return f"HTTP {exc.status}"
        if exc.__cause__ is not None:
            return type(exc.__cause__).__name__
        return exc.kind
    return type(exc).__name__


def _get(session: Session, gateway: str, path: str, ends: Tuple[float, float]) -> bytes:
    timeout, at = ends
    left = at - time.monotonic()
    if left <= 0:
        raise IpfsError(
            f"GET /{path} from {redacted_url(gateway)} not started: the response's "
            f"fetch did not finish within {timeout:g} s"
        )
    try:
        return gateway_bytes(session, gateway, path, left, MAX_RESPONSE_BYTES)
    except IpfsTransportError as exc:
        if isinstance(exc.__cause__, DeadlineExceeded):
            raise IpfsError(
                f"GET /{path} from {redacted_url(gateway)} failed: the response's "
                f"fetch did not finish within {timeout:g} s"
            ) from exc
        raise IpfsError(str(exc)) from exc


def fetch_response(
    gateway_url: str, digest: bytes, request_id: int, timeout: float
) -> Tuple[bytes, str]:
    """Fetch a delivered response and verify it against the delivered digest.

    :param gateway_url: the IPFS gateway base URL.
    :param digest: the delivery data (32 bytes).
    :param request_id: the request id as an integer (the file's name in the directory).
    :param timeout: seconds for the whole fetch (its two or three GETs, bodies
        included: ``--io-timeout``).
    :return: ``(bytes, CID they were verified against)``.
    :raises IpfsError: when the digest is not 32 bytes, the gateway fails, or a block
        or file does not hash to what it should.
    """
    if len(digest) != 32:
        raise IpfsError(
            f"the delivery data is {len(digest)} bytes, not a 32-byte IPFS digest"
        )
    session = new_session()
    ends = (timeout, time.monotonic() + timeout)
    root = digest_to_cid(digest, DAG_PB)
    block = _get(session, gateway_url, f"ipfs/{root}?format=raw", ends)
    if hashlib.sha256(block).digest() != digest:
        raise IpfsError(f"the gateway's block for {root} does not hash to it")
    child_text = directory_links(block).get(str(request_id))
    if child_text is None:  # a file delivered directly
        data = _get(session, gateway_url, f"ipfs/{root}", ends)
        checked = verify(data, digest, DAG_PB)
        if not checked.ok:
            raise IpfsError(
                f"{root} holds no file named {request_id} and its bytes do not hash to it"
            )
        return data, root
    data = _get(session, gateway_url, f"ipfs/{child_text}", ends)
    codec, child_digest = cid_to_digest(child_text)
    if not verify(data, child_digest, codec).ok:
        raise IpfsError(f"{root}/{request_id} ({child_text}) does not hash to its CID")
    return data, child_text
