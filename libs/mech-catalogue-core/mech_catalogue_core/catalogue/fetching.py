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

"""Fetch policy and catalogue refresh, as pure functions.

The behaviour (or the CLI) does the I/O; this module decides *what* to fetch, *how often to
retry*, keeps verified bytes in a content-addressed cache, and turns a registry snapshot
plus fetch results into the next :class:`~.model.Catalogue`:

- a CID's content never changes, so bytes are cached by CID once verified and never
  fetched again;
- a mech whose new manifest cannot be fetched, verified or parsed, or whose declared tools
  are all invalid, is quarantined with a reason code; when it had a good entry before,
  that entry is kept (tools still served) with its old ``observed_block`` (so
  :meth:`Catalogue.stale` lists it) and the reason appended to its problems;
- a mech whose registry no longer holds a hash, or whose new manifest drops a tool, loses
  it: nothing lingers. A verified manifest that declares no tools at all (``{"tools": []}``,
  no parse error) is the owner withdrawing them: the mech stays ``ok`` and offers nothing;
- tool-name collisions across mechs are left to :meth:`Catalogue.collisions` (every
  colliding tool keeps its provenance);
- a parsed manifest's tools get the warnings of :func:`.untrusted_text.tools_text_problems`
  (invisible text, instruction-like text, arguments asking for secrets), and its own
  name, description and extras those of :func:`.mech_text.mech_text_problems`: computed once per
  parsed manifest, from fixed code-point ranges and ASCII patterns, so every agent adds
  the same ones.
"""

import gc
import zlib
from collections import Counter
from dataclasses import dataclass, replace
from typing import (
    Callable,
    Dict,
    FrozenSet,
    Generator,
    Iterable,
    List,
    Mapping,
    Optional,
    Tuple,
    TypeGuard,
)

from mech_catalogue_core.catalogue.lookalikes import (
    with_lookalike_warnings,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    RAW,
    CidError,
    candidate_cids,
    verify,
)
from mech_catalogue_core.ipfs.gateways import never_requested
from mech_catalogue_core.model.catalogue import (
    STATUS_HASH_MISMATCH,
    STATUS_INVALID,
    STATUS_NO_HASH,
    STATUS_OK,
    STATUS_UNAVAILABLE,
    Catalogue,
    Manifest,
    Mech,
)
from mech_catalogue_core.model.mech_text import mech_text_problems
from mech_catalogue_core.model.problems import (
    DIGEST_MISMATCH,
    FETCH_FAILED,
    KEPT_LAST_GOOD,
    MANIFEST_REJECTED,
    PARSER_FAILED,
    REGISTRY_READ_FAILED,
    TOO_LARGE,
    Problem,
    error,
    unique_problems,
    warning,
)
from mech_catalogue_core.model.untrusted_text import (
    tools_text_problems,
)
from mech_catalogue_core.ports import BlobStore

#: a manifest parser: bytes -> (manifest or None when rejected, problems)
ParseFn = Callable[[bytes], Tuple[Optional[Manifest], Tuple[Problem, ...]]]


def backoff_delays(
    retries: int, initial: float, factor: float, cap: float
) -> Tuple[float, ...]:
    """Delays before each retry (exponential backoff, capped).

    :param retries: how many retries after the first attempt (>= 0).
    :param initial: seconds before the first retry.
    :param factor: multiplier per retry (>= 1).
    :param cap: the longest delay, seconds.
    :return: ``retries`` delays, e.g. ``(0.5, 1.0, 2.0)`` for (3, 0.5, 2, 10).
    """
    return tuple(min(cap, initial * factor**attempt) for attempt in range(retries))


#: zlib level of the bytes :class:`FetchResult` and :class:`ManifestCache` hold in memory:
#: manifests are repetitive JSON (field names, schemas), level 1 packs them several-fold
#: at about 60 us per 15 KB (scripts/bench_sync_memory.py measures what it saves)
PACK_LEVEL = 1


def pack(data: bytes) -> bytes:
    """Compress manifest bytes for keeping in memory (:data:`PACK_LEVEL`).

    :param data: the bytes.
    :return: their zlib stream; :func:`unpack` gives ``data`` back, byte for byte.
    """
    return zlib.compress(data, PACK_LEVEL)


