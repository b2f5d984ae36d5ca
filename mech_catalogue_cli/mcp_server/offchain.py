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

"""Off-chain requests: a signed request posted to the mech's declared endpoint.

For an offer whose manifest declares a ``url`` (``Offer.endpoint``, validated by
``mech_catalogue_core.chain.offchain.offchain_endpoint``), with ``--offchain auto`` or
``only``, :meth:`OffchainPoster.post` does what the real mech's ``send_signed_requests``
route expects (valory-xyz/mech ``task_execution/handlers.py``): a form with
``request_id`` (decimal), ``ipfs_hash`` (the 32-byte digest of the payload's CID, 0x
hex), ``ipfs_data`` (the payload JSON, so nothing is uploaded), ``sender``,
``delivery_rate``, ``nonce`` and ``signature`` (the request id signed as is by the
requester's key: the marketplace's ``ecrecover``). The requester sends no transaction;
the mech answers from the requester's prepaid balance on the balance tracker of its
payment type and settles with ``deliverMarketplaceWithSignatures``, which records the
request as delivered and emits ``Deliver`` with the response's digest.

**How the answer is verified**: exactly as an on-chain request's (``delivery.py``): the
marketplace must record the request as delivered by the mech, and the response is read
from IPFS and hashed against the ``Deliver`` event's digest. Nothing the endpoint says
is taken as the answer: the endpoint only accepts the request, or answers 402.

**HTTP 402** (scheme ``olas-prepay``): read strictly (``parse_challenge``); its ``payTo``
must be the tracker the marketplace names for the mech's payment type and its
``chainId`` ours (``challenge_refusal``), else the answer is refused as hostile. A
believed challenge is turned into an error naming the prepaid balance, the amount
required and the command to prepay (:data:`PREPAY_HINT`); nothing is paid, unless the
user opted in with ``--auto-prepay`` (:mod:`.auto_prepay`: one deposit within the caps,
then one retry of the same signed request).

**Where the post goes**: the endpoint's host is resolved once, every address it gives is
checked (off the devnet chain: internet addresses only), and the post connects to those
addresses only (``adapters.http.pinned_session``): the name is not resolved again, so a
name that answers otherwise by then (DNS rebinding) is not reached at its new address.
No proxy is used and no redirect is followed.

Never twice: the signed request is journalled before it is posted (``extra.offchain``);
one request id is settled at most once on chain (``AlreadyRequested``), and a call
whose request the mech accepted only waits for its delivery (status ``sent``).

A request the mech did not accept still counts against ``--max-spend`` (the mech holds
the signed request) until the chain shows it can never be settled: the requester's
``mapNonces`` past the nonce it was signed at, and the request absent, at one block
(:meth:`OffchainPoster.never_settleable`, :func:`release_unsettleable`).
"""

import json
import logging
import socket
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple
from urllib.parse import urlsplit

from mech_catalogue_core.chain.offchain import (
    DEVELOPMENT_CHAIN_IDS,
    SEND_ROUTE,
    ChallengeError,
    challenge_refusal,
    parse_challenge,
    private_address_refusal,
    request_id,
)
from mech_catalogue_core.model.payment import payment_terms

from mech_catalogue_cli.adapters.http import (
    AnswerError,
    pinned_session,
    post_form_json,
)

from .journal import Journal, JournalEntry, JournalError
from .market import STATUS_DOES_NOT_EXIST, MarketError, Marketplace
from .node_deadline import failure_words
from .outstanding import PASSED_SEEN_KEY, holds_of, owner_text, passed_seen
from .payment import TokenPayer
from .spend_cap import PaidRecord, passed_unseen

LOGGER = logging.getLogger("mech_catalogue.mcp")

#: the most a mech's answer to the signed request may hold (it is an acknowledgement,
#: or a 402 challenge: a few hundred bytes)
MAX_ACCEPT_BYTES = 64 * 1024
#: its JSON nesting at most
MAX_ACCEPT_DEPTH = 8
#: seconds the post may take at most, connect to last byte
POST_SECONDS = 10.0
#: what the user runs to prepay (the ``prepay`` command, another change of issue 31)
PREPAY_HINT = "run `mech-catalogue prepay --mech {mech} --amount {amount}`"


