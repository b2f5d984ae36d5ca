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

"""Several IPFS gateways, their health, and an adaptive window of GETs, without I/O.

A driver (the skill's ``FetchManifestsBehaviour.fetch_many``, the CLI's sync driver) asks a
:class:`FetchWindow` which ``(CID, gateway)`` GETs to send now, sends them, and hands
every answer back; the window decides the rest:

- **order of preference**: a CID goes to the first healthy gateway of the
  :class:`GatewayPool` (the configured list, in order; never a URL from chain data or a
  manifest); a gateway that does not have it (4xx), fails (5xx) or times out passes it to
  the next healthy gateway not tried yet;
- **health**: ``failure_threshold`` failures in a row (5xx, transport error, timeout) mark a
  gateway down for ``cooldown_seconds``; it is skipped while another gateway is up, then
  probed again by the next GET (one more failure marks it down again, one success clears
  it); when every gateway is down they are still tried, in order (skipping them all would
  fetch nothing, and a gateway that came back must be found by the next period);
- **429 and Retry-After**: a rate-limited GET is sent again, to the next gateway available,
  and its gateway gets nothing before its ``Retry-After`` (seconds or an HTTP date,
  capped at ``max_retry_after``; ``default_retry_after`` when absent);
- **adaptive concurrency** (AIMD): the window keeps at most ``limit`` GETs in flight;
  ``limit`` starts at ``max_concurrency``, halves on a 429 (at most once per Retry-After),
  and grows back by one per ``limit`` successes, up to ``max_concurrency``;
- **bounded**: the window never waits for a ``Retry-After`` past the period's
  ``period_budget_seconds`` (the pool's :meth:`GatewayPool.begin_period`): a CID whose
  every gateway left is held past it fails at once with a reason, and one CID is sent
  at most ``max_rate_limited`` times after 429s, so a gateway that rate-limits or is down
  for a whole period never stalls the round (the fetcher keeps the last good manifests
  and the next period starts afresh). Once the budget is spent, no new GET leaves while
  the period's latest answer is a failure (timeout, transport error, 4xx, 5xx): the CIDs
  still queued fail at once with a reason (the fetcher's later tries too; it begins
  :data:`NOT_REQUESTED` when no GET of the CID had failed: not read yet), so digests
  that never resolve (anyone may register any number) cost about the budget plus one
  ``fetch_timeout`` per period, not ``fetch_timeout`` per digest and try. Work that keeps
  succeeding is never cut off (a slow but healthy cold sync goes on past the budget),
  nor are GETs already in flight: their own timeouts bound them.

Times are the driver's monotonic clock, in seconds.
"""

import email.utils
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Deque, Dict, List, Optional, Sequence, Set, Tuple

#: what a GET's answer says about its gateway
OK = "ok"
RATE_LIMITED = "rate_limited"
MISSING = "missing"
FAILED = "failed"

#: HTTP status of a rate-limited request (RFC 6585 s4)
TOO_MANY_REQUESTS = 429

#: cid -> (bytes or None, failure text), what :class:`FetchWindow` gives back
Replies = Dict[str, Tuple[Optional[bytes], str]]

#: how the failure text of a CID no gateway answered about begins: the period's budget
#: ran out first, so nothing is known of its content (not read yet, not failed)
NOT_REQUESTED = "not requested: "


def never_requested(failure: str) -> bool:
    """Tell whether a failure says the CID was given up before any gateway answered on it.

    :param failure: the failure text of a :data:`Replies` entry.
    :return: True when the period's budget ran out before the CID had an answer (no
        GET of it failed: it is "not read yet"), False for any other failure.
    """
    return failure.startswith(NOT_REQUESTED)


class GatewayConfigError(ValueError):
    """The list of gateways is empty, repeats a URL or holds a URL that is not http(s)."""


def classify(data: Optional[bytes], status: Optional[int]) -> str:
    """Say what one answer tells about its gateway.

    :param data: the bytes the driver kept (None when the answer carried none).
    :param status: the HTTP status, None for a transport error or a timeout.
    :return: :data:`OK` (bytes came), :data:`RATE_LIMITED` (429), :data:`MISSING` (another
        4xx: this gateway will not serve the CID, but it is healthy) or :data:`FAILED`
        (5xx, a transport error, a timeout, a short body).
    """
    if data is not None:
        return OK
    if status == TOO_MANY_REQUESTS:
        return RATE_LIMITED
    if status is not None and 400 <= status < 500:
        return MISSING
    return FAILED


