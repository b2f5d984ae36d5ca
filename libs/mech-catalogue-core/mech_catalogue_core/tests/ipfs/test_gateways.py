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

"""Gateways in order of preference, their health, 429/Retry-After and the adaptive window.

The window is sans-I/O: these tests drive it with a simulated clock and scripted gateways
(each a function ``cid -> (status, Retry-After)``), and count what was sent where. The
real-gateway side (kubo behind the loopback proxy) is in ``tests/faults/test_gateway_faults.py``.
"""

import email.utils
from typing import Callable, Dict, List, Optional, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mech_catalogue_core.ipfs.gateways import (
    FAILED,
    MISSING,
    OK,
    RATE_LIMITED,
    FetchWindow,
    GatewayConfigError,
    GatewayPolicy,
    GatewayPool,
    classify,
    retry_after_seconds,
)

A, B = "http://127.0.0.1:1", "http://127.0.0.1:2"
Script = Callable[[str, float], Tuple[int, Optional[str]]]


def serves(cid: str, now: float) -> Tuple[int, Optional[str]]:
    """A healthy gateway holding every CID."""
    del cid, now
    return 200, None


def down(cid: str, now: float) -> Tuple[int, Optional[str]]:
    """A gateway whose upstream is gone."""
    del cid, now
    return 502, None


def run(  # pylint: disable=too-many-locals
    cids: List[str],
    pool: GatewayPool,
    scripts: Dict[str, Script],
    start: float = 0.0,
    latency: float = 0.05,
    arrived: Optional[List[str]] = None,
) -> Tuple[Dict[str, Tuple[Optional[bytes], str]], List[Tuple[float, str, str]], int]:
    """Drive a window to the end with a simulated clock; every GET takes ``latency``.

    :param cids: the CIDs.
    :param pool: the gateways.
    :param scripts: gateway URL -> its answers.
    :param start: the clock at the start, seconds.
    :param latency: seconds each GET takes.
    :param arrived: where on_arrival records CIDs (None: no hook).
    :return: replies, the GETs sent as (time, gateway, cid), and the most in flight at once.
    :raises AssertionError: when the window never finishes.
    """
    window = FetchWindow(
        cids,
        pool,
        (lambda cid, data: arrived.append(cid)) if arrived is not None else None,
    )
    now = start
    sent: List[Tuple[float, str, str]] = []
    flying: List[Tuple[float, str, str]] = []  # (answer time, cid, gateway)
    most = 0
    for _ in range(100_000):
        if window.done:
            break
        for cid, url in window.sendable(now):
            sent.append((now, url, cid))
            flying.append((now + latency, cid, url))
        most = max(most, len(flying))
        if not flying:
            now = max(now + 1e-6, window.wake_at(now))
            continue
        flying.sort()
        at, cid, url = flying.pop(0)
        now = max(now, at)
        status, retry_after = scripts[url](cid, now)
        data = f"bytes of {cid}".encode() if status == 200 else None
        failure = "" if data else f"gateway answered HTTP {status}"
        window.answer(cid, data, failure, status, retry_after, now, 1_000_000.0 + now)
    else:
        raise AssertionError("the window never finished")
    return window.replies, sent, most


def cids(n: int) -> List[str]:
    """Made-up CIDs (the window never parses them)."""
    return [f"bafy{i:04d}" for i in range(n)]


def test_classify_answers() -> None:
    """Bytes are ok whatever the status; 429 rate-limited; other 4xx missing; the rest failed."""
    assert classify(b"x", 206) == OK
    assert classify(None, 429) == RATE_LIMITED
    assert classify(None, 404) == MISSING
    assert classify(None, 410) == MISSING
    assert classify(None, 502) == FAILED
    assert classify(None, None) == FAILED
    assert classify(None, 206) == FAILED  # a short ranged body


def test_retry_after_forms() -> None:
    """Seconds and HTTP dates are read, capped, and never negative; junk is None."""
    now = 1_700_000_000.0
    assert retry_after_seconds("7", now, 60) == 7
    assert retry_after_seconds(" 120 ", now, 60) == 60
    date = email.utils.formatdate(now + 12, usegmt=True)
    assert retry_after_seconds(date, now, 60) == pytest.approx(12, abs=1)
    past = email.utils.formatdate(now - 100, usegmt=True)
    assert retry_after_seconds(past, now, 60) == 0
    for junk in (None, "", "soon", "-3", "1.5"):
        assert retry_after_seconds(junk, now, 60) is None


