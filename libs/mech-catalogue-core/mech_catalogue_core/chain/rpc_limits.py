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
from typing import (
    Any,
    Callable,
    Generator,
    List,
    Optional,
    Sequence,
    Tuple,
    Type,
    cast,
)

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


#: ``eth_call`` runs one facts read may spend telling failing calls apart, past each
#: batch's first, at most (adv29zx I1: a public node's rate limit is met long before
#: strangers' reverting or burning getters are told apart one by one). They are not
#: there at the read's start: each batch brings its share when it is sent
#: (:data:`READ_SHARES`), so strangers' getters in the first batches cannot spend the
#: runs of later ones (adv29zz I2); calls not told apart within them are unread for the
#: period (:data:`UnreadReport`) and read the next
MAX_ISOLATION_CALLS = 512
#: a batch brings 1/``READ_SHARES`` of the runs its read has not brought yet (at most
#: its own :func:`isolation_calls`): 64 for the first, 56 for the second, 20 for the
#: tenth, so a batch spends its share and what earlier batches left, never a later
#: batch's, and the read's runs stay within :data:`MAX_ISOLATION_CALLS` however many
#: batches it has. 64 tell apart eight burning mechs spread among a batch's 25 (55
#: runs); one takes about 12
READ_SHARES = 8
#: levels of halving in a row at which both halves failed whole before the rest of a
#: part is left unread: a part dense with failing calls (each revert or burner of a
#: stranger's) is not worth a run per call; a few strangers among honest calls leave
#: one half answered at most levels, and are told apart down to one contract
DENSE_LEVELS = 3
#: contracts in the smaller half below which a level of halves failing whole is not
#: counted as dense: a part of a few mechs is told apart in a few runs more (a part of
#: one contract's calls failing whole is that contract's failure at once)
DENSE_PART = 8
#: told of calls left unread: the calls, and why (runs spent, a rate limit)
UnreadReport = Callable[[List[Call], str], None]
#: why calls are unread when the runs to tell them apart are spent
SPENT = (
    "the eth_call runs to tell failing calls apart were spent (the batch's, the "
    "read's, or its calls failed densely); read again next period"
)


def isolation_calls(calls: int) -> int:
    """``eth_call`` runs at most for one batch of ``calls`` calls, its first included.

    :param calls: calls in the batch.
    :return: 1 + 8 x ceil(log2(calls)), at least 3 (65 for a batch of 200): four
        strangers' calls told apart down to one call each (two burning mechs of the
        devnet, each failing several getters, took 41 runs in a batch of 49), or one
        call with its probe.
    """
    return 1 + max(2, 8 * (calls - 1).bit_length())


#: one run's outcome: the reply, or the node's error for the whole batch
Outcome = Tuple[Optional[BatchReply], Optional[BaseException]]
#: a part told apart: (the block, its calls' results, runs used)
Told = Tuple[Optional[int], List[Tuple[bool, bytes]], int]


