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

"""Reading marketplace facts (mech addresses, prices, payment types, counts, karma) from chain.

Framework-free like :mod:`.registry`: this module builds log queries and Multicall2 call
data and decodes what comes back; whoever talks to the node (the skill's behaviour, the
CLI, a test through web3) runs them.

Two steps:

1. **Discovery** (:func:`discover_mechs`): ``MechMarketplace`` emits
   ``CreateMech(address indexed mech, uint256 indexed serviceId, address indexed
   mechFactory)`` for every mech it creates; the legacy ``AgentFactory`` emits
   ``CreateMech(address indexed mech, uint256 indexed agentId, uint256 indexed price)``.
   Logs are read in ranges of at most ``max_range`` blocks, from a checkpoint up to
   ``head - confirmations`` (blocks newer than that may still be reorganised away), and
   the checkpoint (next block to read + the mechs found) is kept by the caller between
   periods, so each period reads only the blocks it has not read.
2. **Facts** (:func:`facts_reader`): at one block, through Multicall2
   ``tryBlockAndAggregate(false, ...)``, two rounds of batched calls:

=========================  =================================================================
:class:`MechFacts` field    contract value (marketplace mech / legacy mech)
=========================  =================================================================
``confirmed``              ``MechMarketplace.mapAgentMechFactories(mech)`` == the event's
                           factory / legacy ``tokenId()`` == the event's agent id
``service_id``             ``mech.serviceId()`` / ``mech.tokenId()``
``max_delivery_rate``      ``mech.maxDeliveryRate()`` / ``mech.price()`` (wei per request)
``payment_type``           ``mech.paymentType()`` / not applicable
``requests``               ``mech.numTotalRequests()`` / not applicable
``deliveries``             ``mech.numTotalDeliveries()`` / not applicable
``marketplace_deliveries`` ``MechMarketplace.mapMechDeliveryCounts(mech)`` / n.a.
``operator``               ``mech.getOperator()`` (the service multisig) / n.a.
``service_deliveries``     ``MechMarketplace.mapMechServiceDeliveryCounts(operator)`` / n.a.
``karma``                  ``Karma.mapMechKarma(mech)``, Karma = ``MechMarketplace.karma()``
                           / not applicable
``created_block``          the ``CreateMech`` event's block (discovery, not a call)
``last_delivery_block``    the latest ``MarketplaceDelivery`` /
                           ``MarketplaceDeliveryWithSignatures`` naming the mech
                           (discovery, not a call) / never read
=========================  =================================================================

Round one holds ``karma()`` and 8 calls per mech; round two ``mapMechKarma`` and, for
mechs with an operator, ``mapMechServiceDeliveryCounts`` (they need round one's Karma
address and operator). So ``n`` mechs cost at most ``ceil((1 + 8n) / batch_size) +
ceil(2n / batch_size)`` ``eth_call`` s: two while ``8n + 1 <= batch_size``
(``scripts/bench_marketplace.py``: 303 devnet mechs, 2 calls at batch size 5000, 16 at 200).
"""

from dataclasses import dataclass, replace
from typing import Any, Dict, Generator, List, Mapping, Optional, Sequence, Tuple

from eth_utils import keccak
from mech_catalogue_core.chain.read_apart import (
    POOL,
    MechsReadApart,
    batches_placed,
)
from mech_catalogue_core.chain.registry import (
    BatchReply,
    BatchRequest,
    Call,
    RegistryDecodeError,
    block_number_call,
    chunks,
    encode_call,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)
from mech_catalogue_core.model.market import (
    MECH_KIND_LEGACY,
    MECH_KIND_MARKETPLACE,
    UNREAD_CALL_FAILED,
    UNREAD_NO_KARMA,
    UNREAD_NO_OPERATOR,
    UNREAD_NOT_APPLICABLE,
    UNREAD_UNDECODABLE,
    MechFacts,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    REGISTRY_LEGACY_MECH,
)

