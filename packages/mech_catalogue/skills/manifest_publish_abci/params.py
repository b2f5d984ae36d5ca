"""Parameters of the publish branch, read from the skill's ``models.params.args``.

``ToolMetadataParams.__init__`` calls :func:`read_publish_settings` (which pops its keys,
each with a default, so configurations written before the branch existed still load).

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

from packages.mech_catalogue.skills.tool_metadata_abci.domain.model.catalogue import (
    REGISTRY_KINDS,
    REGISTRY_OLAS_AGENT,
)
from packages.mech_catalogue.skills.tool_metadata_abci.domain.publish.publish import (
    PublishError,
    PublishTarget,
    check_address,
)

DEFAULT_KIND = "complementary_service_metadata"


class PublishParameterError(ValueError):
    """A publish parameter is wrong; the message names it and says what to set."""


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


def _take(kwargs: Dict[str, Any], key: str, default: Any, kind: Any) -> Any:
    value = kwargs.pop(key, default)
    if value is None:
        value = default
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise PublishParameterError(
            f"{key} must be a {getattr(kind, '__name__', kind)}; got {value!r}"
        )
    return value


def read_publish_settings(
    kwargs: Dict[str, Any], on_chain_service_id: Optional[int]
) -> PublishSettings:
    """Pop and validate the ``publish_*`` parameters.

    :param kwargs: the params model's keyword arguments (the keys are removed).
    :param on_chain_service_id: the service id, used when ``publish_mech_id`` is 0.
    :return: the settings.
    :raises PublishParameterError: naming the parameter, when enabled with a bad target,
        no tool package, or a value of the wrong type.
    """
    enabled = _take(kwargs, "publish_enabled", False, bool)
    packages = tuple(_take(kwargs, "publish_tool_packages", [], list))
    overrides = _take(kwargs, "publish_overrides", {}, dict)
    kind = _take(kwargs, "publish_registry_kind", DEFAULT_KIND, str)
    registry = _take(kwargs, "publish_registry_address", "", str)
    manager = _take(kwargs, "publish_manager_address", "", str)
    mech_id = _take(kwargs, "publish_mech_id", 0, int)
    timeout = _take(kwargs, "publish_ipfs_timeout_seconds", 30.0, float)
    if timeout <= 0:
        raise PublishParameterError(
            f"publish_ipfs_timeout_seconds must be positive; got {timeout}"
        )
    if not enabled:
        return PublishSettings(ipfs_timeout=timeout)
    if not packages or not all(isinstance(p, str) and p for p in packages):
        raise PublishParameterError(
            "publish_tool_packages must list the service's tool package folders when publish_enabled is true"
        )
    if mech_id == 0:
        mech_id = int(on_chain_service_id or 0)
    if kind not in REGISTRY_KINDS:
        raise PublishParameterError(
            f"publish_registry_kind must be one of {', '.join(REGISTRY_KINDS)}; got {kind!r}"
        )
    if mech_id < 1:
        raise PublishParameterError(
            "publish_mech_id must be the agent id or service id (>= 1), or 0 with on_chain_service_id set"
        )
    addresses = [("publish_registry_address", registry)]
    if kind == REGISTRY_OLAS_AGENT:
        addresses.append(("publish_manager_address", manager))
    try:
        for name, value in addresses:
            check_address(value, name)
    except PublishError as exc:
        raise PublishParameterError(str(exc)) from exc
    target = PublishTarget(kind, registry, mech_id, manager)
    return PublishSettings(True, packages, overrides, target, timeout)