class OffchainRefusal(str):
    """Why an off-chain request was not accepted; nothing was paid for the request.

    ``challenged`` is True for a believed 402 (``payTo`` the marketplace's tracker, our
    chain, ``required`` within the price): the one answer ``--auto-prepay`` deposits
    after. ``deposited`` is True when an automatic deposit was made for the call before
    the refusal (the deposit stays in the prepaid balance). ``unsent`` is True when not
    one byte of the signed request left this host by this post (its host did not
    resolve to addresses that may be posted to, or none accepted a connection).

    The text says what happened to the post only: whether the mech may hold the call's
    signed request, and so whether anything was sent, is decided from the call's
    journal entry by :func:`.offchain_refusals.said`, the one place that words it.
    """

    challenged: bool = False
    deposited: bool = False
    unsent: bool = False


#: what a call refused off-chain says when its signed request may be held by the mech
HELD_REFUSAL = (
    "the signed request was posted (now or by an earlier attempt of this call), so its "
    "mech holds it and may still settle it: it is then charged once, and calling this "
    "tool again with the same arguments reads its answer; until then it counts against "
    "--max-spend and holds this requester's next request"
)


def _units(amount: int, decimals: int) -> str:
    whole, part = divmod(amount, 10**decimals)
    text = f"{whole}.{part:0{decimals}d}".rstrip("0").rstrip(".")
    return text


#: how a host's addresses are read: ``(host, port)`` -> IP addresses (text)
Resolver = Callable[[str, int], List[str]]


def system_addresses(host: str, port: int) -> List[str]:
    """The addresses the system resolver gives a host, each once, in its order (blocking).

    :param host: a name or an IP address.
    :param port: the port (so the answer is of stream sockets for it).
    :return: IP addresses as text; ``OSError`` is raised when the name does not resolve.
    """
    answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in answers))


