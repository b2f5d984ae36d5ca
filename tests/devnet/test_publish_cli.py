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

"""``mech-catalogue publish`` against the devnet (click's CliRunner, real anvil + kubo)."""

import json
from typing import List

from click.testing import CliRunner
from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.derive.generate import (
    generate_manifest,
)
from mech_catalogue_core.model.canonical import (
    canonical_bytes,
)
from mech_catalogue_core.tests.js_engine import survives_javascript

from mech_catalogue_cli.app import cli
from tests.devnet.publish_helpers import (
    TOOL_PACKAGES,
    account,
    deployed_service,
    nonce,
    publisher,
    seeded,
)

PACKAGES = [str(TOOL_PACKAGES / "echo_tool"), str(TOOL_PACKAGES / "typed_tool")]


def _args(devnet, mech) -> List[str]:
    target = mech.target
    args = [
        "--kind",
        target.kind,
        "--registry",
        target.registry,
        "--id",
        str(target.mech_id),
        "--rpc",
        devnet.info.rpc_url,
        "--ipfs-api",
        devnet.info.ipfs_api_url,
    ]
    if target.manager:
        args += ["--manager", target.manager]
    return args


def _run(args: List[str], env=None):
    result = CliRunner().invoke(cli, ["--json", "publish", *args], env=env or {})
    return result.exit_code, (
        json.loads(result.output)
        if result.output.strip().startswith("{")
        else result.output
    )


def test_cli_publish_with_key_file_then_up_to_date(chain_snapshot, tmp_path) -> None:
    """Generate from tool packages, publish with the owner's key file; the rerun sends nothing."""
    devnet = chain_snapshot
    mech = seeded(devnet, "olas")
    key_file = tmp_path / "owner.key"
    key_file.write_text(devnet.info.accounts["owner_1"]["private_key"])
    assert mech.owner.address == account(devnet, "owner_1").address
    code, out = _run([*PACKAGES, *_args(devnet, mech), "--key-file", str(key_file)])
    assert code == 0, out
    assert (
        out["decision"] == "update"
        and out["txHash"]
        and out["onchainAfter"] == out["digest"]
    )
    assert publisher(devnet).read_digest(mech.target) == out["digest"]
    sent = nonce(devnet, mech.owner.address)
    code, again = _run([*PACKAGES, *_args(devnet, mech), "--key-file", str(key_file)])
    assert code == 0 and again["decision"] == "up_to_date" and not again["txHash"]
    assert nonce(devnet, mech.owner.address) == sent


def test_cli_prints_safe_transaction_without_key(chain_snapshot) -> None:
    """--safe and no key: the Safe transaction and its hash are printed; nothing sent."""
    devnet = chain_snapshot
    mech, safe, _ = deployed_service(devnet)
    before = publisher(devnet).read_digest(mech.target)
    code, out = _run([*PACKAGES, *_args(devnet, mech), "--safe", safe])
    assert code == 0, out
    assert out["safeTransaction"]["safeTxHash"].startswith("0x") and not out["txHash"]
    assert out["safeTransaction"]["to"].lower() == mech.target.registry.lower()
    assert out["safeTransaction"]["value"] == "0"  # wei: a decimal string (item 11)
    assert survives_javascript(out)  # JSON.parse in Node keeps every value
    assert publisher(devnet).read_digest(mech.target) == before


def test_cli_safe_owner_key_executes(chain_snapshot) -> None:
    """--safe with the Safe owner's key (threshold 1) in the environment: executed through the Safe."""
    devnet = chain_snapshot
    mech, safe, instance = deployed_service(devnet)
    devnet.w3.provider.make_request("anvil_setBalance", [instance.address, hex(10**18)])
    env = {"MECH_CATALOGUE_PUBLISH_KEY": instance.key.hex()}
    code, out = _run([*PACKAGES, *_args(devnet, mech), "--safe", safe], env)
    assert code == 0, out
    assert out["txHash"] and out["eventDigest"] == out["digest"]


def test_cli_refusals(chain_snapshot, tmp_path) -> None:
    """Stranger key, invalid manifest file, IPFS down, missing key file: exit 1 with the code; dry run sends nothing."""
    devnet = chain_snapshot
    mech = seeded(devnet, "legacy")
    before = publisher(devnet).read_digest(mech.target)
    stranger = tmp_path / "stranger.key"
    stranger.write_text(devnet.info.accounts["stranger"]["private_key"])
    code, out = _run([*PACKAGES, *_args(devnet, mech), "--key-file", str(stranger)])
    assert code == 1 and out["error"]["code"] == "publish_not_authorised"
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x"}')
    code, out = _run(
        ["--manifest", str(bad), *_args(devnet, mech), "--key-file", str(stranger)]
    )
    assert (
        code == 1
        and out["error"]["code"] == "publish_invalid_manifest"
        and out["problems"]
    )
    code, out = _run([*PACKAGES, *_args(devnet, mech), "--dry-run"])
    assert (
        code == 0
        and out["dryRun"]
        and out["call"]
        and not out["uploaded"]
        and not out["txHash"]
    )
    owner = tmp_path / "owner.key"
    owner.write_text(devnet.info.accounts["owner_1"]["private_key"])
    dead_ipfs = ["--ipfs-api", "http://127.0.0.2:9", "--timeout", "2"]
    code, out = _run(
        [*PACKAGES, *_args(devnet, mech), *dead_ipfs, "--key-file", str(owner)]
    )
    assert code == 1 and out["error"]["code"] == "publish_ipfs_unavailable"
    code, out = _run(
        [*PACKAGES, *_args(devnet, mech), "--key-file", str(tmp_path / "missing.key")]
    )
    assert code == 1 and out["error"]["code"] == "file_not_readable"
    assert publisher(devnet).read_digest(mech.target) == before


def test_cli_without_key_prints_the_owner_transaction(chain_snapshot) -> None:
    """No key, no Safe: the upload happens, the unsigned call for the owner is printed; nothing sent."""
    devnet = chain_snapshot
    mech = seeded(devnet, "olas")
    before = publisher(devnet).read_digest(mech.target)
    code, out = _run([*PACKAGES, *_args(devnet, mech)])
    assert code == 0, out
    assert out["uploaded"] and not out["txHash"] and out["decision"] == "update"
    assert out["call"]["to"] == mech.target.manager
    assert out["call"]["function"] == "updateHash(uint8,uint256,bytes32)"
    generated = generate_manifest([derive_package(p) for p in PACKAGES], None)[0]
    assert devnet.ipfs.cat(out["cid"]) == canonical_bytes(generated)
    assert publisher(devnet).read_digest(mech.target) == before
