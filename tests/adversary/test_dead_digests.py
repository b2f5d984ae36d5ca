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

"""Digests that never resolve cannot stall the fetch or starve a served mech's new manifest.

Attack (``tests/adversary/dead_digests_attack.py`` runs it on the devnet with the skill's
behaviours): anyone may register services pointing at digests nobody serves; a public
gateway hangs on their CIDs until ``fetch_timeout``. Before the fix every period asked
for each of them twice (dag-pb, raw) ``1 + retries`` times, ``fetch_concurrency`` at a
time: D dead digests cost ``D / 8 x 63 s`` at the defaults, past the 120 s fetch round at
D = 16, so the round timed out every period and no catalogue was agreed again. Now the
window stops sending once the period's budget is spent while GETs fail, and a mech that
had a served manifest is asked for first.

These tests drive the real ``manifest_fetcher`` and ``FetchWindow`` (the code the skill's
behaviour and the CLI run) with a simulated clock: no wall-clock timing is asserted.
"""

from typing import Dict, List, Mapping, Optional, Tuple

import pytest
from mech_catalogue_core.catalogue.fetching import (
    FetchPolicy,
    FetchResult,
    ManifestCache,
    fetch_ranks,
    manifest_fetcher,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.ipfs.cid import (
    candidate_cids,
)
from mech_catalogue_core.ipfs.gateways import (
    FetchWindow,
    GatewayPolicy,
    GatewayPool,
)
from mech_catalogue_core.ipfs.unixfs import (
    root_digest,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    STATUS_UNAVAILABLE,
    Catalogue,
    Mech,
    MechRef,
)

GATEWAY = "http://127.0.0.1:1"
TIMEOUT = 10.0  # fetch_timeout_seconds (default)
BUDGET = 60.0  # period_budget_seconds = fetch_round_timeout_seconds / 2 (default)
ROUND_TIMEOUT = 120.0  # fetch_round_timeout_seconds (default)
LATENCY = 0.06  # a live CID's answer
POLICY = FetchPolicy()  # retries 2, backoff 0.5 x 2 up to 8 s


def manifest(index: int) -> Tuple[str, bytes]:
    """A manifest file and its dag-pb digest (what ``changeHash`` would hold).

    :param index: makes it distinct.
    :return: ``(0x digest, bytes)``.
    """
    data = f'{{"name": "honest {index}", "tools": []}}'.encode()
    return "0x" + root_digest(data, raw_leaves=False, cid_version=0)[1].hex(), data


def dead(index: int) -> str:
    """A digest nobody serves, sorting before any honest one.

    :param index: makes it distinct.
    :return: ``0x`` + 64 hex.
    """
    return "0x" + "00" * 28 + index.to_bytes(4, "big").hex()


def fetch_period(
    digests: List[str],
    served: Dict[str, bytes],
    ranks: Optional[Mapping[str, int]] = None,
    latency: float = LATENCY,
) -> Tuple[Dict[str, FetchResult], float, int]:
    """One period's fetch with a simulated clock, as the behaviour drives it.

    A CID in ``served`` answers its bytes after ``latency``; any other CID hangs until
    the per-GET ``TIMEOUT`` (a public gateway searching for content nobody provides).

    :param digests: the snapshot's digests.
    :param served: CID -> bytes the gateway has.
    :param ranks: digest -> fetch rank.
    :param latency: seconds a served CID takes.
    :return: the results, the simulated seconds the fetch took, the GETs sent.
    """
    pool = GatewayPool([GATEWAY], GatewayPolicy(period_budget_seconds=BUDGET))
    pool.begin_period(0.0)
    fetcher = manifest_fetcher(digests, ManifestCache(), POLICY, ranks)
    now, sent = 0.0, 0
    reply: Optional[Dict[str, Tuple[Optional[bytes], str]]] = None
    while True:
        try:
            wait, cids = fetcher.send(reply)  # type: ignore[arg-type]
        except StopIteration as done:
            return done.value, now, sent
        now += wait
        window = FetchWindow(cids, pool)
        flying: List[Tuple[float, str]] = []
        while not window.done:
            for cid, _ in window.sendable(now):
                sent += 1
                flying.append((now + (latency if cid in served else TIMEOUT), cid))
            if not flying:
                now = max(now, window.wake_at(now))
                continue
            flying.sort()
            now, cid = flying.pop(0)
            data = served.get(cid)
            status = 200 if data is not None else None
            failure = "" if data is not None else "timeout"
            window.answer(cid, data, failure, status, None, now, 1e9 + now)
        reply = window.replies


def served_cids(*files: Tuple[str, bytes]) -> Dict[str, bytes]:
    """The gateway's content: each file under its dag-pb CID.

    :param files: ``(digest, bytes)`` pairs.
    :return: CID -> bytes.
    """
    return {candidate_cids(digest)[0]: data for digest, data in files}


@pytest.mark.parametrize("count", [16, 64, 400])
def test_dead_digests_cost_a_bounded_fetch_whatever_their_number(count: int) -> None:
    """16 to 400 dead digests: the fetch ends inside the fetch round, the new manifest fetched.

    Before the fix: 16 dead digests took 123 s (> 120 s), 400 took 3,003 s.

    :param count: dead digests registered.
    """
    new = manifest(1)
    digests = [dead(i) for i in range(count)] + [new[0]]
    # ranked as fetch_ranks ranks a served mech's new manifest among fresh dead digests
    ranks = {**{dead(i): 1 for i in range(count)}, new[0]: 0}
    results, seconds, _ = fetch_period(digests, served_cids(new), ranks)
    assert seconds < ROUND_TIMEOUT
    assert (
        seconds
        <= BUDGET
        + TIMEOUT
        + sum((POLICY.backoff_initial, POLICY.backoff_initial * POLICY.backoff_factor))
        * 2
    )
    assert results[new[0]].status == STATUS_OK
    assert all(results[dead(i)].status == STATUS_UNAVAILABLE for i in range(count))


def test_cut_digests_say_why() -> None:
    """A digest left unrequested once the budget is spent fails with that reason."""
    digests = [dead(i) for i in range(200)]
    results, _, sent = fetch_period(digests, {})
    cut = [r for r in results.values() if "budget" in r.detail]
    assert cut and all("fetch budget (60s) was spent" in r.detail for r in cut)
    # at most the budget's worth of GETs, not 2 codecs x 3 tries x 200 digests
    assert sent <= (BUDGET / TIMEOUT + 2) * 8


def test_a_served_mechs_new_manifest_is_asked_for_before_new_dead_digests() -> None:
    """400 fresh dead digests sort first, yet the ranked served mech's manifest arrives."""
    honest_ref = MechRef(100, "complementary_service_metadata", "0x" + "ab" * 20, 1)
    old, new = manifest(1), manifest(2)
    previous = Catalogue.build(
        [
            Mech(
                honest_ref,
                digest=old[0],
                cid=candidate_cids(old[0])[0],
                status=STATUS_OK,
                observed_block=7,
            )
        ]
    )
    reads = [DigestRead(honest_ref, new[0])] + [
        DigestRead(
            MechRef(100, "complementary_service_metadata", "0x" + "ab" * 20, 2 + i),
            dead(i),
        )
        for i in range(400)
    ]
    snapshot = RegistrySnapshot.build(8, reads)
    ranks = fetch_ranks(snapshot, previous, failed=())
    assert ranks[new[0]] == 0 and ranks[dead(0)] == 1
    results, _, _ = fetch_period(list(snapshot.digests), served_cids(new), ranks)
    assert results[new[0]].status == STATUS_OK
    # without the ranks the same period cuts it off behind the dead digests
    unranked, _, _ = fetch_period(list(snapshot.digests), served_cids(new))
    assert unranked[new[0]].status == STATUS_UNAVAILABLE


def test_known_dead_digests_go_after_new_mechs() -> None:
    """Last period's failures of never-served mechs go after a new mech's digest."""
    refs = [
        MechRef(100, "complementary_service_metadata", "0x" + "cd" * 20, i)
        for i in range(3)
    ]
    newcomer = manifest(3)
    snapshot = RegistrySnapshot.build(
        9,
        [
            DigestRead(refs[0], dead(0)),
            DigestRead(refs[1], newcomer[0]),
            DigestRead(refs[2], dead(1)),
        ],
    )
    ranks = fetch_ranks(snapshot, None, failed={dead(0), dead(1)})
    # ranks are fetch positions: the newcomer first, the known dead after it
    assert sorted(ranks, key=ranks.__getitem__) == [newcomer[0], dead(0), dead(1)]
    results, _, _ = fetch_period(
        [dead(i) for i in range(300)] + [newcomer[0]],
        served_cids(newcomer),
        {**{dead(i): 2 for i in range(300)}, newcomer[0]: 1},
    )
    assert results[newcomer[0]].status == STATUS_OK


def test_a_slow_healthy_sync_is_not_cut_by_the_budget() -> None:
    """2,000 live manifests at 0.5 s each outlast the budget and all arrive (no failure)."""
    files = [manifest(i) for i in range(2000)]
    served = served_cids(*files)
    results, seconds, _ = fetch_period([d for d, _ in files], served, latency=0.5)
    assert seconds > BUDGET
    assert all(r.status == STATUS_OK for r in results.values())