class _Budget:  # pylint: disable=too-few-public-methods
    """What one wrapped runner (a facts read) has left, and what its batch has learnt."""

    def __init__(self, calls: int) -> None:
        """Start with no runs: each batch brings its share (:meth:`bring`).

        :param calls: :data:`MAX_ISOLATION_CALLS` or the caller's: the most runs the
            batches bring in all.
        """
        self.left = 0
        self.unbrought = calls
        #: why calls left are unread (:data:`SPENT`, or the node's rate limit)
        self.why = SPENT
        #: the block at which the node answered a run in the batch being run (its
        #: probe or another: a call failing there alone is the call's failure)
        self.node_answered: Optional[int] = None

    def bring(self, allowed: int) -> None:
        """Add a batch's share to the runs left (:data:`READ_SHARES`).

        :param allowed: the batch's own bound past its first run.
        """
        brought = min(allowed, -(-self.unbrought // READ_SHARES))
        self.unbrought -= brought
        self.left += brought


def _unit(call: Any) -> Any:
    """The contract a call asks (its ``target``; anything else is its own unit)."""
    target = getattr(call, "target", None)
    return target.lower() if isinstance(target, str) else call


def _contracts(calls: Sequence[Any]) -> int:
    """Contracts asked in turn by ``calls``: runs of calls to one contract, counted."""
    return sum(
        1
        for i, call in enumerate(calls)
        if i == 0 or _unit(call) != _unit(calls[i - 1])
    )


def _failed_whole(outcome: Outcome) -> bool:
    """Whether a run failed for each of its calls (an error, or no call answered)."""
    reply, error = outcome
    return error is not None or (
        reply is not None and not any(ok for ok, _ in reply[1])
    )


def isolate_failing_calls_yielding(  # pylint: disable=too-many-arguments,too-many-positional-arguments,too-many-statements
    answer: Callable[[BatchRequest], Generator[None, None, BatchReply]],
    errors: Tuple[Type[BaseException], ...],
    probe: Call,
    on_failure: Optional[SplitReport] = None,
    on_unread: Optional[UnreadReport] = None,
    max_calls: int = MAX_ISOLATION_CALLS,
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
    - the calls that failed after the first of their batch may have been starved: they
      are asked again together, and in halves when they all fail again (the first of
      each then has the half's gas). A successful call's result stands (gas changes no
      honest getter's answer).

    Telling calls apart is bounded (adv29zx I1: strangers' getters reverting at no cost
    to them cost one more ``eth_call`` each, one after the other): a batch of ``n``
    calls takes at most :func:`isolation_calls` (``n``) runs, its first included; a
    part is halved between two contracts' calls (the nearest the middle), so one
    contract's calls side by side stay together, and a part of one contract's calls
    failing whole is that contract's failure (when the node answers the block); a
    part halved :data:`DENSE_LEVELS` levels in a row with both halves failing whole
    (each of :data:`DENSE_PART` contracts or more) is left as it is; one wrapped
    runner (one facts read) spends at most ``max_calls`` runs past each batch's first,
    each batch bringing its share when it is sent (:data:`READ_SHARES`: a batch
    spends its share and what earlier ones left, never a later one's). A call not told
    apart within these, or in a re-ask the node answers with a rate limit (the read
    then asks no more), is ``(False, b"")``, unread for this period: told to
    ``on_unread``.

    :param answer: runs one batch: ``(calls, block) ->`` a generator returning the reply.
    :param errors: the exception types ``answer`` raises for an RPC error.
    :param probe: a call that cannot fail on a working node.
    :param on_failure: told of every batch answered with an error (calls in it, the
        error text): split when more than one; one, when the call failed alone (not when
        the node's error propagates).
    :param on_unread: told of the calls left unread (the calls, why).
    :param max_calls: runs past each batch's first this runner may spend in all
        (:data:`MAX_ISOLATION_CALLS`; a new runner per facts read), brought by its
        batches as they are sent.
    :return: a runner with the same contract; a batch the node answers whole with no
        call failing after its first takes one ``eth_call``.
    """
    budget = _Budget(max_calls)

    def unread(calls: List[Call], why: str) -> List[Tuple[bool, bytes]]:
        if on_unread is not None and calls:
            on_unread(list(calls), why)
        return [(False, b"")] * len(calls)

    def run(request: BatchRequest) -> Generator[None, None, BatchReply]:
        calls, block = request
        budget.node_answered = None
        allowed = isolation_calls(len(calls)) - 1
        budget.bring(allowed)
        try:
            reply = yield from answer(request)
        except errors as exc:
            if RATE_LIMITED.search(rpc_text(exc)):
                raise
            outcome: Outcome = (None, exc)
        else:
            outcome = (reply, None)
            budget.node_answered = reply[0]
        found, results, _ = yield from told(calls, block, outcome, allowed, 0)
        if found is None:  # a batch for "latest" of which nothing was answered
            raise outcome[1] or RuntimeError("no block answered")
        return found, results

    def attempt(request: BatchRequest) -> Generator[None, None, Optional[Outcome]]:
        """One run past a batch's first (None: none left, or a rate limit met)."""
        if budget.left < 1:
            return None
        budget.left -= 1
        try:
            reply = yield from answer(request)
        except errors as exc:
            if RATE_LIMITED.search(rpc_text(exc)):
                budget.left = 0
                budget.why = f"the node limits the rate ({rpc_text(exc)[:200]})"
                return None
            return None, exc
        budget.node_answered = reply[0]  # the node works at this block
        return reply, None

    def told(  # pylint: disable=too-many-arguments
        calls: List[Call],
        block: Optional[int],
        outcome: Outcome,
        allowed: int,
        dense: int,
    ) -> Generator[None, None, Told]:
        """The calls' results once told apart, from their run's outcome."""
        reply, error = outcome
        if _contracts(calls) == 1 and _failed_whole(outcome):
            return (yield from failed_alone(block, error, allowed, calls))
        if error is not None:
            asked_again = list(range(len(calls)))
            results: List[Tuple[bool, bytes]] = [(False, b"")] * len(calls)
            if on_failure is not None:
                on_failure(len(calls), str(error))
        else:
            block, results = cast(BatchReply, reply)[0], list(
                cast(BatchReply, reply)[1]
            )
            asked_again = [i for i, (ok, _) in enumerate(results) if not ok and i > 0]
        if not asked_again:
            return block, results, 0
        parts = yield from parts_told(
            [calls[i] for i in asked_again], block, error, allowed, dense
        )
        if parts[0] is None and error is not None:
            return None, results, parts[2]
        for index, result in zip(asked_again, parts[1]):
            results[index] = result
        return (block if block is not None else parts[0]), results, parts[2]

    def parts_told(  # pylint: disable=too-many-arguments,too-many-locals
        calls: List[Call],
        block: Optional[int],
        error: Optional[BaseException],
        allowed: int,
        dense: int,
    ) -> Generator[None, None, Told]:
        """Calls failed in a run, asked again: together first, then in halves."""
        together = error is None and dense == 0 and len(calls) > 1
        halves = [calls] if together or len(calls) == 1 else _halved(calls)
        if dense >= DENSE_LEVELS or allowed < len(halves):
            if error is not None and (yield from node_answers(block)) is None:
                raise error
            return block, unread(calls, budget.why), 0
        used = 0
        outcomes: List[Outcome] = []
        for part in halves:
            outcome = yield from attempt((part, block))
            if outcome is None:
                return block, unread(calls, budget.why), used
            used += 1
            outcomes.append(outcome)
            if block is None and outcome[0] is not None:
                block = outcome[0][0]
        whole = all(_failed_whole(o) for o in outcomes)
        small = min(_contracts(part) for part in halves) < DENSE_PART
        level = (dense if small else dense + 1) if whole else 0
        results: List[Tuple[bool, bytes]] = []
        for part, outcome in zip(halves, outcomes):
            if together and whole:  # all failed again: their halves next
                part_told = yield from parts_told(part, block, None, allowed - used, 1)
                part_told = (
                    part_told[0],
                    _firsts_kept(outcome, part_told[1]),
                    part_told[2],
                )
            else:
                part_told = yield from told(part, block, outcome, allowed - used, level)
            used += part_told[2]
            results += part_told[1]
        return block, results, used

    def failed_alone(
        block: Optional[int],
        error: Optional[BaseException],
        allowed: int,
        part: List[Call],
    ) -> Generator[None, None, Told]:
        """One contract's calls failed whole: its failure, when the node answers."""
        calls = len(part)
        if error is None:  # answered, none of its calls succeeded
            return block, [(False, b"")] * calls, 0
        known = budget.node_answered is not None and block in (
            None,
            budget.node_answered,
        )
        if not known and allowed < 1:  # no run left to ask the node: not told apart
            return block, unread(part, budget.why), 0
        answered = yield from node_answers(block)
        if answered is None:
            raise error
        if on_failure is not None:
            on_failure(1, str(error))
        return answered, [(False, b"")] * calls, 0 if known else 1

    def node_answers(block: Optional[int]) -> Generator[None, None, Optional[int]]:
        """The block at which the node answers (``probe`` asked when not known), or None."""
        if budget.node_answered is not None and block in (None, budget.node_answered):
            return budget.node_answered
        budget.left -= 1
        try:
            probed: Optional[BatchReply] = yield from answer(([probe], block))
        except errors:
            probed = None
        budget.node_answered = None if probed is None else probed[0]
        return budget.node_answered

    return run


def _halved(calls: List[Call]) -> List[List[Call]]:
    """Two halves, parted between two contracts' calls nearest the middle.

    One contract's calls side by side (a mech's getters) stay together and fail
    together; calls of one contract only are halved in the middle.

    :param calls: two calls or more.
    :return: the two parts, in order (at a tie the first the larger).
    """
    middle = (len(calls) + 1) // 2
    partings = [
        i for i in range(1, len(calls)) if _unit(calls[i]) != _unit(calls[i - 1])
    ]
    half = min(partings, key=lambda i: (abs(i - middle), -i), default=middle)
    return [calls[:half], calls[half:]]


def _firsts_kept(
    outcome: Outcome, told: List[Tuple[bool, bytes]]
) -> List[Tuple[bool, bytes]]:
    """A run's first call's result (its own: it had the gas) over a re-ask's."""
    reply, _ = outcome
    if reply is None or not reply[1] or not told:
        return told
    return [reply[1][0]] + told[1:]


def isolate_failing_calls(  # pylint: disable=too-many-arguments,too-many-positional-arguments
    answer: Callable[[BatchRequest], BatchReply],
    errors: Tuple[Type[BaseException], ...],
    probe: Call,
    on_failure: Optional[SplitReport] = None,
    on_unread: Optional[UnreadReport] = None,
    max_calls: int = MAX_ISOLATION_CALLS,
) -> Callable[[BatchRequest], BatchReply]:
    """:func:`isolate_failing_calls_yielding` for a blocking runner.

    :param answer: runs one batch as one ``eth_call``: ``(calls, block) -> (block, results)``.
    :param errors: the exception types ``answer`` raises for an RPC error.
    :param probe: a call that cannot fail on a working node.
    :param on_failure: told of every batch answered with an error.
    :param on_unread: told of the calls left unread (the calls, why).
    :param max_calls: runs past each batch's first, in all (one facts read).
    :return: a runner with the same contract.
    """

    def answered(request: BatchRequest) -> Generator[None, None, BatchReply]:
        return answer(request)
        yield  # pylint: disable=unreachable  # a generator that never waits

    cooperative = isolate_failing_calls_yielding(
        answered, errors, probe, on_failure, on_unread, max_calls
    )

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
