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

"""The MCP server's facts read keeps a mech's last good facts when a read leaves it unread.

Strangers' burning getters beside an honest mech can leave its calls unread in one read
(``rpc_limits.isolate_failing_calls``: runs spent); its offer then lacked a price and
was refused while a stranger's was paid (adv29zz I2). ``MarketplaceReader.facts`` now
serves such a mech's facts of its last read that left none of its calls unread, with
that read's block. The node is the library's Multicall2 63/64 model (``GasNode``),
answering at a block of the test's choosing; discovery reads nothing (its checkpoint is
past the head).
"""

from dataclasses import replace
from typing import Dict, List

import pytest
from mech_catalogue_core.chain.marketplace import (
    MECH_KIND_MARKETPLACE,
    DiscoveryCheckpoint,
    MarketplaceSource,
    MechCreation,
)
from mech_catalogue_core.chain.read_apart import own_getters_failed
from mech_catalogue_core.chain.registry import BatchReply, BatchRequest, Call, selector
from mech_catalogue_core.model.market import MechFacts
from mech_catalogue_core.tests.chain.test_failing_calls_isolated import GasNode
from requests import Session

from mech_catalogue_cli.marketplace_driver import MarketplaceReader
from mech_catalogue_cli.sync_driver import SyncConfig

MARKET = "0x" + "84" * 20
FACTORY = "0x" + "fa" * 20
HEAD = 1_000
MECHS = 300


def _address(index: int) -> str:
    return f"0x{index:040x}"


class NodeAt(GasNode):  # pylint: disable=too-few-public-methods
    """The 63/64 model answering every batch at ``block``."""

    def __init__(self, kinds: Dict[str, str], block: int) -> None:
        """Answer as :class:`GasNode`, at ``block``.

        :param kinds: address -> behaviour.
        :param block: the block every answer is at.
        """
        super().__init__(kinds)
        self.block = block

    def __call__(self, request: BatchRequest) -> BatchReply:
        """Run the batch, at this node's block.

        :param request: calls and block.
        :return: the reply.
        """
        _, results = super().__call__(request)
        return self.block, results


@pytest.fixture(name="reader")
def _reader(monkeypatch: pytest.MonkeyPatch) -> MarketplaceReader:
    mechs = tuple(
        MechCreation(_address(i), MECH_KIND_MARKETPLACE, i, FACTORY, 10 + i)
        for i in range(1, MECHS + 1)
    )
    source = MarketplaceSource(chain_id=100, marketplace=MARKET)
    config = SyncConfig("http://127.0.0.2:1", "", (), "0x" + "ca" * 20)
    reader = MarketplaceReader(
        config, source, Session(), DiscoveryCheckpoint(HEAD + 1, HEAD + 1, mechs)
    )
    monkeypatch.setattr(reader, "head", lambda: HEAD)
    return reader


def _read(
    reader: MarketplaceReader, monkeypatch: pytest.MonkeyPatch, node: NodeAt
) -> List[MechFacts]:
    monkeypatch.setattr(reader, "_batch", node)
    return reader.facts()


BURNERS = {i for i in range(1, MECHS + 1) if i % 3 == 0}  # a third of the mechs burn


def test_a_mech_left_unread_keeps_its_last_good_facts(
    reader: MarketplaceReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read whole at block 100; at block 200 strangers leave honest mechs unread."""
    first = _read(reader, monkeypatch, NodeAt({}, 100))
    assert all(f.max_delivery_rate == 7 and f.block == 100 for f in first)
    kinds = {_address(i): "burns" for i in BURNERS}
    node = NodeAt(kinds, 200)
    second = _read(reader, monkeypatch, node)
    honest = [f for f in second if int(f.address, 16) not in BURNERS]
    kept = [f for f in honest if f.block == 100]
    assert kept, "premise: the read left some honest mechs' calls unread"
    # the mechs read whole at block 100 go first among those waiting to be read alone
    assert reader.read_apart.incumbents == {f.address.lower() for f in first}
    assert all(f.max_delivery_rate == 7 and not own_getters_failed(f) for f in honest)
    assert all(f.block == 200 for f in honest if f not in kept)
    # a stranger's own failing getters, told apart, are its own facts: unread now
    told_apart = [f for f in second if int(f.address, 16) in BURNERS and f.block == 200]
    assert told_apart and all(f.max_delivery_rate is None for f in told_apart)


def test_a_mech_never_read_whole_is_served_unread(
    reader: MarketplaceReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No earlier good read: the mech's facts stay unread (nothing is made up)."""
    kinds = {_address(i): "burns" for i in BURNERS}
    facts = _read(reader, monkeypatch, NodeAt(kinds, 200))
    unread = [
        f for f in facts if int(f.address, 16) not in BURNERS and own_getters_failed(f)
    ]
    assert unread and all(f.block == 200 for f in unread)
    assert reader.read_apart.incumbents == frozenset()  # nothing answered before
    assert reader.last_read.keys() <= {f.address for f in facts if f not in unread}


def test_mechs_no_longer_read_are_forgotten(
    reader: MarketplaceReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept facts hold only the last read's mechs."""
    _read(reader, monkeypatch, NodeAt({}, 100))
    assert len(reader.last_read) == MECHS
    assert reader.checkpoint is not None
    reader.checkpoint = DiscoveryCheckpoint(
        HEAD + 1, HEAD + 1, reader.checkpoint.mechs[:10]
    )
    _read(reader, monkeypatch, NodeAt({}, 150))
    assert len(reader.last_read) == 10
    assert all(f.block == 150 for f in reader.last_read.values())


def test_a_marketplace_call_about_a_mech_left_unread_keeps_its_last_good_facts(
    reader: MarketplaceReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only its getters: a marketplace call about the mech left unread counts too."""
    # the agent's rule (chain.facts_kept): mapMechDeliveryCounts(mech) unread leaves the
    # mech's marketplace deliveries unread, so it keeps its last read's facts
    _read(reader, monkeypatch, NodeAt({}, 100))
    mech = _address(5)
    second = _read(reader, monkeypatch, NodeAt({}, 200))
    about = Call(
        MARKET,
        selector("mapMechDeliveryCounts(address)")
        + bytes(12)
        + bytes.fromhex(mech[2:]),
        ("uint256",),
    )
    reader.last_read = {f.address.lower(): replace(f, block=100) for f in second}
    served = reader._last_good(second, [about])  # pylint: disable=protected-access
    by_address = {f.address.lower(): f for f in served}
    assert by_address[mech].block == 100
    assert all(f.block == 200 for a, f in by_address.items() if a != mech)
    # a call of no mech read (another contract's argument) keeps nothing
    stranger = Call(MARKET, selector("mapMechDeliveryCounts(address)") + bytes(32), ())
    served = reader._last_good(second, [stranger])  # pylint: disable=protected-access
    assert all(f.block == 200 for f in served)
