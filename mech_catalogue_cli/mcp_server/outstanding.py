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

"""Outstanding off-chain requests: which marketplace nonce a new request may take (no I/O).

The marketplace derives every request id from the requester's nonce
``mapNonces(requester)`` and moves it by one for each request it records: an on-chain
``request`` and each request settled by ``deliverMarketplaceWithSignatures``, which
recomputes a signed request's id at the requester's nonce *then* (ai-registry-mech
``MechMarketplace``). So a signed off-chain request for nonce ``N`` can be settled only
while the nonce is ``N``, after the requests at the nonces before it; once the nonce
passed ``N`` without it, it can never be settled (nor charged).

An off-chain request that left this process (signed and journalled, posted or not) is
*outstanding* while the requester's nonce is at most its nonce: the mech holds it and
may settle it. While outstanding it counts against ``--max-spend`` (never given back in
a running process) and holds its nonce (:class:`Hold`):

- a retry of its own call re-signs at the *same* nonce when the request was not
  accepted (a new price makes a new id: every id signed for a call stays in its entry,
  ``extra.offchain_attempts``, and only one of them can ever be settled);
- another call's off-chain request is signed only when no other request holds a nonce
  (:func:`blocking_hold`): never behind one, accepted or not, since its mech may
  settle it late or never and a request queued behind it could be settled only after
  it (and would count against ``--max-spend`` meanwhile); the call waits up to its
  ``--timeout`` for the nonce to be free (:class:`HeldBehind`), then says what to do;
- an on-chain request takes the nonce now: it is not sent while an accepted request
  holds that nonce or one after it (:func:`onchain_blocker`); a request its mech did
  not accept is retired by it (it can no longer be settled, and its call says so).

An accepted request holds the nonce against other calls only for its *bound*
(:func:`given_up`, fix29i): the ``--timeout`` of the call that posted it (recorded in
its entry, :data:`BOUND_KEY`; the server's own ``--timeout`` for an entry without it),
counted from its acceptance. An honest mech settles within seconds; past the bound the
request is *given up* for this server: other calls sign at its nonce or send on chain
(adversarial review adv29g: one endpoint that accepted and never settled stopped every
paid call of the requester for the marketplace's ``maxResponseTimeout``, an hour on the
devnet). It still counts against ``--max-spend`` while its nonce is not passed, and its
mech can still settle it (charged once, its answer returned to its call) until another
request of the requester takes the nonce; after that it never can.

Nonces are per requester and chain: a hold names both (:attr:`Hold.owner`, from the
entry's ``extra.offchain.requester`` and ``chain_id``) and only this requester's holds
on this chain count (:meth:`Hold.held_by`). An entry written before they were recorded
is read as this requester's on this chain: ignoring a hold that is ours could strand a
request its mech may still settle (and charge), while heeding one that is not only
makes a call wait or say so.
"""

import math
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

from mech_catalogue_core.model.vocabulary import CallStatus

from .journal import JournalEntry

#: the call entry's ``extra`` key of the off-chain requests signed for the call before
#: its current one: ``{request_id: {nonce, price, mech, payment_type, from_block,
#: accepted, passed, since}}``
ATTEMPTS_KEY = "offchain_attempts"
#: the fields each earlier attempt records
_ATTEMPT_FIELDS = ("nonce", "price", "mech", "payment_type", "from_block")
#: the fields of ``extra.offchain`` (and of each earlier attempt) naming whose nonce a
#: request holds: the requester's address and the chain's id
OWNER_FIELDS = ("requester", "chain_id")
#: the ``extra.offchain`` key (and each earlier attempt's) of the request's bound:
#: seconds from its acceptance its mech has to settle it before other calls take its
#: nonce (the ``--timeout`` of the call that posted it; :func:`given_up`)
BOUND_KEY = "give_up_after"
#: the fields an earlier attempt copies from ``extra.offchain``
_CARRIED_FIELDS = OWNER_FIELDS + (BOUND_KEY,)
#: the ``extra.offchain`` key of when this server first saw the requester's nonce past
#: the call's request: ``{at: unix seconds, block, market_nonce, settled}`` (settled:
#: the chain showed one of its requests settled at that block; else none ever can be)
PASSED_SEEN_KEY = "nonce_passed"


