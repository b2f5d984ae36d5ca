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

"""The local run: devnet, agents (and their Tendermint nodes), and stopping all of it.

Used by ``python -m scripts.run_local`` and by the end-to-end tests.
"""

import statistics
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

from mech_catalogue_cli.devnet.locate import DEFAULT_RUN_DIR, RUN_DIR_ENV
from mech_catalogue_cli.devnet.state import DevnetInfo
from scripts.devnet import Devnet
from scripts.devnet.processes import can_listen, is_alive, listen_port
from scripts.run_local.agents import (
    AgentPorts,
    AgentProcess,
    agent_env,
    devnet_env,
    stop_agents,
)
from scripts.run_local.logs import agreed_catalogues, period_starts
from scripts.run_local.offchain import OffchainStandIn, serve_offchain
from scripts.run_local.requester import RequesterSetup, prepare_requester
from scripts.run_local.tendermint import TendermintNetwork
from scripts.run_local.view import AgentView, read_agent
from scripts.run_local.workspace import (
    SERVICES,
    WorkspaceError,
    agent_template,
    make_agent,
)

DEFAULT_WORK_DIR = DEFAULT_RUN_DIR


def busy_http_ports(first: int, agents: int) -> List[int]:
    """Return which of the agents' HTTP ports are taken on 127.0.0.1.

    :param first: the first agent's port (agent ``i`` gets ``first + i``).
    :param agents: how many agents.
    :return: the taken ports, in order (empty when all are free).
    """
    return [
        port
        for port in range(first, first + agents)
        if not can_listen("127.0.0.1", port)
    ]


def choose_http_port(first: int, agents: int, explicit: bool) -> Tuple[int, str]:
    """Check the agents' HTTP ports before anything starts; move off a busy default.

    :param first: the requested first agent's port.
    :param agents: how many agents (agent ``i`` listens on ``first + i``).
    :param explicit: whether the user asked for ``first`` (``--http-port`` or
        ``$MECH_CATALOGUE_HTTP_PORT``) rather than taking the default.
    :return: ``(port, note)``: the first port to use, and a sentence to print when it is
        not the one requested ("" otherwise).
    :raises WorkspaceError: when an explicitly requested port is taken; the message
        names the busy port and a free one to pass instead.
    """
    busy = busy_http_ports(first, agents)
    if not busy:
        return first, ""
    free = next(
        start
        for start in (listen_port() for _ in range(100))
        if start + agents <= 65535 and not busy_http_ports(start, agents)
    )
    taken = ", ".join(str(port) for port in busy)
    if explicit:
        raise WorkspaceError(
            f"port {taken} on 127.0.0.1 is taken (something else listens there): stop it, "
            f"or pass a free port, e.g. `make run` with MECH_CATALOGUE_HTTP_PORT={free} "
            f"or `--http-port {free}`"
        )
    return free, (
        f"port {taken} on 127.0.0.1 is taken; the catalogue API listens on {free} instead "
        f"(http://127.0.0.1:{free}/tools; choose with --http-port / "
        "$MECH_CATALOGUE_HTTP_PORT)"
    )


def _ports(http: Optional[int] = None) -> AgentPorts:
    if http is not None and not can_listen("127.0.0.1", http):
        raise WorkspaceError(
            f"port {http} on 127.0.0.1 is taken: stop what listens there, or choose "
            "another first agent HTTP port (--http-port, $MECH_CATALOGUE_HTTP_PORT)"
        )
    return AgentPorts(
        http=http if http is not None else listen_port(),
        tendermint_rpc=listen_port(),
        abci=listen_port(),
        tendermint_com=listen_port(),
        tendermint_p2p=listen_port(),
    )


class RunInUse(RuntimeError):
    """Another run works in the folder (its devnet runs there); this one started nothing."""


def in_use_message(work_dir: Path) -> str:
    """What a second run in the same folder says (pure).

    Stopping that devnet would pull it from under the other run's agents, so the advice
    is to stop that run, or to work elsewhere.

    :param work_dir: the folder both runs name.
    :return: the sentence, naming ``--work-dir`` and, for ``make run``, its variable.
    """
    return (
        f"another run is using {work_dir}: Ctrl-C it or pass --work-dir DIR "
        f"(with make run: {RUN_DIR_ENV}=DIR make run)"
    )


def devnet_runs_in(state_dir: Path) -> bool:
    """Tell whether the devnet recorded in ``state_dir`` still runs (its anvil or kubo).

    :param state_dir: a devnet folder (``<work dir>/devnet``).
    :return: True when its ``devnet.json`` names a live anvil or kubo process.
    """
    try:
        info = DevnetInfo.load(state_dir)
    except (OSError, ValueError, TypeError, KeyError):
        return False
    return is_alive(info.anvil_pid, "anvil") or is_alive(info.ipfs_pid, "ipfs")


