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

"""A request journalled as mined that the chain no longer holds (adversarial review adv29p).

A reorg can drop a mined request's transaction without putting it back (or a node can
forget it): the marketplace no longer knows the request id, the transaction has no
receipt, and the requester account's nonce is free again. Waiting for such a request
waits forever, and the call said it "stays paid on chain". The journal still holds the
signed transaction, so the call broadcasts those same bytes again: they carry the same
account nonce, so at most one of the two can ever be mined, and nothing else is paid.

:func:`dropped_from_chain` decides, conservatively: every fact must say "gone" at a
block past the one read before the request was sent; an RPC error, or a node behind
that block (lagging), says "not known to be gone", and the call keeps waiting. A node
lagging less than that, between the block read and the request's, is not told apart;
what it costs is bounded by the same nonce: the bytes broadcast again are the request
itself, which the chain mines once at most.

A request whose account nonce another transaction took (a cancellation, or the server's
next call sent while the request was dropped) can be mined only in a fork that lacks
that transaction. Nothing else is paid for its call key until the nonce is final
(:func:`nonce_final`: taken in a final block, the node's ``finalized`` block, else
``depth`` blocks below the head, the chain's ``final_depth``, :data:`FINAL_DEPTH` by
default: :mod:`.finality`); then :func:`never_mined` says the
request can never be mined, and the call key is freed (:func:`record_never_mined`,
journalled before anything is sent). The same holds for every request whose nonce is
taken while the marketplace does not hold it (adv29u): one mined and reverted (a
reorg that puts it before a front-running price change mines it paid), and one never
seen mined (a receipt timeout, or a crash after its broadcast: a fork may hold it).
Until then the call waits, saying why and until which block (:class:`NotFinal`).
"""

import logging
import time
from typing import Any, Dict, Optional, Tuple

from mech_catalogue_core.chain.presets import DEFAULT_FINAL_DEPTH
from mech_catalogue_core.model.payment import payment_terms, say_amount
from mech_catalogue_core.model.vocabulary import CallStatus

from .cancel import CANCEL_KEY
from .journal import JournalEntry
from .market import STATUS_DOES_NOT_EXIST, Marketplace, StateUnavailable
from .outstanding import HeldBehind

LOGGER = logging.getLogger("mech_catalogue.mcp")

#: the journal entry's ``extra`` key recording the last time its request was seen gone
DROPPED_KEY = "dropped"

#: the journal entry's ``extra`` key recording that its request can never be mined
NEVER_MINED_KEY = "never_mined"
#: ``extra`` key of an on-chain entry whose request's fate the chain showed
#: (:func:`.unmined.record_mined`): a drop forgets it
MINED_KEY = "mined"

#: blocks below the head at which an account nonce taken counts as final, on a chain
#: whose preset says no other (the devnet, a custom ``--rpc``): a reorg deeper than
#: the depth in use is not guarded against (a preset's ``final_depth``, or
#: ``--final-depth``: on an L2 such as Base finality follows L1's, far deeper)
FINAL_DEPTH = DEFAULT_FINAL_DEPTH


def nonce_final(
    market: Marketplace, account_nonce: int, depth: int = FINAL_DEPTH
) -> bool:
    """Whether an account nonce was taken by a transaction in a final block (blocking).

    :param market: the marketplace (its RPC).
    :param account_nonce: the requester account's nonce of a signed request.
    :param depth: blocks below the head that count as final when the node answers no
        ``finalized`` block (:meth:`.Marketplace.final_block`).
    :return: True when the account's transaction count at the final block is past it
        (no reorg gives it back). A count that
        cannot be read raises ``MarketError`` (a :class:`~.market.StateUnavailable`
        from a node pruning that block's state).
    """
    return market.final_nonce(depth) > account_nonce


class NotFinal(HeldBehind):
    """Why nothing else is paid for a call yet: its request could be mined in a fork.

    The call waits up to its ``--timeout`` and tries again (as for a held nonce);
    ``final_at`` is the block by which its nonce is final (the head then at least
    that), ``head`` the head it was read at, ``block_seconds`` the chain's least
    seconds between blocks (None: not known, a devnet mining on demand or a custom
    ``--rpc``), ``progress`` what the call says while it waits.
    """

    final_at: int = 0
    head: int = 0
    block_seconds: Optional[float] = None