@pytest.mark.parametrize(
    "urls",
    [[], ["ftp://127.0.0.1"], [A, A + "/"], ["127.0.0.1:8080"]],
)
def test_bad_gateway_lists_are_refused(urls: List[str]) -> None:
    """No gateway, a repeated one or a non-http one: a clear configuration error."""
    with pytest.raises(GatewayConfigError, match="gateway"):
        GatewayPool(urls, GatewayPolicy())


def test_preferred_gateway_takes_everything_when_healthy() -> None:
    """The first gateway gets every GET; the second none; concurrency stays at the cap."""
    pool = GatewayPool([A, B], GatewayPolicy(max_concurrency=4))
    replies, sent, most = run(cids(40), pool, {A: serves, B: serves})
    assert all(data is not None for data, _ in replies.values())
    assert {url for _, url, _ in sent} == {A}
    assert len(sent) == 40 and most == 4


def test_a_gateway_down_is_skipped_until_it_recovers() -> None:
    """Gateway A down: after failure_threshold failures it gets nothing more until the cooldown."""
    policy = GatewayPolicy(max_concurrency=1, failure_threshold=3, cooldown_seconds=10)
    pool = GatewayPool([A, B], policy)
    replies, sent, _ = run(cids(30), pool, {A: down, B: serves})
    assert all(data is not None for data, _ in replies.values())
    assert sum(1 for _, url, _ in sent if url == A) == 3  # then skipped
    assert sum(1 for _, url, _ in sent if url == B) == 30
    # after the cooldown, A is probed again and, healthy now, preferred again
    replies, sent, _ = run(cids(5), pool, {A: serves, B: serves}, start=20.0)
    assert [url for _, url, _ in sent] == [A] * 5
    assert pool.gateways[0].failures == 0


def test_a_gateway_without_the_cid_passes_it_on() -> None:
    """404 on A: the CID goes to B; A stays healthy (a missing CID is not a failure)."""
    pool = GatewayPool([A, B], GatewayPolicy(max_concurrency=2))

    def partial(cid: str, now: float) -> Tuple[int, Optional[str]]:
        del now
        return (404, None) if cid.endswith(("1", "3")) else (200, None)

    replies, sent, _ = run(cids(10), pool, {A: partial, B: serves})
    assert all(data is not None for data, _ in replies.values())
    assert sorted(c for _, url, c in sent if url == B) == ["bafy0001", "bafy0003"]
    assert pool.gateways[0].failures == 0 and pool.gateways[0].down_until == 0


def test_every_gateway_failing_gives_each_cid_its_reasons() -> None:
    """Both down: every CID fails, naming each gateway tried; nothing waits for the cooldown."""
    pool = GatewayPool([A, B], GatewayPolicy(max_concurrency=2, cooldown_seconds=1e6))
    pool.begin_period(0.0)
    replies, sent, _ = run(cids(8), pool, {A: down, B: down})
    assert len(replies) == 8
    for data, why in replies.values():
        assert data is None
        assert f"{A}: gateway answered HTTP 502" in why
        assert f"{B}: gateway answered HTTP 502" in why
    assert max(t for t, _, _ in sent) < 1.0


def test_the_only_gateway_is_probed_again_when_it_comes_back() -> None:
    """One gateway, marked down: still tried (nothing else to try), so it is found back at once."""
    pool = GatewayPool([A], GatewayPolicy(max_concurrency=2, cooldown_seconds=1e6))
    replies, _, _ = run(cids(6), pool, {A: down})
    assert all(data is None for data, _ in replies.values())
    assert pool.gateways[0].down_until > 1e5
    replies, _, _ = run(cids(6), pool, {A: serves}, start=1.0)
    assert all(data is not None for data, _ in replies.values())
    assert pool.gateways[0].down_until == 0


