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

"""Services on ServiceRegistryL2, their Safe, and ComplementaryServiceMetadata hashes."""

from typing import Any, Dict, Optional

from web3.logs import DISCARD
from web3.types import RPCEndpoint

from scripts.devnet.anvil import derive_account
from scripts.devnet.base import DevnetClient, DevnetError
from scripts.devnet.contracts import contract_at

# ServiceRegistry service states (autonolas-registries ServiceRegistry.ServiceState)
SERVICE_STATE_DEPLOYED = 4
# agent instance bond and security deposit of devnet services, in wei
SERVICE_BOND_WEI = 10**15
# derivation index of the first service agent instance key (m/44'/60'/0'/0/<index>)
AGENT_INSTANCE_KEY_BASE = 100


class ServiceHelpers(DevnetClient):
    """Create, activate, register and deploy services; change their metadata hash."""

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
