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

"""Building a catalogue runs without full garbage collections, frees parse cycles, and leaves the collector as it was."""

import gc
import hashlib
import json
import tracemalloc
from typing import Iterator, List, Optional, Tuple

import pytest
from mech_catalogue_core.catalogue.fetching import (
    FetchResult,
    refresh_catalogue,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    Manifest,
)
from mech_catalogue_core.model.problems import (
    Problem,
)
from mech_catalogue_core.model.tool import MechRef

REGISTRY = "0x" + "ce" * 20
MANIFEST = json.dumps(
    {
        "name": "m",
        "tools": [
            {"name": "swap", "kwargs": [{"identifier": "amount", "type": "int"}]}
        ],
    }
).encode()
DIGEST = "0x" + hashlib.sha256(MANIFEST).hexdigest()


@pytest.fixture(name="collector_enabled")
def fixture_collector_enabled() -> Iterator[None]:
    """Start with the collector on, and leave it on whatever the test did."""
    enabled = gc.isenabled()
    gc.enable()
    yield
    if enabled:
        gc.enable()
    else:
        gc.disable()


def refresh(
    seen: List[bool], raises: bool = False, mechs: int = 1, cycle_bytes: int = 0
):
    """Refresh a snapshot of ``mechs`` distinct manifests, recording the collector's state at each parse.

    :param seen: gets ``gc.isenabled()`` at each parse.
    :param raises: make the parser raise (the refresh quarantines the mech).
    :param mechs: how many mechs, each with a manifest of its own.
    :param cycle_bytes: each parse leaves a reference cycle holding this many bytes.
    :return: the catalogue.
    """

    def parse(data: bytes) -> Tuple[Optional[Manifest], Tuple[Problem, ...]]:
        seen.append(gc.isenabled())
        if cycle_bytes:
            cycle: List[object] = [bytearray(cycle_bytes)]
            cycle.append(cycle)  # garbage only the cyclic collector frees
        if raises:
            raise RuntimeError("parser bug")
        result = parse_manifest(data)
        return result.manifest, result.problems

    reads, fetched = [], {}
    for mech_id in range(1, mechs + 1):
        data = (
            MANIFEST if mech_id == 1 else MANIFEST.replace(b'"m"', b'"m%d"' % mech_id)
        )
        digest = "0x" + hashlib.sha256(data).hexdigest()
        reads.append(
            DigestRead(MechRef(1, "olas_agent_registry", REGISTRY, mech_id), digest)
        )
        fetched[digest] = FetchResult.ok(digest, f"bafk-{mech_id}", data)
    return refresh_catalogue(RegistrySnapshot.build(9, reads), fetched, parse)


@pytest.mark.usefixtures("collector_enabled")
def test_refresh_builds_without_the_collector_and_enables_it_again() -> None:
    """The parse (and the build around it) sees the collector off; it is on again after, on success or not."""
    seen: List[bool] = []
    catalogue = refresh(seen)
    assert seen == [False]
    assert gc.isenabled()
    (mech,) = catalogue.mechs
    assert mech.status == STATUS_OK and [t.name for t in mech.tools] == ["swap"]
    seen.clear()
    refresh(
        seen, raises=True
    )  # a parser that raises is contained: the mech quarantined
    assert seen == [False] and gc.isenabled()


@pytest.mark.usefixtures("collector_enabled")
def test_a_collector_disabled_by_the_caller_stays_disabled() -> None:
    """Whoever turned the collector off keeps it off: the refresh does not turn it on."""
    gc.disable()
    seen: List[bool] = []
    refresh(seen, mechs=3)
    assert seen == [False, False, False] and not gc.isenabled()


@pytest.mark.usefixtures("collector_enabled")
def test_cycles_left_by_parses_do_not_pile_up_during_the_build() -> None:
    """100 parses each leaving a 1 MiB reference cycle: at most a few are alive at once, not 100 MiB.

    (A failed ``$ref`` resolution leaves about 11 KB of cycles a manifest: an adversary
    registering thousands of such manifests must not make the build hold them all.)
    """
    gc.collect()
    tracemalloc.start()
    try:
        seen: List[bool] = []
        catalogue = refresh(seen, mechs=100, cycle_bytes=1 << 20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(seen) == 100 and not any(seen) and len(catalogue.mechs) == 100
    assert peak < 16 << 20, f"peak {peak / 2**20:.0f} MiB: parse cycles piled up"
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_enabled")
def test_the_collector_comes_back_when_the_build_raises() -> None:
    """A fault the build does not contain (here a fetch result that is not one) still enables the collector again."""
    reads = [DigestRead(MechRef(1, "olas_agent_registry", REGISTRY, 1), DIGEST)]
    with pytest.raises(AttributeError):
        refresh_catalogue(
            RegistrySnapshot.build(9, reads),
            {DIGEST: object()},  # type: ignore[dict-item]
            lambda data: (None, ()),
        )
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_enabled")
def test_the_same_catalogue_with_the_collector_on_or_off() -> None:
    """The pause changes nothing built: the digest is the same whether the caller's collector was on or off."""
    on = refresh([], mechs=5)
    gc.disable()
    off = refresh([], mechs=5)
    gc.enable()
    assert on == off and on.digest() == off.digest() and len(on.mechs) == 5


@pytest.mark.usefixtures("collector_enabled")
def test_young_collections_run_even_when_nothing_is_parsed() -> None:
    """A period that reuses every entry parses nothing; young garbage (other threads') is still collected per read."""
    first = refresh([], mechs=20)
    reads = [
        DigestRead(m.ref, m.digest) for m in first.mechs
    ]  # the same registrations, read again
    fetched = {
        m.digest: FetchResult.ok(m.digest, m.cid, b"unused: the entry is reused")
        for m in first.mechs
    }
    young: List[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 0:
            young.append(1)

    def parse(data: bytes) -> Tuple[Optional[Manifest], Tuple[Problem, ...]]:
        raise AssertionError("a reused entry is not parsed")

    gc.callbacks.append(count)
    try:
        again = refresh_catalogue(
            RegistrySnapshot.build(10, reads), fetched, parse, previous=first
        )
    finally:
        gc.callbacks.remove(count)
    assert [m.observed_block for m in again.mechs] == [10] * 20
    assert len(young) >= 20
