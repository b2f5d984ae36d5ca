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

"""RPC size limits: a Multicall2 batch the RPC refuses as too large is sent again in halves.

Public RPCs cap what one ``eth_call`` may carry: the request body (HTTP 413, "request
entity too large"), the gas an ``eth_call`` may burn ("out of gas", "gas limit", "exceeds
block gas limit") or the response size ("response size exceeded"). The skill's and the
CLI's batch runners are wrapped with :func:`split_oversized` /
:func:`split_oversized_yielding`: such a refusal splits the batch into two halves, each
sent again (recursively, down to one call), the second pinned to the block the first ran
at when the batch was for ``latest``; the results are joined in call order, so
``snapshot_reader`` sees one reply. Every split is reported through ``on_split``. A
one-call batch that is still refused, or any other error, propagates unchanged.

Batches of strangers' getters (each mech's facts) are run through
:func:`isolate_failing_calls` / :func:`isolate_failing_calls_yielding` instead, each
``eth_call`` bounded by :func:`batch_gas`: a batch the node errs on is split whatever its
words, and a call failing alone is that contract's failure, so one mech whose code burns
all gas, reverts with a huge reason or returns a huge value loses its own facts only.

``eth_getLogs`` has its own caps (a block range, a result count): the skill's log runner
is wrapped with :func:`narrow_log_range_yielding`, the MCP server's direct reader with
:func:`narrow_log_range`; each reads a refused range as two halves (down to one block)
and joins their logs, so ``discover_mechs`` sees one answer per range and its checkpoint
moves only past ranges read whole.

Both are told apart from other errors by the RPC's text alone (codes differ between
providers: -32005, -32602, -32614, -32000 for the same refusal). Halving is depth-first,
so an error misread as a refusal costs at most about 2 x log2(calls or blocks) further
requests before it propagates; a rate limit (:data:`RATE_LIMITED`) is never read as one,
as halving would only send more requests to an RPC asking for fewer.
"""

import re
from dataclasses import replace
from typing import Any, Callable, Generator, List, Optional, Tuple, Type

from mech_catalogue_core.chain.marketplace import (
    LogQuery,
    Logs,
)
from mech_catalogue_core.chain.registry import (
    BatchReply,
    BatchRequest,
    Call,
)

#: what RPCs say when one request is too big (matched case-insensitively in the error text):
#: the body (HTTP 413, "request entity too large", "payload too large"), the gas or the
#: work of the call ("exceeds block gas limit", geth's "execution aborted (timeout =
#: 5s)"), the response ("response size exceeded"). Out of gas in each node's words: geth
#: and Erigon "out of gas" (go-ethereum ``core/vm/errors.go`` ``ErrOutOfGas``; Erigon's
#: ``execution/vm`` is go-ethereum's), Nethermind "out of gas" (-32000,
#: NethermindEth/nethermind issue 11174; its traces "Out of gas"), anvil "EVM error
#: OutOfGas" (seen on the devnet). A facts batch does not depend on these words
#: (:func:`isolate_failing_calls`)
TOO_LARGE = re.compile(
    r"too large|too big|\b413\b|out.?of.?gas|gas limit|gas cap|exceeds allowance|"
    r"execution aborted|response size|size exceeded|batch size|too many calls|"
    r"request size",
    re.IGNORECASE,
)

#: what RPCs say when an ``eth_getLogs`` range is too wide or returns too much. Texts met
#: in public RPCs' answers, each matched here: "range 1000000 exceeds limit of 10000"
#: (Infura), "eth_getLogs is limited to a 10,000 range" (QuickNode, over HTTP 413),
#: "block range is larger than max block range", "block range too large, max range: N"
#: (Erigon forks), "query exceeds max block range 5000" (reth), "query exceeds max results
#: 20000, retry with the range A-B" (reth), "query returned more than 10000 results"
#: (geth, Infura), "range N is bigger than range limit 2000" (Tenderly, in the error's
#: ``data``), "Log response size exceeded" (Alchemy), "can't query more than 1000 blocks"
RANGE_TOO_WIDE = re.compile(
    r"\branges?\b|more than [\d,]+ (blocks|results|logs)|"
    r"too many (blocks|results|logs)|exceed\w* (the )?max\w* (results|logs|blocks)|"
    r"response size|size exceeded|too large|\b413\b|limit exceeded",
    re.IGNORECASE,
)

