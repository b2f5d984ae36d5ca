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

"""The journal and the spend cap with off-chain entries (``extra.offchain``).

An off-chain request has no transaction of the requester's: the journal accepts a sent
entry without one only when its mech accepted the signed request, and a request its mech
refused still counts against ``--max-spend`` (the mech holds the signed request and can
settle it on chain whatever it answered: found by the adversarial review adv29c).
"""

from dataclasses import asdict
from pathlib import Path
from typing import Any, Dict

import pytest
from mech_catalogue_core.model.vocabulary import CallStatus

from mech_catalogue_cli.mcp_server.journal import Journal, JournalEntry, JournalError
from mech_catalogue_cli.mcp_server.offers import NATIVE_PAYMENT_TYPE
from mech_catalogue_cli.mcp_server.outstanding import settle_on
from mech_catalogue_cli.mcp_server.spending import journal_records

KEY = "ab" * 32


def entry(offchain: Dict[str, Any], status: str = CallStatus.SENT) -> JournalEntry:
    """An off-chain entry as the server writes it.

    :param offchain: its ``extra.offchain``.
    :param status: its status.
    :return: the entry.
    """
    return JournalEntry(
        key=KEY,
        tool="prediction-online",
        mech="0x" + "11" * 20,
        price=5 * 10**15,
        payment_type=NATIVE_PAYMENT_TYPE,
        cid="bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
        data="0x" + "22" * 32,
        market_nonce=3,
        request_id="0x" + "33" * 32,
        from_block=10,
        status=status,
        extra={"offchain": offchain},
    )


OFFCHAIN = {"endpoint": "http://127.0.0.1:8010", "signature": "0x" + "44" * 65}


def test_an_accepted_offchain_entry_is_read_back_without_a_transaction(
    tmp_path: Path,
) -> None:
    """Sent, no tx_hash, accepted: the retry reads it and only waits."""
    journal = Journal(tmp_path)
    written = entry(dict(OFFCHAIN, accepted=True))
    journal.save(written)
    assert journal.load(KEY) == written


def test_a_sent_entry_whose_post_was_not_accepted_is_refused(tmp_path: Path) -> None:
    """A tampered entry claiming sent without acceptance or transaction stops the call."""
    journal = Journal(tmp_path)
    journal.save(entry(dict(OFFCHAIN, accepted=False)))
    with pytest.raises(JournalError, match="names no transaction"):
        journal.load(KEY)
    journal.save(entry(dict(OFFCHAIN, accepted="yes")))
    with pytest.raises(JournalError, match="names no transaction"):
        journal.load(KEY)


def test_a_refused_offchain_request_still_counts_against_the_cap(
    tmp_path: Path,
) -> None:
    """Refused or accepted: each counted at its price, as an on-chain request."""
    journal = Journal(tmp_path)
    refused = entry(
        dict(OFFCHAIN, accepted=False, refused="402"), status=CallStatus.PREPARED
    )
    journal.save(refused)
    assert [(r.request_id, r.price) for r in journal_records(journal.folder)] == [
        (refused.request_id, refused.price)
    ]
    accepted = JournalEntry(**dict(asdict(refused), key="cd" * 32))
    accepted.extra = {"offchain": dict(OFFCHAIN, accepted=True)}
    accepted.status = CallStatus.SENT
    journal.save(accepted)
    records = journal_records(journal.folder)
    assert sorted((r.request_id, r.price) for r in records) == sorted(
        [(refused.request_id, refused.price), (accepted.request_id, accepted.price)]
    )


def test_a_refused_request_counts_with_its_signed_nonce_until_released(
    tmp_path: Path,
) -> None:
    """Refused: counted, with the nonce the chain is asked about; released: nothing."""
    journal = Journal(tmp_path)
    refused = entry(
        dict(OFFCHAIN, accepted=False, refused="402"), status=CallStatus.PREPARED
    )
    journal.save(refused)
    (record,) = journal_records(journal.folder)
    assert (record.price, record.unsettled_nonce, record.key) == (
        refused.price,
        3,
        KEY,
    )
    refused.extra["offchain"]["released"] = {"market_nonce": 4, "block": 120}
    journal.save(refused)
    assert journal.load(KEY) == refused
    (record,) = journal_records(journal.folder)
    assert (record.price, record.unsettled_nonce) == (0, -1)
    # an accepted request is waited for, not asked about
    accepted = entry(dict(OFFCHAIN, accepted=True))
    journal.save(accepted)
    (record,) = journal_records(journal.folder)
    assert (record.price, record.unsettled_nonce) == (accepted.price, -1)


@pytest.mark.parametrize(
    "released, status, accepted",
    [
        ({"market_nonce": 3, "block": 1}, CallStatus.PREPARED, False),  # not past
        ({"market_nonce": 2, "block": 1}, CallStatus.PREPARED, False),
        ({"market_nonce": True, "block": 1}, CallStatus.PREPARED, False),
        ({"market_nonce": 9, "block": -1}, CallStatus.PREPARED, False),
        ({"market_nonce": 9}, CallStatus.PREPARED, False),
        ({"market_nonce": 9, "block": 1, "why": "x"}, CallStatus.PREPARED, False),
        ("yes", CallStatus.PREPARED, False),
        ({"market_nonce": 9, "block": 1}, CallStatus.SENT, True),  # accepted
    ],
)
def test_a_release_this_server_did_not_write_stops_the_call(
    tmp_path: Path, released: Any, status: str, accepted: bool
) -> None:
    """A forged or damaged release (hiding a payment from the cap) is an error naming the file."""
    journal = Journal(tmp_path)
    journal.save(
        entry(dict(OFFCHAIN, accepted=accepted, released=released), status=status)
    )
    with pytest.raises(JournalError, match="off-chain release is not one"):
        journal.load(KEY)
    (record,) = journal_records(journal.folder)
    assert record.problem  # the cap refuses to pay while it stays


@pytest.mark.parametrize(
    "offchain",
    [
        dict(OFFCHAIN, accepted=False, refused="402"),
        dict(OFFCHAIN, accepted=False, refused="another request id"),
        dict(OFFCHAIN, accepted=False),  # no answer before the post's deadline
        dict(OFFCHAIN, accepted=False, refused="402", passed=True),
        dict(OFFCHAIN, accepted=True),
    ],
)
def test_a_request_found_settled_is_written_as_one_the_journal_reads(
    tmp_path: Path, offchain: Dict[str, Any]
) -> None:
    """Refused, unanswered or accepted, then settled on chain: a sent entry read back.

    Before (adversarial review adv29g) only an earlier attempt was marked accepted; the
    call's own refused request found settled was saved ``sent`` without it, and the
    journal refused its own entry: the paid answer was never returned.

    :param tmp_path: the state folder.
    :param offchain: the request's ``extra.offchain`` before it was found settled.
    """
    journal = Journal(tmp_path)
    found = entry(offchain, status=CallStatus.PREPARED)
    settle_on(found, found.request_id)
    found.status = CallStatus.SENT
    journal.save(found)
    loaded = journal.load(KEY)
    assert loaded == found and loaded.request_id == "0x" + "33" * 32
    marks = loaded.extra["offchain"]
    assert marks["accepted"] is True and "passed" not in marks
    assert marks["signature"] == OFFCHAIN["signature"]
    (record,) = journal_records(journal.folder)
    assert (record.problem, record.price) == ("", found.price)  # counted, readable
