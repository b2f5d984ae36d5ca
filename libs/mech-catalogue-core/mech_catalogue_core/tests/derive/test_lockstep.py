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

"""Code readers run side by side (one IPFS request a step), and their cache is bounded.

Before, packages were read one after another, each waiting its own fetch timeout when its
blocks never came: twelve registrations pointing at unresolvable CIDs held the fetch round
past its timeout every period.
"""

import hashlib
from pathlib import Path
from typing import Any, Dict, Generator, List, Optional, Tuple

import pytest
from mech_catalogue_core.adapters.directory import DirectoryStore
from mech_catalogue_core.derive.code_uri import (
    CodeDerivation,
)
from mech_catalogue_core.derive.from_chain import (
    DerivationCache,
    code_pointer_reader,
    lockstep,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    digest_to_cid,
)
from mech_catalogue_core.model import problems as P

Request = Tuple[str, Any]


def reader(
    name: str, steps: List[Request], fail_at: Optional[int] = None
) -> Generator[Request, Any, List[Any]]:
    """A reader asking ``steps`` in order and returning the replies it got.

    :param name: names its exception.
    :param steps: the requests.
    :param fail_at: raise instead of asking this step (a reader's bug).
    :yield: the requests.
    :return: the replies, in order.
    :raises ZeroDivisionError: at step ``fail_at``.
    """
    replies = []
    for index, request in enumerate(steps):
        if index == fail_at:
            raise ZeroDivisionError(name)
        replies.append((yield request))
    return replies


def run(
    readers: Dict[str, Generator[Request, Any, Any]],
) -> Tuple[List[Request], Dict[str, Any]]:
    """Drive :func:`lockstep`, answering each CID with ``b"<cid>"`` and chain reads with their payload.

    :param readers: the readers.
    :return: the requests it yielded, and its result.
    """
    gen = lockstep(readers)
    asked: List[Request] = []
    try:
        request = next(gen)
        while True:
            asked.append(request)
            kind, payload = request
            reply = (
                {cid: cid.encode() for cid in payload}
                if kind in ("files", "blocks")
                else ("answer", payload)
            )
            request = gen.send(reply)
    except StopIteration as done:
        return asked, done.value


def test_readers_share_one_request_a_step_and_get_only_their_part() -> None:
    """Three readers, two steps each: two block requests in all, each reply its own CIDs."""
    asked, results = run(
        {
            "a": reader("a", [("blocks", ["a1", "s"]), ("blocks", ["a2"])]),
            "b": reader("b", [("blocks", ["b1"]), ("files", ["b2"])]),
            "c": reader("c", [("blocks", ["s"]), ("blocks", ["c2", "c3"])]),
        }
    )
    assert asked == [
        ("blocks", ["a1", "b1", "s"]),
        ("files", ["b2"]),
        ("blocks", ["a2", "c2", "c3"]),
    ]
    assert results == {
        "a": [{"a1": b"a1", "s": b"s"}, {"a2": b"a2"}],
        "b": [{"b1": b"b1"}, {"b2": b"b2"}],
        "c": [{"s": b"s"}, {"c2": b"c2", "c3": b"c3"}],
    }


def test_chain_reads_go_out_one_by_one_in_reader_order() -> None:
    """Multicall payloads are not merged: each reader gets the answer to its own."""
    asked, results = run(
        {
            "x": reader("x", [("chain", "calls-x"), ("blocks", ["x1"])]),
            "y": reader("y", [("chain", "calls-y")]),
        }
    )
    assert asked == [("chain", "calls-x"), ("chain", "calls-y"), ("blocks", ["x1"])]
    assert results["y"] == [("answer", "calls-y")]


def test_a_raising_reader_costs_itself_only() -> None:
    """A reader that raises at its second step: its exception is its result, the others finish."""
    asked, results = run(
        {
            "bad": reader("bad", [("blocks", ["1"]), ("blocks", ["2"])], fail_at=1),
            "good": reader("good", [("blocks", ["3"]), ("blocks", ["4"])]),
        }
    )
    assert isinstance(results["bad"], ZeroDivisionError)
    assert results["good"] == [{"3": b"3"}, {"4": b"4"}]
    assert asked[-1] == ("blocks", ["4"])


@pytest.mark.parametrize("count", [1, 12, 40])
def test_unresolvable_packages_cost_one_request_a_step_together(count: int) -> None:
    """``count`` mechs pointing at packages whose blocks never come: one request in all."""
    cids = [
        digest_to_cid("0x" + hashlib.sha256(bytes([index])).hexdigest(), DAG_PB)
        for index in range(count)
    ]
    readers = {
        cid: code_pointer_reader(f"ipfs://{cid}", f"mech {index}", DerivationCache())
        for index, cid in enumerate(cids)
    }
    gen = lockstep(readers)
    asked: List[Request] = []
    results: Dict[str, Any] = {}
    try:
        request = next(gen)
        while True:
            asked.append(request)
            request = gen.send({cid: None for cid in request[1]})  # nothing arrives
    except StopIteration as done:
        results = done.value
    assert asked == [("blocks", sorted(cids))]
    for cid, result in results.items():
        assert isinstance(result, CodeDerivation) and result.package is None
        assert [p.code for p in result.problems] == [P.CODE_FETCH_FAILED], cid


def _derivation(cid: str) -> CodeDerivation:
    return CodeDerivation(cid, None, (), 1)


def test_the_cache_keeps_only_what_was_asked_for_since_the_last_retain(
    tmp_path: Path,
) -> None:
    """A package CID (and a metadata digest) nothing asks for any more is dropped, file too.

    Each entry is keyed by what anyone registers: a new CID a period kept one for ever.

    :param tmp_path: the cache's folder.
    """
    cache = DerivationCache(DirectoryStore(str(tmp_path)))
    digest = "0x" + "ab" * 32
    for cid in ("bafyold", "bafykept"):
        cache.put(_derivation(cid))
    cache.put_metadata(digest, b"{}")
    assert cache.retain_used() == 0  # all derived this period
    # the next period asks for one package and the metadata only
    assert cache.get("bafykept") is not None and cache.metadata(digest) == b"{}"
    assert cache.retain_used() == 1
    assert cache.get("bafyold") is None  # gone from memory and disk
    assert {p.name for p in tmp_path.iterdir()} == {
        "bafykept.json",
        f"{digest[2:]}.metadata.json",
    }
    assert cache.retain_used() == 2  # a period that asks for neither drops them
    assert len(cache) == 0 and not list(tmp_path.iterdir())
