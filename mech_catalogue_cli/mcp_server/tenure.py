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

"""Since when each mech offers each tool as it is now: the chain reads behind the ranking.

For :func:`.offers.seniority` (issue #29: the default offer must not be for sale), two
blocks per marketplace mech and tool, read from events, incrementally period after period:

- ``declared_block``: since when the service's manifests have declared the tool with its
  current definition (the tool as parsed, :func:`definition_digest`). The service's
  ``ComplementaryMetadataUpdated(serviceId, hash)`` events (autonolas-registries
  ``ComplementaryServiceMetadata``: emitted by ``changeHash``) are its manifest history;
  walking back from the update that set the current manifest, every earlier update
  whose manifest declares the tool identically moves the block back
  (:func:`unchanged_since`). A manifest change that leaves the tool as it was (a new
  tool beside it, a new version field, the same hash set again) keeps its tenure; only a
  changed definition of the tool starts it again (before, any change did, and a stranger
  who had copied the tool earlier became the incumbent: adversarial review adv29b).
  Events are read from the MechMarketplace's first block on; a service whose hash was
  set before it counts as set at that block (every marketplace mech is younger);
- ``first_delivery_block``: the mech contract's first ``Deliver`` event
  (``market.DELIVER_TOPICS``) at or after ``declared_block``.

Bounds: each service's last :data:`MAX_DECLARATIONS` updates are remembered; a tool
declared identically by all of them counts as declared at the oldest one (past the cap,
a tenure is cut short, never lengthened). Earlier manifests are fetched from IPFS and
verified as the catalogue's are (:class:`FetchedDefinitions`), one at a time per service
and only while the walk needs them (the same hash again needs none); only the
definitions' digests are kept, :data:`MAX_KNOWN_DEFINITIONS` at most. All walks share
one fetch budget per read, spent in an order a stranger cannot buy (never the digest's:
anyone sets any 32 bytes): manifests that were unreadable before last, then those of
services with a mech that delivered since the manifest was set, then by the block the
manifest was set at (the oldest first), then the service id (adversarial reviews adv29v,
adv29yp). A manifest that cannot be fetched ends the walk there (the tenure then starts
after it, as before this rule), and it is asked for again after
:data:`RETRY_UNREADABLE_SECONDS`. One the budget never reached is not read yet: it is
asked for again by the next read, and the walk it cut short does not shorten a tenure
the service's last complete walk gave the same definition. The unreadable manifests and
the complete walks are kept in the state folder (:mod:`.tenure_record`), so a fresh
process goes on where the last one ended. Log ranges an RPC refuses are read in halves
(``chain.rpc_limits.narrow_log_range``). Mechs of other registry kinds get no tenure
(ranked after those that have one). An ``--agent`` source's offers are read by the same
walk from the services' current manifests (:meth:`TenureReader.tenures_of`).
"""

import hashlib
import logging
import time
from dataclasses import dataclass, field, replace
from typing import (
    Any,
    Callable,
    Container,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
)

from mech_catalogue_core.catalogue.fetching import ManifestCache
from mech_catalogue_core.chain.marketplace import LogQuery
from mech_catalogue_core.chain.registry import ChainReadError
from mech_catalogue_core.chain.rpc_limits import narrow_log_range
from mech_catalogue_core.model.catalogue import Catalogue
from mech_catalogue_core.model.market import MechFacts
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    MechRef,
    Tool,
)
from web3 import Web3

from ..adapters.jsonrpc import JsonRpc, get_logs
from ..sync_driver import Fetcher, SyncConfig, fetch_manifests, parse
from .market import DELIVER_TOPICS
from .offers import Tenure
from .tenure_record import TenureRecord

LOGGER = logging.getLogger("mech_catalogue.mcp")

