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

"""Pin the Olas AgentRegistry / RegistriesManager behaviour the project depends on (real bytecode)."""

from mech_catalogue_cli.devnet.state import OLAS_AGENT_REGISTRY
from tests.devnet.reverts import reverts_with

PREFIX = "https://gateway.autonolas.tech/ipfs/f01701220"


def test_token_uri_keeps_first_hash_after_update(devnet, registered):
    """tokenURI(id) is built from the FIRST hash forever; updates only show in getUpdatedHashes."""
    first, update = registered(OLAS_AGENT_REGISTRY, id=1)
    assert (first.action, update.action) == ("create", "update")
    registry = devnet.contract("AgentRegistry")

    assert registry.functions.tokenURI(1).call() == PREFIX + first.digest[2:]
    num, hashes = registry.functions.getUpdatedHashes(1).call()
    # later tests of the session may append more updates; the seeded one comes first
    assert num == len(hashes) >= 1
    assert "0x" + hashes[0].hex() == update.digest


def test_get_updated_hashes_is_empty_for_a_never_updated_agent(
    chain_snapshot, new_manifest
):
    """The getUpdatedHashes list does not include the creation hash."""
    devnet = chain_snapshot
    _, digest = new_manifest("Never Updated")
    agent_id = devnet.register_olas_agent(devnet.address("owner_2"), digest)
    registry = devnet.contract("AgentRegistry")
    assert registry.functions.getUpdatedHashes(agent_id).call() == [0, []]
    assert registry.functions.tokenURI(agent_id).call() == PREFIX + digest.hex()


def test_update_appends_in_order(chain_snapshot, new_manifest):
    """Each RegistriesManager.updateHash appends; tokenURI still shows the creation hash."""
    devnet = chain_snapshot
    owner = devnet.address("owner_2")
    _, created = new_manifest("Ordered Mech")
    agent_id = devnet.register_olas_agent(owner, created)
    updates = [new_manifest(f"Ordered Mech v{n}")[1] for n in (2, 3)]
    for digest in updates:
        devnet.update_olas_agent_hash(owner, agent_id, digest)
    registry = devnet.contract("AgentRegistry")
    assert registry.functions.getUpdatedHashes(agent_id).call() == [2, updates]
    assert registry.functions.tokenURI(agent_id).call() == PREFIX + created.hex()


def test_update_by_a_non_owner_reverts_with_agent_not_found(
    chain_snapshot, new_manifest
):
    """A stranger's updateHash reverts; the registry reports it as AgentNotFound(id), not OperatorOnly."""
    devnet = chain_snapshot
    _, digest = new_manifest("Stranger Update")
    with reverts_with("AgentNotFound(uint256)"):
        devnet.update_olas_agent_hash(devnet.address("stranger"), 1, digest)
    assert (
        devnet.contract("AgentRegistry").functions.getUpdatedHashes(1).call()[1][-1]
        != digest
    )


def test_agent_needs_a_component_dependency(chain_snapshot, new_manifest):
    """An agent without dependencies is refused with ZeroValue(); with component 1 it is created."""
    devnet = chain_snapshot
    owner = devnet.address("owner_3")
    _, digest = new_manifest("No Deps Mech")
    with reverts_with("ZeroValue()"):
        devnet.register_olas_agent(owner, digest, dependencies=[])
    agent_id = devnet.register_olas_agent(owner, digest, dependencies=[1])
    registry = devnet.contract("AgentRegistry")
    assert registry.functions.ownerOf(agent_id).call() == owner
    assert registry.functions.getDependencies(agent_id).call() == [1, [1]]


def test_registries_are_wired_to_the_manager(devnet):
    """Both unit registries have RegistriesManager as manager; AgentRegistry knows the ComponentRegistry."""
    manager = devnet.info.contracts["RegistriesManager"]
    assert devnet.contract("AgentRegistry").functions.manager().call() == manager
    assert devnet.contract("ComponentRegistry").functions.manager().call() == manager
    assert (
        devnet.contract("AgentRegistry").functions.componentRegistry().call()
        == devnet.info.contracts["ComponentRegistry"]
    )
    assert devnet.contract("AgentRegistry").functions.owner().call() == devnet.address(
        "deployer"
    )


def test_direct_create_on_the_registry_is_manager_only(devnet, new_manifest):
    """AgentRegistry.create must come through RegistriesManager."""
    _, digest = new_manifest("Direct Create")
    owner = devnet.address("owner_1")
    with reverts_with("ManagerOnly(address,address)"):
        devnet.contract("AgentRegistry").functions.create(owner, digest, [1]).call(
            {"from": owner}
        )
