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

"""Publish steps that mutation testing found unpinned: read calls, the Safe's execTransaction, events, messages.

The selectors are written here from the contracts' interfaces (ERC-721 ``ownerOf``, the
registries' ``exists``, ComplementaryServiceMetadata's ``isAbleChangeHash``, Safe 1.3.0's
``execTransaction``), so a call built with another signature fails; messages are checked
for what docs/publish.md promises a user reads (what failed, that nothing was sent).
"""

import pytest
from eth_abi import decode as abi_decode
from eth_abi import encode as abi_encode
from eth_utils import keccak
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    REGISTRY_LEGACY_MECH,
)
from mech_catalogue_core.publish.publish import (
    INVALID_TARGET,
    READBACK_MISMATCH,
    RPC_UNAVAILABLE,
    UPDATE_EVENTS,
    UPLOAD_MISMATCH,
    PublishError,
    PublishTarget,
    SafeTransaction,
    authorise,
    can_change_call,
    check_address,
    check_read_back,
    check_upload,
    decode_single,
    exec_transaction_call,
    exists_call,
    owner_call,
    prepare_manifest,
    update_event_digest,
)

REGISTRY = "0x" + "11" * 20
SERVICE_REGISTRY = "0x" + "44" * 20
ACCOUNT = "0x" + "33" * 20
DOCUMENT = {
    "name": "Echo",
    "description": "echoes",
    "tools": ["echo"],
    "toolMetadata": {
        "echo": {
            "name": "echo",
            "description": "Echo a prompt.",
            "input": {"type": "text", "description": "the prompt"},
            "output": {"type": "object", "description": "the echo"},
        }
    },
}


def test_read_calls_use_the_contracts_selectors() -> None:
    """The reads use the registries' own selectors and arguments (ownerOf, exists, isAbleChangeHash)."""
    legacy = PublishTarget(REGISTRY_LEGACY_MECH, REGISTRY, 9)
    csm = PublishTarget(REGISTRY_COMPLEMENTARY_SERVICE, REGISTRY, 5)
    owner = owner_call(legacy)
    assert owner.data[:4].hex() == "6352211e"  # ERC-721 ownerOf(uint256)
    assert owner.target == REGISTRY and abi_decode(["uint256"], owner.data[4:]) == (9,)
    exists = exists_call(legacy)
    assert exists.data[:4] == keccak(text="exists(uint256)")[:4]
    assert exists.target == REGISTRY and abi_decode(["uint256"], exists.data[4:]) == (
        9,
    )
    on_service_registry = exists_call(csm, SERVICE_REGISTRY)
    assert on_service_registry.target == SERVICE_REGISTRY
    able = can_change_call(csm, ACCOUNT)
    assert able.data[:4] == keccak(text="isAbleChangeHash(address,uint256)")[:4]
    assert abi_decode(["address", "uint256"], able.data[4:]) == (ACCOUNT, 5)


def test_exec_transaction_is_safe_1_3_0_exec_transaction() -> None:
    """The call data is execTransaction (selector 0x6a761202) with every field in order."""
    tx = SafeTransaction(
        safe="0x" + "55" * 20,
        to=REGISTRY,
        data=b"\x01\x02",
        nonce=3,
        value=4,
        operation=1,
        safe_tx_gas=5,
        base_gas=6,
        gas_price=7,
        gas_token="0x" + "66" * 20,
        refund_receiver="0x" + "77" * 20,
    )
    signatures = b"\x99" * 65
    call = exec_transaction_call(tx, signatures)
    assert call.target == tx.safe
    assert call.data[:4].hex() == "6a761202"
    types = [
        "address",
        "uint256",
        "bytes",
        "uint8",
        "uint256",
        "uint256",
        "uint256",
        "address",
        "address",
        "bytes",
    ]
    assert abi_decode(types, call.data[4:]) == (
        REGISTRY,
        4,
        b"\x01\x02",
        1,
        5,
        6,
        7,
        "0x" + "66" * 20,
        "0x" + "77" * 20,
        signatures,
    )


def _event(target: PublishTarget, mech_id: int, digest: bytes, **overrides):
    log = {
        "address": target.registry,
        "topics": ["0x" + keccak(text=UPDATE_EVENTS[target.kind]).hex()],
        "data": abi_encode(["uint256", "bytes32"], [mech_id, digest]),
    }
    log.update(overrides)
    return log


def test_the_update_event_is_found_after_other_logs() -> None:
    """The target's event is found after logs that are not it.

    Logs of other contracts, other events, other ids and logs missing fields come first:
    each is skipped (none raises).
    """
    target = PublishTarget(REGISTRY_LEGACY_MECH, REGISTRY, 9)
    digest = b"\xab" * 32
    logs = [
        _event(target, 9, b"\x01" * 32, address="0x" + "99" * 20),  # another contract
        _event(target, 9, b"\x02" * 32, topics=["0x" + "00" * 32]),  # another event
        _event(target, 8, b"\x03" * 32),  # another id
        {"address": REGISTRY, "data": b""},  # no topics
        {"topics": [], "data": b""},  # no address
        {  # the event without data
            "address": REGISTRY,
            "topics": ["0x" + keccak(text=UPDATE_EVENTS[target.kind]).hex()],
        },
        _event(target, 9, digest),
    ]
    assert update_event_digest(target, logs) == "0x" + digest.hex()
    assert update_event_digest(target, logs[:-1]) is None


