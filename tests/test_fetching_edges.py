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

"""Fetch policy and cache edges that mutation testing found unpinned (docs/testing.md).

``mech_catalogue_core/catalogue/fetching.py``: disk cache entries are re-verified against the digest *and* the
codec of the CID they are filed under; the size cap accepts exactly ``max_bytes``;
results and failed entries name the digest and the CID they concern; an ok entry with
only warnings is reused without parsing; ``digests_to_fetch`` lists the uncached ones.
"""

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

import pytest
from mech_catalogue_core.adapters.directory import DirectoryStore
from mech_catalogue_core.catalogue.fetching import (
    KEPT_LAST_GOOD,
    PARSER_FAILED,
    FetchPolicy,
    FetchResult,
    ManifestCache,
    digests_to_fetch,
    manifest_fetcher,
    refresh_catalogue,
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
    digest_to_cid,
)
from mech_catalogue_core.ipfs.unixfs import (
    root_digest,
)
from mech_catalogue_core.model.problems import (
    TOO_LARGE,
)

from tests.test_contract_guards import build, manifest, parse, raw_digest, ref

POLICY = FetchPolicy(retries=0, backoff_initial=0.0, backoff_max=0.0, max_bytes=64)


def run(digests, cache: ManifestCache, replies: Dict[str, bytes], policy=POLICY):
    """Drive manifest_fetcher, answering each requested CID from ``replies``.

    :param digests: the digests.
    :param cache: the cache.
    :param replies: cid -> bytes (a CID not in it gets no answer).
    :param policy: the policy.
    :return: (results, every CID requested).
    """
    asked: List[str] = []
    fetcher = manifest_fetcher(digests, cache, policy)
    try:
        _, cids = next(fetcher)
        while True:
            asked += cids
            reply: Dict[str, Tuple[object, str]] = {
                cid: (replies.get(cid), "" if cid in replies else "HTTP 502")
                for cid in cids
            }
            _, cids = fetcher.send(reply)  # type: ignore[arg-type]
    except StopIteration as done:
        return done.value, asked


def dag_pb(data: bytes) -> str:
    """The dag-pb digest kubo gives ``data`` (CIDv1, raw leaves off).

    :param data: bytes.
    :return: ``0x`` hex.
    """
    return "0x" + root_digest(data, raw_leaves=False, cid_version=1)[1].hex()


def test_tampered_disk_cache_entry_is_fetched_again(tmp_path: Path) -> None:
    """A mirrored entry whose file was altered fails re-verification: the CID is requested again."""
    data = manifest("a")
    digest = dag_pb(data)
    cid = digest_to_cid(digest, DAG_PB)
    ManifestCache(DirectoryStore(str(tmp_path))).put(cid, data)
    (tmp_path / cid).write_bytes(manifest("evil"))
    results, asked = run(
        [digest], ManifestCache(DirectoryStore(str(tmp_path))), {cid: data}
    )
    assert asked == [cid] and results[digest].data == data


def test_disk_entry_is_verified_under_its_own_codec(tmp_path: Path) -> None:
    """Bytes filed under the dag-pb CID that hash only as raw are not a cache hit for that CID."""
    data = manifest("a")
    digest = raw_digest(data)  # the raw root of these bytes
    dag_cid, raw_cid = digest_to_cid(digest, DAG_PB), digest_to_cid(digest, RAW)
    (tmp_path / dag_cid).write_bytes(data)  # wrongly filed under the dag-pb CID
    results, asked = run(
        [digest], ManifestCache(DirectoryStore(str(tmp_path))), {raw_cid: data}
    )
    assert asked == [dag_cid, raw_cid]  # the dag-pb entry was not trusted
    assert results[digest].cid == raw_cid and results[digest].data == data


def test_good_disk_entry_is_a_hit(tmp_path: Path) -> None:
    """Counterpart: an intact mirrored entry is served without any request."""
    data = manifest("a")
    digest = dag_pb(data)
    cid = digest_to_cid(digest, DAG_PB)
    ManifestCache(DirectoryStore(str(tmp_path))).put(cid, data)
    assert sorted(os.listdir(tmp_path)) == [cid]  # no temporary file left behind
    cache = ManifestCache(DirectoryStore(str(tmp_path)))
    assert cid not in cache and len(cache) == 0  # nothing in memory yet
    results, asked = run([digest], cache, {})
    assert not asked and results[digest].data == data
    assert results[digest].digest == digest and results[digest].cid == cid
    assert cid in cache and len(cache) == 1


