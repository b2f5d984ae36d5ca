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

"""What a journal entry counts against ``--max-spend``: its request's fate, its owner.

Without a chain (adv29zp C3, C4, C5 and one ``--state-dir`` serving two chains): an
on-chain request counts until the journal records its fate (`mcp_server/unmined.py`), whatever
its age; an entry never signed counts nothing (an approval is no payment); a run call
whose entry now names another asset counts nothing in this one; a server counts only
its own requester's entries on its own chain. The sender's reproductions are
``tests/adversary/test_adv29zp_*.py``.
"""

import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.dropped import MINED_KEY, record_dropped
from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import MarketError
from mech_catalogue_cli.mcp_server.outstanding import owner_text
from mech_catalogue_cli.mcp_server.spend_cap import PaidRecord, SpendLedger
from mech_catalogue_cli.mcp_server.spending import journal_records
from mech_catalogue_cli.mcp_server.unmined import (
    SIGNER_KEY,
    learn_fates,
    record_mined,
    record_signer,
)
from tests.raw_block_stub import BlocksOfStub
from tests.test_mcp_spend_run_reconciled import KEY_A, KEY_B, PRICE, on_chain

WINDOW = 3600.0
REQUESTER = "0x" + "0c" * 20
OTHER_REQUESTER = "0x" + "0d" * 20
GNOSIS, DEVNET = owner_text(REQUESTER, 100), owner_text(REQUESTER, 31337)
#: MechFixedPriceToken's PAYMENT_TYPE (OLAS)
OLAS_PAYMENT_TYPE = "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9"
FIRST, SECOND = "0x" + "01" * 32, "0x" + "02" * 32


def _signed(key: str, request_id: str, ago: float, nonce: int = 3) -> JournalEntry:
    """An on-chain entry signed ``ago`` seconds ago at account nonce ``nonce``, no fate."""
    entry = on_chain(key, request_id, time.time() - ago)
    entry.status = CallStatus.PREPARED  # no receipt seen
    entry.raw_tx, entry.account_nonce = "0x02", nonce
    record_signer(entry, REQUESTER, {"chainId": 100})
    return entry


def _count(journal: Journal, owner: str = GNOSIS, asset: str = "native") -> int:
    ledger = SpendLedger(max_spend=10 * PRICE, window=WINDOW, asset=asset)
    ledger.count_journal(journal_records(journal.folder), time.time(), None, owner)
    return ledger.earlier + ledger.spent


@pytest.mark.parametrize("ago", [0.0, 2 * WINDOW, 400 * WINDOW])
def test_an_unmined_request_counts_whatever_its_age(tmp_path: Path, ago: float) -> None:
    """C4: signed, no fate recorded: its price, today or a year after."""
    journal = Journal(tmp_path)
    journal.save(_signed(KEY_A, FIRST, ago))
    assert _count(journal) == PRICE


@pytest.mark.parametrize(
    "mined_ago, counted",
    [(60.0, PRICE), (2 * WINDOW, 0)],  # mined a minute ago: in the window, by then
)
def test_a_mined_request_is_dated_by_when_it_was_mined(
    tmp_path: Path, mined_ago: float, counted: int
) -> None:
    """Signed two windows ago, mined later: the window counts from its mining."""
    journal = Journal(tmp_path)
    entry = _signed(KEY_A, FIRST, 3 * WINDOW)
    record_mined(entry, time.time() - mined_ago)
    journal.save(entry)
    assert _count(journal) == counted


def test_a_request_whose_nonce_went_elsewhere_counts_nothing(tmp_path: Path) -> None:
    """Its nonce taken by another transaction, final: never mined, never paid."""
    journal = Journal(tmp_path)
    entry = _signed(KEY_A, FIRST, 60.0)  # even within the window
    record_mined(entry, None)
    journal.save(entry)
    assert _count(journal) == 0


@pytest.mark.parametrize("at", ["yesterday", True, -1.0, float("nan"), [1]])
def test_a_fate_in_another_form_is_not_believed(tmp_path: Path, at: Any) -> None:
    """A malformed ``extra.mined``: the request keeps counting (the safe side)."""
    journal = Journal(tmp_path)
    entry = _signed(KEY_A, FIRST, 2 * WINDOW)
    entry.extra[MINED_KEY] = {"at": at, "seen_at": time.time()}
    try:
        journal.save(entry)
    except ValueError:
        pytest.skip("the journal refuses to write that value")
    assert _count(journal) == PRICE


