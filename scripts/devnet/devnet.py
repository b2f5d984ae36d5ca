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

"""The :class:`Devnet`: start, attach to, check and stop the local devnet."""

import shutil
import time
from pathlib import Path
from typing import Any, Dict

from web3 import Web3

from mech_catalogue_cli.devnet.locate import down_command, up_command
from mech_catalogue_cli.devnet.state import DEFAULT_STATE_DIR, STATE_FILE, DevnetInfo
from scripts.devnet.anvil import DEFAULT_CHAIN_ID, dev_accounts, start_anvil
from scripts.devnet.base import ROLES, DevnetError
from scripts.devnet.contracts import deploy_stack
from scripts.devnet.kubo import start_kubo
from scripts.devnet.marketplace import MarketplaceHelpers
from scripts.devnet.processes import is_alive, stop_pid
from scripts.devnet.registries import RegistryHelpers

__all__ = ["Devnet", "DevnetError", "ROLES"]

# what a devnet writes into its state folder; nothing else there is ever deleted
STATE_ENTRIES = (STATE_FILE, "devnet.tmp", "anvil.log", "kubo.log", "ipfs")


def _clear_state_dir(state_dir: Path) -> None:
    """Remove a previous devnet's files from ``state_dir`` (created if absent).

    :param state_dir: the devnet state folder.
    :raises DevnetError: when it holds anything a devnet does not write (never wiped).
    """
    state_dir.mkdir(parents=True, exist_ok=True)
    foreign = sorted(p.name for p in state_dir.iterdir() if p.name not in STATE_ENTRIES)
    if foreign:
        raise DevnetError(
            f"{state_dir} holds files a devnet did not write ({', '.join(foreign[:5])}); "
            "choose an empty or devnet-only --state-dir"
        )
    for name in STATE_ENTRIES:
        path = state_dir / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


class Devnet(RegistryHelpers, MarketplaceHelpers):
    """A running devnet: anvil + registry stack + kubo, and helpers to register mechs.

    Registration helpers: :class:`RegistryHelpers` (Olas, legacy),
    :class:`~scripts.devnet.services.ServiceHelpers` (services, Safe,
    ComplementaryServiceMetadata) and :class:`MarketplaceHelpers` (mechs created through
    MechMarketplace, paid requests, deliveries).
    """

    @classmethod
    def start(
        cls,
        seed: bool = True,
        state_dir: Path = DEFAULT_STATE_DIR,
        chain_id: int = DEFAULT_CHAIN_ID,
    ) -> "Devnet":
        """Start anvil and kubo detached, deploy the registry stack, optionally seed it.

        :param seed: register the fixture manifests in every registry kind (:mod:`scripts.devnet.seed`).
        :param state_dir: folder for ``devnet.json``, logs and the IPFS repo; wiped first.
        :param chain_id: the chain id anvil reports.
        :return: the running devnet; ``devnet.json`` is written.
        :raises DevnetError: when a devnet recorded in ``state_dir`` still runs. A missing
            tool raises ``scripts.toolchain.MissingTool``, a process that does not become
            ready ``scripts.devnet.processes.ProcessError``; what was started is stopped.
        """
        began = time.monotonic()
        state_dir = Path(state_dir)
        if (state_dir / STATE_FILE).exists():
            previous = DevnetInfo.load(state_dir)
            if is_alive(previous.anvil_pid, "anvil") or is_alive(
                previous.ipfs_pid, "ipfs"
            ):
                raise DevnetError(
                    f"a devnet is already running from {state_dir} (anvil pid {previous.anvil_pid}, "
                    f"kubo pid {previous.ipfs_pid}); stop it first with `{down_command(state_dir)}`"
                )
        _clear_state_dir(state_dir)

        anvil = kubo = None
        started = False
        phases: Dict[str, float] = {}

        def lap(phase: str) -> None:
            phases[phase] = round(time.monotonic() - began - sum(phases.values()), 2)

        try:
            anvil = start_anvil(state_dir, chain_id)
            lap("anvil")
            kubo = start_kubo(state_dir)
            lap("kubo")
            w3 = Web3(Web3.HTTPProvider(anvil.rpc_url, request_kwargs={"timeout": 30}))
            accounts = dev_accounts()
            deployer = accounts[ROLES["deployer"]].address
            contracts = deploy_stack(w3, deployer)
            lap("deploy")
            info = DevnetInfo(
                state_dir=str(state_dir),
                chain_id=chain_id,
                rpc_url=anvil.rpc_url,
                anvil_pid=anvil.pid,
                ipfs_api_url=kubo.api_url,
                ipfs_api_multiaddr=kubo.api_multiaddr,
                ipfs_gateway_url=kubo.gateway_url,
                ipfs_pid=kubo.pid,
                ipfs_path=str(kubo.ipfs_path),
                accounts={
                    role: {
                        "index": index,
                        "address": accounts[index].address,
                        "private_key": accounts[index].private_key,
                    }
                    for role, index in ROLES.items()
                },
                contracts=contracts,
            )
            info.save()
            devnet = cls(info)
            if seed:
                from scripts.devnet.seed import (  # pylint: disable=import-outside-toplevel
                    seed_devnet,
                )

                seed_devnet(devnet)
                lap("seed")
            info.startup_seconds = round(time.monotonic() - began, 2)
            info.startup_phases = phases
            info.save()
            started = True
            return devnet
        finally:
            if not started:
                stop_pid(kubo.pid if kubo else None, "ipfs")
                stop_pid(anvil.pid if anvil else None, "anvil")

    @classmethod
    def attach(cls, state_dir: Path = DEFAULT_STATE_DIR) -> "Devnet":
        """Bind to the devnet recorded in ``state_dir/devnet.json`` (e.g. one started by ``up``).

        :param state_dir: the devnet state folder.
        :return: the devnet.
        :raises DevnetError: when no devnet was started there.
        """
        try:
            return cls(DevnetInfo.load(Path(state_dir)))
        except FileNotFoundError as error:
            raise DevnetError(
                f"no devnet recorded in {state_dir}: start one with `{up_command(state_dir)}`"
            ) from error

    def stop(self) -> None:
        """Stop kubo and anvil by their recorded pids and remove ``devnet.json``."""
        stop_pid(self.info.ipfs_pid, "ipfs")
        stop_pid(self.info.anvil_pid, "anvil")
        (Path(self.info.state_dir) / STATE_FILE).unlink(missing_ok=True)

    def __enter__(self) -> "Devnet":
        """Use as ``with Devnet.start() as devnet:``; the devnet stops on exit.

        :return: this devnet.
        """
        return self

    def __exit__(self, *exc_info: Any) -> None:
        """Stop the devnet.

        :param exc_info: the exception, if any (not suppressed).
        """
        self.stop()

    def status(self) -> Dict[str, bool]:
        """Check each component.

        :return: ``{"anvil": bool, "kubo": bool}``, true when the process is alive and answers.
        """
        anvil_ok = kubo_ok = False
        if is_alive(self.info.anvil_pid, "anvil"):
            try:
                anvil_ok = self.w3.eth.chain_id == self.info.chain_id
            except Exception:  # pylint: disable=broad-except
                anvil_ok = False
        if is_alive(self.info.ipfs_pid, "ipfs"):
            try:
                kubo_ok = self.ipfs.is_ready()
            except Exception:  # pylint: disable=broad-except
                kubo_ok = False
        return {"anvil": anvil_ok, "kubo": kubo_ok}
