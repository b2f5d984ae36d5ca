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

from typing import Container, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

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


class SettledIndex:
    """The journal's requests known settled, by nonce and owner: what takes a nonce.

    Built once per look (linear in the settled requests), so each acceptance given up
    is checked in constant time (adversarial review adv29l: comparing each with every
    settled request of the journal stalled ``tools/list`` and calls for seconds).
    For each ``(nonce, owner)``, and for each nonce whatever its owner, it keeps the
    earliest-signed settled request and the earliest of another call (key): enough to
    say whether a request of a call other than a given one was signed before a time.
    """

    def __init__(self, settled: Iterable[Hold], nonces: Container[int]) -> None:
        """Index the settled requests at the nonces asked about.

        :param settled: every journalled request of a call known settled
            (:attr:`.spend_cap.PaidRecord.settled`).
        :param nonces: the nonces :meth:`taken_before` is asked about (others are
            skipped: most of a journal is settled requests of no acceptance's nonce).
        """
        self._earliest: Dict[Tuple[int, Optional[str]], Tuple[Hold, Optional[Hold]]]
        self._earliest = {}
        for hold in settled:
            if hold.nonce in nonces:
                self._add((hold.nonce, hold.owner), hold)
                self._add((hold.nonce, None), hold)  # None: any owner

    def _add(self, slot: Tuple[int, Optional[str]], hold: Hold) -> None:
        kept = self._earliest.get(slot)
        if kept is None:
            self._earliest[slot] = (hold, None)
            return
        first, other = kept
        if hold.since < first.since:
            # the earliest of another key than the new first's: the old first, else
            # the old other (its key differs from the old first's, the new first's)
            self._earliest[slot] = (hold, first if first.key != hold.key else other)
        elif hold.key != first.key and (other is None or hold.since < other.since):
            self._earliest[slot] = (first, hold)

    def taken_before(self, hold: Hold, end: float) -> bool:
        """Whether another call's request at ``hold``'s nonce, signed before ``end``, settled.

        :param hold: an acceptance given up (its nonce among those indexed).
        :param end: unix seconds (its give-up time).
        :return: True when one of the same owner (or of an unknown owner, or any owner
            when ``hold``'s is unknown) was signed before ``end``.
        """
        owners: Tuple[Optional[str], ...] = (
            (None,) if not hold.owner else (hold.owner, "")
        )
        for owner in owners:
            for other in self._earliest.get((hold.nonce, owner), (None, None)):
                if other is not None and other.key != hold.key and other.since < end:
                    return True
        return False


def _taken_within_bound(
    hold: Hold,
    seen_at: Optional[float],
    settled: SettledIndex,
    default_bound: float,
) -> bool:
    """Whether ``hold``'s nonce was taken by another request before its bound ended.

    :param hold: an acceptance given up.
    :param seen_at: when its entry's nonce was seen passed (None: not seen).
    :param settled: the journal's requests known settled.
    :param default_bound: the server's ``--timeout``, seconds.
    :return: True when seen passed by then, or another call's request at its nonce
        (the same requester's, or unknown) signed before then was settled.
    """
    end = give_up_at(hold, default_bound)
    if seen_at is not None and seen_at <= end:
        return True
    return settled.taken_before(hold, end)


def given_up_mechs(
    records: Sequence[PaidRecord],
    now: float,
    default_bound: float,
    period: Optional[float] = None,
) -> Dict[str, Hold]:
    """The mechs with an acceptance given up unsettled, each with its latest (pure).

    Linear in the records (their settled requests are indexed once:
    :class:`SettledIndex`); still journal-sized, so the server calls it in a worker
    thread, never on the event loop.

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
    candidates = [
        (record, hold)
        for record in records
        for hold in record.acceptances
        if hold.since > 0
        and since <= hold.since <= now
        and given_up(hold, now, default_bound)
    ]
    if not candidates:
        return {}
    settled = SettledIndex(
        (hold for record in records for hold in record.settled),
        {hold.nonce for _, hold in candidates},
    )
    found: Dict[str, Hold] = {}
    for record, hold in candidates:
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