def owner_text(requester: str, chain_id: int) -> str:
    """Whose marketplace nonce a request holds, as :attr:`Hold.owner` says it (pure).

    :param requester: the requester's address (0x + 40 hex, any case).
    :param chain_id: the chain's id (EIP-155).
    :return: ``"<lowercase address>@<chain id>"``.
    """
    return f"{requester.lower()}@{chain_id}"


def _owner_of(record: Any) -> str:
    """:func:`owner_text` of an ``extra.offchain`` or attempt record ("" when unknown)."""
    if not isinstance(record, dict):
        return ""
    requester, chain_id = record.get("requester"), record.get("chain_id")
    if not isinstance(requester, str) or isinstance(chain_id, bool):
        return ""
    return owner_text(requester, chain_id) if isinstance(chain_id, int) else ""


def _bound_of(record: Any) -> float:
    """The :data:`BOUND_KEY` of an ``extra.offchain`` or attempt record (pure).

    Anything but a finite positive number of seconds is read as not recorded (the
    server's ``--timeout`` then applies): never a bound that keeps a nonce for ever.

    :param record: ``extra.offchain`` or an earlier attempt, as read.
    :return: seconds; 0.0 when not recorded.
    """
    bound = record.get(BOUND_KEY) if isinstance(record, dict) else None
    if isinstance(bound, bool) or not isinstance(bound, (int, float)):
        return 0.0
    return float(bound) if math.isfinite(bound) and bound > 0 else 0.0


class HeldBehind(str):
    """Why a call's request is not signed or sent now: another request holds the nonce.

    The call waits up to its ``--timeout`` and tries again (the nonce may be freed by a
    settlement); ``progress`` is what it says meanwhile.
    """

    progress: str = ""


def held_behind(text: str, hold: "Hold", default_bound: float = 0.0) -> HeldBehind:
    """A :class:`HeldBehind` for ``hold``, its progress naming the request and bound.

    :param text: the sentence the call ends with when the nonce stays held.
    :param hold: the request holding the nonce.
    :param default_bound: the server's ``--timeout``, seconds (for an accepted hold
        whose entry records no bound; 0: the bound is not said).
    :return: the refusal.
    """
    refusal = HeldBehind(text)
    until = ""
    if hold.accepted and (hold.bound or default_bound):
        until = (
            f", at most until unix time {give_up_at(hold, default_bound):.0f} (its "
            f"bound: {bound_of(hold, default_bound):g} s from its acceptance)"
        )
    refusal.progress = (
        f"waiting for request {hold.request_id} (nonce {hold.nonce}) to be settled or "
        f"to pass{until}: no request is signed behind it"
    )
    return refusal


@dataclass(frozen=True)
class Hold:
    """One signed off-chain request that may still be settled, as the journal says.

    :param key: the call key of its entry.
    :param request_id: 0x + 64 hex.
    :param nonce: ``mapNonces(requester)`` it was signed at.
    :param mech: the mech it was posted to.
    :param accepted: whether the mech's endpoint accepted it.
    :param since: unix seconds it was accepted (its entry's ``paid_at``; 0: unknown).
    :param price: its price, smallest units of its asset.
    :param owner: whose nonce it holds (:func:`owner_text`; "": an entry written before
        that was recorded, read as this requester's on this chain).
    :param bound: seconds from its acceptance its mech has to settle it before other
        calls take its nonce (:data:`BOUND_KEY`; 0.0: not recorded, the server's
        ``--timeout`` applies: :func:`given_up`).
    """

    key: str
    request_id: str
    nonce: int
    mech: str
    accepted: bool
    since: float = 0.0
    price: int = 0
    owner: str = ""
    bound: float = 0.0

    def held_by(self, owner: str) -> bool:
        """Whether this request holds ``owner``'s nonce (unknown: yes, the safe reading).

        :param owner: :func:`owner_text` of this requester and chain.
        :return: True when it is ``owner``'s or its owner is unknown.
        """
        return not self.owner or self.owner == owner


