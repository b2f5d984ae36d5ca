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

"""Pure domain code the FSM relies on: registry call plans, snapshots, fetch policy, catalogue refresh."""

import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import List, Mapping, Optional, Tuple

import pytest
from eth_abi import encode
from eth_utils import to_checksum_address
from mech_catalogue_core.adapters.directory import DirectoryStore
from mech_catalogue_core.catalogue.fetching import (
    KEPT_LAST_GOOD,
    PARSER_FAILED,
    REGISTRY_READ_FAILED,
    FetchPolicy,
    FetchResult,
    ManifestCache,
    backoff_delays,
    manifest_fetcher,
    pack,
    refresh_catalogue,
)
from mech_catalogue_core.catalogue.views import (
    mech_tools_view,
    mechs_info_view,
)
from mech_catalogue_core.chain.registry import (
    READ_CALL_FAILED,
    READ_UNDECODABLE,
    DigestRead,
    IdSelection,
    RegistryConfigError,
    RegistryDecodeError,
    decode_batch,
    decode_digest_query,
    digest_query,
    parse_registry_sources,
    snapshot_reader,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    RAW,
    digest_to_cid,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_HASH_MISMATCH,
    STATUS_INVALID,
    STATUS_NO_HASH,
    STATUS_OK,
    STATUS_UNAVAILABLE,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)
from mech_catalogue_core.model.tool import MechRef

ADDRESS = "0x" + "ab" * 20
SOURCES = parse_registry_sources(
    [
        {"kind": "olas_agent_registry", "address": ADDRESS, "ids": [1]},
        {"kind": "legacy_mech_registry", "address": "0x" + "cd" * 20, "ids": [1]},
        {
            "kind": "complementary_service_metadata",
            "address": "0x" + "ef" * 20,
            "ids": [1],
        },
    ],
    100,
)
H1, H2 = b"\x11" * 32, b"\x22" * 32


def parse(data: bytes):
    """Parse as the skill does.

    :param data: manifest bytes.
    :return: (manifest, problems).
    """
    result = parse_manifest(data)
    return result.manifest, result.problems


def manifest(*tools: str) -> bytes:
    """Build a name-only manifest.

    :param tools: tool names.
    :return: the bytes.
    """
    return json.dumps({"name": "m", "tools": list(tools)}).encode()


def raw(data: bytes) -> str:
    """Compute a raw-block digest.

    :param data: bytes.
    :return: 0x-hex digest.
    """
    return "0x" + hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize(
    "kind_index, results, digest, error",
    [
        (
            0,
            [
                (True, encode(["uint256", "bytes32[]"], [2, [H1, H2]])),
                (True, encode(["bytes32"], [H1])),
            ],
            "0x" + H2.hex(),
            "",
        ),
        (
            0,
            [
                (True, encode(["uint256", "bytes32[]"], [0, []])),
                (True, encode(["bytes32"], [H1])),
            ],
            "0x" + H1.hex(),
            "",
        ),
        (
            0,
            [
                (True, encode(["uint256", "bytes32[]"], [0, []])),
                (True, encode(["bytes32"], [b"\x00" * 32])),
            ],
            "",
            "",
        ),
        (
            1,
            [(True, encode(["uint256", "bytes32[]"], [2, [H1, H2]]))],
            "0x" + H2.hex(),
            "",
        ),
        (1, [(False, b"")], "", READ_CALL_FAILED),
        (2, [(True, encode(["bytes32"], [H1]))], "0x" + H1.hex(), ""),
        (2, [(True, b"\x01")], "", READ_UNDECODABLE),
    ],
)
def test_latest_digest_per_registry_kind(
    kind_index: int, results, digest: str, error: str
) -> None:
    """Olas: last updated hash else the unit hash; legacy: last hash; CSM: the mapped hash; failures coded."""
    query = digest_query(kind_index, SOURCES[kind_index], 1)
    read = decode_digest_query(query, SOURCES[kind_index], results)
    assert (read.digest, read.error) == (digest, error)