CREATE_MECH_SIGNATURE = "CreateMech(address,uint256,address)"
LEGACY_CREATE_MECH_SIGNATURE = "CreateMech(address,uint256,uint256)"
CREATE_MECH_TOPIC = "0x" + keccak(text=CREATE_MECH_SIGNATURE).hex()
#: MechMarketplace's delivery events (ai-registry-mech v0.8.28 ``MechMarketplace``):
#: ``MarketplaceDelivery(address indexed deliveryMech, address[] indexed requesters,
#: uint256 numDeliveries, bytes32[] requestIds, bool[] deliveredRequests)`` for on-chain
#: deliveries, ``MarketplaceDeliveryWithSignatures(address indexed deliveryMech, address
#: indexed requester, uint256 numDeliveries, bytes32[] requestIds)`` for off-chain
#: requests delivered with their signatures; the delivering mech is ``topics[1]``
#: (open-autonomy's MechMarketplace build leaves ``requesters`` unindexed: two topics)
DELIVERY_SIGNATURES = (
    "MarketplaceDelivery(address,address[],uint256,bytes32[],bool[])",
    "MarketplaceDeliveryWithSignatures(address,address,uint256,bytes32[])",
)
DELIVERY_TOPICS = tuple("0x" + keccak(text=s).hex() for s in DELIVERY_SIGNATURES)
LEGACY_CREATE_MECH_TOPIC = "0x" + keccak(text=LEGACY_CREATE_MECH_SIGNATURE).hex()

#: blocks below the head that are not read yet (a reorg deeper than this is not handled)
DEFAULT_CONFIRMATIONS = 5
#: most blocks one ``eth_getLogs`` covers (public RPCs refuse wide ranges)
DEFAULT_MAX_LOG_RANGE = 10_000

_ZERO_ADDRESS = "0x" + "00" * 20


class MarketplaceConfigError(ValueError):
    """The marketplace configuration is unusable; the message names the field."""


class MarketplaceLogError(ValueError):
    """A log returned for a creation-event query is not that event (wrong topics or data)."""


@dataclass(frozen=True)
class MarketplaceSource:
    """Where the mechs of one chain are created.

    :param chain_id: EIP-155 chain id.
    :param marketplace: MechMarketplace address ("" when the chain has none), lowercase.
    :param first_block: the block MechMarketplace was deployed at (log reads start there;
        a parameter, since the agent cannot look it up: 0 reads from genesis).
    :param legacy_factory: the legacy AgentFactory address ("" when none).
    :param legacy_first_block: the block the legacy factory was deployed at.
    :param confirmations: blocks below the head left unread (reorg margin, >= 0).
    :param max_range: most blocks per log query (>= 1).
    """

    chain_id: int
    marketplace: str = ""
    first_block: int = 0
    legacy_factory: str = ""
    legacy_first_block: int = 0
    confirmations: int = DEFAULT_CONFIRMATIONS
    max_range: int = DEFAULT_MAX_LOG_RANGE

    def __post_init__(self) -> None:
        """Check the numbers and addresses.

        :raises MarketplaceConfigError: naming the bad field.
        """
        for name in ("marketplace", "legacy_factory"):
            value = getattr(self, name)
            if value and not (
                isinstance(value, str)
                and value.startswith("0x")
                and len(value) == 42
                and all(c in "0123456789abcdefABCDEF" for c in value[2:])
            ):
                raise MarketplaceConfigError(
                    f"{name} must be a 0x-prefixed 20-byte hex address or empty; got {value!r}"
                )
            object.__setattr__(self, name, value.lower())
        if min(self.first_block, self.legacy_first_block, self.confirmations) < 0:
            raise MarketplaceConfigError(
                "first_block, legacy_first_block and confirmations must be >= 0"
            )
        if self.max_range < 1:
            raise MarketplaceConfigError(
                f"max_range must be >= 1 block; got {self.max_range}"
            )


@dataclass(frozen=True)
class MechCreation:
    """One creation event.

    :param address: the mech, lowercase.
    :param kind: :data:`MECH_KIND_MARKETPLACE` or :data:`MECH_KIND_LEGACY`.
    :param service_id: the event's service id (legacy: agent id).
    :param factory: the mech factory (legacy: the AgentFactory that emitted it).
    :param block: the block of the event.
    :param last_delivery_block: the block of the mech's latest delivery event read
        (:data:`DELIVERY_TOPICS`; None: none read; legacy mechs: never read).
    """

    address: str
    kind: str
    service_id: int
    factory: str
    block: int
    last_delivery_block: Optional[int] = None


