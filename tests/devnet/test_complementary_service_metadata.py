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

"""Pin ComplementaryServiceMetadata's behaviour (real bytecode from the mech-server wheel)."""

from mech_catalogue_cli.devnet.state import COMPLEMENTARY_SERVICE_METADATA
from scripts.devnet.contracts import contract_at
from tests.devnet.reverts import reverts_with

PREFIX = "https://gateway.autonolas.tech/ipfs/f01701220"


def test_seeded_changes_are_events_and_token_uri_shows_the_latest(devnet, registered):
    """Each seeded changeHash is a ComplementaryMetadataUpdated event; tokenURI = mapServiceHashes."""
    metadata = devnet.contract("ComplementaryServiceMetadata")
    for service_id in (1, 2, 3):
        seeded = [
            e.digest for e in registered(COMPLEMENTARY_SERVICE_METADATA, id=service_id)
        ]
        events = metadata.events.ComplementaryMetadataUpdated().get_logs(
            from_block=0, argument_filters={"serviceId": service_id}
        )
        # later tests of the session may add changes; the seeded ones come first
        assert ["0x" + e.args.hash.hex() for e in events][: len(seeded)] == seeded
        current = metadata.functions.mapServiceHashes(service_id).call()
        assert current == events[-1].args.hash
        assert metadata.functions.tokenURI(service_id).call() == PREFIX + current.hex()


def test_change_hash_by_the_owner_emits_and_moves_token_uri(
    chain_snapshot, new_manifest
):
    """Before deployment the service owner changes the hash; the event carries id and hash (both indexed)."""
    devnet = chain_snapshot
    owner = devnet.address("owner_1")
    service_id = devnet.register_service(owner)
    metadata = devnet.contract("ComplementaryServiceMetadata")
    assert metadata.functions.isAbleChangeHash(owner, service_id).call()
    _, digest = new_manifest("Owner Change")
    receipt = devnet.change_service_hash(service_id, digest, sender=owner)
    (event,) = metadata.events.ComplementaryMetadataUpdated().process_receipt(receipt)
    assert (event.args.serviceId, event.args.hash) == (service_id, digest)
    assert metadata.functions.tokenURI(service_id).call() == PREFIX + digest.hex()


def test_change_hash_by_a_stranger_reverts(devnet, new_manifest):
    """A stranger gets UnauthorizedAccount(stranger) and the hash stays."""
    metadata = devnet.contract("ComplementaryServiceMetadata")
    before = metadata.functions.mapServiceHashes(1).call()
    _, digest = new_manifest("Stranger Change")
    with reverts_with("UnauthorizedAccount(address)"):
        devnet.change_service_hash(1, digest, sender=devnet.address("stranger"))
    assert metadata.functions.mapServiceHashes(1).call() == before


def test_after_deployment_only_the_multisig_may_change(chain_snapshot, new_manifest):
    """Once Deployed, the owner is refused and the service Safe (agent instance signing) succeeds."""
    devnet = chain_snapshot
    owner = devnet.address("owner_3")
    multisig = devnet.service_multisig(3)
    assert multisig is not None
    metadata = devnet.contract("ComplementaryServiceMetadata")
    assert not metadata.functions.isAbleChangeHash(owner, 3).call()
    assert metadata.functions.isAbleChangeHash(multisig, 3).call()
    _, digest = new_manifest("Safe Change")
    with reverts_with("UnauthorizedAccount(address)"):
        devnet.change_service_hash(3, digest, sender=owner)
    devnet.change_service_hash(3, digest)
    assert metadata.functions.mapServiceHashes(3).call() == digest


def test_unset_service_hash_reads_as_zero(devnet):
    """A service that never set a hash yields the zero digest in tokenURI (no revert)."""
    metadata = devnet.contract("ComplementaryServiceMetadata")
    assert metadata.functions.mapServiceHashes(999).call() == b"\x00" * 32
    assert metadata.functions.tokenURI(999).call() == PREFIX + "00" * 32


def test_deployed_service_multisig_is_a_safe_of_its_agent_instance(devnet):
    """register_service(deploy=True) leaves a threshold-1 Safe owned by the recorded agent instance."""
    record = devnet.info.services["3"]
    safe = contract_at(devnet.w3, "GnosisSafe", record["multisig"]).functions
    assert safe.getOwners().call() == [record["agent_instances"][0]["address"]]
    assert safe.getThreshold().call() == 1
    assert (
        devnet.contract("ServiceRegistryL2").functions.mapServices(3).call()[6] == 4
    )  # Deployed
