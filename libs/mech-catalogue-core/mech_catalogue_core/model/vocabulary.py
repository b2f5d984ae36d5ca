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

"""The enumerated words of the domain, each defined once.

Registry kinds, mech statuses, publish statuses and document kinds live here; problem codes are
:class:`.problems.ProblemCode`.

Every class is a :class:`enum.StrEnum`: a member *is* its string value, so it compares
equal to and hashes like that string, formats as it (``f"{x}"``, ``str(x)``), and
serialises as it in JSON and RFC 8785 canonical JSON. Swapping a plain string for a member
therefore changes no payload, no synchronized-data value and no catalogue digest. The
older module-level names are derived from these classes, never written again:
``REGISTRY_*`` in :mod:`.tool` and ``STATUS_*`` in :mod:`.catalogue` hold the members'
plain ``str`` values (they reach click options, which read an Enum member by its name);
``UP_TO_DATE`` and ``UPDATE`` in :mod:`..publish.publish` are the members themselves.
"""

from enum import StrEnum


class RegistryKind(StrEnum):
    """Which on-chain registry holds a mech's manifest hash (``MechRef.registry_kind``)."""

    #: AgentRegistry (``tokenURI``-style hash per agent id)
    OLAS_AGENT = "olas_agent_registry"
    #: the legacy mech AgentRegistry
    LEGACY_MECH = "legacy_mech_registry"
    #: ComplementaryServiceMetadata (hash per service id)
    COMPLEMENTARY_SERVICE = "complementary_service_metadata"


class MechStatus(StrEnum):
    """What happened to a mech's manifest this period (``Mech.status``)."""

    #: manifest fetched, verified, parsed (may carry warnings)
    OK = "ok"
    #: fetched and verified, but rejected (quarantined)
    INVALID = "invalid"
    #: bytes did not hash to the on-chain digest
    HASH_MISMATCH = "hash_mismatch"
    #: not fetched (yet): IPFS error or timeout
    UNAVAILABLE = "unavailable"
    #: the registry holds no hash for this id
    NO_HASH = "no_hash"


class PublishStatus(StrEnum):
    """Outcome of preparing the service's own manifest for the on-chain hash update.

    The ``status`` of ``PublishPreparePayload`` and the ``publish_status`` key of the
    synchronized data; :func:`..publish.publish.decide` returns ``UP_TO_DATE`` or
    ``UPDATE``.
    """

    DISABLED = "disabled"
    UP_TO_DATE = "up_to_date"
    UPDATE = "update"
    INVALID_MANIFEST = "invalid_manifest"
    MECH_NOT_FOUND = "mech_not_found"
    NOT_AUTHORISED = "not_authorised"
    READ_FAILED = "read_failed"


class MechLiveness(StrEnum):
    """Whether a mech contract answers, from its on-chain counters (``MechFacts.liveness``).

    Read from ``numTotalRequests()`` and ``numTotalDeliveries()`` (no timestamps: the chain
    keeps none; mech-interact's own liveness uses the subgraph's last delivery time).
    """

    #: it has delivered (``numTotalDeliveries() > 0``)
    DELIVERING = "delivering"
    #: requests were addressed to it and it never delivered one
    NEVER_DELIVERED = "never_delivered"
    #: no request was ever addressed to it
    NO_REQUESTS = "no_requests"
    #: a counter could not be read
    UNREAD = "unread"
    #: a legacy mech: it keeps no request or delivery counters
    NOT_APPLICABLE = "not_applicable"


class DocumentKind(StrEnum):
    """What a document read as a manifest is (``manifest.documents.document_kind``).

    ``validate`` reports it as ``document``; docs/manifest-spec.md sections 3 and 8.
    """

    #: the v1 shape: ``tools`` (and ``toolMetadata``)
    MANIFEST = "manifest"
    #: registry NFT metadata: ``code_uri``/``attributes``, tools as JSON in ``description``
    NFT_METADATA = "nft_metadata"
    #: no ``tools``: tool objects as JSON in the top-level ``description``
    DESCRIBED_TOOLS = "described_tools"
    #: one tool object ``{name, kwargs | arguments}``, read as a one-tool manifest
    SINGLE_TOOL = "single_tool"


class CallStatus(StrEnum):
    """Where a paid MCP call stands (the ``status`` of its call journal entry).

    The MCP server's journal (``mech_catalogue_cli/mcp_server/market.py``) writes one
    entry per call; a retry reads it before anything is paid.
    """

    #: the request id is derived and the transaction signed; not known to be mined
    PREPARED = "prepared"
    #: the request transaction was mined (or the request was found on chain): paid
    SENT = "sent"
    #: the response was fetched and verified
    DELIVERED = "delivered"


class SearchSort(StrEnum):
    """How a catalogue search orders its matches (``search.query.SearchQuery.sort``).

    Every order ends with the same tie-break (tool name, then mech ref), so equal keys
    give the same page on every agent.
    """

    #: best BM25 score first (catalogue order, name then mech, when no text is given)
    RELEVANCE = "relevance"
    #: cheapest known ``maxDeliveryRate`` first, unpriced offers last; then relevance
    PRICE = "price"
    #: highest karma first (``search.query.highest_karma``), unread karma last; then
    #: relevance. Karma is bought by wash trading (docs/mcp.md): a buyable signal
    KARMA = "karma"
    #: latest delivery first (``search.query.latest_delivery``: the block of the mech's
    #: latest marketplace delivery event), mechs with none known last; then relevance
    RECENT = "recent"


class PaymentWay(StrEnum):
    """How a requester pays a mech of one payment type (``model.payment.PaymentTerms.way``).

    From ai-registry-mech ``contracts/`` (0.8.28): the balance tracker the
    MechMarketplace finds for the type (``mapPaymentTypeBalanceTrackers``) takes native
    value (``BalanceTrackerFixedPriceNative``), pulls an ERC-20 with ``transferFrom``
    (``BalanceTrackerFixedPriceToken``, reverting on any value), or burns subscription
    credits (``BalanceTrackerNvmSubscription*``).
    """

    #: ``msg.value`` with ``request`` (or a prepaid tracker balance)
    NATIVE = "native"
    #: ERC-20 ``approve(tracker)``, then ``request`` pulls what the prepaid balance lacks
    TOKEN = "token"
    #: Nevermined subscription credits (ERC-1155), burnt per request
    SUBSCRIPTION = "subscription"
    #: a ``paymentType()`` no ai-registry-mech mech declares, or one that was not read
    UNKNOWN = "unknown"


class PaymentStatus(StrEnum):
    """Whether this requester can pay an offer now (``model.payment.Payment.status``)."""

    #: the wallet and allowance (or prepaid balance) cover the price: request as is
    PAYABLE = "payable"
    #: the balance covers the price, the allowance does not: approve the shortfall first
    NEEDS_APPROVAL = "needs_approval"
    #: neither the prepaid balance nor the wallet covers the price
    SHORT_BALANCE = "short_balance"
    #: the price is known, the requester's balances were not read (catalogue view)
    UNCHECKED = "unchecked"
    #: the price could not be read, or is 0
    PRICE_UNREAD = "price_unread"
    #: a payment type this software does not know (or a deposit into a tracker that
    #: takes none: subscriptions)
    UNSUPPORTED = "unsupported"
    #: a deposit larger than the cap the user gave (``prepay --max-amount``)
    OVER_CAP = "over_cap"