def earlier_attempts(entry: JournalEntry) -> Dict[str, Dict[str, Any]]:
    """The off-chain requests signed for a call before its current one (pure).

    :param entry: a call's journal entry.
    :return: ``{request_id: attempt}`` (empty when none, or when the entry's record is
        not of the form this server writes: a malformed one is ignored, never trusted).
    """
    found = entry.extra.get(ATTEMPTS_KEY)
    if not isinstance(found, dict):
        return {}
    return {
        rid: attempt
        for rid, attempt in found.items()
        if isinstance(attempt, dict)
        and all(
            isinstance(attempt.get(name), int) and not isinstance(attempt[name], bool)
            for name in ("nonce", "price", "from_block")
        )
        and isinstance(attempt.get("mech"), str)
        and isinstance(attempt.get("payment_type"), str)
    }


def current_passed(entry: JournalEntry) -> bool:
    """Whether the entry's current off-chain request is known never to be settled.

    :param entry: a call's journal entry.
    :return: True when ``extra.offchain.passed`` (its call found the nonce passed it
        unsettled), ``extra.offchain.released`` (the spending cap's check of a
        refused request, ``offchain.release_unsettleable``) or ``extra.offchain.unsent``
        on a request neither accepted nor sent (not one byte of it left this host:
        :func:`mark_unsent`).
    """
    offchain = entry.extra.get("offchain")
    return isinstance(offchain, dict) and (
        offchain.get("passed") is True
        or "released" in offchain
        or (
            offchain.get("unsent") is True
            and offchain.get("accepted") is not True
            and entry.status == CallStatus.PREPARED
        )
    )


def never_posted_before(entry: JournalEntry, previous: Optional[JournalEntry]) -> bool:
    """Whether an entry's current request was never posted by an earlier attempt (pure).

    A retry signed with the same price and data at the same nonce has the same id as
    the call's earlier request, which may have reached the mech (it then holds it).

    :param entry: the call's entry, its current request just signed.
    :param previous: the call's entry before (None: the call's first request).
    :return: True when no earlier request of the call has the same id, or the one
        that had it was the previous current request and itself never sent
        (:func:`mark_unsent`; an earlier attempt's is not recorded: read as posted).
    """
    if previous is None:
        return True
    if previous.request_id != entry.request_id:
        return entry.request_id not in earlier_attempts(previous)
    offchain = previous.extra.get("offchain")
    return isinstance(offchain, dict) and offchain.get("unsent") is True


def mark_unsent(entry: JournalEntry) -> None:
    """Record that not one byte of the entry's current request left this host (in place).

    Nobody holds its signature, so it can never be settled: it holds no nonce and
    counts nothing (:func:`current_passed`). Only for a request whose post never
    connected and that no earlier attempt of the call posted
    (:func:`never_posted_before`).

    :param entry: the call's entry (status ``prepared``, not accepted).
    """
    entry.extra["offchain"]["unsent"] = True


def passed_seen(entry: JournalEntry, written_at: float) -> Tuple[Optional[float], bool]:
    """When this server first saw the requester's nonce past an entry's request (pure).

    The marketplace charges an off-chain request when its mech settles it, which this
    server does not see: what it can date is when it first saw the nonce passed (at or
    after the settlement), recorded in ``extra.offchain`` under
    :data:`PASSED_SEEN_KEY` by :func:`.offchain.record_passed`. An entry whose answer
    was read (status ``delivered``) and holds no such record is dated by its file's
    last write (``written_at``): the delivery was seen at or before it.

    :param entry: a call's journal entry.
    :param written_at: unix seconds its file was last written.
    :return: the time (None: not recorded, or recorded malformed: read as not seen,
        the cap's safe side) and whether the chain showed it settled then (True when
        unknown).
    """
    offchain = entry.extra.get("offchain")
    if not isinstance(offchain, dict):
        return None, True
    seen = offchain.get(PASSED_SEEN_KEY)
    if seen is not None:
        at = seen.get("at") if isinstance(seen, dict) else None
        settled = seen.get("settled") if isinstance(seen, dict) else None
        if (
            isinstance(at, (int, float))
            and not isinstance(at, bool)
            and math.isfinite(at)
            and isinstance(settled, bool)
        ):
            return float(at), settled
        return None, True
    if entry.status == CallStatus.DELIVERED:
        return written_at, True
    return None, True