#: what RPCs say when they limit the rate of requests: never a reason to split or halve
RATE_LIMITED = re.compile(
    r"rate.?limit|\b429\b|too many requests|requests? per second|"
    r"compute units|capacity|quota|daily request count",
    re.IGNORECASE,
)

#: ``on_split(calls in the refused batch, the error text)``
SplitReport = Callable[[int, str], None]


def rpc_text(error: BaseException) -> str:
    """Get what the RPC said in an error: its ``reason`` attribute if it has one, else its text.

    An adapter that adds its own advice to the message (which may name ranges or sizes)
    keeps the RPC's words apart in ``reason`` (``registry.ChainReadError``).

    :param error: the exception a runner raised.
    :return: the text the classifiers read.
    """
    reason = getattr(error, "reason", None)
    return reason if isinstance(reason, str) and reason else str(error)


def batch_too_large(error: BaseException) -> bool:
    """Whether an RPC error says the request was too large (:data:`TOO_LARGE`).

    :param error: the exception a batch runner raised (:func:`rpc_text` is read).
    :return: True for a size refusal, False for anything else and for a rate limit.
    """
    text = rpc_text(error)
    return bool(TOO_LARGE.search(text)) and not RATE_LIMITED.search(text)


def split_oversized(
    answer: Callable[[BatchRequest], BatchReply],
    errors: Tuple[Type[BaseException], ...],
    on_split: Optional[SplitReport] = None,
) -> Callable[[BatchRequest], BatchReply]:
    """Wrap a blocking batch runner so that size refusals split the batch.

    :param answer: runs one batch as one ``eth_call``: ``(calls, block) -> (block, results)``.
    :param errors: the exception types ``answer`` raises for an RPC error.
    :param on_split: told of every split (calls in the refused batch, error text).
    :return: a runner with the same contract.
    """

    def run(request: BatchRequest) -> BatchReply:
        calls, block = request
        try:
            return answer(request)
        except errors as exc:
            if len(calls) < 2 or not batch_too_large(exc):
                raise
            if on_split is not None:
                on_split(len(calls), str(exc))
        half = (len(calls) + 1) // 2
        first = run((calls[:half], block))
        second = run((calls[half:], first[0] if block is None else block))
        return first[0], first[1] + second[1]

    return run


def split_oversized_yielding(
    answer: Callable[[BatchRequest], Generator[None, None, BatchReply]],
    errors: Tuple[Type[BaseException], ...],
    on_split: Optional[SplitReport] = None,
) -> Callable[[BatchRequest], Generator[None, None, BatchReply]]:
    """:func:`split_oversized` for a cooperative runner (a behaviour's ``yield from``).

    :param answer: runs one batch: ``(calls, block) ->`` a generator returning the reply.
    :param errors: the exception types ``answer`` raises for an RPC error.
    :param on_split: told of every split (calls in the refused batch, error text).
    :return: a runner with the same contract.
    """

    def run(request: BatchRequest) -> Generator[None, None, BatchReply]:
        calls, block = request
        try:
            return (yield from answer(request))
        except errors as exc:
            if len(calls) < 2 or not batch_too_large(exc):
                raise
            if on_split is not None:
                on_split(len(calls), str(exc))
        half = (len(calls) + 1) // 2
        first = yield from run((calls[:half], block))
        second = yield from run((calls[half:], first[0] if block is None else block))
        return first[0], first[1] + second[1]

    return run


#: gas an ``eth_call`` of a batch of strangers' getters is given: Multicall2's own share,
#: then each call's. A getter of the mech contract reads a slot or two (under 10,000 gas;
#: ``getOperator()`` asks the service registry, about 20,000); the bound only keeps a
#: contract that burns what it is given from burning the node's whole cap (30 million
#: gas on anvil, 1.2 s) in every batch holding it. Alone in a batch, such a contract
#: leaves Multicall2 1/64 of the bound: on anvil 100,000 gas was enough to answer it
BATCH_BASE_GAS = 250_000
#: each call's share of a batch's gas (:func:`batch_gas`)
CALL_GAS = 50_000
#: the most gas one batch is given: under Gnosis's block gas limit (17 million), which
#: Nethermind held an ``eth_call``'s gas to (NethermindEth/nethermind issue 11172)
MAX_BATCH_GAS = 10_000_000


