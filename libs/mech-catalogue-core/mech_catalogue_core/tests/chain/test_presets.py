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

"""Every chain preset against the published configuration files it cites.

The files are Olas's own deployment configurations, kept out of the repository in the
project's shared reference folder (``../shared/reference/config/``, or the folder
``$MECH_CATALOGUE_REFERENCE`` names). Where one is not at hand the test is skipped with a
message naming the file to provide. Values cited from a document that is not kept there
(the subgraph start blocks, Multicall3, the gateways) are listed by the last test.
"""

import json
import os
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest
from mech_catalogue_core.chain.presets import (
    DEVNET,
    PRESETS,
    SOURCES,
    ChainPreset,
    PresetValueMissing,
    UnknownChainPreset,
    chain_preset,
)

REFERENCE_DIR = Path(
    os.environ.get(
        "MECH_CATALOGUE_REFERENCE",
        Path(__file__).resolve().parents[6] / "shared" / "reference",
    )
)

#: the reference file of each source id kept in the shared folder
FILES = {
    "registries": "config/autonolas-registries.configuration.json",
    "legacy_mech": "config/ai-registry-mech.configuration_v0.json",
    "mech_client": "config/mech-client-0.24.1.mechs.json",
    "marketplace": "config/ai-registry-mech.configuration.json",
}
#: how ai-registry-mech's configurations name the chains whose preset name differs
LEGACY_NAMES = {"arbitrum": "arbitrumOne", "optimism": "optimistic"}
#: preset field -> contract name, per Olas ``configuration*.json`` shape
CONTRACTS = {
    "registries": {
        "olas_agent_registry": "AgentRegistry",
        "component_registry": "ComponentRegistry",
        "registries_manager": "RegistriesManager",
        "complementary_service_metadata": "ComplementaryServiceMetadata",
    },
    "legacy_mech": {
        "legacy_mech_registry": "AgentRegistry",
        "legacy_mech_factory": "AgentFactory",
    },
    "marketplace": {"mech_marketplace": "MechMarketplaceProxy"},
}
#: preset field -> mech-client ``mechs.json`` key
MECH_CLIENT_KEYS = {
    "mech_marketplace": "mech_marketplace_contract",
    "complementary_service_metadata": "complementary_metadata_hash_address",
    "rpc_url": "rpc_url",
}
ZERO = "0x" + "0" * 40


def _load(source: str) -> Any:
    path = REFERENCE_DIR / FILES[source]
    if not path.is_file():
        pytest.skip(
            f"preset values cited from {SOURCES[source]} are checked against {path}: "
            f"provide that file (the shared reference folder next to the repository, or "
            f"set MECH_CATALOGUE_REFERENCE to a folder holding {FILES[source]})"
        )
    return json.loads(path.read_text(encoding="utf-8"))


def _chain_entry(document: List[Dict[str, Any]], preset: ChainPreset) -> Dict[str, Any]:
    names = {preset.name, LEGACY_NAMES.get(preset.name, preset.name)}
    entries = [entry for entry in document if entry["name"] in names]
    return entries[0] if entries else {"chainId": None, "contracts": []}


def _configured(source: str, preset: ChainPreset, name: str) -> Any:
    """Return what an Olas ``configuration*.json`` says of one preset field."""
    entry = _chain_entry(_load(source), preset)
    if name == "chain_id":
        return int(entry["chainId"]) if entry["chainId"] else None
    addresses = {c["name"]: c["address"] for c in entry["contracts"]}
    if name == "mech_factories":
        return tuple(
            (c["name"], c["address"])
            for c in entry["contracts"]
            if c["name"].lower().startswith("mechfactory") and c["address"]
        )
    return addresses.get(CONTRACTS[source][name], "")


def _mech_client(preset: ChainPreset, name: str) -> Any:
    entry = _load("mech_client").get(preset.name, {})
    if name == "chain_id":
        return entry.get("ledger_config", {}).get("chain_id")
    value = entry.get(MECH_CLIENT_KEYS[name], "")
    return "" if value == ZERO else value


READERS: Dict[str, Callable[[ChainPreset, str], Any]] = {
    "registries": lambda p, n: _configured("registries", p, n),
    "legacy_mech": lambda p, n: _configured("legacy_mech", p, n),
    "marketplace": lambda p, n: _configured("marketplace", p, n),
    "mech_client": _mech_client,
}