@dataclass(frozen=True)
class DiscoveryCheckpoint:
    """What discovery has read so far; the caller keeps it between periods.

    :param next_block: marketplace logs are read from this block on.
    :param legacy_next_block: legacy factory logs are read from this block on.
    :param mechs: every mech found, in (block, address) order.
    """

    next_block: int = 0
    legacy_next_block: int = 0
    mechs: Tuple[MechCreation, ...] = ()

    def to_dict(self) -> Dict[str, Any]:
        """Return a JSON-serialisable dict.

        :return: the checkpoint.
        """
        return {
            "next_block": self.next_block,
            "legacy_next_block": self.legacy_next_block,
            "mechs": [
                [m.address, m.kind, m.service_id, m.factory, m.block]
                + ([] if m.last_delivery_block is None else [m.last_delivery_block])
                for m in self.mechs
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "DiscoveryCheckpoint":
        """Return the checkpoint.

        :param data: from :meth:`to_dict`.
        :return: the checkpoint.
        """
        return cls(
            int(data["next_block"]),
            int(data["legacy_next_block"]),
            tuple(
                MechCreation(
                    str(a), str(k), int(s), str(f), int(b), *(int(d) for d in delivery)
                )
                for a, k, s, f, b, *delivery in data["mechs"]
            ),
        )


@dataclass(frozen=True)
class LogQuery:
    """One ``eth_getLogs`` request: ``address``, ``topics[0]``, inclusive block range.

    :param address: the emitting contract.
    :param topic: ``topics[0]``, the event signature hash.
    :param from_block: first block (inclusive).
    :param to_block: last block (inclusive).
    """

    address: str
    topic: str
    from_block: int
    to_block: int


def start_checkpoint(source: MarketplaceSource) -> DiscoveryCheckpoint:
    """Return the checkpoint of a source that was never read.

    :param source: the source.
    :return: a checkpoint at the source's first blocks, with no mechs.
    """
    return DiscoveryCheckpoint(source.first_block, source.legacy_first_block)


def log_ranges(
    next_block: int, head: int, confirmations: int, max_range: int
) -> List[Tuple[int, int]]:
    """Cut the unread confirmed blocks into bounded ranges.

    :param next_block: the first block not read yet.
    :param head: the latest block number.
    :param confirmations: blocks below ``head`` left for later.
    :param max_range: most blocks per range (>= 1).
    :return: inclusive ``(from, to)`` ranges covering ``next_block..head-confirmations``,
        empty when nothing is confirmed yet.
    """
    last = head - confirmations
    return [
        (start, min(start + max_range - 1, last))
        for start in range(next_block, last + 1, max_range)
    ]


def _topic_int(topic: Any) -> int:
    raw = bytes.fromhex(topic[2:]) if isinstance(topic, str) else bytes(topic)
    if len(raw) != 32:
        raise MarketplaceLogError(f"topic of {len(raw)} bytes, expected 32")
    return int.from_bytes(raw, "big")


def _topic_address(topic: Any) -> str:
    value = _topic_int(topic)
    if value >> 160:
        raise MarketplaceLogError("an address topic has non-zero high bytes")
    return "0x" + value.to_bytes(20, "big").hex()


def decode_creation_log(log: Mapping[str, Any], kind: str) -> MechCreation:
    """Decode one ``CreateMech`` log.

    :param log: an ``eth_getLogs`` entry (``address``, ``topics``, ``blockNumber``; topics
        and numbers as 0x hex text or bytes/ints, as web3 returns them).
    :param kind: :data:`MECH_KIND_MARKETPLACE` or :data:`MECH_KIND_LEGACY`.
    :return: the creation.
    :raises MarketplaceLogError: when the log is not that event.
    """
    expected = (
        CREATE_MECH_TOPIC
        if kind == MECH_KIND_MARKETPLACE
        else (LEGACY_CREATE_MECH_TOPIC)
    )
    try:
        topics = list(log["topics"])
        if len(topics) != 4 or _topic_int(topics[0]) != int(expected, 16):
            raise MarketplaceLogError(
                f"log at block {log.get('blockNumber')} is not {kind} CreateMech"
            )
        block = log["blockNumber"]
        block = int(block, 16) if isinstance(block, str) else int(block)
        factory = (
            _topic_address(topics[3])
            if kind == MECH_KIND_MARKETPLACE
            else str(log["address"]).lower()
        )
        return MechCreation(
            _topic_address(topics[1]), kind, _topic_int(topics[2]), factory, block
        )
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, MarketplaceLogError):
            raise
        raise MarketplaceLogError(f"malformed {kind} CreateMech log: {exc}") from exc


def decode_delivery_log(log: Mapping[str, Any]) -> Tuple[str, int]:
    """Decode one MechMarketplace delivery log (:data:`DELIVERY_TOPICS`).

    :param log: an ``eth_getLogs`` entry (as :func:`decode_creation_log` takes).
    :return: ``(the delivering mech, lowercase; the log's block)``.
    :raises MarketplaceLogError: when the log is not one of those events.
    """
    try:
        topics = list(log["topics"])
        if (
            len(topics) not in (2, 3)
            or _topic_int(topics[0]) not in _DELIVERY_TOPIC_INTS
        ):
            raise MarketplaceLogError(
                f"log at block {log.get('blockNumber')} is not a marketplace delivery"
            )
        block = log["blockNumber"]
        block = int(block, 16) if isinstance(block, str) else int(block)
        return _topic_address(topics[1]), block
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, MarketplaceLogError):
            raise
        raise MarketplaceLogError(f"malformed marketplace delivery log: {exc}") from exc


