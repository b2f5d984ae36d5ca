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


"""An off-chain wait cut by the call's end waits for the call's newest journalled request.

The reads choosing which off-chain request to wait for (``offchain_target``) cut at the
call's end: the wait takes the request the journal holds for the call now, not the one
it was handed. A retry that re-signed and re-posted the request (another id, the same
marketplace nonce) and saw it delivered left the newer one in the journal: the call
polls for that one and names it, never "not delivered, call again" of the older.
"""

# pylint: disable=protected-access  # the wait's choice is read alone too

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, List, Optional, Tuple

import anyio
import pytest

from mech_catalogue_cli.mcp_server.delivery import DeliveryReader
from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry
from mech_catalogue_cli.mcp_server.market import Delivered
from mech_catalogue_cli.mcp_server.market_errors import MarketError
from mech_catalogue_cli.mcp_server.node_deadline import CallTimeSpent
from mech_catalogue_cli.mcp_server.results import REQUEST_META_KEY
from mech_catalogue_cli.mcp_server.settings import CallSettings, PhaseTimer
from tests.test_mcp_paid_answer_unit import REQUEST_ID, _entry

NEWER_ID = "0x" + "9e" * 32
TIMEOUT = 1.0


def _offchain_entry(request_id: str = REQUEST_ID, **changes: Any) -> JournalEntry:
    """A sent call whose off-chain request its mech's endpoint accepted."""
    entry = _entry(
        tx_hash="", raw_tx="", account_nonce=-1, paid_at=time.time(), **changes
    )
    entry.request_id = request_id
    entry.extra["offchain"] = {
        "endpoint": "http://127.0.0.1:9",
        "signature": "0x" + ("aa" if request_id == REQUEST_ID else "bb") * 65,
        "accepted": True,
        "requester": "0x" + "22" * 20,
        "chain_id": 1,
    }
    return entry


class PolledMarket:
    """A marketplace whose delivery reads are recorded; ``delivered`` ids answer."""

    def __init__(self, delivered: Tuple[str, ...] = ()) -> None:
        """Nothing polled yet.

        :param delivered: request ids delivered.
        """
        self.delivered = delivered
        self.polled: List[str] = []

    def delivery(self, request_id: str, from_block: int) -> Optional[Delivered]:
        """One poll.

        :param request_id: the request polled.
        :param from_block: where its logs are searched from.
        :return: its delivery, or None.
        """
        del from_block
        self.polled.append(request_id)
        if request_id in self.delivered:
            return Delivered(b"\x00" * 32, "0x" + "11" * 20, 9, "0x" + "22" * 20)
        return None

    def market_nonce(self, block: Any = None) -> int:
        """The requester's marketplace nonce: the requests' own (unsettled).

        :param block: unread.
        :return: 3.
        """
        del block
        return 3


async def _cut_target(entry: JournalEntry) -> Any:
    """``offchain_target`` whose reads the call's end cut."""
    del entry
    raise MarketError("the marketplace could not be read") from CallTimeSpent(TIMEOUT)


async def _failing_target(entry: JournalEntry) -> Any:
    """``offchain_target`` whose reads failed for another reason."""
    del entry
    raise MarketError("the node refused the read")


def _reader(tmp_path: Path, market: Any, target: Any = _cut_target) -> DeliveryReader:
    settings = CallSettings(gateway_url="", ipfs_api_url="", timeout=TIMEOUT)
    return DeliveryReader(market, Journal(tmp_path), settings, offchain_target=target)


def _spent() -> PhaseTimer:
    return PhaseTimer(began=time.monotonic() - 2 * TIMEOUT)


def test_a_cut_choice_waits_for_the_newer_request_the_journal_holds(
    tmp_path: Path,
) -> None:
    """The journal holds a re-posted request: it, not the one handed, is waited for.

    :param tmp_path: the state folder.
    """
    reader = _reader(tmp_path, PolledMarket())
    reader.journal.save(_offchain_entry(NEWER_ID))
    handed = _offchain_entry()
    target = anyio.run(reader._offchain_target_in_time, handed, _spent())
    assert isinstance(target, JournalEntry) and target.request_id == NEWER_ID


@pytest.mark.parametrize("status", ["sent", "delivered"])
def test_the_newer_request_s_wait_polls_and_names_it(
    tmp_path: Path, status: str
) -> None:
    """Through the whole wait: the newer request polled and named, the older never.

    :param tmp_path: the state folder.
    :param status: the newer entry's status (a retry that saw it delivered).
    """
    market = PolledMarket()
    reader = _reader(tmp_path, market)
    reader.journal.save(_offchain_entry(NEWER_ID, status=status))
    result = anyio.run(reader.await_result, _tool(), _offchain_entry(), _spent(), None)
    content: Any = result.content[0]
    text = content.text
    assert market.polled and set(market.polled) == {NEWER_ID}, market.polled
    assert NEWER_ID in text and REQUEST_ID not in text, text
    assert result.meta is not None
    assert result.meta[REQUEST_META_KEY]["request_id"] == NEWER_ID


@pytest.mark.parametrize(
    "newest",
    [
        None,  # nothing journalled
        "prepared",  # a retry signing now: nothing posted yet
        "unsigned",  # sent, its off-chain record holds no signature
        "onchain",  # the call's entry holds no off-chain request
        "foreign",  # a file this server did not write
    ],
)
def test_a_journal_without_a_newer_posted_request_keeps_the_one_handed(
    tmp_path: Path, newest: Optional[str]
) -> None:
    """No newer signed, posted off-chain request journalled: the one handed is waited.

    :param tmp_path: the state folder.
    :param newest: what the journal holds for the call.
    """
    reader = _reader(tmp_path, PolledMarket())
    if newest == "prepared":
        reader.journal.save(_offchain_entry(NEWER_ID, status="prepared"))
    elif newest == "unsigned":
        unsigned = _offchain_entry(NEWER_ID)
        unsigned.extra["offchain"]["signature"] = ""
        reader.journal.save(unsigned)
    elif newest == "onchain":
        reader.journal.save(_entry(request_id=NEWER_ID))
    elif newest == "foreign":
        reader.journal.save(_offchain_entry(NEWER_ID))
        path = next(p for p in tmp_path.rglob("*.json"))
        path.write_text("{not an entry", encoding="utf-8")
    handed = _offchain_entry()
    target = anyio.run(reader._offchain_target_in_time, handed, _spent())
    assert target is handed


def test_a_choice_failing_otherwise_is_raised_not_replaced(tmp_path: Path) -> None:
    """A read failing for another reason than the call's end is raised, as before.

    :param tmp_path: the state folder.
    """
    reader = _reader(tmp_path, PolledMarket(), _failing_target)
    reader.journal.save(_offchain_entry(NEWER_ID))
    with pytest.raises(MarketError, match="refused"):
        anyio.run(reader._offchain_target_in_time, _offchain_entry(), _spent())


def _tool() -> Any:
    """The tool called: only its name is read while the request is undelivered."""
    return SimpleNamespace(name="t")
