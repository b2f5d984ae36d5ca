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

"""Reading manifest digests from the three registry kinds, batched through Multicall2.

Framework-free: this module only builds call data and decodes return data (``eth_abi``);
whoever runs the ``eth_call`` (the skill's behaviour through the ledger connection, the CLI
through web3) passes the bytes in and out.

Where the latest manifest digest of an id lives (ABIs: ``autonolas-registries`` abis/0.8.15
``AgentRegistry.json``, abis/0.8.30 ``ComplementaryServiceMetadata.json``;
``ai-registry-mech`` abis/0.8.25 ``AgentRegistry.json``):

==============================  ====================================================
registry kind                   latest digest of ``id``
==============================  ====================================================
``olas_agent_registry``         last of ``getUpdatedHashes(id)``; when that list is
                                empty, ``mapUnits(id)`` (the unit hash set at
                                creation). ``tokenURI`` is never used: it keeps
                                returning the first hash after an update.
``legacy_mech_registry``        last of ``getHashes(id)``.
``complementary_service_        ``mapServiceHashes(id)`` (id = service id).
metadata``
==============================  ====================================================

A zero bytes32 (or an empty list) means "no hash". "All ids" means ``1..totalSupply()``;
for ComplementaryServiceMetadata, ``totalSupply()`` of the ServiceRegistry it points to
(``serviceRegistry()``).

The whole read is wrapped in Multicall2 ``tryBlockAndAggregate(false, calls)`` (MakerDAO
Multicall2, the ``valory/multicall2`` contract package's ABI) so one ``eth_call`` reads
``batch_size`` calls, a failing call does not fail the batch, and the block number comes
back with the results.
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import (
    Any,
    Dict,
    Generator,
    List,
    MutableMapping,
    Optional,
    Sequence,
    Set,
    Tuple,
)

from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_abi.exceptions import DecodingError
from eth_utils import function_signature_to_4byte_selector
from mech_catalogue_core.model.problems import (
    ProblemCode,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    REGISTRY_KINDS,
    REGISTRY_LEGACY_MECH,
    REGISTRY_OLAS_AGENT,
    MechRef,
)

ZERO_DIGEST = "0x" + "00" * 32
#: a 0x-prefixed 20-byte hex address, any case (eth_abi checks no checksum either)
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
IDS_ALL = "all"
#: the largest id a source may name: the snapshot digest canonicalises ids as I-JSON
#: numbers (RFC 8785), which are exact only up to 2**53 - 1
MAX_ID = 2**53 - 1

#: registry kinds whose id space is the contract's own ``totalSupply()``
_SELF_SUPPLY_KINDS = (REGISTRY_OLAS_AGENT, REGISTRY_LEGACY_MECH)

#: read failures, as machine-readable codes carried by :class:`DigestRead`
READ_OK = ""
READ_CALL_FAILED = ProblemCode.REGISTRY_CALL_FAILED
READ_UNDECODABLE = ProblemCode.REGISTRY_RETURN_UNDECODABLE


class ChainReadError(RuntimeError):
    """A chain read failed as a whole (transport error, timeout, RPC error, revert).

    Every adapter that reads the chain raises this one type (the skill's framework calls,
    the CLI's JSON-RPC calls), so the library's runners (:mod:`.rpc_limits`) and the
    callers catch one thing.

    :param message: what failed and what to check.
    :param reason: the RPC's (or the ledger connection's) own words, which
        :func:`.rpc_limits.rpc_text` reads to tell a size or range refusal from other
        errors; the message when not given.
    """

    def __init__(self, message: str, reason: str = "") -> None:
        """Keep the message and the reason.

        :param message: what failed and what to check.
        :param reason: the RPC's own words.
        """
        super().__init__(message)
        self.reason = reason or message


class RegistryConfigError(ValueError):
    """A registry description from the configuration is unusable; the message names the field."""


class RegistryDecodeError(ValueError):
    """Multicall2 return data could not be decoded (wrong contract at the address?)."""


@dataclass(frozen=True)
class IdSelection:
    """Which ids of a registry to read.

    :param mode: ``"list"`` (exactly :attr:`ids`), ``"range"`` (``start..end`` inclusive) or
        ``"all"`` (``1..totalSupply()``).
    :param ids: the ids for mode list, ascending, unique.
    :param start: first id of a range (>= 1).
    :param end: last id of a range (>= start).
    """

    mode: str
    ids: Tuple[int, ...] = ()
    start: int = 0
    end: int = 0

    def resolve(self, total_supply: Optional[int], cap: int) -> Tuple[int, ...]:
        """Turn the selection into concrete ids.

        :param total_supply: the registry's ``totalSupply()`` (needed for mode all only).
        :param cap: the most ids one registry may expand to (parameter ``max_ids_per_registry``).
        :return: ascending ids; for mode all at most ``cap`` ids, the lowest first.
        :raises RegistryConfigError: mode all without a supply.
        """
        if self.mode == "list":
            return self.ids
        if self.mode == "range":
            return tuple(range(self.start, min(self.end, self.start + cap - 1) + 1))
        if total_supply is None:
            raise RegistryConfigError(
                "ids 'all' needs totalSupply(), which was not read"
            )
        return tuple(range(1, min(total_supply, cap) + 1))

    def to_config(self) -> Any:
        """Get the configuration form of the selection.

        :return: the configuration form (``"all"``, a list, or ``{"from", "to"}``).
        """
        if self.mode == IDS_ALL:
            return IDS_ALL
        if self.mode == "range":
            return {"from": self.start, "to": self.end}
        return list(self.ids)


def parse_id_selection(value: Any, where: str) -> IdSelection:
    """Parse the ``ids`` field of a configured registry.

    :param value: ``"all"``, a list of positive ints, or ``{"from": a, "to": b}`` (inclusive);
        ids at most :data:`MAX_ID`.
    :param where: the field's name for error messages, e.g. ``registries[0].ids``.
    :return: the selection.
    :raises RegistryConfigError: anything else, with a sentence naming ``where``.
    """
    if value == IDS_ALL:
        return IdSelection(IDS_ALL)
    if isinstance(value, dict):
        try:
            start, end = int(value["from"]), int(value["to"])
        except (KeyError, TypeError, ValueError) as exc:
            raise RegistryConfigError(
                f"{where} must be {{'from': <first id>, 'to': <last id>}} with integers; got {value!r}"
            ) from exc
        if start < 1 or end < start or end > MAX_ID:
            raise RegistryConfigError(
                f"{where} range must satisfy 1 <= from <= to <= {MAX_ID} (2**53 - 1, the "
                f"largest id the snapshot digest can hold); got {value!r}"
            )
        return IdSelection("range", start=start, end=end)
    if isinstance(value, (list, tuple)):
        if not value:
            raise RegistryConfigError(
                f"{where} is an empty list; give ids, a range or 'all'"
            )
        ids = []
        for item in value:
            if isinstance(item, bool) or not isinstance(item, int) or item < 1:
                raise RegistryConfigError(
                    f"{where} must hold positive integer ids; {item!r} is not one"
                )
            if item > MAX_ID:
                raise RegistryConfigError(
                    f"{where} holds {item}, above {MAX_ID} (2**53 - 1, the largest id "
                    "the snapshot digest can hold); no registry mints such ids"
                )
            ids.append(item)
        return IdSelection("list", ids=tuple(sorted(set(ids))))
    raise RegistryConfigError(
        f"{where} must be 'all', a list of ids or {{'from': a, 'to': b}}; got {value!r}"
    )


@dataclass(frozen=True)
class RegistrySource:
    """One registry to read, as configured.

    :param kind: one of :data:`REGISTRY_KINDS`.
    :param chain_id: EIP-155 chain id of the chain the registry lives on.
    :param address: 0x-prefixed 20-byte address, lowercase.
    :param ids: which ids to read.
    """

    kind: str
    chain_id: int
    address: str
    ids: IdSelection

    def ref(self, mech_id: int) -> MechRef:
        """Get the identity of one mech of this registry.

        :param mech_id: an agent or service id.
        :return: the mech's identity.
        """
        return MechRef(self.chain_id, self.kind, self.address, mech_id)


def _address(value: Any, where: str) -> str:
    text = str(value)
    if not (text.startswith("0x") and len(text) == 42):
        raise RegistryConfigError(
            f"{where} must be a 0x-prefixed 20-byte hex address; got {value!r}"
        )
    try:
        int(text[2:], 16)
    except ValueError as exc:
        raise RegistryConfigError(f"{where} is not hex: {value!r}") from exc
    return text.lower()


def parse_registry_sources(
    value: Any, chain_id: int, name: str = "registries"
) -> Tuple[RegistrySource, ...]:
    """Parse the ``registries`` skill parameter.

    :param value: a list of ``{"kind": <kind>, "address": "0x..", "ids": <ids>}``.
    :param chain_id: the chain id every source lives on (parameter ``chain_id``).
    :param name: the parameter's name for messages.
    :return: the sources, in configuration order.
    :raises RegistryConfigError: with a sentence naming the bad field.
    """
    if not isinstance(value, (list, tuple)):
        raise RegistryConfigError(
            f"{name} must be a list of registries; got {type(value).__name__}"
        )
    sources = []
    for index, item in enumerate(value):
        where = f"{name}[{index}]"
        if not isinstance(item, dict):
            raise RegistryConfigError(
                f"{where} must be a mapping with kind, address and ids"
            )
        kind = item.get("kind")
        if kind not in REGISTRY_KINDS:
            raise RegistryConfigError(
                f"{where}.kind must be one of {', '.join(REGISTRY_KINDS)}; got {kind!r}"
            )
        sources.append(
            RegistrySource(
                kind=str(kind),
                chain_id=chain_id,
                address=_address(item.get("address"), f"{where}.address"),
                ids=parse_id_selection(item.get("ids", IDS_ALL), f"{where}.ids"),
            )
        )
    seen = set()
    for index, source in enumerate(sources):
        key = (source.kind, source.address)
        if key in seen:
            raise RegistryConfigError(
                f"{name}[{index}] repeats registry {source.kind} at {source.address}"
            )
        seen.add(key)
    return tuple(sources)


# --- call encoding ----------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One contract call: a Multicall2 batch entry, an ``eth_call``, or a transaction.

    The one call type of the domain (registry reads and the publish flow both build it).

    :param target: the contract address.
    :param data: ABI-encoded call data (4-byte selector + arguments).
    :param output_types: the ABI types of the return values, for decoding (empty for
        a call that is only sent).
    :param signature: the canonical function signature, for display ("" when unknown).
    """

    target: str
    data: bytes
    output_types: Tuple[str, ...] = ()
    signature: str = ""

    def to_dict(self) -> Dict[str, str]:
        """Get the JSON form.

        :return: ``{"to", "data" (0x hex), "function"}``.
        """
        return {
            "to": self.target,
            "data": "0x" + self.data.hex(),
            "function": self.signature,
        }

    def decode(self, return_data: bytes) -> Tuple[Any, ...]:
        """Decode the call's return data.

        :param return_data: the call's raw return.
        :return: the decoded values.
        :raises RegistryDecodeError: when the bytes do not match :attr:`output_types`.
        """
        try:
            return tuple(abi_decode(list(self.output_types), return_data))
        except (DecodingError, ValueError, OverflowError) as exc:
            raise RegistryDecodeError(
                f"return of call to {self.target} does not decode as {self.output_types}"
            ) from exc