def unpack(packed: bytes) -> bytes:
    """Give back the bytes :func:`pack` compressed.

    :param packed: a zlib stream from :func:`pack`.
    :return: the original bytes.
    """
    return zlib.decompress(packed)


class PackedBytes(bytes):
    """A reply body as :func:`pack_reply` packed it (its bytes are the zlib stream).

    A fetch driver's :class:`.gateways.FetchWindow` keeps bodies so (its ``keep``), and
    :func:`manifest_fetcher` unpacks them before checking size and digest; a plain
    ``bytes`` reply is taken as the body itself.
    """


def pack_reply(data: bytes) -> bytes:
    """Pack a reply body for :func:`manifest_fetcher` (a ``FetchWindow``'s ``keep``).

    :param data: the body as received.
    :return: a :class:`PackedBytes` holding ``pack(data)``.
    """
    return PackedBytes(pack(data))


@dataclass(frozen=True)
class FetchResult:
    """What fetching one on-chain digest gave.

    The verified bytes are held compressed (:func:`pack`): a period's results for 10,000
    manifests of 15 KB are 145 MiB of raw bytes, and most are never read again (parsed
    on arrival, or an unchanged mech kept). :attr:`data` decompresses them on each read.

    :param digest: ``0x`` + 64 hex, the on-chain digest.
    :param cid: the CID whose bytes verified against the digest ("" when none did).
    :param packed: the verified bytes as :func:`pack` compressed them, None on failure
        (build a success with :meth:`ok`, which packs).
    :param status: STATUS_OK, STATUS_UNAVAILABLE, STATUS_HASH_MISMATCH or STATUS_INVALID (too large).
    :param problem: why it failed (None on success); its code and message are facts only
        (the digest, the CIDs, the cap), never how the transport failed, so agents behind
        gateways that fail differently build the same catalogue.
    :param detail: how the transport failed (``gateway answered HTTP 504``, a timeout):
        this agent's diagnostic for its logs, never part of the catalogue.
    :param reached: False when the period's fetch budget ran out before any GET for the
        digest had an answer (``ipfs.gateways.never_requested``): it is not read yet,
        not dead, and keeps its fetch rank (:func:`fetch_ranks`).
    """

    digest: str
    cid: str = ""
    packed: Optional[bytes] = None
    status: str = STATUS_OK
    problem: Optional[Problem] = None
    detail: str = ""
    reached: bool = True

    @property
    def data(self) -> Optional[bytes]:
        """The verified bytes (decompressed on each read), None on failure.

        :return: the bytes, or None.
        """
        return None if self.packed is None else unpack(self.packed)

    @property
    def failed(self) -> bool:
        """Whether no verified bytes came (cheaper than ``data is None``: no decompression).

        :return: True on failure.
        """
        return self.packed is None

    @classmethod
    def ok(
        cls, digest: str, cid: str, data: bytes, packed: Optional[bytes] = None
    ) -> "FetchResult":
        """Build a verified result.

        :param digest: the digest.
        :param cid: the CID that verified.
        :param data: the bytes.
        :param packed: ``pack(data)`` when already computed (the cache's copy).
        :return: a success.
        """
        return cls(digest, cid, pack(data) if packed is None else packed)

    @classmethod
    def unavailable(
        cls, digest: str, cids: Iterable[str], detail: str = "", reached: bool = True
    ) -> "FetchResult":
        """Build a failed result.

        :param digest: the digest.
        :param cids: CIDs tried.
        :param detail: how the last try failed (kept in :attr:`detail`, not in the problem).
        :param reached: False when no GET for it had an answer (see :attr:`reached`).
        :return: a failure.
        """
        tried = ", ".join(cids)
        return cls(
            digest,
            status=STATUS_UNAVAILABLE,
            problem=error(
                FETCH_FAILED,
                f"could not fetch the manifest for digest {digest} (tried {tried or 'nothing'}); "
                "check the IPFS endpoint and that the manifest is pinned",
            ),
            detail=detail,
            reached=reached,
        )

    @classmethod
    def mismatch(cls, digest: str, cid: str) -> "FetchResult":
        """Build a failed result.

        :param digest: the digest.
        :param cid: the CID fetched.
        :return: a failure.
        """
        return cls(
            digest,
            cid=cid,
            status=STATUS_HASH_MISMATCH,
            problem=error(
                DIGEST_MISMATCH,
                f"bytes served for {cid} hash neither as dag-pb nor raw to the on-chain digest {digest}; "
                "the gateway served other content, or the manifest was added with other chunking",
            ),
        )

    @classmethod
    def too_large(cls, digest: str, cid: str, size: int, cap: int) -> "FetchResult":
        """Build a failed result.

        :param digest: the digest.
        :param cid: the CID.
        :param size: bytes seen.
        :param cap: the cap.
        :return: a failure.
        """
        return cls(
            digest,
            cid=cid,
            status=STATUS_INVALID,
            problem=error(
                TOO_LARGE,
                f"manifest {cid} is larger than max_manifest_bytes={cap}; "
                "shrink the manifest or raise the parameter",
            ),
            detail=f"{size} bytes received",
        )


