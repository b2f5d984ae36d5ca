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

"""What a paid call cut short by its ``--timeout`` says it signed (:mod:`.node_deadline`).

A node read cut at the call's end, or a chain lookup that failed, ends the call before
or after its request was signed; the call's journal entry says which, and the words
say what to do (the same sentences fix29zi's deadlines use).
"""

from typing import Optional, TypeVar

from .cancel import CANCEL_KEY
from .journal import Journal, JournalEntry, JournalError, loaded
from .market_errors import MarketError
from .node_deadline import time_spent
from .payment import APPROVAL_KEY, approval_record
from .signed_parts import signed_parts

#: a refusal of an offer (a ``str`` with fields: :class:`.offchain_sending.PriceRefusal`)
R = TypeVar("R", bound=str)

#: what a call ended before its request was signed says of it
NOTHING_SIGNED = (
    "nothing was signed nor sent for this call: call again with the same arguments"
)


def unresumed_words(entry: Optional[JournalEntry]) -> str:
    """What a call whose request could not be looked up on chain paid (pure).

    :param entry: the call's journal entry (None: none; else one not known to be sent).
    :return: nothing signed; or the token approval sent for the call before its
        request was signed (:func:`approval_words`); or the signed request that may be
        on chain (or held by its mech: :func:`offchain_signed_words`), and that a call
        with the same arguments looks again without paying twice.
    """
    signed = signed_parts(entry)
    if entry is not None and signed.offchain and not signed.transaction:
        return offchain_signed_words(entry)
    if entry is None or not signed.transaction:
        return approval_words(entry) or NOTHING_SIGNED
    return (
        f"request {entry.request_id} (tx {entry.tx_hash}) was signed and journalled "
        "before this call and may be on chain; nothing more was sent now: call again "
        "with the same arguments to check it (that will not pay twice)"
    )


def approval_words(entry: Optional[JournalEntry]) -> str:
    """What a call whose request is unsigned says of the approval it sent before (pure).

    :param entry: the call's journal entry (None: none).
    :return: the approval's transaction hash, token, tracker and amount, that the
        request itself was not signed, and that calling again with the same arguments
        reuses the approval (never approves twice); "" when the entry records no
        approval, or one this server did not write (said where it is read again).
    """
    try:
        record = approval_record(entry) if entry is not None else None
    except JournalError:
        record = None
    if record is None:
        return ""
    return (
        f"the request itself was not signed, but this call's token approval (tx "
        f"{record['tx_hash']}: approve exactly {record['amount']:,} of token "
        f"{record['token']}'s smallest units to tracker {record['tracker']}) was "
        "signed, journalled and sent before it, and may be mined: call again with "
        "the same arguments to reuse it (it is sent again only while its nonce is "
        "unmined, never approved twice)"
    )


def with_approval(refusal: R, entry: JournalEntry) -> R:
    """An offer's refusal after the call's approval was sent, the approval said (pure).

    :param refusal: why the request was not signed ("nothing was sent" of it).
    :param entry: the call's prepared entry.
    :return: ``refusal`` with :func:`approval_words` after it (the same kind, its
        fields kept), or ``refusal`` itself when the entry records no approval.
    """
    words = approval_words(entry)
    if not words:
        return refusal
    said = type(refusal)(f"{refusal}; {words}")
    said.__dict__.update(refusal.__dict__)
    return said


def offchain_signed_words(entry: JournalEntry) -> str:
    """What a call says of its off-chain requests it could not look up (pure).

    Each was signed and journalled before its post: its mech may hold it and settle it
    on chain against the prepaid balance whatever it answered, until the requester's
    marketplace nonce passes it. A call again looks them up first and signs again, if
    at all, at the same nonce, which only one request can take: never paid twice.

    :param entry: the call's entry, an off-chain request signed
        (:attr:`.signed_parts.SignedParts.offchain`).
    :return: the requests its mech may still settle (id, mech, nonce), or that those
        signed can no longer be; and that a call with the same arguments does not
        pay twice.
    """
    settleable = signed_parts(entry).settleable
    if not settleable:
        return (
            f"the off-chain requests signed for this call before (request "
            f"{entry.request_id}) can no longer be settled: the requester's marketplace "
            "nonce passed them, so nothing was paid for them; nothing was signed now: "
            "call again with the same arguments"
        )
    said = ", ".join(
        f"{hold.request_id} to mech {hold.mech} (marketplace nonce {hold.nonce})"
        for hold in settleable
    )
    many = len(settleable) > 1
    return (
        f"off-chain request{'s' if many else ''} {said} {'were' if many else 'was'} "
        "signed and journalled before this call; its mech may hold it and still settle "
        "it against the prepaid balance. Nothing "
        "more was signed now: call again with the same arguments to check it (that "
        "will not pay twice)"
    )


def nothing_new_words(entry: Optional[JournalEntry]) -> str:
    """What a call that failed before signing a new request says it signed (pure).

    :param entry: the call's earlier entry (None: none).
    :return: :data:`NOTHING_SIGNED`, or the earlier off-chain requests its mech may
        still settle (:func:`offchain_signed_words`) when the entry holds some, or the
        token approval sent for it (:func:`approval_words`).
    """
    if entry is not None and signed_parts(entry).settleable:
        return offchain_signed_words(entry)
    return approval_words(entry) or NOTHING_SIGNED


async def cut_words(exc: MarketError, journal: Journal, key: str) -> Optional[str]:
    """What to add to an error of a send cut by the call's end (None: nothing).

    An error after the signature names its request already (the broadcast's "was
    signed and journalled before its broadcast", a cancellation's words), and one
    before it that says :data:`NOTHING_SIGNED` already: both are kept as they are.

    :param exc: the send's error.
    :param journal: the call journal.
    :param key: the call key.
    :return: :func:`unresumed_words` of the call's entry as it is now, or None when
        ``exc`` is no cut by the call's end (:func:`.node_deadline.time_spent`) or says
        its request already; whatever ended the send, the approval this call sent
        before its request was signed (:func:`approval_words`) unless ``exc`` names it,
        so no "nothing was signed" stands alone after it.
    """
    try:
        entry = await loaded(journal, key)
    except JournalError:
        entry = None
    approved = approval_words(entry) if entry is None or not entry.raw_tx else ""
    if approved and entry is not None:
        named = str(entry.extra[APPROVAL_KEY]["tx_hash"]) in str(exc)
        return None if named else approved
    if not time_spent(exc) or NOTHING_SIGNED in str(exc):
        return None
    if entry is not None and entry.tx_hash and entry.tx_hash in str(exc):
        return None
    if entry is not None and entry.request_id and entry.request_id in str(exc):
        return None  # named already (an off-chain retry's sentence)
    return unresumed_words(entry)


def cancel_unsettled(entry: JournalEntry, cancel_tx: str, why: object) -> str:
    """What a call says of a cancellation whose outcome it has not seen (pure).

    :param entry: the call's entry, its cancellation journalled (``CANCEL_KEY``).
    :param cancel_tx: the cancellation's hash.
    :param why: its broadcast's failure ("no receipt"), and a read cut after it.
    :return: the request, the cancellation not mined yet, and that calling again
        sends the cancellation again, never the request.
    """
    return (
        f"the request to mech {entry.mech} ({entry.tx_hash}) is being cancelled "
        f"({entry.extra[CANCEL_KEY]['reason']}); its cancellation {cancel_tx} is not "
        f"mined yet ({why}). Call again with the same arguments: the cancellation is "
        "sent again, never the request"
    )