#: the first integer a uint256 cannot hold
_UINT256_END = 1 << 256


@lru_cache(maxsize=256)
def selector(signature: str) -> bytes:
    """Give the first 4 bytes of a signature's keccak-256, computed once per signature.

    :param signature: canonical signature, e.g. ``mapServiceHashes(uint256)``.
    :return: the first 4 bytes of its keccak-256.
    """
    return function_signature_to_4byte_selector(signature)


def encode_call(
    target: str,
    signature: str,
    arg_types: Sequence[str],
    args: Sequence[Any],
    output_types: Sequence[str],
) -> Call:
    """Build a :class:`Call`.

    :param target: contract address.
    :param signature: canonical signature, e.g. ``getUpdatedHashes(uint256)``.
    :param arg_types: ABI types of ``args``.
    :param args: the arguments.
    :param output_types: ABI types returned.
    :return: the call.
    """
    if all(t == "uint256" for t in arg_types) and all(
        isinstance(a, int) and not isinstance(a, bool) and 0 <= a < _UINT256_END
        for a in args
    ):  # the registry reads' only arguments: a uint256 is its 32-byte big-endian word
        encoded = b"".join(a.to_bytes(32, "big") for a in args)
    else:
        encoded = abi_encode(list(arg_types), list(args))
    return Call(target, selector(signature) + encoded, tuple(output_types), signature)


