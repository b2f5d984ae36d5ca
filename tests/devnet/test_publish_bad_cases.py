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

"""Every bad case of publishing gives its error code and changes nothing on chain.

For each case the test records the registry's digest and the sender's nonce before, and
checks both after: no transaction was sent, the digest is the same. Where a mock is used
it is because the failure cannot be produced by the real component on demand; each says so.
"""

from typing import Tuple

import pytest
from mech_catalogue_core.publish.publish import (
    INVALID_MANIFEST,
    IPFS_UNAVAILABLE,
    MECH_NOT_FOUND,
    NOT_AUTHORISED,
    NOT_CONFIRMED,
    READBACK_MISMATCH,
    RPC_UNAVAILABLE,
    UP_TO_DATE,
    UPDATE,
    PublishError,
)
from web3 import Web3

from mech_catalogue_cli.publisher.ipfs import IpfsApi
from scripts.devnet.processes import free_port
from tests.devnet.publish_helpers import (
    CountingIpfs,
    FailingProvider,
    account,
    deployed_service,
    generated_manifest,
    nonce,
    publisher,
    seeded,
    target_for,
    wait_mined,
)

KEYS = ["olas", "legacy", "service"]


def _state(devnet, mech) -> Tuple[str, int]:
    return publisher(devnet).read_digest(mech.target), nonce(devnet, mech.owner.address)


def _fails(code: str, run) -> PublishError:
    with pytest.raises(PublishError) as caught:
        run()
    assert caught.value.code == code, caught.value.problems
    assert caught.value.problems[0].message
    return caught.value


@pytest.mark.parametrize("key", KEYS)
def test_non_owner_key_is_refused(chain_snapshot, key) -> None:
    """A stranger's key: refused before upload with the owner named; nothing sent."""
    devnet = chain_snapshot
    mech = seeded(devnet, key)
    stranger = account(devnet, "stranger")
    before, stranger_nonce = _state(devnet, mech), nonce(devnet, stranger.address)
    ipfs = CountingIpfs(devnet.info.ipfs_api_url)
    error = _fails(
        NOT_AUTHORISED,
        lambda: publisher(devnet, ipfs=ipfs).publish(
            generated_manifest("stranger"), mech.target, account=stranger
        ),
    )
    assert not ipfs.adds  # refused before the upload (docs/publish.md step 3)
    assert stranger.address in str(error)
    assert (
        _state(devnet, mech) == before
        and nonce(devnet, stranger.address) == stranger_nonce
    )


def test_service_owner_key_refused_once_deployed(chain_snapshot) -> None:
    """The owner of a deployed service may no longer changeHash: only its Safe may."""
    devnet = chain_snapshot
    mech, safe, _ = deployed_service(devnet)
    before = _state(devnet, mech)
    ipfs = CountingIpfs(devnet.info.ipfs_api_url)
    error = _fails(
        NOT_AUTHORISED,
        lambda: publisher(devnet, ipfs=ipfs).publish(
            generated_manifest("owner"), mech.target, account=mech.owner
        ),
    )
    assert not ipfs.adds
    assert "multisig" in str(error) and safe in str(error)
    assert _state(devnet, mech) == before


def test_non_owner_safe_is_refused(chain_snapshot) -> None:
    """A Safe that is not the service's multisig is refused (isAbleChangeHash false)."""
    devnet = chain_snapshot
    _, safe, _ = deployed_service(devnet)
    mech = seeded(devnet, "service")
    before = _state(devnet, mech)
    ipfs = CountingIpfs(devnet.info.ipfs_api_url)
    _fails(
        NOT_AUTHORISED,
        lambda: publisher(devnet, ipfs=ipfs).publish(
            generated_manifest("other safe"), mech.target, safe=safe
        ),
    )
    assert not ipfs.adds
    assert _state(devnet, mech) == before


@pytest.mark.parametrize(
    "document",
    [
        {"name": "no tools"},
        {"tools": ["a"], "toolMetadata": {"a": {"name": "a", "description": 3}}},
        {"tools": [], "toolMetadata": {}},
        {"tools": ["a"], "value": 2**60},
    ],
    ids=["no-tools", "wrong-type", "empty", "not-i-json"],
)
def test_invalid_manifest_is_refused(chain_snapshot, document) -> None:
    """An invalid manifest is refused with its problems; nothing uploaded or sent."""
    devnet = chain_snapshot
    mech = seeded(devnet, "legacy")
    before = _state(devnet, mech)
    ipfs = CountingIpfs(devnet.info.ipfs_api_url)
    error = _fails(
        INVALID_MANIFEST,
        lambda: publisher(devnet, ipfs=ipfs).publish(
            document, mech.target, account=mech.owner
        ),
    )
    assert not ipfs.adds
    assert len(error.problems) >= 1
    assert _state(devnet, mech) == before


