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

"""Every node read made for one paid call ends within what is left of its ``--timeout``.

A paid call reads the node many times before its send (the head, its own earlier
request, the price, the nonces, the chain id, the estimate, the base fee), after it
(its receipt, a cancellation's status and nonce reads) and while it waits (each
delivery poll and its log reads). Each read alone has the node's per-request timeout
(``Marketplace``'s, 30 s): a node answering every read just inside it held a
``--timeout 5`` call 90.7 s (adv29zx D1).

So the call says once when its node reads end (:func:`reads_until`, set where the
call begins: a context variable, which anyio copies into the worker threads the call's
blocking reads run in), and the marketplace's HTTP session (:class:`CallBoundSession`)
turns it into each request's timeout: what is left of the call, never more than the
per-request one. A read asked when nothing is left is not sent (:class:`CallTimeSpent`);
a read in flight when the time ends is cut (the same error). A wait the call gives a
bound of its own (a broadcast begun, given a look at its receipt; the first delivery
poll) says its end with :func:`reads_within`. Reads made for no call (the catalogue's
polls, ``tools/list``) keep the per-request timeout alone.
"""

import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator, Optional, Tuple

from mech_catalogue_cli.adapters.http import DeadlineExceeded, DeadlineSession, deadline

from .market_errors import MarketError

#: (monotonic time the current call's node reads end, its ``--timeout`` in seconds)
_READS_END: ContextVar[Optional[Tuple[float, float]]] = ContextVar(
    "node_reads_end", default=None
)


class CallTimeSpent(DeadlineExceeded):
    """A node read of a call was not sent, or was cut, because the call's time ended.

    A :class:`~mech_catalogue_cli.adapters.http.DeadlineExceeded` (an ``OSError``, no
    ``requests.Timeout``: web3 retries those), so every handler of a failed node read
    says it in its own words; its text is the server's, never the node's.

    :param timeout: the call's ``--timeout``, seconds.
    """

    def __init__(self, timeout: float) -> None:
        """Say which time ended.

        :param timeout: the call's ``--timeout``, seconds.
        """
        super().__init__(timeout)
        self.args = (
            f"this call's --timeout ({timeout:g} s) ended before the node answered",
        )
        self.timeout = timeout


def spent_words(exc: Optional[BaseException]) -> Optional[str]:
    """The words of the call's time ending, when an error comes from it.

    :param exc: an error (None: none).
    :return: the :class:`CallTimeSpent` text found in ``exc`` or its causes or
        contexts, or None when there is none.
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, CallTimeSpent):
            return str(exc)
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def failure_words(exc: BaseException) -> str:
    """Why a node read failed, in the server's words: never a stranger's text.

    :param exc: the read's error.
    :return: the call's time ending in the server's sentence (:func:`spent_words`)
        when that cut it, else the error's type name (``ConnectionError``...).
    """
    return spent_words(exc) or type(exc).__name__


def time_spent(exc: Optional[BaseException]) -> bool:
    """Whether an error, or one it came from, is a call's time ending.

    :param exc: an error (None: no).
    :return: True when ``exc`` or its causes or contexts hold a :class:`CallTimeSpent`.
    """
    return spent_words(exc) is not None


def refuse_spent(exc: BaseException, what: str) -> None:
    """Raise a call's time ending as an error of its own, where a read's failure is not.

    :param exc: a read's error (a getter of a stranger's may fail: its value unread).
    :param what: what was read, for the message.
    :raises MarketError: when ``exc`` comes from the call's time ending
        (:func:`spent_words`): not the stranger's doing, every other read would fail so.
    """
    spent = spent_words(exc)
    if spent is not None:
        raise MarketError(f"{what} was not read: {spent}") from exc


@contextmanager
def reads_until(began: float, timeout: float) -> Iterator[None]:
    """End every node read made in the block (this task, its threads) at a call's end.

    :param began: the call's start, ``time.monotonic()`` seconds.
    :param timeout: the call's ``--timeout``, seconds.
    :yield: nothing: run the call inside.
    """
    token = _READS_END.set((began + timeout, timeout))
    try:
        yield
    finally:
        _READS_END.reset(token)


@contextmanager
def reads_within(seconds: float) -> Iterator[None]:
    """End the block's node reads ``seconds`` from now: a wait of the call's own bound.

    The bound is the call's to give (:meth:`.settings.PhaseTimer.within`: its time
    left, or the least a begun send is given); outside a call it bounds the block
    alone.

    :param seconds: the wait's bound.
    :yield: nothing.
    """
    ends = _READS_END.get()
    timeout = ends[1] if ends is not None else seconds
    token = _READS_END.set((time.monotonic() + seconds, timeout))
    try:
        yield
    finally:
        _READS_END.reset(token)


def read_seconds(most: float) -> Tuple[float, bool]:
    """Seconds one node read may take now: ``most``, or what is left of the call.

    :param most: the per-request timeout, seconds.
    :return: the seconds, and whether the call's end set them (not ``most``).
    :raises CallTimeSpent: when the call's time has ended (the read is not sent).
    """
    ends = _READS_END.get()
    if ends is None:
        return most, False
    left = ends[0] - time.monotonic()
    if left <= 0:
        raise CallTimeSpent(ends[1])
    if left < most:
        return left, True
    return most, False


class CallBoundSession(DeadlineSession):
    """The marketplace's session: each request within its timeout and the call's end.

    :param seconds: the per-request timeout (body included), seconds.
    """

    def request(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """Send one request within :func:`read_seconds` of :attr:`seconds`.

        :param args: ``requests.Session.request``'s.
        :param kwargs: ``requests.Session.request``'s (its ``timeout`` lowered to the
            seconds left).
        :return: the response (``requests.Response``).
        :raises CallTimeSpent: when the call's end came first (nothing sent, or cut).
        """
        if kwargs.get("stream"):
            return super().request(*args, **kwargs)
        seconds, call_bound = read_seconds(self.seconds)
        kwargs["timeout"] = seconds
        try:
            with deadline(seconds):  # requests' own: DeadlineSession's bound is longer
                return super(DeadlineSession, self).request(*args, **kwargs)
        except DeadlineExceeded as exc:
            ends = _READS_END.get()
            if call_bound and ends is not None:
                raise CallTimeSpent(ends[1]) from exc
            raise
