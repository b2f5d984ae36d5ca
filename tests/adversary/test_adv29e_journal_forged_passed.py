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

"""A forged ``passed`` mark hides a paid off-chain call from ``--max-spend`` (adversary adv29e).

fix29d read a refused request's *release* strictly: ``extra.offchain.released`` must
be ``{market_nonce, block}`` with the nonce past the one signed, on a prepared entry
its mech did not accept, else the entry "is not one this server wrote" and the cap
refuses to pay (``test_mcp_offchain_journal.py::test_a_release_this_server_did_not_
write_stops_the_call``: "a forged or damaged release (hiding a payment from the cap)").

adv29d added a second way for an entry to count nothing: ``passed`` (``outstanding.
mark_passed``: the requester's marketplace nonce moved past every request of the call
unsettled), on ``extra.offchain`` and on each ``extra.offchain_attempts`` record. It is
read with no check at all (``outstanding.current_passed``: ``passed is True``), carries
no evidence (no nonce, no block), and is accepted on any entry: a *delivered* call (its
answer fetched and verified: settled, charged) with ``"passed": true`` loads as it is
and ``spending.read_record`` counts it 0. The server itself writes ``passed`` only with
the entry's status ``prepared`` (``_offchain_again``), and ``settle_on`` removes it
from a request found settled.

Observed on main: a delivered off-chain call of 0.005 native and a sent one whose
earlier attempt carries ``passed`` count 0 against the cap; ``Journal.load`` returns
them.

Expected: ``passed`` read as strictly as a release: on an entry the server could have
written it on (prepared; the nonce that passed it recorded and past the signed one),
else the entry is not one this server wrote (an error naming the file, and the cap
refuses to pay while it stays, as for a forged release).
"""

import time
from pathlib import Path
from typing import Any, Dict

import pytest
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry, JournalError
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE
from mech_catalogue_cli.mcp_server.spending import journal_records

KEY = "ab" * 32
PRICE = 5 * 10**15
OFFCHAIN = {"endpoint": "http://127.0.0.1:8010", "signature": "0x" + "44" * 65}


def entry(extra: Dict[str, Any], status: str) -> JournalEntry:
    """An off-chain entry as the server writes it, with ``extra`` as given.

    :param extra: its ``extra``.
    :param status: its status.
    :return: the entry.
    """
    return JournalEntry(
        key=KEY,
        tool="prediction-online",
        mech="0x" + "11" * 20,
        price=PRICE,
        payment_type=NATIVE_PAYMENT_TYPE,
        cid="bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
        data="0x" + "22" * 32,
        market_nonce=3,
        request_id="0x" + "33" * 32,
        from_block=10,
        status=status,
        paid_at=time.time() - 60,  # paid a minute ago: inside any --spend-window
        extra=extra,
    )


ATTEMPT = {
    "nonce": 3,
    "price": PRICE,
    "mech": "0x" + "11" * 20,
    "payment_type": NATIVE_PAYMENT_TYPE,
    "from_block": 10,
    "accepted": True,
    "passed": True,
    "since": 1.0e9,
}

FORGED = [
    (
        "delivered call marked passed",
        {"offchain": dict(OFFCHAIN, accepted=True, passed=True)},
        CallStatus.DELIVERED,
    ),
    (
        "sent call marked passed",
        {"offchain": dict(OFFCHAIN, accepted=True, passed=True)},
        CallStatus.SENT,
    ),
    (
        "sent call, current passed and its earlier attempt passed",
        {
            "offchain": dict(OFFCHAIN, accepted=True, passed=True),
            "offchain_attempts": {"0x" + "55" * 32: ATTEMPT},
        },
        CallStatus.SENT,
    ),
]


@pytest.mark.parametrize(
    "extra, status", [(e, s) for _, e, s in FORGED], ids=[f for f, _, _ in FORGED]
)
def test_a_passed_mark_this_server_did_not_write_stops_the_call(
    tmp_path: Path, extra: Dict[str, Any], status: str
) -> None:
    """A paid call's entry with a ``passed`` mark the server never writes on it.

    :param tmp_path: the state folder.
    :param extra: the forged ``extra``.
    :param status: the entry's status (a paid one).
    """
    journal = Journal(tmp_path)
    journal.save(entry(extra, status))
    (record,) = journal_records(journal.folder)
    # observed on main: record.price == 0 and no problem; the load below returns it
    assert record.problem or record.price == PRICE, record
    with pytest.raises(JournalError):
        journal.load(KEY)


def test_an_unmarked_delivered_call_counts_its_price(tmp_path: Path) -> None:
    """The control: the same delivered call without the mark counts its price."""
    journal = Journal(tmp_path)
    journal.save(
        entry({"offchain": dict(OFFCHAIN, accepted=True)}, CallStatus.DELIVERED)
    )
    (record,) = journal_records(journal.folder)
    assert (record.price, record.problem) == (PRICE, "")