def block_number_call(multicall: str) -> Call:
    """Build the ``getBlockNumber()`` call.

    :param multicall: the Multicall2 address.
    :return: ``getBlockNumber()``.
    """
    return encode_call(multicall, "getBlockNumber()", (), (), ("uint256",))


def encode_batch(calls: Sequence[Call]) -> bytes:
    """Encode a Multicall2 ``tryBlockAndAggregate(false, calls)`` call.

    :param calls: the calls.
    :return: call data of Multicall2 ``tryBlockAndAggregate(false, calls)``.
    """
    head = selector("tryBlockAndAggregate(bool,(address,bytes)[])")
    if not all(
        isinstance(c.target, str) and _ADDRESS.fullmatch(c.target) for c in calls
    ):  # any other form: eth_abi encodes it or refuses it, as before
        return head + abi_encode(
            ["bool", "(address,bytes)[]"], [False, [(c.target, c.data) for c in calls]]
        )
    # the ABI layout written out (eth_abi validates each element in Python: about 14 ms
    # a batch of 200; tests check the bytes are eth_abi's): false, the array's offset,
    # its length, one offset per element, then each (address, offset 64, length, data)
    offsets, elements, at = [], [], 32 * len(calls)
    for call in calls:
        data = bytes(call.data)
        element = b"".join(
            (
                bytes(12) + bytes.fromhex(call.target[2:]),
                (64).to_bytes(32, "big"),
                len(data).to_bytes(32, "big"),
                data,
                bytes(-len(data) % 32),
            )
        )
        offsets.append(at.to_bytes(32, "big"))
        elements.append(element)
        at += len(element)
    return b"".join(
        [head, bytes(32), (64).to_bytes(32, "big"), len(calls).to_bytes(32, "big")]
        + offsets
        + elements
    )