_DELIVERY_TOPIC_INTS = frozenset(int(topic, 16) for topic in DELIVERY_TOPICS)


#: what :func:`discover_mechs` yields (one log query) and must be sent back (its logs)
Logs = Sequence[Mapping[str, Any]]


def _note_deliveries(found: Dict[str, MechCreation], logs: Logs) -> None:
    """Raise each delivering mech's ``last_delivery_block`` to its logs' latest block.

    A delivery by a mech discovery has not found (not created by the marketplace) is
    left out.

    :param found: address -> the mech's creation, updated in place.
    :param logs: one delivery query's logs (:func:`decode_delivery_log` raises
        MarketplaceLogError for a log that is not a delivery).
    """
    for log in logs:
        mech, block = decode_delivery_log(log)
        known = found.get(mech)
        if known is not None and block > (known.last_delivery_block or -1):
            found[mech] = replace(known, last_delivery_block=block)


def discover_mechs(
    source: MarketplaceSource, checkpoint: DiscoveryCheckpoint, head: int
) -> Generator[LogQuery, Logs, DiscoveryCheckpoint]:
    """Read the creation events not read yet; the caller runs each query as ``eth_getLogs``.

    A log that is not the event (a node bug or a wrong address) raises; a mech seen twice
    (a range read again after a restart) is kept once. Each marketplace range is also
    read for the marketplace's delivery events (:data:`DELIVERY_TOPICS`, one query
    each: three queries a range), which give each mech's ``last_delivery_block``: the
    range's logs are read up to the same ``head - confirmations`` as creations, so
    every agent reading the agreed block reads the same latest delivery.

    :param source: the marketplace (and legacy factory) of the chain.
    :param checkpoint: where the previous read stopped (:func:`start_checkpoint` at first).
    :param head: the latest block number.
    :yield: the log queries, oldest range first.
    :return: the advanced checkpoint: ``next_block = head - confirmations + 1`` (unchanged
        when nothing was confirmed). The generator raises MarketplaceLogError for a log
        that is not the event asked for.
    """
    found = {m.address: m for m in checkpoint.mechs}
    next_blocks = {
        MECH_KIND_MARKETPLACE: checkpoint.next_block,
        MECH_KIND_LEGACY: checkpoint.legacy_next_block,
    }
    plan = (
        (MECH_KIND_MARKETPLACE, source.marketplace, CREATE_MECH_TOPIC),
        (MECH_KIND_LEGACY, source.legacy_factory, LEGACY_CREATE_MECH_TOPIC),
    )
    for kind, address, topic in plan:
        if not address:
            continue
        ranges = log_ranges(
            next_blocks[kind], head, source.confirmations, source.max_range
        )
        for start, end in ranges:
            logs = yield LogQuery(address, topic, start, end)
            for log in logs:
                creation = decode_creation_log(log, kind)
                found.setdefault(creation.address, creation)
            if kind == MECH_KIND_MARKETPLACE:
                for delivery_topic in DELIVERY_TOPICS:
                    logs = yield LogQuery(address, delivery_topic, start, end)
                    _note_deliveries(found, logs)
            next_blocks[kind] = end + 1
    return DiscoveryCheckpoint(
        next_blocks[MECH_KIND_MARKETPLACE],
        next_blocks[MECH_KIND_LEGACY],
        tuple(sorted(found.values(), key=lambda m: (m.block, m.address))),
    )


