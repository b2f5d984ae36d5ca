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

"""dag-pb decoding (mech_catalogue_core/ipfs/dag_pb.py) against the encoder that matches kubo's blocks.

unixfs.py's encoder is checked against CIDs from the real kubo binary (test_cid.py), so
what it writes stands in for what kubo stores; directories kubo wrote are decoded in
mech_catalogue_core/tests/derive/.
"""

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    RAW,
    cid_to_digest,
    digest_to_cid,
)
from mech_catalogue_core.ipfs.dag_pb import (
    UNIXFS_FILE,
    DagPbError,
    decode_node,
    link_cid,
)
from mech_catalogue_core.ipfs.unixfs import (
    IPFS_CHUNK_SIZE,
    file_root,
)


@settings(max_examples=25, deadline=None)
@given(
    chunks=st.integers(min_value=2, max_value=5),
    tail=st.integers(min_value=0, max_value=IPFS_CHUNK_SIZE - 1),
    raw_leaves=st.booleans(),
    cid_version=st.sampled_from([0, 1]),
)
def test_a_multi_chunk_file_root_decodes_to_its_leaves(
    chunks: int, tail: int, raw_leaves: bool, cid_version: int
) -> None:
    """Every leaf link names the CID of its chunk; the size is the file's."""
    data = bytes(i % 251 for i in range((chunks - 1) * IPFS_CHUNK_SIZE + tail + 1))
    _, block = file_root(data, raw_leaves, cid_version)
    node = decode_node(block)
    assert node.unixfs_type == UNIXFS_FILE and node.filesize == len(data)
    assert node.data == b""
    pieces = [
        data[i : i + IPFS_CHUNK_SIZE] for i in range(0, len(data), IPFS_CHUNK_SIZE)
    ]
    assert len(node.links) == len(pieces)
    for (name, cid), piece in zip(node.links, pieces):
        codec, digest = cid_to_digest(cid)
        assert name == ""
        assert codec == (RAW if raw_leaves else DAG_PB)
        leaf = piece if raw_leaves else file_root(piece, False)[1]
        assert digest[2:] == hashlib.sha256(leaf).hexdigest()


def test_a_one_chunk_file_holds_its_data_inline() -> None:
    """A small file's dag-pb root carries the bytes and no links."""
    node = decode_node(file_root(b"hello", raw_leaves=False)[1])
    assert (node.unixfs_type, node.data, node.filesize, node.links) == (
        UNIXFS_FILE,
        b"hello",
        5,
        (),
    )


def test_link_cids_of_each_accepted_form() -> None:
    """CIDv0 and CIDv1 (dag-pb, raw) hashes become CIDv1 text of the same digest."""
    digest = bytes(range(32))
    assert link_cid(b"\x12\x20" + digest) == digest_to_cid(digest, DAG_PB)
    assert link_cid(b"\x01\x70\x12\x20" + digest) == digest_to_cid(digest, DAG_PB)
    assert link_cid(b"\x01\x55\x12\x20" + digest) == digest_to_cid(digest, RAW)


@pytest.mark.parametrize(
    "raw",
    [
        b"\x01\x71\x12\x20" + bytes(32),  # dag-cbor
        b"\x13\x20" + bytes(32),  # sha2-512 code
        b"\x12\x20" + bytes(31),  # short digest
        b"\x01\x70\x12\x20" + bytes(33),  # long digest
        b"",
    ],
)
def test_link_cids_of_other_forms_are_refused(raw: bytes) -> None:
    """Only sha2-256 dag-pb/raw CIDs are followed."""
    with pytest.raises(DagPbError, match="not a sha2-256"):
        link_cid(raw)


@pytest.mark.parametrize(
    "block, reason",
    [
        (b"\x12\xff", "truncated"),  # length past the end
        (b"\x12\x05\x0a\x01", "truncated"),  # link shorter than it says
        (b"\x80", "truncated varint"),
        (b"\x0b", "wire type 3"),  # start group: not dag-pb
        (b"\x12\x04\x0a\x02\x12\x20", "not a sha2-256"),  # link hash cut
        (b"\x12\x03\x12\x01\xff", "not UTF-8"),  # link name
        (b"\x12\x02\x0a\x80", "truncated"),
        (b"\x12\x02\x08\x01", "malformed link"),  # Hash as a varint
        (b"\x0a\x02\x10\x01", "malformed UnixFS data"),  # Data as a varint
    ],
)
def test_malformed_blocks_are_refused_with_the_reason(
    block: bytes, reason: str
) -> None:
    """Each kind of malformed block raises DagPbError (a ValueError) naming what failed."""
    with pytest.raises(DagPbError, match=reason):
        decode_node(block)