def decode_batch(
    return_data: bytes, expected: int
) -> Tuple[int, List[Tuple[bool, bytes]]]:
    """Decode the return of :func:`encode_batch`'s call.

    :param return_data: raw bytes returned by ``eth_call``.
    :param expected: how many calls were in the batch.
    :return: ``(block_number, [(success, return_data), ...])`` in call order.
    :raises RegistryDecodeError: not a Multicall2 return, or the wrong number of results.
    """
    try:
        block_number, _block_hash, results = abi_decode(
            ["uint256", "bytes32", "(bool,bytes)[]"], return_data
        )
    except (DecodingError, ValueError, OverflowError) as exc:
        raise RegistryDecodeError(
            "the Multicall2 return data does not decode; is multicall2_address right?"
        ) from exc
    if len(results) != expected:
        raise RegistryDecodeError(
            f"Multicall2 returned {len(results)} results for {expected} calls"
        )
    return int(block_number), [(bool(ok), bytes(data)) for ok, data in results]


def chunks(calls: Sequence[Call], batch_size: int) -> List[List[Call]]:
    """Split calls into batches.

    :param calls: the calls.
    :param batch_size: most calls per ``eth_call`` (>= 1).
    :return: the batches.
    """
    return [list(calls[i : i + batch_size]) for i in range(0, len(calls), batch_size)]


# --- the read plan ----------------------------------------------------------------------


#: what :func:`snapshot_reader` may remember across reads: ``(chain_id, address)`` of a
#: ComplementaryServiceMetadata -> the ServiceRegistry its ``serviceRegistry()`` names
HolderCache = MutableMapping[Tuple[int, str], str]
#: what :func:`snapshot_reader` may remember across reads: ``(chain_id, address)`` of a
#: source with ids ``all`` -> its supply at the last read (a guess for the next read)
SupplyHints = MutableMapping[Tuple[int, str], int]


def holder_key(source: RegistrySource) -> Tuple[int, str]:
    """Key a source in a :data:`HolderCache` or :data:`SupplyHints`.

    :param source: a registry source.
    :return: ``(chain_id, address)``.
    """
    return source.chain_id, source.address


