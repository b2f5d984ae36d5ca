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

"""The devnet client core: contracts by name, accounts by role, kubo, and sending."""

from typing import Any, Tuple

from mech_catalogue_core.ipfs.cid import (
    cid_to_digest,
)
from web3 import Web3
from web3.contract import Contract

from mech_catalogue_cli.devnet.state import DevnetInfo
from mech_catalogue_cli.publisher.ipfs import IpfsApi
from scripts.devnet.contracts import contract_at, send
from scripts.devnet.kubo import HTTP_TIMEOUT, READ_CAP

# account roles -> anvil account index
ROLES = {
    "deployer": 0,
    "owner_1": 1,
    "owner_2": 2,
    "owner_3": 3,
    "operator": 4,
    "stranger": 9,
}


class DevnetError(RuntimeError):
    """The devnet cannot be started, found, or used as asked."""


class DevnetClient:
    """Talks to a running devnet described by a :class:`DevnetInfo`.

    Every helper sends from unlocked anvil accounts, waits for the receipt and raises
    web3's ``ContractLogicError`` (or its subclass ``ContractCustomError``) on a revert.
    """

    def __init__(self, info: DevnetInfo) -> None:
        """Bind to a devnet described by ``info`` (see ``Devnet.start`` and ``Devnet.attach``).

        :param info: the devnet state.
        """
        self.info = info
        self.w3 = Web3(Web3.HTTPProvider(info.rpc_url, request_kwargs={"timeout": 30}))
        self.ipfs = IpfsApi(info.ipfs_api_url, timeout=HTTP_TIMEOUT, cap=READ_CAP)

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
        cid = self.ipfs.add(data, raw_leaves=raw_leaves)
        _, digest = cid_to_digest(cid)
        return cid, bytes.fromhex(digest[2:])

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
