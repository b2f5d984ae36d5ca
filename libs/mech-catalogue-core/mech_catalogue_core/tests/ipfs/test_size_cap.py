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

"""The size-cap policy (domain.size_cap): readers stop one byte past the cap, truncation never verifies."""

from typing import Iterator, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mech_catalogue_core.catalogue.fetching import (
    FetchPolicy,
    ManifestCache,
    manifest_fetcher,
)
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    RAW,
    digest_to_cid,
    verify,
)
from mech_catalogue_core.ipfs.size_cap import (
    cat_params,
    content_range_total,
    gateway_body,
    header,
    range_header,
    read_capped,
    read_limit,
)
from mech_catalogue_core.ipfs.unixfs import (
    root_digest,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_INVALID,
)
from mech_catalogue_core.model.problems import (
    TOO_LARGE,
)

CAP = 1000


def _counting(chunks: List[bytes], pulled: List[int]) -> Iterator[bytes]:
    for chunk in chunks:
        pulled.append(len(chunk))
        yield chunk


def test_range_asks_for_one_byte_past_the_cap() -> None:
    """The Range is inclusive: bytes=0-CAP is CAP + 1 bytes, and cat's length says the same."""
    assert range_header(CAP) == "bytes=0-1000"
    assert read_limit(CAP) == 1001
    assert cat_params("bafyx", CAP) == {"arg": "bafyx", "length": "1001"}


def test_read_capped_stops_pulling_at_the_limit() -> None:
    """An endless-looking stream: chunks stop being pulled once cap + 1 bytes are in."""
    pulled: List[int] = []
    data = read_capped(_counting([b"a" * 300] * 1000, pulled), CAP)
    assert data == b"a" * 1001
    assert len(pulled) == 4  # 1200 bytes pulled of 300,000 offered


def test_read_capped_keeps_a_body_within_the_cap_whole() -> None:
    """Below the cap nothing is lost, including empty chunks and the empty body."""
    assert read_capped([b"ab", b"", b"cd"], CAP) == b"abcd"
    assert read_capped([], CAP) == b""
    assert read_capped([b"x" * CAP], CAP) == b"x" * CAP


@pytest.mark.parametrize(
    "value,total",
    [
        ("bytes 0-1000/419430400", 419430400),
        ("bytes 0-4/5", 5),
        ("bytes 0-4/*", None),
        ("bytes */5", None),
        ("garbage", None),
        ("bytes 0-4/99999999999999999999", 99999999999999999999),
        (None, None),
        ("", None),
    ],
)
def test_content_range_total(value, total) -> None:
    """The complete length of a Content-Range; unknown or malformed gives None."""
    assert content_range_total(value) == total


def test_header_lookup_ignores_case() -> None:
    """The http protocol's header text is read case-insensitively."""
    assert (
        header("content-range: bytes 0-1/2\nX: y\n", "Content-Range") == "bytes 0-1/2"
    )
    assert header("", "Content-Range") is None


def test_ranged_answer_within_the_cap_is_the_whole_file() -> None:
    """206 with the complete length: the body is the file."""
    assert gateway_body(206, "Content-Range: bytes 0-4/5\n", b"hello", CAP) == (
        b"hello",
        "",
    )


def test_ranged_answer_over_the_cap_is_cap_plus_one_bytes() -> None:
    """206 of a 400 MiB file: the cap + 1 bytes asked for come back (the fetcher calls it too large)."""
    body = b"x" * read_limit(CAP)
    data, failure = gateway_body(
        206, f"Content-Range: bytes 0-{CAP}/419430400\n", body, CAP
    )
    assert data == body and failure == ""


def test_gateway_ignoring_range_is_cut_to_the_limit() -> None:
    """200 with everything (Range ignored): only cap + 1 bytes are kept."""
    data, failure = gateway_body(200, "", b"y" * (10 * CAP), CAP)
    assert data == b"y" * read_limit(CAP) and failure == ""


def test_short_ranged_answer_is_a_failure_not_a_manifest() -> None:
    """206 that stops before what was asked (a gateway sending a prefix): failure, never bytes."""
    data, failure = gateway_body(
        206, "Content-Range: bytes 0-99/5000\n", b"z" * 100, CAP
    )
    assert data is None and "100 of the 1001 bytes" in failure


@pytest.mark.parametrize("status", [204, 301, 404, 416, 500, 504])
def test_other_statuses_are_failures(status: int) -> None:
    """Only 200 and 206 carry a body to verify."""
    data, failure = gateway_body(status, "", b"body", CAP)
    assert data is None and str(status) in failure


@settings(max_examples=40, deadline=None)
@given(
    size=st.integers(min_value=CAP + 2, max_value=3 * 262144 + 5),
    byte=st.integers(0, 255),
)
def test_a_truncated_body_never_verifies(size: int, byte: int) -> None:
    """The cap + 1 prefix of a larger file hashes to neither its dag-pb nor its raw digest."""
    data = bytes([byte]) * (size - 1) + b"\x01"
    prefix = read_capped([data], CAP)
    for raw_leaves, version in ((False, 0), (True, 1), (False, 1)):
        _, root = root_digest(data, raw_leaves, version)
        assert not verify(prefix, "0x" + root.hex()).ok


def _fetch_once(digest: str, body: bytes, cap: int):
    fetcher = manifest_fetcher(
        [digest], ManifestCache(), FetchPolicy(retries=0, max_bytes=cap)
    )
    _, cids = next(fetcher)
    try:
        while True:
            _, cids = fetcher.send(
                {cid: gateway_body(206, "", body, cap) for cid in cids}
            )
    except StopIteration as done:
        return done.value[digest]


def test_over_the_cap_is_too_large_naming_the_cid_and_the_cap() -> None:
    """A capped body over the cap: too_large with the CID and the cap, not a mismatch."""
    data = b"{" + b" " * (5 * CAP)
    _, root = root_digest(data, raw_leaves=False, cid_version=0)
    digest = "0x" + root.hex()
    result = _fetch_once(digest, read_capped([data], CAP), CAP)
    assert result.status == STATUS_INVALID and result.problem.code == TOO_LARGE
    assert digest_to_cid(digest, DAG_PB) in result.problem.message
    assert str(CAP) in result.problem.message


def test_exactly_the_cap_is_accepted() -> None:
    """A file of exactly cap bytes is not too large (the boundary)."""
    data = b"[" + b" " * (CAP - 2) + b"]"
    digest = "0x" + root_digest(data, raw_leaves=True)[1].hex()
    result = _fetch_once(digest, read_capped([data], CAP), CAP)
    assert result.data == data and result.cid == digest_to_cid(digest, RAW)