def supply_holder_calls(sources: Sequence[RegistrySource]) -> Dict[int, Call]:
    """Step 1 of a read: ``serviceRegistry()`` for ComplementaryServiceMetadata sources with ids all.

    ``serviceRegistry`` is set in ComplementaryServiceMetadata's constructor and has no
    setter (autonolas-registries ``ComplementaryServiceMetadata.json``: only
    ``changeHash`` writes), so its answer never changes for a deployed contract and a
    reader may remember it (:data:`HolderCache`).

    :param sources: the configured sources.
    :return: source index -> call (empty when no such source).
    """
    return {
        i: encode_call(s.address, "serviceRegistry()", (), (), ("address",))
        for i, s in enumerate(sources)
        if s.ids.mode == IDS_ALL and s.kind == REGISTRY_COMPLEMENTARY_SERVICE
    }


def supply_calls(
    sources: Sequence[RegistrySource], holders: Dict[int, str]
) -> Dict[int, Call]:
    """Step 2: ``totalSupply()`` for every source with ids all.

    :param sources: the configured sources.
    :param holders: source index -> address holding the supply, from step 1 (for
        ComplementaryServiceMetadata, its ServiceRegistry).
    :return: source index -> call.
    """
    calls = {}
    for i, source in enumerate(sources):
        if source.ids.mode != IDS_ALL:
            continue
        target = source.address if source.kind in _SELF_SUPPLY_KINDS else holders.get(i)
        if target is None:
            continue
        calls[i] = encode_call(target, "totalSupply()", (), (), ("uint256",))
    return calls


@dataclass(frozen=True)
class DigestQuery:
    """The calls that together give one id's latest digest.

    :param source_index: index into the configured sources.
    :param mech_id: the agent / service id.
    :param calls: one or two calls (Olas: ``getUpdatedHashes`` then ``mapUnits``).
    """

    source_index: int
    mech_id: int
    calls: Tuple[Call, ...]


def digest_query(
    source_index: int, source: RegistrySource, mech_id: int
) -> DigestQuery:
    """Build the calls that read one id's latest digest.

    :param source_index: index of ``source``.
    :param source: the registry.
    :param mech_id: the id.
    :return: the calls reading that id's latest digest.
    """
    if source.kind == REGISTRY_OLAS_AGENT:
        calls: Tuple[Call, ...] = (
            encode_call(
                source.address,
                "getUpdatedHashes(uint256)",
                ("uint256",),
                (mech_id,),
                ("uint256", "bytes32[]"),
            ),
            encode_call(
                source.address,
                "mapUnits(uint256)",
                ("uint256",),
                (mech_id,),
                ("bytes32",),
            ),
        )
    elif source.kind == REGISTRY_LEGACY_MECH:
        calls = (
            encode_call(
                source.address,
                "getHashes(uint256)",
                ("uint256",),
                (mech_id,),
                ("uint256", "bytes32[]"),
            ),
        )
    else:
        calls = (
            encode_call(
                source.address,
                "mapServiceHashes(uint256)",
                ("uint256",),
                (mech_id,),
                ("bytes32",),
            ),
        )
    return DigestQuery(source_index, mech_id, calls)


def digest_queries(
    sources: Sequence[RegistrySource], ids_by_source: Dict[int, Tuple[int, ...]]
) -> List[DigestQuery]:
    """Build one digest query per (source, id).

    :param sources: the sources.
    :param ids_by_source: source index -> resolved ids.
    :return: one query per (source, id), sources in order, ids ascending.
    """
    return [
        digest_query(i, source, mech_id)
        for i, source in enumerate(sources)
        for mech_id in ids_by_source.get(i, ())
    ]


@dataclass(frozen=True)
class DigestRead:
    """The outcome of one :class:`DigestQuery`.

    :param ref: the mech.
    :param digest: ``0x`` + 64 hex of the latest digest, "" when the registry holds none.
    :param error: "" or a READ_* code when the call failed or returned garbage.
    """

    ref: MechRef
    digest: str
    error: str = READ_OK


def _hex32(value: bytes) -> str:
    return "0x" + bytes(value).hex()