def held_pause(held: HeldBehind, poll: float, left: float) -> Optional[float]:
    """How long a held call waits before it asks again, if it waits at all (pure).

    :param held: what ``ensure_sent`` answered: a :class:`NotFinal`, or another call's
        request holding the nonce.
    :param poll: ``--delivery-poll``, seconds.
    :param left: seconds left of the call's ``--timeout``.
    :return: None when ``final_at`` cannot come within ``left`` at the chain's
        fastest pace (answer now: calling again later is the only way); else seconds
        to wait: until the final block could come at that pace (``poll`` at least),
        or ``poll`` when the pace is unknown or the nonce is held by another call;
        never past ``left``.
    """
    pause = poll
    if isinstance(held, NotFinal) and held.block_seconds:
        soonest = max(held.final_at - held.head, 0) * held.block_seconds
        if soonest > left:
            return None
        pause = max(soonest, poll)
    return max(min(pause, left), 0.0)


def held_until_final(
    market: Marketplace,
    entry: JournalEntry,
    depth: int,
    block_seconds: Optional[float] = None,
) -> str:
    """Why nothing else may be paid yet for a call whose request's nonce was taken.

    Blocking. A request the marketplace does not hold, whose account nonce a mined
    transaction took, is mined paid by a reorg to a fork that holds it otherwise: one
    mined and reverted (the fork puts it before a front-running price raise), one seen
    mined once and dropped, or one never seen mined (a receipt timeout, a crash after
    its broadcast: a fork may have mined it) then cancelled or passed by another
    request. Until the nonce is final (:func:`nonce_final`) a new request for the call
    could be paid too.

    :param market: the marketplace (its RPC).
    :param entry: the call's entry, its request signed, not on chain, its nonce used.
    :param depth: ``--final-depth`` (the preset's): blocks below the head that count
        as final when the node answers no ``finalized`` block.
    :param block_seconds: the chain's block pace (``settings.block_seconds``), for the
        pause before the next look (:func:`held_pause`).
    :return: "" when the nonce is final; else a :class:`NotFinal` saying why and until
        which block (nothing is sent: the call waits up to its ``--timeout``, then
        says to call again). A receipt or count that cannot be read raises
        ``MarketError`` (nothing is sent; a :class:`.market.StateUnavailable` names
        the node pruning that block).
    """
    if nonce_final(market, entry.account_nonce, depth):
        return ""
    said = not_final_yet(market, entry, depth)
    said.block_seconds = block_seconds
    return said


def not_final_yet(
    market: Marketplace, entry: JournalEntry, depth: int = FINAL_DEPTH
) -> NotFinal:
    """Say why and until which block a request whose nonce is taken holds its call (blocking).

    The block its nonce was taken in is its own receipt's (mined and reverted), else
    its cancellation's; else (another transaction took it) the head now bounds it.

    :param market: the marketplace (its RPC).
    :param entry: the call's entry: its request not on chain, its nonce taken, not
        final (:func:`nonce_final` False).
    :param depth: blocks below the head that count as final when the node answers no
        ``finalized`` block (:meth:`.Marketplace.final_block`).
    :return: the sentence, ``final_at`` the block by which the nonce is final (with
        the node's ``finalized`` block, as far behind the head as it is now). A
        receipt or head that cannot be read raises ``MarketError``.
    """
    cancel = entry.extra.get(CANCEL_KEY) or {}
    final = market.final_block(depth)
    head = final.head
    taken_by, taken_at = "another transaction", None
    if market.transaction_reverted(entry.tx_hash) is True:
        taken_by = "the request itself, mined and reverted (only gas was spent)"
        taken_at = market.mined_block(entry.tx_hash)
    elif cancel.get("tx_hash"):
        taken_by = f"its cancellation {cancel['tx_hash']}"
        taken_at = market.mined_block(cancel["tx_hash"])
    # the block by which it is final: the node's finalized block trailing the head as
    # far as now, else the depth
    lag = final.depth if final.tagged else depth
    final_at = (head if taken_at is None else taken_at) + lag
    young = (
        f"; the chain is younger than that (head {head}): only its genesis is final"
        if head < depth and not final.tagged
        else ""
    )
    deep = (
        f"past the node's finalized block {final.number}"
        if final.tagged
        else f"fewer than {depth} blocks deep{young}"
    )
    said = NotFinal(
        f"request {entry.request_id} to mech {entry.mech} (tx {entry.tx_hash}) is "
        f"not on chain and its account nonce {entry.account_nonce} was taken by "
        f"{taken_by}"
        + (f" in block {taken_at}" if taken_at is not None else "")
        + f", not final yet ({deep}): a reorg could "
        "still mine the request paid, so no other request is paid for this call "
        f"until block {final_at}"
        + ("" if taken_at is not None else " at the latest")
        + f" (the head is {head}); until then its price "
        f"({say_amount(entry.price, payment_terms(entry.payment_type).asset)}) "
        "counts against --max-spend. Call again with the same arguments then"
    )
    said.final_at = final_at
    said.head = head
    said.progress = (
        f"waiting for block {final_at}: request {entry.request_id}'s account nonce "
        f"final ({final.says()} now) before another request is paid (head {head})"
    )
    return said