def current_hold(entry: JournalEntry, offchain: Dict[str, Any]) -> Hold:
    """The entry's current off-chain request (``extra.offchain``) as a :class:`Hold`."""
    return Hold(
        entry.key,
        entry.request_id,
        entry.market_nonce,
        entry.mech,
        offchain.get("accepted") is True,
        entry.paid_at,
        entry.price,
        _owner_of(offchain),
        _bound_of(offchain),
    )


def attempt_hold(entry: JournalEntry, request_id: str, attempt: Dict[str, Any]) -> Hold:
    """An earlier attempt (one of :func:`earlier_attempts`) as a :class:`Hold` (pure)."""
    since = attempt.get("since")
    return Hold(
        entry.key,
        request_id,
        attempt["nonce"],
        attempt["mech"],
        attempt.get("accepted") is True,
        (
            float(since)
            if isinstance(since, (int, float)) and not isinstance(since, bool)
            else 0.0  # unknown
        ),
        attempt["price"],
        _owner_of(attempt),
        _bound_of(attempt),
    )


def holds_of(entry: JournalEntry) -> Tuple[Hold, ...]:
    """Every off-chain request of a call not yet known to be unsettleable (pure).

    :param entry: a call's journal entry.
    :return: its current request first (when off-chain and not passed), then its earlier
        attempts not passed; empty for an on-chain call.
    """
    offchain = entry.extra.get("offchain")
    if not isinstance(offchain, dict):
        return ()
    holds = [current_hold(entry, offchain)] if not current_passed(entry) else []
    holds.extend(
        attempt_hold(entry, rid, attempt)
        for rid, attempt in earlier_attempts(entry).items()
        if attempt.get("passed") is not True
    )
    return tuple(holds)


def acceptances_of(entry: JournalEntry) -> Tuple[Hold, ...]:
    """Every request of a call its endpoint accepted and that is not known settled (pure).

    What offer choice remembers of a mech (``.unsettled``): the current request while
    its answer is not read (status not ``delivered``) and no settlement of the call was
    seen (:func:`passed_seen`), and every earlier attempt accepted (an earlier attempt
    is never the one settled: :func:`settle_on` makes that one current). A request
    settled but not yet read is among them until its call reads it.

    :param entry: a call's journal entry.
    :return: its holds (passed or not), current request first; empty for an on-chain
        call.
    """
    offchain = entry.extra.get("offchain")
    if not isinstance(offchain, dict):
        return ()
    seen = offchain.get(PASSED_SEEN_KEY)
    if isinstance(seen, dict) and seen.get("settled") is True:
        return ()  # the chain showed one of its requests settled
    found = (
        [current_hold(entry, offchain)]
        if offchain.get("accepted") is True and entry.status != CallStatus.DELIVERED
        else []
    )
    found.extend(
        attempt_hold(entry, rid, attempt)
        for rid, attempt in earlier_attempts(entry).items()
        if attempt.get("accepted") is True
    )
    return tuple(found)


def counted_price(entry: JournalEntry) -> int:
    """What an entry counts against ``--max-spend`` (pure).

    An on-chain entry counts its price. An off-chain one counts the highest price of
    its requests that may still be settled: they all hold the same nonce, so at most
    one is ever settled; none when every one is known never to be settled.

    :param entry: a call's journal entry.
    :return: smallest units of the entry's asset.
    """
    if "offchain" not in entry.extra:
        return entry.price
    return max((hold.price for hold in holds_of(entry)), default=0)


