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

"""No growth without new facts: a catalogue with nothing new on chain keeps its digest (issue 10, item 6)."""

import hashlib
import json
from typing import Callable, Dict, List, Tuple

import pytest
from mech_catalogue_core.catalogue.fetching import (
    FETCH_FAILED,
    KEPT_LAST_GOOD,
    REGISTRY_READ_FAILED,
    FetchResult,
    refresh_catalogue,
    served_problems,
)
from mech_catalogue_core.chain.registry import (
    READ_CALL_FAILED,
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
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.problems import (
    DIGEST_MISMATCH,
    INVALID_JSON,
    error,
    unique_problems,
    warning,
)
from mech_catalogue_core.model.tool import MechRef

ADDRESS = "0x" + "5a" * 20
REF = MechRef(100, "complementary_service_metadata", ADDRESS, 7)
OTHER = MechRef(100, "complementary_service_metadata", ADDRESS, 8)
# the good manifest carries warnings of its own (untyped input, a tool without metadata)
GOOD = json.dumps(
    {
        "name": "m",
        "tools": ["alpha", "beta"],
        "toolMetadata": {
            "alpha": {
                "name": "alpha",
                "description": "a",
                "input": {"type": "text", "description": "p"},
                "output": {"type": "object", "description": "r", "schema": {}},
            }
        },
    }
).encode()
BROKEN = b'{"name": "m", "tools": ['


def _digest(data: bytes) -> str:
    return "0x" + hashlib.sha256(data).hexdigest()


def _parse(data: bytes):
    result = parse_manifest(data)
    return result.manifest, result.problems


D_GOOD, D_BROKEN, D_GONE = _digest(GOOD), _digest(BROKEN), _digest(b"never served")

# One period's failure of REF: the snapshot read and the fetch results it gives.
Failure = Callable[[int], Tuple[DigestRead, Dict[str, FetchResult]]]

FAILURES: Dict[str, Failure] = {
    "fetch_failed": lambda _: (
        DigestRead(REF, D_GONE),
        {D_GONE: FetchResult.unavailable(D_GONE, ["bafy-gone"], "timeout")},
    ),
    "registry_read_failed": lambda _: (DigestRead(REF, "", READ_CALL_FAILED), {}),
    "rejected_by_parser": lambda _: (
        DigestRead(REF, D_BROKEN),
        {D_BROKEN: FetchResult.ok(D_BROKEN, "bafk-broken", BROKEN)},
    ),
    "digest_mismatch": lambda _: (
        DigestRead(REF, D_GONE),
        {D_GONE: FetchResult.mismatch(D_GONE, "bafy-gone")},
    ),
    # the failure changes kind from period to period: still no growth
    "alternating": lambda period: (
        (DigestRead(REF, "", READ_CALL_FAILED), {})
        if period % 2
        else (
            DigestRead(REF, D_GONE),
            {D_GONE: FetchResult.unavailable(D_GONE, ["bafy-gone"], "timeout")},
        )
    ),
}


def _first() -> Catalogue:
    snapshot = RegistrySnapshot.build(
        10, [DigestRead(REF, D_GOOD), DigestRead(OTHER, D_GOOD)]
    )
    return refresh_catalogue(
        snapshot, {D_GOOD: FetchResult.ok(D_GOOD, "bafk-good", GOOD)}, _parse
    )


def _periods(failure: Failure, count: int) -> List[Catalogue]:
    catalogue = _first()
    out = []
    for period in range(1, count + 1):
        read, fetched = failure(period)
        fetched = {**fetched, D_GOOD: FetchResult.ok(D_GOOD, "bafk-good", GOOD)}
        snapshot = RegistrySnapshot.build(
            10 + period, [read, DigestRead(OTHER, D_GOOD)]
        )
        catalogue = refresh_catalogue(snapshot, fetched, _parse, catalogue)
        out.append(catalogue)
    return out


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_kept_mech_does_not_grow_over_20_periods(kind: str) -> None:
    """20 periods of the same failure: one digest, a constant problem count and size.

    The first catalogue's own warnings stay, the current failure and the kept note are
    added once; the other mech's observed block moves every period, so the digest only
    stays put for the kept mech: compare the kept entry, and the catalogue without the
    block of the healthy mech.

    :param kind: which failure the mech keeps having.
    """
    first = _first()
    good = first.mech(REF)
    assert good is not None and good.problems  # the manifest has warnings of its own
    periods = _periods(FAILURES[kind], 20)
    kept = [c.mech(REF) for c in periods]
    assert all(m is not None and m.status == STATUS_OK for m in kept)
    sizes = {len(json.dumps([p.to_dict() for p in m.problems])) for m in kept if m}
    counts = {len(m.problems) for m in kept if m}
    assert counts == {len(good.problems) + 2}, counts
    assert len(sizes) <= 2  # alternating kinds differ by one sentence; never grows
    for mech in kept:
        assert mech is not None
        assert served_problems(mech) == good.problems
        assert [p.code for p in mech.problems].count(KEPT_LAST_GOOD) == 1
        assert mech.observed_block == 10  # the kept manifest's read block
    if kind != "alternating":
        assert len({repr(m.to_dict()) for m in kept if m}) == 1


def test_catalogue_digest_is_constant_with_nothing_new_on_chain() -> None:
    """A catalogue whose only mech keeps failing the same way has one digest for 20 periods."""
    catalogue = refresh_catalogue(
        RegistrySnapshot.build(10, [DigestRead(REF, D_GOOD)]),
        {D_GOOD: FetchResult.ok(D_GOOD, "bafk-good", GOOD)},
        _parse,
    )
    digests = set()
    for period in range(1, 21):
        snapshot = RegistrySnapshot.build(10 + period, [DigestRead(REF, D_GONE)])
        catalogue = refresh_catalogue(
            snapshot,
            {D_GONE: FetchResult.unavailable(D_GONE, ["bafy-gone"], "timeout")},
            _parse,
            catalogue,
        )
        digests.add(catalogue.digest())
    assert len(digests) == 1
    codes = [p.code for _, p in catalogue.problems()[-2:]]
    assert codes == [FETCH_FAILED, KEPT_LAST_GOOD]


def test_quarantined_mech_without_a_last_good_is_stable() -> None:
    """A mech that never had a good manifest: one problem, same entry each period."""
    entries = set()
    for period in range(1, 21):
        catalogue = refresh_catalogue(
            RegistrySnapshot.build(period, [DigestRead(REF, "", READ_CALL_FAILED)]),
            {},
            _parse,
        )
        mech = catalogue.mech(REF)
        assert mech is not None and [p.code for p in mech.problems] == [
            REGISTRY_READ_FAILED
        ]
        entries.add(repr(mech.problems))
    assert len(entries) == 1


def test_problems_are_a_set() -> None:
    """unique_problems keeps the first of equal problems, in order; from_manifest applies it."""
    one, two = error(INVALID_JSON, "x"), warning(DIGEST_MISMATCH, "y")
    assert unique_problems([one, two, one, two, one]) == (one, two)
    mech = Mech.from_manifest(REF, None, (one, one, two))
    assert mech.problems == (one, two)
