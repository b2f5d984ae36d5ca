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

"""``--chain NAME`` and ``--show-preset`` for ``list``, ``mcp``, ``publish`` and ``derive``.

``--chain`` takes a preset of :mod:`mech_catalogue_core.chain.presets` (its RPC, chain
id, registries, Multicall2, MechMarketplace and first blocks, gateways) or ``devnet``,
the running devnet (the same as ``--devnet``). Which value a command uses, per option:

1. the option typed on the command line;
2. else the preset's value (or the devnet's), when it has one;
3. else the option's environment variable or default.

A command that needs a value the preset lacks (e.g. ``mcp --chain celo``: no
MechMarketplace there) fails with a usage error naming the option to pass.
``--chain NAME --help`` prints the preset's values and their sources after the help;
``--show-preset`` prints only them.
"""

import functools
import json
from typing import Any, Callable, Dict, Optional, TypeVar

import click
from mech_catalogue_core.chain.marketplace import (
    DEFAULT_CONFIRMATIONS,
    MarketplaceConfigError,
    MarketplaceSource,
)
from mech_catalogue_core.chain.presets import (
    CHAIN_NAMES,
    DEVNET,
    ChainPreset,
    PresetValueMissing,
    chain_preset,
)

from .devnet_options import DevnetSettings, given

#: ``devnet.json`` names of the marketplace contracts (scripts/devnet/contracts.py)
DEVNET_MARKETPLACE = "MechMarketplace"
DEVNET_LEGACY_FACTORY = "FixtureLegacyMechFactory"

#: where the ``--chain`` preset is kept for the help text (``click.Context.meta``)
META_KEY = "mech_catalogue.chain_preset"

T = TypeVar("T")


class PresetCommand(click.Command):
    """A command whose ``--help`` ends with the ``--chain`` preset's values, if one is given."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Write the epilog, then the preset's values with their sources.

        :param ctx: the click context (``--chain`` is eager, so read before ``--help``).
        :param formatter: the help formatter.
        """
        super().format_epilog(ctx, formatter)
        preset = ctx.meta.get(META_KEY)
        if preset is None:
            return
        formatter.write_paragraph()
        heading = f"Preset {preset.name} (--chain {preset.name}; options given explicitly win)"
        with formatter.section(heading):
            formatter.write_dl(
                [
                    (name, f"{value}  [{source}]" if source else value)
                    for name, value, source in preset.rows()
                ]
            )


def _remember(
    ctx: click.Context, _param: click.Parameter, value: Optional[str]
) -> Optional[str]:
    """Keep the chosen preset where the help text can find it.

    :param ctx: the click context.
    :param _param: ``--chain``.
    :param value: the chain name (click's Choice has checked it), or None.
    :return: the name, lowercase.
    """
    if value is None:
        return None
    name = value.lower()
    if name != DEVNET:
        ctx.meta[META_KEY] = chain_preset(name)
    return name


def _show(preset: Optional[ChainPreset], as_json: bool) -> None:
    if preset is None:
        raise click.UsageError(
            "--show-preset needs --chain NAME (one of "
            f"{', '.join(n for n in CHAIN_NAMES if n != DEVNET)})."
        )
    if as_json:
        click.echo(
            json.dumps(
                {
                    "chain": preset.name,
                    "values": {
                        n: {"value": v, "source": s} for n, v, s in preset.rows()
                    },
                },
                indent=2,
            )
        )
        return
    click.echo(f"preset {preset.name}")
    for name, value, source in preset.rows():
        click.echo(f"  {name:<32} {value}" + (f"  [{source}]" if source else ""))


