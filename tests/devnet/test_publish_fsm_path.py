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

"""The FSM branch's transports against the real devnet, without the agent framework.

What the publish behaviours do, step by step, with the same third-party code they run:

- upload: open-aea's ``IPFSTool`` (what the ``valory/ipfs`` connection's STORE_FILES
  calls: a single file wrapped in a directory, kubo defaults) and a download by the
  manifest's own CID (what GET_FILES does), then ``check_read_back``;
- the Safe transaction: the ``valory/gnosis_safe`` contract package's
  ``get_raw_safe_transaction_hash`` over a real ``EthereumApi`` on anvil, packed with
  ``transaction_settlement_abci``'s ``hash_payload_to_hex``;
- settlement: the payload is decoded with ``skill_input_hex_to_payload`` and executed
  through the service Safe with its owner's real ECDSA signature (what
  transaction_settlement_abci does with the agents' signatures), then the digest and the
  event are confirmed and the reader's next read shows the new tools.

Not covered here: the framework's rounds and connections themselves (see the skill's
behaviour tests) and a multi-agent settlement (needs Tendermint agents).
"""

import tempfile
from pathlib import Path

from aea.contracts.base import Contract
from aea_cli_ipfs.ipfs_utils import IPFSTool
from aea_ledger_ethereum import EthereumApi
from mech_catalogue_core.publish.publish import (
    SafeTransaction,
    check_read_back,
    prepare_manifest,
    safe_tx_hash,
    update_call,
)

from packages.mech_catalogue.skills.manifest_publish_abci.behaviours.base import (
    CONNECTION_CID_VERSION,
)
from packages.valory.skills.transaction_settlement_abci.payload_tools import (
    hash_payload_to_hex,
    skill_input_hex_to_payload,
)

from tests.devnet.publish_helpers import (
    deployed_service,
    generated_manifest,
    publisher,
    reader_tools,
)


def test_connection_upload_and_safe_settlement(  # pylint: disable=too-many-locals
    chain_snapshot,
) -> None:
    """Upload as the connection does, build the settlement payload as the behaviour does, settle through the Safe."""
    devnet = chain_snapshot
    mech, safe, instance = deployed_service(devnet)
    document = generated_manifest("settled by the service Safe")
    prepared = prepare_manifest(document, CONNECTION_CID_VERSION)

    tool = IPFSTool(addr=devnet.info.ipfs_api_multiaddr)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "manifest.json"
        path.write_text(prepared.data.decode("utf-8"), encoding="utf-8")
        _, directory_hash, _ = tool.add(str(path))
    assert (
        directory_hash != prepared.cid
    )  # the connection answers with the wrapping directory
    with tempfile.TemporaryDirectory() as folder:
        downloaded = Path(tool.download(prepared.cid, folder))
        read_back = (
            downloaded.read_bytes()
            if downloaded.is_file()
            else next(downloaded.iterdir()).read_bytes()
        )
    assert check_read_back(prepared, read_back) == prepared.digest

    safe_package = Contract.from_dir(
        str(
            Path(__file__).resolve().parents[2]
            / "packages/valory/contracts/gnosis_safe"
        )
    )
    ledger = EthereumApi(address=devnet.info.rpc_url, chain_id=devnet.info.chain_id)
    call = update_call(mech.target, prepared.digest)
    safe_hash = safe_package.get_raw_safe_transaction_hash(  # type: ignore[attr-defined]
        ledger, safe, call.target, 0, call.data, chain_id=devnet.info.chain_id
    )[
        "tx_hash"
    ]
    payload = hash_payload_to_hex(
        safe_tx_hash=safe_hash[2:],
        ether_value=0,
        safe_tx_gas=0,
        to_address=call.target,
        data=call.data,
    )

    decoded = skill_input_hex_to_payload(payload)
    run = publisher(devnet)
    nonce = int(safe_package.get_instance(ledger, safe).functions.nonce().call())
    safe_tx = SafeTransaction(
        safe=safe,
        to=decoded["to_address"],
        data=decoded["data"],
        nonce=nonce,
        value=decoded["ether_value"],
        safe_tx_gas=decoded["safe_tx_gas"],
        operation=decoded["operation"],
    )
    assert safe_tx_hash(safe_tx, devnet.info.chain_id) == "0x" + decoded["safe_tx_hash"]
    devnet.w3.provider.make_request("anvil_setBalance", [instance.address, hex(10**18)])
    receipt = run.exec_safe(safe_tx, [instance], instance)
    assert run.read_digest(mech.target) == prepared.digest
    status, tools = reader_tools(devnet, mech.target)
    assert status == "ok" and tuple(tools) == prepared.tools
    print(
        {"settlement_gas": receipt["gasUsed"], "tx": receipt["transactionHash"].hex()}
    )
