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

"""A signed on-chain request counts against ``--max-spend`` until the chain settles it.

A signed request can be mined, and charged, at any time while its account nonce is
free, whatever its age (a base fee over its fee cap keeps it waiting; anyone may
broadcast its public bytes again once it fits). So its journal entry counts its price
until the journal records its fate (``extra["mined"]``, :func:`record_mined`): mined,
then it is dated by when (the receipt's block time; the moment its receipt was seen),
or its nonce taken by another transaction, final, then it counts nothing. A fate is
learnt when the receipt comes (``RequestSender.broadcast_again``) or, for an entry
older than ``--spend-window``, read from the chain under the send lock
(:func:`learn_fates`), once per entry.

Whose request an entry is (``extra["signer"]``, :func:`owner_of_entry`): the requester
and chain it was signed for. The cap of a server counts only its own requester's
entries on its own chain (one ``--state-dir`` serving a devnet and Gnosis adds nothing
across them); an entry that does not say whose (written before this was recorded) is
counted by every server, as before.
"""

import logging
import re
import time
from typing import Any, Optional, Sequence, Tuple

from mech_catalogue_core.model.vocabulary import CallStatus

from ..raw_blocks import block_numbers
from .dropped import MINED_KEY
from .journal import Journal, JournalEntry
from .market import MarketError, Marketplace
from .mined_reverts import never_paid, own_revert
from .outstanding import owner_text
from .signed_parts import signed_parts

LOGGER = logging.getLogger("mech_catalogue.mcp")
#: seconds a node's block time may be past the server's clock and be believed: clocks
#: of honest nodes and servers differ by seconds, a block is minted at most a slot
#: early; a later time is a node's lie and would keep a price counted for ever
MAX_CLOCK_SKEW = 15 * 60

#: ``extra`` key of an on-chain entry: ``owner_text`` of the requester and chain id its
#: request was signed for
SIGNER_KEY = "signer"
#: ``owner_text``, or the requester alone when the chain id was not known at signing
_OWNER = re.compile(r"0x[0-9a-f]{40}(@[0-9]{1,20})?")


def owner_of_entry(entry: JournalEntry) -> str:
    """Whose nonce an entry's request takes: ``owner_text`` (pure).

    :param entry: a journal entry.
    :return: ``extra.offchain``'s requester and chain for an off-chain call;
        ``extra.signer`` for an on-chain one; "" when the entry does not say (or says
        it in another form: never trusted).
    """
    offchain = entry.extra.get("offchain")
    if isinstance(offchain, dict):
        requester, chain_id = offchain.get("requester"), offchain.get("chain_id")
        if isinstance(requester, str) and isinstance(chain_id, int):
            return "" if isinstance(chain_id, bool) else owner_text(requester, chain_id)
        return ""
    signer = entry.extra.get(SIGNER_KEY)
    return signer if isinstance(signer, str) and _OWNER.fullmatch(signer) else ""


def record_signer(entry: JournalEntry, requester: str, transaction: Any) -> None:
    """Write whose request an on-chain entry holds (before it is journalled signed).

    :param entry: the call's prepared entry.
    :param requester: the signing account (0x + 40 hex).
    :param transaction: the transaction signed (its ``chainId``; none: the requester
        alone is written, the entry then counted on every chain).
    """
    chain_id = transaction.get("chainId") if isinstance(transaction, dict) else None
    if isinstance(chain_id, int) and not isinstance(chain_id, bool):
        entry.extra[SIGNER_KEY] = owner_text(requester, chain_id)
    else:
        entry.extra[SIGNER_KEY] = requester.lower()


def mined_fate(entry: JournalEntry) -> Tuple[bool, Optional[float]]:
    """The fate :func:`record_mined` journalled (pure).

    :param entry: a journal entry.
    :return: ``(recorded, at)``: ``at`` unix seconds it was mined, None when its nonce
        went to another transaction; ``(False, None)`` when none is recorded, or one in
        another form (the request then keeps counting).
    """
    record = entry.extra.get(MINED_KEY)
    if not isinstance(record, dict) or "at" not in record:
        return False, None
    at = record["at"]
    if at is None:
        return True, None
    if isinstance(at, bool) or not isinstance(at, (int, float)) or not at >= 0:
        return False, None
    return True, float(at)


def record_mined(entry: JournalEntry, at: Optional[float]) -> None:
    """Journal an on-chain request's fate in its entry (in place; the caller saves).

    ``extra["mined"]`` is ``{"at": unix seconds or null, "seen_at": unix seconds the
    server learnt it}``; a reorg dropping the request removes it
    (:func:`.dropped.record_dropped`).

    :param entry: the call's entry.
    :param at: unix seconds it was mined (its block's time, or when its receipt was
        seen), or None when its nonce went to another transaction, final.
    """
    entry.extra[MINED_KEY] = {"at": at, "seen_at": time.time()}


