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

"""``mech-catalogue publish`` signs within ``--max-fee-per-gas`` (devnet: anvil + kubo).

A cap under the devnet's base fee signs nothing (the owner's nonce and the registry's
digest unchanged), a dry run included; a dry run with the key says the fees it would
sign; an update is mined as an EIP-1559 transaction with the fees reported, within the
cap and with the tip typed.
"""

from pathlib import Path
from typing import List

from click.testing import CliRunner

from mech_catalogue_cli.app import cli
from mech_catalogue_cli.fee_caps import say_gwei
from scripts.devnet import Devnet
from tests.devnet.publish_helpers import nonce, publisher, seeded
from tests.devnet.test_publish_cli import PACKAGES, _args, _run

GWEI = 10**9


def _base_fee(devnet: Devnet) -> int:
    """The latest block's base fee, wei per gas (what the publisher reads)."""
    return int(devnet.w3.eth.get_block("latest")["baseFeePerGas"])


def _owner_key(devnet: Devnet, tmp_path: Path) -> List[str]:
    key_file = tmp_path / "owner.key"
    key_file.write_text(devnet.info.accounts["owner_1"]["private_key"])
    return ["--key-file", str(key_file)]


def test_a_publish_over_the_fee_cap_signs_nothing(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """``--max-fee-per-gas`` under the base fee: exit 1, in words; nonce unchanged.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: where the owner's key file is written.
    """
    devnet = chain_snapshot
    mech = seeded(devnet, "olas")
    base_fee = _base_fee(devnet)
    assert base_fee >= 2, base_fee  # premise: a cap under it exists
    cap = base_fee // 2
    sent = nonce(devnet, mech.owner.address)
    before = publisher(devnet).read_digest(mech.target)
    key = _owner_key(devnet, tmp_path)
    for dry_run in ([], ["--dry-run"]):
        code, out = _run(
            [*PACKAGES, *_args(devnet, mech), *key, "--max-fee-per-gas", str(cap)]
            + dry_run
        )
        assert code == 1, out
        said = out["error"]["message"]
        assert out["error"]["code"] == "publish_fee_over_cap", out
        assert f"over --max-fee-per-gas {say_gwei(cap)}" in said, said
        assert "nothing was signed nor sent" in said, said
        assert devnet.info.accounts["owner_1"]["private_key"] not in said
    assert nonce(devnet, mech.owner.address) == sent
    assert publisher(devnet).read_digest(mech.target) == before


def test_a_dry_run_with_the_key_says_the_fees_it_would_sign(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """``--dry-run --priority-fee-per-gas 2gwei``: twice the base fee plus 2 gwei.

    Without a key nothing is signed here: no fees are said.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: where the owner's key file is written.
    """
    devnet = chain_snapshot
    mech = seeded(devnet, "legacy")
    sent = nonce(devnet, mech.owner.address)
    key = _owner_key(devnet, tmp_path)
    tip = ["--priority-fee-per-gas", "2gwei"]
    code, out = _run([*PACKAGES, *_args(devnet, mech), *key, *tip, "--dry-run"])
    assert code == 0, out
    assert out["fees"] == {
        "maxFeePerGas": str(min(2 * _base_fee(devnet) + 2 * GWEI, 100 * GWEI)),
        "maxPriorityFeePerGas": str(2 * GWEI),
        "maxFeePerGasCap": str(100 * GWEI),  # the devnet's default cap
    }, out
    assert not out["txHash"] and not out["uploaded"]
    shown = CliRunner().invoke(
        cli, ["publish", *PACKAGES, *_args(devnet, mech), *key, *tip, "--dry-run"]
    )
    assert shown.exit_code == 0, shown.output
    assert "tip 2 gwei (2,000,000,000 wei); --max-fee-per-gas 100 gwei" in " ".join(
        shown.output.split()
    ), shown.output
    code, out = _run([*PACKAGES, *_args(devnet, mech), "--dry-run"])
    assert code == 0 and out["fees"] is None, out
    assert nonce(devnet, mech.owner.address) == sent


def test_the_update_is_mined_with_the_fees_reported_within_the_cap(
    chain_snapshot: Devnet, tmp_path: Path
) -> None:
    """A type-2 transaction: its fees are the report's, at most the cap, the tip typed.

    :param chain_snapshot: the devnet, reverted afterwards.
    :param tmp_path: where the owner's key file is written.
    """
    devnet = chain_snapshot
    mech = seeded(devnet, "olas")
    key = _owner_key(devnet, tmp_path)
    fees = ["--max-fee-per-gas", "50gwei", "--priority-fee-per-gas", "1gwei"]
    code, out = _run([*PACKAGES, *_args(devnet, mech), *key, *fees])
    assert code == 0 and out["txHash"], out
    signed = devnet.w3.eth.get_transaction(out["txHash"])
    assert int(signed["type"]) == 2, signed
    assert str(signed["maxFeePerGas"]) == out["fees"]["maxFeePerGas"]
    assert int(signed["maxFeePerGas"]) <= 50 * GWEI
    assert int(signed["maxPriorityFeePerGas"]) == GWEI
    assert out["fees"]["maxFeePerGasCap"] == str(50 * GWEI)
    assert out["onchainAfter"] == out["digest"]