def test_olas_query_never_uses_token_uri() -> None:
    """The Olas query calls getUpdatedHashes and mapUnits, not tokenURI (which keeps the first hash)."""
    selectors = {c.data[:4].hex() for c in digest_query(0, SOURCES[0], 1).calls}
    token_uri = "c87b56dd"  # tokenURI(uint256)
    assert token_uri not in selectors and len(selectors) == 2


def test_id_selection_resolution_and_cap() -> None:
    """Ranges and 'all' are capped by max_ids_per_registry; 'all' needs a supply."""
    assert IdSelection("range", start=5, end=100).resolve(None, 3) == (5, 6, 7)
    assert IdSelection("all").resolve(4, 10) == (1, 2, 3, 4)
    assert IdSelection("all").resolve(40, 2) == (1, 2)
    with pytest.raises(RegistryConfigError, match="totalSupply"):
        IdSelection("all").resolve(None, 10)


@pytest.mark.parametrize(
    "ids",
    [[1, 2**53], [2**255], {"from": 1, "to": 2**53}, {"from": 2**64, "to": 2**65}],
)
def test_ids_the_snapshot_digest_cannot_hold_are_refused_at_start(ids) -> None:
    """An id above 2**53 - 1 is refused naming the field and the limit.

    The agent's RegistrySnapshotBehaviour canonicalises ids into the snapshot digest as
    I-JSON numbers: 2**255 configured as an id made it raise (found by the fault tests
    once they drove the behaviour), so such ids never get past the parameters.

    :param ids: the ``ids`` field configured.
    """
    with pytest.raises(RegistryConfigError, match=r"registries\[0\]\.ids.*2\*\*53 - 1"):
        parse_registry_sources(
            [
                {
                    "kind": "complementary_service_metadata",
                    "address": ADDRESS,
                    "ids": ids,
                }
            ],
            100,
        )


def test_the_largest_id_is_accepted_and_digested() -> None:
    """2**53 - 1 is a valid id: the source parses and a snapshot holding it has a digest."""
    sources = parse_registry_sources(
        [
            {
                "kind": "complementary_service_metadata",
                "address": ADDRESS,
                "ids": [2**53 - 1],
            }
        ],
        100,
    )
    source = sources[0]
    assert len(sources) == 1 and source.ids.resolve(None, 10) == (2**53 - 1,)
    read = DigestRead(MechRef(100, source.kind, ADDRESS, 2**53 - 1), "", "")
    assert len(RegistrySnapshot.build(1, [read]).digest()) == 64


def test_decode_batch_rejects_garbage_and_wrong_counts() -> None:
    """A non-Multicall2 answer or a short answer is an error, not a wrong snapshot."""
    good = encode(
        ["uint256", "bytes32", "(bool,bytes)[]"], [7, b"\x00" * 32, [(True, b"")]]
    )
    assert decode_batch(good, 1) == (7, [(True, b"")])
    with pytest.raises(RegistryDecodeError, match="2 calls"):
        decode_batch(good, 2)
    with pytest.raises(RegistryDecodeError, match="multicall2_address"):
        decode_batch(b"\x12\x34", 1)


def drive_reader(
    sources, replies: List[Tuple[int, list]]
) -> Tuple[List[Tuple[int, Optional[int]]], Tuple[int, list]]:
    """Drive snapshot_reader with canned replies.

    :param sources: the registries.
    :param replies: one reply per yielded batch.
    :return: (calls per batch, block) for each batch, and the reader's result.
    :raises AssertionError: when the reader asks for more batches than given.
    """
    reader = snapshot_reader(sources, "0x" + "ff" * 20, 2, 100, 10)
    seen: List[Tuple[int, Optional[int]]] = []
    try:
        batch, block = next(reader)
        for canned in replies:
            seen.append((len(batch), block))
            batch, block = reader.send(canned)
    except StopIteration as done:
        return seen, done.value
    raise AssertionError("reader asked for more batches than replies")