def _latest_of_list(values: Tuple[Any, ...]) -> str:
    hashes = values[1]
    return _hex32(hashes[-1]) if hashes else ""


def decode_digest_query(
    query: DigestQuery, source: RegistrySource, results: Sequence[Tuple[bool, bytes]]
) -> DigestRead:
    """Decode the Multicall2 results of one query into the latest digest.

    :param query: the query.
    :param source: its source.
    :param results: ``(success, return_data)`` for each of ``query.calls``, in order.
    :return: the read; a zero hash reads as "" (no hash).
    """
    ref = source.ref(query.mech_id)
    if any(not ok for ok, _ in results):
        return DigestRead(ref, "", READ_CALL_FAILED)
    try:
        decoded = [call.decode(data) for call, (_, data) in zip(query.calls, results)]
    except RegistryDecodeError:
        return DigestRead(ref, "", READ_UNDECODABLE)
    if source.kind == REGISTRY_OLAS_AGENT:
        digest = _latest_of_list(decoded[0]) or _hex32(decoded[1][0])
    elif source.kind == REGISTRY_LEGACY_MECH:
        digest = _latest_of_list(decoded[0])
    else:
        digest = _hex32(decoded[0][0])
    return DigestRead(ref, "" if digest == ZERO_DIGEST else digest)


def flatten(queries: Sequence[DigestQuery]) -> List[Call]:
    """Flatten queries into their calls.

    :param queries: the queries.
    :return: their calls, in order.
    """
    return [call for query in queries for call in query.calls]


def split_results(
    queries: Sequence[DigestQuery], results: Sequence[Tuple[bool, bytes]]
) -> List[Sequence[Tuple[bool, bytes]]]:
    """Group flat results back per query.

    :param queries: the queries.
    :param results: the results of :func:`flatten`'s calls.
    :return: the results grouped per query.
    """
    grouped, at = [], 0
    for query in queries:
        grouped.append(results[at : at + len(query.calls)])
        at += len(query.calls)
    return grouped


# --- the whole read, as a driver-agnostic generator -------------------------------------

#: what :func:`snapshot_reader` yields: the calls of one Multicall2 batch and the block to
#: read at (None = latest); it must be sent back ``(block_number, [(success, data)])``.
BatchRequest = Tuple[List[Call], Optional[int]]
BatchReply = Tuple[int, List[Tuple[bool, bytes]]]


def _supplies(
    sources: Sequence[RegistrySource], calls: Dict[int, Call], reply: BatchReply
) -> Dict[int, bytes]:
    out = {}
    for key, (ok, data) in zip(calls, reply[1]):
        if not ok:
            source = sources[key]
            raise RegistryDecodeError(
                f"{source.kind} at {source.address} reverted on totalSupply()/serviceRegistry(); "
                "check the address and kind in registries"
            )
        out[key] = data
    return out


#: ids read past a source's last known supply in a speculative batch, so a few new ids
#: ride in it instead of costing a batch of their own
HINT_MARGIN = 8


def _speculative_ids(
    sources: Sequence[RegistrySource],
    known: Dict[int, Tuple[int, ...]],
    max_ids: int,
    room: int,
    done: Dict[int, int],
    exhausted: Set[int],
    hints: Optional[Dict[int, int]] = None,
) -> Dict[int, Tuple[int, ...]]:
    """Pick the ids read in a digest batch sent before every supply is known.

    Ids of list and range sources first (they are known), then the next ids of each
    ``all`` source while the batch has room for whole queries. An ``all`` source with a
    hint (its supply at the last read) first gets ids up to the hint plus
    :data:`HINT_MARGIN`, so the room left goes to the sources after it; whatever room
    remains then goes to the sources in order, as without hints.

    :param sources: the configured registries.
    :param known: source index -> its ids when known (list and range sources, and
        ``all`` sources whose supply was read).
    :param max_ids: the most ids read from one ``all`` source.
    :param room: how many calls the batch still has room for.
    :param done: source index -> how many of its ids (in order) were already read.
    :param exhausted: ``all`` sources whose last id read had no hash (likely past the
        supply): no more of their ids are guessed.
    :param hints: source index -> its supply at the last read (None: no hints).
    :return: source index -> the ids to read (sources with none left out).
    """
    chosen: Dict[int, Tuple[int, ...]] = {}
    passes = ((hints or {}), {}) if hints else ({},)
    for limits in passes:
        for i, source in enumerate(sources):
            width = len(digest_query(i, source, 1).calls)
            start = done.get(i, 0) + len(chosen.get(i, ()))
            take = max(room, 0) // width
            if i in known:
                ids = known[i][start : start + take]
            elif i in exhausted:
                ids = ()
            else:
                last = min(max_ids, start + take)
                if i in limits:
                    last = min(last, limits[i] + HINT_MARGIN)
                ids = tuple(range(start + 1, last + 1))
            if ids:
                chosen[i] = chosen.get(i, ()) + ids
                room -= width * len(ids)
    return chosen