def unmined_nonce(entry: JournalEntry) -> int:
    """The account nonce of an entry's signed request whose fate is not recorded (pure).

    :param entry: a journal entry.
    :return: its ``account_nonce`` for an on-chain entry signed (``raw_tx``), not
        reverted when mined (that rule counts it: ``mined_reverts``), whose
        :func:`mined_fate` is not journalled, and that says whose it is
        (:func:`owner_of_entry`: an older entry is dated as before); else -1.
    """
    signed = signed_parts(entry).transaction and entry.account_nonce >= 0
    if not signed or "offchain" in entry.extra or not owner_of_entry(entry):
        return -1
    if own_revert(entry) is not None or never_paid(entry) or mined_fate(entry)[0]:
        return -1
    return entry.account_nonce


def never_signed(entry: JournalEntry) -> bool:
    """Whether an on-chain entry's request was never signed (pure).

    Such an entry holds at most an ERC-20 approval (``payment.TokenPayer``), which is
    no payment: the allowance stays the requester's until a request spends it.

    :param entry: a journal entry.
    :return: True for an on-chain entry still ``prepared`` with no signed request.
    """
    return (
        "offchain" not in entry.extra
        and entry.status == CallStatus.PREPARED
        and not signed_parts(entry).request
        and not entry.tx_hash
    )


def learn_fates(  # pylint: disable=too-many-arguments  # three keyword-only
    market: Marketplace,
    journal: Journal,
    records: Sequence[Any],
    *,
    since: float,
    owner: str,
    depth: int,
) -> bool:
    """Read the fate of this requester's unmined requests older than the window (blocking).

    Under the send lock. Read only when such an entry exists: the account's mined
    nonce (one read); for each entry whose nonce it passed, the nonce ``depth`` blocks
    deep, then its receipt and its block's time. A request mined is journalled with
    its block's time (it counts within the window from then); one whose nonce another
    transaction took, final, with none (it counts nothing); any other stays as it is
    (it counts its price). A read that fails is logged and learns nothing (the safe
    side: the requests count).

    :param market: the marketplace (its RPC).
    :param journal: the call journal.
    :param records: the journal's records (``spend_cap.PaidRecord``).
    :param since: the window's start, unix seconds.
    :param owner: this requester and chain (``owner_text``; "" when unread: only the
        entries that name no chain are read).
    :param depth: blocks below the head that count as final.
    :return: whether any entry was written (read the journal again).
    """
    old = [
        record
        for record in records
        if record.unmined_nonce >= 0
        and record.key
        and record.written_at < since
        and _read_here(record.owner, owner)
    ]
    if not old:
        return False
    try:
        mined = market.confirmed_nonce()
        passed = [record for record in old if record.unmined_nonce < mined]
        final = market.final_nonce(depth) if passed else 0
    except (MarketError, ValueError, OSError) as exc:
        LOGGER.warning("unmined requests' nonces not read (%s): they count", exc)
        return False
    written = False
    for record in passed:
        if record.unmined_nonce >= final:
            continue  # its nonce taken, not final: it may still be mined
        try:
            written = _learn_fate(market, journal, record) or written
        except (MarketError, ValueError, OSError) as exc:
            LOGGER.warning("request %s: fate not read (%s)", record.request_id, exc)
    return written


def _read_here(signer: str, owner: str) -> bool:
    """Whether this server's chain holds the fate of a request signed by ``signer``.

    :param signer: the entry's owner (``owner_of_entry``).
    :param owner: this requester and chain ("" when the chain id was not read: then
        only an entry naming no chain is read, never another chain's).
    :return: True when the fate may be read here.
    """
    if not owner:
        return "@" not in signer
    return signer == owner or owner.startswith(signer + "@")


def _learn_fate(market: Marketplace, journal: Journal, record: Any) -> bool:
    entry = journal.load(record.key)
    if entry is None or unmined_nonce(entry) != record.unmined_nonce:
        return False  # changed meanwhile: read again at the next count
    receipt = market.receipt_now(entry.tx_hash)
    at: Optional[float] = None
    if receipt is not None:
        at = block_time(market, int(receipt["blockNumber"]))
    record_mined(entry, at)
    journal.save(entry)
    return True


def block_time(market: Marketplace, block: int) -> float:
    """A block's time, unix seconds: the node's word, never past the server's clock.

    A request is counted against ``--max-spend`` from its paid time on; a mined time
    in the future would keep it counted for ever (adv29zx R1: a node answering 2^64-1
    seconds). A time later than now and :data:`MAX_CLOCK_SKEW`, or none (the block
    unread: :func:`.raw_blocks.block_numbers`), is taken as now: the safe side, the
    price counted for the whole window from now.

    :param market: the marketplace (its node is asked).
    :param block: the block number.
    :return: unix seconds.
    """
    now = time.time()
    try:
        stamp = block_numbers(market.w3, block, ("timestamp",))["timestamp"]
    except Exception:  # pylint: disable=broad-exception-caught  # any node answer
        stamp = None
    if stamp is None or stamp > now + MAX_CLOCK_SKEW:
        return now
    return float(stamp)
