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

"""Pin how kubo turns bytes into a CID and a digest (the registries store only the digest)."""

import hashlib
from urllib.parse import urlparse

import pytest
import requests
from mech_catalogue_core.ipfs.cid import (
    DAG_PB,
    RAW,
    cid_to_digest,
    digest_to_cid,
)
from mech_catalogue_core.publish.publish import (
    IPFS_UNAVAILABLE,
    PublishError,
)

from mech_catalogue_cli.publisher.ipfs import IpfsApi
from scripts.devnet.seed import FIXTURES_DIR

CHUNK = 256 * 1024  # kubo's default chunker size-262144


def decode_cid_v1(cid: str):
    """The domain's CID codec, as (codec name, 32 digest bytes).

    :param cid: a CID.
    :return: ``(codec, digest)``.
    """
    codec, digest = cid_to_digest(cid)
    return codec, bytes.fromhex(digest[2:])


def encode_cid_v1(codec: str, digest: bytes) -> str:
    """The domain's CID codec: base32 CIDv1 of a digest.

    :param codec: ``dag-pb`` or ``raw``.
    :param digest: 32 bytes.
    :return: the CID.
    """
    return digest_to_cid(digest, codec=codec)


def varint(value: int) -> bytes:
    """Protobuf base-128 varint.

    :param value: a non-negative integer.
    :return: its varint bytes.
    """
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def unixfs_file_node(data: bytes) -> bytes:
    """The dag-pb block of a single-chunk UnixFS file, encoded by hand.

    PBNode{Data = UnixFS{Type = File (2), Data = data, filesize = len(data)}}, no Links
    (specs: ipfs/specs UNIXFS.md and ipld/specs dag-pb).

    :param data: the file content (at most one chunk).
    :return: the protobuf bytes of the node.
    """
    unixfs = (
        b"\x08\x02" + b"\x12" + varint(len(data)) + data + b"\x18" + varint(len(data))
    )
    return b"\x0a" + varint(len(unixfs)) + unixfs


def test_kubo_listens_on_127_0_0_2(devnet):
    """API and gateway avoid 127.0.0.1 (the valory/ipfs connection would treat it as its own daemon)."""
    assert urlparse(devnet.info.ipfs_api_url).hostname == "127.0.0.2"
    assert urlparse(devnet.info.ipfs_gateway_url).hostname == "127.0.0.2"


def test_add_then_cat_and_gateway_return_the_same_bytes(devnet):
    """Round trip through the RPC API and the HTTP gateway."""
    data = b'{"name": "Round Trip Mech", "tools": ["prediction-online"]}'
    cid, _ = devnet.add_manifest(data)
    assert devnet.ipfs.cat(cid) == data
    response = requests.get(f"{devnet.info.ipfs_gateway_url}/ipfs/{cid}", timeout=10)
    assert response.status_code == 200 and response.content == data


def test_dag_pb_digest_is_sha256_of_the_unixfs_node_not_of_the_bytes(devnet):
    """For a small file added as dag-pb, the CID digest hashes the UnixFS protobuf node."""
    data = b'{"name": "Dag-pb Mech", "tools": ["prediction-offline"]}'
    cid, digest = devnet.add_manifest(data)
    assert cid.startswith("bafybei")
    assert decode_cid_v1(cid) == (DAG_PB, digest)
    assert devnet.ipfs.block(cid) == unixfs_file_node(data)
    assert digest == hashlib.sha256(unixfs_file_node(data)).digest()
    assert digest != hashlib.sha256(data).digest()


def test_raw_leaves_digest_is_sha256_of_the_bytes(devnet):
    """A small file added with raw leaves gets a raw-codec CID whose digest is sha256(bytes)."""
    data = b'{"name": "Raw Mech", "tools": ["superforcaster"]}'
    cid, digest = devnet.add_manifest(data, raw_leaves=True)
    assert cid.startswith("bafkrei")
    assert decode_cid_v1(cid) == (RAW, digest)
    assert digest == hashlib.sha256(data).digest()
    assert devnet.ipfs.cat(cid) == data


