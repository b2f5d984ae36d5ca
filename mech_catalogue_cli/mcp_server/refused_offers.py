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

"""Offers a call skipped before anything was sent, and mechs that revert for the market.

One mech must not deny a tool to everyone (issue #29 attack 7 generalised): an offer
that fails before anything is sent or spent (its price moved or is over the cap, the
funds do not cover it, its request reverts at the gas estimate, or is mined and reverts
so that only gas was spent) is skipped and the next acceptable offer tried
(:meth:`.server.MechToolServer.call`). A mech's code may revert only when the
marketplace calls it (the marketplace passes its revert data up unchanged): such a
mech is remembered (:class:`RevertingMechs`) for ``--spend-window``. One whose request
reverted at the gas estimate (nothing spent) is tried after the tool's other offers
for later calls, as a mech that did not settle an accepted request is
(:mod:`.unsettled`); one whose request was mined and reverted (gas spent, which
``--max-spend`` does not count) is not sent another request at all: the gas reverts
cost is at most one mined request per mech per window, whatever the processes. The
memory is the sender's (:attr:`.sending.RequestSender.reverting`: a revert is
remembered and the memory read again under the send lock, right before each new
request, so calls started together do not each send the mech a request, adv29u); a
request whose estimate reverted (nothing journalled) is remembered by its process only.

A request mined and reverted is remembered whatever the reads after its receipt say (a
price raised over it and lowered again, adv29x P1: the receipt is the fact, the reads
only suggest why), and is also journalled in its call's entry
(:func:`.mined_reverts.record_reverted`, carried into the call's next entry): a call
that waits for the revert to be final (:mod:`.dropped`) and is called again never sends
that mech another request within ``--spend-window`` (:func:`reverted_for_call`), and
every journal read puts the journal's mined reverts within the window into the memory
(:func:`journalled_reverts`, :meth:`RevertingMechs.learn`): a restarted server, or
another one on the same state folder, skips the mech too (adv29yp R1).

What a skipped offer says is the server's own words; a revert's reason is shown only
as :func:`~mech_catalogue_core.chain.revert.revert_words` shows it (cleaned, capped).
"""

import math
import re
import time
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import mcp_types as types

from .gas_skips import GasSkip, GasSkipRecord
from .market_errors import GAS_UNSENT, gas_words
from .mined_reverts import REVERTED_KEY, MinedRevert
from .offchain_sending import PriceRefusal
from .offers import Offer
from .results import REQUEST_META_KEY, with_orders_flagged
from .spend_cap import DEFAULT_SPEND_WINDOW_SECONDS, PaidRecord

_ADDRESS = re.compile(r"0x[0-9a-f]{40}")


class RevertRefusal(PriceRefusal):
    """An offer whose request reverted when the marketplace called its mech: try the next.

    ``mech`` is the reverting mech's address (lowercase), remembered by
    :class:`RevertingMechs`; ``mined`` (:class:`PriceRefusal`'s) whether the request was
    mined (gas spent) rather than refused at its gas estimate; ``skip`` whether the mech
    is skipped for the window though nothing was mined (its gas over ``--max-gas``).
    """

    mech: str = ""
    skip: bool = False
    #: for a ``skip``: the node's gas estimate and ``--max-gas`` it was over
    estimate: int = 0
    bound: int = 0


def revert_refusal(
    mech: str, when: str, reason: str, mined: bool = False
) -> RevertRefusal:
    """The refusal of an offer whose request reverted, the price and funds unchanged.

    :param mech: the mech's address.
    :param when: ``"at its gas estimate (nothing was sent)"`` or ``"when mined (only
        gas was spent)"``.
    :param reason: the revert in words (:func:`~mech_catalogue_core.chain.revert.revert_words`,
        already cleaned).
    :param mined: whether the request was mined (gas spent).
    :return: the refusal; its text names the mech, when and the reason.
    """
    refusal = RevertRefusal(
        f"mech {mech}'s request reverted {when}, its price and this account's funds "
        f"unchanged ({reason}): the mech refuses the marketplace's call"
    )
    refusal.mech = mech.lower()
    refusal.mined = mined
    return refusal


