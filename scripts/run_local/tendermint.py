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

"""A local network of Tendermint 0.34.19 nodes, one per agent, on loopback ports.

``tendermint testnet`` writes the validator keys and one genesis with every validator;
each node's ``config.toml`` is then pointed at loopback ports, with the other nodes as
persistent peers (same IP, different ports: ``allow_duplicate_ip``). Each node runs under
:mod:`scripts.run_local.tm_com_server`, which the agents' ``tendermint_com_url`` uses for
``/hard_reset`` at the end of every ``reset_tendermint_after`` periods.
"""

import json
import os
import re
import shutil
import subprocess  # nosec B404: runs the pinned tendermint binary only
import sys
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

from scripts.devnet.processes import ProcessError, is_alive, spawn, stop_pid
from scripts.run_local.agents import AgentPorts
from scripts.toolchain import BIN_DIR, tool_path


@dataclass
class TendermintNode:
    """One node: its home folder, ports and processes.

    :param index: 0-based node index (matches the agent index).
    :param home: its ``TMHOME``.
    :param ports: the ports of the agent it serves.
    :param node_id: its P2P node id.
    :param pid: the control server's pid once started.
    """

    index: int
    home: Path
    ports: AgentPorts
    node_id: str = ""
    pid: Optional[int] = None

    @property
    def pid_file(self) -> Path:
        """:return: file holding the Tendermint process's current pid."""
        return self.home.parent / f"node{self.index}.tendermint.pid"

    @property
    def log_path(self) -> Path:
        """:return: the control server's output."""
        return self.home.parent / f"node{self.index}.out"

    def height(self) -> int:
        """Ask the node's RPC ``/status`` (OSError when it does not answer).

        :return: the node's latest block height.
        """
        with urllib.request.urlopen(  # nosec B310: loopback http only
            f"http://127.0.0.1:{self.ports.tendermint_rpc}/status", timeout=2
        ) as response:
            return int(
                json.load(response)["result"]["sync_info"]["latest_block_height"]
            )


def _patch_config(config: Path, node: TendermintNode, peers: List[str]) -> None:
    text = config.read_text()
    settings = {
        "proxy_app": f'"tcp://127.0.0.1:{node.ports.abci}"',
        "persistent_peers": f'"{",".join(peers)}"',
        "allow_duplicate_ip": "true",
        "addr_book_strict": "false",
        "timeout_commit": '"1s"',
    }
    for key, value in settings.items():
        text, count = re.subn(rf"(?m)^{key} = .*$", f"{key} = {value}", text)
        if count == 0:
            raise ProcessError(
                f"{config} has no `{key}` setting; is it a Tendermint 0.34 config?"
            )
    # the [rpc] and [p2p] laddr settings are passed on the command line by the control server
    config.write_text(text)


@dataclass
class TendermintNetwork:
    """N validators that only know each other.

    :param base_dir: folder of the node homes and logs.
    :param ports: one entry per node (= per agent).
    :param nodes: filled by :meth:`create`.
    """

    base_dir: Path
    ports: List[AgentPorts]
    nodes: List[TendermintNode] = field(default_factory=list)

    def create(self) -> None:
        """Write every node's keys, the shared genesis and the configs.

        :raises ProcessError: when ``tendermint testnet`` fails.
        """
        binary = str(tool_path("tendermint"))
        out = self.base_dir / "tendermint"
        if out.exists():
            shutil.rmtree(out)
        done = subprocess.run(  # nosec B603
            [
                binary,
                "testnet",
                "--v",
                str(len(self.ports)),
                "--o",
                str(out),
                "--populate-persistent-peers=false",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise ProcessError(f"tendermint testnet failed: {done.stdout}{done.stderr}")
        self.nodes = []
        for index, ports in enumerate(self.ports):
            home = out / f"node{index}"
            node_id = subprocess.run(  # nosec B603
                [binary, "show-node-id", "--home", str(home)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            self.nodes.append(TendermintNode(index, home, ports, node_id))
        for node in self.nodes:
            peers = [
                f"{peer.node_id}@127.0.0.1:{peer.ports.tendermint_p2p}"
                for peer in self.nodes
                if peer is not node
            ]
            _patch_config(node.home / "config" / "config.toml", node, peers)

    def _env(self, node: TendermintNode) -> Dict[str, str]:
        env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        env.update(
            {
                "PATH": f"{BIN_DIR}{os.pathsep}{env.get('PATH', '')}",
                "TMHOME": str(node.home),
                "TMSTATE": str(node.home.parent / f"node{node.index}.state"),
                "PROXY_APP": f"tcp://127.0.0.1:{node.ports.abci}",
                "RPC_LADDR": f"tcp://127.0.0.1:{node.ports.tendermint_rpc}",
                "P2P_LADDR": f"tcp://127.0.0.1:{node.ports.tendermint_p2p}",
                "CREATE_EMPTY_BLOCKS": "true",
                "USE_GRPC": "false",
                "LOG_FILE": str(node.home.parent / f"node{node.index}.log"),
                "ID": str(node.index),
            }
        )
        return env

    def start(self) -> None:
        """Start every node under its control server (Tendermint then dials its agent's ABCI port)."""
        for node in self.nodes:
            node.log_path.unlink(missing_ok=True)
            node.pid = spawn(
                [
                    sys.executable,
                    "-m",
                    "scripts.run_local.tm_com_server",
                    "--port",
                    str(node.ports.tendermint_com),
                    "--pid-file",
                    str(node.pid_file),
                ],
                node.log_path,
                self._env(node),
                cwd=Path(__file__).resolve().parents[2],
                inherit_env=False,
            )

    def alive(self) -> bool:
        """:return: whether every control server runs."""
        return all(is_alive(node.pid) for node in self.nodes)

    def stop(self) -> None:
        """Stop every control server (it stops its node), then any node left, by pid."""
        for node in self.nodes:
            stop_pid(node.pid, timeout=10.0)
            if node.pid_file.exists():
                text = node.pid_file.read_text().strip()
                if text.isdigit():
                    stop_pid(int(text), timeout=5.0)