def test_size_cap_accepts_exactly_max_bytes() -> None:
    """max_bytes bytes are accepted; one more is TOO_LARGE naming the CID, the size and the cap."""
    at_cap = (b'{"name":"m","tools":["a"],"p":"' + b"x" * 64)[:63] + b"}"
    assert len(at_cap) == 64
    digest = raw_digest(at_cap)
    raw_cid = digest_to_cid(digest, RAW)
    results, _ = run([digest], ManifestCache(), {raw_cid: at_cap})
    assert results[digest].data == at_cap and results[digest].digest == digest
    over = at_cap + b" "
    d_over = raw_digest(over)
    over_cid = digest_to_cid(d_over, DAG_PB)
    results, asked = run([d_over], ManifestCache(), {over_cid: over})
    result = results[d_over]
    assert asked == [over_cid]  # rejected at the first CID, never re-hashed
    assert result.data is None and result.digest == d_over and result.cid == over_cid
    assert result.problem is not None and result.problem.code == TOO_LARGE
    # facts only (agents must agree): the cap, never how many bytes this agent read
    assert result.problem.message == (
        f"manifest {over_cid} is larger than max_manifest_bytes=64; "
        "shrink the manifest or raise the parameter"
    )


def test_failed_entry_names_the_cid_it_failed_on() -> None:
    """A too-large manifest of a new mech: the entry carries the digest and the CID tried."""
    over = b"x" * 100
    digest = raw_digest(over)
    cid = digest_to_cid(digest, DAG_PB)
    results, _ = run([digest], ManifestCache(), {cid: over})
    entry = build(5, [DigestRead(ref(1), digest)], results).mech(ref(1))
    assert entry is not None and entry.cid == cid and entry.digest == digest


def test_kept_last_good_note_names_the_manifest_and_block() -> None:
    """kept_last_good says which manifest is served, read at which block, and why."""
    good = manifest("a")
    d_good = raw_digest(good)
    first = build(
        7,
        [DigestRead(ref(1), d_good)],
        {d_good: FetchResult.ok(d_good, "bafkgood", good)},
    )
    d_new = raw_digest(b"new")
    entry = build(
        9,
        [DigestRead(ref(1), d_new)],
        {d_new: FetchResult.unavailable(d_new, ["bafknew"], "HTTP 502")},
        first,
    ).mech(ref(1))
    assert entry is not None
    note = next(p for p in entry.problems if p.code == KEPT_LAST_GOOD)
    assert note.message == (
        "serving the last good manifest bafkgood (read at block 7) "
        "because the current one failed: fetch_failed"
    )


def test_parser_crash_names_the_cid_and_the_error() -> None:
    """A parser that raises quarantines the manifest, naming its CID and the exception's type.

    Not the exception's text: it can differ between agents, and the problem is agreed on.
    """
    data = manifest("a")
    digest = raw_digest(data)

    def crashing(_: bytes):
        raise KeyError("boom")

    catalogue = refresh_catalogue(
        RegistrySnapshot.build(1, [DigestRead(ref(1), digest)]),
        {digest: FetchResult.ok(digest, "bafkcrash", data)},
        crashing,
    )
    entry = catalogue.mech(ref(1))
    assert entry is not None and entry.problems[0].code == PARSER_FAILED
    assert entry.problems[0].message == (
        "the manifest parser failed on bafkcrash (KeyError); the mech is "
        "quarantined, report this manifest"
    )


def test_ok_entry_with_only_warnings_is_reused_without_parsing() -> None:
    """An unchanged ok mech whose manifest has warnings is reused like one without."""
    data = json.dumps({"name": "m", "tools": ["a"], "toolMetadata": {"b": {}}}).encode()
    digest = raw_digest(data)
    fetched = {digest: FetchResult.ok(digest, "bafkw", data)}
    first = build(1, [DigestRead(ref(1), digest)], fetched)
    entry = first.mech(ref(1))
    assert (
        entry is not None
        and entry.problems
        and not any(p.is_error for p in entry.problems)
    )
    parsed: List[bytes] = []

    def counting(raw: bytes):
        parsed.append(raw)
        return parse(raw)

    again = refresh_catalogue(
        RegistrySnapshot.build(2, [DigestRead(ref(1), digest)]),
        fetched,
        counting,
        first,
    )
    assert not parsed and again.mech(ref(1)).observed_block == 2  # type: ignore[union-attr]