def remember_attempt(entry: JournalEntry, previous: JournalEntry) -> None:
    """Keep every request signed for the call in the entry replacing ``previous``.

    :param entry: the call's new entry (its current request just signed).
    :param previous: the call's entry before (its current request and earlier ones).
    """
    attempts = dict(earlier_attempts(previous))
    offchain = previous.extra.get("offchain")
    if isinstance(offchain, dict):
        attempts[previous.request_id] = {
            "nonce": previous.market_nonce,
            "price": previous.price,
            "mech": previous.mech,
            "payment_type": previous.payment_type,
            "from_block": previous.from_block,
            "accepted": offchain.get("accepted") is True,
            "passed": current_passed(previous),
            "since": previous.paid_at,
            **{name: offchain[name] for name in _CARRIED_FIELDS if name in offchain},
        }
    attempts.pop(entry.request_id, None)  # the same request signed again
    if attempts:
        entry.extra[ATTEMPTS_KEY] = attempts


def settle_on(entry: JournalEntry, request_id: str) -> None:
    """Make the request found settled on chain the entry's current one (in place).

    Either the current request or an earlier attempt (which then becomes the current
    one). Settled means the mech took it, whatever its endpoint answered (a 402 it did
    not mean, another request id, a 200 after the post's deadline): the entry is
    written as accepted, never passed nor released, so it reads as an entry this
    server writes (adversarial review adv29g: a refused request settled left a ``sent``
    entry the journal refused, its paid answer never returned).

    :param entry: the call's entry.
    :param request_id: its current request id or one of ``earlier_attempts(entry)``.
    """
    if request_id == entry.request_id:
        offchain = dict(entry.extra["offchain"])
        offchain["accepted"] = True
        offchain.pop("passed", None)
        offchain.pop("released", None)
        entry.extra["offchain"] = offchain
        attempts = earlier_attempts(entry)
        for attempt in attempts.values():
            # the settlement used their nonce: they can never be settled (adv29i: the
            # call counts the settled price alone, in the journal as in the run)
            if attempt["nonce"] == entry.market_nonce:
                attempt["passed"] = True
        if attempts:
            entry.extra[ATTEMPTS_KEY] = attempts
        return
    attempts = earlier_attempts(entry)
    chosen = attempts.pop(request_id)
    for attempt in attempts.values():
        if attempt["nonce"] == chosen["nonce"]:
            attempt["passed"] = True  # the settlement used their nonce too
    offchain = dict(entry.extra["offchain"])
    attempts[entry.request_id] = {
        "nonce": entry.market_nonce,
        "price": entry.price,
        "mech": entry.mech,
        "payment_type": entry.payment_type,
        "from_block": entry.from_block,
        "accepted": offchain.get("accepted") is True,
        "passed": True,  # another request of the same nonce was settled
        "since": entry.paid_at,
        **{name: offchain[name] for name in _CARRIED_FIELDS if name in offchain},
    }
    for name in _ATTEMPT_FIELDS:
        value = chosen[name]
        setattr(entry, "market_nonce" if name == "nonce" else name, value)
    entry.request_id = request_id
    offchain["accepted"] = True  # settled on chain: the mech took it
    offchain.pop("passed", None)
    offchain.pop("released", None)  # a release applies to the request it replaced
    entry.extra["offchain"] = offchain
    entry.extra[ATTEMPTS_KEY] = attempts


def mark_passed(entry: JournalEntry) -> List[Hold]:
    """Record that none of a call's requests can be settled any more (in place).

    :param entry: the call's entry, the requester's nonce past every request's.
    :return: the requests it marked (those not marked before).
    """
    marked = list(holds_of(entry))
    offchain = entry.extra.get("offchain")
    if isinstance(offchain, dict):
        offchain["passed"] = True
    attempts = earlier_attempts(entry)
    for attempt in attempts.values():
        attempt["passed"] = True
    if attempts:
        entry.extra[ATTEMPTS_KEY] = attempts
    return marked


