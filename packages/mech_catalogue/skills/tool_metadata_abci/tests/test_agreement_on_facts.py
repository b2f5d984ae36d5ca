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

"""Agreed data is a function of facts only (issue 10, item 5).

Agents behind gateways that fail differently (HTTP 504, 404, a timeout, a reset) must
build the same catalogue for the same chain state; an agent that restarts must build kept
last-good entries as the agents that did not.
"""

import hashlib
import json
import os
from pathlib import Path
from typing import Dict, Optional, Tuple

import pytest
from mech_catalogue_core.adapters.directory import DirectoryStore
from mech_catalogue_core.catalogue.fetching import (
    FETCH_FAILED,
    KEPT_LAST_GOOD,
    FetchPolicy,
    FetchResult,
    ManifestCache,
    manifest_fetcher,
    refresh_catalogue,
)
from mech_catalogue_core.catalogue.store import (
    CATALOGUE_SUFFIX,
    CatalogueFile,
    DigestStore,
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
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    STATUS_UNAVAILABLE,
    Catalogue,
)
from mech_catalogue_core.model.tool import MechRef

ADDRESS = "0x" + "7c" * 20
REFS = [MechRef(100, "legacy_mech_registry", ADDRESS, i) for i in (1, 2)]
GOOD = json.dumps({"name": "g", "tools": ["one", "two"]}).encode()
NEW_GOOD = json.dumps({"name": "g", "tools": ["one", "two", "three"]}).encode()
POLICY = FetchPolicy(retries=1, backoff_initial=0.01, backoff_max=0.01)

#: how each agent's gateway fails for the one missing manifest
GATEWAY_FAILURES = {
    "http_504": "gateway answered HTTP 504",
    "http_404": "gateway answered HTTP 404",
    "timeout": "no answer within fetch_timeout_seconds=10.0",
    "reset": "ConnectionResetError",
}


def _digest(data: bytes) -> str:
    return "0x" + hashlib.sha256(data).hexdigest()


def _parse(data: bytes):
    result = parse_manifest(data)
    return result.manifest, result.problems


def _fetch(
    digests, serve: Dict[str, bytes], failure: str, cache: Optional[ManifestCache]
) -> Dict[str, FetchResult]:
    """Drive manifest_fetcher: CIDs in ``serve`` answer, every other fails with ``failure``."""
    fetcher = manifest_fetcher(
        digests, cache if cache is not None else ManifestCache(), POLICY
    )
    try:
        _, cids = next(fetcher)
        while True:
            reply: Dict[str, Tuple[Optional[bytes], str]] = {
                cid: (serve[cid], "") if cid in serve else (None, failure)
                for cid in cids
            }
            _, cids = fetcher.send(reply)
    except StopIteration as done:
        return dict(done.value)


def _serve(*manifests: bytes) -> Dict[str, bytes]:
    return {digest_to_cid(_digest(m), RAW): m for m in manifests}


def _first_catalogue() -> Catalogue:
    digest = _digest(GOOD)
    snapshot = RegistrySnapshot.build(
        10, [DigestRead(REFS[0], digest), DigestRead(REFS[1], digest)]
    )
    return refresh_catalogue(
        snapshot, _fetch(snapshot.digests, _serve(GOOD), "", None), _parse
    )


def test_gateways_failing_differently_build_the_same_catalogue() -> None:
    """504, 404, timeout and reset for the same unfetchable manifest: one catalogue digest.

    REFS[0] moved to a digest nobody serves (a kept last-good entry), REFS[1] never had
    a good manifest under its new digest either, and a third digest is served.
    """
    first = _first_catalogue()
    gone = _digest(b"published on chain, pinned nowhere")
    snapshot = RegistrySnapshot.build(
        20, [DigestRead(REFS[0], gone), DigestRead(REFS[1], _digest(NEW_GOOD))]
    )
    catalogues = {}
    details = {}
    for agent, failure in GATEWAY_FAILURES.items():
        fetched = _fetch(snapshot.digests, _serve(NEW_GOOD), failure, None)
        details[agent] = fetched[gone].detail
        catalogues[agent] = refresh_catalogue(snapshot, fetched, _parse, first)
    assert len({c.digest() for c in catalogues.values()}) == 1
    # each agent still knows how its own gateway failed
    assert all(text in details[a] for a, text in GATEWAY_FAILURES.items())
    kept = catalogues["timeout"].mech(REFS[0])
    assert kept is not None and kept.status == STATUS_OK
    assert [p.code for p in kept.problems][-2:] == [FETCH_FAILED, KEPT_LAST_GOOD]
    text = catalogues["timeout"].to_json()
    for failure in GATEWAY_FAILURES.values():
        assert failure not in text


