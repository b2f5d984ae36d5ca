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

"""Start and stop one tool metadata agent (``aea run``) with its environment.

The agent runs every connection but the ACN client (docs/running.md, "Running without the ACN"):
``aea -s run --connections <list>`` with a non-null ``default_connection`` in the agent's
``aea-config.yaml``. ``${VAR:type:default}`` placeholders are filled from the process
environment built by :func:`agent_env`.
"""

import json
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from mech_catalogue_cli.devnet.state import DevnetInfo
from scripts.devnet.processes import is_alive, spawn, stop_pid
from scripts.toolchain import REPO_ROOT

#: the domain library's folder in this checkout (``mech_catalogue_core`` is imported from it)
LIBRARY_DIR = REPO_ROOT / "libs" / "mech-catalogue-core"

#: every connection of the agent except valory/p2p_libp2p_client (no ACN node is reachable)
RUN_CONNECTIONS = (
    "mech_catalogue/capped_http_client:0.1.0",
    "mech_catalogue/http_server:0.1.0",
    "valory/abci:0.1.0",
    "valory/http_client:0.23.0",
    "valory/ipfs:0.1.0",
    "valory/ledger:0.19.0",
)

#: periods between Tendermint resets on the mock: never, in practice (see agent_env)
MOCK_RESET_TENDERMINT_AFTER = 10**9

#: devnet.json contract names -> registry kinds of the skill's ``registries`` parameter
DEVNET_REGISTRIES = (
    ("olas_agent_registry", "AgentRegistry"),
    ("legacy_mech_registry", "LegacyMechAgentRegistry"),
    ("complementary_service_metadata", "ComplementaryServiceMetadata"),
)


@dataclass
class AgentPorts:
    """Loopback ports of one agent.

    :param http: the catalogue API (``mech_catalogue/http_server``).
    :param tendermint_rpc: Tendermint RPC, or the mock RPC of the abci connection.
    :param abci: the ABCI server the Tendermint node dials (unused with the mock).
    :param tendermint_com: the Tendermint control server (``/hard_reset``); with the mock,
        the mock RPC serves those paths itself.
    :param tendermint_p2p: Tendermint P2P (unused with the mock).
    """

    http: int
    tendermint_rpc: int
    abci: int
    tendermint_com: int
    tendermint_p2p: int


def devnet_env(devnet: DevnetInfo) -> Dict[str, str]:
    """Environment overrides pointing the agent at a running devnet.

    :param devnet: the devnet's ``devnet.json`` content.
    :return: variables of the agent's ``aea-config.yaml`` (chain, registries, IPFS, and
        the devnet's MechMarketplace and legacy mech factory, so prices are served).
    """
    registries = [
        {"kind": kind, "address": devnet.contracts[name], "ids": "all"}
        for kind, name in DEVNET_REGISTRIES
        if name in devnet.contracts
    ]
    gateway = devnet.ipfs_gateway_url.rstrip("/")
    marketplace = {
        variable: devnet.contracts[name]
        for variable, name in (
            ("MARKETPLACE_ADDRESS", "MechMarketplace"),
            ("LEGACY_MECH_FACTORY_ADDRESS", "FixtureLegacyMechFactory"),
        )
        if name in devnet.contracts
    }
    if marketplace:
        # anvil mines a block per transaction and never reorganises: no margin needed
        marketplace["MARKETPLACE_CONFIRMATIONS"] = "0"
    return {
        **marketplace,
        "RPC_URL": devnet.rpc_url,
        "CHAIN_ID": str(devnet.chain_id),
        "MULTICALL2_ADDRESS": devnet.contracts["Multicall2"],
        "REGISTRIES": json.dumps(registries, separators=(",", ":")),
        "IPFS_GATEWAY_URL": gateway,
        "IPFS_ADDRESS": f"{gateway}/ipfs/",
        "IPFS_DOMAIN": devnet.ipfs_api_multiaddr,
        # anvil mines a block only per transaction: with the default interval (10) a
        # registry update would stay invisible until nine more transactions were mined
        "SNAPSHOT_BLOCK_INTERVAL": "1",
    }


