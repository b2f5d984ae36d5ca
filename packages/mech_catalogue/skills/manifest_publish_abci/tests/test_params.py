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

"""The publish_* parameters: defaults, validation, errors naming the parameter."""

from typing import Any, Dict

import pytest

from packages.mech_catalogue.skills.manifest_publish_abci.params import (
    read_publish_settings,
)
from packages.mech_catalogue.skills.tool_metadata_abci.parameters import ParameterError

CSM = "0x" + "cc" * 20


def enabled(**changes: Any) -> Dict[str, Any]:
    """Build enabled publish parameters with changes.

    :param changes: keys to change.
    :return: the parameters.
    """
    kwargs: Dict[str, Any] = {
        "publish_enabled": True,
        "publish_tool_packages": ["/tools/echo"],
        "publish_registry_kind": "complementary_service_metadata",
        "publish_registry_address": CSM,
        "publish_mech_id": 0,
        "other": 1,
    }
    kwargs.update(changes)
    return kwargs


def test_absent_means_disabled_and_keys_are_popped() -> None:
    """Configurations without the keys load, disabled; only publish_* keys are consumed."""
    kwargs = {"other": 1, "publish_enabled": False, "publish_registry_address": "junk"}
    settings = read_publish_settings(kwargs, None)
    assert not settings.enabled and settings.target is None
    assert kwargs == {"other": 1}


def test_enabled_uses_the_service_id_by_default() -> None:
    """publish_mech_id 0 means on_chain_service_id."""
    kwargs = enabled()
    settings = read_publish_settings(kwargs, 42)
    assert settings.enabled and settings.target is not None
    assert settings.target.mech_id == 42 and settings.target.registry == CSM
    assert settings.tool_packages == ("/tools/echo",) and kwargs == {"other": 1}


@pytest.mark.parametrize(
    "changes,named",
    [
        ({"publish_tool_packages": []}, "publish_tool_packages"),
        ({"publish_registry_address": "0x12"}, "publish_registry_address"),
        ({"publish_registry_kind": "nope"}, "publish_registry_kind"),
        (
            {"publish_registry_kind": "olas_agent_registry", "publish_mech_id": 3},
            "publish_manager_address",
        ),
        ({"publish_enabled": "yes"}, "publish_enabled"),
        ({"publish_ipfs_timeout_seconds": 0}, "publish_ipfs_timeout_seconds"),
        ({"publish_mech_id": True}, "publish_mech_id"),
    ],
)
def test_bad_values_name_the_parameter(changes: Dict[str, Any], named: str) -> None:
    """Every refusal names the parameter to fix."""
    with pytest.raises(ParameterError) as caught:
        read_publish_settings(enabled(**changes), 42)
    assert named in str(caught.value)


def test_no_service_id_and_no_mech_id() -> None:
    """Enabled without any id is refused."""
    with pytest.raises(ParameterError) as caught:
        read_publish_settings(enabled(), None)
    assert "publish_mech_id" in str(caught.value)
