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

"""Artifact loading from the installed wheels, and the cached solc.js compile."""

import json
import subprocess

import pytest

from scripts.devnet import contracts, solidity
from scripts.devnet.contracts import ARTIFACTS, ArtifactNotFound, load_artifact


@pytest.mark.parametrize("name", sorted(ARTIFACTS))
def test_every_artifact_has_abi_and_bytecode(name):
    """Each real artifact is found (wheel first, synced packages second) with creation bytecode."""
    artifact = load_artifact(name)
    assert artifact["bytecode"].startswith("0x60") and len(artifact["bytecode"]) > 100
    assert isinstance(artifact["abi"], list)
    assert "packages/valory/contracts" in artifact["source"]


def test_constructor_arguments_baked_into_an_artifact_are_cut():
    """Arguments after solc's metadata are dropped (they would shadow ours); other code is kept."""
    code = "6080604052" + "00" * 8 + "a264" + "64736f6c6343" + "00081e" + "0033"
    args = "00" * 12 + "11" * 20 + "00" * 12 + "22" * 20
    assert contracts.strip_constructor_args(code + args) == "0x" + code
    assert contracts.strip_constructor_args("0x" + code) == "0x" + code
    no_metadata = "0x6080604052" + args
    assert contracts.strip_constructor_args(no_metadata) == no_metadata
    marketplace = load_artifact("MechMarketplace")["bytecode"]
    assert marketplace.endswith("0033")


def test_missing_artifact_names_the_package_and_the_fix(monkeypatch):
    """Without any packages folder the error names the file, the package and the sync command."""
    monkeypatch.setattr(contracts, "artifact_dirs", lambda: [])
    with pytest.raises(
        ArtifactNotFound, match=r"valory/complementary_service_metadata.*`make sync`"
    ):
        load_artifact("ComplementaryServiceMetadata")


@pytest.fixture
def isolated_sources(tmp_path, monkeypatch):
    """Compile a copy of the contract sources into a temporary cache."""
    sources = tmp_path / "contracts"
    sources.mkdir()
    for path in solidity.CONTRACTS_DIR.glob("*.sol"):
        (sources / path.name).write_text(path.read_text())
    monkeypatch.setattr(solidity, "CONTRACTS_DIR", sources)
    monkeypatch.setattr(solidity, "CACHE_DIR", tmp_path / "cache")
    return sources


def test_compile_is_cached_by_source_hash(isolated_sources, monkeypatch):
    """The first compile writes the cache; the same sources are read back without node; an edit misses."""
    first = solidity.compile_contracts()
    cache_files = list((isolated_sources.parent / "cache").glob("*.json"))
    assert len(cache_files) == 1
    assert json.loads(cache_files[0].read_text()) == first

    def no_node(*_args, **_kwargs):
        raise AssertionError("solc ran")

    monkeypatch.setattr(subprocess, "run", no_node)
    assert solidity.compile_contracts() == first

    source = isolated_sources / "LegacyMechAgentRegistry.sol"
    source.write_text(source.read_text() + "\n// edited\n")
    with pytest.raises(AssertionError, match="solc ran"):
        solidity.compile_contracts()


def test_compile_errors_name_the_source(isolated_sources):
    """A syntax error raises CompileError carrying solc's message with the file name."""
    for path in isolated_sources.glob("*.sol"):
        path.unlink()
    (isolated_sources / "Broken.sol").write_text(
        "pragma solidity ^0.8.30; contract Broken { function f( }"
    )
    with pytest.raises(solidity.CompileError, match="Broken.sol"):
        solidity.compile_contracts()
