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

"""Publishing's view of a kubo node: ``add`` (pinned, CIDv1), ``cat``, ``block``, ``is_ready``.

Used by ``publish``, by the devnet (scripts/devnet seeds manifests through it) and by the
tests. Kubo RPC reference: https://docs.ipfs.tech/reference/kubo/rpc/ (``/api/v0/add``,
``/api/v0/cat``, ``/api/v0/block/get``, ``/api/v0/version``; every call is a POST), sent
through the CLI's one IPFS adapter (:class:`mech_catalogue_cli.adapters.ipfs.KuboRpc`),
whose failures become ``PublishError`` IPFS_UNAVAILABLE saying nothing was sent on
chain. Reads stop one byte past the byte cap (``cat``'s ``length`` argument and a capped
read, ``ipfs.size_cap``).
"""

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List

from mech_catalogue_core.ipfs.size_cap import (
    cat_params,
)
from mech_catalogue_core.model.limits import (
    DEFAULT_LIMITS,
)
from mech_catalogue_core.publish.publish import (
    IPFS_UNAVAILABLE,
    PublishError,
)

from mech_catalogue_cli.adapters.ipfs import (
    STATUS,
    IpfsTransportError,
    KuboRpc,
)
from mech_catalogue_cli.adapters.urls import redacted_url

DEFAULT_IPFS_TIMEOUT = 10.0


class IpfsApi:
    """A kubo RPC endpoint (e.g. ``http://127.0.0.2:5001``).

    :param api_url: base URL of the node's RPC API.
    :param timeout: seconds per request.
    :param cap: most bytes read back.
    """

    def __init__(
        self,
        api_url: str,
        timeout: float = DEFAULT_IPFS_TIMEOUT,
        cap: int = DEFAULT_LIMITS.max_bytes,
    ) -> None:
        """Bind to the node.

        :param api_url: base URL of the node's RPC API.
        :param timeout: seconds per request.
        :param cap: most bytes read back.
        """
        self.api_url = api_url.rstrip("/")
        self.timeout = timeout
        self.cap = cap
        self.kubo = KuboRpc(self.api_url, timeout)

    @contextmanager
    def _failures(self, what: str) -> Iterator[None]:
        """Turn the adapter's failures of ``what`` into IPFS_UNAVAILABLE.

        :param what: the command (and its CID) as messages name it.
        :yield: nothing.
        :raises PublishError: IPFS_UNAVAILABLE, saying nothing was sent on chain.
        """
        node = redacted_url(self.api_url)
        try:
            yield
        except IpfsTransportError as exc:
            if exc.kind == STATUS:
                message = (
                    f"The IPFS node at {node} refused {what}: HTTP {exc.status} "
                    f"{exc.detail}. Nothing was sent on chain."
                )
            else:
                cause = type(exc.__cause__).__name__ if exc.__cause__ else exc.kind
                message = (
                    f"The IPFS node at {node} did not answer {what} ({cause}); start "
                    "it or pass --ipfs-api. Nothing was sent on chain."
                )
            raise PublishError(IPFS_UNAVAILABLE, message) from exc

    def is_ready(self) -> bool:
        """Tell whether the node answers ``/api/v0/version``.

        :return: ``True`` when it does (``False`` when down or refusing).
        """
        try:
            with self.kubo.post("version", {}):
                return True
        except IpfsTransportError:
            return False

    def add(self, data: bytes, raw_leaves: bool = False) -> str:
        """Add and pin ``data`` as CIDv1, with dag-pb leaves unless ``raw_leaves``.

        Kubo's ``cid-version=1`` implies raw leaves unless told otherwise; dag-pb leaves
        are what the registries' ``f01701220`` prefix (CIDv1, dag-pb, sha2-256) assumes.
        With ``raw_leaves`` a file that fits in one chunk (256 KiB) gets a raw-codec CID
        whose digest is sha256(data) (the devnet seeds such manifests on purpose).

        :param data: the file bytes.
        :param raw_leaves: store leaves as raw blocks instead of UnixFS dag-pb nodes.
        :return: the CID the node reports.
        :raises PublishError: IPFS_UNAVAILABLE when the node is down or refuses, or
            answers without a CID.
        """
        params = {
            "cid-version": "1",
            "raw-leaves": "true" if raw_leaves else "false",
            "pin": "true",
            "hash": "sha2-256",
        }
        entries = self._add(params, {"file": ("manifest.json", data)})
        if not entries or "Hash" not in entries[-1]:
            raise PublishError(
                IPFS_UNAVAILABLE,
                f"The IPFS node at {redacted_url(self.api_url)} answered add without a "
                "Hash; is it a kubo RPC API?",
            )
        return str(entries[-1]["Hash"])

    def _add(self, params: Dict[str, str], files: Any) -> List[Dict[str, Any]]:
        with self._failures("add"):
            return self.kubo.add(params, files)

    def add_directory(self, folder: Path) -> str:
        """Add and pin a folder's files under its name (``ipfs add -r``, CIDv1, dag-pb leaves).

        This is how ``autonomy push`` stores a package; the devnet stores tool packages
        so. Subfolders are not added.

        :param folder: the folder.
        :return: the CID of the folder named like ``folder`` (not of kubo's wrapper).
        :raises PublishError: IPFS_UNAVAILABLE when the node is down or refuses, or its
            answer names no entry for the folder.
        """
        parts = [("file", (folder.name, b"", "application/x-directory"))]
        parts += [
            (
                "file",
                (f"{folder.name}/{p.name}", p.read_bytes(), "application/octet-stream"),
            )
            for p in sorted(folder.iterdir())
            if p.is_file()
        ]
        params = {"cid-version": "1", "raw-leaves": "false", "pin": "true"}
        entries = self._add(params, parts)
        found = [str(e["Hash"]) for e in entries if e.get("Name") == folder.name]
        if not found or not found[0]:
            raise PublishError(
                IPFS_UNAVAILABLE,
                f"The IPFS node at {redacted_url(self.api_url)} answered add of folder "
                f"{folder} without its CID; is it a kubo RPC API?",
            )
        return found[0]

    def cat(self, cid: str) -> bytes:
        """Read a file back, at most :attr:`cap` + 1 bytes.

        :param cid: the CID.
        :return: the bytes; ``PublishError`` IPFS_UNAVAILABLE when the node is down or
            does not have it.
        """
        return self._read("cat", cat_params(cid, self.cap))

    def block(self, cid: str) -> bytes:
        """Read the raw block of ``cid`` (for dag-pb: the UnixFS protobuf node), capped.

        :param cid: the CID.
        :return: at most :attr:`cap` + 1 bytes of the block, whose sha256 is the CID's
            digest; ``PublishError`` IPFS_UNAVAILABLE when the node is down or does not
            have it.
        """
        return self._read("block/get", {"arg": cid})

    def _read(self, command: str, params: Dict[str, str]) -> bytes:
        with self._failures(f"{command} {params['arg']}"):
            return self.kubo.read(command, params, self.cap)