class OffchainPoster:
    """Posts signed requests to mechs' declared endpoints, for one marketplace."""

    def __init__(
        self,
        market: Marketplace,
        payer: TokenPayer,
        resolve: Resolver = system_addresses,
    ) -> None:
        """Use the marketplace's account (its key stays in it) and funds reader.

        :param market: the marketplace.
        :param payer: reads the tracker and prepaid balance of a payment type.
        :param resolve: reads an endpoint host's addresses, once per post (the
            system resolver; tests give a stand-in).
        """
        self.market = market
        self.payer = payer
        self.resolve = resolve
        self._chain_id: Optional[int] = None
        self._signer_refusal: Optional[str] = None

    def chain_id(self) -> int:
        """The chain id the RPC reports (read once).

        :return: ``eth_chainId``.
        :raises MarketError: when it cannot be read.
        """
        if self._chain_id is None:
            try:
                self._chain_id = int(self.market.w3.eth.chain_id)
            except Exception as exc:  # pylint: disable=broad-exception-caught
                # ValueError, OSError, web3's RPC errors: the URL is never quoted
                raise MarketError(
                    f"the chain id could not be read ({failure_words(exc)}); "
                    "nothing was posted"
                ) from exc
        return self._chain_id

    def signer_refusal(self) -> str:
        """Why this requester cannot sign off-chain requests ("" when it can; blocking).

        The marketplace checks a signed request with ``ecrecover`` only when the
        requester holds no code; a requester with code (a Safe, a smart account, an
        account delegating to code under EIP-7702) is checked with EIP-1271
        ``isValidSignature`` on itself (ai-registry-mech ``MechMarketplace.
        _verifySignedHash``), which the key's plain signature this server makes does
        not satisfy: the mech could never settle the request. Read once per server.

        :return: the reason, or "".
        """
        if self._signer_refusal is None:
            try:
                code = bytes(self.market.w3.eth.get_code(self.market.requester))
            except Exception as exc:  # pylint: disable=broad-exception-caught
                # web3's RPC errors, OSError: not cached, the URL is never quoted
                return f"the requester's code could not be read ({failure_words(exc)})"
            self._signer_refusal = (
                f"the requester {self.market.requester} is a contract ({len(code)} "
                "bytes of code: a Safe, a smart account or an EIP-7702 delegation); "
                "the marketplace checks its off-chain signatures with EIP-1271 "
                "isValidSignature, which this server's key signature does not satisfy, "
                "so off-chain requests are not signed for it"
                if code
                else ""
            )
        return self._signer_refusal

    def prepaid(self, payment_type: str) -> int:
        """This requester's prepaid balance for a payment type (blocking).

        :param payment_type: 0x + 64 hex.
        :return: ``mapRequesterBalances(requester)`` of its tracker, smallest units
            (``MarketError`` when it cannot be read).
        """
        return self.payer.funds(payment_type).prepaid

    def prepare(  # pylint: disable=too-many-arguments,too-many-positional-arguments
        self,
        key: str,
        tool: str,
        mech: str,
        price: int,
        payment_type: str,
        cid: str,
        digest: str,
        endpoint: str,
        nonce: Optional[int] = None,
    ) -> JournalEntry:
        """Derive the request id and sign it (blocking); nothing is posted.

        :param key: the call key.
        :param tool: the mech tool name.
        :param mech: the mech contract.
        :param price: its price now (the delivery rate signed).
        :param payment_type: 0x + 64 hex.
        :param cid: the payload's CID.
        :param digest: the payload's digest, 0x + 64 hex (the request data).
        :param endpoint: the mech's validated endpoint.
        :param nonce: the requester's marketplace nonce to sign at (None:
            ``mapNonces(requester)`` now; the sender chooses it past the requests still
            outstanding: ``.outstanding``).
        :return: the entry to journal before posting (status ``prepared``).
        """
        market = self.market
        if nonce is None:
            nonce = market.market_nonce()
        rid = request_id(
            self.chain_id(),
            market.address,
            mech,
            market.requester,
            bytes.fromhex(digest[2:]),
            price,
            bytes.fromhex(payment_type[2:]),
            nonce,
        )
        return JournalEntry(
            key=key,
            tool=tool,
            mech=mech,
            price=price,
            payment_type=payment_type,
            cid=cid,
            data=digest,
            market_nonce=nonce,
            request_id="0x" + rid.hex(),
            from_block=market.head(),
            extra={
                "offchain": {
                    "endpoint": endpoint,
                    "signature": market.sign_hash(rid),
                    "accepted": False,
                    # whose nonce it holds (.outstanding.Hold.owner)
                    "requester": market.requester,
                    "chain_id": self.chain_id(),
                }
            },
        )

    def post(
        self, entry: JournalEntry, payload: Dict[str, Any], wait: float = POST_SECONDS
    ) -> Optional[OffchainRefusal]:
        """Post a prepared entry's signed request to its mech's endpoint (blocking).

        :param entry: the journalled entry (``extra.offchain``).
        :param payload: the request payload (sent as ``ipfs_data``).
        :param wait: seconds the post may take.
        :return: None when the mech accepted the request, else why not (a 402 in words,
            a hostile or broken answer); nothing is paid then.
        """
        offchain = entry.extra["offchain"]
        endpoint = offchain["endpoint"]
        form = {
            "request_id": str(int(entry.request_id, 16)),
            "ipfs_hash": entry.data,
            "ipfs_data": json.dumps(payload, sort_keys=True),
            "sender": self.market.requester,
            "delivery_rate": str(entry.price),
            "nonce": str(entry.market_nonce),
            "signature": offchain["signature"],
        }
        where = f"mech {entry.mech}'s endpoint {endpoint}"
        refusal, addresses = self._checked_addresses(endpoint)
        if refusal:
            unsent = OffchainRefusal(f"{where} is not posted to: {refusal}")
            unsent.unsent = True
            return unsent
        # the post connects to the checked addresses only: the name is not resolved again
        with pinned_session(addresses) as session:
            try:
                body, status = post_form_json(
                    session,
                    f"{endpoint}/{SEND_ROUTE}",
                    form,
                    wait,
                    MAX_ACCEPT_BYTES,
                    MAX_ACCEPT_DEPTH,
                    ok=(200, 402),
                )
            except AnswerError as exc:
                failed = OffchainRefusal(f"{where} {exc}")
                # no connection: not one byte of this post left this host
                failed.unsent = exc.kind == "not_connected"
                return failed
        if status == 402:
            text, believed = self._challenge_text(entry, body, where)
            refusal = OffchainRefusal(text)
            refusal.challenged = believed
            return refusal
        if (
            not isinstance(body, dict)
            or str(body.get("request_id")) != form["request_id"]
        ):
            return OffchainRefusal(
                f"{where} answered 200 without accepting request "
                f"{form['request_id']} (another or no request_id)"
            )
        return None

    def own_request_id(self, entry: JournalEntry) -> str:
        """The id this requester's signed request of an entry has (blocking: chain id).

        :param entry: an off-chain entry.
        :return: 0x + 64 hex, as ``getRequestId`` derives it with this requester.
        """
        market = self.market
        rid = request_id(
            self.chain_id(),
            market.address,
            entry.mech,
            market.requester,
            bytes.fromhex(entry.data[2:]),
            entry.price,
            bytes.fromhex(entry.payment_type[2:]),
            entry.market_nonce,
        )
        return "0x" + rid.hex()

    def never_settleable(
        self, entries: Sequence[JournalEntry]
    ) -> Dict[str, Dict[str, int]]:
        """Which signed, unaccepted requests the chain shows can never be settled (blocking).

        ``deliverMarketplaceWithSignatures`` (ai-registry-mech 0.8.28,
        ``MechMarketplace._deliverMarketplaceWithSignatures``) derives each request id
        with the requester's current ``mapNonces`` (plus its place in the batch) and
        raises ``mapNonces`` past the batch; ``request`` raises it too, and nothing
        lowers it. So a request signed at nonce ``n`` can be settled only while
        ``mapNonces(requester) <= n``. Both are read at one block ``B`` (the head): a
        nonce past ``n`` at ``B`` with the request's ``getRequestStatus`` still
        ``DoesNotExist`` at ``B`` means it was not settled by ``B`` and can never be
        after. An entry whose id is not this requester's (a journal of another key) is
        left counted.

        :param entries: unaccepted off-chain entries.
        :return: ``{key: {"market_nonce": nonce at B, "block": B}}`` for each such
            request (``MarketError`` is raised when the chain cannot be read).
        """
        if not entries:
            return {}
        market = self.market
        block = market.head()
        nonce = market.market_nonce(block=block)
        found: Dict[str, Dict[str, int]] = {}
        for entry in entries:
            if entry.market_nonce >= nonce or entry.market_nonce < 0:
                continue  # may still be settled (or not a signed request's nonce)
            if self.own_request_id(entry) != entry.request_id:
                continue
            if market.status(entry.request_id, block=block) != STATUS_DOES_NOT_EXIST:
                continue  # settled: paid
            found[entry.key] = {"market_nonce": nonce, "block": block}
        return found

    def _checked_addresses(self, endpoint: str) -> Tuple[str, List[str]]:
        """Resolve an endpoint's host once and check every address (blocking).

        The post then connects to these addresses only (``adapters.http.pinned_session``),
        so a name that answers otherwise when resolved again (DNS rebinding) is never
        reached at another address. On a local development chain
        (``DEVELOPMENT_CHAIN_IDS``) any address is posted to: the devnet's stand-in
        endpoint is on this machine. Elsewhere every address must be an internet one
        (``private_address_refusal``).

        :param endpoint: the validated endpoint.
        :return: the reason it is not posted to ("" when it is), and the addresses.
        """
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            addresses = self.resolve(host, port)
        except (OSError, ValueError) as exc:
            return f"its host {host} does not resolve ({type(exc).__name__})", []
        if not addresses:
            return f"its host {host} resolves to no address", []
        try:
            if self.chain_id() in DEVELOPMENT_CHAIN_IDS:
                return "", addresses
        except MarketError as exc:
            return f"the chain id could not be read ({exc})", []
        return private_address_refusal(host, addresses), addresses

    def _challenge_text(
        self, entry: JournalEntry, body: Any, where: str
    ) -> Tuple[str, bool]:
        """The 402 answer in words: a believed challenge, or why it is hostile.

        :param entry: the refused entry.
        :param body: the 402's JSON body.
        :param where: the mech and endpoint, for the text.
        :return: the error text (nothing was paid), and whether the challenge is
            believed.
        """
        try:
            challenge = parse_challenge(body)
        except ChallengeError as exc:
            return (
                f"{where} answered 402 with no valid olas-prepay challenge ({exc})",
                False,
            )
        try:
            block = self.market.head()  # the balance is read at this block or later
            funds = self.payer.funds(entry.payment_type)
        except MarketError as exc:
            return f"{where} answered 402, and {exc}", False
        refusal = challenge_refusal(
            challenge, funds.tracker, self.chain_id(), entry.price
        )
        if refusal:
            return (
                f"{where} answered 402 with a challenge this server does not believe: "
                f"{refusal}; nothing was deposited",
                False,
            )
        symbol = payment_terms(entry.payment_type).symbol or "wei"
        decimals = funds.decimals
        short = max(entry.price - funds.prepaid, 0)
        if not short:
            # the chain contradicts the mech: no deposit is advised (--auto-prepay, which
            # reads the balance itself, deposits nothing for it either)
            return (
                f"{where} answered 402, which the chain contradicts: this requester's "
                f"prepaid balance {_units(funds.prepaid, decimals)} {symbol} >= the "
                f"price {_units(entry.price, decimals)} {symbol} on tracker "
                f"{funds.tracker} (read at block {block} or later); the mech refused "
                "a request the balance covers: try another mech (no prepayment is "
                "needed)",
                True,
            )
        return (
            f"{where} needs a prepaid balance: prepaid "
            f"{_units(funds.prepaid, decimals)} {symbol} < "
            f"{_units(entry.price, decimals)} {symbol} required on tracker "
            f"{funds.tracker}; "
            + PREPAY_HINT.format(mech=entry.mech, amount=_units(short, decimals))
            + " (or serve with --auto-prepay, or without --offchain only)",
            True,
        )


