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

"""When a refused off-chain request is released: the rule, on chain facts given by hand.

The devnet test (``tests/adversary/test_offchain_refused_release.py``) runs the whole
path on the real marketplace; here the marketplace is a stand-in whose facts per block
the test sets (a nonce that moves between two reads, an unreadable RPC, a journal of
another key), which the devnet cannot be made to show on demand.
"""

import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, Optional

import pytest
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import (
    STATUS_DELIVERED,
    STATUS_DOES_NOT_EXIST,
    MarketError,
)
from mech_catalogue_cli.mcp_server.offchain import OffchainPoster, release_unsettleable
from mech_catalogue_cli.mcp_server.spending import journal_records
from tests.test_mcp_offchain_journal import OFFCHAIN
from tests.test_mcp_offchain_journal import entry as offchain_entry

REQUESTER = "0x" + "aa" * 20
MARKETPLACE = "0x" + "bb" * 20


class Chain:
    """The marketplace stand-in: ``mapNonces`` and statuses per block."""

    def __init__(self, head: int, nonces: Dict[int, int]) -> None:
        """Facts by block.

        :param head: the head block.
        :param nonces: ``mapNonces(requester)`` at each block.
        """
        self.requester, self.address = REQUESTER, MARKETPLACE
        self.w3 = SimpleNamespace(eth=SimpleNamespace(chain_id=100))
        self.head_block, self.nonces = head, nonces
        self.statuses: Dict[str, int] = {}
        self.status_blocks: list = []
        self.fail = False

    def head(self) -> int:
        """The head.

        :return: the block.
        :raises MarketError: when told to fail.
        """
        if self.fail:
            raise MarketError("the RPC is down")
        return self.head_block

    def market_nonce(self, block: Optional[int] = None) -> int:
        """``mapNonces`` at a block.

        :param block: the block.
        :return: the nonce.
        """
        return self.nonces[self.head_block if block is None else block]

    def status(self, request_id: str, block: Optional[int] = None) -> int:
        """``getRequestStatus`` (the same at every block here).

        :param request_id: the id.
        :param block: the block.
        :return: the status.
        """
        self.status_blocks.append(block)
        return self.statuses.get(request_id, STATUS_DOES_NOT_EXIST)


def _refused(poster: OffchainPoster, key: str, nonce: int) -> JournalEntry:
    """A refused entry signed by the stand-in's requester at ``nonce``."""
    written = offchain_entry(
        dict(OFFCHAIN, accepted=False, refused="402"), status=CallStatus.PREPARED
    )
    written.key, written.market_nonce = key, nonce
    written.request_id = poster.own_request_id(written)
    return written


def _setup(tmp_path: Path, chain: Chain) -> Any:
    poster = OffchainPoster(chain, None)  # type: ignore[arg-type]
    journal = Journal(tmp_path)
    return poster, journal


def test_a_request_whose_nonce_has_not_moved_past_it_keeps_counting(
    tmp_path: Path,
) -> None:
    """Nonce equal to the signed one: it may still be settled; nothing released."""
    chain = Chain(50, {50: 3})
    poster, journal = _setup(tmp_path, chain)
    journal.save(_refused(poster, "ab" * 32, 3))
    assert not release_unsettleable(poster, journal, journal_records(journal.folder))
    (record,) = journal_records(journal.folder)
    assert record.price > 0 and record.unsettled_nonce == 3
    assert not chain.status_blocks  # not even asked: the nonce decides first


def test_nonce_and_status_are_read_at_one_block_and_a_settled_request_stays(
    tmp_path: Path,
) -> None:
    """Released only when not settled at the block whose nonce is past it."""
    chain = Chain(50, {50: 5})
    poster, journal = _setup(tmp_path, chain)
    settled = _refused(poster, "ab" * 32, 3)
    unsettled = _refused(poster, "cd" * 32, 4)
    chain.statuses[settled.request_id] = STATUS_DELIVERED
    journal.save(settled)
    journal.save(unsettled)
    released = release_unsettleable(poster, journal, journal_records(journal.folder))
    assert [e.key for e in released] == [unsettled.key]
    assert set(chain.status_blocks) == {50}
    prices = {r.key: r.price for r in journal_records(journal.folder)}
    assert prices == {settled.key: settled.price, unsettled.key: 0}
    loaded = journal.load(unsettled.key)
    assert loaded is not None
    assert loaded.extra["offchain"]["released"] == {"market_nonce": 5, "block": 50}


def test_a_request_of_another_requester_is_never_released(tmp_path: Path) -> None:
    """A journal entry whose id is not this key's request: its nonce says nothing."""
    chain = Chain(50, {50: 9})
    poster, journal = _setup(tmp_path, chain)
    foreign = _refused(poster, "ab" * 32, 3)
    foreign.request_id = "0x" + "77" * 32  # signed by another key
    journal.save(foreign)
    assert not release_unsettleable(poster, journal, journal_records(journal.folder))
    (record,) = journal_records(journal.folder)
    assert record.price == foreign.price


def test_an_unreadable_chain_releases_nothing_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The RPC fails: every refused request keeps counting (the safe side), logged."""
    chain = Chain(50, {50: 9})
    poster, journal = _setup(tmp_path, chain)
    journal.save(_refused(poster, "ab" * 32, 3))
    chain.fail = True
    with caplog.at_level(logging.WARNING, logger="mech_catalogue.mcp"):
        assert not release_unsettleable(
            poster, journal, journal_records(journal.folder)
        )
    assert "keep counting against --max-spend" in caplog.text
    (record,) = journal_records(journal.folder)
    assert record.price > 0
