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

"""Decoding dag-pb blocks: a UnixFS node's type, data, size and named links.

The reading side of :mod:`.unixfs` (which encodes). Formats:

- dag-pb: https://ipld.io/specs/codecs/dag-pb/spec/ (PBNode: Links = field 2, Data =
  field 1; PBLink: Hash = 1, Name = 2, Tsize = 3), protobuf wire types 0 (varint) and 2
  (length-delimited) only;
- UnixFS Data: https://github.com/ipfs/specs/blob/main/UNIXFS.md (Type = 1: Raw 0,
  Directory 1, File 2, HAMTShard 5; Data = 2; filesize = 3).

Callers check a block against the digest of the CID it was asked for before decoding it;
this module only reads structure. Links must be sha2-256 CIDs of dag-pb or raw blocks
(what kubo writes); anything else is refused rather than followed.
"""

from dataclasses import dataclass
from typing import List, Tuple, Union

from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    RAW,
    digest_to_cid,
)

UNIXFS_RAW, UNIXFS_DIRECTORY, UNIXFS_FILE, UNIXFS_HAMT = 0, 1, 2, 5
_SHA2_256 = b"\x12\x20"


class DagPbError(ValueError):
    """A block is not a dag-pb UnixFS node this reader accepts (the message says why)."""


@dataclass(frozen=True)
class DagPbNode:
    """One decoded node.

    :param unixfs_type: the UnixFS ``Type`` (``UNIXFS_*``; -1 when the node has no Data).
    :param data: the UnixFS ``Data`` bytes (a file's inline content).
    :param filesize: the UnixFS ``filesize`` (bytes; 0 when absent).
    :param links: ``(name, CID text)`` in block order.
    """

    unixfs_type: int
    data: bytes
    filesize: int
    links: Tuple[Tuple[str, str], ...]


def _varint(data: bytes, at: int) -> Tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise DagPbError("truncated varint")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def _fields(data: bytes) -> List[Tuple[int, Union[int, bytes]]]:
    out: List[Tuple[int, Union[int, bytes]]] = []
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _varint(data, at)
            out.append((number, value))
        elif wire == 2:
            length, at = _varint(data, at)
            if at + length > len(data):
                raise DagPbError("truncated field")
            out.append((number, data[at : at + length]))
            at += length
        else:
            raise DagPbError(f"wire type {wire} is not dag-pb")
    return out


def link_cid(raw: bytes) -> str:
    """Return the CID text of a link's ``Hash`` (CIDv0 -> CIDv1 base32, CIDv1 as is).

    :param raw: the ``Hash`` bytes (34 for CIDv0, 36 for CIDv1).
    :return: the CIDv1 text of the linked block.
    :raises DagPbError: for anything but a sha2-256 CID of a dag-pb or raw block.
    """
    if raw[:2] == _SHA2_256 and len(raw) == 34:
        return digest_to_cid(raw[2:], DAG_PB)
    if raw[:1] == b"\x01" and raw[2:4] == _SHA2_256 and len(raw) == 36:
        codec = {0x70: DAG_PB, 0x55: RAW}.get(raw[1])
        if codec:
            return digest_to_cid(raw[4:], codec)
    raise DagPbError(f"link 0x{raw.hex()[:80]} is not a sha2-256 dag-pb/raw CID")


def decode_node(block: bytes) -> DagPbNode:
    """Decode a dag-pb block holding a UnixFS node.

    :param block: the block's bytes (already checked against its CID).
    :return: the node.
    :raises DagPbError: for malformed protobuf, a link that is not UTF-8 named or not a
        sha2-256 dag-pb/raw CID, or malformed UnixFS data.
    """
    links: List[Tuple[str, str]] = []
    unixfs = b""
    for number, value in _fields(block):
        if number == 2 and isinstance(value, bytes):
            link = dict(_fields(value))
            name, target = link.get(2, b""), link.get(1, b"")
            if not isinstance(name, bytes) or not isinstance(target, bytes):
                raise DagPbError("malformed link")
            try:
                text = name.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DagPbError("a link name is not UTF-8") from exc
            links.append((text, link_cid(target)))
        elif number == 1 and isinstance(value, bytes):
            unixfs = value
    fields = dict(_fields(unixfs))
    kind, data, size = fields.get(1, -1), fields.get(2, b""), fields.get(3, 0)
    if not isinstance(kind, int) or not isinstance(data, bytes):
        raise DagPbError("malformed UnixFS data")
    return DagPbNode(kind, data, size if isinstance(size, int) else 0, tuple(links))