# --- facts -------------------------------------------------------------------------------

_MECH_CALLS: Tuple[Tuple[str, str, str], ...] = (
    # (field, signature, output type), in round-one order per marketplace mech
    ("service_id", "serviceId()", "uint256"),
    ("max_delivery_rate", "maxDeliveryRate()", "uint256"),
    ("payment_type", "paymentType()", "bytes32"),
    ("requests", "numTotalRequests()", "uint256"),
    ("deliveries", "numTotalDeliveries()", "uint256"),
    ("operator", "getOperator()", "address"),
)
_LEGACY_CALLS: Tuple[Tuple[str, str, str], ...] = (
    ("service_id", "tokenId()", "uint256"),
    ("max_delivery_rate", "price()", "uint256"),
)
_LEGACY_NOT_APPLICABLE = (
    "payment_type",
    "requests",
    "deliveries",
    "marketplace_deliveries",
    "operator",
    "service_deliveries",
    "karma",
)


def _round_one(
    marketplace: str, mechs: Sequence[MechCreation]
) -> Tuple[List[Call], List[List[Tuple[str, Call]]]]:
    """Build round one: ``karma()`` first, then each mech's calls.

    :param marketplace: the MechMarketplace address ("" for legacy-only reads).
    :param mechs: the mechs.
    :return: ``(flat calls, per mech [(field, call)])``.
    """
    head: List[Call] = []
    if marketplace:
        head.append(encode_call(marketplace, "karma()", (), (), ("address",)))
    per_mech: List[List[Tuple[str, Call]]] = []
    for mech in mechs:
        if mech.kind == MECH_KIND_LEGACY:
            calls = [
                (name, encode_call(mech.address, sig, (), (), (out,)))
                for name, sig, out in _LEGACY_CALLS
            ]
        else:
            calls = [
                (
                    "mech_factory",
                    encode_call(
                        marketplace,
                        "mapAgentMechFactories(address)",
                        ("address",),
                        (mech.address,),
                        ("address",),
                    ),
                ),
                (
                    "marketplace_deliveries",
                    encode_call(
                        marketplace,
                        "mapMechDeliveryCounts(address)",
                        ("address",),
                        (mech.address,),
                        ("uint256",),
                    ),
                ),
            ] + [
                (name, encode_call(mech.address, sig, (), (), (out,)))
                for name, sig, out in _MECH_CALLS
            ]
        per_mech.append(calls)
    return head + [call for calls in per_mech for _, call in calls], per_mech


def _decoded(call: Call, result: Tuple[bool, bytes]) -> Tuple[Any, str]:
    """Decode one result.

    :param call: the call.
    :param result: ``(success, data)``.
    :return: ``(value, "")`` or ``(None, reason)``.
    """
    ok, data = result
    if not ok or not data:
        return None, UNREAD_CALL_FAILED
    try:
        return call.decode(data)[0], ""
    except RegistryDecodeError:
        return None, UNREAD_UNDECODABLE


def _value(name: str, raw: Any) -> Any:
    if name == "payment_type":
        return "0x" + bytes(raw).hex()
    if name in ("operator", "mech_factory"):
        return str(raw).lower()
    return int(raw)


def _run(
    calls: List[Call], batch_size: int, block: int
) -> Generator[BatchRequest, BatchReply, List[Tuple[bool, bytes]]]:
    results: List[Tuple[bool, bytes]] = []
    for batch in chunks(calls, batch_size):
        reply = yield batch, block
        results.extend(reply[1])
    return results


