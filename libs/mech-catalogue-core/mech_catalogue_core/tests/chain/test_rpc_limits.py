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

"""Batches an RPC refuses as too large are split in halves; other errors are not."""

from typing import Any, Dict, Generator, List, Optional, Tuple

import pytest
from mech_catalogue_core.chain.marketplace import (
    CREATE_MECH_TOPIC,
    DELIVERY_TOPICS,
    LogQuery,
    MarketplaceSource,
    discover_mechs,
    start_checkpoint,
)
from mech_catalogue_core.chain.registry import (
    BatchReply,
    BatchRequest,
    encode_call,
)
from mech_catalogue_core.chain.rpc_limits import (
    batch_too_large,
    log_range_too_wide,
    narrow_log_range,
    narrow_log_range_yielding,
    split_oversized,
    split_oversized_yielding,
)
from mech_catalogue_core.driver import (
    drive,
    drive_yielding,
)
from mech_catalogue_core.tests.chain.test_marketplace import (
    FACTORY,
    MARKET,
    MECH_1,
    MECH_2,
    create_log,
)

CALLS = [
    encode_call("0x" + f"{i:02x}" * 20, "totalSupply()", (), (), ("uint256",))
    for i in range(1, 8)
]


class RpcError(Exception):
    """What the fake RPC raises."""


class Rpc:  # pylint: disable=too-few-public-methods
    """Refuses batches of more than ``limit`` calls; ``latest`` moves on every call."""

    def __init__(self, limit: int, message: str = "request entity too large") -> None:
        """Start at block 100.

        :param limit: most calls per batch.
        :param message: the refusal's text.
        """
        self.limit, self.message, self.block = limit, message, 100
        self.seen: List[Tuple[int, Optional[int]]] = []

    def __call__(self, request: BatchRequest) -> BatchReply:
        """Answer one batch: each call returns its own target's first byte.

        :param request: the batch.
        :return: the reply.
        :raises RpcError: over the limit.
        """
        calls, block = request
        self.seen.append((len(calls), block))
        self.block += 1
        if len(calls) > self.limit:
            raise RpcError(self.message)
        return (block or self.block), [
            (True, bytes.fromhex(c.target[2:4])) for c in calls
        ]


def _ones(block: Optional[int]) -> Generator[BatchRequest, BatchReply, BatchReply]:
    return (yield CALLS, block)


@pytest.mark.parametrize("limit", [1, 2, 3, 6])
def test_halves_until_they_fit_results_in_call_order(limit: int) -> None:
    """Every call answered once, in order, whatever the limit; each sent batch fits it."""
    rpc, splits = Rpc(limit), []
    block, results = drive(
        _ones(50), split_oversized(rpc, (RpcError,), lambda n, _: splits.append(n))
    )
    assert block == 50 and [r[1][0] for r in results] == list(range(1, 8))
    sent = [n for n, _ in rpc.seen if n <= limit]
    assert sum(sent) == len(CALLS) and splits and splits[0] == len(CALLS)


def test_a_latest_batch_is_pinned_to_the_block_its_first_half_ran_at() -> None:
    """Halves of a batch for 'latest' read one block: the first half's."""
    rpc = Rpc(4)
    block, results = drive(_ones(None), split_oversized(rpc, (RpcError,)))
    assert len(results) == 7 and rpc.seen[1] == (4, None) and rpc.seen[2] == (3, block)


def test_other_errors_are_not_split() -> None:
    """A refusal that is not about size propagates after one call."""
    rpc = Rpc(2, message="execution reverted")
    with pytest.raises(RpcError, match="reverted"):
        drive(_ones(5), split_oversized(rpc, (RpcError,)))
    assert rpc.seen == [(7, 5)]


def test_one_call_still_too_large_propagates() -> None:
    """Nothing fits: the last one-call refusal propagates (no endless splitting)."""
    rpc = Rpc(0)
    with pytest.raises(RpcError, match="too large"):
        drive(_ones(5), split_oversized(rpc, (RpcError,)))
    assert rpc.seen[-1][0] == 1 and len(rpc.seen) <= 2 * len(CALLS)