def test_a_dropped_request_counts_again_until_mined_anew(tmp_path: Path) -> None:
    """A reorg drops a mined request: its fate is forgotten, it counts again."""
    journal = Journal(tmp_path)
    entry = _signed(KEY_A, FIRST, 3 * WINDOW)
    entry.status = CallStatus.SENT
    record_mined(entry, time.time() - 2 * WINDOW)
    journal.save(entry)
    assert _count(journal) == 0
    record_dropped(entry, 120)
    journal.save(entry)
    assert MINED_KEY not in entry.extra and _count(journal) == PRICE


def test_an_entry_older_than_signers_is_dated_as_before(tmp_path: Path) -> None:
    """An entry that does not say whose it is (written before): by its date."""
    journal = Journal(tmp_path)
    entry = _signed(KEY_A, FIRST, 2 * WINDOW)
    del entry.extra[SIGNER_KEY]
    journal.save(entry)
    assert _count(journal) == 0


def test_a_token_entry_never_signed_counts_nothing(tmp_path: Path) -> None:
    """C5: an approval journalled before the request's estimate is no payment."""
    journal = Journal(tmp_path)
    entry = on_chain(KEY_A, FIRST)
    entry.payment_type, entry.status, entry.tx_hash = OLAS_PAYMENT_TYPE, "prepared", ""
    entry.extra["approval"] = {"amount": PRICE, "tx_hash": "0x" + "98" * 32}
    journal.save(entry)
    assert _count(journal, asset="olas") == 0
    entry.raw_tx, entry.tx_hash, entry.account_nonce = "0x02", "0x" + "99" * 32, 4
    journal.save(entry)  # its request signed: counted from now on
    assert _count(journal, asset="olas") == PRICE


def test_an_unsigned_entry_still_counts_its_deposit(tmp_path: Path) -> None:
    """An automatic deposit made for the call is spent, request or not."""
    journal = Journal(tmp_path)
    entry = on_chain(KEY_A, FIRST)
    entry.status, entry.tx_hash = CallStatus.PREPARED, ""
    entry.extra["auto_prepay"] = {"amount": str(3 * PRICE)}
    journal.save(entry)
    assert _count(journal) == 3 * PRICE


def test_a_run_call_whose_entry_names_another_asset_counts_nothing_here() -> None:
    """C3: the run's native request for call A; its entry now an OLAS request."""
    now = time.time()
    native = SpendLedger(max_spend=PRICE, window=WINDOW)
    native.record(PRICE, FIRST, KEY_A)
    same = [PaidRecord(FIRST, PRICE, now, key=KEY_A)]
    native.count_journal(same, now)
    assert native.spent == PRICE  # control: its own asset's entry counts
    moved = [PaidRecord(SECOND, PRICE, now, asset="olas", key=KEY_A)]
    native.count_journal(moved, now)
    assert native.spent == 0 and native.refusal(PRICE) is None
    olas = SpendLedger(max_spend=PRICE, window=WINDOW, asset="olas")
    olas.count_journal(moved, now)
    assert olas.earlier == PRICE  # the other asset's ledger counts it


def _two_chains(tmp_path: Path) -> Journal:
    journal = Journal(tmp_path)
    for key, rid, chain in ((KEY_A, FIRST, 100), (KEY_B, SECOND, 31337)):
        entry = on_chain(key, rid)
        entry.raw_tx, entry.account_nonce = "0x02", 3
        record_signer(entry, REQUESTER, {"chainId": chain})
        record_mined(entry, time.time())
        journal.save(entry)
    return journal


@pytest.mark.parametrize(
    "owner, counted",
    [
        (GNOSIS, PRICE),
        (DEVNET, PRICE),
        (owner_text(REQUESTER, 1), 0),  # a third chain: nothing of it
        (owner_text(OTHER_REQUESTER, 100), 0),  # another key on Gnosis
        ("", 2 * PRICE),  # the chain id unread: every entry, the safe side
    ],
)
def test_a_state_dir_serving_two_chains_counts_each_chain_alone(
    tmp_path: Path, owner: str, counted: int
) -> None:
    """One journal, entries of Gnosis and of a devnet: each server counts its own."""
    assert _count(_two_chains(tmp_path), owner) == counted


def test_an_entry_signed_without_a_chain_id_counts_on_its_requester_s_chains(
    tmp_path: Path,
) -> None:
    """The requester alone recorded: every chain of that requester, no other's."""
    journal = Journal(tmp_path)
    entry = _signed(KEY_A, FIRST, 0.0)
    record_signer(entry, REQUESTER, {})
    journal.save(entry)
    assert entry.extra[SIGNER_KEY] == REQUESTER
    assert _count(journal, GNOSIS) == PRICE == _count(journal, DEVNET)
    assert _count(journal, owner_text(OTHER_REQUESTER, 100)) == 0


