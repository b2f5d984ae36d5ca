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

"""Behaviour of our legacy mech "AI Agent Registry" stand-in (same semantics as ai-registry-mech)."""

import pytest
from web3.exceptions import ContractLogicError

from mech_catalogue_cli.devnet.state import LEGACY_MECH_REGISTRY
from tests.devnet.reverts import reverts_with

PREFIX = "https://gateway.autonolas.tech/ipfs/f01701220"


def test_get_hashes_lists_every_hash_and_token_uri_the_latest(devnet, registered):
    """The getHashes call returns creation + updates in order; tokenURI uses the latest."""
    entries = registered(LEGACY_MECH_REGISTRY, id=1)
    assert [e.action for e in entries] == ["create", "update"]
    registry = devnet.contract("LegacyMechAgentRegistry")
    num, hashes = registry.functions.getHashes(1).call()
    # later tests of the session may append more; the seeded hashes come first
    assert num == len(hashes) >= 2
    assert ["0x" + h.hex() for h in hashes][:2] == [e.digest for e in entries]
    assert registry.functions.tokenURI(1).call() == PREFIX + hashes[-1].hex()


def test_update_by_the_nft_owner_changes_token_uri(chain_snapshot, new_manifest):
    """An updateHash by the owner emits UpdateAgentHash and moves tokenURI."""
    devnet = chain_snapshot
    owner = devnet.address("owner_2")
    _, first = new_manifest("Legacy A")
    agent_id = devnet.register_legacy_mech(owner, first)
    _, second = new_manifest("Legacy A v2")
    receipt = devnet.update_legacy_hash(owner, agent_id, second)
    registry = devnet.contract("LegacyMechAgentRegistry")
    (event,) = registry.events.UpdateAgentHash().process_receipt(receipt)
    assert (event.args.agentId, event.args.agentHash) == (agent_id, second)
    assert registry.functions.tokenURI(agent_id).call() == PREFIX + second.hex()
    assert registry.functions.getHashes(agent_id).call() == [2, [first, second]]


def test_update_by_a_stranger_reverts_operator_only(devnet, new_manifest):
    """Only the NFT owner may update."""
    _, digest = new_manifest("Legacy stranger")
    with reverts_with("OperatorOnly(address,address,uint256)"):
        devnet.update_legacy_hash(devnet.address("stranger"), 1, digest)


def test_the_new_owner_may_update_after_a_transfer(chain_snapshot, new_manifest):
    """The right to updateHash follows ERC-721 ownership."""
    devnet = chain_snapshot
    registry = devnet.contract("LegacyMechAgentRegistry")
    old, new = devnet.address("owner_2"), devnet.address("owner_3")
    devnet.transact(registry.functions.transferFrom(old, new, 2), old)
    _, digest = new_manifest("Transferred")
    with reverts_with("OperatorOnly(address,address,uint256)"):
        devnet.update_legacy_hash(old, 2, digest)
    devnet.update_legacy_hash(new, 2, digest)
    assert registry.functions.ownerOf(2).call() == new


def test_create_is_manager_only_and_refuses_zero(devnet):
    """Creating needs the manager, a non-zero hash and a non-zero owner."""
    registry = devnet.contract("LegacyMechAgentRegistry")
    stranger = devnet.address("stranger")
    manager = devnet.address("deployer")
    with reverts_with("ManagerOnly(address,address)"):
        registry.functions.create(stranger, b"\x01" * 32).call({"from": stranger})
    with reverts_with("ZeroValue()"):
        registry.functions.create(stranger, b"\x00" * 32).call({"from": manager})
    with reverts_with("ZeroAddress()"):
        registry.functions.create("0x" + "00" * 20, b"\x01" * 32).call(
            {"from": manager}
        )


def test_unknown_ids(devnet):
    """Reads of ids outside 1..totalSupply revert; totalSupply/exists/tokenByIndex agree."""
    registry = devnet.contract("LegacyMechAgentRegistry")
    total = registry.functions.totalSupply().call()
    assert total >= 3  # the seed's three, plus any a later test kept
    assert (
        registry.functions.exists(total).call()
        and not registry.functions.exists(total + 1).call()
    )
    assert not registry.functions.exists(0).call()
    assert registry.functions.tokenByIndex(0).call() == 1
    with reverts_with("AgentNotFound(uint256)"):
        registry.functions.getHashes(total + 1).call()
    with reverts_with("AgentNotFound(uint256)"):
        registry.functions.tokenURI(0).call()
    with reverts_with("Overflow(uint256,uint256)"):
        registry.functions.tokenByIndex(total).call()
    with pytest.raises(ContractLogicError, match="NOT_MINTED"):
        registry.functions.ownerOf(total + 1).call()


def test_erc721_basics(devnet):
    """Name, symbol, balances and interface ids."""
    registry = devnet.contract("LegacyMechAgentRegistry")
    assert registry.functions.name().call() == "AI Agent Registry"
    assert registry.functions.CID_PREFIX().call() == "f01701220"
    assert registry.functions.balanceOf(devnet.address("owner_1")).call() >= 1
    assert registry.functions.balanceOf(devnet.address("stranger")).call() == 0
    assert registry.functions.supportsInterface(bytes.fromhex("80ac58cd")).call()
    assert not registry.functions.supportsInterface(bytes.fromhex("ffffffff")).call()
