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

"""``mech-catalogue list``: mechs and tools of registries on a chain, read as the skill reads.

Runs the skill's own period code through :mod:`mech_catalogue_cli.sync_driver`: ``snapshot_reader``
(Multicall2 batches over ``eth_call``), ``manifest_fetcher`` (gateway GETs, bytes verified
against the on-chain digest) and ``refresh_catalogue`` (parse, quarantine). A mech whose
manifest is broken is listed with its status and problems; the command still exits 0.
A registry that holds no mech is named on stderr ("... holds no mechs"); that is a
successful read too (exit 0). Exit 1 when the chain cannot be read (RPC unreachable,
reverted supply read) or ``--devnet`` finds no running devnet, 2 on a bad command line
(click's usage errors, naming the option).
"""

from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import click
from mech_catalogue_core.chain.marketplace import (
    attach_facts,
)
from mech_catalogue_core.chain.presets import ChainPreset
from mech_catalogue_core.model.catalogue import Catalogue
from mech_catalogue_core.model.market import MechFacts
from mech_catalogue_core.model.tool import (
    REGISTRY_KINDS,
)

from mech_catalogue_cli.sync_driver import (
    SyncConfig,
)

from ..chain_options import (
    PresetCommand,
    chain_options,
    chain_settings,
    market_source,
)
from ..devnet_options import USES_CHAIN_READS, DevnetSettings, devnet_options
from ..folders import DEFAULTS
from ..output import CliFailure, Output
from ..sources import DEFAULT_TIMEOUT, GATEWAY_ENV, default_gateway
from .list_options import parse_gateway_option, parse_registry_option
from .list_read import ask_chain_id, read_market, registry_sources, sync_catalogue
from .list_render import (
    empty_registries,
    list_json,
    render_catalogue,
    render_market,
    say_empty,
)
from .publish_cmd import DEFAULT_RPC, RPC_ENV

#: where ``list --chain NAME`` keeps the marketplace scan's checkpoint between runs:
#: ``.mech-catalogue/list`` (relative) in a checkout, the user's state folder when
#: installed from a wheel (mech_catalogue_cli/folders.py)
DEFAULT_STATE_DIR = DEFAULTS.list


def read_catalogue(
    ctx: click.Context,
    out: Output,
    options: Dict[str, Any],
    devnet: Optional[DevnetSettings],
    preset: Optional[ChainPreset],
) -> Tuple[Catalogue, Optional[List[MechFacts]]]:
    """Read the registries and the marketplace as the skill does (``list``, ``search``).

    :param ctx: the click context.
    :param out: where errors are reported.
    :param options: the values of :func:`source_options`' options, by parameter name.
    :param devnet: the running devnet (``--devnet``, ``--chain devnet``), or None.
    :param preset: the ``--chain`` preset, or None.
    :return: the catalogue (marketplace facts attached) and every marketplace mech's
        facts (None when no marketplace was read). Empty registries are named on stderr.
    :raises UsageError: (exit 2) when no registry or no Multicall2 is given.
    """
    timeout = options["timeout"]
    state_dir = options["state_dir"]
    try:
        settings = chain_settings(
            {
                key: options[key]
                for key in (
                    "rpc",
                    "chain_id",
                    "gateway",
                    "fallback_gateways",
                    "multicall",
                    "registries",
                    "marketplace",
                    "marketplace_first_block",
                )
            },
            devnet,
            preset,
        )
        if not settings["registries"]:
            raise click.UsageError(
                "Give at least one --registry KIND:ADDRESS[:IDS], or --chain NAME.", ctx
            )
        if not settings["multicall"]:
            raise click.UsageError(
                "--multicall2 is required: the registries are read in Multicall2 "
                "batches (or use --chain NAME).",
                ctx,
            )
        chain = settings["chain_id"] or ask_chain_id(settings["rpc"], timeout)
        config = SyncConfig(
            rpc_url=settings["rpc"],
            gateway_url=str(settings["gateway"]).rstrip("/"),
            sources=registry_sources(settings["registries"], chain),
            multicall=settings["multicall"],
            rpc_timeout=timeout,
            fetch_timeout=timeout,
            fallback_gateway_urls=tuple(settings["fallback_gateways"]),
        )
        market = market_source(settings, chain)
        catalogue = sync_catalogue(config, out.errors)
    except CliFailure as failure:
        out.fail(failure)
    kept = Path(state_dir) if state_dir else (DEFAULT_STATE_DIR if preset else None)
    facts = read_market(config, market, out.errors, kept) if market else None
    catalogue = attach_facts(catalogue, facts or ())
    say_empty(empty_registries(catalogue, config.sources), out.errors)
    return catalogue, facts


