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

"""A mined revert is the journal's: every process skips its mech, and its price counts until final.

adv29yp R1's kind: the memory of mechs whose request was mined and reverted was the
process's, so a restart or a second server on the state folder sent the mech another
request (gas). Now every journal read learns the journal's reverts within
``--spend-window`` (:meth:`.refused_offers.RevertingMechs.learn`), from any entry,
written by any process, at any time. adv29yp C1's kind: a reverted request's price was
given back to ``--max-spend`` at once, while a reorg could still mine it paid; now it
counts, in this process and in any other reading the journal, until its block is final
(:func:`.mined_reverts.release_final_reverts`). A stand-in chain, no node.
"""

import math
import time
from pathlib import Path
from typing import Any, Dict, Optional

import anyio
import pytest

from mech_catalogue_cli.mcp_server.dropped import FINAL_DEPTH, NotFinal
from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import MarketError
from mech_catalogue_cli.mcp_server.mined_reverts import (
    REVERTED_KEY,
    MinedRevert,
    mined_reverts,
    own_revert,
    record_reverted,
)
from mech_catalogue_cli.mcp_server.refused_offers import (
    RevertingMechs,
    RevertRefusal,
    journalled_reverts,
)
from mech_catalogue_cli.mcp_server.sending import RequestSender
from mech_catalogue_cli.mcp_server.spend_cap import (
    DEFAULT_SPEND_WINDOW_SECONDS,
    PaidRecord,
)
from mech_catalogue_cli.mcp_server.spending import read_record
from tests.adversary.test_adv29u_mined_revert_not_final import HEAD
from tests.adversary.test_adv29yp_revert_memory_restart import _call, _server_call
from tests.test_mcp_offer_choice import offer
from tests.test_mcp_refused_offers import (  # noqa: F401 # pylint: disable=unused-import
    HONEST,
    MECH,
    PRICE,
    _no_upload,
    _sender,
    _tool,
)
from tests.test_mcp_reverted_for_call import Chain

OTHER = "0x" + "0d" * 20
WINDOW = DEFAULT_SPEND_WINDOW_SECONDS  # _sender's --spend-window


def _ranked_call(sender: RequestSender, key: str) -> Any:
    """The server's order: the journal read first, then adv29yp's loop over offers."""
    anyio.run(sender.journal_records)
    return _server_call(sender, key)


def _written(folder: Path, key: str, mech: str, **extra: Any) -> JournalEntry:
    """An entry another process journalled (its ``extra`` as given)."""
    entry = JournalEntry(
        key, "tool", mech, PRICE, "0x" + "00" * 32, "", "0x" + "00" * 32, 0,
        "0x" + key[:2] * 32, 1, tx_hash="0x" + "98" * 32, extra=dict(extra),
    )  # fmt: skip
    Journal(folder).save(entry)
    return entry


def _revert(mech: str = MECH, at: Optional[float] = None, **more: Any) -> Dict:
    when = time.time() if at is None else at
    return {mech: {"tx_hash": "0x" + "98" * 32, "at": when, **more}}


# --- R1: the journal is the memory ---------------------------------------------------


@pytest.mark.usefixtures("no_upload")
@pytest.mark.parametrize(
    "mech_of_entry", [MECH, OTHER], ids=["its-own-request", "carried-by-a-later-one"]
)
def test_another_processs_journalled_revert_keeps_the_mech_off_every_call(
    tmp_path: Path, mech_of_entry: str
) -> None:
    """A revert journalled by another process, own or carried: no request to the mech.

    :param tmp_path: the state folder.
    :param mech_of_entry: the entry's own mech (a carried record names another).
    """
    _written(tmp_path, "c" * 64, mech_of_entry, **{REVERTED_KEY: _revert()})
    chain = Chain([PRICE])
    said = _ranked_call(_sender(tmp_path, chain), "d" * 64)
    assert isinstance(said, JournalEntry) and said.mech == HONEST, said
    assert not chain.broadcasts, chain.broadcasts  # the mech was sent nothing


@pytest.mark.usefixtures("no_upload")
def test_a_revert_journalled_after_the_first_read_is_learnt_at_the_send(
    tmp_path: Path,
) -> None:
    """Another server's revert appended after this one ranked: refused under the lock.

    :param tmp_path: the state folder.
    """
    chain = Chain([PRICE])
    sender = _sender(tmp_path, chain)
    anyio.run(sender.journal_records)  # the first whole read: nothing then
    _written(tmp_path, "c" * 64, MECH, **{REVERTED_KEY: _revert()})
    said = _call(sender, "d" * 64, MECH)
    assert isinstance(said, RevertRefusal) and said.mined and said.mech == MECH
    assert "journalled" in said and not chain.broadcasts


