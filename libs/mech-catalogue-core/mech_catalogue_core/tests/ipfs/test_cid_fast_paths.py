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

"""The base32 CIDv1 fast paths of mech_catalogue_core/ipfs/cid.py give what py-cid gives, and verify hashes once.

``digest_to_cid`` and ``cid_to_digest`` run once or twice per manifest of a sync (the
CIDs to ask for, the CID a reply came under); their common form (CIDv1, sha2-256,
dag-pb or raw, lowercase base32) is written and read with the standard library's C
base32 codec instead of py-cid's pure-Python multibase. py-cid stays the reference:
every other spelling goes through it, with its errors.
"""

# pylint: disable=protected-access
import base64
import hashlib
from typing import List

import cid as pycid
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mech_catalogue_core.ipfs import cid as C
from mech_catalogue_core.ipfs import unixfs
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    LAYOUTS,
    RAW,
    CidError,
    cid_to_digest,
    digest_to_cid,
    verify,
)
from mech_catalogue_core.ipfs.unixfs import (
    root_digest,
)
from mech_catalogue_core.model import problems as P

CHUNK = 262144


def reference_cid(digest: bytes, codec: str) -> str:
    """Encode with py-cid, as digest_to_cid did before its fast path.

    :param digest: 32 bytes.
    :param codec: dag-pb or raw.
    :return: the base32 CIDv1.
    """
    return (
        pycid.make_cid(1, codec, b"\x12\x20" + digest).encode("base32").decode("ascii")
    )


@settings(max_examples=200, deadline=None)
@given(digest=st.binary(min_size=32, max_size=32), codec=st.sampled_from([DAG_PB, RAW]))
def test_base32_cids_match_py_cid(digest: bytes, codec: str) -> None:
    """Writing and reading a base32 CIDv1 gives py-cid's string and digest, both ways."""
    expected = reference_cid(digest, codec)
    assert digest_to_cid(digest, codec) == expected
    assert digest_to_cid("0x" + digest.hex(), codec) == expected
    assert cid_to_digest(expected) == (codec, "0x" + digest.hex())
    parsed = pycid.from_string(expected)
    assert (parsed.codec, bytes(parsed.multihash)[2:]) == (codec, digest)


def test_the_fast_path_reads_only_the_canonical_spelling() -> None:
    """Other spellings of the same CID (upper case, prefixed) still read, through py-cid."""
    digest = hashlib.sha256(b"manifest").digest()
    text = digest_to_cid(digest, DAG_PB)
    assert C._base32_digest(text) == (DAG_PB, "0x" + digest.hex())
    for other in (text.upper(), "ipfs://" + text, "/ipfs/" + text):
        assert C._base32_digest(other) is None
        assert cid_to_digest(other) == (DAG_PB, "0x" + digest.hex())


def test_non_canonical_trailing_bits_are_left_to_py_cid() -> None:
    """A base32 CID whose last character carries non-zero padding bits is not read by the fast path."""
    text = digest_to_cid(hashlib.sha256(b"x").digest(), RAW)
    last = "abcdefghijklmnopqrstuvwxyz234567"
    tweaked = text[:-1] + last[(last.index(text[-1]) + 1) % 32]
    assert (
        base64.b32decode(tweaked[1:].upper() + "======")[:-1]
        == base64.b32decode(text[1:].upper() + "======")[:-1]
    )
    assert C._base32_digest(tweaked) is None


@pytest.mark.parametrize(
    "raw, code",
    [
        (b"\x01\x71\x12\x20" + b"\x00" * 32, P.UNSUPPORTED_CID),  # dag-cbor
        (b"\x01\x70\x16\x20" + b"\x00" * 32, P.UNSUPPORTED_CID),  # sha3-256
        (b"\x01\x70\x13\x40" + b"\x00" * 32, P.INVALID_CID),  # sha2-512, 32 bytes
        (b"\x02\x70\x12\x20" + b"\x00" * 32, P.INVALID_CID),  # CID version 2
    ],
)
def test_other_codecs_and_hashes_keep_their_errors(raw: bytes, code: str) -> None:
    """A 59-character base32 CID of another codec or hash goes to py-cid and is refused as before."""
    text = "b" + base64.b32encode(raw).decode("ascii").rstrip("=").lower()
    assert len(text) == 59 and C._base32_digest(text) is None
    with pytest.raises(CidError) as caught:
        cid_to_digest(text)
    assert caught.value.problem.code == code