def source_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the options that say where the catalogue is read from (shared with ``search``).

    ``--rpc``, ``--chain-id``, ``--registry``, ``--multicall2``, ``--marketplace``,
    ``--marketplace-first-block``, ``--ipfs-gateway``, ``--fallback-gateway``,
    ``--timeout`` and ``--state-dir``; :func:`read_catalogue` takes them. Apply
    :func:`.chain_options` and :func:`.devnet_options` too.

    :param command: a click command function.
    :return: the decorated function.
    """
    for option in reversed(_SOURCE_OPTIONS):
        command = option(command)
    return command


_SOURCE_OPTIONS: Tuple[Callable[[Any], Any], ...] = (
    click.option(
        "--rpc",
        envvar=RPC_ENV,
        default=DEFAULT_RPC,
        show_default=f"${RPC_ENV} or {DEFAULT_RPC}",
        help="JSON-RPC URL of the chain.",
        metavar="URL",
    ),
    click.option(
        "--chain-id",
        type=click.IntRange(min=1),
        help="Chain id (default: asked of the RPC with eth_chainId).",
    ),
    click.option(
        "--registry",
        "registries",
        multiple=True,
        callback=parse_registry_option,
        metavar="KIND:ADDRESS[:IDS]",
        help=f"Registry to read (repeatable). KIND: {', '.join(REGISTRY_KINDS)}; "
        "IDS: all (default), 1,2,5 or 1-20.",
    ),
    click.option(
        "--multicall2",
        "multicall",
        help="Multicall2 contract address.",
        metavar="ADDRESS",
    ),
    click.option(
        "--marketplace",
        default="",
        help="MechMarketplace address: its mechs are listed with address, price, payment "
        "type, karma and deliveries (--chain: the preset's).",
        metavar="ADDRESS",
    ),
    click.option(
        "--marketplace-first-block",
        type=click.IntRange(min=0),
        default=0,
        help="Block the MechMarketplace was deployed at; its CreateMech logs are read from "
        "there (--chain: the preset's).",
    ),
    click.option(
        "--ipfs-gateway",
        "gateway",
        default=default_gateway,
        show_default=f"${GATEWAY_ENV} or http://127.0.0.1:8080",
        help="IPFS HTTP gateway the manifests are fetched from.",
        metavar="URL",
    ),
    click.option(
        "--fallback-gateway",
        "--gateway",
        "fallback_gateways",
        multiple=True,
        callback=parse_gateway_option,
        metavar="URL",
        help="Further IPFS HTTP gateway (repeatable), tried in this order when "
        "--ipfs-gateway fails or rate-limits; a failing one is skipped until it recovers.",
    ),
    click.option(
        "--timeout",
        type=click.FloatRange(min=0.1),
        default=DEFAULT_TIMEOUT,
        show_default=True,
        help="Seconds per eth_call and per IPFS request.",
    ),
    click.option(
        "--state-dir",
        type=click.Path(file_okay=False),
        help="Folder where the marketplace scan's checkpoint is kept, so the next run reads "
        f"only new blocks (default with a public --chain: {DEFAULT_STATE_DIR}; else not kept).",
    ),
)


@click.command(
    name="list",
    cls=PresetCommand,
    help="List mechs and their tools from registries on a chain, read as the skill "
    "reads them (Multicall2 batches, manifests fetched and verified against the "
    "on-chain digest, parsed, broken ones quarantined), and every mech the "
    "MechMarketplace created: address, price, payment type, karma, requests, "
    "deliveries and liveness, read as the agent reads them.\n\nExit codes: 0 read "
    "(broken mechs are listed with their problems; an empty registry is named on "
    "stderr), 1 the chain could not be read or no devnet runs, 2 usage error.",
    epilog="\b\nExamples:\n"
    "  mech-catalogue list --chain devnet\n"
    "  mech-catalogue list --chain gnosis --mechs-only\n"
    "  mech-catalogue list --chain gnosis --show-preset\n"
    "  mech-catalogue list --rpc https://rpc.gnosischain.com --chain-id 100 \\\n"
    "      --multicall2 0xcA11bde05977b3631167028862bE2a173976CA11 \\\n"
    "      --registry complementary_service_metadata:0x0598081D48FB80B0A7E52FAD2905AE9beCd6fC69:1-50",
)
@source_options
@click.option(
    "--tools/--mechs-only",
    "with_tools",
    default=True,
    help="Also list each mech's tools (default), or only the mechs.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the catalogue JSON (with every marketplace mech in marketplace_mechs).",
)
@click.pass_context
@chain_options
@devnet_options(USES_CHAIN_READS)
def list_mechs(  # pylint: disable=too-many-arguments,too-many-locals
    ctx: click.Context,
    *,
    rpc: str,
    chain_id: Optional[int],
    registries: List[Dict[str, Any]],
    multicall: Optional[str],
    marketplace: str,
    marketplace_first_block: int,
    gateway: str,
    fallback_gateways: Tuple[str, ...],
    timeout: float,
    devnet: Optional[DevnetSettings],
    preset: Optional[ChainPreset],
    state_dir: Optional[str],
    with_tools: bool,
    as_json: bool,
) -> None:
    """List mechs and their tools from registries on a chain, as the skill reads them.

    No registry or no Multicall2 given is a usage error (exit 2, :func:`read_catalogue`).

    :param ctx: the click context.
    :param rpc: ``--rpc``.
    :param chain_id: ``--chain-id``.
    :param registries: ``--registry`` entries.
    :param multicall: ``--multicall2``.
    :param marketplace: ``--marketplace``.
    :param marketplace_first_block: ``--marketplace-first-block``.
    :param gateway: ``--ipfs-gateway``.
    :param fallback_gateways: ``--fallback-gateway`` URLs, in order.
    :param timeout: ``--timeout``.
    :param devnet: the running devnet (``--devnet``, ``--chain devnet``), or None.
    :param preset: the ``--chain`` preset, or None.
    :param state_dir: ``--state-dir``, or None.
    :param with_tools: ``--tools/--mechs-only``.
    :param as_json: ``--json``.
    """
    out = Output(as_json or bool((ctx.obj or {}).get("json")))
    catalogue, facts = read_catalogue(
        ctx,
        out,
        {
            "rpc": rpc,
            "chain_id": chain_id,
            "gateway": gateway,
            "fallback_gateways": fallback_gateways,
            "multicall": multicall,
            "registries": registries,
            "marketplace": marketplace,
            "marketplace_first_block": marketplace_first_block,
            "timeout": timeout,
            "state_dir": state_dir,
        },
        devnet,
        preset,
    )
    if out.as_json:
        click.echo(list_json(catalogue, facts))
        return
    render_catalogue(catalogue, with_tools, out.console)
    if facts is not None:
        render_market(facts, catalogue, out.console)
