"""The :class:`Devnet`: start, attach to, use and stop the local devnet."""

import shutil
import time
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple

from web3 import Web3
from web3.contract import Contract
from web3.logs import DISCARD
from web3.types import RPCEndpoint

from scripts.devnet.anvil import (
    DEFAULT_CHAIN_ID,
    derive_account,
    dev_accounts,
    start_anvil,
)
from scripts.devnet.contracts import contract_at, deploy_stack, send
from scripts.devnet.kubo import KuboClient, start_kubo
from scripts.devnet.processes import is_alive, stop_pid
from scripts.devnet.state import DEFAULT_STATE_DIR, STATE_FILE, DevnetInfo

# account roles -> anvil account index
ROLES = {
    "deployer": 0,
    "owner_1": 1,
    "owner_2": 2,
    "owner_3": 3,
    "operator": 4,
    "stranger": 9,
}
# RegistriesManager unit types (autonolas-registries IRegistry.UnitType)
UNIT_TYPE_COMPONENT = 0
UNIT_TYPE_AGENT = 1
# ServiceRegistry service states (autonolas-registries ServiceRegistry.ServiceState)
SERVICE_STATE_DEPLOYED = 4
# agent instance bond and security deposit of devnet services, in wei
SERVICE_BOND_WEI = 10**15
# derivation index of the first service agent instance key (m/44'/60'/0'/0/<index>)
AGENT_INSTANCE_KEY_BASE = 100


class DevnetError(RuntimeError):
    """The devnet cannot be started, found, or used as asked."""


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


