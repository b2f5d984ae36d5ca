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

"""``mech-catalogue mcp``: serve the catalogue as MCP tools; a call is a paid mech request.

See docs/mcp.md. The server logic is :mod:`mech_catalogue_cli.mcp_server`; this module
declares the options and turns them into its settings; :mod:`.mcp_run` picks the
catalogue source and the paying marketplace, and starts the server. Nothing is printed
on stdout (stdio is the protocol); logs go to stderr and never carry the key.
"""

import logging
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import click
from mech_catalogue_core.chain.presets import DEFAULT_FINAL_DEPTH, ChainPreset
from mech_catalogue_core.model.payment import (
    ASSET_NATIVE,
    ASSETS,
    AssetAmountError,
    parse_asset_amounts,
)
from mech_catalogue_core.model.references import DOCS_URL

from mech_catalogue_cli.mcp_server.first_read import START_WAIT
from mech_catalogue_cli.mcp_server.http_access import (
    REMOTE_REFUSED,
    HttpAccess,
    RemoteRefused,
    http_access,
)
from mech_catalogue_cli.mcp_server.option_defaults import (
    AUTO_THRESHOLD,
    IO_TIMEOUT,
    DiscoveryMode,
    OffchainMode,
)

from ..chain_options import (
    PresetCommand,
    chain_options,
    chain_settings,
    need,
)
from ..devnet_options import USES_MCP, DevnetSettings, devnet_options, ipfs_api_url
from ..folders import DEFAULTS
from ..keys import load_key
from ..output import CliFailure, Output
from ..redaction import install_log_redaction, register_urls
from ..sources import GATEWAY_ENV, default_gateway
from .gas_options import choose_tip, chosen_max_fee_per_gas, gas_options
from .list_options import parse_registry_option
from .publish_cmd import DEFAULT_RPC, RPC_ENV

KEY_ENV = "MECH_CATALOGUE_MCP_KEY"
IPFS_API_ENV = "MECH_CATALOGUE_IPFS_API"
DEFAULT_IPFS_API = "http://127.0.0.1:5001"
#: the devnet account that pays when no key is given (an anvil test key)
DEVNET_REQUESTER_ROLE = "stranger"
#: the call journal's folder: ``.mech-catalogue/mcp`` (relative) in a checkout, the user's
#: state folder when installed from a wheel (mech_catalogue_cli/folders.py)
DEFAULT_STATE_DIR = DEFAULTS.mcp


def _asset_caps(
    ctx: click.Context, param: click.Parameter, values: Tuple[str, ...]
) -> Dict[str, int]:
    """Read repeated ``[asset=]amount`` caps (``model.payment.parse_asset_amounts``)."""
    try:
        return parse_asset_amounts(values)
    except AssetAmountError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


def _token_caps(caps: Dict[str, int], devnet: bool) -> Dict[str, int]:
    """The token assets' caps: an asset without its own is capped at 0 (never paid).

    Only a devnet run given no cap at all leaves tokens uncapped, as it leaves native:
    a cap for native alone must not let an LLM's call pay an uncapped token instead.

    :param caps: ``--max-price`` or ``--max-spend`` by asset.
    :param devnet: paying on the devnet.
    :return: asset -> cap, native left out.
    """
    tokens = {a: caps[a] for a in caps if a != ASSET_NATIVE}
    if caps or not devnet:
        tokens = {a: tokens.get(a, 0) for a in ASSETS if a != ASSET_NATIVE}
    return tokens


def chosen_final_depth(flag: Optional[int], preset: Optional[ChainPreset]) -> int:
    """The depth at which the server counts a mined transaction final.

    :param flag: ``--final-depth`` (None: not given).
    :param preset: the ``--chain`` preset (None: the devnet, or a custom ``--rpc``).
    :return: blocks: the flag, else the preset's ``final_depth`` (with its source in
        :mod:`mech_catalogue_core.chain.presets`), else ``DEFAULT_FINAL_DEPTH``.
    """
    if flag is not None:
        return flag
    return preset.final_depth if preset is not None else DEFAULT_FINAL_DEPTH


