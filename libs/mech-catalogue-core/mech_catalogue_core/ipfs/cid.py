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

"""Content addressing: on-chain bytes32 digest <-> CID, and verification of fetched bytes.

Registries store only the 32-byte sha2-256 digest of a manifest's IPFS root block. The
ecosystem turns it into a CID by assuming CIDv1 + dag-pb + sha2-256, i.e. the base16
CID ``f01701220<digest>`` (mech-client, mech-interact). A manifest added with raw leaves
(``ipfs add --cid-version=1``, kubo's default for CIDv1) has a *raw* root instead
(``f01551220<digest>``, ``bafkrei...``), so fetchers must try both codecs.

CID parsing and multibase encoding use the ``py-cid`` package (PyPI, pinned), a
maintained implementation of the multiformats CID spec
(https://github.com/multiformats/cid). Re-hashing uses :mod:`.unixfs`. Supported: CIDv0
(``Qm...``, base58btc, dag-pb) and CIDv1 in any multibase py-cid reads (base32 ``b``/``B``,
base16 ``f``/``F``, base58btc ``z``, base36 ``k``/``K``...), also written as
``/ipfs/<cid>`` or ``ipfs://<cid>`` (:func:`strip_cid`); codecs dag-pb and raw, hash
sha2-256.
"""

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Optional, Tuple