def release_unsettleable(
    poster: OffchainPoster, journal: Journal, records: Sequence[PaidRecord]
) -> List[JournalEntry]:
    """Mark the unaccepted off-chain requests that can never be settled (blocking).

    Call it holding the journal's send lock. Each record with an ``unsettled_nonce``
    (an off-chain request its mech did not accept) is checked on chain
    (:meth:`OffchainPoster.never_settleable`); one that can never be settled gets
    ``extra.offchain.released`` (the nonce and block that show it) and counts nothing
    from then on. A chain that cannot be read releases nothing (logged): the requests
    keep counting, the safe side.

    :param poster: the poster (its marketplace and requester).
    :param journal: the journal the records were read from.
    :param records: the journal's records (``spending.JournalIndex.records``).
    :return: the entries released now.
    """
    entries: List[JournalEntry] = []
    for record in records:
        if record.unsettled_nonce < 0 or not record.key:
            continue
        try:
            entry = journal.load(record.key)
        except JournalError:
            continue  # counted as unreadable by the cap already
        if entry is not None and entry.request_id == record.request_id:
            entries.append(entry)
    try:
        found = poster.never_settleable(entries)
    except MarketError as exc:
        LOGGER.warning(
            "whether %d refused off-chain request(s) can still be settled was not "
            "read (%s); they keep counting against --max-spend",
            len(entries),
            exc,
        )
        return []
    released = []
    for entry in entries:
        if entry.key in found:
            entry.extra["offchain"]["released"] = found[entry.key]
            journal.save(entry)
            released.append(entry)
            LOGGER.info(
                "off-chain request %s to mech %s (signed at nonce %d, not accepted) can "
                "never be settled: the requester's nonce is %d at block %d and the "
                "request does not exist; it no longer counts against --max-spend",
                entry.request_id,
                entry.mech,
                entry.market_nonce,
                found[entry.key]["market_nonce"],
                found[entry.key]["block"],
            )
    return released


