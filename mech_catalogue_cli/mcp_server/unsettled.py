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

"""Offer choice remembers a mech that accepted a request and did not settle it (no I/O).

An endpoint that answers 200 to a signed off-chain request and never settles it holds
the requester's marketplace nonce for its bound (``.outstanding.given_up``); chosen
again, it would do so at every call (adversarial review adv29g: nothing in the choice
looked at a request it did not settle). So a mech with an acceptance given up
unsettled, within ``--spend-window`` (:data:`DEFAULT_MEMORY_SECONDS` when there is no
window) from its acceptance, is tried after the tool's other offers. It is not
removed: the user may pin it (``--mech``), and it is still tried when the others are
refused. The journal is the memory (:attr:`.spend_cap.PaidRecord.acceptances`), so it
holds across restarts and server processes on one state folder.

A mech is remembered only when it had its whole bound to settle and did not
(adversarial review adv29j): not when its request's nonce was seen passed before its
bound ended (another request of the requester took it: ours, on chain, or a given-up
one its mech settled late), nor when another call's request at that nonce, signed
before the bound ended, was settled (that settlement took the nonce: the request could
never be settled after it, whoever is to blame for the first one).
"""

from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from mech_catalogue_core.model.vocabulary import CallStatus

from .journal import JournalEntry
from .offers import Offer
from .outstanding import (
    PASSED_SEEN_KEY,
    Hold,
    attempt_hold,
    current_hold,
    earlier_attempts,
    give_up_at,
    given_up,
    given_up_words,
)
from .spend_cap import DEFAULT_SPEND_WINDOW_SECONDS, PaidRecord

#: how long an acceptance given up unsettled is remembered when ``--spend-window`` is
#: not set: the default window, 24 hours
DEFAULT_MEMORY_SECONDS = DEFAULT_SPEND_WINDOW_SECONDS


def settled_requests(entry: JournalEntry) -> Tuple[Hold, ...]:
    """A call's off-chain requests when one of them is known settled (pure).

    :param entry: a call's journal entry.
    :return: its current request (its answer read: status ``delivered``), or its
        current request and every earlier attempt (the chain showed one of them
        settled: ``extra.offchain`` :data:`.outstanding.PASSED_SEEN_KEY` ``settled``,
        not saying which); empty otherwise, and for an on-chain call.
    """
    offchain = entry.extra.get("offchain")
    if not isinstance(offchain, dict):
        return ()
    current = current_hold(entry, offchain)
    seen = offchain.get(PASSED_SEEN_KEY)
    if isinstance(seen, dict) and seen.get("settled") is True:
        return (current,) + tuple(
            attempt_hold(entry, rid, attempt)
            for rid, attempt in earlier_attempts(entry).items()
        )
    return (current,) if entry.status == CallStatus.DELIVERED else ()


def _taken_within_bound(
    hold: Hold,
    seen_at: Optional[float],
    settled: Sequence[Hold],
    default_bound: float,
) -> bool:
    """Whether ``hold``'s nonce was taken by another request before its bound ended.

    :param hold: an acceptance given up.
    :param seen_at: when its entry's nonce was seen passed (None: not seen).
    :param settled: every journalled request of a call known settled.
    :param default_bound: the server's ``--timeout``, seconds.
    :return: True when seen passed by then, or another call's request at its nonce
        (the same requester's, or unknown) signed before then was settled.
    """
    end = give_up_at(hold, default_bound)
    if seen_at is not None and seen_at <= end:
        return True
    return any(
        other.key != hold.key
        and other.nonce == hold.nonce
        and (not other.owner or not hold.owner or other.owner == hold.owner)
        and other.since < end
        for other in settled
    )


def given_up_mechs(
    records: Sequence[PaidRecord],
    now: float,
    default_bound: float,
    period: Optional[float] = None,
) -> Dict[str, Hold]:
    """The mechs with an acceptance given up unsettled, each with its latest (pure).

    :param records: the journal's records.
    :param now: unix seconds.
    :param default_bound: the server's ``--timeout``, seconds (for entries that record
        no bound).
    :param period: seconds an acceptance is remembered (``--spend-window``; None:
        :data:`DEFAULT_MEMORY_SECONDS`).
    :return: lowercase mech address -> its latest such acceptance. An acceptance time
        unknown or after ``now`` is not remembered (it cannot be dated; it still
        frees its nonce: ``.outstanding.given_up``); nor is one whose nonce another
        request took before its bound ended (the module's docstring).
    """
    since = now - (DEFAULT_MEMORY_SECONDS if period is None else period)
    settled = [hold for record in records for hold in record.settled]
    found: Dict[str, Hold] = {}
    for record in records:
        for hold in record.acceptances:
            if hold.since <= 0 or not since <= hold.since <= now:
                continue
            if not given_up(hold, now, default_bound):
                continue
            if _taken_within_bound(hold, record.passed_seen_at, settled, default_bound):
                continue
            mech = hold.mech.lower()
            if mech not in found or found[mech].since < hold.since:
                found[mech] = hold
    return found


def tried_last(
    ranked: Sequence[Offer], remembered: Mapping[str, Hold], default_bound: float
) -> Tuple[List[Offer], Dict[str, str]]:
    """Order offers so those of mechs in ``remembered`` come after the others (pure).

    The order within each part is kept (``offers.rank_offers``).

    :param ranked: the eligible offers, first the one to pay.
    :param remembered: :func:`given_up_mechs`.
    :param default_bound: the server's ``--timeout``, seconds.
    :return: the offers in the order to try them, and for each offer moved after an
        other one (its address as the offer gives it) why
        (:func:`.outstanding.given_up_words`).
    """
    kept = [offer for offer in ranked if offer.address.lower() not in remembered]
    moved = [offer for offer in ranked if offer.address.lower() in remembered]
    why = {
        offer.address: given_up_words(remembered[offer.address.lower()], default_bound)
        for offer in moved
    }
    return kept + moved, why


def tried_last_meta(
    offers: Sequence[Offer], remembered: Mapping[str, Hold], default_bound: float
) -> List[Dict[str, str]]:
    """``[{mech, address, why}]`` of the offers a call would try last (pure).

    For a tool's ``tools/list`` entry and a call's ``_meta`` ``choice``.

    :param offers: a tool's offers.
    :param remembered: :func:`given_up_mechs`.
    :param default_bound: the server's ``--timeout``, seconds.
    :return: one item per offer of a remembered mech, in the offers' order.
    """
    return [
        {
            "mech": offer.mech_key,
            "address": offer.address,
            "why": given_up_words(remembered[offer.address.lower()], default_bound),
        }
        for offer in offers
        if offer.address and offer.address.lower() in remembered
    ]