def retry_after_seconds(
    value: Optional[str], now_epoch: float, cap: float
) -> Optional[float]:
    """Read a ``Retry-After`` header (RFC 9110 s10.2.3).

    :param value: the header value: whole seconds (``"2"``) or an HTTP date; None when absent.
    :param now_epoch: the wall clock now, Unix seconds (for an HTTP date).
    :param cap: the longest wait honoured, seconds.
    :return: seconds to wait (0..cap), None when absent or unreadable.
    """
    text = (value or "").strip()
    if not text:
        return None
    if text.isascii() and text.isdigit():  # "²".isdigit() is true; float("²") raises
        return min(cap, float(text))
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return min(cap, max(0.0, when.timestamp() - now_epoch))


@dataclass(frozen=True)
class GatewayPolicy:  # pylint: disable=too-many-instance-attributes
    """How the gateways are used.

    :param max_concurrency: GETs in flight at most (the ``fetch_concurrency`` parameter).
    :param min_concurrency: GETs in flight at least, however many 429s came.
    :param failure_threshold: failures in a row that mark a gateway down.
    :param cooldown_seconds: how long a gateway marked down is skipped.
    :param default_retry_after: seconds a 429 without ``Retry-After`` holds its gateway.
    :param max_retry_after: the longest ``Retry-After`` honoured, seconds.
    :param max_rate_limited: 429s one CID may get in a window before it fails there.
    :param period_budget_seconds: how long a period may spend fetching, seconds.
    """

    max_concurrency: int = 8
    min_concurrency: int = 1
    failure_threshold: int = 3
    cooldown_seconds: float = 30.0
    default_retry_after: float = 1.0
    max_retry_after: float = 30.0
    max_rate_limited: int = 8
    period_budget_seconds: float = 60.0


@dataclass
class GatewayHealth:
    """What this agent knows of one gateway.

    :param url: the gateway base URL (``GET <url>/ipfs/<cid>``).
    :param failures: failures in a row (reset by any answer that is not a failure).
    :param down_until: monotonic time before which it is skipped while another is up.
    :param held_until: monotonic time before which it gets no GET (its ``Retry-After``).
    :param answers: answers seen, of any kind.
    :param rate_limited: 429 answers seen.
    """

    url: str
    failures: int = 0
    down_until: float = 0.0
    held_until: float = 0.0
    answers: int = 0
    rate_limited: int = 0