def record_passed(
    poster: OffchainPoster, journal: Journal, records: Sequence[PaidRecord]
) -> List[JournalEntry]:
    """Record when the requester's nonce was first seen past journalled requests (blocking).

    Call it holding the journal's send lock. The marketplace charges an off-chain
    request when its mech settles it, which moves the nonce past it; this server does
    not see when. For each record :func:`.spend_cap.passed_unseen` names, the nonce and
    each of its requests' ``getRequestStatus`` are read at one block ``B``; when the
    nonce is past its requests, ``extra.offchain`` gets :data:`.outstanding.
    PASSED_SEEN_KEY` (now, ``B``, the nonce, and whether one was settled: a time at or
    after the settlement), so the spending cap counts it within the window from then
    (:meth:`.spend_cap.SpendLedger.count_journal`), in every server on the folder and
    after a restart. A chain that cannot be read, or a write that fails, records
    nothing (logged): the requests keep counting, the safe side; so does an entry whose
    request id is not this requester's (a journal of another key).

    :param poster: the poster (its marketplace and requester).
    :param journal: the journal the records were read from.
    :param records: the journal's records (``spending.JournalIndex.records``).
    :return: the entries recorded now.
    """
    now = time.time()
    unseen = passed_unseen(records, now)
    if not unseen:
        return []
    market = poster.market
    try:
        owner = owner_text(market.requester, poster.chain_id())
        block = market.head()
        nonce = market.market_nonce(block=block)
        entries: List[JournalEntry] = []
        # only the records the nonce passed are read from their files: one still
        # outstanding stays as it is, and most calls find none passed
        for record in unseen:
            mine = [hold for hold in record.holds if hold.held_by(owner)]
            if not mine or any(hold.nonce >= nonce for hold in mine):
                continue  # may still be settled (or another requester's)
            try:
                entry = journal.load(record.key)
            except JournalError:
                continue  # counted as unreadable by the cap already
            # an entry of another key (written before entries named their requester)
            # is left counted, as ``release_unsettleable`` leaves it
            if (
                entry is not None
                and entry.request_id == record.request_id
                and poster.own_request_id(entry) == entry.request_id
            ):
                entries.append(entry)
        passed = {}
        for entry in entries:
            mine = [hold for hold in holds_of(entry) if hold.held_by(owner)]
            # recorded meanwhile by another server (a delivered entry's file time is
            # not: a candidate's was later than now)
            seen, _ = passed_seen(entry, float("inf"))
            if not mine or any(hold.nonce >= nonce for hold in mine):
                continue
            if seen is not None and seen <= now:
                continue
            passed[entry.key] = any(
                market.status(hold.request_id, block=block) != STATUS_DOES_NOT_EXIST
                for hold in mine
            )
    except MarketError as exc:
        LOGGER.warning(
            "whether %d off-chain request(s) were settled was not read (%s); they keep "
            "counting against --max-spend",
            len(unseen),
            exc,
        )
        return []
    done = []
    for entry in entries:
        if entry.key not in passed:
            continue
        entry.extra["offchain"][PASSED_SEEN_KEY] = {
            "at": time.time(),
            "block": block,
            "market_nonce": nonce,
            "settled": passed[entry.key],
        }
        try:
            journal.save(entry)
        except OSError as exc:  # filelock.Timeout included
            LOGGER.warning(
                "journal entry %s could not be written (%s); its off-chain request "
                "keeps counting against --max-spend",
                entry.key,
                exc,
            )
            continue
        done.append(entry)
        LOGGER.info(
            "off-chain request %s to mech %s (nonce %d): the requester's nonce is %d at "
            "block %d, and it %s",
            entry.request_id,
            entry.mech,
            entry.market_nonce,
            nonce,
            block,
            (
                "was settled: it counts against --max-spend within --spend-window "
                "from now"
                if passed[entry.key]
                else "was never settled (nor can be): it counts nothing"
            ),
        )
    return done
