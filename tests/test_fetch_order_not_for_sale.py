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

"""The catalogue's fetch order is not for sale (adv29v, kind 2), without a chain.

``fetching.fetch_ranks`` orders a period's fetches by tier (served before, new, failed
before) then registration age, never by digest; a digest the period's budget never
reached is "not read yet" (``FetchResult.reached`` False), not failed. The fetch is the
simulated period of ``tests/adversary/test_dead_digests.py`` (public-gateway timeouts
for CIDs nobody serves, the default budget and timeouts).
"""

import random
from typing import FrozenSet, List, Tuple

import pytest
from mech_catalogue_core.catalogue.fetching import (
    STATUS_OK,
    FetchResult,
    fetch_ranks,
    refresh_catalogue,
    still_failing,
)
from mech_catalogue_core.chain.registry import DigestRead
from mech_catalogue_core.chain.snapshot import RegistrySnapshot
from mech_catalogue_core.ipfs.gateways import (
    NOT_REQUESTED,
    FetchWindow,
    GatewayPolicy,
    GatewayPool,
    never_requested,
)
from mech_catalogue_core.model.catalogue import MechRef

from tests.adversary.test_dead_digests import (
    dead,
    fetch_period,
    manifest,
    served_cids,
)

REGISTRY = "0x" + "ab" * 20


def _ref(service: int) -> MechRef:
    return MechRef(100, "complementary_service_metadata", REGISTRY, service)


def _snapshot(reads: List[Tuple[int, str]]) -> RegistrySnapshot:
    return RegistrySnapshot.build(9, [DigestRead(_ref(i), d) for i, d in reads])


def _order(ranks: dict) -> List[str]:
    return sorted(ranks, key=ranks.__getitem__)


def test_a_fresh_start_asks_for_the_oldest_mechs_first() -> None:
    """No previous catalogue: 400 dead hashes sorting first, on younger services."""
    incumbent, copy = manifest(1), manifest(2)
    reads = [(1, incumbent[0]), (2, copy[0])] + [(3 + i, dead(i)) for i in range(400)]
    ranks = fetch_ranks(_snapshot(reads), None, failed=())
    assert _order(ranks)[:2] == [incumbent[0], copy[0]]
    results, _, _ = fetch_period(list(ranks), served_cids(incumbent, copy), ranks)
    assert results[incumbent[0]].status == results[copy[0]].status == STATUS_OK


@pytest.mark.parametrize("seed", range(5))
def test_the_digest_does_not_change_the_order(seed: int) -> None:
    """The same services holding the digests in any assignment: the order is by service."""
    digests = [dead(i) for i in range(20)]
    random.Random(seed).shuffle(digests)
    ranks = fetch_ranks(_snapshot(list(enumerate(digests))), None, failed=())
    assert _order(ranks) == digests


def test_what_this_agent_read_before_goes_first_on_a_fresh_start() -> None:
    """A record of readable digests outranks age (a restart keeps what was served)."""
    young, old = manifest(3), manifest(4)
    ranks = fetch_ranks(
        _snapshot([(1, dead(0)), (2, old[0]), (50, young[0])]),
        None,
        failed=(),
        readable=[young[0]],
    )
    assert _order(ranks) == [young[0], dead(0), old[0]]


def test_a_digest_the_budget_never_reached_is_not_read_yet() -> None:
    """Older services' dead hashes spend the budget: the newcomer is unreached, not failed.

    About 48 dead hashes fit a period's budget at the defaults (8 GETs of 10 s in 60 s);
    each period the reached ones go last (the caller leaves unreached digests out of
    ``failed``: ``still_failing``), so 119 of them delay the newcomer by two periods,
    once (with only the last period's failures remembered, the first 48 came back
    ahead of it in the third period, and so on: never).
    """
    newcomer = manifest(5)
    snapshot = _snapshot([(i, dead(i)) for i in range(1, 120)] + [(500, newcomer[0])])
    failed: FrozenSet[str] = frozenset()
    for period in range(1, 5):
        ranks = fetch_ranks(snapshot, None, failed=failed)
        results, _, _ = fetch_period(list(ranks), served_cids(newcomer), ranks)
        if results[newcomer[0]].status == STATUS_OK:
            break
        assert not results[newcomer[0]].reached
        reached = [d for d, r in results.items() if r.failed and r.reached]
        assert 40 <= len(reached) <= 60  # about a budget's worth reached, each period
        failed = still_failing(failed, results)
        assert newcomer[0] not in failed and set(reached) <= failed
    assert period == 3


def test_a_fresh_dead_hash_each_period_stays_behind_a_newcomer() -> None:
    """Old services whose hash failed set new dead hashes: they go after the newcomer."""
    newcomer = manifest(6)
    refs = range(1, 120)
    then = _snapshot([(i, dead(i)) for i in refs])
    first, _, _ = fetch_period(list(then.digests), {}, fetch_ranks(then, None, ()))
    previous = refresh_catalogue(then, first, lambda _: (None, ()), None)
    failed = [d for d, r in first.items() if r.failed and r.reached]
    now = _snapshot([(i, dead(1000 + i)) for i in refs] + [(500, newcomer[0])])
    ranks = fetch_ranks(now, previous, failed=failed)
    reached = {dead(1000 + i) for i in refs if dead(i) in failed}
    assert reached and all(ranks[newcomer[0]] < ranks[d] for d in reached)


def test_a_cid_given_up_after_a_failed_get_was_reached() -> None:
    """Two gateways: the first times out, the budget is spent before the second is asked."""
    pool = GatewayPool(
        ["http://127.0.0.1:1", "http://127.0.0.1:2"],
        GatewayPolicy(period_budget_seconds=5.0),
    )
    pool.begin_period(0.0)
    window = FetchWindow(["bafytried", "bafyqueued"], pool)
    window.pool.limit = 1  # one GET at a time
    sent = window.sendable(0.0)
    assert [cid for cid, _ in sent] == ["bafytried"]
    window.answer("bafytried", None, "timeout", None, None, 10.0, 1e9)
    assert not window.sendable(10.0)
    assert window.done
    tried, queued = window.replies["bafytried"][1], window.replies["bafyqueued"][1]
    assert not never_requested(tried) and "timeout" in tried
    assert never_requested(queued) and queued.startswith(NOT_REQUESTED)


def test_still_failing_keeps_what_the_budget_did_not_reach() -> None:
    """Failed and reached: failing; unreached: as before; read: cleared; gone: dropped."""
    was_dead, new_dead, unreached_dead, unreached_new, read, gone = (
        dead(i) for i in range(6)
    )
    fetched = {
        was_dead: FetchResult.unavailable(was_dead, ()),
        new_dead: FetchResult.unavailable(new_dead, ()),
        unreached_dead: FetchResult.unavailable(unreached_dead, (), reached=False),
        unreached_new: FetchResult.unavailable(unreached_new, (), reached=False),
        read: FetchResult.ok(read, "bafyread", b"{}"),
    }
    before = {was_dead, unreached_dead, read, gone}
    assert still_failing(before, fetched) == {was_dead, new_dead, unreached_dead}