def outstanding(holds: Iterable[Hold], chain_nonce: int) -> List[Hold]:
    """The holds the requester's nonce has not passed, by nonce (pure).

    A request at a nonce below ``chain_nonce`` was settled or can never be: the nonce
    moved past it.

    :param holds: holds read from the journal.
    :param chain_nonce: ``mapNonces(requester)`` now.
    :return: those at ``chain_nonce`` or later, lowest nonce first.
    """
    return sorted(
        (hold for hold in holds if hold.nonce >= chain_nonce),
        key=lambda hold: (hold.nonce, hold.key),
    )


def bound_of(hold: Hold, default_bound: float) -> float:
    """The seconds from its acceptance ``hold``'s mech has to settle it (pure).

    :param hold: an accepted hold.
    :param default_bound: the server's ``--timeout``, seconds (for an entry that
        records no bound: written before fix29i).
    :return: :attr:`Hold.bound`, else ``default_bound``.
    """
    return hold.bound if hold.bound > 0 else default_bound


def give_up_at(hold: Hold, default_bound: float) -> float:
    """When ``hold`` is given up for other calls, unix seconds (pure).

    :param hold: an accepted hold.
    :param default_bound: the server's ``--timeout``, seconds.
    :return: its acceptance plus :func:`bound_of`.
    """
    return hold.since + bound_of(hold, default_bound)


def given_up(hold: Hold, now: float, default_bound: float) -> bool:
    """Whether an accepted request no longer holds its nonce against other calls (pure).

    Its mech had its bound (:func:`bound_of`) from the acceptance to settle it; after
    it, other calls may take the nonce (its mech can still settle it until one does).
    An acceptance time that is unknown (0), not finite, or after ``now`` (a clock set
    back, or an entry this server did not write) is read as given up: no entry can
    keep the nonce for ever, and what it costs is the request's own mech (its request
    may be stranded), never the user's money (it counts until its nonce passes).

    :param hold: a hold (one its endpoint did not accept is never given up here: its
        own call retries it, or an on-chain request retires it).
    :param now: unix seconds.
    :param default_bound: the server's ``--timeout``, seconds.
    :return: True when given up.
    """
    if not hold.accepted:
        return False
    since = hold.since
    if not math.isfinite(since) or since <= 0 or since > now:
        return True
    return now >= since + bound_of(hold, default_bound)


def holding(
    holds: Iterable[Hold], chain_nonce: int, now: float, default_bound: float
) -> List[Hold]:
    """The outstanding holds that still hold their nonce against other calls (pure).

    :param holds: other calls' holds (this requester's on this chain).
    :param chain_nonce: ``mapNonces(requester)`` now.
    :param now: unix seconds.
    :param default_bound: the server's ``--timeout``, seconds.
    :return: :func:`outstanding` without those :func:`given_up`, lowest nonce first.
    """
    return [
        hold
        for hold in outstanding(holds, chain_nonce)
        if not given_up(hold, now, default_bound)
    ]


def blocking_hold(
    holds: Iterable[Hold], chain_nonce: int, now: float, default_bound: float
) -> Optional[Hold]:
    """Another call's outstanding request, accepted or not, if any (pure).

    No request is signed behind one: its mech may settle it late or never, so a request
    queued after it might never be settled either, and would count against
    ``--max-spend`` while it waits (one endpoint that accepts and never settles would
    use up the cap and every later call). An accepted one past its bound
    (:func:`given_up`) no longer blocks: the new request is signed at its nonce.

    :param holds: other calls' holds (this requester's on this chain).
    :param chain_nonce: ``mapNonces(requester)`` now.
    :param now: unix seconds.
    :param default_bound: the server's ``--timeout``, seconds.
    :return: the lowest such hold, or None.
    """
    return next(iter(holding(holds, chain_nonce, now, default_bound)), None)