def test_reader_aligns_the_block_and_batches_calls() -> None:
    """Block 27 reads at 20; a legacy registry with ids all: the supply rides with the first 2 hashes."""
    sources = parse_registry_sources(
        [{"kind": "legacy_mech_registry", "address": ADDRESS, "ids": "all"}], 100
    )
    hashes = encode(["uint256", "bytes32[]"], [1, [H1]])
    supply = (True, encode(["uint256"], [3]))
    seen, (block, reads) = drive_reader(
        sources,
        [
            (27, [(True, b"")]),
            (20, [supply] + [(True, hashes)] * 2),
            (20, [(True, hashes)]),
        ],
    )
    assert seen == [(1, None), (3, 20), (1, 20)]
    assert block == 20 and [r.ref.mech_id for r in reads] == [1, 2, 3]


def test_reader_drops_speculative_reads_past_the_supply() -> None:
    """Supply 1: the second id read in the first batch is not in the snapshot; no more batches."""
    sources = parse_registry_sources(
        [{"kind": "legacy_mech_registry", "address": ADDRESS, "ids": "all"}], 100
    )
    hashes = encode(["uint256", "bytes32[]"], [1, [H1]])
    seen, (_, reads) = drive_reader(
        sources,
        [
            (27, [(True, b"")]),
            (20, [(True, encode(["uint256"], [1])), (True, hashes), (False, b"")]),
        ],
    )
    assert seen == [(1, None), (3, 20)]
    assert [(r.ref.mech_id, r.digest, r.error) for r in reads] == [
        (1, "0x" + H1.hex(), "")
    ]


def test_reader_reads_service_registry_with_the_first_digests() -> None:
    """Complementary metadata with ids all plus a listed legacy id, interval 1: two calls in all.

    The first batch (at latest) carries serviceRegistry() with the first digests and its
    reply gives the block; the second carries totalSupply() and ids read past it are dropped.
    """
    service_registry = "0x" + "12" * 20
    sources = parse_registry_sources(
        [
            {"kind": "legacy_mech_registry", "address": ADDRESS, "ids": [5]},
            {
                "kind": "complementary_service_metadata",
                "address": "0x" + "ef" * 20,
                "ids": "all",
            },
        ],
        100,
    )
    reader = snapshot_reader(sources, "0x" + "ff" * 20, 3, 100, 1)
    batch, block = next(reader)
    assert block is None and len(batch) == 4  # serviceRegistry(), id 5, ids 1 and 2
    batch, block = reader.send(
        (
            7,
            [(True, encode(["address"], [service_registry]))]
            + [(True, encode(["uint256", "bytes32[]"], [1, [H1]]))]
            + [(True, H2)] * 2,
        )
    )
    assert block == 7 and batch[0].target == service_registry and len(batch) == 4
    with pytest.raises(StopIteration) as done:
        reader.send((7, [(True, encode(["uint256"], [2]))] + [(True, H1)] * 3))
    block, reads = done.value.value
    assert block == 7
    assert [(r.ref.registry_kind, r.ref.mech_id, r.digest) for r in reads] == [
        ("legacy_mech_registry", 5, "0x" + H1.hex()),
        ("complementary_service_metadata", 1, "0x" + H2.hex()),
        ("complementary_service_metadata", 2, "0x" + H2.hex()),
    ]


def test_reader_with_nothing_to_read_still_names_its_block() -> None:
    """No source at all (the domain function's edge; config needs one): one getBlockNumber()."""
    reader = snapshot_reader([], "0x" + "ff" * 20, 3, 100, 1)
    batch, block = next(reader)
    assert block is None and [c.signature for c in batch] == ["getBlockNumber()"]
    with pytest.raises(StopIteration) as done:
        reader.send((41, [(True, encode(["uint256"], [41]))]))
    assert done.value.value == (41, [])