class ManifestCache:
    """Verified manifest bytes by CID; optionally mirrored to a store (one blob per CID).

    Only bytes that verified against their digest are put here, so a hit never needs
    fetching again. Stored entries are re-verified on load by the caller-supplied check.
    In memory each entry is held compressed (:func:`pack`; in the store as fetched), so
    that a warm period can still be served without a request at 10,000 manifests.
    """

    def __init__(self, store: Optional[BlobStore] = None) -> None:
        """Create an empty cache.

        :param store: where to mirror entries across restarts (the agent's: a folder);
            None keeps them in memory only.
        """
        self._entries: Dict[str, bytes] = {}
        self._store = store

    def get(
        self, cid: str, verify: Optional[Callable[[bytes], bool]] = None
    ) -> Optional[bytes]:
        """Look a CID up.

        :param cid: the CID.
        :param verify: re-check for bytes read from the store.
        :return: the cached bytes, or None on a miss (or a stored entry that fails ``verify``).
        """
        packed = self.get_packed(cid, verify)
        return None if packed is None else unpack(packed)

    def get_packed(
        self, cid: str, verify: Optional[Callable[[bytes], bool]] = None
    ) -> Optional[bytes]:
        """Look a CID up, giving the entry compressed (:func:`pack`) as held in memory.

        :param cid: the CID.
        :param verify: re-check for bytes read from the store.
        :return: the packed bytes, or None on a miss (or a stored entry that fails ``verify``).
        """
        if cid in self._entries:
            return self._entries[cid]
        if self._store is None or not cid.isalnum():
            return None
        data = self._store.read(cid)
        if data is None or (verify is not None and not verify(data)):
            return None
        packed = pack(data)
        self._entries[cid] = packed
        return packed

    def put(self, cid: str, data: bytes, packed: Optional[bytes] = None) -> bytes:
        """Store verified bytes (in the store too; one it refuses keeps them in memory only).

        :param cid: the CID the bytes verified against.
        :param data: the bytes.
        :param packed: ``pack(data)`` when already computed.
        :return: the entry as held in memory (``pack(data)``).
        """
        packed = pack(data) if packed is None else bytes(packed)
        self._entries[cid] = packed
        if self._store is not None and cid.isalnum():
            self._store.write(cid, (data,))
        return packed

    def __contains__(self, cid: object) -> bool:
        """Check membership in memory.

        :param cid: a CID.
        :return: True when held in memory.
        """
        return cid in self._entries

    def __len__(self) -> int:
        """Count entries held in memory.

        :return: entries held in memory.
        """
        return len(self._entries)

    def retain(self, cids: Iterable[str]) -> int:
        """Drop every entry (in memory and in the store) whose CID is not in ``cids``.

        The cache is bounded this way by what the catalogue still refers to: a CID that
        no mech serves any more is not kept.

        :param cids: the CIDs to keep.
        :return: how many entries were dropped.
        """
        keep = set(cids)
        dropped = [cid for cid in self._entries if cid not in keep]
        for cid in dropped:
            del self._entries[cid]
        if self._store is not None:
            dropped.extend(
                name
                for name in self._store.names()
                if name not in keep and name.isalnum() and self._store.remove(name)
            )
        return len(set(dropped))