def gas_refusal(mech: str, estimate: Optional[int], bound: int) -> RevertRefusal:
    """The refusal of an offer whose request's gas estimate is over ``--max-gas``.

    The marketplace runs the mech's code inside the request, so the mech decides the
    gas; nothing was signed. The mech is skipped for the window (``skip``), as one whose
    request reverted when mined.

    :param mech: the mech's address.
    :param estimate: the node's gas estimate of its request (None: over ``bound``,
        the node's estimate within it ran out of gas).
    :param bound: ``--max-gas``.
    :return: the refusal; its text names the mech, the estimate and the bound.
    """
    refusal = RevertRefusal(
        f"mech {mech}'s request would take {gas_words(estimate, bound)} by the "
        "node's estimate, "
        f"over --max-gas {bound:,} (the marketplace runs the mech's code in the "
        f"request; its code sets the gas): {GAS_UNSENT}"
    )
    refusal.mech = mech.lower()
    refusal.skip = True
    # an estimate the node stopped at the bound is kept as its least: over that bound
    refusal.estimate = bound + 1 if estimate is None else estimate
    refusal.bound = bound
    return refusal


class RevertingMechs:
    """Mechs whose request reverted for the marketplace, tried last or skipped (memory).

    Kept for ``period`` seconds from the last revert (``--spend-window``; None: 24 h, as
    :mod:`.unsettled` remembers). A mech whose request reverted when mined is skipped
    (:meth:`skipped`), one whose request reverted at its gas estimate tried last
    (:meth:`tried_last`). The journal's mined reverts are added as the journal is read
    (:meth:`learn`). A mech paid since is forgotten (:meth:`forget`), and the journal's
    reverts older than that are not learnt again in this process. A mech refused for
    gas over ``--max-gas`` is also written to the state folder (:attr:`kept`,
    :mod:`.gas_skips`) and learnt from it (:meth:`learn_gas`): nothing journals it.
    """

    def __init__(
        self, period: Optional[float] = None, folder: Optional[Path] = None
    ) -> None:
        """Start with none remembered.

        :param period: seconds a revert is remembered (None: 24 h).
        :param folder: ``--state-dir`` (None: the gas skips kept in memory only).
        """
        self.period = DEFAULT_SPEND_WINDOW_SECONDS if period is None else period
        self.kept = GasSkipRecord(folder)
        # mech -> (unix time, why, mined)
        self._reverted: Dict[str, Tuple[float, str, bool]] = {}
        # mech -> unix time it was paid since a revert (reverts before: not learnt)
        self._forgotten: Dict[str, float] = {}

    def remember(self, refusal: RevertRefusal, now: Optional[float] = None) -> None:
        """Remember the mech of a refusal.

        A refusal for gas (``skip`` with its ``estimate``) is written to :attr:`kept`
        too (blocking: call it under the send lock, off the event loop).

        :param refusal: the offer's :class:`RevertRefusal`.
        :param now: unix seconds (None: now).
        """
        when = time.time() if now is None else now
        self.remember_mech(
            refusal.mech, str(refusal), refusal.mined or refusal.skip, when
        )
        if refusal.skip and refusal.estimate:
            skip = GasSkip(refusal.mech, when, refusal.estimate, refusal.bound)
            self.kept.add(skip, self.period)

    def remember_mech(
        self, mech: str, why: str, mined: bool, now: Optional[float] = None
    ) -> None:
        """Remember a mech whose request reverted, and why.

        :param mech: its address, any case.
        :param why: the refusal's text.
        :param mined: whether the request was mined (gas spent: the mech is skipped)
            rather than refused at its gas estimate (tried last).
        :param now: unix seconds (None: now).
        """
        when = time.time() if now is None else now
        self._reverted[mech.lower()] = (when, why, mined)

    def forget(self, mech: str) -> None:
        """Forget a mech (its request was sent since).

        :param mech: its address, any case.
        """
        if self._reverted.pop(mech.lower(), None) is not None:
            self._forgotten[mech.lower()] = time.time()

    def learn(
        self, reverts: Iterable[MinedRevert], now: Optional[float] = None
    ) -> None:
        """Remember the journal's mined reverts (:func:`journalled_reverts`).

        A mech remembered already as reverting when mined keeps its later date; one
        forgotten since (paid) is not learnt from a revert before that.

        :param reverts: journalled reverts, any order.
        :param now: unix seconds (None: now).
        """
        when = time.time() if now is None else now
        for revert in reverts:
            if revert.at < when - self.period:
                continue
            if revert.at <= self._forgotten.get(revert.mech, -math.inf):
                continue
            kept = self._reverted.get(revert.mech)
            if kept is not None and kept[2] and kept[0] >= revert.at:
                continue
            self._reverted[revert.mech] = (
                revert.at,
                f"mech {revert.mech}'s request (tx {revert.tx_hash}) was mined and "
                "reverted (only gas was spent; journalled)",
                True,
            )

    def learn_gas(
        self, skips: Iterable[GasSkip], bound: int, now: Optional[float] = None
    ) -> None:
        """Remember the state folder's mechs skipped for gas (:mod:`.gas_skips`).

        A skip counts while its estimate is over ``bound`` and within the window; a
        mech remembered already with a later date keeps it; one forgotten since (paid)
        is not learnt from a skip before that.

        :param skips: the record's skips, any order.
        :param bound: ``--max-gas`` now.
        :param now: unix seconds (None: now).
        """
        when = time.time() if now is None else now
        for skip in skips:
            if skip.estimate <= bound or skip.at < when - self.period:
                continue
            if skip.at <= self._forgotten.get(skip.mech, -math.inf):
                continue
            kept = self._reverted.get(skip.mech)
            if kept is not None and kept[2] and kept[0] >= skip.at:
                continue
            # kept as the bound it ran out of plus one: the node said no more
            estimate = None if skip.estimate == skip.bound + 1 else skip.estimate
            why = gas_refusal(skip.mech, estimate, bound)
            self._reverted[skip.mech] = (skip.at, f"{why} (remembered)", True)

    def remembered(self, now: Optional[float] = None) -> Dict[str, str]:
        """The mechs remembered now and why.

        :param now: unix seconds (None: now).
        :return: lowercase address -> the refusal's text, those older than ``period``
            dropped.
        """
        when = time.time() if now is None else now
        for mech in [m for m, (at, _, _) in self._reverted.items() if at < when - self.period]:  # fmt: skip
            del self._reverted[mech]
        return {mech: why for mech, (_, why, _) in self._reverted.items()}

    def why(self, mech: str, now: Optional[float] = None) -> Optional[str]:
        """Why a mech is tried last or skipped, if it is remembered now (constant time).

        :param mech: its address, any case.
        :param now: unix seconds (None: now).
        :return: the refusal's text with "tried after the tool's other offers" (its
            gas estimate reverted) or "not sent another request until <unix time>"
            (mined and reverted: :meth:`skipped`), or None (not remembered, or older
            than ``period``: then forgotten).
        """
        kept = self._reverted.get(mech.lower())
        if kept is None:
            return None
        if kept[0] < (time.time() if now is None else now) - self.period:
            del self._reverted[mech.lower()]
            return None
        if kept[2]:
            return (
                f"{kept[1]}: not sent another request (nor gas spent on it) until "
                f"{kept[0] + self.period:.0f} (unix seconds; --spend-window)"
            )
        return f"{kept[1]}: tried after the tool's other offers"

    def skipped(
        self, ranked: Sequence[Offer], now: Optional[float] = None
    ) -> Tuple[List[Offer], List[Tuple[Offer, PriceRefusal]]]:
        """Take out the offers of mechs whose request reverted when mined (gas spent).

        :param ranked: the offers in the order to try them.
        :param now: unix seconds (None: now).
        :return: the offers left, in their order, and each offer taken out with why
            (a :class:`PriceRefusal`, :meth:`why`'s text).
        """
        if not self._reverted:
            return list(ranked), []
        when = time.time() if now is None else now
        kept: List[Offer] = []
        out: List[Tuple[Offer, PriceRefusal]] = []
        for offer in ranked:
            remembered = self._reverted.get(offer.address.lower())
            why = (
                self.why(offer.address, when) if remembered and remembered[2] else None
            )
            if why is None:
                kept.append(offer)
            else:
                out.append((offer, PriceRefusal(why)))
        return kept, out

    def tried_last(
        self, ranked: Sequence[Offer], now: Optional[float] = None
    ) -> Tuple[List[Offer], Dict[str, str]]:
        """Order offers so those of remembered mechs come after the others.

        The order within each part is kept, as :func:`.unsettled.tried_last` keeps it.

        :param ranked: the offers in the order to try them.
        :param now: unix seconds (None: now).
        :return: the offers in the order to try them, and for each moved offer (its
            address as the offer gives it) why (:meth:`why`).
        """
        when = time.time() if now is None else now
        said = {offer.address: self.why(offer.address, when) for offer in ranked}
        kept = [offer for offer in ranked if said[offer.address] is None]
        moved = [offer for offer in ranked if said[offer.address] is not None]
        return kept + moved, {
            offer.address: str(said[offer.address]) for offer in moved
        }

    def listed(
        self, offers: Sequence[Offer], now: Optional[float] = None
    ) -> List[Dict[str, str]]:
        """``[{mech, address, why}]`` of a tool's offers a call would try last for this.

        For a tool's ``tools/list`` entry, beside :func:`.unsettled.tried_last_meta`:
        linear in the tool's offers (nothing when no mech is remembered).

        :param offers: a tool's offers.
        :param now: unix seconds (None: now).
        :return: one item per offer of a remembered mech, in the offers' order (its
            ``why`` says whether it is tried last or not sent at all).
        """
        if not self._reverted:
            return []
        when = time.time() if now is None else now
        items = []
        for offer in offers:
            why = self.why(offer.address, when) if offer.address else None
            if why is not None:
                items.append(
                    {"mech": offer.mech_key, "address": offer.address, "why": why}
                )
        return items


