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

"""A request mined and reverted, as the journal keeps it for every server process.

A mech's code may revert when the marketplace calls it; the request is then mined and
reverts (only gas spent). Its call's journal entry records it
(``extra[REVERTED_KEY]``: per mech, the request's transaction, when it was first seen
and the block it was mined in), and every server process on the state folder reads
two things from that record (adversarial review adv29yp):

- the mech is sent no other request within ``--spend-window``, by any call: the
  journal's records are read into :class:`.refused_offers.RevertingMechs` at each
  journal read (at start, and as other processes append; R1: the memory was the
  process's, so each restart or second server paid the revert's gas again);
- the request's price stays counted against ``--max-spend`` until its block is final
  (``final_depth`` deep): a reorg within that depth may still mine it paid (C1: the
  price was given back at once, and another call spent it). Once final,
  :func:`release_final_reverts` marks the record (``final_at``, the head it was seen
  final at) and the entry counts its price no more.

No chain read here but in :func:`release_final_reverts`.
"""

import logging
import math
import re
import time
from dataclasses import dataclass
from typing import Any, List, Mapping, Optional, Sequence, Tuple

from .dropped import NEVER_MINED_KEY, nonce_final, record_never_mined
from .journal import Journal, JournalEntry, JournalError
from .market import MarketError, Marketplace

LOGGER = logging.getLogger("mech_catalogue.mcp")

#: an entry's ``extra`` key: the mechs its call's requests reverted for when mined,
#: ``{mech address (lowercase): {"tx_hash": the request's, "at": unix seconds first
#: seen, "block": the block it was mined in (None: not read), "final_at": the head it
#: was seen final at (absent until then)}}``
REVERTED_KEY = "reverted_when_mined"
_ADDRESS = re.compile(r"0x[0-9a-f]{40}")


@dataclass(frozen=True)
class MinedRevert:
    """One journalled request mined and reverted.

    :param mech: the mech's address, lowercase.
    :param at: unix seconds it was first seen reverted (``--spend-window`` counts
        from it).
    :param tx_hash: the request's transaction (0x hex, at most 66 characters).
    :param block: the block it was mined in (None: not read).
    :param final_at: the head block it was seen final at (None: not seen final yet).
    """

    mech: str
    at: float
    tx_hash: str
    block: Optional[int] = None
    final_at: Optional[int] = None


def _block(value: Any) -> Optional[int]:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def mined_reverts(extra: Mapping[str, Any]) -> List[MinedRevert]:
    """The mined reverts an entry's ``extra`` records (pure).

    :param extra: a journal entry's ``extra``.
    :return: one per mech whose record has this server's shape (a lowercase address,
        a finite ``at``); any other record is left out, never trusted as a date.
    """
    reverted = extra.get(REVERTED_KEY)
    if not isinstance(reverted, dict):
        return []
    found = []
    for mech, record in reverted.items():
        if not isinstance(mech, str) or not _ADDRESS.fullmatch(mech):
            continue
        if not isinstance(record, dict):
            continue
        at = record.get("at")
        if isinstance(at, bool) or not isinstance(at, (int, float)):
            continue
        if not math.isfinite(at):
            continue
        tx_hash = record.get("tx_hash")
        found.append(
            MinedRevert(
                mech,
                float(at),
                tx_hash[:66] if isinstance(tx_hash, str) else "",
                _block(record.get("block")),
                _block(record.get("final_at")),
            )
        )
    return found


def own_revert(entry: JournalEntry) -> Optional[MinedRevert]:
    """The record of an entry's own request, if it was mined and reverted (pure).

    :param entry: a call's journal entry.
    :return: the record naming the entry's mech and transaction, or None (its request
        did not revert, or the records are of the call's earlier requests).
    """
    if not entry.tx_hash:
        return None
    for revert in mined_reverts(entry.extra):
        if revert.mech == entry.mech.lower() and revert.tx_hash == entry.tx_hash:
            return revert
    return None


def never_paid(entry: JournalEntry) -> bool:
    """Whether the journal says an entry's own request can never be paid (pure).

    Either its request was mined and reverted, seen final (``final_at`` in its
    record), or its account nonce was taken by another transaction, seen final
    (:func:`.dropped.record_never_mined`, naming the entry's transaction). Every
    process reading the journal then counts its price no more against ``--max-spend``
    and reads nothing more of it on chain (``sending.RequestSender.ensure_sent``).

    :param entry: a call's journal entry.
    :return: True only for a record naming the entry's own transaction.
    """
    revert = own_revert(entry)
    if revert is not None and revert.final_at is not None:
        return True
    record = entry.extra.get(NEVER_MINED_KEY)
    return (
        bool(entry.tx_hash)
        and isinstance(record, dict)
        and record.get("tx_hash") == entry.tx_hash
    )


def mark_revert_final(entry: JournalEntry, head: int) -> None:
    """Record an entry's own reverted request as final at ``head`` (in place, pure).

    :param entry: the call's entry, its own request recorded reverted
        (:func:`record_reverted`).
    :param head: the head block it was seen final at.
    """
    revert = own_revert(entry)
    if revert is not None and revert.final_at is None:
        entry.extra[REVERTED_KEY][revert.mech]["final_at"] = head