def served_problems(mech: Mech) -> Tuple[Problem, ...]:
    """The problems of the manifest a mech serves, without a kept entry's failure and note.

    A kept last-good entry's problems are ``served + (current failure, kept_last_good
    note)`` (:func:`_kept` builds them so); any other entry's are all its own.

    :param mech: a catalogue entry.
    :return: the problems that belong to the manifest it serves.
    """
    for index, problem in enumerate(mech.problems):
        if problem.code == KEPT_LAST_GOOD:
            return mech.problems[: max(0, index - 1)]
    return mech.problems


def _kept(previous: Mech, reason: Problem) -> Mech:
    """Serve ``previous``'s manifest, noting why the current one failed.

    Problems are a set, not a log: the result is the served manifest's own problems plus
    this period's failure and one note, however many periods the mech has been kept, so
    a failure that does not change leaves the entry (and the catalogue digest) unchanged.

    :param previous: the last agreed entry, status ok.
    :param reason: why this period's manifest failed.
    :return: ``previous`` with its problems rebuilt as above.
    """
    note = warning(
        KEPT_LAST_GOOD,
        f"serving the last good manifest {previous.cid} (read at block {previous.observed_block}) "
        f"because the current one failed: {reason.code}",
    )
    problems = unique_problems(served_problems(previous)) + (reason, note)
    if problems == previous.problems:
        return previous  # same entry as last period: its cached digest still holds
    return replace(previous, problems=problems)


def _failed_mech(
    read: DigestRead,
    previous: Optional[Mech],
    status: str,
    reason: Problem,
    cid: str,
    block: int,
) -> Mech:
    if previous is not None and previous.status == STATUS_OK:
        return _kept(previous, reason)
    return Mech(
        ref=read.ref,
        digest=read.digest,
        cid=cid,
        status=status,
        problems=(reason,),
        observed_block=block,
    )


def _parse_guarded(
    parse: ParseFn, data: bytes, cid: str
) -> Tuple[Optional[Manifest], Tuple[Problem, ...]]:
    """Run the parser; a parser bug quarantines the one manifest instead of stopping the agent."""
    # a parser bug must quarantine one manifest, never stop the period
    try:
        return parse(data)
    except Exception as exc:  # pylint: disable=broad-exception-caught
        return None, (
            error(
                PARSER_FAILED,
                # the exception's type only: its text can differ between Python versions,
                # and this problem enters the agreed catalogue
                f"the manifest parser failed on {cid} ({type(exc).__name__}); the mech is "
                "quarantined, report this manifest",
            ),
        )


def _unchanged(
    old: Optional[Mech], read: DigestRead, result: FetchResult
) -> TypeGuard[Mech]:
    """Whether ``old`` is exactly what parsing ``result`` again would give (bar the block).

    True for a good entry (status ok, not a kept last-good one) of the same registry ref
    read under the same digest and fetched under the same CID: the CID fixes the bytes and
    the parser is pure, so parsing them again would rebuild the same entry.

    :param old: the previous period's entry for this ref, if any.
    :param read: this period's registry read of the ref.
    :param result: this period's fetch result for the read's digest.
    :return: True when ``old`` can be kept with only its observed block updated (``old``
        is then a :class:`Mech`).
    """
    return (
        old is not None
        and old.status == STATUS_OK
        and old.ref == read.ref
        and old.digest == read.digest
        and old.cid == result.cid
        and not any(p.code == KEPT_LAST_GOOD for p in old.problems)
    )


def _all_tools_rejected(
    manifest: Optional[Manifest], problems: Tuple[Problem, ...]
) -> bool:
    """Whether a parsed manifest has no tools because the parser rejected every one.

    A manifest without tools and without any error declared none (the owner withdrew
    them): that is a valid manifest, served as such. One without tools *and* with errors
    (every declared tool failed or was withheld for an error-level problem) is a failure,
    quarantined (last good kept).

    :param manifest: the parsed manifest, or None when rejected.
    :param problems: the parse problems.
    :return: True when the manifest must be treated as rejected.
    """
    return (
        manifest is not None
        and not manifest.tools
        and (bool(manifest.withheld) or any(p.is_error for p in problems))
    )


