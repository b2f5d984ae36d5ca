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

"""CIDs as people write them: ``ipfs://<cid>/``, ``looks_like_cid``, and what an unreadable one is told.

Found by mutation testing (issue 18): ``looks_like_cid`` is called by the CLI only, so no
test of the mutated modules reached it; a trailing ``/`` after ``ipfs://<cid>`` and the
error sentences of an unreadable CID were asserted by no test.
"""

import hashlib

import cid as pycid
import pytest
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    RAW,
    CidError,
    cid_to_digest,
    digest_to_cid,
    looks_like_cid,
    to_v0,
)

DIGEST = "0x" + hashlib.sha256(b"a manifest").hexdigest()


@pytest.mark.parametrize(
    "text",
    [
        digest_to_cid(DIGEST, DAG_PB),  # CIDv1 base32, dag-pb
        digest_to_cid(DIGEST, RAW),  # CIDv1 base32, raw
        to_v0(digest_to_cid(DIGEST, DAG_PB)),  # Qm...
    ],
)
def test_cids_of_any_codec_look_like_cids(text: str) -> None:
    """Every CID form the catalogue reads is recognised."""
    assert looks_like_cid(text) is True


@pytest.mark.parametrize(
    "text",
    ["", "tools/my_tool", "./packages", "bafy", "Qm" + "1" * 44, "x" * 300, None],
)
def test_paths_and_garbage_do_not(text) -> None:
    """A folder name, a truncated or malformed CID, an over-long string, a non-string: False."""
    assert looks_like_cid(text) is False


def _v0_ending_in_x() -> str:
    """A CIDv0 whose last character is ``X`` (base58 has it; base32 lowercase does not).

    :return: the CID.
    :raises AssertionError: when none of 10,000 digests gives one.
    """
    for i in range(10_000):
        text = to_v0(
            digest_to_cid("0x" + hashlib.sha256(b"%d" % i).hexdigest(), DAG_PB)
        )
        if text.endswith("X"):
            return text
    raise AssertionError("no CIDv0 ending in X among 10,000 digests")


@pytest.mark.parametrize("prefix", ["ipfs://", "/ipfs/", "IPFS://"])
@pytest.mark.parametrize("suffix", ["", "/", "//"])
def test_a_trailing_slash_after_the_cid_is_dropped(prefix: str, suffix: str) -> None:
    """``ipfs://<cid>/`` reads as the CID, for a base32 CIDv1 and a CIDv0 ending in ``X``."""
    v1 = digest_to_cid(DIGEST, DAG_PB)
    assert cid_to_digest(prefix + v1 + suffix) == (DAG_PB, DIGEST)
    v0 = _v0_ending_in_x()
    codec, digest = cid_to_digest(prefix + v0 + suffix)
    assert codec == DAG_PB and digest_to_cid(digest, DAG_PB) == to_v0_inverse(v0)


def to_v0_inverse(v0: str) -> str:
    """The base32 CIDv1 of a CIDv0, by py-cid (an independent reading).

    :param v0: ``Qm...``.
    :return: ``bafy...``.
    """
    return pycid.from_string(v0).to_v1().encode("base32").decode("ascii")


def test_a_sha2_multihash_in_hex_is_told_to_drop_its_prefix() -> None:
    """``1220`` + 64 hex is a multihash, not a CID: the message says which bytes32 to use."""
    with pytest.raises(CidError) as caught:
        cid_to_digest("1220" + DIGEST[2:])
    assert "drop the 1220 prefix" in str(caught.value)
    assert DIGEST in str(caught.value)


def test_an_unreadable_cid_names_the_parser_reason_and_the_forms_read() -> None:
    """The message quotes the text, py-cid's own reason, and every form that would be read."""
    text = "bafy-not-a-cid"
    with pytest.raises((ValueError, TypeError, KeyError)) as parser:
        pycid.from_string(text)
    with pytest.raises(CidError) as caught:
        cid_to_digest(text)
    message = str(caught.value)
    assert repr(text) in message
    assert f"({str(parser.value)[:80]})" in message
    assert message.endswith(
        "give a CIDv0 (Qm...), a CIDv1 in base32/base58btc/base16/base36, optionally as "
        "ipfs://CID or /ipfs/CID, or a 0x + 64 hex digest."
    )
