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

"""Adversarial review adv29b: a lurking copy takes the default when the incumbent updates.

docs/mcp.md says of a tool some mech already serves and has delivered for: "it cannot be
bought, not even with an older mech". But a mech's tenure for a tool starts again at
*any* change of its service's manifest (``declared_block`` is the service's last
``ComplementaryMetadataUpdated``), even one that keeps the tool's schema byte for byte.
So a stranger copies the incumbent's manifest onto a new mech, delivers one request it
paid itself (about 2.2 M gas), and waits. The first routine manifest update of the
incumbent (a new tool, a new version, or the same hash set again) puts the incumbent
behind the stranger, even though the incumbent delivers again right after its update,
and the next call pays the stranger by default: no ``--mech``, no ``--allow-mech``.

Expected (this test states it, and fails on main fb8e46c): the incumbent that kept
offering the same tool with the same schema across its manifest update stays the
default; the stranger is not paid.

Devnet: anvil with the marketplace's real bytecode, kubo, the SDK's own stdio client.
"""

from pathlib import Path

from scripts.devnet import Devnet
from tests.devnet.mcp_helpers import checksum, request_info
from tests.devnet.test_mcp_offer_choice import (
    REQUEST_META,
    call,
    seed_mech,
    wash_trading_stranger,
)


def test_an_incumbents_manifest_update_hands_the_default_to_a_lurking_copy(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """The incumbent re-sets its manifest and delivers again: the stranger is still paid.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: the journal folder.
    """
    devnet = chain_snapshot
    incumbent = seed_mech(devnet, "deployed")
    metadata = devnet.contract("ComplementaryServiceMetadata")
    service = int(incumbent["service_id"])
    own_digest = metadata.functions.mapServiceHashes(service).call()

    # the stranger: a copy of an honest manifest, one self-paid, self-delivered request
    stranger = wash_trading_stranger(devnet, rounds=1)

    # later, the incumbent's routine update: the same manifest set again (a manifest
    # that adds an unrelated tool does the same), then it goes on delivering
    devnet.change_service_hash(service, own_digest)
    owner = devnet.address("owner_2")
    devnet.deliver(
        incumbent["address"],
        [devnet.request_mech(incumbent["address"], b"\x5a" * 32, owner)],
    )

    result = call(devnet, tmp_path, ("--timeout", "2"))
    meta = result.meta[REQUEST_META]
    paid = request_info(devnet, meta["request_id"])["priorityMech"]
    assert paid == checksum(incumbent["address"]), (
        f"the default call paid {paid} (the stranger is {checksum(stranger)}): "
        f"choice: {meta.get('choice')}"
    )