def test_reader_reports_a_reverting_supply() -> None:
    """A reverting totalSupply() names the registry."""
    sources = parse_registry_sources(
        [{"kind": "olas_agent_registry", "address": ADDRESS, "ids": "all"}], 100
    )
    with pytest.raises(RegistryDecodeError, match=ADDRESS):
        drive_reader(sources, [(1, [(True, b"")]), (0, [(False, b"")])])


def test_snapshot_digest_is_order_independent_and_round_trips() -> None:
    """Same reads in any order give the same digest; JSON round-trips; bad JSON is a ValueError.

    The grouped form costs under 100 bytes per id (payloads carry it).
    """
    reads = [DigestRead(SOURCES[i].ref(1), "0x" + H1.hex()) for i in range(3)]
    one, two = RegistrySnapshot.build(5, reads), RegistrySnapshot.build(
        5, reversed(reads)
    )
    assert (
        one.digest() == two.digest()
        and RegistrySnapshot.from_json(one.to_json()) == one
    )
    assert RegistrySnapshot.build(6, reads).digest() != one.digest()
    many = RegistrySnapshot.build(
        1, [DigestRead(SOURCES[2].ref(i), "0x" + H1.hex()) for i in range(1, 1001)]
    )
    assert len(many.to_json()) < 100 * 1000
    for bad in (
        "[]",
        '{"version": 2}',
        '{"version": 1, "block_number": 1, "registries": [[1, "k", "0x", [[1]]]]}',
        "{",
    ):
        with pytest.raises(ValueError):
            RegistrySnapshot.from_json(bad)


def test_backoff_is_exponential_and_capped() -> None:
    """Delays grow by the factor up to the cap."""
    assert backoff_delays(4, 0.5, 2.0, 1.5) == (0.5, 1.0, 1.5, 1.5)
    assert not backoff_delays(0, 1, 2, 3)


def test_cache_holds_entries_compressed_and_gives_the_same_bytes(
    tmp_path: Path,
) -> None:
    """In memory an entry is packed (smaller for a manifest); get gives the bytes back exactly; disk keeps them as fetched."""
    data = json.dumps(
        {"tools": [f"tool-{i}" for i in range(200)], "description": "\u00e9" * 50}
    ).encode()
    cache = ManifestCache(DirectoryStore(str(tmp_path)))
    packed = cache.put("bafkreiabc", data)
    assert packed == pack(data) and len(packed) < len(data) // 3
    assert cache.get("bafkreiabc") == data and cache.get_packed("bafkreiabc") == packed
    assert (tmp_path / "bafkreiabc").read_bytes() == data
    fresh = ManifestCache(
        DirectoryStore(str(tmp_path))
    )  # a restart: read from disk, verified, packed
    assert fresh.get_packed("bafkreiabc", verify=lambda d: d == data) == packed
    assert fresh.get("bafkreiabc") == data
    assert cache.get("bafkreimissing") is None


def test_fetch_result_packs_its_bytes() -> None:
    """A success holds the packed bytes and gives them back; a failure holds none."""
    data = b'{"tools": []}' * 40
    ok = FetchResult.ok("0x" + "11" * 32, "bafkreiabc", data)
    assert ok.packed == pack(data) and ok.data == data and not ok.failed
    failed = FetchResult.unavailable("0x" + "11" * 32, ["bafkreiabc"], "timeout")
    assert failed.packed is None and failed.data is None and failed.failed