def refresh_catalogue(
    snapshot: RegistrySnapshot,
    fetched: Dict[str, FetchResult],
    parse: ParseFn,
    previous: Optional[Catalogue] = None,
) -> Catalogue:
    """Build the next catalogue from the agreed snapshot and this agent's fetch results.

    :param snapshot: the agreed registry snapshot.
    :param fetched: on-chain digest -> fetch result, for every digest of the snapshot.
    :param parse: the manifest parser (``domain.parsing``), pure.
    :param previous: the last agreed catalogue (only pass it when its digest is the one the
        agents agreed on, so every agent starts from the same catalogue). Its good entries
        whose ref, digest and CID are unchanged are reused (with this snapshot's block)
        instead of parsing their manifest again; the result is the same catalogue.
    :return: the new catalogue; mechs absent from the snapshot are dropped.

    Python's cyclic garbage collector only collects the youngest objects while the
    catalogue is built, once per registry read: building allocates several objects a
    tool, all kept, and a full collection walks every live object each time the kept ones
    grow by a quarter (building 10,000 mechs of ``scripts/bench_sync.py``'s manifests took
    4-7 full passes: 2.65-2.98 s of CPU with the collector, 1.28-1.38 s without). A
    catalogue holds no reference cycles, so reference counting frees what the build drops;
    what a parse leaves in cycles (a failed ``$ref`` resolution: about 11 KB a manifest),
    or another thread meanwhile, is young and freed at the next read. The collector is
    switched for the whole process: a caller that disabled it keeps it disabled, and two
    builds at once (none today) would only pause it for less time.
    """
    if not gc.isenabled():
        return _refresh(snapshot, fetched, parse, previous, young_collections=False)
    gc.disable()
    try:
        return _refresh(snapshot, fetched, parse, previous, young_collections=True)
    finally:
        gc.enable()


def _refresh(  # pylint: disable=too-many-locals
    snapshot: RegistrySnapshot,
    fetched: Dict[str, FetchResult],
    parse: ParseFn,
    previous: Optional[Catalogue],
    young_collections: bool,
) -> Catalogue:
    mechs: List[Mech] = []
    # many registrations may point at one manifest: each distinct digest is parsed once,
    # and its parse result dropped after its last registration (Mech.from_manifest has
    # copied the tools: holding every result to the end cost about 50 MiB at 200,000 tools)
    parsed: Dict[str, Tuple[Optional[Manifest], Tuple[Problem, ...]]] = {}
    text_problems: Dict[str, Tuple[Problem, ...]] = {}
    uses = Counter(read.digest for read in snapshot.reads)
    block = snapshot.block_number
    for read in snapshot.reads:
        if young_collections:
            gc.collect(0)
        uses[read.digest] -= 1
        old = previous.mech(read.ref) if previous is not None else None
        if read.error:
            reason = error(
                REGISTRY_READ_FAILED,
                f"reading the hash of {read.ref.key} failed ({read.error}); "
                "check the registry address and kind in the registries parameter",
            )
            mechs.append(_failed_mech(read, old, STATUS_UNAVAILABLE, reason, "", block))
            continue
        if not read.digest:
            mechs.append(
                Mech(ref=read.ref, status=STATUS_NO_HASH, observed_block=block)
            )
            continue
        result = fetched.get(read.digest)
        if result is None:
            result = FetchResult.unavailable(
                read.digest, (), "not fetched in this period"
            )
        if result.packed is None:
            reason = result.problem or error(
                FETCH_FAILED, f"no bytes for digest {read.digest}"
            )
            mechs.append(
                _failed_mech(read, old, result.status, reason, result.cid, block)
            )
            continue
        if _unchanged(old, read, result):
            mechs.append(old.at_block(block))
            continue
        if read.digest not in parsed:
            parsed[read.digest] = _parse_guarded(
                parse, unpack(result.packed), result.cid
            )
        manifest, problems = (
            parsed[read.digest] if uses[read.digest] else parsed.pop(read.digest)
        )
        withheld: Tuple[str, ...] = ()
        if manifest is not None and _all_tools_rejected(manifest, problems):
            withheld = tuple(t.name for t in manifest.withheld)
            manifest = (
                None  # tools declared, none usable: quarantine like a rejected one
            )
        if manifest is None:
            reason = next(
                (p for p in problems if p.is_error),
                error(
                    MANIFEST_REJECTED,
                    f"manifest {result.cid} was rejected by the parser",
                ),
            )
            if old is not None and old.status == STATUS_OK:
                mechs.append(_kept(old, reason))
            else:
                quarantined = Mech.from_manifest(
                    read.ref,
                    None,
                    tuple(problems) or (reason,),
                    read.digest,
                    result.cid,
                    block,
                    STATUS_INVALID,
                )
                mechs.append(replace(quarantined, withheld=withheld))
            continue
        texts = _text_warnings_once(text_problems, read.digest, manifest, uses)
        mechs.append(
            Mech.from_manifest(
                read.ref,
                manifest,
                tuple(problems) + texts,
                read.digest,
                result.cid,
                block,
            )
        )
    return Catalogue.build(with_lookalike_warnings(mechs))