def started_parts(agents: bool, tendermint: bool, devnet: bool) -> List[str]:
    """The parts a run started, as its stop messages name them (pure).

    :param agents: whether any agent process was started.
    :param tendermint: whether any Tendermint control server was started.
    :param devnet: whether this run started its devnet (not one it was given).
    :return: e.g. ``["agents", "Tendermint", "devnet"]``; empty when it started nothing.
    """
    named = (("agents", agents), ("Tendermint", tendermint), ("devnet", devnet))
    return [name for name, started in named if started]


def spoken_list(parts: List[str]) -> str:
    """Join names as a sentence does (pure).

    :param parts: e.g. ``["agents", "Tendermint", "devnet"]``.
    :return: ``"agents, Tendermint and devnet"``; one name alone; "" for none.
    """
    if len(parts) < 2:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


@dataclass
class LocalRun:  # pylint: disable=too-many-instance-attributes
    """Agents of the tool metadata service running against a local devnet.

    :param agents: 1 (mock Tendermint) or more (one real Tendermint node each).
    :param work_dir: folder of the agents, Tendermint homes and logs.
    :param devnet: a running devnet to use; None starts a seeded one in ``work_dir/devnet``
        (and :meth:`stop` stops it).
    :param settings: extra environment overrides for every agent (e.g. ``RESET_PAUSE_DURATION``).
    :param http_port: the first agent's HTTP port (agent ``i`` gets ``http_port + i``);
        None picks free ports.
    :param agent_settings: per agent (by index), overrides applied after ``settings`` (e.g.
        each agent's own ``IPFS_GATEWAY_URL``).
    :param service: the service to run (``tool_metadata`` or ``requester``); the requester
        gets its Safe, the mechs' operators and the responder
        (:func:`scripts.run_local.requester.prepare_requester`) before its agents start.
    :param deliver: for the requester: whether the stand-in responder answers requests.
    :param offchain: serve the stand-in off-chain endpoint of the deployed native mech
        and declare it in its service's manifest before the agents start
        (:func:`scripts.run_local.offchain.serve_offchain`; ``make run`` does).
    """

    agents: int = 1
    work_dir: Path = DEFAULT_WORK_DIR
    devnet: Optional[Devnet] = None
    settings: Dict[str, str] = field(default_factory=dict)
    http_port: Optional[int] = None
    agent_settings: List[Dict[str, str]] = field(default_factory=list)
    service: str = SERVICES[0]
    deliver: bool = True
    offchain: bool = False
    requester: Optional[RequesterSetup] = None
    stand_in: Optional[OffchainStandIn] = None
    processes: List[AgentProcess] = field(default_factory=list)
    network: Optional[TendermintNetwork] = None
    timings: Dict[str, float] = field(default_factory=dict)
    started_at: float = 0.0
    started_wall: Optional[datetime] = None
    launched_wall: Optional[datetime] = None
    _own_devnet: bool = False
    _answered: Set[str] = field(default_factory=set)

    @property
    def mock_tendermint(self) -> bool:
        """:return: whether the agent uses the abci connection's mock (single agent only)."""
        return self.agents == 1

    def _lap(self, phase: str, since: float) -> float:
        now = time.monotonic()
        self.timings[phase] = round(now - since, 2)
        return now

    def start(self) -> None:
        """Start the devnet (unless given), prepare the agents, start Tendermint and the agents.

        Whatever was started is stopped again when a step fails (the error is re-raised:
        ``DevnetError``, ``MissingTool``, ``ProcessError``, ``WorkspaceError``, or
        ``KeyboardInterrupt`` on Ctrl-C). A work folder whose devnet runs (another run's)
        raises :class:`RunInUse` before anything is started or written.

        :raises RunInUse: when another run's devnet runs in the work folder.
        :raises BaseException: what the failing step raised, after the clean-up.
        """
        if self.devnet is None and devnet_runs_in(self.work_dir / "devnet"):
            raise RunInUse(in_use_message(self.work_dir))
        self.work_dir.mkdir(parents=True, exist_ok=True)
        began = mark = self.started_at = time.monotonic()
        self.started_wall = datetime.now()
        try:
            if self.devnet is None:
                self.devnet = Devnet.start(
                    seed=True, state_dir=self.work_dir / "devnet"
                )
                self._own_devnet = True
                mark = self._lap("devnet", mark)
            if self.offchain:
                self.stand_in = serve_offchain(self.devnet)
                mark = self._lap("offchain_endpoint", mark)
            template = agent_template(self.work_dir, self.service)
            mark = self._lap("lock_and_fetch", mark)
            ports = [
                _ports(None if self.http_port is None else self.http_port + index)
                for index in range(self.agents)
            ]
            addresses = []
            for index in range(self.agents):
                addresses.append(make_agent(template, self.work_dir / f"agent_{index}"))
            mark = self._lap("keys_and_certificates", mark)
            base = devnet_env(self.devnet.info)
            if self.service == "requester":
                timeout = int(self.settings.get("MECH_RESPONSE_TIMEOUT", "60"))
                self.requester = prepare_requester(
                    self.devnet, addresses, self.deliver, timeout
                )
                base.update(self.requester.settings)
                mark = self._lap("requester_safe_and_responder", mark)
            for index, (address, port) in enumerate(zip(addresses, ports)):
                log_file = self.work_dir / f"agent_{index}" / "log.txt"
                env = agent_env(
                    port,
                    addresses,
                    self.mock_tendermint,
                    log_file,
                    {
                        **base,
                        **self.settings,
                        **(
                            self.agent_settings[index]
                            if index < len(self.agent_settings)
                            else {}
                        ),
                    },
                )
                self.processes.append(
                    AgentProcess(
                        f"agent_{index}",
                        self.work_dir / f"agent_{index}",
                        address,
                        port,
                        env,
                    )
                )
            if not self.mock_tendermint:
                self.network = TendermintNetwork(self.work_dir, ports)
                self.network.create()
                self.network.start()
            self.launched_wall = datetime.now()
            for process in self.processes:
                process.start()
            self._lap("launch", mark)
            self.timings["start_total"] = round(time.monotonic() - began, 2)
        except BaseException:
            self.stop()
            raise

    def read(self) -> List[AgentView]:
        """Read every agent's HTTP API.

        :return: what every agent serves now; an agent that has never answered yet is
            marked ``waiting`` (starting), one that answered before and no longer does is
            unreachable.
        """
        views = [
            read_agent(process.name, process.http_url, self.service == "requester")
            for process in self.processes
        ]
        for view in views:
            if view.error is None:
                self._answered.add(view.name)
            else:
                view.waiting = view.name not in self._answered
        return views

    def dead(self) -> List[str]:
        """:return: names of the agents (and Tendermint nodes) that stopped unexpectedly."""
        gone = [process.name for process in self.processes if not process.alive()]
        if self.network is not None and not self.network.alive():
            gone.append("tendermint")
        return gone

    def summary(self) -> Dict[str, object]:
        """Timings read from the agents' logs.

        :return: ``first_catalogue_after_launch_s`` / ``first_catalogue_after_start_s``
            (the earliest agreement of any agent, seconds after the agents were launched /
            after :meth:`start` began), ``period_s`` (mean seconds between period starts of
            agent_0), ``periods`` (period starts seen), ``digests`` (agent -> digests agreed,
            in order), and :attr:`timings` (start-up phases).
        """
        digests = {
            p.name: [a.digest for a in agreed_catalogues(p.log_path)]
            for p in self.processes
        }
        firsts = [
            found[0].at
            for found in (agreed_catalogues(p.log_path) for p in self.processes)
            if found
        ]
        result: Dict[str, object] = {"timings": dict(self.timings), "digests": digests}
        if firsts and self.launched_wall and self.started_wall:
            result["first_catalogue_after_launch_s"] = round(
                (min(firsts) - self.launched_wall).total_seconds(), 2
            )
            result["first_catalogue_after_start_s"] = round(
                (min(firsts) - self.started_wall).total_seconds(), 2
            )
        if self.processes:
            starts = period_starts(self.processes[0].log_path)
            result["periods"] = len(starts)
            gaps = [
                (later - earlier).total_seconds()
                for earlier, later in zip(starts, starts[1:])
            ]
            if gaps:
                result["period_s"] = round(statistics.mean(gaps), 2)
        return result

    def started(self) -> List[str]:
        """The parts this run started and has to stop (:func:`started_parts`).

        :return: names, in stop order; empty when the run started nothing.
        """
        tendermint = self.network is not None and any(
            node.pid is not None for node in self.network.nodes
        )
        return started_parts(
            any(process.pid is not None for process in self.processes),
            tendermint,
            self._own_devnet,
        )

    def stop(self) -> None:
        """Stop the agents, then Tendermint, then the devnet if this run started it (all by pid)."""
        stop_agents(self.processes)
        if self.requester is not None:
            self.requester.stop()
        if self.stand_in is not None:
            self.stand_in.stop()
        if self.network is not None:
            self.network.stop()
        if self.devnet is not None and self._own_devnet:
            self.devnet.stop()
            self._own_devnet = False