def _same(ours: Any, theirs: Any) -> bool:
    if isinstance(ours, str):
        return isinstance(theirs, str) and ours.lower() == theirs.lower()
    if isinstance(ours, tuple):
        return [(n, a.lower()) for n, a in ours] == [
            (n, a.lower()) for n, a in theirs or ()
        ]
    return bool(ours == theirs)


CITED: List[Tuple[str, str, str]] = sorted(
    (preset.name, name, source)
    for preset in PRESETS.values()
    for name, source in preset.sources.items()
    if source in READERS
)


@pytest.mark.parametrize("chain,name,source", CITED)
def test_each_cited_value_matches_its_configuration_file(
    chain: str, name: str, source: str
) -> None:
    """A preset value equals the one in the configuration file it cites."""
    preset = chain_preset(chain)
    ours = getattr(preset, name)
    theirs = READERS[source](preset, name)
    assert _same(
        ours, theirs
    ), f"{chain}.{name} = {ours!r}, but {SOURCES[source]} says {theirs!r}"


def _published(source: str, preset: ChainPreset, name: str) -> Optional[Any]:
    value = READERS[source](preset, name)
    return value or None


@pytest.mark.parametrize("chain", sorted(PRESETS))
@pytest.mark.parametrize(
    "name,source",
    [
        ("olas_agent_registry", "registries"),
        ("component_registry", "registries"),
        ("registries_manager", "registries"),
        ("complementary_service_metadata", "registries"),
        ("legacy_mech_registry", "legacy_mech"),
        ("mech_marketplace", "mech_client"),
        ("mech_factories", "marketplace"),
    ],
)
def test_no_published_contract_is_left_out(chain: str, name: str, source: str) -> None:
    """A contract the configuration publishes for a chain is in its preset."""
    # (the legacy AgentFactory is left out where no source gives the block its log
    # scan should start at: from genesis it would cost thousands of eth_getLogs)
    preset = chain_preset(chain)
    published = _published(source, preset, name)
    if published is None:
        assert not getattr(preset, name), f"{chain}.{name} is in no configuration"
        return
    assert _same(getattr(preset, name), published), f"{chain}.{name} left out"


def test_every_value_names_a_source_and_every_source_is_described() -> None:
    """No preset value is uncited, and every citation is a described document."""
    for preset in PRESETS.values():
        for field, value, source in preset.rows():
            if value != "(none)":
                assert source, f"{preset.name}.{field} has no source"
        assert set(preset.sources.values()) <= set(SOURCES)


def test_lookup_is_case_insensitive_and_unknown_names_are_listed() -> None:
    """``GNOSIS`` finds gnosis; an unknown name's error lists every preset."""
    assert chain_preset(" GNOSIS ").chain_id == 100
    with pytest.raises(UnknownChainPreset) as raised:
        chain_preset("gnosiss")
    assert all(name in str(raised.value) for name in PRESETS)
    with pytest.raises(UnknownChainPreset, match="devnet.json"):
        chain_preset(DEVNET)


def test_a_missing_contract_names_the_option_and_the_chains_that_have_it() -> None:
    """Celo has no MechMarketplace: asking for it says what to pass and where one is."""
    with pytest.raises(PresetValueMissing) as raised:
        chain_preset("celo").require("mech_marketplace", "--marketplace ADDRESS")
    message = str(raised.value)
    assert "--marketplace ADDRESS" in message and "gnosis" in message
    assert "celo" not in message.split("one:")[1]
    assert chain_preset("gnosis").require("mech_marketplace", "--marketplace") == (
        "0x735FAAb1c4Ec41128c367AFb5c3baC73509f70bB"
    )


def test_registries_hold_only_the_kinds_the_chain_has() -> None:
    """Ethereum mainnet reads the AgentRegistry and ComplementaryServiceMetadata, no legacy one."""
    kinds = [entry["kind"] for entry in chain_preset("mainnet").registries()]
    assert kinds == ["olas_agent_registry", "complementary_service_metadata"]
    assert all(e["ids"] == "all" for e in chain_preset("base").registries())