def chosen_block_seconds(preset: Optional[ChainPreset]) -> Optional[float]:
    """The chain's least seconds between blocks: a bound on how soon a final block can come.

    A wait that cannot end within ``--timeout`` is then said at once.

    :param preset: the ``--chain`` preset (None: the devnet, or a custom ``--rpc``).
    :return: seconds (the preset's ``block_seconds``, with its source in
        :mod:`mech_catalogue_core.chain.presets`), or None when not known: the devnet
        mines on demand, a custom ``--rpc`` names no chain, and held calls keep asking.
    """
    return (preset.block_seconds or None) if preset is not None else None


def _check_auto_prepay(
    auto_prepay: Dict[str, int], max_spend: Dict[str, int], offchain: str
) -> None:
    """Refuse an ``--auto-prepay`` that no cap bounds or that can never apply.

    :param auto_prepay: ``--auto-prepay``, asset -> smallest units.
    :param max_spend: ``--max-spend``, asset -> smallest units.
    :param offchain: ``--offchain``.
    :raises UsageError: (exit 2) for an asset without its own ``--max-spend``, a zero
        amount, an amount over the asset's cap, or ``--offchain never``.
    """
    if not auto_prepay:
        return
    if offchain == OffchainMode.NEVER.value:
        raise click.UsageError(
            "--auto-prepay deposits only after an off-chain 402: give --offchain auto "
            "or --offchain only"
        )
    for asset, amount in sorted(auto_prepay.items()):
        cap = max_spend.get(asset)
        if cap is None:
            raise click.UsageError(
                f"--auto-prepay {asset}={amount} needs --max-spend {asset}=... (the "
                "deposits count against it: an LLM's calls never deposit past a cap)"
            )
        if amount <= 0 or amount > cap:
            raise click.UsageError(
                f"--auto-prepay {asset}={amount} must be above 0 and at most "
                f"--max-spend {asset}={cap}"
            )


#: ``--spend-window`` units: seconds per suffix
_DURATION_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def _duration(
    ctx: click.Context, param: click.Parameter, value: Optional[str]
) -> Optional[float]:
    """Read a duration: a number of seconds, or one with an ``s``/``m``/``h``/``d`` suffix.

    :param ctx: click's context.
    :param param: the option.
    :param value: e.g. ``24h``, ``90m``, ``3600``; ``run`` for this run only.
    :return: seconds (None for ``run``).
    :raises BadParameter: for anything else, or a duration not above zero.
    """
    if value is None or value.strip().lower() == "run":
        return None
    text = value.strip().lower()
    unit = _DURATION_UNITS.get(text[-1:], 0.0)
    number = text[:-1] if unit else text
    try:
        seconds = float(number) * (unit or 1.0)
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is no duration (e.g. 24h, 90m, 7d, 3600, or run)", ctx, param
        ) from None
    if not 0 < seconds < float("inf"):
        raise click.BadParameter("must be above zero", ctx, param)
    return seconds


def guarded_http(  # pylint: disable=too-many-arguments
    transport: str,
    host: str,
    port: int,
    allow_remote: bool,
    token_file: Optional[str],
    extra_hosts: Tuple[str, ...],
) -> Optional[HttpAccess]:
    """The HTTP endpoint's guard, or a failure naming what to give.

    :param transport: ``--transport``.
    :param host: ``--host``.
    :param port: ``--port``.
    :param allow_remote: ``--allow-remote``.
    :param token_file: ``--auth-token-file``.
    :param extra_hosts: ``--allowed-host``.
    :return: the guard (None for stdio).
    :raises CliFailure: for a refused host or token file.
    """
    if transport != "http":
        return None
    try:
        return http_access(host, port, allow_remote, token_file, extra_hosts)
    except RemoteRefused as exc:
        raise CliFailure(REMOTE_REFUSED, str(exc)) from None