def test_digests_to_fetch_lists_the_uncached_ones() -> None:
    """Only digests the cache lacks need a fetch, in the snapshot's (sorted) order."""
    digests = ["0x" + hashlib.sha256(bytes([i])).hexdigest() for i in range(4)]
    snapshot = RegistrySnapshot.build(
        1, [DigestRead(ref(i + 1), d) for i, d in enumerate(digests)]
    )
    cached = {digests[1], digests[3]}
    assert digests_to_fetch(snapshot, lambda d: d in cached) == tuple(
        sorted({digests[0], digests[2]})
    )


def test_every_cid_is_tried_one_plus_retries_times() -> None:
    """retries=2: three rounds of the dag-pb CID then the raw CID; unavailable names the digest."""
    digest = raw_digest(b"never served")
    policy = FetchPolicy(retries=2, backoff_initial=0.0, backoff_max=0.0, max_bytes=64)
    results, asked = run([digest], ManifestCache(), {}, policy)
    dag_cid, raw_cid = digest_to_cid(digest, DAG_PB), digest_to_cid(digest, RAW)
    assert asked == [dag_cid, raw_cid] * 3
    result = results[digest]
    assert result.digest == digest and result.data is None
    assert result.problem is not None and digest in result.problem.message
    # the transport detail is this agent's diagnostic, never in the agreed problem
    assert "HTTP 502" not in result.problem.message
    assert f"{raw_cid}: HTTP 502" in result.detail


def waits_and_requests(digests, replies: Dict[str, bytes], policy: FetchPolicy):
    """Drive manifest_fetcher, recording each request's wait and CIDs.

    :param digests: the digests.
    :param replies: cid -> bytes (a CID not in it fails with HTTP 502).
    :param policy: the policy.
    :return: (results, [(wait seconds, cids) of each request]).
    """
    requests: List[Tuple[float, List[str]]] = []
    fetcher = manifest_fetcher(digests, ManifestCache(), policy)
    try:
        wait, cids = next(fetcher)
        while True:
            requests.append((wait, list(cids)))
            reply = {
                c: (replies.get(c), "" if c in replies else "HTTP 502") for c in cids
            }
            wait, cids = fetcher.send(reply)  # type: ignore[arg-type]
    except StopIteration as done:
        return done.value, requests


def test_a_manifest_added_with_raw_leaves_is_fetched_without_a_backoff() -> None:
    """Only the raw CID serves it: it is asked right after the dag-pb CID failed, no wait."""
    data = b'{"name": "raw leaves"}'
    digest = raw_digest(data)
    dag_cid, raw_cid = digest_to_cid(digest, DAG_PB), digest_to_cid(digest, RAW)
    policy = FetchPolicy(retries=2, backoff_initial=5.0, backoff_max=8.0, max_bytes=64)
    results, requests = waits_and_requests([digest], {raw_cid: data}, policy)
    assert requests == [(0.0, [dag_cid]), (0.0, [raw_cid])]
    assert results[digest].data == data


def test_a_round_that_failed_on_both_codecs_waits_the_backoff_before_the_next() -> None:
    """Both CIDs fail: the next round waits each backoff in turn, the dag-pb CID first again."""
    digest = raw_digest(b"never served either")
    dag_cid, raw_cid = digest_to_cid(digest, DAG_PB), digest_to_cid(digest, RAW)
    policy = FetchPolicy(
        retries=2,
        backoff_initial=5.0,
        backoff_factor=2.0,
        backoff_max=8.0,
        max_bytes=64,
    )
    results, requests = waits_and_requests([digest], {}, policy)
    assert [cids for _, cids in requests] == [[dag_cid], [raw_cid]] * 3
    # 5 s before the second round, 10 s capped at backoff_max (8 s) before the third
    assert [wait for wait, _ in requests] == [0.0, 0.0, 5.0, 0.0, 8.0, 0.0]
    assert results[digest].data is None


def test_a_cid_missing_from_the_reply_counts_as_no_response() -> None:
    """A driver that leaves a requested CID out of its reply: that CID failed with 'no response'."""
    digest = raw_digest(b"left out")
    fetcher = manifest_fetcher([digest], ManifestCache(), POLICY)
    next(fetcher)
    fetcher.send({})
    with pytest.raises(StopIteration) as done:
        fetcher.send({})
    result = done.value.value[digest]
    assert result.data is None and result.problem is not None
    assert f"{digest_to_cid(digest, RAW)}: no response" in result.detail
    assert "no response" not in result.problem.message