def next_nonce(
    holds: Iterable[Hold], chain_nonce: int, now: float, default_bound: float
) -> int:
    """The first nonce from ``chain_nonce`` on that no request still holds (pure).

    :param holds: other calls' holds (see :func:`blocking_hold`).
    :param chain_nonce: ``mapNonces(requester)`` now.
    :param now: unix seconds.
    :param default_bound: the server's ``--timeout``, seconds.
    :return: the nonce to sign a new off-chain request at (a given-up request's
        nonce is free: the first of the two settled is charged, the other never).
    """
    taken = {hold.nonce for hold in holding(holds, chain_nonce, now, default_bound)}
    nonce = chain_nonce
    while nonce in taken:
        nonce += 1
    return nonce


def onchain_blocker(
    holds: Iterable[Hold], chain_nonce: int, now: float, default_bound: float
) -> Optional[Hold]:
    """An accepted outstanding request an on-chain request would strand, if any (pure).

    An on-chain request takes ``chain_nonce``: every off-chain request at that nonce can
    no longer be settled, and the ones after it only if requests fill the nonces before
    them. An accepted request holds it for its bound from its acceptance
    (:func:`given_up`); after it the request no longer blocks.

    :param holds: every call's holds.
    :param chain_nonce: ``mapNonces(requester)`` now.
    :param now: unix seconds.
    :param default_bound: the server's ``--timeout``, seconds.
    :return: the lowest accepted, not given-up hold, or None.
    """
    return next(
        (
            hold
            for hold in holding(holds, chain_nonce, now, default_bound)
            if hold.accepted
        ),
        None,
    )


def not_accepted_text(hold: Hold, chain_nonce: int) -> str:
    """Why no off-chain request is signed behind ``hold`` (``--offchain only``).

    :param hold: the blocking hold.
    :param chain_nonce: ``mapNonces(requester)`` now.
    :return: the sentence.
    """
    return (
        f"an off-chain request to mech {hold.mech} is outstanding at nonce "
        f"{hold.nonce} (request {hold.request_id}, call {hold.key[:16]}; the "
        f"marketplace is at nonce {chain_nonce} for this requester): its endpoint did "
        "not accept it, but the mech holds it signed and may still settle it, so no "
        "request is signed behind it (it could be settled only after that one). Call "
        "that tool again with the same arguments to retry it at its nonce, or serve "
        "with --offchain auto (an on-chain request takes the nonce and retires it)"
    )


def _bound_words(hold: Hold, default_bound: float) -> str:
    """``after S s from its acceptance (...; unix time T)``: when ``hold`` is given up."""
    recorded = (
        "the --timeout of the call that posted it"
        if hold.bound > 0
        else "this server's --timeout"
    )
    return (
        f"after {bound_of(hold, default_bound):g} s from its acceptance ({recorded}; "
        f"unix time {give_up_at(hold, default_bound):.0f})"
    )


def accepted_ahead_text(hold: Hold, chain_nonce: int, default_bound: float) -> str:
    """Why no off-chain request is signed behind an accepted one, and until when.

    :param hold: the accepted hold (:func:`blocking_hold`).
    :param chain_nonce: ``mapNonces(requester)`` now.
    :param default_bound: the server's ``--timeout``, seconds.
    :return: the sentence (request ids, nonces and addresses only: no manifest text).
    """
    return (
        f"an off-chain request to mech {hold.mech} is outstanding at nonce "
        f"{hold.nonce} (request {hold.request_id}, call {hold.key[:16]}, accepted by "
        f"its endpoint and not settled; the marketplace is at nonce {chain_nonce} for "
        "this requester): no request is signed behind it (it could be settled only "
        "after that one, and would count against the spending cap meanwhile). Call "
        f"again once its mech settled it, or {_bound_words(hold, default_bound)}: it "
        f"is then given up, and a call takes nonce {hold.nonce} (signed at it, or on "
        "chain); that request can then never be settled nor charged (unless its mech "
        "settles it before the other request is: then it is charged once, and calling "
        "its tool again with the same arguments reads its answer)"
    )


