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

"""Pure publish steps (``mech_catalogue_core/publish/publish.py``): preparation, upload checks, decision, calls, events, Safe hash."""

import json
from typing import Any, Dict

import pytest
from eth_abi import decode as abi_decode
from eth_account.messages import encode_typed_data
from eth_utils import function_signature_to_4byte_selector, keccak
from hypothesis import given, settings
from hypothesis import strategies as st
from mech_catalogue_core.ipfs.cid import (
    RAW,
    digest_to_cid,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    REGISTRY_LEGACY_MECH,
    REGISTRY_OLAS_AGENT,
)
from mech_catalogue_core.publish.publish import (
    INVALID_MANIFEST,
    INVALID_TARGET,
    MECH_NOT_FOUND,
    NOT_AUTHORISED,
    READBACK_MISMATCH,
    UP_TO_DATE,
    UPDATE,
    UPDATE_EVENTS,
    UPLOAD_MISMATCH,
    PublishError,
    PublishTarget,
    SafeTransaction,
    authorise,
    check_upload,
    decide,
    prepare_manifest,
    safe_tx_hash,
    update_call,
    update_event_digest,
)
from mech_catalogue_core.tests.js_engine import survives_javascript

REGISTRY = "0x" + "11" * 20
MANAGER = "0x" + "22" * 20
OWNER = "0x" + "33" * 20
ECHO_METADATA: Dict[str, Any] = {
    "name": "echo",
    "description": "Echo a prompt.",
    "input": {"type": "text", "description": "the prompt"},
    "output": {"type": "object", "description": "the echo"},
}
DOCUMENT: Dict[str, Any] = {
    "name": "Echo",
    "description": "echoes",
    "tools": ["echo"],
    "toolMetadata": {"echo": ECHO_METADATA},
}


def target(kind: str = REGISTRY_LEGACY_MECH, mech_id: int = 7) -> PublishTarget:
    """Build a target.

    :param kind: registry kind.
    :param mech_id: id.
    :return: the target.
    """
    return PublishTarget(kind, REGISTRY, mech_id, MANAGER)


def codes(error: PublishError) -> list:
    """List problem codes.

    :param error: the error.
    :return: its problem codes.
    """
    return [p.code for p in error.problems]


def test_prepare_is_canonical_and_matches_kubo(kubo) -> None:
    """Key order does not change the bytes; the digest is kubo's for CIDv1 dag-pb leaves."""
    prepared = prepare_manifest(DOCUMENT)
    reordered = json.loads(json.dumps(DOCUMENT, sort_keys=True))
    assert (
        prepare_manifest(dict(reversed(list(reordered.items())))).data == prepared.data
    )
    assert prepared.tools == ("echo",)
    assert (
        kubo.cid(prepared.data, "--cid-version=1", "--raw-leaves=false") == prepared.cid
    )


def test_prepare_large_manifest_multi_chunk_matches_kubo(kubo) -> None:
    """A manifest over one 256 KiB chunk (a multi-block UnixFS file) still gets kubo's digest."""
    entry = ECHO_METADATA
    names = [f"tool-{i}" for i in range(40)]
    document = {
        "tools": names,
        "toolMetadata": {
            n: {**entry, "name": n, "description": n + " " + "x" * 9000} for n in names
        },
    }
    prepared = prepare_manifest(document)
    assert len(prepared.data) > 262144
    assert (
        kubo.cid(prepared.data, "--cid-version=1", "--raw-leaves=false") == prepared.cid
    )


@pytest.mark.parametrize(
    "document,code",
    [
        ({"name": "x"}, P.SCHEMA_VIOLATION),
        ({"tools": []}, P.NO_TOOLS),
        ([], P.NOT_AN_OBJECT),
        (
            {"tools": ["a"], "toolMetadata": {"a": {"description": 1}}},
            P.SCHEMA_VIOLATION,
        ),
    ],
)
def test_prepare_refuses_invalid(document, code) -> None:
    """Invalid manifests raise INVALID_MANIFEST followed by the readers' problems."""
    with pytest.raises(PublishError) as caught:
        prepare_manifest(document)
    assert caught.value.code == INVALID_MANIFEST
    assert code in codes(caught.value)