@click.command(
    name="mcp",
    cls=PresetCommand,
    help="Serve the catalogue as an MCP server: tools/list lists the mech tools a call can "
    "pay for (checked schemas, the price in each description, offers in _meta; "
    "--all-tools for every tool); tools/call validates the arguments, "
    "picks a mech, uploads the request to IPFS, pays the mech through MechMarketplace, "
    "waits for the delivery and returns the verified response.\n\n"
    f"\b\nGuide:\n{DOCS_URL}/mcp.md",  # \b: click keeps the line whole
    epilog="\b\nExamples:\n"
    "  mech-catalogue mcp --chain devnet\n"
    "  mech-catalogue mcp --chain gnosis --max-price 20000000000000000 "
    "--max-spend 100000000000000000 --key-file requester.key\n"
    "  mech-catalogue mcp --devnet --transport http --port 8765 --max-price 20000000000000000\n"
    "  mech-catalogue mcp --agent http://127.0.0.1:8000 --rpc https://rpc.gnosischain.com \\\n"
    "      --marketplace 0x735FAAb1c4Ec41128c367AFb5c3baC73509f70bB --dry-run",
)
@click.option(
    "--agent",
    help="A running agent's HTTP API base URL (catalogue source).",
    metavar="URL",
)
@click.option(
    "--rpc",
    default=lambda: os.environ.get(RPC_ENV, DEFAULT_RPC),
    show_default=f"${RPC_ENV} or {DEFAULT_RPC}",
    help="Chain JSON-RPC URL.",
    metavar="URL",
)
@click.option(
    "--chain-id", type=click.IntRange(min=1), help="Chain id (default: asked of --rpc)."
)
@click.option(
    "--registry",
    "registries",
    multiple=True,
    callback=parse_registry_option,
    metavar="KIND:ADDRESS[:IDS]",
    help="Registry to read directly (repeatable).",
)
@click.option(
    "--multicall2",
    "multicall",
    help="Multicall2 address (direct read).",
    metavar="ADDRESS",
)
@click.option(
    "--marketplace",
    help="MechMarketplace address (requests are sent there).",
    metavar="ADDRESS",
)
@click.option(
    "--marketplace-first-block",
    type=click.IntRange(min=0),
    default=0,
    help="Block the MechMarketplace was deployed at (mech discovery starts there).",
)
@click.option(
    "--ipfs-api",
    default=lambda: os.environ.get(IPFS_API_ENV, DEFAULT_IPFS_API),
    show_default=f"${IPFS_API_ENV} or {DEFAULT_IPFS_API}",
    help="kubo RPC API the requests are added through (URL or multiaddr).",
    metavar="URL|MULTIADDR",
)
@click.option(
    "--ipfs-gateway",
    "gateway",
    default=default_gateway,
    show_default=f"${GATEWAY_ENV} or http://127.0.0.1:8080",
    help="IPFS gateway manifests and responses are fetched from.",
    metavar="URL",
)
@click.option(
    "--key-file",
    type=click.Path(dir_okay=False),
    help=f"File with the paying account's hex key (else ${KEY_ENV}; with "
    "--devnet, a devnet test account). Never logged or returned.",
)
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio (desktop clients launch it) or Streamable HTTP.",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="HTTP bind address.",
    metavar="HOST",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8765,
    show_default=True,
    help="HTTP port (the endpoint is /mcp).",
)
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Serve HTTP on a non-loopback --host (needs --auth-token-file).",
)
@click.option(
    "--auth-token-file",
    type=click.Path(dir_okay=False),
    help="File with the bearer token HTTP clients must send (never on the command "
    "line; never logged).",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    help="Another Host name the HTTP endpoint answers to (repeatable).",
)
@click.option(
    "--max-price",
    multiple=True,
    callback=_asset_caps,
    help="Most one call may pay, per asset: [native|olas|usdc|credits=]amount in the asset's "
    "smallest unit (repeatable; a bare amount is wei of native; e.g. --max-price 2e16 "
    "--max-price olas=1e18 --max-price usdc=2e6; credits=10 for subscription mechs). Native is "
    "required to pay, except on "
    "the devnet; a token without its own cap is never paid once any cap is given (or off "
    "the devnet).",
)
@click.option(
    "--max-spend",
    multiple=True,
    callback=_asset_caps,
    help="Most paid in total, per asset, as --max-price (e.g. --max-spend native=1e17 "
    "--max-spend olas=5e18 --max-spend usdc=2e6); each counts the requests of its "
    "asset journalled by earlier or other runs in the same --state-dir within "
    "--spend-window (required to pay, except on the devnet).",
)
@click.option(
    "--spend-window",
    callback=_duration,
    default="24h",
    show_default=True,
    help="How far back every asset's --max-spend counts: a duration (24h, 90m, 7d, "
    "seconds) or 'run' for this server run only.",
)
@click.option(
    "--final-depth",
    type=click.IntRange(min=1),
    default=None,
    help="Blocks below the head at which a mined transaction counts as final: a call "
    "whose request is not on chain while its account nonce is taken (mined and "
    "reverted, cancelled, dropped by a reorg) pays no other request until then. "
    "Not given: the node's 'finalized' block, else the --chain preset's depth, else "
    "64; given: this depth, the node's 'finalized' block not read (see the mcp "
    "document).",
    metavar="BLOCKS",
)
@click.option(
    "--mech",
    "pinned",
    default="",
    help="Only pay this mech (contract address " "or catalogue entry key).",
    metavar="ADDRESS|KEY",
)
@click.option(
    "--allow-mech",
    "allowed",
    multiple=True,
    metavar="MECH",
    help="Pay only these mechs (repeatable; contract address or catalogue entry key, "
    "as mech-interact's valid_mechs). By default the mech that first delivered since "
    "its manifests declared the tool as it is now is paid; karma, counts and age "
    "never decide.",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Return the transaction and request payload "
    "instead of sending (nothing is uploaded or paid).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=300.0,
    show_default=True,
    help="Seconds to wait for a delivery.",
)
@click.option(
    "--io-timeout",
    type=click.FloatRange(min=0.1),
    default=IO_TIMEOUT,
    show_default=True,
    help="Seconds per IPFS upload or fetch, and to wait for a sent transaction's receipt "
    "(one not mined by then is reported; calling again does not pay twice).",
)
@click.option(
    "--delivery-poll",
    type=click.FloatRange(min=0.05),
    default=1.0,
    show_default=True,
    help="Seconds between delivery checks (and progress notifications) during a call.",
)
@click.option(
    "--poll",
    type=click.FloatRange(min=0.1),
    default=30.0,
    show_default=True,
    help="Seconds between catalogue reads (tools/list_changed on a new digest).",
)
@click.option(
    "--start-wait",
    type=click.FloatRange(min=0.1),
    default=START_WAIT,
    show_default=True,
    help="Seconds the start waits for the first catalogue read; past that the server "
    "serves with no tool listed, and sends tools/list_changed once it is read.",
)
@click.option(
    "--page-size",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="Tools per tools/list page.",
)
@click.option(
    "--discovery",
    type=click.Choice([mode.value for mode in DiscoveryMode]),
    default=DiscoveryMode.AUTO.value,
    show_default=True,
    help="What tools/list lists: 'list' the tools themselves; 'search' three tools "
    "(search_tools, describe_tool, call_tool) to find, read and call them; 'auto' "
    f"search above {AUTO_THRESHOLD} listed tools (clients cap tools, each costs "
    "context).",
)
@click.option(
    "--offchain",
    type=click.Choice([mode.value for mode in OffchainMode]),
    default=OffchainMode.NEVER.value,
    show_default=True,
    help="Post calls to a mech's declared endpoint (its manifest's url) as a signed "
    "request paid from your prepaid balance, no transaction: 'auto' when the mech "
    "declares one and the prepaid balance covers the price, else on chain; 'only' "
    "such mechs only (a short balance is an error naming what to prepay); 'never' "
    "(default: mechs ship the off-chain route disabled).",
)
@click.option(
    "--auto-prepay",
    multiple=True,
    callback=_asset_caps,
    metavar="ASSET=AMOUNT",
    help="Opt in to one automatic deposit per call when a mech's endpoint answers 402 "
    "(--offchain auto|only): AMOUNT of ASSET, smallest units as --max-spend (e.g. "
    "native=5e16), into the marketplace's balance tracker of the mech's payment type, "
    "when the shortfall read on chain is at most AMOUNT; counted by --max-spend (which "
    "this needs for the asset); then the same signed request once more. With auto, "
    "mechs of an opted-in asset are posted to first. Off by default.",
)
@click.option(
    "--all-tools",
    is_flag=True,
    help="List every tool, also those no mech can be paid for here (token-paid, legacy, "
    "unconfirmed, over --max-price); by default only payable tools are listed, each "
    "with its price in the description.",
)
@click.option(
    "--pin",
    "pin_file",
    type=click.Path(dir_okay=False),
    default="",
    help="File of approved tool definitions: a tool not in it is approved when first "
    "listed; a tool whose definition changed since is not listed nor callable until its "
    "entry is deleted (see the mcp document).",
)
@click.option(
    "--state-dir",
    type=click.Path(file_okay=False),
    default=str(DEFAULT_STATE_DIR),
    show_default=True,
    help="Folder of the call journal (retries never pay twice) and of the output "
    "schemas served to sessionless HTTP clients (kept across restarts).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print a failure to start (bad source or key) as JSON on stdout.",
)
@gas_options
@click.pass_context
@chain_options
@devnet_options(USES_MCP)
def mcp(  # noqa: C901  # pylint: disable=too-many-arguments,too-many-locals
    ctx: click.Context,
    *,
    agent: Optional[str],
    rpc: str,
    chain_id: Optional[int],
    registries: List[Dict[str, Any]],
    multicall: Optional[str],
    marketplace: Optional[str],
    marketplace_first_block: int,
    ipfs_api: str,
    gateway: str,
    key_file: Optional[str],
    transport: str,
    host: str,
    port: int,
    allow_remote: bool,
    auth_token_file: Optional[str],
    allowed_hosts: Tuple[str, ...],
    max_price: Dict[str, int],
    max_spend: Dict[str, int],
    spend_window: Optional[float],
    final_depth: Optional[int],
    max_gas: int,
    max_fee_per_gas: Optional[int],
    priority_fee_per_gas: Optional[int],
    pinned: str,
    allowed: Tuple[str, ...],
    dry_run: bool,
    timeout: float,
    io_timeout: float,
    delivery_poll: float,
    poll: float,
    start_wait: float,
    page_size: int,
    discovery: str,
    offchain: str,
    auto_prepay: Dict[str, int],
    all_tools: bool,
    pin_file: str,
    state_dir: str,
    devnet: Optional[DevnetSettings],
    preset: Optional[ChainPreset],
    as_json: bool,
) -> None:
    """Serve the catalogue over MCP (see the command help and docs/mcp.md).

    A ``--registry`` the reader rejects, or paying off the devnet without
    ``--max-price`` and ``--max-spend``, is a usage error (exit 2, from :mod:`.mcp_run`).

    :param ctx: the click context.
    :param agent: ``--agent``.
    :param rpc: ``--rpc``.
    :param chain_id: ``--chain-id``.
    :param registries: ``--registry``.
    :param multicall: ``--multicall2``.
    :param marketplace: ``--marketplace``.
    :param marketplace_first_block: ``--marketplace-first-block``.
    :param ipfs_api: ``--ipfs-api``.
    :param gateway: ``--ipfs-gateway``.
    :param key_file: ``--key-file``.
    :param transport: ``--transport``.
    :param host: ``--host``.
    :param port: ``--port``.
    :param allow_remote: ``--allow-remote``.
    :param auth_token_file: ``--auth-token-file``.
    :param allowed_hosts: ``--allowed-host``.
    :param max_price: ``--max-price``, asset -> smallest units.
    :param max_spend: ``--max-spend``, asset -> smallest units.
    :param spend_window: ``--spend-window``, seconds (None: this run only).
    :param final_depth: ``--final-depth`` (None: the preset's, else the default).
    :param max_gas: ``--max-gas``: the most gas one signed transaction may use.
    :param max_fee_per_gas: ``--max-fee-per-gas``, wei (None: the chain's default,
        :func:`.gas_options.chosen_max_fee_per_gas`).
    :param priority_fee_per_gas: ``--priority-fee-per-gas``, wei (None: the chain's
        least tip, or the node's suggestion: :func:`.gas_options.choose_tip`).
    :param pinned: ``--mech``.
    :param allowed: ``--allow-mech`` (repeatable).
    :param dry_run: ``--dry-run``.
    :param timeout: ``--timeout``.
    :param io_timeout: ``--io-timeout``.
    :param delivery_poll: ``--delivery-poll``.
    :param poll: ``--poll``.
    :param start_wait: ``--start-wait``.
    :param page_size: ``--page-size``.
    :param discovery: ``--discovery``.
    :param offchain: ``--offchain``.
    :param auto_prepay: ``--auto-prepay``, asset -> smallest units per deposit.
    :param all_tools: ``--all-tools``.
    :param pin_file: ``--pin``.
    :param state_dir: ``--state-dir``.
    :param devnet: the running devnet (``--devnet``, ``--chain devnet``), or None.
    :param preset: the ``--chain`` preset, or None.
    :param as_json: ``--json``.
    """
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(levelname)s %(message)s"
    )
    install_log_redaction()
    out = Output(as_json or bool((ctx.obj or {}).get("json")))
    # the server's modules (web3, the MCP SDK) load once the options are read: `--help`
    # and a refused option answer without them
    # pylint: disable-next=import-outside-toplevel
    from mech_catalogue_cli.mcp_server.settings import CallSettings

    from .mcp_run import (  # pylint: disable=import-outside-toplevel
        MechToolServer,
        catalogue_source,
        paying_market,
        start,
    )

    try:
        access = guarded_http(
            transport, host, port, allow_remote, auth_token_file, allowed_hosts
        )
        devnet_key = ""
        chosen = chain_settings(
            {
                "rpc": rpc,
                "chain_id": chain_id,
                "gateway": gateway,
                "ipfs_api": ipfs_api,
                "multicall": multicall,
                "registries": registries,
                "marketplace": marketplace,
                "marketplace_first_block": marketplace_first_block,
            },
            devnet,
            preset,
        )
        gateway, ipfs_api = chosen["gateway"], chosen["ipfs_api"]
        register_urls(  # their keys: out of every error text and log record
            chosen["rpc"],
            gateway,
            ipfs_api,
            agent,
            *chosen.get("fallback_gateways", ()),
        )
        if preset is not None and not agent and not chosen["marketplace"]:
            need(preset, "mech_marketplace", "--marketplace ADDRESS")
        if devnet is not None:
            info = devnet.info
            devnet_key = str(info.accounts[DEVNET_REQUESTER_ROLE]["private_key"])
        _check_auto_prepay(auto_prepay, max_spend, offchain)
        key = load_key(key_file, KEY_ENV, devnet_key)
        source = catalogue_source(agent, chosen, state_dir)
        market, journal = paying_market(
            key,
            chosen,
            state_dir,
            paying_off_devnet=not dry_run and devnet is None,
            bounds=(max_price.get(ASSET_NATIVE), max_spend.get(ASSET_NATIVE)),
            gas_bounds=(max_gas, chosen_max_fee_per_gas(max_fee_per_gas, preset)),
        )
        if market is not None:  # the depth given: used instead of the node's tag
            market.finalized_tag = final_depth is None
            choose_tip(market, priority_fee_per_gas, preset, devnet is not None)
        settings = CallSettings(
            gateway_url=gateway.rstrip("/"),
            ipfs_api_url=ipfs_api_url(ipfs_api),
            max_price=max_price.get(ASSET_NATIVE),
            max_spend=max_spend.get(ASSET_NATIVE),
            spend_window=spend_window,
            token_max_price=_token_caps(max_price, devnet is not None),
            token_max_spend=_token_caps(max_spend, devnet is not None),
            pinned=pinned,
            allowed=tuple(allowed),
            dry_run=dry_run or market is None,
            timeout=timeout,
            io_timeout=io_timeout,
            delivery_poll=delivery_poll,
            poll_seconds=poll,
            page_size=page_size,
            all_tools=all_tools,
            pin_file=pin_file,
            discovery=discovery,
            offchain=offchain,
            auto_prepay=auto_prepay,
            final_depth=chosen_final_depth(final_depth, preset),
            block_seconds=chosen_block_seconds(preset),
        )
        start(
            MechToolServer(
                source, settings, market, journal, Path(state_dir) if journal else None
            ),
            transport,
            host,
            port,
            access,
            start_wait=start_wait,
        )
    except CliFailure as failure:
        out.fail(failure)