@pytest.mark.parametrize("forged", ["0xzz@100", "gnosis", 100, {"chain": 100}])
def test_a_signer_in_another_form_is_counted_everywhere(
    tmp_path: Path, forged: Any
) -> None:
    """An owner this server does not write is not believed: counted (the safe side)."""
    journal = Journal(tmp_path)
    entry = on_chain(KEY_A, FIRST)
    entry.extra[SIGNER_KEY] = forged
    journal.save(entry)
    assert _count(journal, owner_text(OTHER_REQUESTER, 1)) == PRICE


class _Chain:
    """The reads :func:`learn_fates` makes: nonces, receipts, a block's time."""

    def __init__(self, mined: int, final: int, receipts: Dict[str, int]) -> None:
        self.mined, self.final, self.receipts = mined, final, receipts
        self.reads: List[str] = []
        self.w3 = self
        self.eth = self
        self.provider = BlocksOfStub(self)

    def confirmed_nonce(self) -> int:
        """The account's mined nonce."""
        self.reads.append("nonce")
        if self.mined < 0:
            raise MarketError("the node is down")
        return self.mined

    def final_nonce(self, _depth: int) -> int:
        """The account's nonce ``depth`` blocks deep."""
        self.reads.append("final")
        return self.final

    def receipt_now(self, tx_hash: str) -> Optional[Dict[str, int]]:
        """A receipt in the block told, or none."""
        self.reads.append("receipt")
        block = self.receipts.get(tx_hash)
        return None if block is None else {"blockNumber": block, "status": 1}

    def get_block(self, block: int) -> Dict[str, int]:
        """Block ``n`` was mined ``n`` seconds after the epoch plus a day ago."""
        return {"timestamp": int(time.time()) - 86_400 + block}


def _learn(journal: Journal, chain: _Chain, owner: str = GNOSIS) -> bool:
    records = journal_records(journal.folder)
    market: Any = chain
    since = time.time() - WINDOW
    return learn_fates(market, journal, records, since=since, owner=owner, depth=64)


def test_nothing_is_read_while_no_unmined_request_is_older_than_the_window(
    tmp_path: Path,
) -> None:
    """A request signed just now: no chain read at all."""
    journal = Journal(tmp_path)
    journal.save(_signed(KEY_A, FIRST, 60.0))
    chain = _Chain(10, 10, {})
    assert not _learn(journal, chain) and not chain.reads


@pytest.mark.parametrize(
    "mined, final, receipt, counted",
    [
        (3, 3, None, PRICE),  # its nonce free: it may still be mined
        (4, 3, None, PRICE),  # taken, not final: it may still be the one mined
        (9, 9, None, 0),  # taken by another transaction, final: never mined
        (9, 9, 40, 0),  # mined a day ago: out of the window from then
        (9, 9, 86_390, PRICE),  # mined ten seconds ago: counted from then
        (-1, 0, None, PRICE),  # the node down: nothing learnt, it counts
    ],
)
def test_the_fate_of_an_old_unmined_request_is_read_once(  # pylint: disable=too-many-arguments
    tmp_path: Path, mined: int, final: int, receipt: Optional[int], counted: int
) -> None:
    """C4: nonce free, taken, final, mined when: what it counts after, reads once."""
    journal = Journal(tmp_path)
    entry = _signed(KEY_A, FIRST, 2 * WINDOW)
    journal.save(entry)
    receipts = {} if receipt is None else {entry.tx_hash: receipt}
    chain = _Chain(mined, final, receipts)
    written = _learn(journal, chain)
    assert _count(journal) == counted
    if written:  # journalled: never read again
        chain.reads.clear()
        assert not _learn(journal, chain) and not chain.reads


@pytest.mark.parametrize("owner", [GNOSIS, ""])  # "": the chain id not read
def test_another_chain_s_unmined_request_is_not_read_here(
    tmp_path: Path, owner: str
) -> None:
    """A devnet entry in a Gnosis server's journal: neither counted nor resolved."""
    journal = Journal(tmp_path)
    entry = _signed(KEY_A, FIRST, 2 * WINDOW)
    record_signer(entry, REQUESTER, {"chainId": 31337})
    journal.save(entry)
    chain = _Chain(9, 9, {})
    assert not _learn(journal, chain, owner) and not chain.reads
    assert _count(journal, GNOSIS) == 0 and _count(journal, DEVNET) == PRICE


def test_a_request_signed_without_a_chain_id_is_read_on_its_requester_s_chain(
    tmp_path: Path,
) -> None:
    """The requester alone recorded: read here, its nonce taken by another, final."""
    journal = Journal(tmp_path)
    entry = _signed(KEY_A, FIRST, 2 * WINDOW)
    record_signer(entry, REQUESTER, {})
    journal.save(entry)
    assert _learn(journal, _Chain(9, 9, {})) and _count(journal) == 0
