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

"""CLI commands reading manifests by CID or digest from a real kubo node (devnet fixture)."""

import json
import socket
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from mech_catalogue_cli import EXIT_INVALID, EXIT_OK
from mech_catalogue_cli.app import cli
from scripts.devnet import Devnet

SAMPLE = Path(__file__).resolve().parents[1] / (
    "libs/mech-catalogue-core/mech_catalogue_core/tests/fixtures/manifests/export_sample.json"
)


def run(*args: Any) -> Result:
    """Return the result.

    :param args: command line.
    :return: the result.
    """
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_validate_and_show_by_cid_and_digest(devnet: Devnet) -> None:
    """A manifest added to kubo (dag-pb and raw leaves) is fetched, verified and parsed."""
    gateway = devnet.info.ipfs_gateway_url
    data = SAMPLE.read_bytes()
    for raw_leaves in (False, True):
        cid, digest = devnet.add_manifest(data, raw_leaves=raw_leaves)
        result = run("validate", "--json", "--ipfs-gateway", gateway, cid)
        assert result.exit_code == EXIT_OK, result.output
        body = json.loads(result.stdout)
        assert body["cid"] == cid and len(body["tools"]) == 3
        by_digest = run(
            "show", "--json", "--ipfs-gateway", gateway, "0x" + digest.hex()
        )
        assert by_digest.exit_code == EXIT_OK, by_digest.output
        assert json.loads(by_digest.stdout)["name"] == "Fixture Mech"


def test_cid_of_file_matches_kubo(devnet: Devnet, tmp_path: Path) -> None:
    """`cid FILE` reports the same CIDs kubo's `ipfs add` gives, for small and multi-chunk files."""
    for size in (100, 262144 * 2 + 17):
        data = b'{"tools": ["x"], "pad": "' + b"a" * size + b'"}'
        path = tmp_path / f"m{size}.json"
        path.write_bytes(data)
        layouts = json.loads(run("cid", "--json", path).stdout)["layouts"]
        assert (
            layouts["kubo-cid-version-1"]["cid"]
            == devnet.add_manifest(data, raw_leaves=True)[0]
        )
        assert (
            layouts["kubo-cid-version-1-dag-pb-leaves"]["cid"]
            == devnet.add_manifest(data)[0]
        )


def test_fetch_from_unreachable_gateway_fails_cleanly(devnet: Devnet) -> None:
    """No node listening: exit 1, code fetch_failed, the gateway named."""
    cid, _ = devnet.add_manifest(SAMPLE.read_bytes())
    gateway = f"http://127.0.0.1:{_closed_port()}"
    result = run("validate", "--json", "--timeout", "2", "--ipfs-gateway", gateway, cid)
    assert result.exit_code == EXIT_INVALID
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "fetch_failed" and gateway in error["message"]


def test_unknown_cid_times_out_or_fails(devnet: Devnet) -> None:
    """A CID the node does not have (offline node): a clean failure, not a hang or a crash."""
    missing = "bafkreiflvov2xk5lvov2xk5lvov2xk5lvov2xk5lvov2xk5lvov2xk5lvm"
    result = run(
        "validate",
        "--json",
        "--timeout",
        "2",
        "--ipfs-gateway",
        devnet.info.ipfs_gateway_url,
        missing,
    )
    assert result.exit_code == EXIT_INVALID
    assert json.loads(result.stdout)["error"]["code"] == "fetch_failed"
