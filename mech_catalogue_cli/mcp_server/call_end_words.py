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

from typing import Any, Dict, Optional, Sequence, TypeVar

from .auto_prepay import AUTO_PREPAY_KEY
from .cancel import CANCEL_KEY
from .journal import Journal, JournalEntry, JournalError, loaded
from .market_errors import OFFER_UNSENT_WORDS, MarketError, UnsignedRefusal
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


def earlier_attempt_words(entry: JournalEntry, tool_said: str) -> str:
    """What a call says of its earlier attempt to a mech tool no longer served (pure).

    Said when that attempt holds nothing that can pay a mech (an approval alone, or
    requests that can never be paid: :func:`.recall.request_may_pay`), so the call's
    name was resolved to the tool it stands for now.

    :param entry: the earlier attempt's entry.
    :param tool_said: its mech tool's name as a server sentence quotes it.
    :return: the sentence: the approval's transaction, token, tracker and amount, and
        that it moves no funds to a mech; or the request that can never be paid.
    """
    signed = signed_parts(entry)
    try:
        record = approval_record(entry)
    except JournalError:
        record = None
    if record is not None:
        what = (
            f"a token approval (tx {record['tx_hash']}: approve exactly "
            f"{record['amount']:,} of token {record['token']}'s smallest units to "
            f"tracker {record['tracker']})"
        )
    else:
        what = "a token approval (journalled in a record this server did not write)"
    if signed.request:
        what = (
            f"request {entry.request_id} to mech {entry.mech}, which can never be paid "
            "now (its nonce passed or taken, or it reverted): nothing was paid for it"
            + (f", and {what}" if signed.approval else "")
        )
    elif signed.approval:
        what += (
            ", which moves no funds to any mech (a request of this requester spends it)"
        )
    return (
        f"an earlier attempt of this call to mech tool {tool_said}, which is not "
        f"served now, signed {what}; this call was made to the tool its name stands "
        "for now"
    )


def with_approval(refusal: R, entry: JournalEntry) -> R:
    """An offer's refusal after the call's approval was sent, the approval said (pure).

    :param refusal: why the request was not signed ("nothing was sent" of it).
    :param entry: the call's prepared entry.
    :return: ``refusal`` with :func:`approval_words` after it, its "nothing was sent"
        said of the request alone (:data:`.market_errors.OFFER_UNSENT_WORDS`), the
        same kind, its fields kept; or ``refusal`` itself when the entry records no
        approval.
    """
    words = approval_words(entry)
    if not words:
        return refusal
    said = type(refusal)(f"{request_unsigned(str(refusal))}; {words}")
    said.__dict__.update(refusal.__dict__)
    return said


def request_unsigned(refusal: str) -> str:
    """An offer's refusal saying its request unsigned where it said nothing was sent.

    Only the first of :data:`.market_errors.OFFER_UNSENT_WORDS` or of their
    replacements in it is the server's (a revert's reason, which a mech chose, comes
    after it), so only that is replaced, and a refusal said so already is kept.

    :param refusal: the refusal's text.
    :return: it, its first such phrase replaced (as it is when it holds none, or says
        its request unsigned already).
    """
    found = [
        (refusal.find(words), words)
        for words in (*OFFER_UNSENT_WORDS, *OFFER_UNSENT_WORDS.values())
        if words in refusal
    ]
    if not found:
        return refusal
    _, first = min(found)
    if first not in OFFER_UNSENT_WORDS:
        return refusal  # its request said unsigned already (``with_approval``)
    return refusal.replace(first, OFFER_UNSENT_WORDS[first], 1)


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


def refusal_said(
    refusal: UnsignedRefusal, entry: Optional[JournalEntry]
) -> MarketError:
    """A transaction refused before signing, saying once what the call signed (pure).

    :param refusal: the refusal (a fee, a tip or gas over its bound: "nothing was
        signed nor sent" of it).
    :param entry: the call's journal entry as it is now (None: none).
    :return: ``refusal`` itself when the entry signed nothing (:func:`signed_parts`),
        else the same refusal whose sentence says, where it said nothing was signed,
        what the call signed before (:func:`unresumed_words`: the approval and its
        hash with the request itself unsigned, the off-chain requests its mech may
        settle, or the request signed before) and never "nothing was signed".
    """
    if not signed_parts(entry).anything:
        return refusal
    return refusal.signed_before(unresumed_words(entry))


