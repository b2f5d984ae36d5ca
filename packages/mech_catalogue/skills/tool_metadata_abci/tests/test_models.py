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

"""Parameter validation: wrong configuration fails at start-up with a sentence naming the parameter."""

from copy import deepcopy
from pathlib import Path
from typing import Any, Dict
from unittest.mock import MagicMock

import pytest
import yaml

from packages.mech_catalogue.skills.tool_metadata_abci.models import ToolMetadataParams
from packages.mech_catalogue.skills.tool_metadata_abci.parameters import ParameterError

SKILL_YAML = Path(__file__).parents[1] / "skill.yaml"
DEFAULT_ARGS: Dict[str, Any] = yaml.safe_load(SKILL_YAML.read_text())["models"][
    "params"
]["args"]


def make_params(**overrides: Any) -> ToolMetadataParams:
    """Build params from skill.yaml's defaults with ``overrides``.

    :param overrides: parameter values to change.
    :return: params built from skill.yaml's defaults with ``overrides``.
    """
    args = deepcopy(DEFAULT_ARGS)
    args.update(overrides)
    return ToolMetadataParams(name="params", skill_context=MagicMock(), **args)


def test_defaults_are_valid() -> None:
    """skill.yaml's defaults load: one ComplementaryServiceMetadata registry, all ids."""
    params = make_params()
    assert [(s.kind, s.ids.mode) for s in params.registry_sources] == [
        ("complementary_service_metadata", "all")
    ]
    assert (
        params.registry_sources[0].address
        == "0x0598081d48fb80b0a7e52fad2905ae9becd6fc69"
    )
    assert params.ipfs_fetch_mode == "gateway"


def test_ids_as_list_and_range() -> None:
    """The ids may be a list or an inclusive range."""
    params = make_params(
        registries=[
            {
                "kind": "olas_agent_registry",
                "address": "0x" + "11" * 20,
                "ids": [3, 1, 3],
            },
            {
                "kind": "legacy_mech_registry",
                "address": "0x" + "22" * 20,
                "ids": {"from": 2, "to": 4},
            },
        ]
    )
    assert params.registry_sources[0].ids.resolve(None, 10) == (1, 3)
    assert params.registry_sources[1].ids.resolve(None, 10) == (2, 3, 4)


@pytest.mark.parametrize(
    "overrides, named",
    [
        ({"registries": []}, "registries is empty"),
        (
            {"registries": [{"kind": "nft", "address": "0x" + "11" * 20}]},
            "registries[0].kind",
        ),
        (
            {"registries": [{"kind": "olas_agent_registry", "address": "0x12"}]},
            "registries[0].address",
        ),
        (
            {
                "registries": [
                    {
                        "kind": "olas_agent_registry",
                        "address": "0x" + "11" * 20,
                        "ids": [0],
                    }
                ]
            },
            "registries[0].ids",
        ),
        (
            {
                "registries": [
                    {
                        "kind": "olas_agent_registry",
                        "address": "0x" + "11" * 20,
                        "ids": {"from": 5, "to": 1},
                    }
                ]
            },
            "registries[0].ids",
        ),
        (
            {
                "registries": [
                    {"kind": "olas_agent_registry", "address": "0x" + "11" * 20},
                    {"kind": "olas_agent_registry", "address": "0x" + "11" * 20},
                ]
            },
            "registries[1] repeats",
        ),
        ({"chain_id": 0}, "chain_id"),
        ({"multicall2_address": "multicall"}, "multicall2_address"),
        ({"ipfs_fetch_mode": "ftp"}, "ipfs_fetch_mode"),
        ({"ipfs_gateway_url": "127.0.0.2:8080"}, "ipfs_gateway_url"),
        ({"multicall_batch_size": 0}, "multicall_batch_size"),
        ({"fetch_retries": -1}, "fetch_retries"),
        ({"fetch_backoff_factor": 0.5}, "fetch_backoff_factor"),
        ({"fetch_timeout_seconds": 0.0}, "fetch_timeout_seconds"),
        ({"max_manifest_bytes": -5}, "max_manifest_bytes"),
        ({"snapshot_block_interval": 0}, "snapshot_block_interval"),
        ({"tools_page_size": 0}, "tools_page_size"),
        ({"tools_page_size": 1001}, "tools_page_size must be at most 1000"),
    ],
)
def test_wrong_values_name_the_parameter(overrides: Dict[str, Any], named: str) -> None:
    """Each wrong value raises ParameterError whose sentence names the parameter."""
    with pytest.raises(ParameterError) as caught:
        make_params(**overrides)
    assert named in str(caught.value)