def record_never_mined(entry: JournalEntry, head: int, depth: int = FINAL_DEPTH) -> str:
    """Mark an entry's request as never to be mined: its call key free (in place).

    Its status goes back to ``prepared``: the next send finds its nonce used and final,
    uncounts it from ``--max-spend`` and sends anew.

    :param entry: the call's journal entry (status ``sent``).
    :param head: the block it was seen so at (:func:`never_mined`).
    :param depth: the depth that counted as final.
    :return: what happened, in a sentence (the record kept in
        ``entry.extra[NEVER_MINED_KEY]``: ``{"block", "seen_at", "said", "tx_hash"}``,
        the transaction it names being the entry's own: the entry counts nothing
        against ``--max-spend`` from then on, for every process,
        :func:`.mined_reverts.never_paid`).
    """
    said = (
        f"request {entry.request_id} (tx {entry.tx_hash}) is no longer on chain and "
        f"can never be mined: its account nonce {entry.account_nonce} was taken by "
        f"another transaction at least {depth} blocks below block {head}; "
        "nothing was paid for it, and a new request is sent"
    )
    entry.extra[NEVER_MINED_KEY] = {
        "block": head,
        "seen_at": time.time(),
        "said": said,
        "tx_hash": entry.tx_hash,
    }
    entry.status = CallStatus.PREPARED
    return said


class NeverMined(str):
    """What the call says of a request that can never be mined: its call key is free."""


def dropped_from_chain(
    market: Marketplace, entry: JournalEntry, depth: int = FINAL_DEPTH
) -> Optional[int]:
    """Whether a journalled, mined request is gone from the chain, its nonce free (blocking).

    Gone: an on-chain request (a signed transaction journalled, not off-chain) whose
    request id the marketplace does not hold (``mapRequestIdInfos`` status 0), whose
    transaction has no receipt, and whose account nonce is unused (the account's mined
    transaction count is at most it), all read at a head past ``entry.from_block`` (the
    head read before it was sent; a node at or below it is behind what was seen).

    :param market: the marketplace (its RPC).
    :param entry: the call's journal entry (status ``sent``).
    :param depth: blocks below the head that count as final.
    :return: the head block the request was seen gone at, or None when it is not known
        to be gone (any fact says otherwise, or could not be read; a pruned node
        raises, as :func:`chain_fate`).
    """
    fate = chain_fate(market, entry, depth)
    return fate[1] if fate is not None and fate[0] == DROPPED_KEY else None


def never_mined(
    market: Marketplace, entry: JournalEntry, depth: int = FINAL_DEPTH
) -> Optional[int]:
    """Whether a journalled, mined request can never be mined again (blocking).

    It cannot: the marketplace does not hold its request id, its transaction has no
    receipt, and its account nonce was taken by another transaction, final
    (:func:`nonce_final`), all read at a head past ``entry.from_block``.

    :param market: the marketplace (its RPC).
    :param entry: the call's journal entry (status ``sent``).
    :param depth: blocks below the head that count as final.
    :return: the head block it was seen so at, or None when not known (any fact says
        otherwise, the nonce is not final yet, or a read failed; a pruned node
        raises, as :func:`chain_fate`).
    """
    fate = chain_fate(market, entry, depth)
    return fate[1] if fate is not None and fate[0] == NEVER_MINED_KEY else None