def nothing_sent_words(entry: Optional[JournalEntry], said: str = "") -> str:
    """What a call that sent nothing now says it signed, after ``said`` (pure).

    :param entry: the call's journal entry (None: none).
    :param said: the sentence it ends (an approval named there is not named again).
    :return: "nothing was sent" when the entry signed nothing (:func:`signed_parts`);
        else that no request was signed nor sent now, and what the call signed before
        (:func:`unresumed_words`), or that the approval named before was sent.
    """
    if not signed_parts(entry).anything:
        return "nothing was sent"
    assert entry is not None  # nosec: an entry signed something
    approval = entry.extra.get(APPROVAL_KEY) if isinstance(entry.extra, dict) else None
    named = (
        isinstance(approval, dict)
        and bool(approval.get("tx_hash"))
        and str(approval["tx_hash"]) in said
    )
    if named and not signed_parts(entry).request:
        return (
            "no request was signed nor sent; only the token approval named above was, "
            "and a call with the same arguments reuses it"
        )
    return f"nothing more was sent now: {unresumed_words(entry)}"


def unposted_words(carried: Dict[str, Any]) -> str:
    """What an off-chain call that could not sign its request says it did (pure).

    :param carried: what the call's earlier attempt left for this one (its automatic
        deposit, ``extra["auto_prepay"]``, :mod:`.auto_prepay`).
    :return: that nothing was signed nor posted; or, when the call made its automatic
        deposit before (a transaction hash journalled), that the request was not
        signed nor posted but the deposit was made, stays in the prepaid balance and
        is never made twice.
    """
    record = carried.get(AUTO_PREPAY_KEY)
    if not isinstance(record, dict) or not record.get("tx_hash"):
        return (
            "nothing was signed nor posted for this call: call again with the same "
            "arguments"
        )
    return (
        "the request was not signed nor posted, but this call's automatic deposit "
        f"(tx {record['tx_hash']}: {record.get('amount')} smallest units to tracker "
        f"{record.get('tracker')}) was made before and stays in the prepaid balance: "
        "call again with the same arguments (the deposit is never made twice)"
    )


def refusals_said(refusals: Sequence[str], entry: Optional[JournalEntry]) -> str:
    """Every offer's refusal, joined, true to what the call signed by then (pure).

    :param refusals: the offers' refusals, in the order tried.
    :param entry: the call's journal entry now (None: none).
    :return: the refusals joined by "; ", each saying its request alone unsigned
        (:func:`request_unsigned`) when the entry signed anything (an approval sent for
        a later offer makes an earlier one's "nothing was sent" untrue of the call).
    """
    if signed_parts(entry).anything:
        refusals = [request_unsigned(str(refusal)) for refusal in refusals]
    return "; ".join(refusals)


async def call_end_said(exc: MarketError, journal: Journal, key: str) -> MarketError:
    """A send's error as the call ends with it, what the call signed said once.

    :param exc: the send's error.
    :param journal: the call journal.
    :param key: the call key.
    :return: a refusal before signing
        (:class:`~mech_catalogue_cli.fee_caps.UnsignedRefusal`) rebuilt by
        :func:`refusal_said`; another error with :func:`cut_words`'s words after it; or
        ``exc`` itself when nothing is to be added.
    """
    entry = await entry_now(journal, key)
    if isinstance(exc, UnsignedRefusal):
        return refusal_said(exc, entry)
    words = _cut_words_of(exc, entry)
    return exc if words is None else MarketError(f"{exc}; {words}")


async def entry_now(journal: Journal, key: str) -> Optional[JournalEntry]:
    """The call's entry as the journal holds it now (None: none, or not this server's)."""
    try:
        return await loaded(journal, key)
    except JournalError:
        return None


async def cut_words(exc: MarketError, journal: Journal, key: str) -> Optional[str]:
    """What to add to an error of a send cut by the call's end (None: nothing).

    An error after the signature names its request already (the broadcast's "was
    signed and journalled before its broadcast", a cancellation's words), and one
    before it that says :data:`NOTHING_SIGNED` already: both are kept as they are. A
    refusal before signing is rebuilt instead (:func:`call_end_said`).

    :param exc: the send's error.
    :param journal: the call journal.
    :param key: the call key.
    :return: :func:`unresumed_words` of the call's entry as it is now, or None when
        ``exc`` is no cut by the call's end (:func:`.node_deadline.time_spent`) or says
        its request already; whatever ended the send, the approval this call sent
        before its request was signed (:func:`approval_words`) unless ``exc`` names it,
        so no "nothing was signed" stands alone after it.
    """
    return _cut_words_of(exc, await entry_now(journal, key))


def _cut_words_of(exc: MarketError, entry: Optional[JournalEntry]) -> Optional[str]:
    """:func:`cut_words` of the entry read (pure)."""
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
