"""Start a throwaway kubo (IPFS) node on 127.0.0.2 and talk to its HTTP API.

The node listens on ``127.0.0.2``, not ``127.0.0.1``: the ``valory/ipfs`` connection
treats ``127.0.0.1``/``localhost`` as a local daemon it manages (DESIGN.md §6).
"""

import hashlib
import json
import subprocess  # nosec B404: runs the pinned ipfs binary only
from dataclasses import dataclass
from pathlib import Path
from typing import Tuple

import requests

from scripts.devnet.cid import DAG_PB, RAW, decode_cid_v1
from scripts.devnet.processes import free_port, spawn, wait_until
from scripts.toolchain import tool_path

HOST = "127.0.0.2"
HTTP_TIMEOUT = 10.0


@dataclass(frozen=True)
class KuboProcess:
    """A running kubo daemon."""

    pid: int
    api_url: str
    api_multiaddr: str
    gateway_url: str
    ipfs_path: Path
    log_path: Path


def _init_repo(ipfs_path: Path, api_port: int, gateway_port: int) -> None:
    """Create the repo with the ``test`` profile, then bind API and gateway on 127.0.0.2."""
    env = {"IPFS_PATH": str(ipfs_path), "PATH": "/usr/bin:/bin"}
    subprocess.run(  # nosec B603
        [str(tool_path("ipfs")), "init", "--profile", "test", "--empty-repo"],
        env=env,
        check=True,
        capture_output=True,
        timeout=60,
    )
    config_path = ipfs_path / "config"
    config = json.loads(config_path.read_text())
    config["Addresses"]["API"] = f"/ip4/{HOST}/tcp/{api_port}"
    config["Addresses"]["Gateway"] = f"/ip4/{HOST}/tcp/{gateway_port}"
    config["Addresses"]["Swarm"] = []
    config["Bootstrap"] = []
    config_path.write_text(json.dumps(config, indent=2))


def start_kubo(state_dir: Path, timeout: float = 30.0) -> KuboProcess:
    """Initialise a fresh repo under ``state_dir/ipfs`` and run ``ipfs daemon --offline``.

    :param state_dir: the devnet state folder; the repo goes to ``ipfs/``, the log to ``kubo.log``.
    :param timeout: seconds to wait for the API to answer.
    :return: the process description. A missing kubo raises
        ``scripts.toolchain.MissingTool``; a daemon that does not answer in time raises
        ``scripts.devnet.processes.ProcessError``.
    """
    binary = tool_path("ipfs")
    ipfs_path = state_dir / "ipfs"
    api_port = free_port(HOST)
    gateway_port = free_port(HOST)
    _init_repo(ipfs_path, api_port, gateway_port)
    log_path = state_dir / "kubo.log"
    pid = spawn(
        [str(binary), "daemon", "--offline"],
        log_path,
        env={"IPFS_PATH": str(ipfs_path)},
    )
    api_url = f"http://{HOST}:{api_port}"
    gateway_url = f"http://{HOST}:{gateway_port}"
    client = KuboClient(api_url)
    wait_until(client.is_ready, timeout, "kubo", pid, log_path)
    return KuboProcess(
        pid=pid,
        api_url=api_url,
        api_multiaddr=f"/ip4/{HOST}/tcp/{api_port}/http",
        gateway_url=gateway_url,
        ipfs_path=ipfs_path,
        log_path=log_path,
    )


class KuboClient:
    """The few kubo RPC calls the devnet needs (``/api/v0/...``, all POST)."""

    def __init__(self, api_url: str) -> None:
        """Bind to a kubo RPC endpoint.

        :param api_url: e.g. ``http://127.0.0.2:5001``.
        """
        self.api_url = api_url.rstrip("/")

    def is_ready(self) -> bool:
        """Tell whether the daemon answers ``/api/v0/version``.

        :return: ``True`` when it does.
        """
        response = requests.post(f"{self.api_url}/api/v0/version", timeout=5)
        return response.ok

    def add(self, data: bytes, raw_leaves: bool = False) -> Tuple[str, bytes]:
        """Add and pin ``data`` as a CIDv1 file.

        Kubo's ``cid-version=1`` implies raw leaves unless told otherwise; by default this
        asks for dag-pb leaves explicitly, which is what the registries' ``f01701220``
        prefix (CIDv1, dag-pb, sha2-256) assumes. With ``raw_leaves=True`` a file that
        fits in one chunk (256 KiB) gets a raw-codec CID whose digest is sha256(data).

        :param data: the file content.
        :param raw_leaves: store leaves as raw blocks instead of UnixFS dag-pb nodes.
        :return: ``(cid, digest)``: base32 CIDv1 text and its 32 sha2-256 digest bytes,
            the value to store on chain. ``requests.HTTPError`` when kubo refuses.
        """
        params = {
            "cid-version": "1",
            "raw-leaves": "true" if raw_leaves else "false",
            "pin": "true",
        }
        response = requests.post(
            f"{self.api_url}/api/v0/add",
            params=params,
            files={"file": ("manifest.json", data)},
            timeout=HTTP_TIMEOUT,
        )
        response.raise_for_status()
        cid = response.json()["Hash"]
        _, digest = decode_cid_v1(cid)
        return cid, digest

    def add_directory(self, folder: Path) -> str:
        """Add and pin a directory (``ipfs add -r``, CIDv1, dag-pb leaves) as a tool package.

        :param folder: the directory; its files (not subfolders) are added under its name,
            as ``autonomy push`` stores a package.
        :return: the CID of the directory named like ``folder`` (not of the wrapper).
            ``requests.HTTPError`` when kubo refuses.
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
        response = requests.post(
            f"{self.api_url}/api/v0/add",
            params={"cid-version": "1", "raw-leaves": "false", "pin": "true"},
            files=parts,
            timeout=HTTP_TIMEOUT,
        )
        response.raise_for_status()
        entries = [json.loads(line) for line in response.text.splitlines() if line]
        return next(e["Hash"] for e in entries if e["Name"] == folder.name)

    def cat(self, cid: str) -> bytes:
        """Return the file bytes of ``cid``.

        :param cid: a CID known to the node.
        :return: the content. ``requests.HTTPError`` when kubo does not have it
            (offline: not stored locally).
        """
        response = requests.post(
            f"{self.api_url}/api/v0/cat", params={"arg": cid}, timeout=HTTP_TIMEOUT
        )
        response.raise_for_status()
        return response.content

    def block(self, cid: str) -> bytes:
        """Return the raw block of ``cid`` (for dag-pb: the UnixFS protobuf node).

        :param cid: a CID known to the node.
        :return: the block bytes, whose sha256 is the CID's digest.
            ``requests.HTTPError`` when kubo does not have it.
        """
        response = requests.post(
            f"{self.api_url}/api/v0/block/get",
            params={"arg": cid},
            timeout=HTTP_TIMEOUT,
        )
        response.raise_for_status()
        return response.content


def raw_digest(data: bytes) -> bytes:
    """sha256 of ``data``: the digest of a raw-codec CID of a single-chunk file.

    :param data: the file content.
    :return: 32 bytes.
    """
    return hashlib.sha256(data).digest()


__all__ = [
    "DAG_PB",
    "RAW",
    "HOST",
    "KuboClient",
    "KuboProcess",
    "raw_digest",
    "start_kubo",
]