#: ``ComplementaryMetadataUpdated(uint256 indexed serviceId, bytes32 indexed hash)``
METADATA_UPDATED_TOPIC = "0x" + Web3.keccak(
    text="ComplementaryMetadataUpdated(uint256,bytes32)"
).hex().removeprefix("0x")
#: manifest updates remembered per service (the newest): how far back a tenure reaches
MAX_DECLARATIONS = 32
#: ``(manifest digest, tool name)`` definitions kept (about 200 bytes each)
MAX_KNOWN_DEFINITIONS = 100_000
#: seconds before a manifest that could not be fetched is asked for again
RETRY_UNREADABLE_SECONDS = 600.0
#: manifests remembered as unreadable once (asked for after the others, the newest kept)
MAX_DEAD_BEFORE = 100_000
#: what a manifest says of a tool it does not declare (never a definition digest)
ABSENT = ""

#: one manifest update of a service: ``(block, digest)``, the digest ``0x`` + 64 hex
Update = Tuple[int, str]
#: a service's walk: (registry, service id, the update that set its current manifest)
WalkKey = Tuple[str, int, Update]
#: where an earlier manifest stands in the walks: (no mech of the service delivered
#: since it was set, the block it was set at, the service id), the smallest first;
#: what a tenure walk's fetches are ordered by
Age = Tuple[bool, int, int]
#: reads the definitions of some tools of some manifests: ``{digest: names}``, in the
#: order to fetch them -> ``{digest: {name: definition digest, or ABSENT}}``; a digest
#: mapped to None was not read yet (the read's budget ran out before it was asked for),
#: one left out could not be read
DefinitionsOf = Callable[
    [Mapping[str, FrozenSet[str]]], Mapping[str, Optional[Mapping[str, str]]]
]


def definition_digest(tool: Tool) -> str:
    """Identify a tool's definition: everything its manifest says of it.

    :param tool: a parsed tool.
    :return: ``sha256:`` and the hex SHA-256 of its RFC 8785 body without provenance
        (``Tool.canonical_body``: name, description, arguments, input, output,
        examples, extra fields, kind).
    """
    body = tool.canonical_body().encode("utf-8", "surrogatepass")
    return "sha256:" + hashlib.sha256(body).hexdigest()


def definitions(tools: Iterable[Tool]) -> Dict[str, str]:
    """Each tool name's definition digest (the first tool of a name, as the catalogue).

    :param tools: parsed tools.
    :return: name -> :func:`definition_digest`.
    """
    found: Dict[str, str] = {}
    for tool in tools:
        found.setdefault(tool.name, definition_digest(tool))
    return found


@dataclass
class _Walk:  # pylint: disable=too-many-instance-attributes
    """One service's walk back through its manifest updates, a step at a time.

    :param history: its updates, oldest first, the last one the current manifest's.
    :param current: the current manifest's tools: name -> definition digest.
    :param last_delivery: the latest delivery block of the service's mechs (None: none
        seen): a walk back to a manifest set after it cannot make the service a
        delivering incumbent, so its fetches wait for those that can.
    """

    history: Tuple[Update, ...]
    current: Mapping[str, str]
    last_delivery: Optional[int] = None
    since: Dict[str, int] = field(default_factory=dict)
    alive: Set[str] = field(default_factory=set)
    at: int = 0
    complete: bool = True
    interrupted: bool = False

    def __post_init__(self) -> None:
        self.since = {name: self.history[-1][0] for name in self.current}
        self.alive = set(self.current)
        self.at = len(self.history) - 1

    def wants(self) -> Optional[Tuple[str, FrozenSet[str]]]:
        """The earlier manifest the next step reads, and the tools it needs from it.

        :return: ``(digest, names)``, or None when the walk is over.
        """
        if not self.alive or self.at == 0:
            return None
        return self.history[self.at - 1][1], frozenset(self.alive)

    def step(
        self,
        lookup: Callable[[str, FrozenSet[str]], Optional[Mapping[str, str]]],
        not_read_yet: Container[str] = (),
    ) -> bool:
        """Go one update back.

        :param lookup: ``(digest, names)`` -> those tools' definitions in that manifest
            (None: unreadable now).
        :param not_read_yet: digests the read's budget never reached: the walk stops
            there, :attr:`interrupted` (its blocks are a partial result).
        :return: False when the walk was over already.
        """
        wanted = self.wants()
        if wanted is None:
            return False
        digest, names = wanted
        if digest in not_read_yet:
            self.complete = False
            self.interrupted = True
            self.alive.clear()
            return True
        earlier = (
            self.current if digest == self.history[-1][1] else lookup(digest, names)
        )
        if earlier is None:  # unreadable: the tenure starts after it, for now
            self.complete = False
            self.alive.clear()
            return True
        self.at -= 1
        for name in sorted(names):
            if earlier.get(name, ABSENT) == self.current[name]:
                self.since[name] = self.history[self.at][0]
            else:
                self.alive.discard(name)
        return True


