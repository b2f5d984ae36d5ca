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

"""The call journal across processes, receipts and rewrites (issue #29, second review).

- one sender per state folder across processes (an OS lock): a server that cannot take
  it sends nothing;
- a request mined under another id than the one derived before sending is read under
  the id its receipt gives;
- a payment is dated by ``paid_at``, which a rewrite of the entry keeps.

In-process stand-ins of ``tests/test_mcp_paid_answer_unit.py`` (their ``sign`` raises:
nothing is paid); the devnet reproductions are ``tests/adversary/test_adv29b_*.py``.
"""

import json
import os
import subprocess  # nosec: runs this interpreter only
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, List, Optional

import anyio
import pytest

from mech_catalogue_cli.mcp_server.journal import Journal, entry_from_json
from mech_catalogue_cli.mcp_server.market import (
    STATUS_DELIVERED,
    STATUS_DOES_NOT_EXIST,
    Delivered,
)
from mech_catalogue_cli.mcp_server.results import REQUEST_META_KEY
from mech_catalogue_cli.mcp_server.spending import journal_records
from tests.test_mcp_paid_answer_unit import (  # noqa: F401  # pylint: disable=unused-import
    KEY,
    REQUEST_ID,
    REQUESTER,
    DeliveredMarket,
    _entry,
    _server,
    no_child_processes,
)

MINED_ID = "0x" + "7e" * 32
DAY = 24 * 3600.0


def _text(result: Any) -> str:
    return str(result.content[0].text)


@pytest.mark.parametrize("value", [-1, "1700000000", True, float("inf"), None, [1]])
def test_a_paid_at_that_is_no_time_makes_the_entry_unreadable(value: Any) -> None:
    """Validated on read like every field: the entry is refused, naming the field."""
    document = asdict(_entry())
    document["paid_at"] = value
    with pytest.raises(ValueError, match="paid_at"):
        entry_from_json(json.dumps(document), KEY)


def test_an_entry_written_before_paid_at_existed_is_read() -> None:
    """Entries of earlier versions have no paid_at: read, dated by their file."""
    document = asdict(_entry())
    del document["paid_at"]
    assert entry_from_json(json.dumps(document), KEY).paid_at == 0


def test_rewriting_a_sent_entry_keeps_the_date_it_was_paid(tmp_path: Path) -> None:
    """An entry without paid_at, rewritten two days later, is still dated two days ago."""
    journal = Journal(tmp_path)
    journal.save(_entry())
    path = journal.folder / f"{KEY}.json"
    paid = time.time() - 2 * DAY
    os.utime(path, (paid, paid))
    entry = journal.load(KEY)
    assert entry is not None
    entry.status = "delivered"
    journal.save(entry)
    records = journal_records(journal.folder)
    assert len(records) == 1
    record = records[0]
    assert abs(record.written_at - paid) < 1
    assert time.time() - path.stat().st_mtime < 60  # the file itself was rewritten


def test_paid_at_dates_a_payment_whatever_the_file_time(tmp_path: Path) -> None:
    """A file touched today whose paid_at says two days ago is outside a day's window."""
    journal = Journal(tmp_path)
    paid = time.time() - 2 * DAY
    journal.save(_entry(paid_at=paid))
    records = journal_records(journal.folder)
    assert len(records) == 1
    record = records[0]
    assert record.written_at == paid


class NoRequestYet(DeliveredMarket):
    """No request of this call on chain yet (anything that pays still raises)."""

    @staticmethod
    def own_request(data: str) -> None:  # type: ignore[override]
        """None found.

        :param data: the request data.
        """
        del data