def chain_fate(
    market: Marketplace, entry: JournalEntry, depth: int = FINAL_DEPTH
) -> Optional[Tuple[str, int]]:
    """Whether a journalled, mined request left the chain, and how (blocking).

    One status read in the common case (the request on chain); the facts of
    :func:`dropped_from_chain` and :func:`never_mined` are read only past it, in order,
    the first "not gone" ending the reads.

    :param market: the marketplace (its RPC).
    :param entry: the call's journal entry (status ``sent``).
    :param depth: blocks below the head that count as final.
    :return: ``(DROPPED_KEY, head)`` (its nonce free: send the same bytes again),
        ``(NEVER_MINED_KEY, head)`` (its nonce taken, final: the call key is free), or
        None (on chain, not known to be gone, its nonce taken but not final yet, or a
        read failed).
    :raises StateUnavailable: when the node prunes the state ``depth`` blocks deep:
        waiting would never end, so the caller says why (any other failed read is
        None: the call keeps waiting).
    """
    if not _mined_onchain_entry(entry):
        return None
    fate: Optional[Tuple[str, int]] = None
    try:
        if market.status(entry.request_id) != STATUS_DOES_NOT_EXIST:
            return None  # on chain: the common case, one read
        head = market.head()
        if (
            head > entry.from_block  # else a node behind what was seen: lagging
            and market.transaction_reverted(entry.tx_hash) is None  # no receipt
        ):
            if market.confirmed_nonce() <= entry.account_nonce:
                fate = DROPPED_KEY, head  # its nonce unused
            elif nonce_final(market, entry.account_nonce, depth):
                fate = NEVER_MINED_KEY, head
    except StateUnavailable:
        raise
    except Exception:  # pylint: disable=broad-exception-caught
        # unsure: an RPC error is never a reason to send again
        LOGGER.warning(
            "request %s: whether it is still on chain could not be read",
            entry.request_id,
            exc_info=True,
        )
    return fate


def _mined_onchain_entry(entry: JournalEntry) -> bool:
    """Whether an entry says its own signed transaction was mined (status ``sent``).

    :param entry: the call's journal entry.
    :return: False for an off-chain request, or one without its signed transaction.
    """
    return (
        entry.status == CallStatus.SENT
        and "offchain" not in entry.extra
        and bool(entry.raw_tx)
        and bool(entry.tx_hash)
        and entry.account_nonce >= 0
    )


def record_dropped(entry: JournalEntry, head: int) -> Dict[str, Any]:
    """Mark an entry's request as gone, to be sent again (the entry changed in place).

    Its status goes back to ``prepared`` (signed, not known to be on chain): the state
    a crash between signing and the receipt leaves, which every later call resolves
    the same way (the same bytes broadcast again while the nonce is free, else the
    nonce's fate read).

    :param entry: the call's journal entry (status ``sent``).
    :param head: the block it was seen gone at (:func:`dropped_from_chain`).
    :return: the record kept in ``entry.extra[DROPPED_KEY]``: ``request_id``,
        ``tx_hash`` and ``account_nonce`` of the dropped request, ``block`` and
        ``seen_at`` (unix seconds).
    """
    record = {
        "request_id": entry.request_id,
        "tx_hash": entry.tx_hash,
        "account_nonce": entry.account_nonce,
        "block": head,
        "seen_at": time.time(),
    }
    entry.extra[DROPPED_KEY] = record
    entry.status = CallStatus.PREPARED
    entry.extra.pop(MINED_KEY, None)  # its nonce free again: counted until mined
    return record


def dropped_text(record: Dict[str, Any]) -> str:
    """Say what a dropped request's record means (the answer's ``_meta`` and logs).

    :param record: :func:`record_dropped`'s record.
    :return: a sentence.
    """
    return (
        f"request {record.get('request_id')} (tx {record.get('tx_hash')}) was "
        f"mined, then no longer on chain at block {record.get('block')} (a reorg "
        "dropped it: no receipt, the request unknown to the marketplace, its account "
        f"nonce {record.get('account_nonce')} free again); the same signed "
        "transaction was sent again, at the same account nonce"
    )
