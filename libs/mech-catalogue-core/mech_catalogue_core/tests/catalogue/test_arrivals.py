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

"""Parsing on arrival: only verified bytes are parsed early, each result is handed out once."""

import hashlib
import json
import sys
import time
from typing import List, Optional, Tuple

import pytest
from mech_catalogue_core.catalogue.arrivals import (
    ParseOnArrival,
)
from mech_catalogue_core.ipfs.cid import (
    candidate_cids,
)
from mech_catalogue_core.ipfs.unixfs import (
    file_root,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    Manifest,
)
from mech_catalogue_core.model.limits import Limits
from mech_catalogue_core.model.problems import (
    Problem,
)


def manifest(n: int) -> bytes:
    """A small manifest of ``n`` tools."""
    return json.dumps({"tools": [f"tool-{i}" for i in range(n)]}).encode()


def dag_pb_cid(data: bytes) -> str:
    """The CIDv0-style dag-pb CID kubo's ``ipfs add`` gives ``data`` (one chunk)."""
    _, block = file_root(data, raw_leaves=False)
    return candidate_cids("0x" + hashlib.sha256(block).hexdigest())[0]


def raw_cid(data: bytes) -> str:
    """The raw CID of ``data``."""
    return candidate_cids("0x" + hashlib.sha256(data).hexdigest())[1]


class CountingParser:
    """The real manifest parser, recording every call (and raising on ``fail_on``)."""

    def __init__(self, fail_on: Optional[bytes] = None) -> None:
        """Start with no calls.

        :param fail_on: bytes to raise on, as a parser bug would.
        """
        self.calls: List[bytes] = []
        self.fail_on = fail_on

    def __call__(self, data: bytes) -> Tuple[Optional[Manifest], Tuple[Problem, ...]]:
        """Parse.

        :param data: manifest bytes.
        :return: ``(manifest or None, problems)``.
        :raises RuntimeError: on ``fail_on``.
        """
        self.calls.append(data)
        if data == self.fail_on:
            raise RuntimeError("parser bug")
        result = parse_manifest(data, Limits())
        return result.manifest, result.problems


def tool_names(parsed: Tuple[Optional[Manifest], Tuple[Problem, ...]]) -> List[str]:
    """Tool names of a parse result."""
    assert parsed[0] is not None
    return [tool.name for tool in parsed[0].tools]


@pytest.mark.parametrize("cid_of", [dag_pb_cid, raw_cid])
def test_verified_bytes_are_parsed_once_on_arrival(cid_of) -> None:
    """Bytes that hash to their CID are parsed when they arrive; the later ask parses nothing."""
    parser = CountingParser()
    early = ParseOnArrival(parser, max_bytes=1 << 20)
    data = manifest(3)
    early.arrived(cid_of(data), data)
    assert parser.calls == [data] and early.parsed_early == 1
    assert tool_names(early.parse(data)) == ["tool-0", "tool-1", "tool-2"]
    assert len(parser.calls) == 1 and len(early) == 0
    # handed out once: a second ask parses again (nothing lingers between periods)
    assert tool_names(early.parse(data)) == ["tool-0", "tool-1", "tool-2"]
    assert len(parser.calls) == 2


def test_bytes_that_do_not_verify_are_not_parsed_early() -> None:
    """A gateway serving other bytes than the CID names costs no parsing on arrival."""
    parser = CountingParser()
    early = ParseOnArrival(parser, max_bytes=1 << 20)
    good, other = manifest(2), manifest(5)
    early.arrived(dag_pb_cid(good), other)
    early.arrived("not-a-cid", good)
    assert not parser.calls and early.skipped == 2 and len(early) == 0


def test_oversized_bytes_are_not_parsed_early() -> None:
    """Bytes over the cap are left to the fetcher's too_large rejection."""
    parser = CountingParser()
    data = manifest(50)
    early = ParseOnArrival(parser, max_bytes=len(data) - 1)
    early.arrived(raw_cid(data), data)
    assert not parser.calls and len(early) == 0


def test_a_parser_bug_on_arrival_is_left_to_refresh_catalogue() -> None:
    """A parser raising on arrival stores nothing; the later ask raises again (and is guarded there)."""
    data = manifest(1)
    parser = CountingParser(fail_on=data)
    early = ParseOnArrival(parser, max_bytes=1 << 20)
    early.arrived(raw_cid(data), data)
    assert early.skipped == 1 and len(early) == 0
    with pytest.raises(RuntimeError, match="parser bug"):
        early.parse(data)


def test_cpu_time_is_told_apart_from_waiting() -> None:
    """The CPU counters take only the parsing thread's CPU: a parse that waits adds wall time, not CPU.

    (The benchmark reports both: the wall time of the parsing thread includes its waits for
    the GIL while the fetch threads run.)
    """
    waited = 0.05

    def waiting_parse(data: bytes) -> Tuple[Optional[Manifest], Tuple[Problem, ...]]:
        time.sleep(waited)
        return parse_manifest(data, Limits()).manifest, ()

    early = ParseOnArrival(waiting_parse, Limits().max_bytes)
    data = manifest(3)
    early.arrived(dag_pb_cid(data), data)
    assert early.parsed_early == 1
    assert early.parse_seconds >= waited
    assert 0 < early.parse_cpu_seconds < early.parse_seconds - waited / 2
    assert 0 < early.verify_cpu_seconds and early.verify_seconds > 0
    wrong = manifest(4)
    early.arrived(dag_pb_cid(data), wrong)  # does not verify: no parse, no parse time
    assert early.skipped == 1 and early.parsed_early == 1


def test_results_wait_without_holding_the_bytes() -> None:
    """A waiting result is found by equal bytes (another object), not by the object it came from.

    The results are keyed by the bytes' SHA-256, so the bytes a gateway sent can be freed
    once parsed; bytes differing in one byte never get another manifest's result.
    """
    sizes: List[int] = []  # what was parsed, without keeping the bytes alive

    def parser(data: bytes) -> Tuple[Optional[Manifest], Tuple[Problem, ...]]:
        sizes.append(len(data))
        result = parse_manifest(data, Limits())
        return result.manifest, result.problems

    early = ParseOnArrival(parser, max_bytes=1 << 20)
    data = manifest(2)
    early.arrived(raw_cid(data), data)
    assert sys.getrefcount(data) == 2  # this frame's name and the call's argument only
    copy = bytes(bytearray(data))
    assert copy is not data
    assert tool_names(early.parse(copy)) == ["tool-0", "tool-1"]
    assert len(sizes) == 1
    early.arrived(raw_cid(data), data)
    altered = data.replace(b"tool-1", b"tool-9")
    assert tool_names(early.parse(altered)) == ["tool-0", "tool-9"]
    assert len(sizes) == 3 and len(early) == 1
