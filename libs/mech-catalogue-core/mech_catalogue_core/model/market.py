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

"""Marketplace facts of one mech contract: where to send a request, what it costs, its record.

Every value is read from the chain (:mod:`..chain.marketplace` says which call fills which
field). A value that could not be read is ``None`` and its field is named in
:attr:`MechFacts.unread` with a reason code; a 0 is always a value the chain returned.
"""

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple

from mech_catalogue_core.model.vocabulary import MechLiveness

#: where the mech was found
MECH_KIND_MARKETPLACE = "marketplace"  # MechMarketplace ``CreateMech`` event
MECH_KIND_LEGACY = "legacy"  # the legacy AgentFactory's ``CreateMech`` event
#: a legacy mech's payment wherever a person reads it (``list``, the catalogue page): the
#: legacy AgentMech has no ``paymentType()``; its ``request`` takes the price as native value
LEGACY_PAYMENT_NAME = "legacy (native)"
#: the payment of a marketplace mech whose ``paymentType()`` was not read
UNREAD_PAYMENT_NAME = "unread"

#: why a field is None (values of :attr:`MechFacts.unread`)
UNREAD_CALL_FAILED = "call_reverted"  # the contract call reverted or does not exist
UNREAD_UNDECODABLE = "return_undecodable"  # the return did not decode as the ABI says
UNREAD_NOT_APPLICABLE = "not_applicable"  # the contract kind has no such value
UNREAD_NO_OPERATOR = (
    "no_operator"  # getOperator() unknown, so the per-service count is too
)
UNREAD_NO_KARMA = "karma_contract_unknown"  # MechMarketplace.karma() could not be read

#: payment type hashes (``paymentType()``) -> name, as mech-interact v0.32.3 names them
#: (``behaviours/request.py`` ``PaymentType``); an unknown hash keeps name "".
PAYMENT_TYPE_NAMES: Mapping[str, str] = {
    "0xba699a34be8fe0e7725e93dcbce1701b0211a8ca61330aaeb8a05bf2ec7abed1": "native",
    "0x3679d66ef546e66ce9057c4a052f317b135bc8e8c509638f7966edfd4fcf45e9": "token_olas",
    "0x6406bb5f31a732f898e1ce9fdd988a80a808d36ab5d9a4a4805a8be8d197d5e3": "token_usdc",
    "0x803dd08fe79d91027fc9024e254a0942372b92f3ccabc1bd19f4a5c2b251c316": "native_nvm",
    "0x0d6fd99afa9c4c580fab5e341922c2a5c4b61d880da60506193d7bf88944dd14": "token_nvm_usdc",
}

_COUNTS = (
    "max_delivery_rate",
    "requests",
    "deliveries",
    "marketplace_deliveries",
    "service_deliveries",
    "karma",
)