def batch_gas(calls: int) -> int:
    """Return the gas bound of one ``eth_call`` running a batch of strangers' getters.

    :param calls: calls in the batch (>= 1).
    :return: :data:`BATCH_BASE_GAS` + :data:`CALL_GAS` per call, at most
        :data:`MAX_BATCH_GAS`. A batch whose honest calls need more fails as a whole and
        is read in halves (:func:`isolate_failing_calls`).
    """
    return min(BATCH_BASE_GAS + CALL_GAS * calls, MAX_BATCH_GAS)


def isolate_failing_calls_yielding(
    answer: Callable[[BatchRequest], Generator[None, None, BatchReply]],
    errors: Tuple[Type[BaseException], ...],
    probe: Call,
    on_failure: Optional[SplitReport] = None,
) -> Callable[[BatchRequest], Generator[None, None, BatchReply]]:
    """Wrap a cooperative batch runner so that one contract's call cannot fail the others.

    Multicall2 gives each call 63/64 of the gas left, so a call that burns all it is
    given starves every call after it, and Multicall2 itself: the node then answers the
    whole ``eth_call`` with an error (in its own words), or the later calls fail. So,
    whatever the node says:

    - a batch of more than one call the node answers with an error (a rate limit
      aside) is sent again in halves, down to one call;
    - one call the node answers with an error is that call's failure, ``(False, b"")``,
      when the node answers ``probe`` (a call of the caller's own, e.g. Multicall2's
      ``getBlockNumber()``) at the same block; else the error propagates (the node's);
    - a call that failed after the first of its batch may have been starved: the failed
      calls are asked again together (the first of them then has the batch's gas). A
      successful call's result stands (gas changes no honest getter's answer).

    :param answer: runs one batch: ``(calls, block) ->`` a generator returning the reply.
    :param errors: the exception types ``answer`` raises for an RPC error.
    :param probe: a call that cannot fail on a working node.
    :param on_failure: told of every batch answered with an error (calls in it, the
        error text): split when more than one; one, when the call failed alone (not when
        the node's error propagates).
    :return: a runner with the same contract; one ``eth_call`` more per call that failed
        after the first of a batch, about 2 x log2(calls) per batch the node erred on.
    """

    def run(request: BatchRequest) -> Generator[None, None, BatchReply]:
        calls, block = request
        try:
            reply = yield from answer(request)
        except errors as exc:
            if RATE_LIMITED.search(rpc_text(exc)):
                raise
            if len(calls) == 1:
                return (yield from failed_alone(block, exc))
            if on_failure is not None:
                on_failure(len(calls), str(exc))
            half = (len(calls) + 1) // 2
            first = yield from run((calls[:half], block))
            second = yield from run(
                (calls[half:], first[0] if block is None else block)
            )
            return first[0], first[1] + second[1]
        return (yield from asked_again_if_starved(calls, reply))

    def failed_alone(
        block: Optional[int], error: BaseException
    ) -> Generator[None, None, BatchReply]:
        try:
            probed = yield from answer(([probe], block))
        except errors:
            probed = None
        if probed is None:
            raise error
        if on_failure is not None:
            on_failure(1, str(error))
        return probed[0], [(False, b"")]

    def asked_again_if_starved(
        calls: List[Call], reply: BatchReply
    ) -> Generator[None, None, BatchReply]:
        block, results = reply
        suspects = [i for i, (ok, _) in enumerate(results) if not ok and i > 0]
        if not suspects:
            return reply
        again = yield from run(([calls[i] for i in suspects], block))
        merged = list(results)
        for index, result in zip(suspects, again[1]):
            merged[index] = result
        return block, merged

    return run


