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

"""Publishing a new manifest to each registry kind on the devnet, and the reader picking it up.

Real components: anvil with the real Olas RegistriesManager/AgentRegistry,
ServiceRegistryL2, ComplementaryServiceMetadata and Gnosis Safe 1.3.0 bytecode, our
legacy mech registry, kubo. The manifest is generated from the fixture tool packages
(derive + generate), uploaded, read back and re-hashed; every transaction is signed with
the real key and confirmed by reading the digest back and decoding the registry's event.
The reader's next period is the skill's own domain path (snapshot_reader +
manifest_fetcher + refresh_catalogue).
"""

import pytest
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
)
from mech_catalogue_core.publish.publish import (
    UP_TO_DATE,
    UPDATE,
)
from web3 import Web3

from scripts.devnet.contracts import contract_at
from tests.devnet.publish_helpers import (
    deployed_service,
    dumps,
    generated_manifest,
    nonce,
    publisher,
    reader_tools,
    seeded,
)

GENERATED_TOOLS = [
    "echo-small",
    "echo-large",
    "echo-legacy",
    "transfer-native",
    "transfer-erc20",
]


@pytest.mark.parametrize("key", ["olas", "legacy", "service"])
def test_owner_key_publishes_then_stops(chain_snapshot, key) -> None:
    """Owner key: digest changes, event carries it, reader exposes the new tools; a rerun sends nothing."""
    devnet = chain_snapshot
    mech = seeded(devnet, key)
    status_before, tools_before = reader_tools(devnet, mech.target)
    assert sorted(tools_before) != sorted(GENERATED_TOOLS)

    document = generated_manifest(f"publish {key}")
    report = publisher(devnet).publish(document, mech.target, account=mech.owner)
    assert report.decision == UPDATE and report.sent and report.uploaded
    assert report.onchain_before != report.digest
    assert report.onchain_after == report.digest == report.event_digest
    assert report.gas_used > 0
    status, tools = reader_tools(devnet, mech.target)
    assert status == STATUS_OK and tools == GENERATED_TOOLS, (status_before, status)

    sent = nonce(devnet, mech.owner.address)
    again = publisher(devnet).publish(document, mech.target, account=mech.owner)
    assert again.decision == UP_TO_DATE and not again.sent
    assert nonce(devnet, mech.owner.address) == sent
    print(dumps({"kind": key, "tx": report.tx_hash, "gas": report.gas_used}))


def test_service_safe_publishes(chain_snapshot) -> None:
    """Deployed service: the Safe (real signature by its owner) executes changeHash; the owner key may not."""
    devnet = chain_snapshot
    mech, safe, instance = deployed_service(devnet)
    devnet.w3.provider.make_request("anvil_setBalance", [instance.address, hex(10**18)])
    document = generated_manifest("publish through the Safe")
    report = publisher(devnet).publish(
        document, mech.target, account=instance, safe=safe
    )
    assert report.sent and report.onchain_after == report.digest == report.event_digest
    safe_contract = contract_at(devnet.w3, "GnosisSafe", safe)
    assert report.safe_tx is not None
    assert safe_contract.functions.nonce().call() == report.safe_tx["nonce"] + 1
    assert reader_tools(devnet, mech.target) == ("ok", GENERATED_TOOLS)
    print(dumps({"kind": "safe_service", "tx": report.tx_hash, "gas": report.gas_used}))


def test_service_safe_transaction_printed_matches_safe_hash(chain_snapshot) -> None:
    """Without the Safe owner's key the Safe transaction is returned to sign; its hash is the Safe's own."""
    devnet = chain_snapshot
    mech, safe, _ = deployed_service(devnet)
    before = publisher(devnet).read_digest(mech.target)
    report = publisher(devnet).publish(
        generated_manifest("to sign"), mech.target, safe=safe
    )
    assert report.decision == UPDATE and not report.sent and report.safe_tx
    tx = report.safe_tx
    assert tx is not None
    on_chain_hash = (
        contract_at(devnet.w3, "GnosisSafe", safe)
        .functions.getTransactionHash(
            tx["to"],
            int(tx["value"]),  # wei, a decimal string
            bytes.fromhex(tx["data"][2:]),
            tx["operation"],
            tx["safeTxGas"],
            tx["baseGas"],
            int(tx["gasPrice"]),
            tx["gasToken"],
            tx["refundReceiver"],
            tx["nonce"],
        )
        .call()
    )
    assert Web3.to_hex(on_chain_hash) == tx["safeTxHash"]
    assert publisher(devnet).read_digest(mech.target) == before
