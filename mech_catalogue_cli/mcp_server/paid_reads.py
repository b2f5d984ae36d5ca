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

"""The paid path's blocking network reads: threads of their own, one read per request.

A read of a paid request's delivery (the chain's ``Deliver`` event, the response from
the gateway) blocks a worker thread until it ends, which can be ``--io-timeout`` s, and
a thread cannot be cancelled: a client that gives up and calls again starts another.
Run in anyio's default pool, forty such re-reads held every one of its threads, which
the stdio transport and the journal reads also use, and the server stopped answering
``tools/list`` (adv29q).

:class:`PaidReads` runs them under a limiter of their own (:data:`PAID_READ_THREADS`
at once; more wait, cancellably, for a free one), so the default pool never waits
behind them; and :meth:`PaidReads.once` lets one read per key be in flight: a call
asking for a read already going awaits that read's outcome instead of starting another.
Nothing is cached: a read that ended (answered or failed) is done, the next asks again.
"""

from typing import Any, Callable, Dict, Hashable, Optional, TypeVar

import anyio

#: paid-path network reads running at once (each holds a thread up to --io-timeout)
PAID_READ_THREADS = 8

T = TypeVar("T")


class _Flight:  # pylint: disable=too-few-public-methods
    """One read in flight: set when it ends, with its value or its error."""

    def __init__(self) -> None:
        """Not ended yet."""
        self.ended = anyio.Event()
        self.value: Any = None
        self.error: Optional[Exception] = None
        self.abandoned = False


class PaidReads:
    """Blocking reads on their own bounded threads, one in flight per key.

    :param threads: reads running at once (further ones wait for a free thread).
    """

    def __init__(self, threads: int = PAID_READ_THREADS) -> None:
        """Make the limiter (bound to the event loop that first uses it)."""
        self.limiter = anyio.CapacityLimiter(threads)
        self.in_flight: Dict[Hashable, _Flight] = {}

    async def run(self, read: Callable[..., T], *args: Any) -> T:
        """``read(*args)`` in a worker thread under this limiter, never the default one.

        :param read: a blocking function.
        :param args: its arguments.
        :return: what it returns (it raises what it raises; cancelled while waiting
            for a thread, it never runs; cancelled while running, it runs to its end).
        """
        return await anyio.to_thread.run_sync(read, *args, limiter=self.limiter)

    async def once(self, key: Hashable, read: Callable[..., T], *args: Any) -> T:
        """:meth:`run`, or the outcome of the same key's read already in flight.

        :param key: what the read is of (e.g. a request id and what is read of it).
        :param read: a blocking function.
        :param args: its arguments.
        :return: the read's value (or its exception is raised, to every caller waiting
            for it; a read abandoned before it ran is started again by a caller waiting).
        :raises error: what the read raised (the same exception, to every caller).
        """
        while True:
            flight = self.in_flight.get(key)
            if flight is None:
                return await self._lead(key, read, *args)
            await flight.ended.wait()
            if flight.abandoned:
                continue
            error = flight.error
            if error is not None:
                raise error
            return flight.value  # type: ignore[no-any-return]

    async def _lead(self, key: Hashable, read: Callable[..., T], *args: Any) -> T:
        """Run the key's read, and leave its outcome to those waiting for it.

        :param key: what the read is of.
        :param read: a blocking function.
        :param args: its arguments.
        :return: the read's value.
        :raises Exception: what the read raised (kept for those waiting).
        :raises BaseException: a cancellation (those waiting start the read again).
        """
        flight = self.in_flight[key] = _Flight()
        try:
            flight.value = await self.run(read, *args)
            return flight.value  # type: ignore[no-any-return]
        except Exception as exc:
            flight.error = exc
            raise
        except BaseException:  # cancelled before the read ran, or before it was kept
            flight.abandoned = True
            raise
        finally:
            del self.in_flight[key]
            flight.ended.set()