def test_too_large_names_the_cap_not_the_bytes_read() -> None:
    """Two agents reading different amounts past the cap agree on the problem."""
    big = b"[" + b" " * 200 + b"]"
    digest = _digest(big)
    policy = FetchPolicy(retries=0, max_bytes=64)
    problems = set()
    for seen in (65, 150, len(big)):
        fetcher = manifest_fetcher([digest], ManifestCache(), policy)
        _, cids = next(fetcher)
        with pytest.raises(StopIteration) as done:
            fetcher.send({cid: (big[:seen], "") for cid in cids})
        result = done.value.value[digest]
        problems.add(result.problem)
        assert str(seen) in result.detail
    assert len(problems) == 1


def test_restarted_agent_builds_the_same_kept_entries(tmp_path: Path) -> None:
    """An agent that restarts with the kept catalogue on disk agrees with one that did not.

    Without it (the old behaviour: nothing kept across a restart) the restarted agent
    builds ``unavailable`` where the others serve the last good manifest.

    :param tmp_path: pytest's temporary folder.
    """
    first = _first_catalogue()
    store = CatalogueFile(DirectoryStore(str(tmp_path / "catalogues")))
    assert store.save(first) is not None
    gone = _digest(b"not pinned")
    snapshot = RegistrySnapshot.build(
        30, [DigestRead(REFS[0], gone), DigestRead(REFS[1], _digest(GOOD))]
    )
    fetched = _fetch(snapshot.digests, _serve(GOOD), "gateway answered HTTP 504", None)
    running = refresh_catalogue(snapshot, fetched, _parse, first)

    restarted, why = CatalogueFile(DirectoryStore(str(tmp_path / "catalogues"))).load()
    assert restarted is not None and why == "" and restarted == first
    assert refresh_catalogue(snapshot, fetched, _parse, restarted) == running

    forgetful = refresh_catalogue(snapshot, fetched, _parse, None)
    assert forgetful.digest() != running.digest()
    lost = forgetful.mech(REFS[0])
    assert lost is not None and lost.status == STATUS_UNAVAILABLE


def test_kept_catalogue_file_is_checked_against_its_name(tmp_path: Path) -> None:
    """A file that does not hash to its name, or is not a catalogue, is removed, not used."""
    first = _first_catalogue()
    folder = tmp_path / "catalogues"
    store = CatalogueFile(DirectoryStore(str(folder)))
    path = folder / str(store.save(first))
    path.write_bytes(path.read_bytes().replace(b'"one"', b'"uno"'))
    assert store.load()[0] is None and not path.exists()
    (folder / ("ab" * 32 + CATALOGUE_SUFFIX)).write_bytes(b"\xff not json")
    catalogue, why = store.load()
    assert catalogue is None and "not a catalogue" in why
    assert not os.listdir(folder)
    assert CatalogueFile(None).save(first) is None
    assert CatalogueFile(None).load() == (None, "no kept catalogue")


def test_saving_keeps_only_the_latest(tmp_path: Path) -> None:
    """Only the last agreed catalogue stays on disk."""
    store = CatalogueFile(DirectoryStore(str(tmp_path)))
    first = _first_catalogue()
    second = Catalogue.build(first.mechs[:1])
    store.save(first)
    store.save(second)
    assert os.listdir(tmp_path) == [second.digest() + CATALOGUE_SUFFIX]
    assert store.load()[0] == second


def test_manifest_cache_on_disk_survives_and_is_bounded(tmp_path: Path) -> None:
    """Verified bytes persist across a restart; retain drops CIDs nothing serves any more."""
    digest = _digest(GOOD)
    cache = ManifestCache(DirectoryStore(str(tmp_path)))
    _fetch([digest], _serve(GOOD), "", cache)
    stale = digest_to_cid(_digest(b"old"), RAW)
    (tmp_path / stale).write_bytes(b"old")
    restarted = ManifestCache(DirectoryStore(str(tmp_path)))
    again = _fetch([digest], {}, "gateway answered HTTP 504", restarted)
    assert again[digest].data == GOOD  # from disk, re-verified, no request answered
    keep = digest_to_cid(digest, RAW)
    assert restarted.retain([keep]) == 1
    assert os.listdir(tmp_path) == [keep]
    assert digest_to_cid(digest, DAG_PB) not in restarted


@pytest.mark.parametrize("keep", [1, 3])
def test_digest_store_is_bounded(keep: int) -> None:
    """The store holds at most ``keep`` values, dropping the oldest first."""
    store: DigestStore[int] = DigestStore(keep)
    for value in range(10):
        store.put(f"d{value}", value)
    assert len(store) == keep and list(store) == [f"d{v}" for v in range(10 - keep, 10)]
    assert store.get("d0") is None and store.get("d9") == 9 and "d9" in store
