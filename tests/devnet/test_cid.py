"""The devnet's small CIDv1 codec."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scripts.devnet.cid import DAG_PB, RAW, CidError, decode_cid_v1, encode_cid_v1


@given(st.sampled_from([DAG_PB, RAW]), st.binary(min_size=32, max_size=32))
def test_round_trip(codec, digest):
    """Encoding then decoding gives back codec and digest."""
    assert decode_cid_v1(encode_cid_v1(codec, digest)) == (codec, digest)


def test_known_prefixes():
    """dag-pb sha2-256 CIDs start bafybei, raw ones bafkrei."""
    assert encode_cid_v1(DAG_PB, b"\x00" * 32).startswith("bafybei")
    assert encode_cid_v1(RAW, b"\x00" * 32).startswith("bafkrei")


@pytest.mark.parametrize(
    "text",
    [
        "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG",  # CIDv0 base58
        "f01701220" + "00" * 32,  # base16
        encode_cid_v1(DAG_PB, b"\x00" * 32)[:-4],  # truncated
        "b" + encode_cid_v1(0x71, b"\x00" * 32)[1:],  # dag-cbor codec
    ],
)
def test_rejects_what_it_cannot_decode(text):
    """Other bases, versions, truncations and codecs raise CidError naming the CID."""
    with pytest.raises(CidError, match="CID"):
        decode_cid_v1(text)


def test_rejects_a_short_digest():
    """Encoding needs a 32-byte digest."""
    with pytest.raises(CidError, match="32 bytes"):
        encode_cid_v1(DAG_PB, b"\x00" * 31)