def stranding_text(hold: Hold, chain_nonce: int, default_bound: float) -> str:
    """Why no on-chain request is sent while ``hold`` is outstanding, and until when.

    :param hold: the accepted hold (:func:`onchain_blocker`).
    :param chain_nonce: ``mapNonces(requester)`` now.
    :param default_bound: the server's ``--timeout``, seconds.
    :return: the sentence.
    """
    return (
        f"an off-chain request to mech {hold.mech} is outstanding at nonce "
        f"{hold.nonce} (request {hold.request_id}, call {hold.key[:16]}, accepted by "
        f"its endpoint; the marketplace is at nonce {chain_nonce} for this "
        f"requester): an on-chain request now would take nonce {chain_nonce} and that "
        "request could no longer be settled. Waiting for its mech to settle it: call "
        f"again later; {_bound_words(hold, default_bound)} it is given up and no "
        "longer holds the nonce"
    )


def given_up_words(hold: Hold, default_bound: float) -> str:
    """Why a mech is tried after the other offers (its acceptance given up).

    :param hold: its accepted request given up unsettled.
    :param default_bound: the server's ``--timeout``, seconds.
    :return: the sentence (a request id, a nonce and times only: no manifest text).
    """
    return (
        f"its endpoint accepted request {hold.request_id} (nonce {hold.nonce}) at unix "
        f"time {hold.since:.0f} and the mech did not settle it within its bound of "
        f"{bound_of(hold, default_bound):g} s: tried after the tool's other offers"
    )


def passed_text(entry: JournalEntry, marked: List[Hold], chain_nonce: int) -> str:
    """Say that a call's accepted request can never be settled (its nonce passed).

    :param entry: the call's entry.
    :param marked: its requests just found unsettleable.
    :param chain_nonce: ``mapNonces(requester)`` now.
    :return: the sentence.
    """
    ids = ", ".join(f"{hold.request_id} (nonce {hold.nonce})" for hold in marked)
    return (
        f"the off-chain request(s) {ids} to mech {entry.mech} were accepted by its "
        "endpoint but not settled before the marketplace's nonce for this requester "
        f"moved past them (now {chain_nonce}): they are given up, can never be settled "
        "nor charged (nothing is paid for them), and no longer count against "
        "--max-spend. Call again with the same arguments to sign a new request"
    )


def ahead_text(entry: JournalEntry, holder: Optional[Hold], chain_nonce: int) -> str:
    """What an accepted off-chain request queued behind another one waits for.

    :param entry: the call's entry (its request at a nonce after ``chain_nonce``).
    :param holder: the journalled request holding ``chain_nonce`` (None: none in this
        journal, e.g. signed by another client of the same key).
    :param chain_nonce: ``mapNonces(requester)`` now.
    :return: the sentence (request ids, nonces and addresses only: no manifest text).
    """
    first = (
        f"request {holder.request_id} (nonce {chain_nonce})"
        if holder is not None
        else f"this requester's request at nonce {chain_nonce} (not in this journal)"
    )
    return (
        f"waiting for {first} to be settled or to pass: mech {entry.mech} can settle "
        f"request {entry.request_id} (nonce {entry.market_nonce}) only after this "
        f"requester's requests at nonces {chain_nonce} to {entry.market_nonce - 1}"
    )


def give_up_text(entry: JournalEntry, default_bound: float) -> str:
    """What happens to an accepted off-chain request its mech does not settle in time.

    Nothing but the requester's nonce passing it ends it (the marketplace has no
    cancellation): a request of the requester takes the nonce, which this server
    signs or sends once the request is past its bound (:func:`given_up`).

    :param entry: the call's entry (its current request accepted).
    :param default_bound: the server's ``--timeout``, seconds.
    :return: the sentence.
    """
    bound = _bound_of(entry.extra.get("offchain")) or default_bound
    return (
        f"after {bound:g} s from its acceptance (unix time "
        f"{entry.paid_at + bound:.0f}) it is given up: any other call of this "
        f"requester on this state folder may take nonce {entry.market_nonce} (signed "
        "at it, or on chain); the request can then never be settled nor charged "
        "(unless its mech settles it before that request is: then it is charged once "
        "and its answer read), and calling this again with the same arguments says so "
        "and signs a new request"
    )
