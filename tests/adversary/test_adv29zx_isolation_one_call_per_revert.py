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

"""adv29zx I1: each cheaply reverting getter in a batch costs one more eth_call.

Severity: MEDIUM (issue #29 (e): a stranger's mechs whose getters revert, which costs
them nothing at read time and looks like an old mech lacking a getter, turn one
``eth_call`` per batch into one per failing getter, run one after another, each
re-sending every failing call left: a public node's rate limit is then met, and
``isolate_failing_calls`` re-raises a rate limit, so the whole catalogue read fails,
every honest mech's facts with it).

fix29zk's ``rpc_limits.isolate_failing_calls`` asks every call that failed after the
first of its batch again, together (it may have been starved by a burner before it).
A call that reverts at once is not starved: it fails again, and the calls after the
first of the re-asked batch are asked again once more, one round per failing call.

Observed on main (measured, a runner answering like Multicall2's ``tryAggregate``):
a batch of 200 calls (``multicall_batch_size``'s default) of which every other one
reverts cheaply takes 100 ``eth_call`` runs, one after the other, and 5,150 call
executions (vs 1 and 200 when none fails); 200 of 200 failing: 200 ``eth_call`` runs
and 20,100 call executions. Gas burners (the library's own Multicall2 63/64 node
model, ``test_failing_calls_isolated.GasNode``): 100 burners of 200 calls take 165
``eth_call`` runs and 87.5 M gas (1 and 1.0 M with none; 20 burners: 43 and 33.5 M).

Expected: a bound on the re-asking in the number of failing calls' logarithm or a
constant (e.g. each suspect asked alone in one JSON-RPC batch, a per-call gas
stipend given by a state-overridden aggregator, or suspects split in halves), so N
cheap reverts cost O(log N) round trips, not N.
"""

from typing import List, Set, Tuple

import pytest
from mech_catalogue_core.chain.rpc_limits import isolate_failing_calls

BATCH = 200
#: round trips a batch with failures may take: the first, then halving (2 x log2 200)
BOUND = 1 + 2 * 8


def _asked(failing: Set[int]) -> Tuple[int, int]:
    """Run one batch of ``BATCH`` calls; return (eth_calls made, calls executed)."""
    asked: List[int] = []

    def answer(
        request: Tuple[List[int], object],
    ) -> Tuple[int, List[Tuple[bool, bytes]]]:
        calls, _ = request
        asked.append(len(calls))
        # Multicall2 tryAggregate: a reverting getter fails alone, others answer
        return 7, [(c not in failing, b"" if c in failing else b"\x01") for c in calls]

    run = isolate_failing_calls(answer, (RuntimeError,), -1)  # type: ignore[arg-type]
    _, results = run((list(range(BATCH)), None))  # type: ignore[arg-type]
    assert [ok for ok, _ in results] == [i not in failing for i in range(BATCH)]
    return len(asked), sum(asked)


def test_honest_batch_is_one_call() -> None:
    """The baseline: no failure, one eth_call."""
    assert _asked(set()) == (1, BATCH)


@pytest.mark.parametrize("failing", [100, 200])
def test_cheap_reverts_cost_few_round_trips(failing: int) -> None:
    """Reverting getters (every other call, or all) are told apart in few calls."""
    bad = set(range(0, BATCH, BATCH // failing))
    calls, executed = _asked(bad)
    assert calls <= BOUND, f"{calls} eth_calls ({executed} call executions)"


def test_burners_cost_few_round_trips() -> None:
    """100 burners among 200 calls (the library's Multicall2 63/64 node model)."""
    # pylint: disable=import-outside-toplevel
    from mech_catalogue_core.tests.chain.test_failing_calls_isolated import (
        GasNode,
        address,
        getters,
        run_blocking,
    )

    kinds = {address(i): ("burns" if i <= 100 else "honest") for i in range(1, 201)}
    node = GasNode(kinds)
    run_blocking(node, getters(list(kinds)))
    assert (
        len(node.requests) <= BOUND
    ), f"{len(node.requests)} eth_calls, {node.burnt / 1e6:.1f} M gas burnt"
