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

"""What ``ipfs add`` (kubo) stores for a file: the root block of its UnixFS DAG.

Needed to re-hash fetched bytes the way kubo hashed them when they were added, so a
gateway cannot serve anything but the published manifest. Formats:

- dag-pb: https://ipld.io/specs/codecs/dag-pb/spec/ (PBNode: Links = field 2, encoded
  before Data = field 1; PBLink: Hash = 1, Name = 2, Tsize = 3);
- UnixFS: https://github.com/ipfs/specs/blob/main/UNIXFS.md (Data: Type = 1 (File = 2),
  Data = 2, filesize = 3, blocksizes = 4, repeated, not packed);
- kubo's importer (boxo/ipld/unixfs/importer/balanced): fixed-size 256 KiB chunks
  (``size-262144``); one chunk = the root is the leaf itself; up to 174 chunks = one root
  linking every leaf; with ``--raw-leaves`` (implied by ``--cid-version=1``) leaves are raw
  blocks, otherwise UnixFS File nodes.

Why hand-written: open-aea's ``IPFSHashOnly`` (aea.helpers.ipfs.base) would import the
framework into this framework-free package, has no raw-leaves mode (kubo's CIDv1
default), and swaps protobuf implementations in ``sys.modules``; no maintained Python
library builds UnixFS DAGs. The encoding is ~40 lines and every layout here is tested
against CIDs produced by the real kubo binary (mech_catalogue_core/tests/ipfs/test_cid.py).
Files over 174 chunks (~43.5 MiB) need a second DAG level and are not supported; the
manifest byte cap (limits.py, 1 MiB) is far below that.
"""

import hashlib
from typing import List, Tuple

from mech_catalogue_core.model.limits import (
    IPFS_CHUNK_SIZE,
)

#: boxo's DefaultLinksPerBlock for the balanced layout (helpers.DefaultLinksPerBlock).
MAX_LINKS = 174
MAX_FILE_SIZE = MAX_LINKS * IPFS_CHUNK_SIZE
CODEC_RAW = 0x55
CODEC_DAG_PB = 0x70
SHA2_256 = 0x12
#: the largest input hashlib hashes without releasing the GIL (CPython's
#: HASHLIB_GIL_MINSIZE is 2048: from there on it releases it)
GIL_KEPT_BYTES = 2047


def sha256(data: bytes) -> bytes:
    """Return the SHA-256 digest of ``data``, fed to hashlib in pieces that keep the GIL.

    hashlib releases the GIL to hash 2 KiB or more; the thread then waits to take it
    back while other threads run (the sync's fetch threads), and on a busy 2-core
    machine that wait was about 1.2 ms for 0.06 ms of hashing a manifest (benchmark,
    N = 1,000). Between pieces the interpreter still lets other threads in.

    :param data: the bytes.
    :return: the 32-byte digest (``hashlib.sha256(data).digest()``).
    """
    if len(data) <= GIL_KEPT_BYTES:
        return hashlib.sha256(data).digest()
    hasher = hashlib.sha256()
    view = memoryview(data)
    for start in range(0, len(data), GIL_KEPT_BYTES):
        hasher.update(view[start : start + GIL_KEPT_BYTES])
    return hasher.digest()


UNIXFS_FILE = 2


def varint(value: int) -> bytes:
    """Return its unsigned LEB128 (protobuf/multiformats varint).

    :param value: a non-negative integer.
    :return: its unsigned LEB128 (protobuf/multiformats varint).
    """
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field_bytes(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def _field_varint(number: int, value: int) -> bytes:
    return varint(number << 3) + varint(value)


def unixfs_file_data(
    data: bytes, filesize: int, blocksizes: Tuple[int, ...] = ()
) -> bytes:
    """Return the UnixFS Data message.

    :param data: inline file bytes ("" for a root).
    :param filesize: total size.
    :param blocksizes: chunk sizes of the children.
    :return: the UnixFS Data message.
    """
    out = _field_varint(1, UNIXFS_FILE)
    if (
        data
    ):  # kubo omits an empty Data (the empty file is QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH)
        out += _field_bytes(2, data)
    out += _field_varint(3, filesize)
    for size in blocksizes:
        out += _field_varint(4, size)
    return out


def dag_pb_node(data: bytes, links: Tuple[Tuple[bytes, int], ...] = ()) -> bytes:
    """Return the dag-pb block.

    :param data: the node's Data.
    :param links: (CID bytes, Tsize) per child, Name "".
    :return: the dag-pb block.
    """
    out = b"".join(
        _field_bytes(
            2, _field_bytes(1, cid) + _field_bytes(2, b"") + _field_varint(3, tsize)
        )
        for cid, tsize in links
    )
    return out + _field_bytes(1, data)


def _sha256_multihash(block: bytes) -> bytes:
    return bytes((SHA2_256, 32)) + sha256(block)


def file_root(data: bytes, raw_leaves: bool, cid_version: int = 1) -> Tuple[int, bytes]:
    """The root block kubo's ``ipfs add`` builds for ``data`` (balanced layout, 256 KiB chunks).

    :param data: the file's bytes.
    :param raw_leaves: True for ``--raw-leaves`` (the default with ``--cid-version=1``).
    :param cid_version: 0 or 1; decides how a multi-chunk root links its dag-pb leaves
        (CIDv0 = bare multihash, CIDv1 = 0x01 0x70 + multihash). Raw leaves are always CIDv1.
    :return: (codec of the root: :data:`CODEC_RAW` or :data:`CODEC_DAG_PB`, root block).
    :raises ValueError: when ``data`` needs more than one DAG level (> :data:`MAX_FILE_SIZE`).
    """
    if len(data) > MAX_FILE_SIZE:
        raise ValueError(
            f"{len(data)} bytes need a deeper UnixFS DAG than this code builds (max {MAX_FILE_SIZE})"
        )
    if len(data) <= IPFS_CHUNK_SIZE:
        if raw_leaves:
            return CODEC_RAW, data
        return CODEC_DAG_PB, dag_pb_node(unixfs_file_data(data, len(data)))
    chunks = [
        data[i : i + IPFS_CHUNK_SIZE] for i in range(0, len(data), IPFS_CHUNK_SIZE)
    ]
    links: List[Tuple[bytes, int]] = []
    for chunk in chunks:
        if raw_leaves:
            links.append((bytes((1, CODEC_RAW)) + _sha256_multihash(chunk), len(chunk)))
        else:
            leaf = dag_pb_node(unixfs_file_data(chunk, len(chunk)))
            prefix = (
                bytes((1, CODEC_DAG_PB)) if cid_version == 1 else b""
            )  # CIDv0 = bare multihash
            links.append((prefix + _sha256_multihash(leaf), len(leaf)))
    root_data = unixfs_file_data(b"", len(data), tuple(len(c) for c in chunks))
    return CODEC_DAG_PB, dag_pb_node(root_data, tuple(links))


def root_digest(
    data: bytes, raw_leaves: bool, cid_version: int = 1
) -> Tuple[int, bytes]:
    """Return (root codec, 32-byte sha2-256 of the root block).

    :param data: file bytes.
    :param raw_leaves: see :func:`file_root`.
    :param cid_version: see file_root.
    :return: (root codec, 32-byte sha2-256 of the root block).

    Raises ValueError as :func:`file_root` does.
    """
    codec, block = file_root(data, raw_leaves, cid_version)
    return codec, sha256(block)