def _text_warnings_once(
    kept: Dict[str, Tuple[Problem, ...]],
    digest: str,
    manifest: Manifest,
    uses: "Counter[str]",
) -> Tuple[Problem, ...]:
    """A manifest's text warnings, read once per digest however many mechs share it.

    They depend on the manifest alone (the scale test's 16,000 mechs share 2,000
    manifests); kept until the digest's last use, as its parse is.

    :param kept: digest -> warnings already read in this refresh.
    :param digest: the manifest's digest.
    :param manifest: the parsed manifest.
    :param uses: digest -> reads of it still to come.
    :return: ``mech_text_problems`` + ``tools_text_problems`` of the manifest.
    """
    texts = kept.pop(digest, None)
    if texts is None:
        texts = mech_text_problems(
            manifest.name, manifest.description, manifest.extra_json
        ) + tools_text_problems(manifest.tools)
    if uses[digest]:
        kept[digest] = texts
    return texts


def digests_to_fetch(
    snapshot: RegistrySnapshot, cached: Callable[[str], bool]
) -> Tuple[str, ...]:
    """List the digests that still need a network fetch.

    :param snapshot: the agreed snapshot.
    :param cached: digest -> True when its bytes are cached.
    :return: the digests that still need a network fetch, sorted.
    """
    return tuple(d for d in snapshot.digests if not cached(d))


#: fetch tiers of :func:`fetch_ranks`, asked for in this order
TIER_SERVED, TIER_NEW, TIER_FAILED = 0, 1, 2


def fetch_ranks(
    snapshot: RegistrySnapshot,
    previous: Optional[Catalogue],
    failed: Iterable[str],
    readable: Iterable[str] = (),
) -> Dict[str, int]:
    """Rank the digests for :func:`manifest_fetcher`: lower ranks are asked for first.

    Anyone may register any number of digests that never resolve, and each period's
    fetch budget is spent in request order, so the order must not be for sale: it never
    follows the digest (``changeHash`` takes any 32 bytes, and a copy's manifest is
    ground to sort first in a few hundred tries). By tier first:

    - :data:`TIER_SERVED`: a digest some mech registers now that had an ``ok`` entry in
      the previous catalogue, or that is in ``readable`` (a record this agent kept of
      what it read before, e.g. across a restart);
    - :data:`TIER_NEW`: any other digest (a new mech, one never served, one the budget
      did not reach last period: "not read yet" keeps this tier);
    - :data:`TIER_FAILED`: such a digest whose fetch failed in the previous period (a
      gateway was asked and nothing verified came), or that a mech registers whose
      previous entry was not ``ok`` after such a failure (a fresh dead hash set on the
      same service each period stays behind new mechs).

    then by registration age within a tier: the lowest ``mech_id`` registering the
    digest (ids are handed out in registration order, so a stranger's new services come
    after every mech registered before them), then the registry address, then the
    digest (only two registries' same id can tie).

    :param snapshot: the agreed snapshot (which mech registers which digest).
    :param previous: the last agreed catalogue, None when this agent holds none.
    :param failed: digests whose fetch failed (a gateway was asked), as
        :func:`still_failing` carries them from period to period.
    :param readable: digests this agent read before (any order, may be empty).
    :return: digest -> its position in the fetch order (0 first), for the snapshot's
        digests.
    """
    served = (
        {m.ref for m in previous.mechs if m.status == STATUS_OK} if previous else set()
    )
    vouched = set(readable) | {
        read.digest for read in snapshot.reads if read.ref in served
    }
    dead = set(failed)
    dead_refs = (
        {m.ref for m in previous.mechs if m.status != STATUS_OK and m.digest in dead}
        if previous
        else set()
    )
    dead |= {read.digest for read in snapshot.reads if read.ref in dead_refs}
    oldest: Dict[str, Tuple[int, str]] = {}
    for read in snapshot.reads:
        age = (read.ref.mech_id, read.ref.registry_address)
        oldest[read.digest] = min(oldest.get(read.digest, age), age)

    def order(digest: str) -> Tuple[int, Tuple[int, str], str]:
        tier = (
            TIER_SERVED
            if digest in vouched
            else TIER_FAILED if digest in dead else TIER_NEW
        )
        return tier, oldest.get(digest, (-1, "")), digest

    return {d: i for i, d in enumerate(sorted(snapshot.digests, key=order))}