@pytest.mark.usefixtures("no_upload")
@pytest.mark.parametrize(
    "record",
    [
        _revert(at=time.time() - 2 * WINDOW),
        _revert(MECH.upper().replace("0X", "0x")),
        {MECH: {"tx_hash": "0x", "at": "now"}},
        {MECH: {"tx_hash": "0x", "at": True}},
        {MECH: {"tx_hash": "0x", "at": math.inf}},
        {MECH: ["0x", 1.0]},
        [MECH],
        {"not a mech": {"tx_hash": "0x", "at": 1.0}},
    ],
    ids=[
        "older-than-window",
        "checksum-key",
        "text",
        "bool",
        "inf",
        "list",
        "a-list",
        "no-address",
    ],
)
def test_an_old_or_malformed_record_keeps_nothing_off(
    tmp_path: Path, record: Any
) -> None:
    """Outside the window, or not of this server's shape: the mech is tried as usual.

    :param tmp_path: the state folder.
    :param record: the ``reverted_when_mined`` record as journalled.
    """
    _written(tmp_path, "c" * 64, OTHER, **{REVERTED_KEY: record})
    chain = Chain([PRICE], reverting=())
    said = _ranked_call(_sender(tmp_path, chain), "d" * 64)
    assert isinstance(said, JournalEntry) and said.mech == MECH, said


def test_a_mech_paid_since_is_not_learnt_again_from_an_older_revert() -> None:
    """Forgotten when paid: an older journalled revert is not learnt; a later one is."""
    mechs = RevertingMechs(period=WINDOW)
    now = time.time()
    mechs.learn([MinedRevert(MECH, now - 10, "0x1")])
    assert mechs.skipped([offer(MECH, 1)])[1]
    mechs.forget(MECH)
    mechs.learn([MinedRevert(MECH, now - 10, "0x1")])
    assert not mechs.skipped([offer(MECH, 1)])[1]
    mechs.learn([MinedRevert(MECH, time.time() + 1, "0x2")])
    assert mechs.skipped([offer(MECH, 1)])[1]


def test_learning_keeps_the_latest_and_upgrades_an_estimate_revert() -> None:
    """An estimate revert (tried last) becomes a mined one (skipped); later dates win."""
    mechs = RevertingMechs(period=WINDOW)
    now = time.time()
    mechs.remember_mech(MECH, "estimate", mined=False, now=now)
    mechs.learn([MinedRevert(MECH, now - 5, "0x1")])
    assert "until" in str(mechs.why(MECH)) and mechs.skipped([offer(MECH, 1)])[1]
    found = journalled_reverts(
        [
            PaidRecord("", 0, now, reverted=(MinedRevert(MECH, now - 50, "0xa"),)),
            PaidRecord("", 0, now, reverted=(MinedRevert(MECH, now - 1, "0xb"),)),
        ]
    )
    assert found == [MinedRevert(MECH, now - 1, "0xb")]


# --- C1: a mined revert counts until final -------------------------------------------


def _held_then_refused(tmp_path: Path, chain: Chain) -> RequestSender:
    """Call A reverts at the mech and is held; the cap is one price."""
    sender = _sender(tmp_path, chain, cap=PRICE)
    held = _ranked_call(sender, "a" * 64)
    assert isinstance(held, NotFinal), held  # premise
    assert f"({PRICE} wei) counts against --max-spend" in held, held
    return sender


@pytest.mark.usefixtures("no_upload")
@pytest.mark.parametrize("process", ["same", "restarted"])
def test_a_reverted_price_counts_until_final_then_no_more(
    tmp_path: Path, process: str
) -> None:
    """Counted in this process and another; released once final, for both.

    :param tmp_path: the state folder.
    :param process: call B in the same process or a new one on the folder.
    """
    chain = Chain([PRICE])
    sender = _held_then_refused(tmp_path, chain)
    if process == "restarted":
        sender = _sender(tmp_path, chain, cap=PRICE)
    refused = _ranked_call(sender, "b" * 64)
    assert isinstance(refused, str) and "max-spend" in refused, refused
    assert "mined and reverted whose blocks are not final yet" in refused
    chain.head_block = HEAD + FINAL_DEPTH - 1  # one block short: still counted
    assert isinstance(_ranked_call(sender, "b" * 64), str)
    chain.head_block = HEAD + FINAL_DEPTH
    paid = _ranked_call(sender, "b" * 64)
    assert isinstance(paid, JournalEntry) and paid.mech == HONEST, paid
    record = read_record(tmp_path / "calls" / f"{'a' * 64}.json")
    assert record is not None and record.price == 0 and record.reverted_in is None
    revert = own_revert(Journal(tmp_path).load("a" * 64))  # type: ignore[arg-type]
    assert revert is not None and revert.final_at == HEAD + FINAL_DEPTH