class GatewayPool:
    """The configured gateways in order of preference, their health and the adaptive limit.

    One pool lives as long as the agent (or the CLI's sync loop), so health and the
    limit carry over from one period to the next.
    """

    def __init__(self, urls: Sequence[str], policy: GatewayPolicy) -> None:
        """Check and keep the gateways.

        :param urls: gateway base URLs, most preferred first (configuration only).
        :param policy: how to use them.
        :raises GatewayConfigError: when ``urls`` is empty, repeats a URL, or holds one
            that is not ``http(s)://``.
        """
        cleaned = [url.rstrip("/") for url in urls]
        if not cleaned:
            raise GatewayConfigError("no IPFS gateway configured")
        for url in cleaned:
            if not url.startswith(("http://", "https://")):
                raise GatewayConfigError(
                    f"IPFS gateway {url!r} must be an http(s) URL such as http://127.0.0.1:8080"
                )
        if len(set(cleaned)) != len(cleaned):
            raise GatewayConfigError(f"IPFS gateways repeat a URL: {cleaned}")
        self.policy = policy
        self.gateways = [GatewayHealth(url) for url in cleaned]
        self._by_url = {g.url: g for g in self.gateways}
        self.limit = float(max(policy.min_concurrency, policy.max_concurrency))
        self._no_decrease_before = 0.0
        self.deadline = float("inf")
        #: True when the period's latest answer was a failure (not a body, not a 429)
        self.failing = False

    @property
    def urls(self) -> Tuple[str, ...]:
        """Get the gateways' URLs in order of preference.

        :return: the URLs.
        """
        return tuple(g.url for g in self.gateways)

    def begin_period(self, now: float) -> None:
        """Start a period's fetch budget.

        :param now: monotonic seconds.
        """
        self.deadline = now + self.policy.period_budget_seconds
        self.failing = False

    def window(self) -> int:
        """Get how many GETs may be in flight now.

        :return: between ``min_concurrency`` and ``max_concurrency``.
        """
        return max(self.policy.min_concurrency, int(self.limit))

    def choose(self, now: float, tried: Set[str]) -> Optional[str]:
        """Pick the gateway for a CID.

        :param now: monotonic seconds.
        :param tried: gateways that already failed this CID in this window.
        :return: the first gateway, in order of preference, not tried, not held by a
            ``Retry-After`` and up (or, when none is up, the first one down); None when
            every gateway left is held.
        """
        left = [g for g in self.gateways if g.url not in tried and g.held_until <= now]
        up = [g for g in left if g.down_until <= now]
        chosen = up or left
        return chosen[0].url if chosen else None

    def next_free(self, tried: Set[str]) -> Optional[float]:
        """Get when the first gateway not in ``tried`` stops being held by a ``Retry-After``.

        :param tried: gateways to leave out.
        :return: monotonic seconds, None when every gateway is in ``tried``.
        """
        times = [g.held_until for g in self.gateways if g.url not in tried]
        return min(times) if times else None

    def record(
        self, url: str, outcome: str, now: float, retry_after: Optional[float] = None
    ) -> None:
        """Learn from one answer.

        :param url: the gateway that answered.
        :param outcome: :func:`classify`'s word for the answer.
        :param now: monotonic seconds.
        :param retry_after: the answer's ``Retry-After``, seconds (429 only).
        """
        gateway = self._by_url.get(url)
        if gateway is None:
            return
        gateway.answers += 1
        policy = self.policy
        if outcome != RATE_LIMITED:
            self.failing = outcome != OK
        if outcome == RATE_LIMITED:
            gateway.rate_limited += 1
            wait = policy.default_retry_after if retry_after is None else retry_after
            gateway.held_until = max(gateway.held_until, now + wait)
            if now >= self._no_decrease_before:
                self.limit = max(float(policy.min_concurrency), self.limit / 2)
                self._no_decrease_before = now + max(wait, 0.001)
            return
        if outcome == FAILED:
            gateway.failures += 1
            if gateway.failures >= policy.failure_threshold:
                gateway.down_until = max(
                    gateway.down_until, now + policy.cooldown_seconds
                )
            return
        gateway.failures = 0
        gateway.down_until = 0.0
        if outcome == OK:
            self.limit = min(
                float(policy.max_concurrency), self.limit + 1.0 / max(1.0, self.limit)
            )


@dataclass
class _Pending:
    """One CID's state in a window."""

    cid: str
    tried: Set[str] = field(default_factory=set)
    rate_limited: int = 0
    failures: List[str] = field(default_factory=list)