def still_failing(
    failed_before: Iterable[str], fetched: Mapping[str, FetchResult]
) -> FrozenSet[str]:
    """Carry the ``failed`` argument of :func:`fetch_ranks` over a period's fetch.

    A digest fails when a gateway was asked and nothing verified came; one the budget
    never reached (``FetchResult.reached`` False) is not read yet and keeps what it was
    (failed before or not), so dead digests that took the budget do not come back ahead
    of a new mech the next period (with only the last period's failures remembered,
    twice a budget's worth of old dead digests would take turns before it forever).

    :param failed_before: the digests that counted as failed before this period.
    :param fetched: this period's results, one per digest of the snapshot.
    :return: the digests that count as failed now (only the snapshot's: bounded by it).
    """
    before = set(failed_before)
    return frozenset(
        digest
        for digest, result in fetched.items()
        if result.failed and (result.reached or digest in before)
    )


def still_readable(
    readable_before: Iterable[str], fetched: Mapping[str, FetchResult]
) -> FrozenSet[str]:
    """Carry the ``readable`` argument of :func:`fetch_ranks` over a period's fetch.

    :param readable_before: the digests read (verified) before this period.
    :param fetched: this period's results, one per digest of the snapshot.
    :return: the digests verified now, and those read before that the budget did not
        reach (only the snapshot's: bounded by it).
    """
    before = set(readable_before)
    return frozenset(
        digest
        for digest, result in fetched.items()
        if not result.failed or (not result.reached and digest in before)
    )


# --- the whole fetch, as a driver-agnostic generator ------------------------------------

#: what :func:`manifest_fetcher` yields: seconds to wait first, then the CIDs to request
#: (all may be in flight at once); it must be sent back cid -> (bytes or None, failure text).
FetchRequest = Tuple[float, List[str]]
FetchReply = Dict[str, Tuple[Optional[bytes], str]]

#: CID codecs tried for one digest, in order: dag-pb (what registries assume), then raw
FETCH_CODECS = (DAG_PB, RAW)


@dataclass(frozen=True)
class FetchPolicy:
    """How hard to try.

    :param retries: retries per CID after the first try.
    :param backoff_initial: seconds before the first retry.
    :param backoff_factor: multiplier per retry.
    :param backoff_max: longest wait, seconds.
    :param max_bytes: largest manifest accepted, bytes.
    """

    retries: int = 2
    backoff_initial: float = 0.5
    backoff_factor: float = 2.0
    backoff_max: float = 8.0
    max_bytes: int = 1_048_576


def _cached(
    cache: ManifestCache, digest: str, cids: Tuple[str, ...]
) -> Optional[FetchResult]:
    for codec, cid in zip(FETCH_CODECS, cids):

        def check(data: bytes, codec: str = codec) -> bool:
            return verify(data, digest, codec).ok

        packed = cache.get_packed(cid, verify=check)
        if packed is not None:
            return FetchResult(digest, cid, packed)
    return None


