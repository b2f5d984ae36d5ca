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

"""``--devnet`` / ``--devnet-dir`` for every command that talks to a chain or IPFS.

The devnet is found by :func:`mech_catalogue_cli.devnet.locate.find_devnet` (one rule, documented
there and in docs/cli.md). From its ``devnet.json`` a command takes what it needs:
RPC URL, chain id, IPFS API and gateway, Multicall2, the registry of each kind (and the
RegistriesManager), and for ``publish`` the owner key of the mech named. Options given on
the command line always win over the devnet's values.
"""

import functools
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

import click

from mech_catalogue_cli.devnet.locate import DEVNET_DIR_ENV, DevnetNotFound, find_devnet
from mech_catalogue_cli.devnet.state import DevnetInfo
from mech_catalogue_cli.folders import DEFAULTS, devnet_folders_help

from .output import CliFailure, Output

DEVNET_NOT_RUNNING = "devnet_not_running"
NO_DEVNET_OWNER = "no_devnet_owner"

#: ``devnet.json`` contract names of the three registries, by registry kind
#: (scripts/devnet/contracts.py deploys them).
DEVNET_REGISTRIES = (
    ("olas_agent_registry", "AgentRegistry"),
    ("legacy_mech_registry", "LegacyMechAgentRegistry"),
    ("complementary_service_metadata", "ComplementaryServiceMetadata"),
)
DEVNET_MULTICALL = "Multicall2"
DEVNET_MANAGER = "RegistriesManager"

_MULTIADDR = re.compile(
    r"^/(?P<proto>ip4|ip6|dns|dns4|dns6)/(?P<host>[^/]+)/tcp/(?P<port>\d{1,5})"
    r"(?P<scheme>/https?)?/?$"
)


@dataclass(frozen=True)
class DevnetSettings:
    """What a command takes from the running devnet.

    :param info: the devnet's ``devnet.json``.
    """

    info: DevnetInfo

    @property
    def registries(self) -> List[Dict[str, Any]]:
        """:return: ``[{"kind", "address", "ids": "all"}]`` for the three registry kinds."""
        return [
            {"kind": kind, "address": self.info.contracts[name], "ids": "all"}
            for kind, name in DEVNET_REGISTRIES
        ]

    def registry(self, kind: str) -> str:
        """Return the devnet's registry of a kind.

        :param kind: a registry kind.
        :return: its address.
        """
        return self.info.contracts[dict(DEVNET_REGISTRIES)[kind]]

    @property
    def manager(self) -> str:
        """:return: the RegistriesManager address (Olas AgentRegistry updates go through it)."""
        return self.info.contracts[DEVNET_MANAGER]

    @property
    def multicall(self) -> str:
        """:return: the Multicall2 address."""
        return self.info.contracts[DEVNET_MULTICALL]

    def owner_key(self, kind: str, mech_id: int) -> str:
        """Return the private key of the devnet account that owns a mech.

        Devnet keys are anvil's public test keys; the key is never printed.

        :param kind: the registry kind.
        :param mech_id: the agent or service id.
        :return: the hex private key.
        :raises CliFailure: when ``devnet.json`` records no owner for it, or the owner is
            not one of the devnet's accounts.
        """
        owners = [
            entry.owner
            for entry in self.info.registered
            if entry.registry == kind and entry.id == mech_id
        ]
        if kind == "complementary_service_metadata":
            service = self.info.services.get(str(mech_id))
            owners += [service["owner"]] if service else []
        keys = {
            str(account["address"]).lower(): str(account["private_key"])
            for account in self.info.accounts.values()
        }
        for owner in reversed(owners):
            if owner.lower() in keys:
                return keys[owner.lower()]
        raise CliFailure(
            NO_DEVNET_OWNER,
            f"The devnet in {self.info.state_dir} records no owner for {kind} #{mech_id} "
            "(`mech-catalogue list --devnet` shows its mechs); pass --key-file.",
        )