def test_prepare_refuses_non_i_json() -> None:
    """An integer beyond 2**53 cannot be published (readers reject it)."""
    with pytest.raises(PublishError) as caught:
        prepare_manifest({**DOCUMENT, "size": 2**60})
    assert caught.value.code == INVALID_MANIFEST


def test_check_upload() -> None:
    """The node's CID and the bytes read back must both be the prepared ones."""
    prepared = prepare_manifest(DOCUMENT)
    assert check_upload(prepared, prepared.cid, prepared.data) == prepared.digest
    for cid in (
        digest_to_cid(prepared.digest, RAW),
        "not-a-cid",
        digest_to_cid("0x" + "ab" * 32),
    ):
        with pytest.raises(PublishError) as caught:
            check_upload(prepared, cid, prepared.data)
        assert caught.value.code == UPLOAD_MISMATCH
    with pytest.raises(PublishError) as caught:
        check_upload(prepared, prepared.cid, prepared.data + b" ")
    assert caught.value.code == READBACK_MISMATCH


def test_decide() -> None:
    """Equal digests (any case) mean no transaction."""
    digest = "0x" + "ab" * 32
    assert decide(digest.upper().replace("0X", "0x"), digest) == UP_TO_DATE
    assert decide("", digest) == UPDATE
    assert decide("0x" + "00" * 32, digest) == UPDATE


@pytest.mark.parametrize(
    "kind,to,signature,expected",
    [
        (REGISTRY_OLAS_AGENT, MANAGER, "updateHash(uint8,uint256,bytes32)", [1, 7]),
        (REGISTRY_LEGACY_MECH, REGISTRY, "updateHash(uint256,bytes32)", [7]),
        (REGISTRY_COMPLEMENTARY_SERVICE, REGISTRY, "changeHash(uint256,bytes32)", [7]),
    ],
)
def test_update_call(kind, to, signature, expected) -> None:
    """Each registry kind gets its own function, target and arguments."""
    digest = "0x" + "cd" * 32
    call = update_call(target(kind), digest)
    assert call.target == to and call.signature == signature
    assert call.data[:4] == function_signature_to_4byte_selector(signature)
    types = signature[signature.index("(") + 1 : -1].split(",")
    values = abi_decode(types, call.data[4:])
    assert list(values[:-1]) == expected and values[-1] == bytes.fromhex(digest[2:])


def test_target_validation() -> None:
    """Bad kinds, ids and addresses are refused with INVALID_TARGET."""
    for args in (
        ("nope", REGISTRY, 1, MANAGER),
        (REGISTRY_LEGACY_MECH, REGISTRY, 0, ""),
        (REGISTRY_LEGACY_MECH, "0x12", 1, ""),
        (REGISTRY_OLAS_AGENT, REGISTRY, 1, ""),
        (REGISTRY_LEGACY_MECH, REGISTRY, True, ""),
    ):
        with pytest.raises(PublishError) as caught:
            PublishTarget(*args)
        assert caught.value.code == INVALID_TARGET


def test_authorise() -> None:
    """Missing id, wrong owner, not able to change: refused; the owner passes."""
    legacy = target()
    authorise(legacy, OWNER, True, OWNER.upper().replace("0X", "0x"))
    for args, code in (
        ((legacy, OWNER, False, None), MECH_NOT_FOUND),
        ((legacy, OWNER, True, MANAGER), NOT_AUTHORISED),
        ((target(REGISTRY_COMPLEMENTARY_SERVICE), OWNER, True, False), NOT_AUTHORISED),
    ):
        with pytest.raises(PublishError) as caught:
            authorise(*args)
        assert caught.value.code == code and "7" in str(caught.value)
    authorise(target(REGISTRY_COMPLEMENTARY_SERVICE), OWNER, True, True)