class FetchWindow:
    """One wave of CIDs to GET through a :class:`GatewayPool`; the driver does the I/O.

    Drive it: ``window.sendable(now)`` -> send each ``(cid, url)``; hand every answer to
    :meth:`answer` (a timeout is an answer with no status); when nothing is in flight and
    nothing is sendable, wait until :meth:`wake_at`; stop when :attr:`done`, then read
    :attr:`replies`.
    """

    def __init__(
        self,
        cids: Sequence[str],
        pool: GatewayPool,
        on_arrival: Optional[Callable[[str, bytes], None]] = None,
        keep: Optional[Callable[[bytes], bytes]] = None,
    ) -> None:
        """Queue the CIDs.

        :param cids: CIDs to GET (duplicates are fetched once).
        :param pool: the gateways.
        :param on_arrival: called with ``(cid, bytes)`` as each body arrives (to verify
            and parse it while the other GETs are in flight), the bytes as ``keep`` kept
            them; its errors are the caller's.
        :param keep: what :attr:`replies` (and ``on_arrival``) get of each body (None:
            the body itself), e.g. ``domain.catalogue.fetching.pack_reply``, so that a
            wave of 10,000 bodies, or a queue of them waiting to be parsed, is not held
            raw.
        """
        self.pool = pool
        self.on_arrival = on_arrival
        self.keep = keep
        self.replies: Replies = {}
        self.in_flight: Dict[str, str] = {}
        self._sent: Dict[str, _Pending] = {}
        self._queue: Deque[_Pending] = deque(_Pending(c) for c in dict.fromkeys(cids))

    @property
    def done(self) -> bool:
        """Tell whether every CID has its reply.

        :return: True when nothing is queued or in flight.
        """
        return not self._queue and not self.in_flight

    def _fail(self, item: _Pending, why: str) -> None:
        self.replies[item.cid] = (None, "; ".join(item.failures + [why]))

    def _give_up(self, item: _Pending, why: str) -> None:
        """Fail a CID for the budget: "not requested" when no GET of it had failed."""
        self._fail(item, why if item.failures else NOT_REQUESTED + why)

    def sendable(self, now: float) -> List[Tuple[str, str]]:
        """Take the GETs to send now, as the limit and the gateways' health allow.

        CIDs that can no longer be fetched in this period's budget get their failure here.

        :param now: monotonic seconds.
        :return: ``(cid, gateway url)`` pairs, now counted in flight.
        """
        out: List[Tuple[str, str]] = []
        held: List[_Pending] = []  # waiting for a Retry-After; they keep their place
        if now >= self.pool.deadline and self.pool.failing:
            while self._queue:
                self._give_up(
                    self._queue.popleft(),
                    "the period's fetch budget "
                    f"({self.pool.policy.period_budget_seconds:g}s) was spent, the latest GET "
                    "had failed, and this CID was not requested",
                )
            return out
        while self._queue and len(self.in_flight) < self.pool.window():
            item = self._queue.popleft()
            url = self.pool.choose(now, item.tried)
            if url is not None:
                self.in_flight[item.cid] = url
                out.append((item.cid, url))
                self._sent[item.cid] = item
                continue
            free = self.pool.next_free(item.tried)
            if free is None:
                self._fail(item, "every gateway was tried")
            elif free >= self.pool.deadline:
                self._give_up(
                    item,
                    "every gateway left is rate-limited (Retry-After) past the period's fetch budget",
                )
            else:
                held.append(item)
                if self.pool.choose(now, set()) is None:
                    break  # every gateway is held: nothing else can leave now
        self._queue.extendleft(reversed(held))
        return out

    def wake_at(self, now: float) -> float:
        """Get when :meth:`sendable` may have something again, when nothing is in flight.

        :param now: monotonic seconds.
        :return: monotonic seconds (``now`` when something is sendable already).
        """
        times = [self.pool.next_free(item.tried) for item in self._queue]
        earliest = min((t for t in times if t is not None), default=now)
        return max(now, min(earliest, self.pool.deadline))

    def answer(  # pylint: disable=too-many-arguments
        self,
        cid: str,
        data: Optional[bytes],
        failure: str,
        status: Optional[int],
        retry_after: Optional[str],
        now: float,
        now_epoch: float,
    ) -> None:
        """Take one answer in.

        :param cid: the CID answered (a CID not in flight is ignored).
        :param data: the bytes kept (None when none came).
        :param failure: why not (empty when bytes came).
        :param status: the HTTP status, None for a transport error or a timeout.
        :param retry_after: the ``Retry-After`` header, if any.
        :param now: monotonic seconds.
        :param now_epoch: Unix seconds (for a ``Retry-After`` HTTP date).
        """
        url = self.in_flight.pop(cid, None)
        item = self._sent.pop(cid, None)
        if url is None or item is None:
            return
        outcome = classify(data, status)
        wait = retry_after_seconds(
            retry_after, now_epoch, self.pool.policy.max_retry_after
        )
        self.pool.record(url, outcome, now, wait)
        if outcome == OK and data is not None:
            kept = data if self.keep is None else self.keep(data)
            self.replies[cid] = (kept, "")
            if self.on_arrival is not None:
                self.on_arrival(cid, kept)
            return
        if outcome == RATE_LIMITED:
            item.rate_limited += 1
            if item.rate_limited < self.pool.policy.max_rate_limited:
                self._queue.appendleft(item)
                return
            self._fail(
                item, f"{url}: rate limited (HTTP 429) {item.rate_limited} times"
            )
            return
        item.tried.add(url)
        item.failures.append(f"{url}: {failure or 'no answer'}")
        if len(item.tried) < len(self.pool.gateways):
            self._queue.appendleft(item)
            return
        self.replies[cid] = (None, "; ".join(item.failures))