def test_the_yielding_runner_does_the_same() -> None:
    """The behaviour's cooperative form gives the same reply and the same batches."""
    blocking, cooperative = Rpc(3), Rpc(3)

    def answer(request: BatchRequest) -> Generator[None, None, BatchReply]:
        yield
        return cooperative(request)

    expected = drive(_ones(9), split_oversized(blocking, (RpcError,)))
    steps = drive_yielding(_ones(9), split_oversized_yielding(answer, (RpcError,)))
    with pytest.raises(StopIteration) as done:
        while True:
            next(steps)
    assert done.value.value == expected and cooperative.seen == blocking.seen


@pytest.mark.parametrize(
    "text, expected",
    [
        ("413 Request Entity Too Large", True),
        ("out of gas", True),
        ("query exceeds gas cap", True),
        ("Log response size exceeded", True),
        ("Payload Too Large", True),
        ("HTTP 413, not JSON-RPC", True),
        ("request body too big", True),
        ("execution aborted (timeout = 5s)", True),
        ("gas required exceeds allowance (30000000)", True),
        ("execution reverted", False),
        ("connection refused", False),
        ("header not found", False),
        ("429 Too Many Requests: request too large for your plan's rate limit", False),
        ("Your app has exceeded its compute units per second capacity", False),
    ],
)
def test_size_refusals_are_told_apart(text: str, expected: bool) -> None:
    """The texts RPCs use for size limits; errors and rate limits that are not one."""
    assert batch_too_large(RuntimeError(text)) is expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("{'code': -32602, 'message': 'range 500000 exceeds limit of 10000'}", True),
        ("eth_getLogs is limited to a 10,000 range", True),
        ("block range is larger than max block range, block range = 5120", True),
        ("block range too large, max range: 1000", True),
        ("query exceeds max block range 5000", True),
        ("query exceeds max results 20000, retry with the range 10-20", True),
        ("query returned more than 10000 results", True),
        (
            "{'code': -32602, 'message': 'invalid params', 'data': 'range 90 is bigger "
            "than range limit 20'}",
            True,
        ),
        ("Log response size exceeded", True),
        ("can't query more than 1000 blocks", True),
        ("too many blocks requested", True),
        ("Block range limit exceeded", True),
        ("HTTP 413, not JSON-RPC", True),
        ("connection refused", False),
        ("header not found", False),
        ("execution reverted", False),
        ("unknown block", False),
        ("eth_getLogs: internal error", False),
        ("rate limit exceeded, try a smaller range later", False),
        ("429 Too Many Requests", False),
        ("daily request count exceeded, request rate limited", False),
    ],
)
def test_log_range_refusals_are_told_apart(text: str, expected: bool) -> None:
    """Range refusals in several providers' words; errors and rate limits that are not one."""
    assert log_range_too_wide(RuntimeError(text)) is expected


class AdvisedError(Exception):
    """An adapter's error: its own advice in the message, the RPC's words in ``reason``."""

    def __init__(self, message: str, reason: str) -> None:
        """Keep both.

        :param message: the advice.
        :param reason: the RPC's words.
        """
        super().__init__(message)
        self.reason = reason


def test_the_rpc_words_are_read_not_the_advice() -> None:
    """Advice naming ranges or sizes does not turn an unrelated error into a refusal."""
    advice = "failed; check the RPC (some refuse wide ranges or too large batches)"
    assert not log_range_too_wide(AdvisedError(advice, "connection refused"))
    assert not batch_too_large(AdvisedError(advice, "connection refused"))
    assert log_range_too_wide(AdvisedError(advice, "range 90 exceeds limit of 10"))
    assert batch_too_large(AdvisedError(advice, "out of gas"))


class LogRpc:  # pylint: disable=too-few-public-methods
    """eth_getLogs over a list of logs, refusing ranges wider than ``width`` blocks."""

    def __init__(self, logs: List[Dict[str, Any]], width: int, message: str) -> None:
        """Keep the logs.

        :param logs: every log on the "chain".
        :param width: most blocks per query.
        :param message: the refusal's text.
        """
        self.logs, self.width, self.message = logs, width, message
        self.ranges: List[Tuple[int, int]] = []
        self.topics: List[str] = []  # each query's topic, as ``ranges``

    def __call__(self, query: LogQuery) -> Generator[None, None, List[Dict[str, Any]]]:
        """Answer one query after one cooperative yield.

        :param query: the range.
        :yield: once, as a behaviour waiting for the ledger.
        :return: the logs inside it.
        :raises RpcError: wider than ``width``.
        """
        yield
        self.ranges.append((query.from_block, query.to_block))
        self.topics.append(query.topic)
        if query.to_block - query.from_block + 1 > self.width:
            raise RpcError(self.message)
        return [
            log
            for log in self.logs
            if query.from_block <= int(log["blockNumber"], 16) <= query.to_block
            and log["topics"][0] == query.topic
        ]