def test_bytes_that_never_verify_are_a_mismatch_naming_digest_and_cid() -> None:
    """Bytes served for both CIDs that hash to neither: hash_mismatch with the digest and the last CID."""
    digest = raw_digest(b"the real manifest")
    dag_cid, raw_cid = digest_to_cid(digest, DAG_PB), digest_to_cid(digest, RAW)
    results, _ = run([digest], ManifestCache(), {dag_cid: b"{}", raw_cid: b"{}"})
    result = results[digest]
    assert result.status == "hash_mismatch"
    assert result.digest == digest and result.cid == raw_cid


def test_an_invalid_digest_is_a_result_for_that_digest() -> None:
    """A digest that is not a bytes32 is never requested: an invalid result under that digest."""
    results, asked = run(["0x12"], ManifestCache(), {})
    assert not asked
    assert results["0x12"].digest == "0x12" and results["0x12"].status == "invalid"


def test_disk_hit_is_kept_in_memory() -> None:
    """A verified disk entry, once read, is served from memory with its bytes."""
    data = manifest("a")
    digest = dag_pb(data)
    cid = digest_to_cid(digest, DAG_PB)
    with tempfile.TemporaryDirectory() as folder:
        ManifestCache(DirectoryStore(folder)).put(cid, data)
        cache = ManifestCache(DirectoryStore(folder))
        assert cache.get(cid) == data
        os.remove(os.path.join(folder, cid))
        assert cache.get(cid) == data  # from memory now


def test_read_error_of_a_new_mech_is_unavailable_with_the_reason() -> None:
    """A registry read error for a mech never seen: unavailable at this block, no CID, the reason named."""
    entry = build(12, [DigestRead(ref(1), "", "registry_call_failed")], {}).mech(ref(1))
    assert entry is not None and entry.status == "unavailable"
    assert entry.cid == "" and entry.observed_block == 12
    assert entry.problems[0].message == (
        f"reading the hash of {ref(1).key} failed (registry_call_failed); "
        "check the registry address and kind in the registries parameter"
    )


def test_digest_left_out_of_the_fetch_results_is_not_fetched() -> None:
    """A snapshot digest the fetch results lack: unavailable, fetch_failed, 'not fetched in this period'."""
    digest = raw_digest(b"skipped")
    entry = build(3, [DigestRead(ref(1), digest)], {}).mech(ref(1))
    assert entry is not None and entry.status == "unavailable"
    assert entry.digest == digest and entry.problems[0].code == "fetch_failed"
    assert entry.problems[0].message == (
        f"could not fetch the manifest for digest {digest} (tried nothing); "
        "check the IPFS endpoint and that the manifest is pinned"
    )


def test_failed_result_without_a_problem_still_names_one() -> None:
    """A driver's FetchResult with no bytes and no problem: fetch_failed 'no bytes for digest ...'."""
    digest = raw_digest(b"nothing")
    entry = build(3, [DigestRead(ref(1), digest)], {digest: FetchResult(digest)}).mech(
        ref(1)
    )
    assert entry is not None and entry.problems[0].code == "fetch_failed"
    assert entry.problems[0].message == f"no bytes for digest {digest}"


def test_rejection_without_a_reason_is_invalid_with_a_reason() -> None:
    """A parser that rejects without saying why: invalid, digest, CID and block kept, reason named."""
    data = json.dumps({"name": "m", "tools": []}).encode()
    digest = raw_digest(data)

    def silent_rejection(_: bytes):
        return None, ()

    catalogue = refresh_catalogue(
        RegistrySnapshot.build(4, [DigestRead(ref(1), digest)]),
        {digest: FetchResult.ok(digest, "bafkempty", data)},
        silent_rejection,
    )
    entry = catalogue.mech(ref(1))
    assert entry is not None and entry.status == "invalid" and not entry.tools
    assert (entry.digest, entry.cid, entry.observed_block) == (digest, "bafkempty", 4)
    assert [(p.code, p.message) for p in entry.problems] == [
        ("manifest_rejected", "manifest bafkempty was rejected by the parser")
    ]


def test_manifest_declaring_no_tools_is_ok_and_empty() -> None:
    """A verified manifest that declares no tools (and no error) is served: ok, offering nothing."""
    data = json.dumps({"name": "m", "tools": []}).encode()
    digest = raw_digest(data)

    def no_problems(raw: bytes):
        manifest_, _ = parse(raw)
        return manifest_, ()

    catalogue = refresh_catalogue(
        RegistrySnapshot.build(4, [DigestRead(ref(1), digest)]),
        {digest: FetchResult.ok(digest, "bafkempty", data)},
        no_problems,
    )
    entry = catalogue.mech(ref(1))
    assert entry is not None and entry.status == "ok" and not entry.tools
    assert (entry.digest, entry.cid, entry.observed_block) == (digest, "bafkempty", 4)