def agent_env(
    ports: AgentPorts,
    participants: List[str],
    mock_tendermint: bool,
    log_file: Path,
    extra: Optional[Dict[str, str]] = None,
) -> Dict[str, str]:
    """The agent's environment: ports, Tendermint mode, participants, logs.

    :param ports: the agent's ports.
    :param participants: addresses of every agent of the service.
    :param mock_tendermint: True for the abci connection's mock (single agent only).
    :param log_file: the agent's log file.
    :param extra: more overrides (devnet, user settings), applied last.
    :return: the variables.
    """
    rpc = f"127.0.0.1:{ports.tendermint_rpc}"
    env = {
        "HTTP_SERVER_HOST": "127.0.0.1",
        "HTTP_SERVER_PORT": str(ports.http),
        "ABCI_HOST": "127.0.0.1",
        "ABCI_PORT": str(ports.abci),
        "ABCI_USE_MOCK": "true" if mock_tendermint else "false",
        "ABCI_USE_TENDERMINT": "false",
        "TENDERMINT_RPC_LADDR": f"tcp://{rpc}",
        "TENDERMINT_URL": f"http://{rpc}",
        # the mock (use_mock) serves /hard_reset and /gentle_reset on its RPC address
        "TENDERMINT_COM_URL": (
            f"http://{rpc}"
            if mock_tendermint
            else f"http://127.0.0.1:{ports.tendermint_com}"
        ),
        "TENDERMINT_P2P_URL": f"127.0.0.1:{ports.tendermint_p2p}",
        "ALL_PARTICIPANTS": json.dumps(participants),
        # the mock keeps no blocks to prune, so the mock run never asks for a Tendermint
        # reset (the skill follows one: tests/faults/test_agent_paused.py sets 1)
        **(
            {"RESET_TENDERMINT_AFTER": str(MOCK_RESET_TENDERMINT_AFTER)}
            if mock_tendermint
            else {}
        ),
        "LOG_FILE": str(log_file),
        "BENCHMARK_LOG_DIR": str(log_file.parent),
    }
    env.update(extra or {})
    return env


@dataclass
class AgentProcess:
    """One running agent.

    :param name: e.g. ``agent_0``.
    :param agent_dir: its folder (from ``workspace.make_agent``).
    :param address: its Ethereum address.
    :param ports: its ports.
    :param env: the environment overrides it runs with.
    :param pid: the ``aea run`` process id once started.
    """

    name: str
    agent_dir: Path
    address: str
    ports: AgentPorts
    env: Dict[str, str] = field(default_factory=dict)
    pid: Optional[int] = None

    @property
    def http_url(self) -> str:
        """:return: base URL of the agent's catalogue API."""
        return f"http://127.0.0.1:{self.ports.http}"

    @property
    def log_path(self) -> Path:
        """:return: the file receiving the agent's stdout and stderr."""
        return self.agent_dir.parent / f"{self.name}.out"

    def start(self) -> None:
        """Start ``aea -s run --connections ...`` detached, output to :attr:`log_path`."""
        # the repository root on PYTHONPATH would shadow the agent's vendor/ packages; the
        # domain library is this checkout's (a git worktree shares the virtualenv, whose
        # editable install may point at another checkout)
        env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        env["PYTHONPATH"] = str(LIBRARY_DIR)
        env.update(self.env)
        self.log_path.unlink(missing_ok=True)
        self.pid = spawn(
            [
                sys.executable,
                "-m",
                "aea.cli",
                "-s",
                "run",
                "--connections",
                ",".join(RUN_CONNECTIONS),
            ],
            self.log_path,
            env,
            cwd=self.agent_dir,
            inherit_env=False,
        )

    def alive(self) -> bool:
        """:return: whether the agent process runs."""
        return is_alive(self.pid)

    def request_stop(self) -> None:
        """Ask the agent to shut down cleanly (SIGINT, aea's clean shutdown); do not wait."""
        if self.pid and is_alive(self.pid):
            try:
                os.kill(self.pid, signal.SIGINT)
            except ProcessLookupError:
                pass

    def stop(self, timeout: float = 15.0) -> None:
        """Stop the agent: SIGINT (aea's clean shutdown), then SIGTERM/SIGKILL by pid.

        :param timeout: seconds to wait after SIGINT.
        """
        stop_agents([self], timeout)


def stop_agents(processes: Sequence["AgentProcess"], timeout: float = 15.0) -> None:
    """Stop agents together: SIGINT to all, one shared wait, then SIGTERM/SIGKILL by pid.

    A stuck agent costs ``timeout`` seconds once for the whole run, not once per agent:
    stopped one after the other, four stuck agents took over a minute and a user's second
    Ctrl-C then left the rest running.

    :param processes: the agents (not started or already stopped ones are skipped).
    :param timeout: seconds to wait after SIGINT before forcing.
    """
    for process in processes:
        process.request_stop()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(
        process.pid and is_alive(process.pid) for process in processes
    ):
        for process in processes:
            if process.pid:
                try:
                    os.waitpid(process.pid, os.WNOHANG)
                except ChildProcessError:
                    pass
        time.sleep(0.1)
    for process in processes:
        stop_pid(process.pid, timeout=5.0)