class _PaidByReorg(Chain):
    """After the revert, a reorg mines the request paid: its receipt succeeds."""

    def transaction_reverted(self, tx_hash: str) -> Optional[bool]:
        """Mined, not reverted, once the head passed the depth."""
        if self.head_block >= HEAD + FINAL_DEPTH and tx_hash in self.mined_at:
            return False
        return super().transaction_reverted(tx_hash)


class _PrunedNode(Chain):
    """The account's count ``depth`` blocks back cannot be read."""

    def final_nonce(self, depth: int) -> int:
        """A node pruning that state."""
        if self.head_block >= HEAD + FINAL_DEPTH:
            raise MarketError("missing trie node")
        return super().final_nonce(depth)


@pytest.mark.usefixtures("no_upload")
@pytest.mark.parametrize("chain_kind", [_PaidByReorg, _PrunedNode])
def test_a_revert_not_shown_final_keeps_counting(
    tmp_path: Path, chain_kind: Any
) -> None:
    """Mined paid by a reorg, or finality unread: the price still counts.

    :param tmp_path: the state folder.
    :param chain_kind: the chain after the depth.
    """
    chain = chain_kind([PRICE])
    sender = _held_then_refused(tmp_path, chain)
    chain.head_block = HEAD + FINAL_DEPTH
    refused = _ranked_call(sender, "b" * 64)
    assert isinstance(refused, str) and "max-spend" in refused, refused
    record = read_record(tmp_path / "calls" / f"{'a' * 64}.json")
    assert record is not None and record.price == PRICE and record.reverted_in == HEAD


@pytest.mark.usefixtures("no_upload")
def test_a_revert_whose_block_was_not_read_is_checked_in_full(tmp_path: Path) -> None:
    """No block journalled: released when the chain shows it final, not before.

    :param tmp_path: the state folder.
    """
    chain = Chain([PRICE])
    _held_then_refused(tmp_path, chain)
    journal = Journal(tmp_path)
    entry = journal.load("a" * 64)
    assert entry is not None
    entry.extra[REVERTED_KEY][MECH]["block"] = None
    journal.save(entry)
    restarted = _sender(tmp_path, chain, cap=PRICE)
    assert isinstance(_ranked_call(restarted, "b" * 64), str)  # read: not final
    chain.head_block = HEAD + FINAL_DEPTH
    assert isinstance(_ranked_call(restarted, "b" * 64), JournalEntry)


def test_the_record_shape_and_its_own_request() -> None:
    """Only this server's shape is read; the entry's own request is told apart."""
    entry = JournalEntry(
        "a" * 64, "tool", MECH, PRICE, "0x", "", "0x", 0, "0x" + "77" * 32, 1,
        tx_hash="0x" + "98" * 32,
    )  # fmt: skip
    assert record_reverted(entry, 120, now=5.0) == (5.0, True)
    assert record_reverted(entry, 121, now=9.0) == (5.0, False)  # not re-dated
    assert own_revert(entry) == MinedRevert(MECH, 5.0, entry.tx_hash, 120)
    entry.tx_hash = "0x" + "97" * 32  # the mech sent another request later
    assert own_revert(entry) is None
    assert record_reverted(entry, 130, now=50.0) == (50.0, True)  # its own, dated
    entry.extra[REVERTED_KEY][OTHER] = {"tx_hash": "0x1", "at": 1.0, "block": True}
    assert MinedRevert(OTHER, 1.0, "0x1", None) in mined_reverts(entry.extra)


class _CountedReads(Chain):
    """Counts the head and receipt reads."""

    reads = 0

    def head(self) -> int:
        """The head, counted."""
        self.reads += 1
        return super().head()

    def transaction_reverted(self, tx_hash: str) -> Optional[bool]:
        """The receipt, counted."""
        self.reads += 1
        return super().transaction_reverted(tx_hash)


@pytest.mark.parametrize("age, reads", [(2 * WINDOW, 0), (60.0, 1)])
def test_a_revert_older_than_the_window_is_never_read_again(
    tmp_path: Path, age: float, reads: int
) -> None:
    """Older than ``--spend-window`` it counts nothing: no chain read for it.

    :param tmp_path: the state folder.
    :param age: seconds since the reverted request was paid.
    :param reads: chain reads expected (one head read when it still counts).
    """
    entry = _written(tmp_path, "c" * 64, MECH, **{REVERTED_KEY: _revert(block=HEAD)})
    entry.paid_at = time.time() - age
    Journal(tmp_path).save(entry)
    chain = _CountedReads([PRICE])
    sender = _sender(tmp_path, chain, cap=PRICE)
    records = anyio.run(sender.journal_records)
    released: Any = anyio.run(
        sender._reverts_released, records  # pylint: disable=protected-access
    )
    assert not released and chain.reads == reads
