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

"""Edges of CID handling that mutation testing found unpinned (docs/testing.md).

Bad input to ``mech_catalogue_core/ipfs/cid.py`` gets a CidError whose message is the problem's sentence,
names what was wrong and echoes at most 80 characters of it; the 200-character cap on a
CID string is checked before any parsing; ``verify`` never reports a bad digest as ok and
re-hashes files up to exactly ``MAX_FILE_SIZE``.
"""

import hashlib

import pytest
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    RAW,
    CidError,
    cid_to_digest,
    digest_to_cid,
    to_v1,
    verify,
)
from mech_catalogue_core.ipfs.unixfs import (
    CODEC_DAG_PB,
    MAX_FILE_SIZE,
    file_root,
    root_digest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.limits import (
    IPFS_CHUNK_SIZE,
)

DIGEST = "0x" + hashlib.sha256(b"manifest").hexdigest()


def refused(text: object) -> CidError:
    """Parse something that must be refused.

    :param text: the input.
    :return: the error.
    """
    with pytest.raises(CidError) as caught:
        cid_to_digest(text)  # type: ignore[arg-type]
    return caught.value


@pytest.mark.parametrize("text", [123, 4.5, ["bafy"], b"bafy", None, ""])
def test_non_strings_and_empty_are_not_cid_strings(text: object) -> None:
    """Anything but a non-empty str is refused as 'not a CID string' before parsing, never a TypeError."""
    error = refused(text)
    assert error.problem.code == P.INVALID_CID
    assert (
        str(error) == error.problem.message
    )  # the exception says the problem's sentence
    assert error.problem.message.endswith("is not a CID string.")
    assert repr(str(text)[:80]) in error.problem.message


def test_length_cap_is_200_characters() -> None:
    """201 characters are refused unparsed; 200 reach the parser (which then names its reason)."""
    over = refused("b" + "a" * 200)
    assert over.problem.message == f"{'b' + 'a' * 79!r} is not a CID string."
    at_cap = refused("b" + "a" * 199)
    assert "is not a CID (" in at_cap.problem.message


def test_messages_echo_at_most_80_characters_of_the_input() -> None:
    """Hostile input is echoed cut to 80 characters, with the parser's reason."""
    text = "z" * 150
    message = refused(text).problem.message
    assert repr("z" * 80) in message and "z" * 81 not in message
    assert message.startswith(repr("z" * 80) + " is not a CID (")
    assert not message.endswith("(None).")


def test_unsupported_hash_names_the_multihash_and_what_fits() -> None:
    """A sha2-512 CID: UNSUPPORTED_CID naming its 2-byte multihash prefix and the supported pair."""
    import cid as pycid  # pylint: disable=import-outside-toplevel

    multihash = b"\x13\x40" + hashlib.sha512(b"x").digest()
    text = pycid.make_cid(1, "raw", multihash).encode("base32").decode()
    error = refused(text)
    assert error.problem.code == P.UNSUPPORTED_CID
    assert "multihash 0x1340;" in error.problem.message
    assert error.problem.message.startswith(f"CID {text[:80]} uses codec raw")
    assert error.problem.message.endswith(
        "only dag-pb or raw with sha2-256 fit a bytes32 registry hash."
    )


def test_to_v1_keeps_the_requested_base() -> None:
    """to_v1 encodes in the base asked for, not always base32."""
    v0 = digest_to_cid(DIGEST, version=0)
    assert to_v1(v0, "base16") == "f01701220" + DIGEST[2:]
    assert to_v1(v0).startswith("bafy")


@pytest.mark.parametrize("digest", ["0x12", "not hex", b"\x00" * 31, None])
def test_verify_with_a_bad_digest_is_not_ok(digest: object) -> None:
    """A digest that is not a bytes32: not ok (ok is False), INVALID_DIGEST; never raises."""
    result = verify(b"manifest", digest)
    assert result.ok is False and result.problem is not None
    assert result.problem.code == P.INVALID_DIGEST


def test_verify_re_hashes_up_to_exactly_max_file_size() -> None:
    """MAX_FILE_SIZE bytes are verified; one more byte is TOO_LARGE with ok False."""
    data = bytes(MAX_FILE_SIZE)
    result = verify(data, hashlib.sha256(data).digest(), RAW)
    assert result.ok is True and result.codec == RAW
    bigger = data + b"\x00"
    too_large = verify(bigger, hashlib.sha256(bigger).digest(), RAW)
    assert too_large.ok is False and too_large.problem is not None
    assert too_large.problem.code == P.TOO_LARGE
    assert too_large.problem.message == (
        f"{MAX_FILE_SIZE + 1} bytes exceed {MAX_FILE_SIZE}, the largest file verify() re-hashes."
    )


def test_no_cidv0_for_raw_names_the_rule() -> None:
    """CIDv0 exists only for dag-pb: UNSUPPORTED_CID saying which version and codec."""
    with pytest.raises(CidError) as caught:
        digest_to_cid(DIGEST, RAW, version=0)
    assert caught.value.problem.code == P.UNSUPPORTED_CID
    assert caught.value.problem.message == (
        "No CIDv0 exists for codec 'raw'; use dag-pb or raw, CIDv1."
    )


def test_bad_digest_message_echoes_it_cut_to_80() -> None:
    """INVALID_DIGEST echoes the registry value, at most 80 characters of it."""
    with pytest.raises(CidError) as caught:
        digest_to_cid("9" * 100)
    message = caught.value.problem.message
    assert caught.value.problem.code == P.INVALID_DIGEST
    assert message == (
        f"The hash {'9' * 80!r} is not a bytes32 (0x + 64 hex); check the registry value."
    )


@pytest.mark.parametrize(
    "size, layout",
    [(10, (1, True)), (IPFS_CHUNK_SIZE, (1, True)), (IPFS_CHUNK_SIZE + 1, None)],
)
def test_raw_match_reports_its_layout(size: int, layout: object) -> None:
    """A raw root is what `ipfs add` makes for one chunk (layout (1, True)); larger ones only `block put`."""
    data = b"m" * size
    digest = hashlib.sha256(data).digest()
    result = verify(data, digest)
    assert result.ok is True and result.codec == RAW and result.layout == layout
    assert result.cid == digest_to_cid(digest, RAW)


@pytest.mark.parametrize("layout", [(0, False), (1, False), (0, True)])
def test_dag_pb_match_reports_the_layout_and_dag_pb_cid(layout) -> None:
    """Bytes added under another layout verify as dag-pb, naming that layout and the dag-pb CID."""
    data = b"x" * (IPFS_CHUNK_SIZE + 5)  # two chunks: every layout has a dag-pb root
    _, root = root_digest(data, raw_leaves=layout[1], cid_version=layout[0])
    result = verify(data, root, DAG_PB)
    assert result.ok is True and result.codec == DAG_PB
    assert result.cid == digest_to_cid(root, DAG_PB)
    assert result.layout is not None and result.layout[1] == layout[1]


def test_mismatch_names_the_digest_and_what_to_do() -> None:
    """Other bytes: ok False, DIGEST_MISMATCH with the size, the digest and the advice."""
    result = verify(b"other bytes", DIGEST)
    assert result.ok is False and result.problem is not None
    assert result.problem.code == P.DIGEST_MISMATCH
    assert result.problem.message == (
        f"The 11 fetched bytes do not hash to {DIGEST} under any ipfs add layout "
        "(dag-pb or raw, CIDv0/v1); discard them and fetch from another node."
    )


def test_file_root_builds_up_to_max_file_size_and_refuses_more() -> None:
    """One DAG level holds MAX_FILE_SIZE bytes; one byte more is a ValueError naming both sizes."""
    data = bytes(MAX_FILE_SIZE)
    codec, root = file_root(data, raw_leaves=True)
    assert codec == CODEC_DAG_PB and root
    with pytest.raises(ValueError) as caught:
        file_root(data + b"\x00", raw_leaves=True)
    assert str(caught.value) == (
        f"{MAX_FILE_SIZE + 1} bytes need a deeper UnixFS DAG than this code builds "
        f"(max {MAX_FILE_SIZE})"
    )
