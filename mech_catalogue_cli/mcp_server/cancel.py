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

"""A signed, unmined request to a mech this call may no longer pay: cancelled, not resent.

The journal keeps a call's signed request so that a retry broadcasts the same bytes
(never a second payment). If, by the retry (often after a restart), the mech is no longer
one the call may pay (dropped from the catalogue, no longer pinned or allowed, its price
now over ``--max-price`` or unread), broadcasting those bytes would still pay it. The
rule (:func:`stale_request`): the journalled request is re-broadcast only while its mech
is among the offers the call may pay now, at a price read now within the cap; otherwise
its account nonce is taken by a zero-value transfer to the paying account at higher fees
(``market.Marketplace.sign_cancel``), journalled in the entry (``extra["cancel"]``,
:func:`cancel_record`) before it is broadcast, so a retry re-broadcasts the cancellation,
never the request. Once the nonce is mined, the chain says which won: the request (it
was mined first: the call is paid, its answer read) or the cancellation (nothing was
paid; the call goes on to the offers it may pay now).
"""

import re
from typing import Any, Dict, Optional, Sequence

from .journal import JournalEntry, JournalError
from .market import SignedRequest
from .offers import Offer, send_time_refusal

#: ``extra`` key of a journal entry holding the cancellation of its request
CANCEL_KEY = "cancel"
_FIELDS = {
    "raw_tx": re.compile(r"0x(?:[0-9a-f]{2})+"),
    "tx_hash": re.compile(r"0x[0-9a-f]{64}"),
    "reason": re.compile(r"[^\x00-\x1f]{1,600}"),
}


def stale_request(
    entry: JournalEntry,
    offers: Sequence[Offer],
    price_now: Optional[int],
    max_price: Optional[int],
) -> str:
    """Say why a journalled, unmined request may not be re-broadcast ("" when it may).

    :param entry: the call's entry (its ``mech``, the request's priority mech).
    :param offers: the offers the call may pay now (``offers.rank_offers``).
    :param price_now: the entry mech's ``maxDeliveryRate()`` read now (None: unread).
    :param max_price: ``--max-price`` of the entry's asset (None: no cap).
    :return: a sentence naming the mech and why, or "".
    """
    offer = next((o for o in offers if o.address == entry.mech.lower()), None)
    if offer is None:
        return (
            f"mech {entry.mech} is no longer among the offers this call may pay (left "
            "the catalogue, no longer pinned or allowed, over --max-price, or not "
            "confirmed)"
        )
    return send_time_refusal(offer, price_now, max_price)


def cancel_record(entry: JournalEntry) -> Optional[SignedRequest]:
    """Read the cancellation a journal entry records, strictly.

    :param entry: the call's entry.
    :return: the signed cancellation (at the entry's ``account_nonce``), or None.
    :raises JournalError: when the record is not one this server wrote (nothing is sent
        for the call then).
    """
    record = entry.extra.get(CANCEL_KEY)
    if record is None:
        return None
    if (
        not isinstance(record, dict)
        or set(record) != set(_FIELDS)
        or any(
            not isinstance(record[k], str) or not p.fullmatch(record[k])
            for k, p in _FIELDS.items()
        )
    ):
        raise JournalError(
            f"the call journal entry {entry.key} holds a cancellation record this "
            "server did not write; nothing was sent. Check it, then move the entry away"
        )
    return SignedRequest(record["raw_tx"], record["tx_hash"], entry.account_nonce)


def record_cancel(entry: JournalEntry, cancel: SignedRequest, reason: str) -> None:
    """Write a cancellation into the entry (the caller journals the entry).

    :param entry: the call's entry.
    :param cancel: the signed cancellation.
    :param reason: why the request is cancelled (:func:`stale_request`).
    """
    record: Dict[str, Any] = {
        "raw_tx": cancel.raw_tx,
        "tx_hash": cancel.tx_hash,
        "reason": " ".join(reason.split())[:600] or "cancelled",
    }
    entry.extra[CANCEL_KEY] = record