def _discover(rpc: LogRpc, source: MarketplaceSource, head: int) -> Any:
    steps = drive_yielding(
        discover_mechs(source, start_checkpoint(source), head),
        narrow_log_range_yielding(rpc, (RpcError,)),
    )
    with pytest.raises(StopIteration) as done:
        while True:
            next(steps)
    return done.value.value


@pytest.mark.parametrize("width", [1, 3, 7])
def test_a_too_wide_log_range_is_read_in_halves(width: int) -> None:
    """Whatever the RPC's range cap, the same mechs and the same checkpoint as an uncapped RPC."""
    source = MarketplaceSource(1, MARKET, first_block=1, confirmations=0, max_range=40)
    logs = [create_log(MECH_1, 7, FACTORY, 5), create_log(MECH_2, 8, FACTORY, 33)]
    uncapped = _discover(LogRpc(logs, 10**6, ""), source, 60)
    rpc = LogRpc(logs, width, "query exceeds max block range 10")
    capped = _discover(rpc, source, 60)
    assert capped == uncapped and [m.address for m in capped.mechs] == [MECH_1, MECH_2]
    for topic in (CREATE_MECH_TOPIC, *DELIVERY_TOPICS):
        read = sorted(
            r
            for r, asked in zip(rpc.ranges, rpc.topics)
            if r[1] - r[0] + 1 <= width and asked == topic
        )
        covered = [b for start, end in read for b in range(start, end + 1)]
        assert covered == list(range(1, 61))  # every block read once for each event


@pytest.mark.parametrize("width", [1, 4, 60])
def test_the_blocking_log_runner_reads_the_same_ranges(width: int) -> None:
    """``narrow_log_range`` asks for the same ranges, in the same order, as the yielding one."""
    source = MarketplaceSource(1, MARKET, first_block=1, confirmations=0, max_range=40)
    logs = [create_log(MECH_1, 7, FACTORY, 5), create_log(MECH_2, 8, FACTORY, 33)]
    cooperative = LogRpc(logs, width, "block range too large")
    blocking = LogRpc(logs, width, "block range too large")
    narrowed: List[Tuple[int, int]] = []

    def answer(query: LogQuery) -> List[Any]:
        return drive(blocking(query), lambda _: None)  # its one yield asks for nothing

    checkpoint = drive(
        discover_mechs(source, start_checkpoint(source), 60),
        narrow_log_range(
            answer,
            (RpcError,),
            lambda q, _: narrowed.append((q.from_block, q.to_block)),
        ),
    )
    assert checkpoint == _discover(cooperative, source, 60)
    assert blocking.ranges == cooperative.ranges
    assert len(narrowed) == sum(1 for a, b in blocking.ranges if b - a + 1 > width)


def test_other_log_errors_keep_the_checkpoint() -> None:
    """An error that is not about the range propagates: discovery ends, nothing is advanced."""
    source = MarketplaceSource(1, MARKET, first_block=1, confirmations=0, max_range=40)
    rpc = LogRpc([], 5, "connection refused")
    with pytest.raises(RpcError, match="refused"):
        _discover(rpc, source, 60)
    assert rpc.ranges == [(1, 40)]


def test_a_one_block_range_still_refused_propagates() -> None:
    """A block whose logs alone exceed the cap: the refusal propagates (no endless halving)."""
    source = MarketplaceSource(1, MARKET, first_block=1, confirmations=0, max_range=8)
    rpc = LogRpc([], 0, "Log response size exceeded")
    with pytest.raises(RpcError, match="size exceeded"):
        _discover(rpc, source, 8)
    assert rpc.ranges[-1][0] == rpc.ranges[-1][1] and len(rpc.ranges) <= 16
