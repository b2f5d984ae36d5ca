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

"""`python -m scripts.devnet up|status|down` end to end, and the state file it writes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.devnet import Devnet, DevnetError
from scripts.devnet.processes import is_alive
from scripts.toolchain import REPO_ROOT


def run_cli(state_dir, *args):
    """Run the devnet CLI with ``--state-dir``; return the completed process."""
    return subprocess.run(
        [sys.executable, "-m", "scripts.devnet", "--state-dir", str(state_dir), *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_up_status_down(tmp_path):
    """The up command starts detached processes and exits; status sees them; down stops them; status then fails."""
    state_dir = tmp_path / "devnet"
    up = run_cli(state_dir, "up", "--seed", "--chain-id", "100")
    assert up.returncode == 0, up.stdout + up.stderr
    info = json.loads((state_dir / "devnet.json").read_text())
    try:
        assert info["chain_id"] == 100
        assert is_alive(info["anvil_pid"]) and is_alive(info["ipfs_pid"])
        assert (
            "olas_agent_registry" in up.stdout
            and info["registered"][0]["cid"] in up.stdout
        )

        status = run_cli(state_dir, "status")
        assert (
            status.returncode == 0
            and "anvil: up" in status.stdout
            and "kubo: up" in status.stdout
        )

        again = run_cli(state_dir, "up")
        assert again.returncode == 1 and "already running" in again.stdout
    finally:
        down = run_cli(state_dir, "down")
    assert down.returncode == 0
    assert not is_alive(info["anvil_pid"]) and not is_alive(info["ipfs_pid"])
    assert not (state_dir / "devnet.json").exists()
    after = run_cli(state_dir, "status")
    assert after.returncode == 1 and "no devnet recorded" in after.stdout


def test_state_file_lists_everything_a_client_needs(devnet):
    """devnet.json has endpoints, pids, chain id, accounts by role, every contract and the seeded entries."""
    info = json.loads((Path(devnet.info.state_dir) / "devnet.json").read_text())
    assert info["chain_id"] == 31337
    assert info["rpc_url"].startswith("http://127.0.0.1:")
    assert set(info["accounts"]) >= {
        "deployer",
        "owner_1",
        "owner_2",
        "owner_3",
        "operator",
        "stranger",
    }
    assert set(info["contracts"]) == {
        "ComponentRegistry",
        "AgentRegistry",
        "RegistriesManager",
        "ServiceRegistryL2",
        "ComplementaryServiceMetadata",
        "GnosisSafe",
        "GnosisSafeProxyFactory",
        "MultiSend",
        "Multicall2",
        "ServiceSafeMultisig",
        "LegacyMechAgentRegistry",
        "MechMarketplace",
        "FixtureKarma",
        "FixtureBalanceTracker",
        "FixtureMechFactory",
        "FixtureLegacyMechFactory",
        "FixtureTokenOLAS",
        "FixtureTokenUSDC",
        "FixtureTokenBalanceTrackerOLAS",
        "FixtureTokenBalanceTrackerUSDC",
        "FixtureMechFactoryOLAS",
        "FixtureMechFactoryUSDC",
        "FixtureSubscriptionCredits",
        "FixtureNvmBalanceTracker",
        "FixtureMechFactoryNvm",
    }
    for address in info["contracts"].values():
        assert devnet.w3.eth.get_code(address) != b""
    registries = {entry["registry"] for entry in info["registered"]}
    assert registries == {
        "olas_agent_registry",
        "legacy_mech_registry",
        "complementary_service_metadata",
    }
    assert info["startup_seconds"] > 0


def test_attach_reads_the_running_devnet(devnet):
    """attach() from the state folder sees the same chain and the components as up."""
    attached = Devnet.attach(devnet.info.state_dir)
    assert attached.info.contracts == devnet.info.contracts
    assert attached.status() == {"anvil": True, "kubo": True}


def test_attach_without_a_devnet_says_what_to_do(tmp_path):
    """A clear error naming the folder and the command."""
    with pytest.raises(
        DevnetError, match=r"\.venv/bin/python -m scripts\.devnet --state-dir \S+ up`"
    ):
        Devnet.attach(tmp_path)


def test_unknown_contract_name_is_a_clear_error(devnet):
    """contract() names what exists."""
    with pytest.raises(DevnetError, match="AgentRegistry"):
        devnet.contract("MechFactoryFixedPriceNative")


def test_start_refuses_a_folder_with_foreign_files(tmp_path):
    """A state folder holding other files is never wiped; nothing is started."""
    (tmp_path / "notes.txt").write_text("keep me")
    with pytest.raises(DevnetError, match="notes.txt"):
        Devnet.start(seed=False, state_dir=tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "keep me"
    assert not (tmp_path / "devnet.json").exists()


def test_unseeded_devnet_registers_on_demand_and_stops(tmp_path):
    """Without --seed nothing is registered; the first Olas agent brings its component along."""
    with Devnet.start(seed=False, state_dir=tmp_path / "plain") as devnet:
        assert not devnet.info.registered
        owner = devnet.address("owner_1")
        _, digest = devnet.add_manifest(b'{"name": "On Demand", "tools": []}')
        agent_id = devnet.register_olas_agent(owner, digest)
        assert agent_id == 1
        components = devnet.contract("ComponentRegistry").functions
        assert components.totalSupply().call() == 1
        pids = (devnet.info.anvil_pid, devnet.info.ipfs_pid)
    assert not any(is_alive(pid) for pid in pids)