class Devnet:  # pylint: disable=too-many-public-methods
    """A running devnet: anvil + registry stack + kubo, and helpers to register mechs.

    Every helper sends from unlocked anvil accounts, waits for the receipt and raises
    web3's ``ContractLogicError`` (or its subclass ``ContractCustomError``) on a revert.
    """

    def __init__(self, info: DevnetInfo) -> None:
        """Bind to a devnet described by ``info`` (see :meth:`start` and :meth:`attach`).

        :param info: the devnet state.
        """
        self.info = info
        self.w3 = Web3(Web3.HTTPProvider(info.rpc_url, request_kwargs={"timeout": 30}))
        self.ipfs = KuboClient(info.ipfs_api_url)

    # ------------------------------------------------------------------ lifecycle

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
                    f"kubo pid {previous.ipfs_pid}); run `python -m scripts.devnet down` first"
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
                f"no devnet recorded in {state_dir}: run `python -m scripts.devnet up --seed`"
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

    # ------------------------------------------------------------------ basics

    def contract(self, name: str) -> Contract:
        """Return a deployed contract of the stack.

        :param name: a key of ``info.contracts``, e.g. ``AgentRegistry``, ``LegacyMechAgentRegistry``.
        :return: the web3 contract.
        :raises DevnetError: for a name the devnet did not deploy.
        """
        if name not in self.info.contracts:
            raise DevnetError(
                f"the devnet has no contract {name!r}; it has {sorted(self.info.contracts)}"
            )
        return contract_at(self.w3, name, self.info.contracts[name])

    def address(self, role: str) -> str:
        """Return the address of an account role (``deployer``, ``owner_1``.., ``operator``, ``stranger``).

        :param role: the role.
        :return: the address.
        """
        return self.info.address(role)

    def add_manifest(self, data: bytes, raw_leaves: bool = False) -> Tuple[str, bytes]:
        """Add bytes to kubo as CIDv1 (dag-pb leaves unless ``raw_leaves``) and pin them.

        :param data: the manifest bytes (any bytes: broken manifests too).
        :param raw_leaves: add with raw leaves (the CID of a small file is then raw-codec).
        :return: ``(cid, digest)``: the base32 CID and the 32-byte digest to put on chain.
        """
        return self.ipfs.add(data, raw_leaves=raw_leaves)

    def transact(self, call: Any, sender: str, value: int = 0) -> Any:
        """Send a bound contract call from an unlocked anvil account and wait for it.

        :param call: e.g. ``devnet.contract("AgentRegistry").functions.transferFrom(a, b, 1)``.
        :param sender: the sending address (a devnet role's address).
        :param value: wei to attach.
        :return: the receipt (web3 raises ``ContractLogicError`` on a revert).
        """
        return send(self.w3, call, sender, value)

    @staticmethod
    def _returned(call: Any, sender: str) -> Any:
        """Simulate ``call`` from ``sender`` to read its return value (e.g. a new id)."""
        return call.call({"from": sender})

    # ------------------------------------------------------------------ Olas registries

    def register_olas_component(self, owner: str, digest: bytes) -> int:
        """Create a component through ``RegistriesManager.create(0, owner, digest, [])``.

        :param owner: the component owner (sends the transaction).
        :param digest: 32-byte sha2-256 digest of its metadata.
        :return: the component id.
        """
        call = self.contract("RegistriesManager").functions.create(
            UNIT_TYPE_COMPONENT, owner, digest, []
        )
        unit_id = self._returned(call, owner)
        self.transact(call, owner)
        return int(unit_id)

    def register_olas_agent(
        self, owner: str, digest: bytes, dependencies: Optional[Sequence[int]] = None
    ) -> int:
        """Create an agent through ``RegistriesManager.create(1, owner, digest, dependencies)``.

        The Olas AgentRegistry requires at least one existing component as dependency
        (sorted ascending); by default component 1 is used, created first if absent.

        :param owner: the agent owner (sends the transaction).
        :param digest: 32-byte sha2-256 digest of the manifest.
        :param dependencies: component ids.
        :return: the agent id.
        """
        if dependencies is None:
            if self.contract("ComponentRegistry").functions.totalSupply().call() == 0:
                cid_digest = self.add_manifest(
                    b'{"name": "devnet/component", "description": "dependency"}'
                )[1]
                self.register_olas_component(self.address("deployer"), cid_digest)
            dependencies = [1]
        call = self.contract("RegistriesManager").functions.create(
            UNIT_TYPE_AGENT, owner, digest, list(dependencies)
        )
        unit_id = self._returned(call, owner)
        self.transact(call, owner)
        return int(unit_id)

    def update_olas_agent_hash(self, owner: str, agent_id: int, digest: bytes) -> Any:
        """Add a hash to an agent with ``RegistriesManager.updateHash(1, agent_id, digest)``.

        ``AgentRegistry.tokenURI`` keeps the first hash; the new one is in ``getUpdatedHashes``.

        :param owner: the sender; must own the agent NFT, or the call reverts.
        :param agent_id: the agent id.
        :param digest: the new 32-byte digest.
        :return: the receipt.
        """
        return self.transact(
            self.contract("RegistriesManager").functions.updateHash(
                UNIT_TYPE_AGENT, agent_id, digest
            ),
            owner,
        )

    # ------------------------------------------------------------------ legacy mech registry

    def register_legacy_mech(self, owner: str, digest: bytes) -> int:
        """Mint a legacy mech agent: ``create(owner, digest)`` sent by the registry manager (deployer).

        :param owner: the NFT owner.
        :param digest: 32-byte sha2-256 digest of the manifest.
        :return: the agent id.
        """
        call = self.contract("LegacyMechAgentRegistry").functions.create(owner, digest)
        manager = self.address("deployer")
        agent_id = self._returned(call, manager)
        self.transact(call, manager)
        return int(agent_id)

    def update_legacy_hash(self, owner: str, agent_id: int, digest: bytes) -> Any:
        """``updateHash(agent_id, digest)`` on the legacy registry; ``tokenURI`` then shows it.

        :param owner: the sender; must own the NFT, or the call reverts (OperatorOnly).
        :param agent_id: the agent id.
        :param digest: the new 32-byte digest.
        :return: the receipt.
        """
        return self.transact(
            self.contract("LegacyMechAgentRegistry").functions.updateHash(
                agent_id, digest
            ),
            owner,
        )

    # ------------------------------------------------------------------ services

    @staticmethod
    def _agent_instance(service_id: int) -> Dict[str, str]:
        acct = derive_account(AGENT_INSTANCE_KEY_BASE + service_id)
        return {"address": acct.address, "private_key": acct.private_key}

    def register_service(
        self,
        owner: str,
        config_digest: Optional[bytes] = None,
        agent_id: int = 1,
        deploy: bool = False,
    ) -> int:
        """Create a service on ServiceRegistryL2, activate it and register one agent instance.

        All calls are sent by the registry manager (the deployer), as the ServiceManager
        does on chain. One slot, bond :data:`SERVICE_BOND_WEI`, threshold 1; the agent
        instance key is derived from the devnet mnemonic (index 100 + service id) and
        recorded in ``info.services``. With ``deploy=True`` the service is deployed: a Gnosis
        Safe owned by the agent instance becomes its multisig, and from then on only that
        multisig may ``changeHash`` on ComplementaryServiceMetadata.

        :param owner: the service owner.
        :param config_digest: 32-byte digest of the service config (default: a fixed non-zero value).
        :param agent_id: the canonical agent id the slot is for (not checked by the L2 registry).
        :param deploy: also deploy the service (state Deployed, multisig created).
        :return: the service id.
        """
        registry = self.contract("ServiceRegistryL2")
        manager = self.address("deployer")
        operator = self.address("operator")
        digest = config_digest or b"\x01" * 32
        create = registry.functions.create(
            owner, digest, [agent_id], [(1, SERVICE_BOND_WEI)], 1
        )
        service_id = int(self._returned(create, manager))
        self.transact(create, manager)
        self.transact(
            registry.functions.activateRegistration(owner, service_id),
            manager,
            value=SERVICE_BOND_WEI,
        )
        instance = self._agent_instance(service_id)
        self.transact(
            registry.functions.registerAgents(
                operator, service_id, [instance["address"]], [agent_id]
            ),
            manager,
            value=SERVICE_BOND_WEI,
        )
        record: Dict[str, Any] = {
            "owner": owner,
            "agent_instances": [instance],
            "multisig": None,
        }
        if deploy:
            deploy_call = registry.functions.deploy(
                owner, service_id, self.info.contracts["ServiceSafeMultisig"], b""
            )
            self.transact(deploy_call, manager)
            record["multisig"] = registry.functions.mapServices(service_id).call()[1]
        self.info.services[str(service_id)] = record
        self.info.save()
        return service_id

    def service_multisig(self, service_id: int) -> Optional[str]:
        """Return the service's multisig (a Gnosis Safe), or ``None`` before deployment.

        :param service_id: the service id.
        :return: the Safe address or ``None``.
        """
        multisig = (
            self.contract("ServiceRegistryL2")
            .functions.mapServices(service_id)
            .call()[1]
        )
        return None if int(multisig, 16) == 0 else multisig

    def change_service_hash(
        self, service_id: int, digest: bytes, sender: Optional[str] = None
    ) -> Any:
        """``ComplementaryServiceMetadata.changeHash(service_id, digest)``.

        Before deployment the service owner may call it; once the service is deployed
        only its multisig may. By default (``sender=None``) the right path is taken: the
        owner's transaction, or a Safe ``execTransaction`` sent by the agent instance
        (threshold 1, "approved by sender" signature type v=1).

        :param service_id: the service id.
        :param digest: the new 32-byte digest.
        :param sender: send directly from this address instead (e.g. a stranger, to see the revert).
        :return: the receipt.
        """
        metadata = self.contract("ComplementaryServiceMetadata")
        call = metadata.functions.changeHash(service_id, digest)
        if sender is not None:
            return self.transact(call, sender)
        registry = self.contract("ServiceRegistryL2")
        state = registry.functions.mapServices(service_id).call()[6]
        if state != SERVICE_STATE_DEPLOYED:
            return self.transact(call, registry.functions.ownerOf(service_id).call())
        return self.exec_safe_transaction(
            self.service_multisig(service_id) or "",
            metadata.address,
            metadata.encode_abi("changeHash", args=[service_id, digest]),
        )

    def exec_safe_transaction(
        self, safe_address: str, to: str, data: bytes, value: int = 0
    ) -> Any:
        """Execute a call from a threshold-1 Safe whose owner is a devnet agent instance.

        The owner is impersonated on anvil and funded, then sends ``execTransaction`` with
        a v=1 signature (r = owner address: "the sender approves"), as Safe 1.3.0 accepts.

        :param safe_address: the Safe.
        :param to: the call target.
        :param data: the calldata (hex string or bytes).
        :param value: wei to send.
        :return: the receipt.
        :raises DevnetError: when the Safe reports the inner call failed (ExecutionFailure).
        """
        safe = contract_at(self.w3, "GnosisSafe", safe_address)
        owner = safe.functions.getOwners().call()[0]
        self.w3.provider.make_request(RPCEndpoint("anvil_impersonateAccount"), [owner])
        self.w3.provider.make_request(
            RPCEndpoint("anvil_setBalance"), [owner, hex(10**18)]
        )
        signature = bytes(12) + bytes.fromhex(owner[2:]) + bytes(32) + b"\x01"
        zero = "0x" + "00" * 20
        call = safe.functions.execTransaction(
            to, value, data, 0, 0, 0, 0, zero, zero, signature
        )
        receipt = self.transact(call, owner)
        self.w3.provider.make_request(
            RPCEndpoint("anvil_stopImpersonatingAccount"), [owner]
        )
        failures = safe.events.ExecutionFailure().process_receipt(
            receipt, errors=DISCARD
        )
        if failures:
            raise DevnetError(
                f"Safe {safe_address} executed the call to {to} but it reverted"
            )
        return receipt
