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

"""``--max-spend`` of every asset over the journal, and the journal's index (issue #29/#31).

No chain: real journal files in a temporary folder, written by this process and by
another Python process (as a second server on the same ``--state-dir`` would).
"""

import subprocess  # nosec: runs this interpreter on a fixed script
import sys
import time
from pathlib import Path
from typing import Any, List

import pytest

from mech_catalogue_cli.mcp_server import spending
from mech_catalogue_cli.mcp_server.journal import CHANGES_FILE, Journal, JournalEntry
from mech_catalogue_cli.mcp_server.spend_cap import PaidRecord, SpendLedger
from mech_catalogue_cli.mcp_server.spending import JournalIndex, journal_records

NATIVE = "0xba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1"
OLAS = "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9"
USDC = "0x6406bb5f31a732f898e1ce9fdd988a80a808d36ab5d9a4a4805a8be8d197d5e3"
ROOT = Path(__file__).resolve().parent.parent


def entry(number: int, price: int = 10, payment_type: str = NATIVE) -> JournalEntry:
    """A sent journal entry of call ``number``."""
    return JournalEntry(
        key=f"{number:064x}",
        tool="t",
        mech="0x" + "11" * 20,
        price=price,
        payment_type=payment_type,
        cid="QmW2WQi7j6c7UgJTarActp7tDNikE4B2qXtFCfLPdsgaTQ",
        data="0x" + "cd" * 32,
        market_nonce=number,
        request_id=f"0x{number:064x}",
        from_block=5,
        tx_hash="0x" + "ef" * 32,
        status="sent",
        raw_tx="0x02f8",
        account_nonce=number,
    )


def save_from_another_process(state: Path, number: int, price: int) -> None:
    """Journal an entry as another server process on the same state folder would."""
    script = (
        "import sys; from pathlib import Path; "
        "from tests.test_mcp_spend_index import entry; "
        "from mech_catalogue_cli.mcp_server.journal import Journal; "
        "Journal(Path(sys.argv[1])).save(entry(int(sys.argv[2]), int(sys.argv[3])))"
    )
    subprocess.run(  # nosec: this interpreter, a fixed script
        [sys.executable, "-c", script, str(state), str(number), str(price)],
        check=True,
        cwd=ROOT,
    )


def test_a_tokens_cap_counts_its_assets_journalled_requests_in_the_window() -> None:
    """``--max-spend olas=`` counts OLAS records of the window only, said in OLAS units."""
    ledger = SpendLedger(max_spend=3 * 10**18, window=3600.0, asset="olas")
    records = [
        PaidRecord("0xolas", 2 * 10**18, 9_000.0, asset="olas"),
        PaidRecord("0xold", 5 * 10**18, 6_000.0, asset="olas"),  # out of the window
        PaidRecord("0xnative", 10**19, 9_000.0, asset="native"),
        PaidRecord("0xusdc", 10**19, 9_000.0, asset="usdc"),
    ]
    ledger.count_journal(records, 10_000.0)
    assert (ledger.earlier, ledger.earlier_requests) == (2 * 10**18, 1)
    assert ledger.refusal(10**18) is None
    refusal = ledger.refusal(10**18 + 1)
    assert (
        refusal is not None and "over --max-spend olas=3000000000000000000" in refusal
    )
    assert "paying 1.000000000000000001 OLAS" in refusal
    assert "the olas spending of the last 3600 s" in refusal
    assert "2 OLAS (2000000000000000000 smallest units) on 1 journalled" in refusal
    assert " wei" not in refusal

    usdc = SpendLedger(max_spend=1_500_000, window=3600.0, asset="usdc")
    usdc.count_journal(records, 10_000.0)
    refusal = usdc.refusal(1)
    assert refusal is not None and "10000000000000 USDC" in refusal


def test_an_unreadable_entry_stops_every_assets_payments_naming_the_file() -> None:
    """An entry whose asset and price are unknown may hide any asset's spending."""
    bad = PaidRecord("", 0, 9_990.0, "journal entry /s/calls/x.json is bad", asset="")
    for asset in ("native", "olas", "usdc"):
        ledger = SpendLedger(max_spend=10**30, window=60.0, asset=asset)
        ledger.count_journal([bad], 10_000.0)
        refusal = ledger.refusal(1)
        assert refusal is not None and "/s/calls/x.json is bad" in refusal
        assert f"the {asset} spending within --spend-window" in refusal
    uncapped = SpendLedger(max_spend=None, window=60.0, asset="olas")
    uncapped.count_journal([bad], 10_000.0)
    assert uncapped.refusal(10**30) is None