def counted_roots(monkeypatch: pytest.MonkeyPatch) -> List[tuple]:
    """Count the root blocks verify builds.

    :param monkeypatch: pytest's monkeypatch.
    :return: the list every root_digest call appends its layout to.
    """
    calls: List[tuple] = []

    def counting(data: bytes, raw_leaves: bool, cid_version: int = 1):
        calls.append((cid_version, raw_leaves))
        return root_digest(data, raw_leaves, cid_version)

    monkeypatch.setattr(C, "root_digest", counting)
    return calls


@pytest.mark.parametrize("size", [0, 1, 17_000, CHUNK])
def test_a_one_chunk_file_is_hashed_once(
    monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    """Up to one chunk, verify builds one dag-pb root, matched or not, and names kubo's CIDv0 layout."""
    data = bytes(i % 253 for i in range(size))
    digest = root_digest(data, raw_leaves=False, cid_version=0)[1]
    calls = counted_roots(monkeypatch)
    result = verify(data, digest, DAG_PB)
    assert result.ok and result.layout == (0, False) and calls == [(0, False)]
    calls.clear()
    wrong = verify(data, hashlib.sha256(b"other").digest())
    assert not wrong.ok and wrong.problem is not None
    assert wrong.problem.code == P.DIGEST_MISMATCH and calls == [(0, False)]


def test_a_larger_file_still_tries_every_layout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past one chunk the layouts give different roots: a mismatch tries all four, in order."""
    data = b"y" * (CHUNK + 1)
    calls = counted_roots(monkeypatch)
    assert not verify(data, hashlib.sha256(b"other").digest(), DAG_PB).ok
    assert calls == list(LAYOUTS)
    roots = [root_digest(data, layout[1], layout[0])[1] for layout in LAYOUTS]
    for root in roots:  # raw leaves are CIDv1 either way: the first layout giving it
        assert verify(data, root, DAG_PB).layout == LAYOUTS[roots.index(root)]


@pytest.mark.parametrize(
    "size", [0, 1, 2046, 2047, 2048, 4094, 4095, 17_000, CHUNK + 1, 3 * CHUNK - 7]
)
def test_sha256_in_pieces_is_sha256(size: int) -> None:
    """unixfs.sha256 feeds hashlib pieces of at most 2047 bytes (keeping the GIL): the digest is hashlib's."""
    data = bytes((i * 7 + size) % 256 for i in range(size))
    assert unixfs.sha256(data) == hashlib.sha256(data).digest()


def test_sha256_keeps_each_piece_below_the_gil_release_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No piece given to hashlib reaches 2048 bytes, where CPython releases the GIL."""
    sizes: List[int] = []
    real = hashlib.sha256

    class Recording:  # pylint: disable=too-few-public-methods
        """hashlib.sha256, recording every input's size."""

        def __init__(self, data: bytes = b"") -> None:
            sizes.append(len(data))
            self.hasher = real(data)

        def update(self, data: bytes) -> None:
            """Feed more.

            :param data: the bytes.
            """
            sizes.append(len(data))
            self.hasher.update(data)

        def digest(self) -> bytes:
            """Finish.

            :return: the digest.
            """
            return self.hasher.digest()

    monkeypatch.setattr(unixfs.hashlib, "sha256", Recording)
    data = b"z" * (CHUNK + 5)
    assert unixfs.sha256(data) == real(data).digest()
    assert max(sizes) <= 2047 and sum(sizes) == len(data)