def _checked(
    cache: ManifestCache,
    policy: FetchPolicy,
    digest: str,
    codec: str,
    cid: str,
    data: Optional[bytes],
) -> Optional[FetchResult]:
    if data is None:
        return None
    packed = None
    if isinstance(data, PackedBytes):
        packed, data = data, unpack(data)
    if len(data) > policy.max_bytes:
        return FetchResult.too_large(digest, cid, len(data), policy.max_bytes)
    if not verify(data, digest, codec).ok:
        return None
    return FetchResult(digest, cid, cache.put(cid, data, packed))


def manifest_fetcher(  # pylint: disable=too-many-locals
    digests: Iterable[str],
    cache: ManifestCache,
    policy: FetchPolicy,
    ranks: Optional[Mapping[str, int]] = None,
) -> Generator[FetchRequest, FetchReply, Dict[str, FetchResult]]:
    """Fetch and verify the manifests behind on-chain digests; the caller does the I/O.

    Cache first (a verified CID is never requested again). Otherwise the dag-pb CID is
    requested, and when it fails the raw CID at once (a manifest added with raw leaves
    has only that one: no wait for it); when both failed, both again after each of
    :func:`backoff_delays`, ``1 + retries`` rounds in all. Bytes count only when they re-hash to the digest (:func:`cid.verify`
    narrowed to the CID's codec); bytes over ``max_bytes`` are rejected unparsed. Only CIDs
    derived from the digests are ever requested: never a URL from chain data or a manifest.

    Each wave asks for the digests by ``ranks`` (:func:`fetch_ranks`), then digest order:
    anyone can register digests that never resolve, and the driver's window stops sending
    once the period's fetch budget is spent (``domain.ipfs.gateways``), so they must not
    take the budget from a served mech's new manifest. A digest none of whose GETs had
    an answer before that is failed with ``reached`` False (not read yet).

    Drive it with ``request = next(gen)`` then ``request = gen.send(reply)`` until
    ``StopIteration.value`` holds the results.

    :param digests: ``0x`` + 64 hex on-chain digests.
    :param cache: the content-addressed cache (read and filled).
    :param policy: retries, backoff and size cap.
    :param ranks: digest -> rank, lower first (missing: 0); it changes the order only,
        never what is fetched.
    :yield: ``(wait_seconds, cids)`` requests.
    :return: digest -> result, one per distinct digest.
    """
    results: Dict[str, FetchResult] = {}
    cids: Dict[str, Tuple[str, ...]] = {}
    pending: List[Tuple[str, int, int]] = []  # (digest, codec index, tries so far)
    rank = ranks or {}
    for digest in sorted(set(digests), key=lambda d: (rank.get(d, 0), d)):
        try:
            cids[digest] = candidate_cids(digest)
        except CidError as exc:
            results[digest] = FetchResult(
                digest, status=STATUS_INVALID, problem=exc.problem
            )
            continue
        hit = _cached(cache, digest, cids[digest])
        if hit is not None:
            results[digest] = hit
        else:
            pending.append((digest, 0, 0))
    delays = backoff_delays(
        policy.retries,
        policy.backoff_initial,
        policy.backoff_factor,
        policy.backoff_max,
    )
    got_bytes: Dict[str, bool] = {}
    answered: Dict[str, bool] = {}  # some GET for it had an answer (budget reached it)
    wait = 0.0
    while pending:
        reply = yield wait, [cids[d][c] for d, c, _ in pending]
        retry: List[Tuple[str, int, int]] = []
        wait = 0.0
        for digest, codec_index, tries in pending:
            cid = cids[digest][codec_index]
            data, failure = reply.get(cid, (None, "no response"))
            got_bytes[digest] = got_bytes.get(digest, False) or data is not None
            answered[digest] = answered.get(digest, False) or not never_requested(
                failure
            )
            outcome = _checked(
                cache, policy, digest, FETCH_CODECS[codec_index], cid, data
            )
            if outcome is not None:
                results[digest] = outcome
            elif codec_index + 1 < len(FETCH_CODECS):
                retry.append((digest, codec_index + 1, tries))
            elif tries < len(delays):
                retry.append((digest, 0, tries + 1))
                wait = max(wait, delays[tries])
            elif got_bytes[digest]:
                results[digest] = FetchResult.mismatch(digest, cid)
            else:
                results[digest] = FetchResult.unavailable(
                    digest, cids[digest], f"{cid}: {failure}", answered[digest]
                )
        pending = retry
    return results