def isolate_failing_calls(
    answer: Callable[[BatchRequest], BatchReply],
    errors: Tuple[Type[BaseException], ...],
    probe: Call,
    on_failure: Optional[SplitReport] = None,
) -> Callable[[BatchRequest], BatchReply]:
    """:func:`isolate_failing_calls_yielding` for a blocking runner.

    :param answer: runs one batch as one ``eth_call``: ``(calls, block) -> (block, results)``.
    :param errors: the exception types ``answer`` raises for an RPC error.
    :param probe: a call that cannot fail on a working node.
    :param on_failure: told of every batch answered with an error.
    :return: a runner with the same contract.
    """

    def answered(request: BatchRequest) -> Generator[None, None, BatchReply]:
        return answer(request)
        yield  # pylint: disable=unreachable  # a generator that never waits

    cooperative = isolate_failing_calls_yielding(answered, errors, probe, on_failure)

    def run(request: BatchRequest) -> BatchReply:
        runner = cooperative(request)
        try:
            while True:
                next(runner)
        except StopIteration as done:
            return done.value

    return run


def log_range_too_wide(error: BaseException) -> bool:
    """Whether an RPC error says an ``eth_getLogs`` range is too wide (:data:`RANGE_TOO_WIDE`).

    :param error: the exception a log runner raised (:func:`rpc_text` is read).
    :return: True for a range or result-count refusal, False for anything else and for a
        rate limit.
    """
    text = rpc_text(error)
    return bool(RANGE_TOO_WIDE.search(text)) and not RATE_LIMITED.search(text)


def _halves_of_refused(
    query: LogQuery,
    error: BaseException,
    on_narrow: Optional[Callable[[LogQuery, str], None]],
) -> Optional[Tuple[LogQuery, LogQuery]]:
    """Split a query the RPC refused as too wide, and report it; None when it must propagate.

    :param query: the refused query.
    :param error: what the runner raised.
    :param on_narrow: told of the halving (the query, the error text).
    :return: the two halves, or None for a one-block range or another error.
    """
    if query.to_block <= query.from_block or not log_range_too_wide(error):
        return None
    if on_narrow is not None:
        on_narrow(query, str(error))
    middle = (query.from_block + query.to_block) // 2
    return replace(query, to_block=middle), replace(query, from_block=middle + 1)


def narrow_log_range(
    answer: Callable[[LogQuery], Logs],
    errors: Tuple[Type[BaseException], ...],
    on_narrow: Optional[Callable[[LogQuery, str], None]] = None,
) -> Callable[[LogQuery], List[Any]]:
    """Wrap a blocking ``eth_getLogs`` runner so that a too-wide range is read in halves.

    :param answer: runs one query: ``LogQuery ->`` the logs.
    :param errors: the exception types ``answer`` raises for an RPC error.
    :param on_narrow: told of every range halved (the query, the error text).
    :return: a runner with the same contract (logs in block order, as the halves give them).
    """

    def run(query: LogQuery) -> List[Any]:
        try:
            return list(answer(query))
        except errors as exc:
            halves = _halves_of_refused(query, exc, on_narrow)
            if halves is None:
                raise
        return run(halves[0]) + run(halves[1])

    return run


def narrow_log_range_yielding(
    answer: Callable[[LogQuery], Generator[None, None, Logs]],
    errors: Tuple[Type[BaseException], ...],
    on_narrow: Optional[Callable[[LogQuery, str], None]] = None,
) -> Callable[[LogQuery], Generator[None, None, List[Any]]]:
    """Wrap a cooperative ``eth_getLogs`` runner so that a too-wide range is read in halves.

    :param answer: runs one query: ``LogQuery ->`` a generator returning the logs.
    :param errors: the exception types ``answer`` raises for an RPC error.
    :param on_narrow: told of every range halved (the query, the error text).
    :return: a runner with the same contract (logs in block order, as the halves give them).
    """

    def run(query: LogQuery) -> Generator[None, None, List[Any]]:
        try:
            return list((yield from answer(query)))
        except errors as exc:
            halves = _halves_of_refused(query, exc, on_narrow)
            if halves is None:
                raise
        first = yield from run(halves[0])
        second = yield from run(halves[1])
        return first + second

    return run
