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
"""

from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from .offers import Offer
from .outstanding import Hold, given_up, given_up_words
from .spend_cap import DEFAULT_SPEND_WINDOW_SECONDS, PaidRecord

#: how long an acceptance given up unsettled is remembered when ``--spend-window`` is
#: not set: the default window, 24 hours
DEFAULT_MEMORY_SECONDS = DEFAULT_SPEND_WINDOW_SECONDS


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
        frees its nonce: ``.outstanding.given_up``).
    """
    since = now - (DEFAULT_MEMORY_SECONDS if period is None else period)
    found: Dict[str, Hold] = {}
    for record in records:
        for hold in record.acceptances:
            if hold.since <= 0 or not since <= hold.since <= now:
                continue
            if not given_up(hold, now, default_bound):
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
