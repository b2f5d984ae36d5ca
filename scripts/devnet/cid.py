"""Just enough CIDv1 decoding for the devnet: base32 CID text -> (codec, sha2-256 digest).

Format source: the multiformats CID spec (github.com/multiformats/cid): a CIDv1 is
``<multibase prefix><varint version=1><varint codec><multihash>``, the multihash being
``<varint 0x12 sha2-256><varint 32><32 digest bytes>``. Kubo prints CIDv1 in base32
(multibase prefix ``b``, lower case, no padding).
"""

import base64
import binascii
from typing import Tuple

DAG_PB = 0x70
RAW = 0x55
SHA2_256 = 0x12

# The prefix the registries put before the on-chain digest in tokenURI:
# base16 multibase "f", CIDv1 01, dag-pb 70, sha2-256 12, length 20
# (autonolas-registries GenericRegistry.CID_PREFIX).
DAG_PB_HEX_PREFIX = "f01701220"


class CidError(ValueError):
    """A CID this module cannot decode."""


def decode_cid_v1(cid: str) -> Tuple[int, bytes]:
    """Split a base32 CIDv1 into its codec and its sha2-256 digest.

    :param cid: e.g. ``bafybei...`` (dag-pb) or ``bafkrei...`` (raw).
    :return: ``(codec, digest)``: codec is 0x70 (dag-pb) or 0x55 (raw); digest is 32 bytes.
    :raises CidError: for another multibase, CID version, hash function or length.
    """
    if not cid.startswith("b"):
        raise CidError(f"CID {cid!r} is not base32 CIDv1 (multibase prefix 'b')")
    body = cid[1:].upper()
    try:
        raw = base64.b32decode(body + "=" * (-len(body) % 8))
    except (binascii.Error, ValueError) as error:
        raise CidError(f"CID {cid!r} is not valid base32: {error}") from error
    if len(raw) != 36 or raw[0] != 1 or raw[2] != SHA2_256 or raw[3] != 32:
        raise CidError(f"CID {cid!r} is not CIDv1 with a 32-byte sha2-256 multihash")
    if raw[1] not in (DAG_PB, RAW):
        raise CidError(
            f"CID {cid!r} has codec 0x{raw[1]:x}, expected dag-pb 0x70 or raw 0x55"
        )
    return raw[1], raw[4:]


def encode_cid_v1(codec: int, digest: bytes) -> str:
    """Build the base32 CIDv1 text for a sha2-256 ``digest``.

    :param codec: 0x70 (dag-pb) or 0x55 (raw).
    :param digest: the 32 digest bytes.
    :return: the CID text, e.g. ``bafybei...``.
    :raises CidError: when the digest is not 32 bytes.
    """
    if len(digest) != 32:
        raise CidError(f"digest must be 32 bytes, got {len(digest)}")
    raw = bytes([1, codec, SHA2_256, 32]) + digest
    return "b" + base64.b32encode(raw).decode().lower().rstrip("=")