def journalled_reverts(records: Iterable[PaidRecord]) -> List[MinedRevert]:
    """The latest mined revert of each mech the journal records (pure, linear).

    :param records: the journal's records (:attr:`.spend_cap.PaidRecord.reverted`).
    :return: one per mech, its latest revert (any age: :meth:`RevertingMechs.learn`
        keeps those within its window).
    """
    latest: Dict[str, MinedRevert] = {}
    for record in records:
        for revert in record.reverted:
            if revert.mech not in latest or revert.at > latest[revert.mech].at:
                latest[revert.mech] = revert
    return list(latest.values())


def remembered_refusal(mech: str, why: str) -> RevertRefusal:
    """The refusal of an offer whose mech is remembered as reverting when mined.

    :param mech: its address.
    :param why: :meth:`RevertingMechs.why`.
    :return: a mined :class:`RevertRefusal` (gas was spent on the mech, once): the
        caller skips the offer as it skips one that reverted just now.
    """
    refusal = RevertRefusal(why)
    refusal.mech = mech.lower()
    refusal.mined = True
    return refusal


def reverted_for_call(
    extra: Mapping[str, Any], mech: str, period: float, now: Optional[float] = None
) -> Optional[PriceRefusal]:
    """Why a call does not send a mech its request again: one reverted when mined (pure).

    :param extra: the call's entry's ``extra`` (its ``REVERTED_KEY`` record, as
        journalled: a record not of this shape is ignored, never trusted as a date).
    :param mech: the offer's mech address, any case.
    :param period: seconds a revert is kept (``--spend-window``).
    :param now: unix seconds (None: now).
    :return: the refusal (``mined``: gas was spent on it), or None when the call's
        requests never reverted for this mech within ``period``.
    """
    reverted = extra.get(REVERTED_KEY)
    record = reverted.get(mech.lower()) if isinstance(reverted, dict) else None
    if not isinstance(record, dict) or not _ADDRESS.fullmatch(mech.lower()):
        return None
    at = record.get("at")
    if (
        isinstance(at, bool)
        or not isinstance(at, (int, float))
        or not math.isfinite(at)
    ):
        return None
    if at < (time.time() if now is None else now) - period:
        return None
    refusal = PriceRefusal(
        f"mech {mech}: this call's request to it (tx {str(record.get('tx_hash'))[:66]}) "
        f"was mined and reverted (only gas was spent): the call does not send it "
        f"another request until {at + period:.0f} (unix seconds; --spend-window)"
    )
    refusal.mined = True
    return refusal