def unchanged_since(
    history: Sequence[Update],
    current: Mapping[str, str],
    known: Mapping[str, Mapping[str, str]],
) -> Dict[str, int]:
    """Since which update each current tool has been declared as it is now.

    :param history: the service's manifest updates, oldest first, ending with the one
        that set the current manifest (not empty).
    :param current: the current manifest's tools: name -> :func:`definition_digest`.
    :param known: earlier manifests' definitions: digest -> {name: definition digest}
        (a digest missing: unreadable, the walk stops there).
    :return: name -> the block of the earliest update from which on every manifest
        declared that tool with its current definition.
    """
    walk = _Walk(tuple(history), current)
    while walk.step(lambda digest, _names: known.get(digest)):
        pass
    return walk.since


class FetchedDefinitions:
    """:data:`DefinitionsOf` over IPFS: manifests fetched and verified as the catalogue's.

    The gateways, timeout and size cap of the catalogue's own fetch
    (``sync_driver.fetch_manifests``: bytes must hash to the on-chain digest), without
    retries within a read, on a fetch pool of its own; nothing fetched is kept but the
    definitions' digests.
    """

    def __init__(self, config: SyncConfig) -> None:
        """Prepare the fetch pool (nothing is fetched yet).

        :param config: the catalogue's read parameters (gateways, timeouts, size cap).
        """
        # no retries within a read: an unreadable manifest is asked for again after
        # RETRY_UNREADABLE_SECONDS, and the read (a catalogue refresh) goes on meanwhile
        self.config = replace(config, policy=replace(config.policy, retries=0))
        self.fetcher = Fetcher(
            config.gateway_url,
            min(4, config.fetch_concurrency),
            config.fetch_timeout,
            config.policy.max_bytes,
            config.fallback_gateway_urls,
            config.gateway_policy,
        )

    def __call__(
        self, wanted: Mapping[str, FrozenSet[str]]
    ) -> Dict[str, Optional[Dict[str, str]]]:
        """Fetch, verify and parse the manifests; keep the named tools' definitions.

        :param wanted: digest -> the tool names needed from it, in the order to fetch
            them (the read's budget is spent in that order).
        :return: digest -> {name: definition digest, or :data:`ABSENT`}, or None when the
            budget ran out before the digest was asked for (not read yet); a digest whose
            manifest could not be fetched or verified is left out (one that does not
            parse declares nothing: every name ABSENT).
        """
        order = {digest: position for position, digest in enumerate(wanted)}
        fetched = fetch_manifests(
            self.config, list(wanted), ManifestCache(), self.fetcher, order
        )
        found: Dict[str, Optional[Dict[str, str]]] = {}
        for digest, result in fetched.items():
            if digest not in wanted:
                continue
            if not result.reached:
                found[digest] = None
                continue
            data = result.data
            if data is None:
                continue
            manifest, _ = parse(data, self.config.policy.max_bytes)
            declared = definitions(manifest.tools) if manifest is not None else {}
            found[digest] = {
                name: declared.get(name, ABSENT) for name in wanted[digest]
            }
        return found

    def begin_read(self) -> None:
        """Start one read's fetch budget (``GatewayPolicy.period_budget_seconds``).

        Every fetch of one :meth:`TenureReader.tenures` call shares it, however many
        steps the walks take, so a read waits at most that long on IPFS.
        """
        self.fetcher.gateways.begin_period(time.monotonic())

    def close(self) -> None:
        """Stop the fetch pool."""
        self.fetcher.close()


