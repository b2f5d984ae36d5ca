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

"""Raw read-only calls to a MakerDAO Multicall2 deployment, and raw log reads.

``valory/multicall2``'s ``aggregate_and_decode`` returns a tuple and takes decoder
callables, neither of which can cross the contract API (the ledger connection requires a
mapping back). This package sends call data built by the skill's framework-free
``mech_catalogue_core/chain/registry.py`` and returns the raw return data as hex, so encoding and decoding stay
in one tested place.
"""

from typing import Any, Optional

from aea.common import JSONLike
from aea.configurations.base import PublicId
from aea.contracts.base import Contract
from aea.crypto.base import LedgerApi

PUBLIC_ID = PublicId.from_str("mech_catalogue/multicall_reader:0.1.0")


class MulticallReaderContract(Contract):
    """``eth_call`` with prepared call data against a Multicall2 address."""

    contract_id = PUBLIC_ID

    @classmethod
    def get_raw_transaction(
        cls, ledger_api: LedgerApi, contract_address: str, **kwargs: Any
    ) -> JSONLike:
        """Not supported: this package only reads.

        :param ledger_api: the ledger API.
        :param contract_address: the Multicall2 address.
        :param kwargs: ignored.
        :raises NotImplementedError: always.
        """
        raise NotImplementedError

    @classmethod
    def get_raw_message(
        cls, ledger_api: LedgerApi, contract_address: str, **kwargs: Any
    ) -> bytes:
        """Not supported: this package only reads.

        :param ledger_api: the ledger API.
        :param contract_address: the Multicall2 address.
        :param kwargs: ignored.
        :raises NotImplementedError: always.
        """
        raise NotImplementedError

    @classmethod
    def get_state(
        cls, ledger_api: LedgerApi, contract_address: str, **kwargs: Any
    ) -> JSONLike:
        """Not used; the skill calls :meth:`call` by name.

        :param ledger_api: the ledger API.
        :param contract_address: the Multicall2 address.
        :param kwargs: ignored.
        :raises NotImplementedError: always.
        """
        raise NotImplementedError

    @classmethod
    def call(
        cls,
        ledger_api: LedgerApi,
        contract_address: str,
        data: str,
        block_identifier: Optional[int] = None,
        gas: Optional[int] = None,
    ) -> JSONLike:
        """``eth_call`` of ``data`` to ``contract_address``.

        :param ledger_api: the ledger API (EVM).
        :param contract_address: the Multicall2 address.
        :param data: 0x-prefixed call data (from ``domain.registry.encode_batch``).
        :param block_identifier: block number to read at; None reads ``latest``.
        :param gas: the gas the call is given at most; None: the node's default.
        :return: ``{"data": "0x<return data hex>"}``.
        """
        transaction = {
            "to": ledger_api.api.to_checksum_address(contract_address),
            "data": data,
        }
        if gas is not None:
            transaction["gas"] = int(gas)
        block = "latest" if block_identifier is None else int(block_identifier)
        result = ledger_api.api.eth.call(transaction, block_identifier=block)
        return {"data": "0x" + bytes(result).hex()}

    @classmethod
    def get_logs(  # pylint: disable=too-many-arguments
        cls,
        ledger_api: LedgerApi,
        contract_address: str,
        topic: str,
        from_block: int,
        to_block: int,
    ) -> JSONLike:
        """``eth_getLogs`` of one event of ``contract_address`` in an inclusive block range.

        Used for MechMarketplace's ``CreateMech`` (``mech_catalogue_core/chain/marketplace.py`` builds
        the ranges and decodes the logs).

        :param ledger_api: the ledger API (EVM).
        :param contract_address: the emitting contract.
        :param topic: ``topics[0]``, 0x + 64 hex.
        :param from_block: first block (inclusive).
        :param to_block: last block (inclusive).
        :return: ``{"logs": [{"address", "topics": [0x hex], "blockNumber": int}]}``.
        """
        logs = ledger_api.api.eth.get_logs(
            {
                "address": ledger_api.api.to_checksum_address(contract_address),
                "topics": [topic],
                "fromBlock": int(from_block),
                "toBlock": int(to_block),
            }
        )
        return {
            "logs": [
                {
                    "address": str(log["address"]).lower(),
                    "topics": ["0x" + bytes(t).hex() for t in log["topics"]],
                    "blockNumber": int(log["blockNumber"]),
                }
                for log in logs
            ]
        }