import cid as pycid
from mech_catalogue_core.ipfs.unixfs import (
    CODEC_DAG_PB,
    CODEC_RAW,
    MAX_FILE_SIZE,
    root_digest,
    sha256,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.limits import (
    IPFS_CHUNK_SIZE,
)

DAG_PB = "dag-pb"
RAW = "raw"
CODEC_NAMES = {CODEC_DAG_PB: DAG_PB, CODEC_RAW: RAW}
SHA2_256_PREFIX = b"\x12\x20"
#: the base16 CIDv1 dag-pb sha2-256 prefix the ecosystem puts before on-chain digests
DAG_PB_HEX_PREFIX = "f01701220"
RAW_HEX_PREFIX = "f01551220"
_DIGEST = re.compile(
    r"(0x)?[0-9a-fA-F]{64}"
)  # used with fullmatch: `$` would allow a final newline
_MULTIHASH_HEX = re.compile(r"(0x)?1220[0-9a-fA-F]{64}")
#: a CIDv1 sha2-256 dag-pb or raw CID in lowercase base32 (``bafy...``/``bafk...``): the
#: form this module writes and gateways are asked for, read without py-cid (below)
_BASE32_CID = re.compile(r"b[a-z2-7]{58}")
#: the CIDv1 prefix bytes (version, codec) of the two codecs, and back
_CODEC_BYTES = {DAG_PB: b"\x01\x70", RAW: b"\x01\x55"}
_CODEC_OF_BYTES = {v: k for k, v in _CODEC_BYTES.items()}
#: Prefixes a CID is written with in URIs and paths (RFC 3986 scheme / gateway path).
CID_PREFIXES = ("ipfs://", "/ipfs/")

#: (cid_version, raw_leaves) of the ``ipfs add`` layouts tried by :func:`verify`, most
#: common first: kubo CIDv1 default, kubo CIDv0 default, CIDv1 --raw-leaves=false,
#: CIDv0 --raw-leaves.
LAYOUTS = ((1, True), (0, False), (1, False), (0, True))


class CidError(ValueError):
    """Raised for a string that is not a supported CID or digest; carries a Problem.

    :param problem: the problem (code INVALID_CID, INVALID_DIGEST or UNSUPPORTED_CID).
    """

    def __init__(self, problem: P.Problem) -> None:
        """Keep the problem; the exception's message is the problem's sentence.

        :param problem: the problem.
        """
        super().__init__(problem.message)
        self.problem = problem


def normalise_digest(digest: object) -> str:
    """Return ``0x`` + 64 lowercase hex.

    :param digest: bytes32 as 32 bytes or 64 hex chars (0x optional).
    :return: ``0x`` + 64 lowercase hex.
    :raises CidError: INVALID_DIGEST otherwise.
    """
    if isinstance(digest, (bytes, bytearray)) and len(digest) == 32:
        return "0x" + bytes(digest).hex()
    if isinstance(digest, str) and _DIGEST.fullmatch(digest):
        return "0x" + digest[-64:].lower()
    if isinstance(digest, str) and _MULTIHASH_HEX.fullmatch(digest):
        raise CidError(
            P.error(
                P.INVALID_DIGEST,
                f"{digest[:12]}... is a 34-byte sha2-256 multihash (prefix 1220 + 32 bytes), not "
                f"a bytes32 digest: drop the 1220 prefix, i.e. use 0x{digest[-64:].lower()}.",
            )
        )
    raise CidError(
        P.error(
            P.INVALID_DIGEST,
            f"The hash {str(digest)[:80]!r} is not a bytes32 (0x + 64 hex); check the registry value.",
        )
    )


def strip_cid(text: str) -> str:
    """The CID inside ``ipfs://<cid>`` or ``/ipfs/<cid>`` (a bare CID is returned as is).

    :param text: a CID in any of its textual forms.
    :return: the CID text alone (not validated; :func:`cid_to_digest` does that).
    """
    if not isinstance(text, str):
        return text
    for prefix in CID_PREFIXES:
        if text[: len(prefix)].lower() == prefix:
            return text[len(prefix) :].rstrip("/")
    return text


def looks_like_cid(text: str) -> bool:
    """Whether a string is a CID in one of the forms :func:`cid_to_digest` reads.

    :param text: any string.
    :return: True when it parses as a CID (any codec).
    """
    try:
        _parse(text)
    except CidError:
        return False
    return True


def _parse(text: str) -> "pycid.CIDv1 | pycid.CIDv0":
    if not isinstance(text, str) or not text or len(text) > 200:
        raise CidError(
            P.error(P.INVALID_CID, f"{str(text)[:80]!r} is not a CID string.")
        )
    original, text = text, strip_cid(text)
    if _MULTIHASH_HEX.fullmatch(text):
        normalise_digest(text)  # raises the "drop the 1220 prefix" message
    try:
        return pycid.from_string(text)
    except (ValueError, TypeError, KeyError) as exc:
        raise CidError(
            P.error(
                P.INVALID_CID,
                f"{original[:80]!r} is not a CID ({str(exc)[:80]}); give a CIDv0 (Qm...), a "
                "CIDv1 in base32/base58btc/base16/base36, optionally as ipfs://CID or "
                "/ipfs/CID, or a 0x + 64 hex digest.",
            )
        ) from exc


def _base32_v1(codec: str, digest: bytes) -> str:
    """Encode a CIDv1 sha2-256 in lowercase base32 without padding (multibase ``b``).

    The same string py-cid's ``make_cid(1, codec, multihash).encode("base32")`` gives
    (``mech_catalogue_core/tests/ipfs/test_cid_fast_paths.py`` beside this package checks it on
    random digests), with the
    C base32 codec of the standard library instead of py-cid's pure-Python one.

    :param codec: ``dag-pb`` or ``raw``.
    :param digest: the 32-byte sha2-256 digest.
    :return: ``bafy...`` (dag-pb) or ``bafk...`` (raw).
    """
    raw = _CODEC_BYTES[codec] + SHA2_256_PREFIX + digest
    return "b" + base64.b32encode(raw).decode("ascii").rstrip("=").lower()


def _base32_digest(text: object) -> Optional[Tuple[str, str]]:
    """Read a lowercase base32 CIDv1 sha2-256 dag-pb/raw CID without py-cid.

    :param text: a CID string (any form).
    :return: ``(codec, digest)`` when ``text`` is exactly such a CID in its canonical
        spelling (it re-encodes to itself), else None: every other form goes through
        py-cid, with its errors.
    """
    if not isinstance(text, str) or not _BASE32_CID.fullmatch(text):
        return None
    try:
        raw = base64.b32decode(text[1:].upper() + "======")
    except (binascii.Error, ValueError):
        return None
    codec = _CODEC_OF_BYTES.get(raw[:2])
    if codec is None or raw[2:4] != SHA2_256_PREFIX or len(raw) != 36:
        return None
    if _base32_v1(codec, raw[4:]) != text:
        return None
    return codec, "0x" + raw[4:].hex()


def cid_to_digest(text: str) -> Tuple[str, str]:
    """Split a CID into its codec and the bytes32 a registry would store.

    :param text: a CIDv0 or CIDv1 in any multibase py-cid reads, bare or as
        ``ipfs://<cid>`` / ``/ipfs/<cid>``.
    :return: (codec name ``dag-pb`` or ``raw``, digest as ``0x`` + 64 hex).
    :raises CidError: INVALID_CID when unreadable, UNSUPPORTED_CID for other codecs/hashes.
    """
    fast = _base32_digest(text)
    if fast is not None:
        return fast
    parsed = _parse(text)
    multihash = bytes(parsed.multihash)
    if (
        parsed.codec not in (DAG_PB, RAW)
        or multihash[:2] != SHA2_256_PREFIX
        or len(multihash) != 34
    ):
        raise CidError(
            P.error(
                P.UNSUPPORTED_CID,
                f"CID {strip_cid(text)[:80]} uses codec {parsed.codec} / multihash 0x{multihash[:2].hex()}; only dag-pb or raw "
                "with sha2-256 fit a bytes32 registry hash.",
            )
        )
    return parsed.codec, "0x" + multihash[2:].hex()


def digest_to_cid(
    digest: object, codec: str = DAG_PB, version: int = 1, base: str = "base32"
) -> str:
    """Build the CID for an on-chain digest.

    :param digest: bytes32 (bytes or hex).
    :param codec: ``dag-pb`` (what registries assume) or ``raw``.
    :param version: 1, or 0 (dag-pb only; always base58btc ``Qm...``).
    :param base: multibase for CIDv1: ``base32`` (``bafy...``/``bafk...``) or ``base16`` (``f01...``).
    :return: the CID string.
    :raises CidError: on a bad digest, or CIDv0 with raw / an unknown codec.
    """
    hex_digest = normalise_digest(digest)
    if (
        codec not in (DAG_PB, RAW)
        or (version == 0 and codec != DAG_PB)
        or version not in (0, 1)
    ):
        raise CidError(
            P.error(
                P.UNSUPPORTED_CID,
                f"No CIDv{version} exists for codec {codec!r}; use dag-pb or raw, CIDv1.",
            )
        )
    if version == 1 and base == "base32":
        return _base32_v1(codec, bytes.fromhex(hex_digest[2:]))
    multihash = SHA2_256_PREFIX + bytes.fromhex(hex_digest[2:])
    built = pycid.make_cid(1, codec, multihash)
    if version == 0:
        return str(built.to_v0())
    return built.encode(base).decode("ascii")


def to_v1(text: str, base: str = "base32") -> str:
    """Return the CIDv1 of the same content.

    :param text: a CID.
    :param base: multibase.
    :return: the CIDv1 of the same content.

    Raises :class:`CidError` as :func:`cid_to_digest` does.
    """
    codec, digest = cid_to_digest(text)
    return digest_to_cid(digest, codec, 1, base)


def to_v0(text: str) -> str:
    """Return its CIDv0 (``Qm...``).

    :param text: a dag-pb CID.
    :return: its CIDv0 (``Qm...``).

    Raises :class:`CidError` as :func:`cid_to_digest` does (UNSUPPORTED_CID for raw).
    """
    codec, digest = cid_to_digest(text)
    return digest_to_cid(digest, codec, 0)


def candidate_cids(digest: object) -> Tuple[str, str]:
    """The CIDs to try when fetching the manifest behind an on-chain digest.

    :param digest: bytes32.
    :return: (dag-pb CIDv1 base32, raw CIDv1 base32), in the order to try.

    Raises :class:`CidError` (INVALID_DIGEST) for a bad digest.
    """
    return digest_to_cid(digest, DAG_PB), digest_to_cid(digest, RAW)


@dataclass(frozen=True)
class Verification:
    """Outcome of :func:`verify`.

    :param ok: whether the bytes hash to the digest under some ``ipfs add`` layout.
    :param codec: root codec that matched (``dag-pb``/``raw``), "" when none.
    :param cid: CIDv1 base32 of the matched root, "" when none.
    :param layout: (cid_version, raw_leaves) that matched, None when none.
    :param problem: DIGEST_MISMATCH / INVALID_DIGEST / TOO_LARGE when not ok.
    """

    ok: bool
    codec: str = ""
    cid: str = ""
    layout: Optional[Tuple[int, bool]] = None
    problem: Optional[P.Problem] = None


def _dag_pb_layouts(size: int) -> Tuple[Tuple[int, bool], ...]:
    """The layouts of :data:`LAYOUTS` that can give distinct dag-pb roots for ``size`` bytes.

    One chunk or less: raw leaves make the root itself raw, and with no links the CID
    version changes nothing, so one dag-pb node is built and hashed instead of four.

    :param size: the file's size in bytes.
    :return: the layouts worth re-hashing, in :data:`LAYOUTS` order.
    """
    if size <= IPFS_CHUNK_SIZE:
        return tuple(layout for layout in LAYOUTS if not layout[1])[:1]
    return LAYOUTS


def verify(data: bytes, digest: object, codec: Optional[str] = None) -> Verification:
    """Check fetched bytes against an on-chain digest, re-hashing as kubo would have.

    Tries every layout in :data:`LAYOUTS` (and so both root codecs) unless ``codec``
    narrows it, e.g. to the codec of the CID the bytes were fetched under.

    :param data: the bytes a gateway or node returned.
    :param digest: the bytes32 from the registry (or from the CID fetched).
    :param codec: ``dag-pb``, ``raw`` or None for both.
    :return: the verification; never raises.
    """
    try:
        expected = bytes.fromhex(normalise_digest(digest)[2:])
    except CidError as exc:
        return Verification(False, problem=exc.problem)
    if len(data) > MAX_FILE_SIZE:
        return Verification(
            False,
            problem=P.error(
                P.TOO_LARGE,
                f"{len(data)} bytes exceed {MAX_FILE_SIZE}, the largest file verify() re-hashes.",
            ),
        )
    if codec in (None, RAW) and sha256(data) == expected:
        layout = (
            (1, True) if len(data) <= IPFS_CHUNK_SIZE else None
        )  # larger: `ipfs block put`
        return Verification(True, RAW, digest_to_cid(expected, RAW), layout)
    if codec in (None, DAG_PB):
        for layout in _dag_pb_layouts(len(data)):
            root_codec, root = root_digest(
                data, raw_leaves=layout[1], cid_version=layout[0]
            )
            if root_codec == CODEC_DAG_PB and root == expected:
                return Verification(
                    True, DAG_PB, digest_to_cid(expected, DAG_PB), layout
                )
    return Verification(
        False,
        problem=P.error(
            P.DIGEST_MISMATCH,
            f"The {len(data)} fetched bytes do not hash to {normalise_digest(digest)} under any ipfs add layout "
            "(dag-pb or raw, CIDv0/v1); discard them and fetch from another node.",
        ),
    )