def _run_placed(
    calls: List[Call], batches: List[List[int]], block: int
) -> Generator[BatchRequest, BatchReply, List[Tuple[bool, bytes]]]:
    """Run index batches of ``calls``; the results in call order."""
    results: List[Tuple[bool, bytes]] = [(False, b"")] * len(calls)
    for indices in batches:
        reply = yield [calls[i] for i in indices], block
        for index, result in zip(indices, reply[1]):
            results[index] = result
    return results


def _round_one_batches(
    mechs: Sequence[MechCreation],
    per_mech: List[List[Tuple[str, Call]]],
    head: int,
    batch_size: int,
    read_apart: Optional[MechsReadApart],
) -> List[List[int]]:
    """Round one's index batches: the pool's first, mechs read apart after (:mod:`.read_apart`)."""
    mechs_calls: List[List[int]] = []
    at = head
    for calls in per_mech:
        mechs_calls.append(list(range(at, at + len(calls))))
        at += len(calls)
    places = (
        read_apart.places([mech.address for mech in mechs])
        if read_apart is not None
        else [POOL] * len(mechs)
    )
    return batches_placed(mechs_calls, places, list(range(head)), batch_size)


def _round_two(
    marketplace: str,
    karma_address: str,
    mechs: Sequence[MechCreation],
    facts: List[Dict[str, Any]],
    unread: List[Dict[str, str]],
) -> List[Tuple[int, str, Call]]:
    """Build round two (``mapMechKarma``, ``mapMechServiceDeliveryCounts``) from round one.

    :param marketplace: the MechMarketplace address.
    :param karma_address: Karma's address from ``karma()`` ("" when unread).
    :param mechs: the mechs.
    :param facts: round-one values per mech (read).
    :param unread: round-one reasons per mech (a reason is added when a call cannot be built).
    :return: ``(mech index, field, call)`` in call order.
    """
    wanted: List[Tuple[int, str, Call]] = []
    for index, (mech, values, reasons) in enumerate(zip(mechs, facts, unread)):
        if mech.kind == MECH_KIND_LEGACY:
            continue
        if karma_address:
            call = encode_call(
                karma_address,
                "mapMechKarma(address)",
                ("address",),
                (mech.address,),
                ("int256",),
            )
            wanted.append((index, "karma", call))
        else:
            reasons["karma"] = UNREAD_NO_KARMA
        operator = values.get("operator", "")
        if operator and operator != _ZERO_ADDRESS:
            call = encode_call(
                marketplace,
                "mapMechServiceDeliveryCounts(address)",
                ("address",),
                (operator,),
                ("uint256",),
            )
            wanted.append((index, "service_deliveries", call))
        else:
            reasons["service_deliveries"] = UNREAD_NO_OPERATOR
    return wanted


def facts_reader(  # pylint: disable=too-many-locals,too-many-arguments,too-many-positional-arguments
    marketplace: str,
    multicall: str,
    mechs: Sequence[MechCreation],
    batch_size: int,
    at_block: Optional[int] = None,
    read_apart: Optional[MechsReadApart] = None,
) -> Generator[BatchRequest, BatchReply, Tuple[int, List[MechFacts]]]:
    """Read every mech's facts at one block; drive it like :func:`.registry.snapshot_reader`.

    :param marketplace: the MechMarketplace address ("" when only legacy mechs are read).
    :param multicall: the Multicall2 address.
    :param mechs: the mechs to read (from :func:`discover_mechs`).
    :param batch_size: most calls per ``eth_call`` (>= 1).
    :param at_block: read at this block (the agreed one); None: the latest block, read first
        with one extra ``getBlockNumber()`` call.
    :param read_apart: where each mech's round-one calls go, learnt from the reads
        before (:class:`.read_apart.MechsReadApart`; the caller updates it with
        ``after_read``); None: every mech in batches of ``batch_size`` in order.
    :yield: ``(calls, block)`` batches.
    :return: ``(block, facts)``, facts in ``mechs`` order. Nothing raises for a reverting or
        garbage call: the field is None and named in ``unread``.
    """
    if at_block is None:
        reply = yield [block_number_call(multicall)], None
        block = int(reply[0])
    else:
        block = at_block
    first, per_mech = _round_one(marketplace, mechs)
    results = yield from _run_placed(
        first,
        _round_one_batches(
            mechs, per_mech, 1 if marketplace else 0, batch_size, read_apart
        ),
        block,
    )
    at = 0
    karma_address = ""
    if marketplace:
        value, _reason = _decoded(first[0], results[0])
        karma_address = "" if value in (None, _ZERO_ADDRESS) else str(value).lower()
        at = 1
    facts: List[Dict[str, Any]] = []
    unread: List[Dict[str, str]] = []
    for mech, calls in zip(mechs, per_mech):
        values: Dict[str, Any] = {}
        reasons: Dict[str, str] = {}
        for name, call in calls:
            value, reason = _decoded(call, results[at])
            at += 1
            if reason:
                reasons[name] = reason
            else:
                values[name] = _value(name, value)
        if mech.kind == MECH_KIND_LEGACY:
            reasons.update(
                {name: UNREAD_NOT_APPLICABLE for name in _LEGACY_NOT_APPLICABLE}
            )
        facts.append(values)
        unread.append(reasons)

    wanted = _round_two(marketplace, karma_address, mechs, facts, unread)
    second = [call for _, _, call in wanted]
    results = (yield from _run(second, batch_size, block)) if second else []
    for (index, name, call), result in zip(wanted, results):
        value, reason = _decoded(call, result)
        if reason:
            unread[index][name] = reason
        else:
            facts[index][name] = _value(name, value)
    return block, [
        _facts(mech, values, reasons, block)
        for mech, values, reasons in zip(mechs, facts, unread)
    ]


