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

"""Register and update mechs in the Olas AgentRegistry and the legacy mech registry."""

from typing import Any, Optional, Sequence

from scripts.devnet.base import DevnetClient

# RegistriesManager unit types (autonolas-registries IRegistry.UnitType)
UNIT_TYPE_COMPONENT = 0
UNIT_TYPE_AGENT = 1


class RegistryHelpers(DevnetClient):
    """Olas units through RegistriesManager, and legacy mech agents."""

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