@dataclass
class _MetadataScan:
    """One metadata contract's events read so far: last block read, updates per id."""

    read_to: int
    updates: Dict[int, List[Update]]


@dataclass
class _DeliveryScan:
    """One mech's ``Deliver`` events read from a block on: last block read, first."""

    read_to: int
    first: Optional[int] = None


@dataclass(frozen=True)
class _Offering:
    """One service whose mechs' offers are ranked: what its tenure read needs.

    :param ref: the service (complementary-service registry).
    :param digest: its current manifest's digest, lowercase ("": not known, its tools
        then count as declared at the service's newest update).
    :param current: the current manifest's tools: name -> :func:`definition_digest`.
    :param addresses: its mech contracts, lowercase.
    :param last_delivery: the latest delivery block of those mechs (None: none seen).
    """

    ref: MechRef
    digest: str
    current: Mapping[str, str]
    addresses: Tuple[str, ...]
    last_delivery: Optional[int]


def _latest(blocks: Iterable[Optional[int]]) -> Optional[int]:
    known = [block for block in blocks if block is not None]
    return max(known) if known else None


class TenureReader:  # pylint: disable=too-many-instance-attributes
    """Reads :class:`.offers.Tenure` of every marketplace mech's tools in a catalogue."""

    def __init__(  # pylint: disable=too-many-arguments
        self,
        rpc: JsonRpc,
        first_block: int = 0,
        definitions_of: Optional[DefinitionsOf] = None,
        clock: Callable[[], float] = time.monotonic,
        record: Optional[TenureRecord] = None,
    ) -> None:
        """Prepare the reader (nothing is read from the chain yet).

        :param rpc: the chain node.
        :param first_block: the MechMarketplace's first block (reads start there).
        :param definitions_of: reads earlier manifests' definitions (None: none can be
            read, so every tenure starts at the current manifest's update).
        :param clock: seconds, monotonic (when to ask again for an unreadable manifest).
        :param record: where the last process's unreadable manifests and complete walks
            are loaded from now and this one's saved after each read (None: memory
            only; :mod:`.tenure_record`).
        """
        self.rpc = rpc
        self.first_block = first_block
        self.definitions_of = definitions_of
        self.clock = clock
        self.record = record
        self._metadata: Dict[str, _MetadataScan] = {}
        self._deliveries: Dict[Tuple[str, int], _DeliveryScan] = {}
        self._known: Dict[Tuple[str, str], str] = {}
        self._unreadable: Dict[str, float] = {}
        self._dead_before: Dict[str, None] = {}  # unreadable once: asked for last
        self._not_read_yet: Set[str] = set()  # this read's budget never reached them
        self._walked: Dict[WalkKey, Dict[str, int]] = {}
        #: each service's last complete walk: (the definitions, the blocks)
        self._settled: Dict[Tuple[str, int], Tuple[Dict[str, str], Dict[str, int]]] = {}
        if record is not None:
            dead, self._settled = record.load()
            self._dead_before = dict.fromkeys(dead)

    def _answer(self, query: LogQuery) -> List[Dict[str, Any]]:
        return get_logs(
            self.rpc, query.address, query.topic, query.from_block, query.to_block
        )

    def _logs(self, query: LogQuery) -> List[Dict[str, Any]]:
        if query.from_block > query.to_block:
            return []
        return narrow_log_range(self._answer, (ChainReadError,))(query)

    def _history(self, registry: str, service_id: int, head: int) -> List[Update]:
        scan = self._metadata.setdefault(
            registry, _MetadataScan(self.first_block - 1, {})
        )
        logs = self._logs(
            LogQuery(registry, METADATA_UPDATED_TOPIC, scan.read_to + 1, head)
        )
        for log in sorted(
            logs,
            key=lambda log: (
                int(log["blockNumber"], 16),
                int(log.get("logIndex") or "0x0", 16),
            ),
        ):
            topics = log.get("topics") or []
            if len(topics) >= 3:
                updates = scan.updates.setdefault(int(topics[1], 16), [])
                updates.append((int(log["blockNumber"], 16), str(topics[2]).lower()))
                del updates[:-MAX_DECLARATIONS]
        scan.read_to = max(scan.read_to, head)
        return scan.updates.get(service_id, [])

    def _first_delivery(self, mech: str, since: int, head: int) -> Optional[int]:
        scan = self._deliveries.setdefault((mech, since), _DeliveryScan(since - 1))
        if scan.first is None:
            blocks = [
                int(log["blockNumber"], 16)
                for topic in DELIVER_TOPICS
                for log in self._logs(LogQuery(mech, topic, scan.read_to + 1, head))
            ]
            scan.first = min(blocks) if blocks else None
            scan.read_to = max(scan.read_to, head)
        return scan.first

    def _lookup(self, digest: str, names: FrozenSet[str]) -> Optional[Dict[str, str]]:
        found = {name: self._known.get((digest, name)) for name in names}
        if any(value is None for value in found.values()):
            return None
        return {name: str(value) for name, value in found.items()}

    def _learn(self, wanted: Dict[str, Tuple[Age, Set[str]]]) -> None:
        """Read the definitions the walks need, in an order no stranger can buy.

        :param wanted: digest -> (its :data:`Age`, the tool names needed from it).
        """
        now = self.clock()
        self._unreadable = {  # the ones due again are forgotten: no growth
            digest: when
            for digest, when in self._unreadable.items()
            if now - when < RETRY_UNREADABLE_SECONDS
        }
        due = [
            digest
            for digest in wanted
            if now - self._unreadable.get(digest, now - RETRY_UNREADABLE_SECONDS)
            >= RETRY_UNREADABLE_SECONDS
        ]
        due.sort(key=lambda d: (d in self._dead_before, wanted[d][0]))
        asked = {digest: frozenset(wanted[digest][1]) for digest in due}
        if not asked or self.definitions_of is None:
            return
        answers = self.definitions_of(asked)
        for digest in asked:
            if digest in answers and answers[digest] is None:
                self._not_read_yet.add(digest)
                continue
            if digest not in answers:
                self._unreadable[digest] = now
                self._dead_before.pop(digest, None)
                self._dead_before[digest] = None  # the newest last
                for old in list(self._dead_before)[:-MAX_DEAD_BEFORE]:
                    del self._dead_before[old]
                LOGGER.warning(
                    "an earlier manifest %s could not be fetched: the tenures that "
                    "reach it start after it; asked again in %.0f s",
                    digest,
                    RETRY_UNREADABLE_SECONDS,
                )
                continue
            self._unreadable.pop(digest, None)
            self._dead_before.pop(digest, None)
            read = answers[digest] or {}
            for name in asked[digest]:
                self._known[(digest, name)] = read.get(name, ABSENT)
        for key in list(self._known)[
            : max(0, len(self._known) - MAX_KNOWN_DEFINITIONS)
        ]:
            del self._known[key]  # the oldest first (dicts keep insertion order)

    def _walk_all(self, walks: Dict[WalkKey, _Walk]) -> None:
        """Run every walk to its end, one update back per round, fetching by the batch.

        A batch is fetched manifests unreadable before last, then those whose service
        has a mech that delivered since the manifest was set (only such a walk can make
        a delivering incumbent, which ranks before every offer that has not delivered),
        then the oldest first: a pool of services that never delivered cannot spend the
        budget before an incumbent's history is read (adversarial review adv29yp).

        :param walks: the walks of this read, by key.
        """
        self._not_read_yet = set()
        going = list(walks.items())
        while going:
            wanted: Dict[str, Tuple[Age, Set[str]]] = {}
            for (_, service_id, _), walk in going:
                step = walk.wants()
                if step is not None and step[0] != walk.history[-1][1]:
                    if self._lookup(*step) is None:
                        block = walk.history[walk.at - 1][0]
                        age = (
                            _idle_since(walk.last_delivery, block),
                            block,
                            service_id,
                        )
                        first, names = wanted.get(step[0], (age, set()))
                        wanted[step[0]] = (min(first, age), names | step[1])
            self._learn(wanted)
            going = [
                (key, walk)
                for key, walk in going
                if walk.step(self._lookup, self._not_read_yet)
            ]

    def _plan(
        self, offering: _Offering, head: int, walks: Dict[WalkKey, _Walk]
    ) -> Tuple[Optional[WalkKey], Dict[str, int]]:
        """Where a service's tenures come from: a walk (added to ``walks`` unless done).

        :param offering: a service of the complementary-service registry.
        :param head: the block events are read up to.
        :param walks: the walks of this read, by key.
        :return: the key of its walk and no blocks, or no key and the blocks at once
            (its manifest set before the marketplace's first block: since that block;
            not among the updates remembered, or not known: since the newest one).
        """
        ref, current = offering.ref, offering.current
        history = self._history(ref.registry_address, ref.mech_id, head)
        sets = [i for i, (_, d) in enumerate(history) if d == offering.digest]
        if not sets:
            block = history[-1][0] if history else self.first_block
            return None, {name: block for name in current}
        key = (ref.registry_address, ref.mech_id, history[sets[-1]])
        if key not in self._walked and key not in walks:
            walks[key] = _Walk(
                tuple(history[: sets[-1] + 1]), current, offering.last_delivery
            )
        return key, {}

    def tenures(self, catalogue: Catalogue, head: int) -> Dict[Tuple[str, str], Tenure]:
        """Read the tenure of every marketplace mech's tools in the catalogue, up to ``head``.

        A read the RPC fails even for one block raises ``ChainReadError`` (the caller
        keeps its last catalogue: a ranking without tenures could be bought).

        :param catalogue: the catalogue (its tools as parsed, not derived), marketplace
            facts attached.
        :param head: the block to read up to (inclusive).
        :return: (mech contract address (lowercase), tool name) -> its tenure; mechs of
            other registry kinds are absent.
        """
        return self._read(
            [
                _Offering(
                    mech.ref,
                    mech.digest.lower(),
                    definitions(mech.tools),
                    tuple(f.address.lower() for f in mech.marketplace),
                    _latest(f.last_delivery_block for f in mech.marketplace),
                )
                for mech in catalogue.mechs
                if mech.ref.registry_kind == REGISTRY_COMPLEMENTARY_SERVICE
                and mech.marketplace  # no mech contract: no offer to rank
            ],
            head,
        )

    def _read(
        self, offerings: Sequence[_Offering], head: int
    ) -> Dict[Tuple[str, str], Tenure]:
        """The tenures of the offerings' tools, walks run and the state kept.

        :param offerings: the services whose offers are ranked (only these are kept).
        :param head: the block to read up to (inclusive).
        :return: (mech contract address, tool name) -> its tenure.
        """
        walks: Dict[WalkKey, _Walk] = {}
        plans = [
            (offering, *self._plan(offering, head, walks)) for offering in offerings
        ]
        self._walk_all(walks)
        walked = {
            plan[1]: self._walked[plan[1]]
            for plan in plans
            if plan[1] is not None and plan[1] in self._walked
        }
        walked.update({key: walk.since for key, walk in walks.items() if walk.complete})
        self._walked = walked  # only the current manifests' walks are kept
        settled = self._settled_after([key for _, key, _ in plans], walks)
        found: Dict[Tuple[str, str], Tenure] = {}
        deliveries: Dict[Tuple[str, int], _DeliveryScan] = {}
        for offering, plan, blocks in plans:
            if plan is not None:
                blocks = (
                    walked[plan]
                    if plan in walked
                    else self._cut_short(walks[plan], self._settled.get(plan[:2]))
                )
            for address in offering.addresses:
                for name, block in blocks.items():
                    found[(address, name)] = Tenure(
                        block, self._first_delivery(address, block, head)
                    )
                    deliveries[(address, block)] = self._deliveries[(address, block)]
        self._deliveries = deliveries  # scans of blocks no tenure starts at any more go
        self._settled = settled  # only the current catalogue's services are kept
        if self.record is not None:
            self.record.save(self._dead_before, self._settled)
        return found

    def _settled_after(
        self, keys: Iterable[Optional[WalkKey]], walks: Mapping[WalkKey, _Walk]
    ) -> Dict[Tuple[str, int], Tuple[Dict[str, str], Dict[str, int]]]:
        """Each planned service's last complete walk once this read's walks ended.

        :param keys: the read's plans' walk keys (None: no walk).
        :param walks: the walks this read ran.
        :return: (registry, service id) -> (definitions, blocks).
        """
        settled = {
            key[:2]: self._settled[key[:2]]
            for key in keys
            if key is not None and key[:2] in self._settled
        }
        settled.update(
            {
                key[:2]: (dict(walk.current), dict(walk.since))
                for key, walk in walks.items()
                if walk.complete
            }
        )
        return settled

    @staticmethod
    def _cut_short(
        walk: _Walk, settled: Optional[Tuple[Dict[str, str], Dict[str, int]]]
    ) -> Dict[str, int]:
        """The blocks of a walk that did not end, never later than partial evidence allows.

        A walk the read's budget interrupted (an earlier manifest not read yet) knows
        only that each tool is unchanged since its block, not that it changed there; so
        a tool the service's last complete walk (this process's or, through the state
        folder, the last one's) found with the same definition keeps the earlier of the
        two blocks, when that block is one of the service's updates on the chain before
        it. A walk ended by an unreadable manifest (the budget reached it) starts the
        tenure after it, as before.

        :param walk: the walk, not complete.
        :param settled: the service's last complete walk: (name -> definition digest,
            name -> block), or None.
        :return: name -> block.
        """
        since = dict(walk.since)
        if not walk.interrupted or settled is None:
            return since
        definitions_then, blocks_then = settled
        updates = {block for block, _ in walk.history}
        for name, definition in walk.current.items():
            block = blocks_then.get(name)
            if definitions_then.get(name) == definition and block in updates:
                since[name] = min(since[name], int(block))  # type: ignore[arg-type]
        return since

    def begin_read(self) -> None:
        """Start one read's fetch budget for earlier manifests (when they can be read)."""
        begin = getattr(self.definitions_of, "begin_read", None)
        if begin is not None:
            begin()

    def tenures_of(
        self, offers: Iterable[Tuple[MechRef, MechFacts, str]], head: int
    ) -> Dict[Tuple[str, str], Tenure]:
        """Read the tenure of each offered tool without a catalogue, up to ``head``.

        For offers known without a catalogue (an ``--agent`` source's ``/tools/<name>``
        offers: the mech's ref, its facts and the tool's name). The service's current
        manifest is the one its newest ``ComplementaryMetadataUpdated`` set: it is
        fetched and verified as earlier ones are (one fetch budget per call, shared with
        the walks), and the tenure is read from it by the direct read's walk (one rule
        for both sources: a routine update keeps the tenure; adversarial review adv29b,
        open through ``--agent`` until fix29yg). When that manifest cannot be read yet,
        or without ``definitions_of``, the tools count as declared at the newest
        update (a tenure cut short, never lengthened). A tool the chain's manifest does
        not declare gets no tenure (ranked after dated offers). A failed chain read
        raises ``ChainReadError``.

        :param offers: ``(the offering service's ref, one of its mech contracts' facts,
            the mech tool's name)``.
        :param head: the block to read up to (inclusive).
        :return: (mech contract address (lowercase), tool name) -> its tenure;
            contracts of other registry kinds are absent.
        """
        services: Dict[Tuple[str, int], _Offered] = {}
        for ref, facts, name in offers:
            if ref.registry_kind == REGISTRY_COMPLEMENTARY_SERVICE:
                key = (ref.registry_address, ref.mech_id)
                services.setdefault(key, _Offered(ref)).add(facts, name)
        self.begin_read()
        newest = {
            key: self._newest_update(offered, head) for key, offered in services.items()
        }
        self._not_read_yet = set()
        self._learn(self._current_wanted(services, newest))
        return self._read(
            [self._offering(offered, newest[key]) for key, offered in services.items()],
            head,
        )

    def _current_wanted(
        self,
        services: Mapping[Tuple[str, int], "_Offered"],
        newest: Mapping[Tuple[str, int], Optional[Update]],
    ) -> Dict[str, Tuple[Age, Set[str]]]:
        """The current manifests to fetch, with their :data:`Age` and the names needed.

        :param services: (registry, service id) -> what it offers.
        :param newest: (registry, service id) -> its newest update (None: none).
        :return: digest -> (age, names), those not known yet.
        """
        wanted: Dict[str, Tuple[Age, Set[str]]] = {}
        for key, offered in services.items():
            update = newest[key]
            if update is not None and self._lookup(update[1], offered.names) is None:
                block, digest = update
                age = (_idle_since(offered.last_delivery, block), block, key[1])
                first, needed = wanted.get(digest, (age, set()))
                wanted[digest] = (min(first, age), needed | offered.names)
        return wanted

    def _newest_update(self, offered: "_Offered", head: int) -> Optional[Update]:
        history = self._history(offered.ref.registry_address, offered.ref.mech_id, head)
        return history[-1] if history else None

    def _offering(self, offered: "_Offered", update: Optional[Update]) -> _Offering:
        """A service's offers with the definitions its current manifest gave.

        :param offered: the service's offered tools and mech contracts.
        :param update: the update that set its current manifest (None: before the
            marketplace's first block).
        :return: the offering; its digest "" (declared at the newest update) when the
            manifest was not read.
        """
        read = self._lookup(update[1], offered.names) if update is not None else None
        if update is None or read is None:
            digest, current = "", dict.fromkeys(offered.names, ABSENT)
        else:
            digest = update[1]
            current = {name: d for name, d in read.items() if d != ABSENT}
        return _Offering(
            offered.ref,
            digest,
            current,
            tuple(offered.facts),
            offered.last_delivery,
        )


@dataclass
class _Offered:
    """What an agent says one service offers: tool names and mech contracts' facts."""

    ref: MechRef
    names: FrozenSet[str] = frozenset()
    facts: Dict[str, MechFacts] = field(default_factory=dict)

    def add(self, facts: MechFacts, name: str) -> None:
        """Note one offer: a mech contract's facts and the tool's name."""
        self.names = self.names | {name}
        self.facts.setdefault(facts.address.lower(), facts)

    @property
    def last_delivery(self) -> Optional[int]:
        """The latest delivery block of its mech contracts (None: none seen)."""
        return _latest(f.last_delivery_block for f in self.facts.values())


def _idle_since(last_delivery: Optional[int], block: int) -> bool:
    """Whether no mech of a service delivered at or after ``block`` (last_delivery None: none)."""
    return last_delivery is None or last_delivery < block