def load_devnet(devnet_dir: Optional[str]) -> DevnetSettings:
    """Find the running devnet (:func:`mech_catalogue_cli.devnet.locate.find_devnet`).

    :param devnet_dir: ``--devnet-dir``, or None.
    :return: its settings.
    :raises CliFailure: ``devnet_not_running``, naming where it looked and what to run.
    """
    try:
        return DevnetSettings(find_devnet(devnet_dir))
    except DevnetNotFound as exc:
        raise CliFailure(DEVNET_NOT_RUNNING, f"--devnet: {exc}") from exc


#: what each kind of command takes from the devnet (``--devnet``'s help says it)
USES_CHAIN_READS = (
    "its RPC, chain id, registries, Multicall2, MechMarketplace and IPFS gateway"
)
USES_GATEWAY = "its IPFS gateway"
USES_DERIVE = (
    "its RPC, Olas AgentRegistry and ComponentRegistry, Multicall2 and IPFS gateway"
)
USES_PUBLISH = (
    "its RPC, IPFS API, registries and RegistriesManager, and the mech owner's key"
)
USES_MCP = (
    "its RPC, chain id, registries, Multicall2, MechMarketplace, IPFS API and gateway, "
    "and a funded test account's key"
)
USES_PREPAY = "its RPC, MechMarketplace and a funded test account's key"


def devnet_options(uses: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add ``--devnet`` and ``--devnet-dir``; hand the command ``devnet`` (settings or None).

    :param uses: what the command takes from the devnet, for ``--devnet``'s help (one of
        the ``USES_*`` phrases: a help listing settings the command ignores misleads).
    :return: the decorator of a click command function taking ``devnet``.
    """
    return functools.partial(_with_devnet_options, uses=uses)


def _with_devnet_options(command: Callable[..., Any], uses: str) -> Callable[..., Any]:
    @click.option(
        "--devnet",
        "use_devnet",
        is_flag=True,
        help="Use the running local devnet (started from a checkout by `make devnet-up` "
        f"or `make run`): {uses}. Options given explicitly win.",
    )
    @click.option(
        "--devnet-dir",
        type=click.Path(file_okay=False),
        help=f"The devnet's folder (implies --devnet; default: ${DEVNET_DIR_ENV}, else "
        f"the running one of {devnet_folders_help(DEFAULTS)}).",
    )
    @functools.wraps(command)
    def wrapper(
        *args: Any, use_devnet: bool, devnet_dir: Optional[str], **kwargs: Any
    ) -> Any:
        devnet = None
        if use_devnet or devnet_dir:
            try:
                devnet = load_devnet(devnet_dir)
            except CliFailure as failure:
                ctx = click.get_current_context()
                as_json = (ctx.obj or {}).get("json") or ctx.params.get("as_json")
                Output(bool(as_json)).fail(failure)
        return command(*args, devnet=devnet, **kwargs)

    return wrapper


def given(name: str) -> bool:
    """Tell whether an option was given on the command line (not a default or env value).

    :param name: the parameter name.
    :return: True when typed by the user.
    """
    ctx = click.get_current_context()
    return ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE


def ipfs_api_url(value: str) -> str:
    """Turn the kubo RPC API address into a URL; the devnet prints it as a multiaddr.

    :param value: ``http(s)://host:port`` or a multiaddr such as
        ``/ip4/127.0.0.2/tcp/5001/http`` (``/https``; ``/dns4/...``; no scheme = http).
    :return: ``http://host:port`` (IPv6 hosts bracketed).
    :raises BadParameter: (exit 2) for anything else, naming ``--ipfs-api``.
    """
    if value.startswith(("http://", "https://")):
        return value.rstrip("/")
    match = _MULTIADDR.match(value)
    if not match or not 0 < int(match["port"]) < 65536:
        raise click.BadParameter(
            f"{value!r} is neither an http(s) URL nor a TCP multiaddr like "
            "/ip4/127.0.0.1/tcp/5001/http.",
            param_hint="'--ipfs-api'",
        )
    host = f"[{match['host']}]" if match["proto"] == "ip6" else match["host"]
    scheme = (match["scheme"] or "/http")[1:]
    return f"{scheme}://{host}:{int(match['port'])}"
