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

"""Start a throwaway kubo (IPFS) node on 127.0.0.2 (its RPC client is the CLI's ``IpfsApi``).

The node listens on ``127.0.0.2``, not ``127.0.0.1``: the ``valory/ipfs`` connection
treats ``127.0.0.1``/``localhost``/``0.0.0.0`` as a local daemon it manages, and then demands
an ``ipfs`` 0.6.0 binary; another loopback address is used as is (docs/running.md,
``IPFS_DOMAIN``).
"""

import json
import subprocess  # nosec B404: runs the pinned ipfs binary only
from dataclasses import dataclass
from pathlib import Path

from mech_catalogue_cli.publisher.ipfs import IpfsApi
from scripts.devnet.processes import free_port, spawn, wait_until
from scripts.toolchain import tool_path

HOST = "127.0.0.2"
HTTP_TIMEOUT = 10.0
#: most bytes the devnet reads back from its node (tests read multi-chunk files back)
READ_CAP = 64 * 1024 * 1024


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
    client = IpfsApi(api_url, timeout=HTTP_TIMEOUT)
    wait_until(client.is_ready, timeout, "kubo", pid, log_path)
    return KuboProcess(
        pid=pid,
        api_url=api_url,
        api_multiaddr=f"/ip4/{HOST}/tcp/{api_port}/http",
        gateway_url=gateway_url,
        ipfs_path=ipfs_path,
        log_path=log_path,
    )


__all__ = ["HOST", "HTTP_TIMEOUT", "READ_CAP", "KuboProcess", "start_kubo"]
