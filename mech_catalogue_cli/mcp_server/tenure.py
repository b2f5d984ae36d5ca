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

"""Since when each mech offers its manifest's tools: the chain reads behind the ranking.

For :func:`.offers.seniority` (issue #29: the default offer must not be for sale),
two blocks per marketplace mech, read from events, incrementally period after period:

- ``declared_block``: the service's last ``ComplementaryMetadataUpdated(serviceId,
  hash)`` (autonolas-registries ``ComplementaryServiceMetadata``: emitted by
  ``changeHash``), i.e. when the manifest it offers now was set. Events are read from
  the MechMarketplace's first block on; a service whose hash was set before it counts
  as set at that block (every marketplace mech is younger);
- ``first_delivery_block``: the mech contract's first ``Deliver`` event
  (``market.DELIVER_TOPICS``) at or after ``declared_block``.

Both are final once found (a later manifest change starts over), so each read only asks
for the blocks not read yet. Log ranges an RPC refuses are read in halves
(``chain.rpc_limits.narrow_log_range``). Mechs of other registry kinds get no tenure
(ranked after those that have one).
"""

from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

from mech_catalogue_core.chain.marketplace import LogQuery
from mech_catalogue_core.chain.registry import ChainReadError
from mech_catalogue_core.chain.rpc_limits import narrow_log_range
from mech_catalogue_core.model.catalogue import Catalogue
from mech_catalogue_core.model.market import MechFacts
from mech_catalogue_core.model.tool import REGISTRY_COMPLEMENTARY_SERVICE, MechRef
from web3 import Web3

from ..adapters.jsonrpc import JsonRpc, get_logs
from .market import DELIVER_TOPICS
from .offers import Tenure

#: ``ComplementaryMetadataUpdated(uint256 indexed serviceId, bytes32 indexed hash)``
METADATA_UPDATED_TOPIC = "0x" + Web3.keccak(
    text="ComplementaryMetadataUpdated(uint256,bytes32)"
).hex().removeprefix("0x")


@dataclass
class _MetadataScan:
    """One metadata contract's events read so far: last block read, last set per id."""

    read_to: int
    declared: Dict[int, int]


@dataclass
class _DeliveryScan:
    """One mech's ``Deliver`` events read since ``declared``: last block read, first."""

    declared: int
    read_to: int
    first: Optional[int] = None


class TenureReader:
    """Reads :class:`.offers.Tenure` of every marketplace mech of a catalogue."""

    def __init__(self, rpc: JsonRpc, first_block: int = 0) -> None:
        """Prepare the reader (nothing is read yet).

        :param rpc: the chain node.
        :param first_block: the MechMarketplace's first block (reads start there).
        """
        self.rpc = rpc
        self.first_block = first_block
        self._metadata: Dict[str, _MetadataScan] = {}
        self._deliveries: Dict[str, _DeliveryScan] = {}

    def _answer(self, query: LogQuery) -> List[Dict[str, Any]]:
        return get_logs(
            self.rpc, query.address, query.topic, query.from_block, query.to_block
        )

    def _logs(self, query: LogQuery) -> List[Dict[str, Any]]:
        if query.from_block > query.to_block:
            return []
        return narrow_log_range(self._answer, (ChainReadError,))(query)

    def _declared(self, registry: str, service_id: int, head: int) -> int:
        scan = self._metadata.setdefault(
            registry, _MetadataScan(self.first_block - 1, {})
        )
        for log in self._logs(
            LogQuery(registry, METADATA_UPDATED_TOPIC, scan.read_to + 1, head)
        ):
            topics = log.get("topics") or []
            if len(topics) >= 2:
                scan.declared[int(topics[1], 16)] = int(log["blockNumber"], 16)
        scan.read_to = max(scan.read_to, head)
        return scan.declared.get(service_id, self.first_block)

    def _first_delivery(self, mech: str, declared: int, head: int) -> Optional[int]:
        scan = self._deliveries.get(mech)
        if scan is None or scan.declared != declared:
            scan = self._deliveries[mech] = _DeliveryScan(declared, declared - 1)
        if scan.first is None:
            blocks = [
                int(log["blockNumber"], 16)
                for topic in DELIVER_TOPICS
                for log in self._logs(LogQuery(mech, topic, scan.read_to + 1, head))
            ]
            scan.first = min(blocks) if blocks else None
            scan.read_to = max(scan.read_to, head)
        return scan.first

    def tenures(self, catalogue: Catalogue, head: int) -> Dict[str, Tenure]:
        """Read the tenure of every marketplace mech of the catalogue, up to ``head``.

        A read the RPC fails even for one block raises ``ChainReadError`` (the caller
        keeps its last catalogue: a ranking without tenures could be bought).

        :param catalogue: the catalogue, marketplace facts attached.
        :param head: the block to read up to (inclusive).
        :return: mech contract address (lowercase) -> its tenure; mechs of other
            registry kinds are absent.
        """
        return self.tenures_of(
            (
                (mech.ref, facts)
                for mech in catalogue.mechs
                for facts in mech.marketplace
            ),
            head,
        )

    def tenures_of(
        self, offers: Iterable[Tuple[MechRef, MechFacts]], head: int
    ) -> Dict[str, Tenure]:
        """Read the tenure of each offering mech contract, up to ``head``.

        The same reads as :meth:`tenures`, for offers known without a catalogue (an
        ``--agent`` source's ``/tools/<name>`` offers: the mech's ref and its facts).
        A failed read raises ``ChainReadError``.

        :param offers: ``(the offering service's ref, one of its mech contracts' facts)``.
        :param head: the block to read up to (inclusive).
        :return: mech contract address (lowercase) -> its tenure; contracts of other
            registry kinds are absent.
        """
        found: Dict[str, Tenure] = {}
        for ref, facts in offers:
            if ref.registry_kind != REGISTRY_COMPLEMENTARY_SERVICE:
                continue
            declared = self._declared(ref.registry_address, ref.mech_id, head)
            address = facts.address.lower()
            if address not in found:
                found[address] = Tenure(
                    declared, self._first_delivery(address, declared, head)
                )
        return found