def test_cache_mirrors_to_disk_and_reverifies(tmp_path: Path) -> None:
    """A disk entry is served only when it still verifies; names that are not CIDs never touch disk."""
    cache = ManifestCache(DirectoryStore(str(tmp_path)))
    cache.put("bafkreiabc", b"data")
    fresh = ManifestCache(DirectoryStore(str(tmp_path)))
    assert fresh.get("bafkreiabc", verify=lambda d: d == b"data") == b"data"
    (tmp_path / "bafkreiabc").write_bytes(b"tampered")
    assert (
        ManifestCache(DirectoryStore(str(tmp_path))).get(
            "bafkreiabc", verify=lambda d: d == b"data"
        )
        is None
    )
    cache.put("../escape", b"x")
    assert not (tmp_path.parent / "escape").exists()


def entry(catalogue: Catalogue, mech_ref: MechRef) -> Mech:
    """Get a mech's entry.

    :param catalogue: the catalogue.
    :param mech_ref: the mech.
    :return: its entry (the test fails when the catalogue has none).
    """
    mech = catalogue.mech(mech_ref)
    assert mech is not None, mech_ref
    return mech


def drive_fetcher(
    digests,
    cache,
    serve: Mapping[str, Tuple[Optional[bytes], str]],
    policy=FetchPolicy(retries=1, backoff_initial=0.1, backoff_max=0.1, max_bytes=64),
):
    """Drive manifest_fetcher against a dict of CID -> answer.

    :param digests: the digests.
    :param cache: the cache.
    :param serve: what the fake endpoint answers per CID (missing: no answer).
    :param policy: the policy.
    :return: (results, requested CIDs in order, waits).
    """
    fetcher = manifest_fetcher(digests, cache, policy)
    requested: List[str] = []
    waits: List[float] = []
    try:
        wait, cids = next(fetcher)
        while True:
            requested += cids
            waits.append(wait)
            wait, cids = fetcher.send(
                {cid: serve.get(cid, (None, "timeout")) for cid in cids}
            )
    except StopIteration as done:
        return done.value, requested, waits


def test_fetcher_falls_back_to_raw_and_caches() -> None:
    """The dag-pb CID unanswered, then at once the raw CID verifies; a second run requests nothing."""
    data = manifest("a")
    digest = raw(data)
    cache = ManifestCache()
    results, requested, waits = drive_fetcher(
        [digest], cache, {digest_to_cid(digest, RAW): (data, "")}
    )
    assert results[digest].status == STATUS_OK and results[digest].cid == digest_to_cid(
        digest, RAW
    )
    assert requested == [digest_to_cid(digest, DAG_PB), digest_to_cid(digest, RAW)]
    assert waits == [0.0, 0.0]  # no backoff while the other codec is left to try
    again, requested, _ = drive_fetcher([digest], cache, {})
    assert again[digest].data == data and not requested


def test_fetcher_mismatch_too_large_and_unavailable() -> None:
    """Wrong bytes: hash_mismatch; oversized: invalid/too_large at once; silence: unavailable."""
    wrong, big, silent = raw(b"x"), raw(b"y" * 100), raw(b"z")
    serve = {}
    for codec in (DAG_PB, RAW):
        serve[digest_to_cid(wrong, codec)] = (b"not it", "")
        serve[digest_to_cid(big, codec)] = (b"y" * 100, "")
    results, requested, _ = drive_fetcher([wrong, big, silent], ManifestCache(), serve)
    assert results[wrong].status == STATUS_HASH_MISMATCH
    assert (
        results[big].status == STATUS_INVALID
        and results[big].problem.code == "too_large"
    )
    assert requested.count(digest_to_cid(big, DAG_PB)) == 1
    assert (
        results[silent].status == STATUS_UNAVAILABLE
        and results[silent].problem.code == "fetch_failed"
    )
    # transport detail stays with this agent, out of the agreed problem
    assert "timeout" in results[silent].detail
    assert "timeout" not in results[silent].problem.message