def test_ipfs_node_down(chain_snapshot) -> None:
    """No IPFS node: IPFS_UNAVAILABLE naming the node; nothing sent."""
    devnet = chain_snapshot
    mech = seeded(devnet, "olas")
    before = _state(devnet, mech)
    dead = IpfsApi(f"http://127.0.0.2:{free_port('127.0.0.2')}", timeout=2)
    error = _fails(
        IPFS_UNAVAILABLE,
        lambda: publisher(devnet, ipfs=dead).publish(
            generated_manifest("down"), mech.target, account=mech.owner
        ),
    )
    assert dead.api_url in str(error)
    assert _state(devnet, mech) == before


class TamperingIpfs(IpfsApi):
    """Mock of a lying node: kubo stores the upload for real, then the read-back is altered.

    Kubo itself never serves other bytes than it stores, so a dishonest node or gateway
    in between is simulated by flipping one byte of what kubo returned.
    """

    def cat(self, cid: str) -> bytes:
        """Return kubo's bytes with one byte changed.

        :param cid: the CID.
        :return: the tampered bytes.
        """
        data = bytearray(super().cat(cid))
        data[len(data) // 2] ^= 0x01
        return bytes(data)


def test_read_back_mismatch(chain_snapshot) -> None:
    """Bytes read back that are not the upload: READBACK_MISMATCH; nothing sent."""
    devnet = chain_snapshot
    mech = seeded(devnet, "service")
    before = _state(devnet, mech)
    liar = TamperingIpfs(devnet.info.ipfs_api_url)
    _fails(
        READBACK_MISMATCH,
        lambda: publisher(devnet, ipfs=liar).publish(
            generated_manifest("liar"), mech.target, account=mech.owner
        ),
    )
    assert _state(devnet, mech) == before


@pytest.mark.parametrize("key", KEYS)
def test_unknown_registry_id(chain_snapshot, key) -> None:
    """An id the registry never minted: MECH_NOT_FOUND naming it; nothing sent."""
    devnet = chain_snapshot
    mech = seeded(devnet, key)
    missing = target_for(devnet, mech.target.kind, 999)
    owner_nonce = nonce(devnet, mech.owner.address)
    ipfs = CountingIpfs(devnet.info.ipfs_api_url)
    error = _fails(
        MECH_NOT_FOUND,
        lambda: publisher(devnet, ipfs=ipfs).publish(
            generated_manifest("missing"), missing, account=mech.owner
        ),
    )
    assert not ipfs.adds
    assert "999" in str(error)
    assert nonce(devnet, mech.owner.address) == owner_nonce


def test_rpc_fails_after_upload_then_retry_sends_once(chain_snapshot) -> None:
    """The RPC dies when the transaction is to be sent (after the upload): nothing changes; the retry sends one."""
    devnet = chain_snapshot
    mech = seeded(devnet, "legacy")
    before = _state(devnet, mech)
    provider = FailingProvider(devnet.info.rpc_url, ("eth_sendRawTransaction",))
    document = generated_manifest("rpc down")
    error = _fails(
        RPC_UNAVAILABLE,
        lambda: publisher(devnet, w3=Web3(provider)).publish(
            document, mech.target, account=mech.owner
        ),
    )
    assert "again" in str(error)
    assert _state(devnet, mech) == before
    report = publisher(devnet).publish(document, mech.target, account=mech.owner)
    assert report.decision == UPDATE and report.sent
    assert nonce(devnet, mech.owner.address) == before[1] + 1


def test_rpc_lost_after_send_retry_sends_nothing(chain_snapshot) -> None:
    """The RPC dies right after the transaction went out: NOT_CONFIRMED; the retry sees the digest and sends nothing."""
    devnet = chain_snapshot
    mech = seeded(devnet, "olas")
    before = _state(devnet, mech)
    provider = FailingProvider(devnet.info.rpc_url, (), after_send=True)
    document = generated_manifest("lost receipt")
    _fails(
        NOT_CONFIRMED,
        lambda: publisher(devnet, w3=Web3(provider)).publish(
            document, mech.target, account=mech.owner
        ),
    )
    # the receipt the publisher could not read: the nonce is read once it is mined
    assert wait_mined(devnet, provider.sent_hash)["status"] == 1
    landed = nonce(devnet, mech.owner.address)
    assert landed == before[1] + 1
    report = publisher(devnet).publish(document, mech.target, account=mech.owner)
    assert report.decision == UP_TO_DATE and not report.sent
    assert nonce(devnet, mech.owner.address) == landed
    assert report.onchain_before == report.digest


def test_dry_run_changes_nothing(chain_snapshot) -> None:
    """--dry-run: decision and call reported; no upload, no transaction."""
    devnet = chain_snapshot
    mech = seeded(devnet, "olas")
    before = _state(devnet, mech)
    ipfs = CountingIpfs(devnet.info.ipfs_api_url)
    report = publisher(devnet, ipfs=ipfs).publish(
        generated_manifest("dry"), mech.target, account=mech.owner, dry_run=True
    )
    assert not ipfs.adds
    assert (
        report.decision == UPDATE
        and report.call
        and not report.sent
        and not report.uploaded
    )
    assert _state(devnet, mech) == before