@dataclass(frozen=True, slots=True)
class MechFacts:  # pylint: disable=too-many-instance-attributes
    """What the chain says about one mech contract, read at one block.

    :param address: the mech contract address, lowercase 0x hex.
    :param kind: :data:`MECH_KIND_MARKETPLACE` or :data:`MECH_KIND_LEGACY`.
    :param service_id: the service id (marketplace: ``serviceId()``) or agent id (legacy:
        ``tokenId()``) the mech belongs to; from the creation event when the read failed.
    :param block: the block every value was read at (None: never read).
    :param confirmed: the contract read confirmed the creation event (marketplace:
        ``mapAgentMechFactories(mech)`` equals the event's factory; legacy: ``tokenId()``
        equals the event's agent id). Unconfirmed mechs are never offered to consumers.
    :param mech_factory: the factory that created it ("" for legacy mechs).
    :param max_delivery_rate: price of one request in the payment type's smallest unit
        (wei for native): marketplace ``maxDeliveryRate()``, legacy ``price()``.
    :param payment_type: ``paymentType()`` as 0x + 64 hex ("" when unread or legacy).
    :param requests: the mech's ``numTotalRequests()``.
    :param deliveries: the mech's ``numTotalDeliveries()``.
    :param marketplace_deliveries: ``MechMarketplace.mapMechDeliveryCounts(mech)``.
    :param service_deliveries: ``MechMarketplace.mapMechServiceDeliveryCounts(operator)``
        (every delivery by the mech's service multisig, for any mech).
    :param karma: ``Karma.mapMechKarma(mech)`` (signed).
    :param operator: ``getOperator()``, the service multisig ("" when unread).
    :param created_block: the block of the mech's ``CreateMech`` event (None: not known,
        e.g. facts written before it was recorded). The one fact here nobody can buy
        later: an earlier creation block than an existing mech's cannot be had at any
        price, which is why offers are ranked on it (``docs/mcp.md``).
    :param last_delivery_block: the block of the mech's latest marketplace delivery event
        read up to the agreed block's confirmed blocks (``chain.marketplace``
        discovery; None: none seen, or never read, as for legacy mechs). Written in
        :meth:`to_dict` only when known, so facts without it keep their digest.
    :param unread: ``(field, reason)`` for every field left None, field order.
    """

    address: str
    kind: str = MECH_KIND_MARKETPLACE
    service_id: Optional[int] = None
    block: Optional[int] = None
    confirmed: bool = False
    mech_factory: str = ""
    max_delivery_rate: Optional[int] = None
    payment_type: str = ""
    requests: Optional[int] = None
    deliveries: Optional[int] = None
    marketplace_deliveries: Optional[int] = None
    service_deliveries: Optional[int] = None
    karma: Optional[int] = None
    operator: str = ""
    unread: Tuple[Tuple[str, str], ...] = ()
    created_block: Optional[int] = None
    last_delivery_block: Optional[int] = None

    @property
    def payment_type_name(self) -> str:
        """Return the payment type's name (``native``...), "" when unknown or unread.

        :return: the name.
        """
        return PAYMENT_TYPE_NAMES.get(self.payment_type, "")

    @property
    def payment_name(self) -> str:
        """Return the payment as people read it, the same in ``list`` and on the page.

        :return: :data:`LEGACY_PAYMENT_NAME` for a legacy mech, else the type's name
            (``native``, ``token_olas``...), else the ``paymentType()`` hash as read (a
            type mech-interact does not name), else :data:`UNREAD_PAYMENT_NAME`.
        """
        if self.kind == MECH_KIND_LEGACY:
            return LEGACY_PAYMENT_NAME
        return self.payment_type_name or self.payment_type or UNREAD_PAYMENT_NAME

    @property
    def liveness(self) -> MechLiveness:
        """Return whether the mech answers, from its request and delivery counters.

        :return: :class:`MechLiveness`: ``delivering`` once it delivered, else
            ``never_delivered`` when it has requests, else ``no_requests``; ``unread``
            when a counter was not read; ``not_applicable`` for a legacy mech.
        """
        if self.kind == MECH_KIND_LEGACY:
            return MechLiveness.NOT_APPLICABLE
        if self.requests is None or self.deliveries is None:
            return MechLiveness.UNREAD
        if self.deliveries > 0:
            return MechLiveness.DELIVERING
        if self.requests > 0:
            return MechLiveness.NEVER_DELIVERED
        return MechLiveness.NO_REQUESTS

    @property
    def rankable(self) -> bool:
        """Whether mech-interact's ``MechInfo`` ranking can use these facts.

        Its score takes ``log(max_delivery_rate)``, so a rate below 1 (or unread) cannot
        be ranked; karma and the request counts must be facts, not defaults.

        :return: True when confirmed and every ranking input was read, rate >= 1.
        """
        return (
            self.confirmed
            and self.max_delivery_rate is not None
            and self.max_delivery_rate >= 1
            and self.karma is not None
            and self.requests is not None
            and self.deliveries is not None
        )

    def to_dict(self) -> Dict[str, Any]:
        """Return a JSON-serialisable dict (unread values are null, reasons in ``unread``).

        Chain integers (service id, rate, counts, karma, block) are decimal strings: a
        uint256 does not fit the JSON numbers RFC 8785 canonicalises (at most 2**53).

        :return: the facts.
        """

        def text(value: Optional[int]) -> Optional[str]:
            return None if value is None else str(value)

        return {
            "address": self.address,
            "kind": self.kind,
            "service_id": text(self.service_id),
            "block": text(self.block),
            "confirmed": self.confirmed,
            "mech_factory": self.mech_factory,
            "max_delivery_rate": text(self.max_delivery_rate),
            "payment_type": self.payment_type,
            "payment_type_name": self.payment_type_name,
            "requests": text(self.requests),
            "deliveries": text(self.deliveries),
            "marketplace_deliveries": text(self.marketplace_deliveries),
            "service_deliveries": text(self.service_deliveries),
            "karma": text(self.karma),
            "operator": self.operator,
            "unread": dict(self.unread),
            "created_block": text(self.created_block),
            **(
                {}
                if self.last_delivery_block is None
                else {"last_delivery_block": str(self.last_delivery_block)}
            ),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "MechFacts":
        """Return the facts.

        :param data: from :meth:`to_dict`.
        :return: the facts.
        """

        def number(key: str) -> Optional[int]:
            value = data.get(key)
            return None if value is None else int(value)

        counts = {key: number(key) for key in _COUNTS}
        return cls(
            address=str(data["address"]).lower(),
            kind=str(data.get("kind", MECH_KIND_MARKETPLACE)),
            service_id=number("service_id"),
            block=number("block"),
            created_block=number("created_block"),
            last_delivery_block=number("last_delivery_block"),
            confirmed=bool(data.get("confirmed", False)),
            mech_factory=str(data.get("mech_factory", "")),
            payment_type=str(data.get("payment_type", "")),
            operator=str(data.get("operator", "")),
            unread=tuple(
                (str(k), str(v)) for k, v in dict(data.get("unread", {})).items()
            ),
            **counts,
        )