def chain_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--chain`` and ``--show-preset``; hand the command ``preset`` (or None).

    Apply it outside :func:`.devnet_options` (``--chain devnet`` turns ``--devnet`` on).

    :param command: a click command function taking ``preset`` and wrapped by
        :func:`.devnet_options`.
    :return: the decorated function.
    """

    @click.option(
        "--chain",
        type=click.Choice(CHAIN_NAMES, case_sensitive=False),
        callback=_remember,
        is_eager=True,
        help="Chain preset: its RPC, chain id, registries, Multicall2, MechMarketplace, "
        "first blocks and IPFS gateways (`--chain NAME --help` or --show-preset prints "
        "them with their sources). `devnet` is the running devnet (--devnet). "
        "Options given explicitly win.",
    )
    @click.option(
        "--show-preset",
        is_flag=True,
        help="Print the --chain preset's values and their sources, and exit.",
    )
    @functools.wraps(command)
    def wrapper(
        *args: Any, chain: Optional[str], show_preset: bool, **kwargs: Any
    ) -> Any:
        ctx = click.get_current_context()
        preset = ctx.meta.get(META_KEY) if chain not in (None, DEVNET) else None
        if show_preset:
            as_json = bool(kwargs.get("as_json") or (ctx.obj or {}).get("json"))
            _show(preset, as_json)
            ctx.exit(0)
        if chain == DEVNET:
            kwargs["use_devnet"] = True
        elif preset is not None and (
            kwargs.get("use_devnet") or kwargs.get("devnet_dir")
        ):
            raise click.UsageError(
                f"--chain {chain} and --devnet name two chains; give one of them."
            )
        return command(*args, preset=preset, **kwargs)

    return wrapper


def pick(name: str, value: T, preset_value: T) -> T:
    """Return an option's value: typed on the command line, else the preset's, else as is.

    :param name: the option's parameter name (e.g. ``rpc``).
    :param value: its value (typed, from the environment, or the default).
    :param preset_value: the preset's (or devnet's) value; empty when it has none.
    :return: the value to use.
    """
    return value if given(name) or not preset_value else preset_value


def need(preset: ChainPreset, name: str, option: str) -> Any:
    """Return a preset value the command cannot do without.

    :param preset: the ``--chain`` preset.
    :param name: the preset field.
    :param option: the option to pass instead (e.g. ``--marketplace ADDRESS``).
    :return: the value.
    :raises UsageError: (exit 2) when the preset has none, naming ``option``.
    """
    try:
        return preset.require(name, option)
    except PresetValueMissing as exc:
        raise click.UsageError(f"--chain {preset.name}: {exc}.") from exc


def devnet_values(devnet: DevnetSettings) -> Dict[str, Any]:
    """Return what the running devnet sets, under the option names of ``list`` and ``mcp``.

    :param devnet: the devnet's ``devnet.json``.
    :return: option name -> value (``confirmations`` 0: the devnet never reorganises).
    """
    info = devnet.info
    return {
        "rpc": info.rpc_url,
        "chain_id": info.chain_id,
        "gateway": info.ipfs_gateway_url,
        "ipfs_api": info.ipfs_api_url,
        "multicall": devnet.multicall,
        "registries": devnet.registries,
        "marketplace": info.contracts.get(DEVNET_MARKETPLACE, ""),
        "legacy_factory": info.contracts.get(DEVNET_LEGACY_FACTORY, ""),
        "confirmations": 0,
    }


def preset_values(preset: ChainPreset) -> Dict[str, Any]:
    """Return what a preset sets, under the option names of ``list`` and ``mcp``.

    :param preset: the ``--chain`` preset.
    :return: option name -> value ("" / 0 / empty where the preset has none).
    """
    return {
        "rpc": preset.rpc_url,
        "chain_id": preset.chain_id,
        "gateway": preset.ipfs_gateway,
        "fallback_gateways": preset.fallback_gateways,
        "multicall": preset.multicall2,
        "registries": preset.registries(),
        "marketplace": preset.mech_marketplace,
        "marketplace_first_block": preset.mech_marketplace_first_block,
        "legacy_factory": preset.legacy_mech_factory,
        "legacy_first_block": preset.legacy_mech_factory_first_block,
        "confirmations": DEFAULT_CONFIRMATIONS,
    }


def chain_settings(
    options: Dict[str, Any],
    devnet: Optional[DevnetSettings],
    preset: Optional[ChainPreset],
) -> Dict[str, Any]:
    """Resolve each option: typed, else the devnet's or preset's, else its default.

    With a preset, a typed ``--rpc`` drops the preset's chain id (the node is asked), and
    a typed ``--marketplace`` its first block and legacy factory. A preset with no RPC URL (mainnet) and
    no ``--rpc`` typed is a usage error (exit 2) asking for ``--rpc URL``.

    :param options: option name -> the value click gave (typed, environment or default).
    :param devnet: the running devnet (``--devnet``, ``--chain devnet``), or None.
    :param preset: the ``--chain`` preset, or None.
    :return: the options resolved, plus ``legacy_factory``, ``legacy_first_block`` and
        ``confirmations`` (what no option sets).
    """
    values: Dict[str, Any] = {
        "legacy_factory": "",
        "legacy_first_block": 0,
        "confirmations": DEFAULT_CONFIRMATIONS,
    }
    if devnet is not None:
        values.update(devnet_values(devnet))
    elif preset is not None:
        values.update(preset_values(preset))
        if given("rpc"):  # another node: its own eth_chainId, not the preset's
            values["chain_id"] = None
        else:
            need(preset, "rpc_url", "--rpc URL")
        if given("marketplace"):  # the preset's blocks and legacy factory are its own
            values.update(
                marketplace_first_block=0, legacy_factory="", legacy_first_block=0
            )
    resolved = {
        name: pick(name, value, values.get(name)) for name, value in options.items()
    }
    return {**values, **resolved}


def market_source(
    settings: Dict[str, Any], chain_id: int
) -> Optional[MarketplaceSource]:
    """Return the MechMarketplace to read, from resolved settings.

    :param settings: from :func:`chain_settings`.
    :param chain_id: the chain id.
    :return: the source, or None when no ``marketplace`` is set.
    :raises BadParameter: (exit 2) naming ``--marketplace`` when an address is malformed.
    """
    if not settings.get("marketplace"):
        return None
    try:
        return MarketplaceSource(
            chain_id,
            settings["marketplace"],
            first_block=settings.get("marketplace_first_block", 0),
            legacy_factory=settings["legacy_factory"],
            legacy_first_block=settings["legacy_first_block"],
            confirmations=settings["confirmations"],
        )
    except MarketplaceConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="'--marketplace'") from exc
