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
)

#: what RPCs say when one request is too big (matched case-insensitively in the error text):
#: the body (HTTP 413, "request entity too large", "payload too large"), the gas or the
#: work of the call ("out of gas", "exceeds block gas limit", geth's "execution aborted
#: (timeout = 5s)"), the response ("response size exceeded")
TOO_LARGE = re.compile(
    r"too large|too big|\b413\b|out of gas|gas limit|gas cap|exceeds allowance|"
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
