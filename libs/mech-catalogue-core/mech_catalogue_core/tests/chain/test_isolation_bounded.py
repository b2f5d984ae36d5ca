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


"""Telling failing calls apart is bounded per batch and per read (adv29zx I1).

Strangers' getters that revert at no cost, or burn their gas, cost at most
``isolation_calls(n)`` runs for a batch of ``n`` and ``MAX_ISOLATION_CALLS`` for a read;
a call not told apart within them is unread (said through ``on_unread``), never read as
another's answer; a node limiting the rate ends the telling apart, not the read.
"""

import math
from typing import Any, List, Set, Tuple

import pytest
from mech_catalogue_core.chain.registry import (
    BatchReply,
    BatchRequest,
    Call,
    ChainReadError,
)
from mech_catalogue_core.chain.rpc_limits import (
    MAX_ISOLATION_CALLS,
    isolate_failing_calls,
    isolation_calls,
)
from mech_catalogue_core.tests.chain.test_failing_calls_isolated import (
    PROBE,
    GasNode,
    address,
    getters,
)

BATCH = 200


class RevertingNode:  # pylint: disable=too-few-public-methods
    """Multicall2 ``tryAggregate``: a reverting getter fails alone, the others answer.

    :param failing: the indices of the calls that revert.
    :param limit_after: runs answered before every run is refused with a rate limit.
    """

    def __init__(self, failing: Set[int], limit_after: int = 10**9) -> None:
        """Answer from block 7."""
        self.failing = failing
        self.limit_after = limit_after
        self.runs: List[int] = []

    def __call__(self, request: BatchRequest) -> BatchReply:
        """One run: each call's result, or a rate limit past ``limit_after`` runs."""
        calls, _ = request
        self.runs.append(len(calls))
        if len(self.runs) > self.limit_after:
            raise ChainReadError("eth_call failed", "429 Too Many Requests: rate limit")
        return 7, [(c not in self.failing, b"\x01") for c in calls]


def _indices(count: int) -> Set[int]:
    """``count`` of :data:`BATCH` calls, spread out."""
    return set(range(0, BATCH, BATCH // count)) if count else set()


def _unread_of(
    node: object, max_calls: int = MAX_ISOLATION_CALLS
) -> Tuple[Any, List[Call]]:
    """A runner over ``node`` and the calls it says are unread."""
    unread: List[Call] = []
    runner = isolate_failing_calls(
        node,  # type: ignore[arg-type]
        (ChainReadError,),
        PROBE,
        on_unread=lambda calls, _: unread.extend(calls),
        max_calls=max_calls,
    )
    return runner, unread


@pytest.mark.parametrize(
    "failing, most_runs", [(0, 1), (1, 1), (10, 17), (100, 17), (200, 17)]
)
def test_cheap_reverts_cost_few_runs(failing: int, most_runs: int) -> None:
    """0, 1, 10, 100, 200 reverting of 200: results right, runs few, the rest said unread.

    :param failing: how many calls revert.
    :param most_runs: runs allowed (a revert first in the batch costs none more).
    """
    bad = _indices(failing)
    node = RevertingNode(bad)
    runner, unread = _unread_of(node)
    _, results = runner((list(range(BATCH)), None))
    assert [ok for ok, _ in results] == [i not in bad for i in range(BATCH)]
    assert len(node.runs) <= most_runs, node.runs
    assert sum(node.runs) <= 5 * BATCH  # call executions: never quadratic
    assert set(unread) <= bad  # only failing calls are ever unread here


@pytest.mark.parametrize("burners", [1, 10, 50, 100])
def test_burners_cost_at_most_the_batch_s_runs(burners: int) -> None:
    """Burners first, honest after: the honest half read, runs within the bound."""
    kinds = {address(i): ("burns" if i <= burners else "honest") for i in range(1, 201)}
    node = GasNode(kinds)
    runner, unread = _unread_of(node)
    _, results = runner((getters(list(kinds)), 100))
    honest = [ok for (ok, _), kind in zip(results, kinds.values()) if kind == "honest"]
    assert all(honest)
    assert len(node.requests) <= isolation_calls(BATCH)
    assert not any(
        call.target in unread for call in unread if kinds[call.target] == "honest"
    )


def test_burners_and_reverts_mixed() -> None:
    """Burners, reverts and honest calls interleaved: runs bounded.

    No honest call read as failed unless said unread, no stranger's read as answered.
    """
    kinds = {}
    for i in range(1, 201):
        kinds[address(i)] = ("burns", "reverts", "honest", "honest")[i % 4]
    node = GasNode(kinds)
    runner, unread = _unread_of(node)
    _, results = runner((getters(list(kinds)), 100))
    said = {call.target for call in unread}
    for (ok, _), (target, kind) in zip(results, kinds.items()):
        if kind != "honest":
            assert not ok
        else:
            assert ok or target in said
    assert len(node.requests) <= isolation_calls(BATCH)


def test_a_read_spends_at_most_its_runs_over_many_batches() -> None:
    """Ten batches each with reverts: past the read's runs, suspects are unread."""
    node = RevertingNode(set(range(0, 10_000, 2)))
    runner, unread = _unread_of(node, max_calls=20)
    for start in range(0, 2_000, BATCH):
        calls = list(range(start, start + BATCH))
        _, results = runner((calls, None))
        assert [ok for ok, _ in results] == [i % 2 == 1 for i in calls]
    assert len(node.runs) <= 10 + 20
    assert unread


def test_a_rate_limit_while_telling_apart_ends_it_not_the_read() -> None:
    """The node limits after 3 runs: the suspects are said unread, nothing raised."""
    bad = _indices(100)
    node = RevertingNode(bad, limit_after=3)
    told: List[str] = []
    runner: Any = isolate_failing_calls(
        node,  # type: ignore[arg-type]
        (ChainReadError,),
        PROBE,
        on_unread=lambda calls, why: told.extend([why] * len(calls)),
    )
    unread = [i for i in bad if i > 0]
    _, results = runner((list(range(BATCH)), None))
    assert [ok for ok, _ in results] == [i not in bad for i in range(BATCH)]
    assert told and all("limits the rate" in why for why in told)
    assert len(node.runs) == 4  # the run refused, then none more
    assert len(told) <= len(unread)  # each said once at most
    with pytest.raises(ChainReadError):  # the next batch's own rate limit
        runner((list(range(BATCH)), None))


def test_the_bounds_grow_with_the_batch_s_logarithm() -> None:
    """A batch's runs: 3 for one call, 65 for 200, ~8 log2(n) in between."""
    assert isolation_calls(1) == 3
    assert isolation_calls(200) == 65
    for size in (2, 17, 1_000):
        assert isolation_calls(size) == 1 + 8 * math.ceil(math.log2(size))
    assert MAX_ISOLATION_CALLS >= isolation_calls(BATCH)