def test_journal_records_name_each_entrys_asset(tmp_path: Path) -> None:
    """Each entry's asset is its payment type's; a foreign file has none and a problem."""
    journal = Journal(tmp_path)
    journal.save(entry(1, 5, NATIVE))
    journal.save(entry(2, 7, OLAS))
    journal.save(entry(3, 9, USDC))
    (journal.folder / ("f" * 64 + ".json")).write_text("{}", encoding="utf-8")
    records = {r.request_id or "bad": r for r in journal_records(journal.folder)}
    assert {k: (r.asset, r.price) for k, r in records.items() if k != "bad"} == {
        f"0x{1:064x}": ("native", 5),
        f"0x{2:064x}": ("olas", 7),
        f"0x{3:064x}": ("usdc", 9),
    }
    assert records["bad"].asset == "" and str(journal.folder) in records["bad"].problem


@pytest.fixture(name="reads")
def _reads(monkeypatch: pytest.MonkeyPatch) -> List[Path]:
    """Every journal file the spending module reads, in order."""
    read: List[Path] = []
    original = spending.read_record

    def counting(path: Path) -> Any:
        read.append(path)
        return original(path)

    monkeypatch.setattr(spending, "read_record", counting)
    return read


def test_the_index_reads_only_what_was_written_since_by_any_process(
    tmp_path: Path, reads: List[Path]
) -> None:
    """After the first read, a payment reads only the entries written since.

    No more as the journal grows; those another process wrote count, at their new prices.

    :param tmp_path: the state folder.
    :param reads: the journal files read.
    """
    journal = Journal(tmp_path)
    for number in range(200):
        journal.save(entry(number))
    index = JournalIndex(journal.folder)
    assert len(index.records()) == 200 and len(reads) == 200
    reads.clear()
    assert len(index.records()) == 200 and not reads  # nothing new: nothing read

    save_from_another_process(tmp_path, 500, 77)
    save_from_another_process(tmp_path, 3, 99)  # an entry rewritten at another price
    journal.save(entry(501, 11))
    records = {r.request_id: r.price for r in index.records()}
    assert sorted(p.stem for p in reads) == sorted(f"{n:064x}" for n in (3, 500, 501))
    assert len(records) == 202
    assert records[f"0x{500:064x}"] == 77 and records[f"0x{3:064x}"] == 99
    assert records == {r.request_id: r.price for r in journal_records(journal.folder)}


def test_a_line_being_written_waits_and_a_replaced_changes_file_rereads_all(
    tmp_path: Path, reads: List[Path]
) -> None:
    """A partial line is read once complete; a shorter changes file: the folder again."""
    journal = Journal(tmp_path)
    journal.save(entry(1))
    index = JournalIndex(journal.folder)
    index.records()
    reads.clear()
    journal.save(entry(2))
    changes = journal.folder / CHANGES_FILE
    text = changes.read_text(encoding="ascii")
    changes.write_text(text[:-10], encoding="ascii")  # the last line half written
    assert len(index.records()) == 1 and not reads
    changes.write_text(text, encoding="ascii")
    assert len(index.records()) == 2 and [p.stem for p in reads] == [f"{2:064x}"]

    reads.clear()
    changes.write_text("", encoding="ascii")  # rotated away by someone
    (journal.folder / f"{1:064x}.json").unlink()
    # the folder is listed again; entry 2's file is unchanged, so it is not parsed again
    assert len(index.records()) == 1 and not reads
    changes.unlink()
    journal.save(entry(4))
    assert {r.request_id for r in index.records()} == {
        f"0x{2:064x}",
        f"0x{4:064x}",
    }


def test_a_journalled_entry_keeps_counting_its_window_from_its_file_time(
    tmp_path: Path,
) -> None:
    """The index's records carry the file's time: the window drops them as before."""
    journal = Journal(tmp_path)
    journal.save(entry(1, 40, OLAS))
    index = JournalIndex(journal.folder)
    ledger = SpendLedger(max_spend=50, window=60.0, asset="olas")
    ledger.count_journal(index.records(), time.time())
    assert ledger.earlier == 40 and ledger.refusal(11) is not None
    ledger.count_journal(index.records(), time.time() + 61)
    assert ledger.earlier == 0 and ledger.refusal(50) is None