def _hints(
    sources: Sequence[RegistrySource], remembered: SupplyHints
) -> Dict[int, int]:
    """Look up each ``all`` source's remembered supply.

    :param sources: the registries.
    :param remembered: supplies at the last read, by :func:`holder_key`.
    :return: source index -> its remembered supply (sources without one left out).
    """
    return {
        i: remembered[holder_key(s)]
        for i, s in enumerate(sources)
        if s.ids.mode == IDS_ALL and holder_key(s) in remembered
    }


def snapshot_reader(  # pylint: disable=too-many-arguments,too-many-locals
    sources: Sequence[RegistrySource],
    multicall: str,
    batch_size: int,
    max_ids: int,
    block_interval: int,
    at_block: Optional[int] = None,
    holder_cache: Optional[HolderCache] = None,
    supply_hints: Optional[SupplyHints] = None,
) -> Generator[BatchRequest, BatchReply, Tuple[int, List[DigestRead]]]:
    """Read every source's latest digests; the caller runs each yielded batch as one ``eth_call``.

    The block: with ``block_interval`` > 1 (and no ``at_block``) one call at latest reads
    ``getBlockNumber()`` (with, where ids are ``all`` on a ComplementaryServiceMetadata
    whose ServiceRegistry is not in ``holder_cache``, its ``serviceRegistry()``, an
    immutable of that contract) and the block is aligned
    down to ``block_interval`` (so agents reading a few seconds apart read the same
    block); every later read is pinned to it. With ``block_interval`` 1 or an
    ``at_block`` there is no such call: the first batch is sent at latest (or at
    ``at_block``) and Multicall2 returns the block it ran at, to which the rest is pinned.

    The supplies: each batch sent while a supply (``totalSupply()``, or first the
    ``serviceRegistry()`` holding it) is still unknown carries those calls plus
    ``batch_size`` digest calls chosen before the supplies are known (listed ids, then
    the next ids of ``all`` sources, unless the last one read had no hash); reads of ids
    past a supply are dropped and the ids
    still missing are read in batches of ``batch_size`` calls. So a read costs
    ``ceil(digest calls / batch_size)`` calls when ids 1.. fill the speculative batches
    (plus 1 with ``block_interval`` > 1), and the reads are the ones reading everything in
    order at that block would give.

    Drive it with ``request = next(gen)`` then ``request = gen.send(reply)`` until
    ``StopIteration.value`` holds ``(block, reads)``.

    :param sources: the registries.
    :param multicall: the Multicall2 address.
    :param batch_size: most digest calls per ``eth_call`` (a batch sent while supplies
        are unknown also carries one ``serviceRegistry()``/``totalSupply()`` per source
        still missing it).
    :param max_ids: most ids one ``all`` source expands to.
    :param block_interval: block alignment (>= 1).
    :param at_block: read at exactly this block instead (the block the agents agreed
        on, when an agent must rebuild the agreed snapshot); no alignment is applied.
    :param holder_cache: ServiceRegistry addresses read by earlier reads (see
        :func:`supply_holder_calls`: they cannot change), filled with the ones this read
        learns. With every holder known, the first batch already carries ``totalSupply()``:
        a refresh of a ComplementaryServiceMetadata with ids ``all`` then costs
        ``ceil(digest calls / batch_size)`` calls (at most one per batch of ids) instead
        of one more for the ``serviceRegistry()`` -> ``totalSupply()`` dependency.
    :param supply_hints: each ``all`` source's supply at the last read, updated by this
        one. Only a guess: it decides which ids the speculative batches read (so
        several sources share the first batch instead of the first source filling it);
        the supply read in the same batch still decides which ids are kept and which
        are read afterwards.
    :yield: ``(calls, block)`` batches (block None = latest).
    :return: ``(block, reads)``. The generator raises RegistryDecodeError when a
        supply read reverts and RegistryConfigError for ids ``all`` without a supply.
    """
    cache: HolderCache = {} if holder_cache is None else holder_cache
    remembered: SupplyHints = {} if supply_hints is None else supply_hints
    holder_calls = supply_holder_calls(sources)
    holders: Dict[int, str] = {
        k: cache[holder_key(sources[k])]
        for k in holder_calls
        if holder_key(sources[k]) in cache
    }
    block = at_block
    if at_block is None and block_interval > 1:
        unknown = {k: c for k, c in holder_calls.items() if k not in holders}
        latest, first = (
            yield [block_number_call(multicall)] + list(unknown.values()),
            None,
        )
        block = latest - latest % block_interval
        holders.update(
            {
                k: unknown[k].decode(d)[0]
                for k, d in _supplies(sources, unknown, (latest, first[1:])).items()
            }
        )
    known = {
        i: s.ids.resolve(None, max_ids)
        for i, s in enumerate(sources)
        if s.ids.mode != IDS_ALL
    }
    supplies: Dict[int, int] = {}
    done: Dict[int, int] = {}
    exhausted: Set[int] = set()
    results_by_query: Dict[Tuple[int, int], Sequence[Tuple[bool, bytes]]] = {}
    while True:
        need_holders = {k: c for k, c in holder_calls.items() if k not in holders}
        count_calls = {
            k: c for k, c in supply_calls(sources, holders).items() if k not in supplies
        }
        if not need_holders and not count_calls:
            break
        listed = {
            **known,
            **{i: sources[i].ids.resolve(n, max_ids) for i, n in supplies.items()},
        }
        early = digest_queries(
            sources,
            _speculative_ids(
                sources,
                listed,
                max_ids,
                batch_size,
                done,
                exhausted,
                _hints(sources, remembered),
            ),
        )
        control = list(need_holders.values()) + list(count_calls.values())
        reply = yield control + flatten(early), block
        block = reply[0] if block is None else block
        found = _supplies(
            sources, need_holders, (reply[0], reply[1][: len(need_holders)])
        )
        holders.update({k: need_holders[k].decode(d)[0] for k, d in found.items()})
        counted = _supplies(
            sources, count_calls, (reply[0], reply[1][len(need_holders) : len(control)])
        )
        supplies.update(
            {k: int(count_calls[k].decode(d)[0]) for k, d in counted.items()}
        )
        for query, result in zip(early, split_results(early, reply[1][len(control) :])):
            results_by_query[(query.source_index, query.mech_id)] = result
            done[query.source_index] = done.get(query.source_index, 0) + 1
            if (
                query.source_index not in listed
            ):  # read past its end? then stop guessing
                source = sources[query.source_index]
                if not decode_digest_query(query, source, result).digest:
                    exhausted.add(query.source_index)
                else:
                    exhausted.discard(query.source_index)
    cache.update({holder_key(sources[k]): address for k, address in holders.items()})
    remembered.update({holder_key(sources[k]): n for k, n in supplies.items()})
    ids_by_source = {
        i: s.ids.resolve(supplies.get(i), max_ids) for i, s in enumerate(sources)
    }
    queries = digest_queries(sources, ids_by_source)
    late = [q for q in queries if (q.source_index, q.mech_id) not in results_by_query]
    results: List[Tuple[bool, bytes]] = []
    for batch in chunks(flatten(late), batch_size):
        reply = yield batch, block
        block = reply[0] if block is None else block
        results.extend(reply[1])
    if block is None:  # nothing was read: still say at which block
        block = (yield [block_number_call(multicall)], None)[0]
    results_by_query.update(
        zip(((q.source_index, q.mech_id) for q in late), split_results(late, results))
    )
    reads = [
        decode_digest_query(
            query,
            sources[query.source_index],
            results_by_query[(query.source_index, query.mech_id)],
        )
        for query in queries
    ]
    return block, reads