def test_retry_after_is_honoured_and_concurrency_halves() -> None:
    """A 429 burst: no GET reaches the gateway before its Retry-After; the limit backs off, then grows back."""
    policy = GatewayPolicy(max_concurrency=16)
    pool = GatewayPool([A], policy)
    limited_until = 2.0

    def storm(cid: str, now: float) -> Tuple[int, Optional[str]]:
        del cid
        return (429, "2") if now < limited_until else (200, None)

    replies, sent, _ = run(cids(64), pool, {A: storm})
    assert all(data is not None for data, _ in replies.values())
    first_429_at = 0.05
    # after the first 429 answer, nothing is sent until its Retry-After has passed
    assert not [t for t, _, _ in sent if first_429_at <= t < first_429_at + 2.0]
    assert pool.gateways[0].rate_limited >= 1
    # one halving per Retry-After, not one per 429 of the burst; then additive growth
    assert 8 <= pool.limit <= 16


def test_429_to_the_second_gateway_while_the_first_is_held() -> None:
    """A rate-limits: B gets the CIDs meanwhile instead of everybody waiting."""
    pool = GatewayPool([A, B], GatewayPolicy(max_concurrency=4))

    def limited(cid: str, now: float) -> Tuple[int, Optional[str]]:
        del cid, now
        return 429, "30"

    replies, sent, _ = run(cids(20), pool, {A: limited, B: serves})
    assert all(data is not None for data, _ in replies.values())
    assert max(t for t, _, _ in sent) < 30  # never waited for A's Retry-After
    assert sum(1 for _, url, _ in sent if url == A) <= 4  # the first window only


def test_rate_limited_for_the_whole_period_ends_within_the_budget() -> None:
    """A gateway answering 429 forever: the window gives up by the period's budget, with a reason."""
    pool = GatewayPool([A], GatewayPolicy(max_concurrency=8, period_budget_seconds=5))
    pool.begin_period(0.0)

    def forever(cid: str, now: float) -> Tuple[int, Optional[str]]:
        del cid, now
        return 429, "1"

    replies, sent, _ = run(cids(50), pool, {A: forever})
    assert all(data is None for data, _ in replies.values())
    assert max(t for t, _, _ in sent) < 5
    reasons = {why for _, why in replies.values()}
    assert all(
        "429" in why or "budget" in why or "Retry-After" in why for why in reasons
    )
    # bounded work: each CID is asked at most max_rate_limited times
    assert len(sent) <= 50 * pool.policy.max_rate_limited


def test_healthy_work_longer_than_the_budget_is_not_cut_off() -> None:
    """A slow but healthy gateway: every CID arrives even when the wave outlasts the budget.

    (A first version failed the CIDs still queued once the budget was spent: at N = 1,000
    on a loaded machine, 230 manifests were lost that way while parsing on arrival.)
    """
    pool = GatewayPool([A], GatewayPolicy(max_concurrency=2, period_budget_seconds=1))
    pool.begin_period(0.0)
    replies, sent, _ = run(cids(40), pool, {A: serves}, latency=0.5)
    assert all(data is not None for data, _ in replies.values())
    assert max(t for t, _, _ in sent) > 1  # well past the budget


def test_bodies_are_handed_over_as_they_arrive() -> None:
    """on_arrival sees each body when it comes, before the window is done."""
    pool = GatewayPool([A], GatewayPolicy(max_concurrency=2))
    arrived: List[str] = []
    replies, _, _ = run(cids(6), pool, {A: serves}, arrived=arrived)
    assert sorted(arrived) == sorted(replies)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from([200, 200, 200, 404, 429, 500, 502, 504, 0]),
        min_size=1,
        max_size=40,
    ),
    st.integers(min_value=1, max_value=8),
)
def test_any_answers_end_with_one_reply_per_cid(
    statuses: List[int], limit: int
) -> None:
    """Whatever the gateways answer, every CID gets exactly one reply and the cap holds."""
    pool = GatewayPool(
        [A, B], GatewayPolicy(max_concurrency=limit, period_budget_seconds=30)
    )
    pool.begin_period(0.0)
    answers = iter(statuses * 10_000)

    def scripted(cid: str, now: float) -> Tuple[int, Optional[str]]:
        del cid, now
        status = next(answers)
        return (status or 599), ("1" if status == 429 else None)

    wanted = cids(len(statuses))
    replies, _, most = run(wanted, pool, {A: scripted, B: scripted})
    assert sorted(replies) == sorted(wanted)
    assert most <= limit