def skipped_meta(skipped: Sequence[Tuple[Offer, PriceRefusal]]) -> List[Dict[str, str]]:
    """``[{mech, address, why}]`` of the offers a call skipped, in the order tried (pure).

    :param skipped: each skipped offer with its refusal (the server's own words).
    :return: one item per skipped offer.
    """
    return [
        {"mech": offer.mech_key, "address": offer.address, "why": str(refusal)}
        for offer, refusal in skipped
    ]


def with_skipped(
    result: types.CallToolResult, skipped: Sequence[Tuple[Offer, PriceRefusal]]
) -> types.CallToolResult:
    """Add ``skipped`` (:func:`skipped_meta`) to a call's ``_meta`` request record.

    :param result: the call's result (a request's record in
        ``_meta["io.olas/mech-request"]``, when it has one).
    :param skipped: the offers skipped before the one sent.
    :return: the result, its record holding ``skipped`` (empty when none) and an
        ``instruction_like_text`` warning beside any reason that reads like
        instructions (:func:`.results.with_orders_flagged`); a result without a record
        is returned as it is.
    """
    meta: Any = result.meta or {}
    request = meta.get(REQUEST_META_KEY)
    if isinstance(request, dict):
        request["skipped"] = skipped_meta(skipped)
        with_orders_flagged(request)
    return result