def record_never_paid(  # pylint: disable=too-many-arguments
    market: Marketplace,
    journal: Optional[Journal],
    entry: JournalEntry,
    reverted: bool,
    depth: int,
) -> None:
    """Journal that an entry's own request can never be paid (blocking: the head).

    Called once its account nonce is final and its request is not on chain: a revert's
    record (:func:`record_reverted`, written already) is marked final
    (:func:`mark_revert_final`), a nonce taken by another transaction is recorded as
    never mined (:func:`.dropped.record_never_mined`); the entry is saved, and
    :func:`never_paid` holds for it from then on, in every process. A head that cannot
    be read records nothing (a warning): the next call reads the request again.

    :param market: the marketplace (its RPC).
    :param journal: the journal (None: nothing to write).
    :param entry: the call's entry, its own request signed (``tx_hash``).
    :param reverted: whether its receipt said reverted (else it has none).
    :param depth: the depth that counted as final.
    """
    if journal is None or not entry.tx_hash:
        return
    try:
        head = market.head()
    except MarketError as exc:
        LOGGER.warning(
            "request %s can never be paid, but the head to record it at was not "
            "read: %s",
            entry.request_id,
            exc,
        )
        return
    if reverted:
        mark_revert_final(entry, head)
    else:
        LOGGER.info("%s", record_never_mined(entry, head, depth))
    journal.save(entry)


def record_reverted(
    entry: JournalEntry, block: Optional[int] = None, now: Optional[float] = None
) -> Tuple[float, bool]:
    """Record in a call's entry that its request reverted when mined (pure).

    The first time the request was seen is kept (the window counts from it): the same
    request looked at again after a restart is not re-dated.

    :param entry: the call's entry, its request (``mech``, ``tx_hash``) mined and
        reverted; ``extra[REVERTED_KEY]`` gains its mech (a record not of the shape
        this server writes is replaced).
    :param block: the block it was mined in (None: not read).
    :param now: unix seconds (None: now).
    :return: the unix seconds the revert is dated by, and whether the entry changed
        (to be saved).
    """
    reverted = entry.extra.get(REVERTED_KEY)
    if not isinstance(reverted, dict):
        reverted = entry.extra[REVERTED_KEY] = {}
    kept = own_revert(entry)
    if kept is not None:
        return kept.at, False
    at = time.time() if now is None else now
    reverted[entry.mech.lower()] = {"tx_hash": entry.tx_hash, "at": at, "block": block}
    return at, True


def final_revert_seen(
    market: Marketplace, entry: JournalEntry, depth: int
) -> Optional[int]:
    """Whether an entry's request, mined and reverted, is so for good (blocking).

    It is when its receipt still says reverted and its account nonce is taken in a
    final block (:func:`.dropped.nonce_final`: the node's ``finalized`` block, else
    ``depth`` blocks below the head): a nonce is used
    once in a chain, so the transaction that took it there is this one, reverted.

    :param market: the marketplace (its RPC).
    :param entry: the call's entry, its own request recorded reverted.
    :param depth: blocks below the head that count as final without the node's
        ``finalized`` block.
    :return: the head it was seen final at, or None (not final yet, or not read: a
        failed read, logged, keeps its price counted).
    """
    try:
        head = market.head()
        if market.transaction_reverted(entry.tx_hash) is not True:
            return None
        if not nonce_final(market, entry.account_nonce, depth):
            return None
    except MarketError as exc:
        LOGGER.warning(
            "whether request %s's revert is final was not read (%s); its price keeps "
            "counting against --max-spend",
            entry.request_id,
            exc,
        )
        return None
    return head


def release_final_reverts(
    market: Marketplace, journal: Journal, keys: Sequence[str], depth: int
) -> List[JournalEntry]:
    """Mark the journalled reverted requests whose block is final (blocking).

    Call it holding the journal's send lock. Each entry named is read again; one whose
    own request's revert is final (:func:`final_revert_seen`) gets ``final_at`` in its
    record, is saved, and counts its price against ``--max-spend`` no more
    (``spending.read_record``).

    :param market: the marketplace (its RPC).
    :param journal: the journal.
    :param keys: the call keys of entries whose request reverted, not seen final, its
        block final (or not read).
    :param depth: blocks below the head that count as final without the node's
        ``finalized`` block.
    :return: the entries released now.
    """
    released = []
    for key in keys:
        try:
            entry = journal.load(key)
        except JournalError:
            continue  # counted as unreadable by the cap already
        revert = own_revert(entry) if entry is not None else None
        if entry is None or revert is None or revert.final_at is not None:
            continue
        final_at = final_revert_seen(market, entry, depth)
        if final_at is None:
            continue
        mark_revert_final(entry, final_at)
        journal.save(entry)
        released.append(entry)
        LOGGER.info(
            "request %s to mech %s (tx %s), mined and reverted, is final at block %d: "
            "its price no longer counts against --max-spend",
            entry.request_id,
            entry.mech,
            entry.tx_hash,
            final_at,
        )
    return released
