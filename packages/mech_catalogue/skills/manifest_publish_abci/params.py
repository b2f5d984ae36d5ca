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

"""Parameters of the publish branch, read from the skill's ``models.params.args``.

``ManifestPublishParams.__init__`` (``models.py``) calls :func:`read_publish_settings`, which
pops its keys with the skills' one parameter reader (``tool_metadata_abci.parameters``),
each with a default, so configurations written before the branch existed still load.

================================  ========================================================
parameter                         meaning (default)
================================  ========================================================
``publish_enabled``               run the branch (false)
``publish_tool_packages``         folders of the service's tool packages, each with a
                                  ``component.yaml`` ([])
``publish_overrides``             the overrides mapping of ``domain.generate`` ({})
``publish_registry_kind``         registry kind holding the service's manifest digest
                                  (``complementary_service_metadata``)
``publish_registry_address``      that registry's address ("")
``publish_manager_address``       the RegistriesManager, for ``olas_agent_registry`` ("")
``publish_mech_id``               the agent id or service id (0 = ``on_chain_service_id``)
``publish_ipfs_timeout_seconds``  seconds per IPFS request of the branch (30.0)
================================  ========================================================
"""

from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple

from mech_catalogue_core.model.tool import (
    REGISTRY_KINDS,
    REGISTRY_OLAS_AGENT,
)
from mech_catalogue_core.model.vocabulary import (
    RegistryKind,
)
from mech_catalogue_core.publish.publish import (
    PublishError,
    PublishTarget,
    check_address,
)

from packages.mech_catalogue.skills.tool_metadata_abci.parameters import (
    ParameterError,
    require,
    take,
)

DEFAULT_KIND = RegistryKind.COMPLEMENTARY_SERVICE


@dataclass(frozen=True)
class PublishSettings:
    """The validated publish parameters.

    :param enabled: whether the branch runs.
    :param tool_packages: tool package folders.
    :param overrides: generation overrides.
    :param target: the registry and id to update (None when disabled).
    :param ipfs_timeout: seconds per IPFS request.
    """

    enabled: bool = False
    tool_packages: Tuple[str, ...] = ()
    overrides: Dict[str, Any] = field(default_factory=dict)
    target: Optional[PublishTarget] = None
    ipfs_timeout: float = 30.0


def read_publish_settings(
    kwargs: Dict[str, Any], on_chain_service_id: Optional[int]
) -> PublishSettings:
    """Pop and validate the ``publish_*`` parameters.

    :param kwargs: the params model's keyword arguments (the keys are removed).
    :param on_chain_service_id: the service id, used when ``publish_mech_id`` is 0.
    :return: the settings.
    :raises ParameterError: naming the parameter, when enabled with a bad target,
        no tool package, or a value of the wrong type.
    """
    enabled = take(kwargs, "publish_enabled", bool, False)
    packages = tuple(take(kwargs, "publish_tool_packages", list, []))
    overrides = take(kwargs, "publish_overrides", dict, {})
    kind = take(kwargs, "publish_registry_kind", str, DEFAULT_KIND)
    registry = take(kwargs, "publish_registry_address", str, "")
    manager = take(kwargs, "publish_manager_address", str, "")
    mech_id = take(kwargs, "publish_mech_id", int, 0)
    timeout = take(kwargs, "publish_ipfs_timeout_seconds", float, 30.0)
    require(
        timeout > 0, f"publish_ipfs_timeout_seconds must be positive; got {timeout}"
    )
    if not enabled:
        return PublishSettings(ipfs_timeout=timeout)
    require(
        bool(packages) and all(isinstance(p, str) and p for p in packages),
        "publish_tool_packages must list the service's tool package folders when publish_enabled is true",
    )
    if mech_id == 0:
        mech_id = int(on_chain_service_id or 0)
    require(
        kind in REGISTRY_KINDS,
        f"publish_registry_kind must be one of {', '.join(REGISTRY_KINDS)}; got {kind!r}",
    )
    require(
        mech_id >= 1,
        "publish_mech_id must be the agent id or service id (>= 1), or 0 with on_chain_service_id set",
    )
    addresses = [("publish_registry_address", registry)]
    if kind == REGISTRY_OLAS_AGENT:
        addresses.append(("publish_manager_address", manager))
    try:
        for name, value in addresses:
            check_address(value, name)
    except PublishError as exc:
        raise ParameterError(str(exc)) from exc
    target = PublishTarget(kind, registry, mech_id, manager)
    return PublishSettings(True, packages, overrides, target, timeout)