def _log(
    kind: str,
    mech_id: int,
    digest: bytes,
    address: str = REGISTRY,
    indexed: bool = True,
) -> dict:
    topic0 = keccak(text=UPDATE_EVENTS[kind])
    word = mech_id.to_bytes(32, "big")
    if indexed:
        return {"address": address, "topics": [topic0, word], "data": digest}
    middle = (1).to_bytes(32, "big") if kind == REGISTRY_OLAS_AGENT else b""
    return {
        "address": address,
        "topics": ["0x" + topic0.hex()],
        "data": "0x" + (word + middle + digest).hex(),
    }


@pytest.mark.parametrize(
    "kind", [REGISTRY_OLAS_AGENT, REGISTRY_LEGACY_MECH, REGISTRY_COMPLEMENTARY_SERVICE]
)
def test_update_event_digest(kind) -> None:
    """The event of the right registry and id is found, indexed or not; others are ignored."""
    digest = b"\xee" * 32
    assert (
        update_event_digest(target(kind), [_log(kind, 7, digest, indexed=False)])
        == "0x" + digest.hex()
    )
    assert (
        update_event_digest(target(kind), [_log(kind, 7, digest)])
        == "0x" + digest.hex()
    )
    assert (
        update_event_digest(
            target(kind), [_log(kind, 8, digest), _log(kind, 7, digest, OWNER)]
        )
        is None
    )
    other = (
        REGISTRY_LEGACY_MECH
        if kind != REGISTRY_LEGACY_MECH
        else REGISTRY_COMPLEMENTARY_SERVICE
    )
    assert update_event_digest(target(kind), [_log(other, 7, digest)]) is None


def test_safe_transaction_wei_amounts_reach_javascript_exactly() -> None:
    """Issue #34 item 11: ``value`` and ``gasPrice`` (wei) are decimal strings, digits kept."""
    tx = SafeTransaction(
        safe=MANAGER,
        to=REGISTRY,
        data=b"\x01",
        nonce=3,
        value=3 * 10**18 + 1,
        gas_price=2**64 + 7,
    )
    written = tx.to_dict(100)
    assert (written["value"], written["gasPrice"]) == (
        str(3 * 10**18 + 1),
        str(2**64 + 7),
    )
    assert survives_javascript(written)
    assert not survives_javascript({"value": tx.value})  # as a number it would not


@settings(max_examples=30, deadline=None)
@given(
    nonce=st.integers(0, 2**64),
    data=st.binary(max_size=100),
    chain_id=st.integers(1, 2**32),
    value=st.integers(0, 2**96),
)
def test_safe_tx_hash_matches_eip712_library(nonce, data, chain_id, value) -> None:
    """Our Safe hash equals eth_account's independent EIP-712 encoding of the SafeTx struct."""
    tx = SafeTransaction(safe=MANAGER, to=REGISTRY, data=data, nonce=nonce, value=value)
    message = encode_typed_data(
        full_message={
            "types": {
                "EIP712Domain": [
                    {"name": "chainId", "type": "uint256"},
                    {"name": "verifyingContract", "type": "address"},
                ],
                "SafeTx": [
                    {"name": n, "type": t}
                    for n, t in (
                        ("to", "address"),
                        ("value", "uint256"),
                        ("data", "bytes"),
                        ("operation", "uint8"),
                        ("safeTxGas", "uint256"),
                        ("baseGas", "uint256"),
                        ("gasPrice", "uint256"),
                        ("gasToken", "address"),
                        ("refundReceiver", "address"),
                        ("nonce", "uint256"),
                    )
                ],
            },
            "primaryType": "SafeTx",
            "domain": {"chainId": chain_id, "verifyingContract": MANAGER},
            "message": {
                "to": REGISTRY,
                "value": value,
                "data": data,
                "operation": 0,
                "safeTxGas": 0,
                "baseGas": 0,
                "gasPrice": 0,
                "gasToken": "0x" + "00" * 20,
                "refundReceiver": "0x" + "00" * 20,
                "nonce": nonce,
            },
        }
    )
    expected = keccak(b"\x19" + message.version + message.header + message.body)
    assert safe_tx_hash(tx, chain_id) == "0x" + expected.hex()
    assert tx.to_dict(chain_id)["safeTxHash"] == safe_tx_hash(tx, chain_id)
