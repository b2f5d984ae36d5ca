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

"""The one driver of the domain's I/O-free generators.

The domain does no I/O: ``chain.registry.snapshot_reader`` yields Multicall2 batches to
run and ``catalogue.fetching.manifest_fetcher`` yields ``(wait_seconds, cids)`` to fetch;
each is sent back the answer. Who answers depends on where the code runs, so the loop is
written once here and the answer is an I/O adapter passed in:

- the skill's behaviours answer through the framework (ledger / IPFS / HTTP connections)
  and must yield while waiting: :func:`drive_yielding`;
- the CLI's sync driver, the benchmarks and the devnet tests answer with blocking calls
  (``requests``, web3, a thread pool): :func:`drive`.

:func:`after_backoff` and :func:`after_backoff_yielding` turn a "fetch these CIDs"
adapter into the answer ``manifest_fetcher`` needs, sleeping the backoff it asks for.
"""

import time
from typing import Callable, Generator, Sequence, Tuple, TypeVar

RequestT = TypeVar("RequestT")
ReplyT = TypeVar("ReplyT")
ResultT = TypeVar("ResultT")

#: what ``manifest_fetcher`` yields: seconds to wait first, then the CIDs to fetch
FetchStep = Tuple[float, Sequence[str]]


def drive(
    steps: Generator[RequestT, ReplyT, ResultT],
    answer: Callable[[RequestT], ReplyT],
) -> ResultT:
    """Run a domain generator to its end, answering each request with a blocking call.

    :param steps: a fresh generator (``snapshot_reader(...)``, ``manifest_fetcher(...)``).
    :param answer: the I/O adapter: request -> reply. Its exceptions propagate (the
        generator is closed on the way out).
    :return: the generator's return value.
    """
    reply = None
    try:
        while True:
            try:
                request = steps.send(reply)  # type: ignore[arg-type]  # None starts it
            except StopIteration as done:
                return done.value
            reply = answer(request)
    finally:
        steps.close()


def drive_yielding(
    steps: Generator[RequestT, ReplyT, ResultT],
    answer: Callable[[RequestT], Generator[None, None, ReplyT]],
) -> Generator[None, None, ResultT]:
    """Run a domain generator to its end inside a cooperative behaviour (``yield from`` it).

    :param steps: a fresh generator (``snapshot_reader(...)``, ``manifest_fetcher(...)``).
    :param answer: the I/O adapter: request -> a generator that yields while waiting and
        returns the reply. Its exceptions propagate (the generator is closed on the way out).
    :yield: whatever ``answer`` yields while waiting.
    :return: the generator's return value.
    """
    reply = None
    try:
        while True:
            try:
                request = steps.send(reply)  # type: ignore[arg-type]  # None starts it
            except StopIteration as done:
                return done.value
            reply = yield from answer(request)
    finally:
        steps.close()


def after_backoff(
    fetch: Callable[[Sequence[str]], ReplyT],
    sleep: Callable[[float], None] = time.sleep,
) -> Callable[[FetchStep], ReplyT]:
    """Make ``manifest_fetcher``'s blocking answer: wait the backoff, then fetch.

    :param fetch: CIDs -> ``{cid: (bytes or None, failure text)}``.
    :param sleep: how to wait (seconds); ``time.sleep`` by default.
    :return: the answer for :func:`drive`.
    """

    def answer(step: FetchStep) -> ReplyT:
        wait, cids = step
        if wait:
            sleep(wait)
        return fetch(cids)

    return answer


def after_backoff_yielding(
    fetch: Callable[[Sequence[str]], Generator[None, None, ReplyT]],
    sleep: Callable[[float], Generator],
) -> Callable[[FetchStep], Generator[None, None, ReplyT]]:
    """Make ``manifest_fetcher``'s cooperative answer: wait the backoff, then fetch.

    :param fetch: CIDs -> a generator returning ``{cid: (bytes or None, failure text)}``.
    :param sleep: seconds -> a generator that yields until they passed (the behaviour's
        ``sleep``).
    :return: the answer for :func:`drive_yielding`.
    """

    def answer(step: FetchStep) -> Generator[None, None, ReplyT]:
        wait, cids = step
        if wait:
            yield from sleep(wait)
        return (yield from fetch(cids))

    return answer
