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

"""The one driver of the domain generators (``mech_catalogue_core/driver.py``), blocking and cooperative.

Driven here: the real ``manifest_fetcher`` over manifests hashed as kubo would, and small
generators written for the edge cases (an adapter that raises, the close on the way out).
"""

import hashlib
from typing import Dict, Generator, List, Optional, Sequence, Tuple

import pytest
from mech_catalogue_core.catalogue.fetching import (
    FetchPolicy,
    ManifestCache,
    manifest_fetcher,
)
from mech_catalogue_core.driver import (
    after_backoff,
    after_backoff_yielding,
    drive,
    drive_yielding,
)
from mech_catalogue_core.ipfs.cid import (
    RAW,
    digest_to_cid,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    STATUS_UNAVAILABLE,
)

MANIFEST = b'{"name": "driver test", "tools": ["echo"]}'
GOOD = "0x" + hashlib.sha256(MANIFEST).hexdigest()
MISSING = "0x" + hashlib.sha256(b"nobody serves this").hexdigest()
POLICY = FetchPolicy(retries=1, backoff_initial=0.25, backoff_max=0.25, max_bytes=4096)

Reply = Dict[str, Tuple[Optional[bytes], str]]


def serve(cids: Sequence[str]) -> Reply:
    """Answer CIDs as a gateway holding only MANIFEST (under its raw CID) would.

    :param cids: the CIDs asked for.
    :return: cid -> (bytes or None, failure text).
    """
    good = digest_to_cid(GOOD, RAW)
    return {cid: (MANIFEST, "") if cid == good else (None, "HTTP 404") for cid in cids}


def test_drive_runs_the_fetcher_and_sleeps_its_backoff() -> None:
    """Blocking: every requested CID answered, the backoff slept, results per digest."""
    slept: List[float] = []
    asked: List[str] = []

    def fetch(cids: Sequence[str]) -> Reply:
        asked.extend(cids)
        return serve(cids)

    results = drive(
        manifest_fetcher([GOOD, MISSING], ManifestCache(), POLICY),
        after_backoff(fetch, slept.append),
    )
    assert results[GOOD].status == STATUS_OK
    assert results[MISSING].status == STATUS_UNAVAILABLE
    # the missing manifest was retried after the policy's backoff (never before the first try)
    assert slept and set(slept) == {0.25}
    assert len(asked) > 2 and digest_to_cid(GOOD, RAW) in asked


def test_drive_yielding_gives_the_same_results_and_yields_while_waiting() -> None:
    """Cooperative: same results as blocking; the adapter's yields come through."""
    waits: List[float] = []

    def sleep(seconds: float) -> Generator[None, None, None]:
        waits.append(seconds)
        yield

    def fetch(cids: Sequence[str]) -> Generator[None, None, Reply]:
        yield
        return serve(cids)

    steps = drive_yielding(
        manifest_fetcher([GOOD, MISSING], ManifestCache(), POLICY),
        after_backoff_yielding(fetch, sleep),
    )
    yielded = 0
    try:
        while True:
            next(steps)
            yielded += 1
    except StopIteration as done:
        results = done.value
    slept: List[float] = []
    blocking = drive(
        manifest_fetcher([GOOD, MISSING], ManifestCache(), POLICY),
        after_backoff(serve, slept.append),
    )
    assert {d: r.status for d, r in results.items()} == {
        d: r.status for d, r in blocking.items()
    }
    assert waits == slept and waits
    assert yielded >= 3  # one per fetch round at least, plus the backoff


def _counting(log: List[str]) -> Generator[int, str, int]:
    """Ask for 1, 2, 3; return how many answers were non-empty; log the close.

    :param log: receives "closed" when the generator is closed or finishes.
    :yield: the numbers.
    :return: the count of non-empty answers.
    """
    count = 0
    try:
        for number in (1, 2, 3):
            answer = yield number
            count += bool(answer)
        return count
    finally:
        log.append("closed")


def test_drive_returns_the_generator_value_and_sends_each_answer() -> None:
    """Every request is answered in order and the return value comes back."""
    log: List[str] = []
    seen: List[int] = []

    def answer(number: int) -> str:
        seen.append(number)
        return "x" * (number - 1)

    assert drive(_counting(log), answer) == 2
    assert seen == [1, 2, 3] and log == ["closed"]


def test_an_adapter_failure_propagates_and_closes_the_generator() -> None:
    """An I/O error is not swallowed: it reaches the caller, and the generator is closed."""
    log: List[str] = []

    def answer(number: int) -> str:
        if number == 2:
            raise ConnectionError("RPC down at request 2")
        return "ok"

    with pytest.raises(ConnectionError, match="request 2"):
        drive(_counting(log), answer)
    assert log == ["closed"]


def test_a_cooperative_adapter_failure_propagates_and_closes_the_generator() -> None:
    """The same for the cooperative driver."""
    log: List[str] = []

    def answer(number: int) -> Generator[None, None, str]:
        yield
        if number == 3:
            raise TimeoutError("no answer for request 3")
        return "ok"

    steps = drive_yielding(_counting(log), answer)
    with pytest.raises(TimeoutError, match="request 3"):
        while True:
            next(steps)
    assert log == ["closed"]
