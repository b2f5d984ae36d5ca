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

"""CID <-> digest conversions and verification, against CIDs printed by the real kubo."""

import hashlib

import pytest
from mech_catalogue_core.ipfs.cid import (
    CidError,
    Verification,
    candidate_cids,
    cid_to_digest,
    digest_to_cid,
    normalise_digest,
    to_v0,
    to_v1,
    verify,
)
from mech_catalogue_core.ipfs.unixfs import (
    MAX_FILE_SIZE,
    varint,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.tests.kubo import Kubo

CHUNK = 262144


def _code(result: Verification) -> str:
    assert result.problem is not None
    return result.problem.code


SAMPLES = {
    "empty": b"",
    "one byte": b"{",
    "small manifest": b'{"tools": ["a"]}\n',
    "exactly one chunk": bytes(range(256)) * (CHUNK // 256),
    "one chunk plus one": b"x" * (CHUNK + 1),
    "three chunks": bytes(i % 251 for i in range(3 * CHUNK - 7)),
}
LAYOUT_FLAGS = {
    (0, False): (),
    (1, True): ("--cid-version", "1"),
    (1, False): ("--cid-version", "1", "--raw-leaves=false"),
    (0, True): ("--raw-leaves",),
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
@pytest.mark.parametrize("layout", sorted(LAYOUT_FLAGS))
def test_verify_accepts_every_kubo_layout(kubo: Kubo, name: str, layout: tuple) -> None:
    """Bytes verify against the digest of the CID kubo printed, and we name the same CID."""
    data = SAMPLES[name]
    kubo_cid = kubo.cid(data, *LAYOUT_FLAGS[layout])
    codec, digest = cid_to_digest(kubo_cid)
    result = verify(data, digest)
    assert result.ok, result.problem
    assert result.codec == codec
    assert result.cid == to_v1(kubo_cid)
    assert _code(verify(data + b" ", digest)) == P.DIGEST_MISMATCH


def test_kubo_cidv1_default_single_chunk_is_raw(kubo: Kubo) -> None:
    """`ipfs add --cid-version 1` on a small file gives a raw root: sha2-256 of the bytes."""
    data = b'{"tools": []}'
    kubo_cid = kubo.cid(data, "--cid-version", "1")
    assert kubo_cid.startswith("bafkrei")
    assert cid_to_digest(kubo_cid) == ("raw", "0x" + hashlib.sha256(data).hexdigest())
    # The ecosystem's dag-pb assumption names a different CID for the same digest:
    assert candidate_cids(cid_to_digest(kubo_cid)[1]) == (
        to_v1(digest_to_cid(hashlib.sha256(data).digest())),
        kubo_cid,
    )


def test_conversions_agree_with_kubo_formats(kubo: Kubo) -> None:
    """CIDv0, base32 CIDv1 and base16 CIDv1 of one dag-pb root convert into each other."""
    data = b"manifest bytes"
    v0 = kubo.cid(data)
    v1 = kubo.cid(data, "--cid-version", "1", "--raw-leaves=false")
    _, digest = cid_to_digest(v0)
    assert to_v1(v0) == v1
    assert to_v0(v1) == v0
    assert digest_to_cid(digest, version=0) == v0
    base16 = digest_to_cid(digest, base="base16")
    assert base16 == "f01701220" + digest[2:]
    assert cid_to_digest(base16) == ("dag-pb", digest)
    assert cid_to_digest("F" + base16[1:].upper()) == ("dag-pb", digest)


@pytest.mark.parametrize(
    "text, code",
    [
        ("", P.INVALID_CID),
        ("Qm", P.INVALID_CID),
        ("not a cid", P.INVALID_CID),
        ("f0170122000", P.INVALID_CID),
        ("x" * 500, P.INVALID_CID),
        ("f01711220" + "00" * 32, P.UNSUPPORTED_CID),  # dag-cbor
        ("f01701320" + "00" * 32, P.UNSUPPORTED_CID),  # sha2-512 code with 32 bytes
    ],
)
def test_bad_cids_are_problems(text: str, code: str) -> None:
    """Unreadable or unsupported CIDs raise CidError carrying the right code."""
    with pytest.raises(CidError) as info:
        cid_to_digest(text)
    assert info.value.problem.code == code


@pytest.mark.parametrize(
    "digest",
    ["0x12", "zz" * 32, None, b"short", "0x" + "0" * 63, "0x" + "ab" * 32 + "\n"],
)
def test_bad_digests(digest: object) -> None:
    """Anything but 32 bytes / 64 hex is INVALID_DIGEST, in conversion and verification."""
    with pytest.raises(CidError) as info:
        normalise_digest(digest)
    assert info.value.problem.code == P.INVALID_DIGEST
    assert _code(verify(b"x", digest)) == P.INVALID_DIGEST


def test_digest_forms_normalise() -> None:
    """Bytes, hex with and without 0x, upper case: one normal form."""
    raw = bytes(range(32))
    assert (
        normalise_digest(raw) == normalise_digest(raw.hex().upper()) == "0x" + raw.hex()
    )


def test_raw_codec_cannot_be_cidv0() -> None:
    """CIDv0 is dag-pb only."""
    with pytest.raises(CidError):
        digest_to_cid(b"\x00" * 32, codec="raw", version=0)


def test_verify_caps_size_and_narrows_codec() -> None:
    """Too-large input is refused without hashing; `codec` restricts the layouts tried."""
    assert _code(verify(b"\x00" * (MAX_FILE_SIZE + 1), b"\x00" * 32)) == P.TOO_LARGE
    data = b"abc"
    raw_digest = hashlib.sha256(data).digest()
    assert verify(data, raw_digest, codec="raw").ok
    assert not verify(data, raw_digest, codec="dag-pb").ok


def test_varint() -> None:
    """LEB128 as in the protobuf/multiformats specs."""
    assert (
        varint(0) == b"\x00" and varint(127) == b"\x7f" and varint(300) == b"\xac\x02"
    )
