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

"""Read a manifest from a file, a CID or an on-chain digest (fetched from an IPFS gateway).

Fetched bytes (:func:`.adapters.ipfs.gateway_file`) are re-hashed against the CID/digest
(``mech_catalogue_core.ipfs.cid.verify``) before use, with a byte cap
(``model.limits.DEFAULT_LIMITS.max_bytes``, enforced while reading:
``ipfs.size_cap``) and a timeout. Only the gateway URL
given is contacted (default from ``MECH_CATALOGUE_IPFS_GATEWAY``).
"""

import os
import re
from dataclasses import dataclass
from pathlib import Path

from mech_catalogue_core.ipfs import cid as cids
from mech_catalogue_core.model.limits import (
    DEFAULT_LIMITS,
)
from mech_catalogue_core.model.problems import (
    TOO_LARGE,
)

from .adapters.ipfs import gateway_file
from .adapters.urls import redacted_url
from .output import CliFailure

GATEWAY_ENV = "MECH_CATALOGUE_IPFS_GATEWAY"
DEFAULT_GATEWAY = "http://127.0.0.1:8080"
TIMEOUT_ENV = "MECH_CATALOGUE_IPFS_TIMEOUT"
DEFAULT_TIMEOUT = 10.0
_DIGEST = re.compile(r"^(0x)?[0-9a-fA-F]{64}$")

FILE_NOT_READABLE = "file_not_readable"
FILE_NOT_FOUND = "file_not_found"
_CID_FORMS = ("ipfs://", "/ipfs/")
FETCH_FAILED = "fetch_failed"


@dataclass(frozen=True)
class Loaded:
    """Manifest bytes and where they came from.

    :param data: the bytes.
    :param origin: the file path, or the CID fetched.
    :param cid: the CID when fetched from IPFS ("" for files).
    """

    data: bytes
    origin: str
    cid: str = ""


def default_gateway() -> str:
    """Return ``$MECH_CATALOGUE_IPFS_GATEWAY`` or :data:`DEFAULT_GATEWAY`.

    :return: ``$MECH_CATALOGUE_IPFS_GATEWAY`` or :data:`DEFAULT_GATEWAY`.
    """
    return os.environ.get(GATEWAY_ENV, DEFAULT_GATEWAY)


def read_file(path: Path, cap: int = DEFAULT_LIMITS.max_bytes) -> bytes:
    """Return its bytes.

    :param path: a file.
    :param cap: most bytes accepted.
    :return: its bytes.
    :raises CliFailure: when unreadable or larger than cap.
    """
    try:
        with path.open("rb") as handle:
            data = handle.read(cap + 1)
    except OSError as exc:
        raise CliFailure(
            FILE_NOT_READABLE, f"Cannot read {path}: {exc.strerror or exc}."
        ) from exc
    if len(data) > cap:
        raise CliFailure(
            TOO_LARGE, f"{path} is larger than {cap} bytes, the manifest cap."
        )
    return data


def load(source: str, gateway: str, timeout: float = DEFAULT_TIMEOUT) -> Loaded:
    """Load manifest bytes from a path, a CID or a bytes32 digest.

    :param source: an existing file path, a CID in any textual form (v0, v1 in any
        multibase, ``ipfs://<cid>``, ``/ipfs/<cid>``), or a 0x + 64 hex digest.
    :param gateway: IPFS HTTP gateway base URL (``GET <gateway>/ipfs/<cid>``).
    :param timeout: seconds per request.
    :return: the bytes, verified against the CID/digest when fetched.
    :raises CliFailure: ``file_not_found`` when the source names a path (it has a folder
        separator or a file extension) that does not exist; ``file_not_readable`` when
        the file cannot be read; the CID's code (``invalid_cid``, ...) when it is neither
        a file nor a CID/digest; ``fetch_failed`` when the gateway fails; the
        verification's code when the bytes do not match the hash.
    """
    path = Path(source)
    if path.exists():
        return Loaded(read_file(path), str(path))
    if source.lower().startswith("0x") or _DIGEST.match(source):
        try:
            cids.normalise_digest(source)
        except cids.CidError as exc:
            raise CliFailure(exc.problem.code, exc.problem.message) from exc
        last: CliFailure = CliFailure(FETCH_FAILED, "no CID tried")
        for candidate in cids.candidate_cids(source):
            try:
                return _fetch(candidate, gateway, timeout)
            except CliFailure as failure:
                last = failure
        raise CliFailure(last.code, last.message)
    try:
        cids.cid_to_digest(source)
    except cids.CidError as exc:
        if _names_a_path(source):
            raise CliFailure(
                FILE_NOT_FOUND,
                f"No such file: {source} (looked from {Path.cwd()}). Pass an existing "
                "manifest file, a CID, or a 0x bytes32 digest.",
            ) from exc
        raise CliFailure(
            exc.problem.code,
            f"{source!r} is not an existing file, a CID, or a 0x bytes32 digest ({exc.problem.message})",
        ) from exc
    return _fetch(cids.strip_cid(source), gateway, timeout)


def _names_a_path(source: str) -> bool:
    """Tell whether a source that is not a CID was meant as a file.

    CIDs and digests have neither folder separators nor dots; ``ipfs://`` and ``/ipfs/``
    forms are CIDs.

    :param source: the command-line argument.
    :return: True when it has a folder separator, a file extension, or starts with ``~``.
    """
    if source.lower().startswith(_CID_FORMS):
        return False
    path = Path(source)
    return (
        os.sep in source or "/" in source or bool(path.suffix) or source.startswith("~")
    )


def _fetch(cid_text: str, gateway: str, timeout: float) -> Loaded:
    codec, digest = cids.cid_to_digest(cid_text)
    cap = DEFAULT_LIMITS.max_bytes
    data, error = gateway_file(gateway, cid_text, timeout, cap)
    if data is None:
        raise CliFailure(
            FETCH_FAILED,
            f"Fetching {cid_text} from {redacted_url(gateway)} failed: {error}. Check --ipfs-gateway "
            "(or pass --devnet to read from the local devnet's gateway).",
        )
    if len(data) > cap:
        raise CliFailure(
            TOO_LARGE,
            f"{cid_text} is larger than {cap} bytes, the manifest cap; reading stopped there.",
        )
    verification = cids.verify(data, digest, codec)
    if not verification.ok:
        problem = verification.problem
        code = problem.code if problem else "digest_mismatch"
        message = problem.message if problem else "the bytes do not match the CID"
        raise CliFailure(
            code,
            f"{redacted_url(gateway)} returned bytes for {cid_text} that fail verification: {message}",
        )
    return Loaded(data, cid_text, cid_text)