def test_refresh_covers_every_status() -> None:
    """No hash, read failure, fetch failure with and without a last good, parser crash, removal."""
    good = manifest("a", "b")
    refs = [MechRef(100, "legacy_mech_registry", ADDRESS, i) for i in range(1, 6)]
    d_good = raw(good)
    first = refresh_catalogue(
        RegistrySnapshot.build(
            10,
            [
                DigestRead(refs[0], d_good),
                DigestRead(refs[1], d_good),
                DigestRead(refs[4], d_good),
            ],
        ),
        {d_good: FetchResult.ok(d_good, "bafk", good)},
        parse,
    )
    d_gone = raw(b"gone")
    second = refresh_catalogue(
        RegistrySnapshot.build(
            20,
            [
                DigestRead(refs[0], d_gone),  # fetch fails, last good kept
                DigestRead(refs[1], "", READ_CALL_FAILED),  # read fails, last good kept
                DigestRead(refs[2], ""),  # no hash
                DigestRead(refs[3], d_gone),  # fetch fails, nothing to keep
            ],  # refs[4] no longer configured: dropped
        ),
        {d_gone: FetchResult.unavailable(d_gone, ["bafy"], "timeout")},
        parse,
        first,
    )
    kept = entry(second, refs[0])
    assert (
        kept.status == STATUS_OK
        and kept.observed_block == 10
        and KEPT_LAST_GOOD in [p.code for p in kept.problems]
    )
    assert REGISTRY_READ_FAILED in [p.code for p in entry(second, refs[1]).problems]
    assert entry(second, refs[2]).status == STATUS_NO_HASH
    assert entry(second, refs[3]).status == STATUS_UNAVAILABLE
    assert second.mech(refs[4]) is None
    assert set(second.stale(20)) == {kept, second.mech(refs[1])}

    def crashing(_: bytes):
        raise KeyError("text that differs between Python versions")

    crashed = refresh_catalogue(
        RegistrySnapshot.build(1, [DigestRead(refs[0], d_good)]),
        {d_good: FetchResult.ok(d_good, "bafk", good)},
        crashing,
    )
    crashed_entry = entry(crashed, refs[0])
    assert (
        crashed_entry.status == STATUS_INVALID
        and crashed_entry.problems[0].code == PARSER_FAILED
    )
    # the problem enters the agreed catalogue: the exception's type, never its text
    assert "(KeyError)" in crashed_entry.problems[0].message
    assert "differs" not in crashed_entry.problems[0].message


class CountingParse:  # pylint: disable=too-few-public-methods
    """The skill's parser, counting the bytes it is asked to parse."""

    def __init__(self) -> None:
        """Start with no calls."""
        self.parsed: List[bytes] = []

    def __call__(self, data: bytes):
        """Parse and record.

        :param data: manifest bytes.
        :return: (manifest, problems).
        """
        self.parsed.append(data)
        return parse(data)


def test_warm_refresh_reuses_unchanged_mechs_without_parsing() -> None:
    """Same ref, digest and CID: no parse, same catalogue as a fresh build at the new block."""
    one, two = manifest("a"), manifest("b", "c")
    d_one, d_two = raw(one), raw(two)
    refs = [MechRef(100, "legacy_mech_registry", ADDRESS, i) for i in (1, 2)]
    fetched = {
        d_one: FetchResult.ok(d_one, "bafk-one", one),
        d_two: FetchResult.ok(d_two, "bafk-two", two),
    }
    first = refresh_catalogue(
        RegistrySnapshot.build(10, [DigestRead(refs[0], d_one)]), fetched, parse
    )
    counting = CountingParse()
    snapshot = RegistrySnapshot.build(
        20, [DigestRead(refs[0], d_one), DigestRead(refs[1], d_two)]
    )
    warm = refresh_catalogue(snapshot, fetched, counting, first)
    assert counting.parsed == [two]  # only the new mech's manifest
    assert warm.digest() == refresh_catalogue(snapshot, fetched, parse).digest()
    assert entry(warm, refs[0]).observed_block == 20

    moved = {d_one: FetchResult.ok(d_one, "bafy-one", one), d_two: fetched[d_two]}
    counting = CountingParse()
    again = refresh_catalogue(snapshot, moved, counting, warm)
    assert counting.parsed == [one]  # same digest under another CID: parsed again
    assert entry(again, refs[0]).cid == "bafy-one"