HOLDER = """
import sys, time
from filelock import FileLock
lock = FileLock(sys.argv[1], thread_local=False)
lock.acquire()
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_a_send_lock_held_by_another_process_sends_nothing(tmp_path: Path) -> None:
    """Another server process sending from the same folder: refused, nothing paid."""
    market = NoRequestYet()
    app = _server(tmp_path, market, b"{}")
    app.settings.io_timeout = 0.25
    (tmp_path / "calls" / f"{KEY}.json").unlink()  # a new call: it would pay
    holder = subprocess.Popen(  # nosec  # pylint: disable=consider-using-with
        [sys.executable, "-c", HOLDER, str(tmp_path / "calls" / ".send.lock"), "30"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        result = anyio.run(app.call, "t", {"prompt": "x"})
    finally:
        holder.kill()
        holder.wait()
    text = _text(result)
    assert result.is_error and "another server process" in text, text
    assert not market.paid and not list((tmp_path / "calls").glob("*.json"))


def test_the_send_lock_is_free_again_after_a_call(tmp_path: Path) -> None:
    """A call releases the lock: another process can take it at once."""
    market = DeliveredMarket()
    app = _server(tmp_path, market, b'{"requestId": 1, "result": "r"}')
    anyio.run(app.call, "t", {"prompt": "x"})
    taker = subprocess.run(  # nosec: this interpreter, a script of this file
        [sys.executable, "-c", HOLDER, str(tmp_path / "calls" / ".send.lock"), "0"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert taker.stdout == "held\n"


class MovedIdMarket(DeliveredMarket):
    """The derived id was never minted; the receipt names MINED_ID, which is delivered."""

    def __init__(self, receipt_id: Optional[str] = MINED_ID) -> None:
        """Deliver MINED_ID only.

        :param receipt_id: what the receipt says (None: no receipt).
        """
        super().__init__()
        self.receipt_id = receipt_id
        self.delivery_reads: List[str] = []

    def status(  # type: ignore[override]  # pylint: disable=arguments-differ
        self, request_id: str
    ) -> int:
        """Only MINED_ID exists.

        :param request_id: the id.
        :return: its status.
        """
        return STATUS_DELIVERED if request_id == MINED_ID else STATUS_DOES_NOT_EXIST

    def delivery(self, request_id: str, from_block: int) -> Optional[Delivered]:  # type: ignore[override]
        """Deliver MINED_ID only.

        :param request_id: the id.
        :param from_block: ignored.
        :return: the delivery of MINED_ID, None for another id.
        """
        del from_block
        self.delivery_reads.append(request_id)
        if request_id != MINED_ID:
            return None
        return Delivered(b"\x01" * 32, self.mech, 9, REQUESTER.lower())

    def mined_request_id(self, tx_hash: str, data: str) -> Optional[str]:
        """The receipt's id of this data.

        :param tx_hash: the transaction.
        :param data: the request data.
        :return: ``receipt_id``.
        """
        del tx_hash, data
        return self.receipt_id


def test_a_request_mined_under_another_id_is_read_under_it(tmp_path: Path) -> None:
    """The journal named the derived id; the receipt's id is read, journalled, returned."""
    market = MovedIdMarket()
    app = _server(tmp_path, market, b'{"requestId": 1, "result": "r"}')
    result = anyio.run(app.call, "t", {"prompt": "x"})
    assert not result.is_error, _text(result)
    assert market.delivery_reads[-1] == MINED_ID and not market.paid
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None and entry.request_id == MINED_ID
    assert entry.extra["derived_request_id"] == REQUEST_ID
    assert (result.meta or {})[REQUEST_META_KEY]["request_id"] == MINED_ID


def test_a_request_with_no_receipt_keeps_its_id_and_is_never_paid_again(
    tmp_path: Path,
) -> None:
    """No receipt (not mined yet): the call waits for the journalled id, paying nothing."""
    market = MovedIdMarket(receipt_id=None)
    app = _server(tmp_path, market, b"{}")
    result = anyio.run(app.call, "t", {"prompt": "x"})
    assert result.is_error and "not delivered" in _text(result)
    assert set(market.delivery_reads) == {REQUEST_ID} and not market.paid
    entry = Journal(tmp_path).load(KEY)
    assert entry is not None and entry.request_id == REQUEST_ID