def test_check_address_checks_the_form() -> None:
    """0x + 40 hex digits (any case, zero included) passes; non-hex of the right length fails."""
    check_address("0x" + "00" * 20, "registry")
    check_address("0x" + "aB" * 20, "registry")
    for bad in ("0x" + "zz" * 20, "0x" + "11" * 19, "11" * 21, "", None):
        with pytest.raises(PublishError) as raised:
            check_address(bad, "registry")  # type: ignore[arg-type]
        assert raised.value.code == INVALID_TARGET
        assert f"The registry address {bad!r} is not a 0x 20-byte address." == str(
            raised.value
        )


def test_error_messages_say_what_failed_and_that_nothing_was_sent() -> None:
    """Upload and read-back refusals, a bad read, an unauthorised sender: the sentences."""
    prepared = prepare_manifest(DOCUMENT)
    with pytest.raises(PublishError) as raised:
        check_upload(prepared, "not-a-cid", prepared.data)
    assert raised.value.code == UPLOAD_MISMATCH
    assert "The IPFS node answered the upload with 'not-a-cid', not a CID (" in str(
        raised.value
    )
    with pytest.raises(PublishError) as raised:
        check_upload(
            prepared,
            "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy",
            prepared.data,
        )
    assert raised.value.code == UPLOAD_MISMATCH
    assert "Nothing was sent on chain." in str(raised.value)
    with pytest.raises(PublishError) as raised:
        check_read_back(prepared, prepared.data + b" ")
    assert raised.value.code == READBACK_MISMATCH
    assert str(raised.value).endswith(
        "uploaded (or do not re-hash to its digest); the node cannot be trusted. "
        "Nothing was sent on chain."
    )
    with pytest.raises(PublishError) as raised:
        decode_single("address", b"\x01")
    assert raised.value.code == RPC_UNAVAILABLE
    assert str(raised.value) == (
        "A registry read returned 1 bytes that are not one address; check the address."
    )
    csm = PublishTarget(REGISTRY_COMPLEMENTARY_SERVICE, REGISTRY, 5)
    with pytest.raises(PublishError) as raised:
        authorise(csm, ACCOUNT, True, False)
    assert str(raised.value).endswith("(isAbleChangeHash is false). Nothing was sent.")
    legacy = PublishTarget(REGISTRY_LEGACY_MECH, REGISTRY, 9)
    with pytest.raises(PublishError) as raised:
        authorise(legacy, ACCOUNT, True, "0x" + "88" * 20)
    assert str(raised.value).endswith("use the owner's key. Nothing was sent.")


def test_a_publish_error_joins_its_problems() -> None:
    """A code alone carries its sentence; several problems are joined with '; '."""
    assert str(PublishError(INVALID_TARGET)) == ""
    assert str(PublishError(INVALID_TARGET, "one")) == "one"
    both = PublishError(
        list(PublishError(INVALID_TARGET, "one").problems)
        + list(PublishError(UPLOAD_MISMATCH, "two").problems)
    )
    assert str(both) == "one; two" and both.code == INVALID_TARGET


def test_a_value_that_is_not_i_json_is_named_in_120_characters() -> None:
    """An integer past I-JSON: the refusal quotes the serialiser's reason, cut at 120 characters."""
    with pytest.raises(PublishError) as raised:
        prepare_manifest({"n": 10**200})
    text = str(raised.value)
    reason = text.split("canonically (", 1)[1].split("); fix the value.", 1)[0]
    assert reason == str(10**200)[:120]


def test_no_tools_is_refused_with_its_sentence() -> None:
    """A manifest that validates but offers no tool: NO_TOOLS, saying nothing is published."""
    with pytest.raises(PublishError) as raised:
        prepare_manifest({"name": "x", "description": "y", "tools": []})
    assert [p.code for p in raised.value.problems][1:] == ["no_tools"]
    assert raised.value.problems[1].message == (
        "The manifest yields no tool readers could call; refusing to publish it."
    )


def test_warnings_are_kept_and_errors_are_not_warnings() -> None:
    """A publishable manifest with warnings carries exactly its warning-level problems."""
    document = {
        "name": "Echo",
        "description": "echoes",
        "tools": ["echo", "ghost"],
        "toolMetadata": DOCUMENT["toolMetadata"],
    }
    prepared = prepare_manifest(document)
    assert prepared.tools == ("echo", "ghost")
    codes = sorted(str(w.code) for w in prepared.warnings)
    assert codes == ["tool_without_metadata", "untyped_input"]
    assert not any(w.is_error for w in prepared.warnings)


def test_an_event_without_data_carries_no_digest() -> None:
    """The target's event with the id indexed but no data field: no digest is read from it."""
    target = PublishTarget(REGISTRY_LEGACY_MECH, REGISTRY, 9)
    log = {
        "address": REGISTRY,
        "topics": [
            "0x" + keccak(text=UPDATE_EVENTS[target.kind]).hex(),
            "0x" + (9).to_bytes(32, "big").hex(),
        ],
    }
    assert update_event_digest(target, [log]) is None