def test_kept_last_good_entry_is_parsed_again_when_its_digest_returns() -> None:
    """A kept entry carries the failure notes; the digest coming back must rebuild it clean."""
    good = manifest("a")
    d_good, d_gone = raw(good), raw(b"gone")
    ref = MechRef(100, "legacy_mech_registry", ADDRESS, 1)
    ok = {d_good: FetchResult.ok(d_good, "bafk", good)}
    first = refresh_catalogue(
        RegistrySnapshot.build(10, [DigestRead(ref, d_good)]), ok, parse
    )
    kept = refresh_catalogue(
        RegistrySnapshot.build(20, [DigestRead(ref, d_gone)]),
        {d_gone: FetchResult.unavailable(d_gone, ["bafy"], "timeout")},
        parse,
        first,
    )
    assert KEPT_LAST_GOOD in [p.code for p in entry(kept, ref).problems]
    counting = CountingParse()
    back = refresh_catalogue(
        RegistrySnapshot.build(30, [DigestRead(ref, d_good)]), ok, counting, kept
    )
    assert counting.parsed == [good]
    assert entry(back, ref).problems == entry(first, ref).problems
    assert entry(back, ref).observed_block == 30


def test_catalogue_lookups_by_ref_and_key() -> None:
    """mech() and mech_by_key() find entries through the index; unknown ones give None."""
    refs = [MechRef(100, "legacy_mech_registry", ADDRESS, i) for i in (3, 1, 2)]
    catalogue = Catalogue.build(Mech(ref=r) for r in refs)
    for ref in refs:
        assert entry(catalogue, ref).ref == ref
        found = catalogue.mech_by_key(ref.key)
        assert found is not None and found.ref == ref
    missing = MechRef(100, "legacy_mech_registry", ADDRESS, 9)
    assert (
        catalogue.mech(missing) is None and catalogue.mech_by_key(missing.key) is None
    )
    assert catalogue == Catalogue.build(Mech(ref=r) for r in refs)
    assert Catalogue.from_json(catalogue.to_json()).digest() == catalogue.digest()


def test_views_list_only_usable_mechs_in_mech_interact_shape() -> None:
    """mechs_info holds ok mechs only, with exactly MechInfo's field names; mech_tools is sorted and distinct."""
    good = manifest("b", "a")
    d = raw(good)
    refs = [MechRef(100, "legacy_mech_registry", ADDRESS, i) for i in (1, 2)]
    catalogue = refresh_catalogue(
        RegistrySnapshot.build(1, [DigestRead(refs[0], d), DigestRead(refs[1], "")]),
        {d: FetchResult.ok(d, "bafk", good)},
        parse,
    )
    assert not mechs_info_view(catalogue)  # no marketplace facts: nothing to rank
    facts = MechFacts(
        address="0x" + "01" * 20,
        service_id=1,
        block=1,
        confirmed=True,
        max_delivery_rate=10,
        requests=2,
        deliveries=1,
        karma=0,
    )
    catalogue = Catalogue.build(
        replace(m, marketplace=(facts,)) if m.ref == refs[0] else m
        for m in catalogue.mechs
    )
    view = mechs_info_view(catalogue)
    assert [set(item) for item in view] == [
        {
            "id",
            "address",
            "service",
            "karma",
            "received_requests",
            "self_delivered",
            "max_delivery_rate",
            "relevant_tools",
        }
    ]
    assert view[0]["address"] == to_checksum_address("0x" + "01" * 20) and view[0][
        "service"
    ]["metadata"] == [{"metadata": d}]
    assert mech_tools_view(catalogue) == ["a", "b"]