def test_the_registries_dag_pb_assumption_breaks_raw_leaves_manifests(devnet):
    """Prefixing a raw-leaves digest with f01701220 (dag-pb) names a block the node does not have."""
    data = b'{"name": "Misread Raw Mech"}'
    _, digest = devnet.add_manifest(data, raw_leaves=True)
    assumed = encode_cid_v1(DAG_PB, digest)
    with pytest.raises(PublishError) as refused:
        devnet.ipfs.cat(assumed)
    assert refused.value.code == IPFS_UNAVAILABLE and assumed in str(refused.value)
    assert devnet.ipfs.cat(encode_cid_v1(RAW, digest)) == data


def test_multi_chunk_files_have_a_dag_pb_root_even_with_raw_leaves(devnet):
    """Above one chunk the CID is the dag-pb root node's (links to the chunks), raw leaves or not."""
    data = b'{"padding": "' + b"x" * (CHUNK + 1000) + b'"}'
    for raw_leaves in (False, True):
        cid, digest = devnet.add_manifest(data, raw_leaves=raw_leaves)
        codec, _ = decode_cid_v1(cid)
        assert codec == DAG_PB
        assert digest == hashlib.sha256(devnet.ipfs.block(cid)).digest()
        assert digest != hashlib.sha256(data).digest()
        assert devnet.ipfs.cat(cid) == data


def test_seeded_manifests_are_in_kubo_under_their_recorded_digests(devnet):
    """Every seeded entry: cat(cid) is the fixture file, and the CID carries the recorded digest."""
    for entry in devnet.info.registered:
        codec, digest = decode_cid_v1(entry.cid)
        assert "0x" + digest.hex() == entry.digest
        assert codec == (RAW if entry.raw_leaves else DAG_PB)
        assert devnet.ipfs.cat(entry.cid) == (FIXTURES_DIR / entry.fixture).read_bytes()


def test_open_aea_ipfs_tool_uses_the_node_as_remote(devnet):
    """open-aea's IPFSTool (behind the valory/ipfs connection) takes the multiaddr as a remote node."""
    from aea_cli_ipfs.ipfs_utils import (  # pylint: disable=import-outside-toplevel
        IPFSTool,
    )

    tool = IPFSTool(addr=devnet.info.ipfs_api_multiaddr)
    assert tool.is_remote
    tool.check_ipfs_node_running()
    data = b'{"name": "Added by IPFSTool"}'
    cid = tool.add_bytes(data)
    assert devnet.ipfs.cat(cid) == data


def test_the_client_reports_a_node_that_is_down_and_reads_no_more_than_its_cap(devnet):
    """The one kubo client: a closed port is "not ready" and an error naming the node; reads stop at the cap."""
    down = IpfsApi("http://127.0.0.2:9", timeout=2.0)
    assert not down.is_ready()
    with pytest.raises(PublishError) as failed:
        down.cat(digest_to_cid(b"\x01" * 32))
    assert failed.value.code == IPFS_UNAVAILABLE
    assert "127.0.0.2:9" in str(failed.value)
    data = b"z" * 5000
    cid, _ = devnet.add_manifest(data, raw_leaves=True)
    capped = IpfsApi(devnet.info.ipfs_api_url, cap=1000)
    assert len(capped.cat(cid)) == 1001  # cap + 1: "over the cap", nothing more read
    assert len(capped.block(cid)) == 1001
    assert devnet.ipfs.block(cid) == data  # a raw block is the bytes themselves


def test_a_folder_is_added_under_its_name_and_its_files_read_back(devnet, tmp_path):
    """add_directory: the CID is the folder's (not kubo's wrapper); files are at <cid>/<name>."""
    folder = tmp_path / "echo_tool"
    folder.mkdir()
    (folder / "component.yaml").write_bytes(b"name: echo_tool\n")
    (folder / "echo.py").write_bytes(b"def run(**kwargs):\n    return kwargs\n")
    (folder / "sub").mkdir()  # subfolders are left out
    cid = devnet.ipfs.add_directory(folder)
    assert decode_cid_v1(cid)[0] == DAG_PB
    assert devnet.ipfs.cat(f"{cid}/echo.py") == (folder / "echo.py").read_bytes()
    with pytest.raises(PublishError):
        devnet.ipfs.cat(f"{cid}/sub")
    with pytest.raises(PublishError) as down:
        IpfsApi("http://127.0.0.2:9", timeout=2.0).add_directory(folder)
    assert down.value.code == IPFS_UNAVAILABLE