def test_missing_parameter_is_named() -> None:
    """A parameter absent from skill.yaml is reported by name."""
    args = deepcopy(DEFAULT_ARGS)
    del args["fetch_concurrency"]
    with pytest.raises(ParameterError, match="fetch_concurrency is not set"):
        ToolMetadataParams(name="params", skill_context=MagicMock(), **args)


@pytest.mark.parametrize(
    "overrides",
    [
        {"fetch_timeout_seconds": 30.0, "fetch_retries": 2},  # 2 x 3 x 30 s = 180 s
        {"fetch_round_timeout_seconds": 20.0},  # the defaults need 63 s
        {"fetch_retries": 10, "fetch_backoff_max_seconds": 60.0},
    ],
)
def test_fetch_policy_must_fit_the_fetch_round(overrides: Dict[str, Any]) -> None:
    """A manifest that fails slowly must not outlast FetchManifestsRound's timeout."""
    with pytest.raises(ParameterError, match="fetch_round_timeout_seconds"):
        make_params(**overrides)


def test_default_fetch_policy_fits_with_room() -> None:
    """The defaults: 2 CIDs x 3 tries x 10 s + backoff = 63 s < 120 s."""
    params = make_params()
    assert params.worst_fetch_seconds() == pytest.approx(63.0)
    assert params.worst_fetch_seconds() < params.fetch_round_timeout_seconds


def test_state_dir_holds_the_manifest_cache_unless_set() -> None:
    """manifest_cache_dir defaults to <state_dir>/manifests; null state_dir keeps nothing."""
    assert make_params(state_dir="/var/x").manifest_cache_dir == "/var/x/manifests"
    assert (
        make_params(state_dir="/var/x", manifest_cache_dir="/c").manifest_cache_dir
        == "/c"
    )
    assert make_params(state_dir=None).manifest_cache_dir is None


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        ({"marketplace_address": "0x12"}, "marketplace"),
        ({"legacy_mech_factory_address": "factory"}, "legacy_factory"),
        (
            {"marketplace_address": "0x" + "ee" * 20, "marketplace_confirmations": -1},
            "confirmations",
        ),
        ({"marketplace_max_log_range": 0}, "marketplace_max_log_range"),
    ],
)
def test_marketplace_parameters_are_checked(
    overrides: Dict[str, Any], named: str
) -> None:
    """A bad marketplace_* / legacy_mech_factory_* value is refused, naming the field."""
    with pytest.raises(ParameterError, match=named):
        make_params(**overrides)


def test_marketplace_is_off_by_default_and_on_with_either_address() -> None:
    """Null addresses read no facts; either address alone turns the read on."""
    assert make_params().marketplace is None
    market = make_params(marketplace_address="0x" + "EE" * 20).marketplace
    assert market is not None and market.marketplace == "0x" + "ee" * 20
    legacy = make_params(
        legacy_mech_factory_address="0x" + "0f" * 20,
        legacy_mech_factory_first_block=12,
    ).marketplace
    assert legacy is not None and legacy.marketplace == ""
    assert (legacy.legacy_factory, legacy.legacy_first_block) == ("0x" + "0f" * 20, 12)


def test_chain_preset_sets_the_chains_parameters() -> None:
    """``chain_preset: base`` reads base's registries and MechMarketplace from its block."""
    params = make_params(chain_preset="BASE", chain_id=1, registries=[])
    assert params.chain_preset == "base" and params.chain_id == 8453
    assert [(s.kind, s.address) for s in params.registry_sources] == [
        ("legacy_mech_registry", "0x88de734655184a09b70700ae4f72364d1ad23728"),
        (
            "complementary_service_metadata",
            "0x28c1edc7ced549f7f80b732fdc19f0370160707d",
        ),
    ]
    market = params.marketplace
    assert market is not None
    assert market.marketplace == "0xf24ee42eda0fc9b33b7d41b06ee8ccd2ef7c5020"
    assert market.first_block == 26642705 and market.legacy_factory == ""
    assert params.ipfs_gateway_urls[0] == "https://gateway.autonolas.tech"
    assert len(params.ipfs_gateway_urls) == 3


def test_a_chain_without_a_marketplace_reads_no_facts() -> None:
    """``chain_preset: celo``: registries only; the marketplace read stays off."""
    params = make_params(chain_preset="celo", marketplace_address="0x" + "ee" * 20)
    assert params.chain_id == 42220 and params.marketplace is None


@pytest.mark.parametrize("name", ["gnosis-chain", "devnet", ""])
def test_an_unknown_chain_preset_is_refused_naming_the_presets(name: str) -> None:
    """A misspelt preset stops the agent at start-up, listing the presets; "" is unset."""
    if not name:
        assert make_params(chain_preset=name).chain_id == DEFAULT_ARGS["chain_id"]
        return
    with pytest.raises(ParameterError, match="chain_preset: .*gnosis, base"):
        make_params(chain_preset=name)