_FIELD_ORDER = (
    "service_id",
    "mech_factory",
    "max_delivery_rate",
    "payment_type",
    "requests",
    "deliveries",
    "marketplace_deliveries",
    "service_deliveries",
    "karma",
    "operator",
)


def _facts(
    mech: MechCreation, values: Dict[str, Any], reasons: Dict[str, str], block: int
) -> MechFacts:
    if mech.kind == MECH_KIND_LEGACY:
        confirmed = values.get("service_id") == mech.service_id
        factory = ""
        reasons.pop("mech_factory", None)
    else:
        factory = values.pop("mech_factory", "")
        confirmed = bool(factory) and factory == mech.factory
    service_id = values.pop("service_id", None)
    return MechFacts(
        address=mech.address,
        kind=mech.kind,
        service_id=mech.service_id if service_id is None else service_id,
        block=block,
        created_block=mech.block,
        last_delivery_block=mech.last_delivery_block,
        confirmed=confirmed,
        mech_factory=factory,
        unread=tuple((k, reasons[k]) for k in _FIELD_ORDER if k in reasons),
        **values,
    )


def attach_facts(catalogue: Catalogue, facts: Sequence[MechFacts]) -> Catalogue:
    """Put each mech contract's facts on the catalogue entry of its service / agent.

    Marketplace mechs go to the ComplementaryServiceMetadata entry whose id is their
    ``service_id``; legacy mechs to the legacy registry entry of their agent id. Facts of
    a service the catalogue does not hold are left out (the catalogue is about manifests).

    An entry whose facts are the ones it holds is kept as it is, and a catalogue none of
    whose entries change is returned itself: an entry's digest is computed once and kept
    with the entry, and the agent attaches facts every period (at 10,000 entries,
    recomputing them took seconds a period).

    :param catalogue: the catalogue.
    :param facts: the facts (any order).
    :return: the catalogue with each entry's facts (``catalogue`` itself when no entry's
        facts changed); entries without facts are unchanged (so is their digest part).
    """
    by_key: Dict[Tuple[str, int], List[MechFacts]] = {}
    for fact in facts:
        if fact.service_id is None:
            continue
        kind = (
            REGISTRY_LEGACY_MECH
            if fact.kind == MECH_KIND_LEGACY
            else REGISTRY_COMPLEMENTARY_SERVICE
        )
        by_key.setdefault((kind, fact.service_id), []).append(fact)
    mechs = []
    for mech in catalogue.mechs:
        marketplace = tuple(
            sorted(
                by_key.get((mech.ref.registry_kind, mech.ref.mech_id), ()),
                key=lambda f: f.address,
            )
        )
        mechs.append(
            mech
            if marketplace == mech.marketplace
            else replace(mech, marketplace=marketplace)
        )
    if all(new is old for new, old in zip(mechs, catalogue.mechs)):
        return catalogue
    return Catalogue.build(mechs)
