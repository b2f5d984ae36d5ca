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

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple
from urllib.parse import urlsplit

import click
import requests
from mech_catalogue_core.catalogue.fetching import (
    refresh_catalogue,
)
from mech_catalogue_core.chain.marketplace import (
    MarketplaceSource,
    attach_facts,
)
from mech_catalogue_core.chain.presets import ChainPreset
from mech_catalogue_core.chain.registry import (
    IDS_ALL,
    ChainReadError,
    RegistryConfigError,
    RegistryDecodeError,
    RegistrySource,
    parse_registry_sources,
)
from mech_catalogue_core.model.canonical import canonical_text
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.market import (
    MECH_KIND_LEGACY,
    UNREAD_NOT_APPLICABLE,
    MechFacts,
)
from mech_catalogue_core.model.payment import plan_payment
from mech_catalogue_core.model.tool import (
    REGISTRY_KINDS,
    Tool,
)
from rich.console import Console
from rich.table import Table

from mech_catalogue_cli.code_source import derive_catalogue
from mech_catalogue_cli.marketplace_driver import (
    MarketplaceReader,
    checkpoint_path,
    load_checkpoint,
    save_checkpoint,
)
from mech_catalogue_cli.sync_driver import (
    CatalogueSync,
    SyncConfig,
    fetch_manifests,
    parse,
    read_snapshot,
)

from ..chain_options import (
    PresetCommand,
    chain_options,
    chain_settings,
    market_source,
)
from ..devnet_options import DevnetSettings, devnet_options
from ..folders import DEFAULTS
from ..keys import redacted_url, without_url
from ..output import CliFailure, Output, print_problem
from ..sources import DEFAULT_TIMEOUT, GATEWAY_ENV, default_gateway
from .publish_cmd import DEFAULT_RPC, RPC_ENV

CHAIN_READ_FAILED = "chain_read_failed"
#: where ``list --chain NAME`` keeps the marketplace scan's checkpoint between runs:
#: ``.mech-catalogue/list`` (relative) in a checkout, the user's state folder when
#: installed from a wheel (mech_catalogue_cli/folders.py)
DEFAULT_STATE_DIR = DEFAULTS.list


def _ids(text: str) -> Any:
    """Turn ``all``, ``1,2,5`` or ``1-20`` into the ``ids`` value of the skill parameter.

    :param text: the IDS part of ``--registry``.
    :return: ``"all"``, a list of ints or ``{"from": a, "to": b}`` (``int()``'s
        ``ValueError`` when it is none of these).
    """
    if text == "all":
        return "all"
    if "-" in text:
        start, end = text.split("-", 1)
        return {"from": int(start), "to": int(end)}
    return [int(part) for part in text.split(",")]


def parse_registry_option(
    ctx: click.Context, param: click.Parameter, values: Sequence[str]
) -> List[Dict[str, Any]]:
    """Parse each ``--registry KIND:ADDRESS[:IDS]`` into a skill ``registries`` entry.

    :param ctx: the click context.
    :param param: the ``--registry`` parameter.
    :param values: the raw option values.
    :return: ``[{"kind", "address", "ids"}, ...]``; the address is checked later by
        ``parse_registry_sources``, which names the entry.
    :raises BadParameter: (exit 2) on a malformed value, naming the option.
    """
    entries = []
    for value in values:
        parts = value.split(":")
        if len(parts) not in (2, 3) or not parts[1]:
            raise click.BadParameter(
                f"{value!r} is not KIND:ADDRESS[:IDS] "
                f"(e.g. olas_agent_registry:0xAbC...:1-20).",
                ctx,
                param,
            )
        if parts[0] not in REGISTRY_KINDS:
            raise click.BadParameter(
                f"{value!r}: registry kind {parts[0]!r} is not one of "
                f"{', '.join(REGISTRY_KINDS)}.",
                ctx,
                param,
            )
        try:
            ids = _ids(parts[2] if len(parts) == 3 else "all")
        except ValueError as exc:
            raise click.BadParameter(
                f"{value!r}: IDS must be 'all', a list like 1,2,5 or a range like 1-20.",
                ctx,
                param,
            ) from exc
        entries.append({"kind": parts[0], "address": parts[1], "ids": ids})
    return entries


def parse_gateway_option(
    _ctx: click.Context, _param: click.Parameter, values: Tuple[str, ...]
) -> Tuple[str, ...]:
    """Check ``--fallback-gateway`` URLs: http(s) with a host; trailing ``/`` dropped.

    :param _ctx: the click context.
    :param _param: the option.
    :param values: the URLs as given.
    :return: the URLs, in order, duplicates dropped.
    :raises BadParameter: (exit 2) naming the URL that is not one.
    """
    urls: List[str] = []
    for value in values:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise click.BadParameter(
                f"{value!r} is not an http(s) gateway URL such as https://ipfs.io",
                param_hint="'--fallback-gateway'",
            )
        url = value.rstrip("/")
        if url not in urls:
            urls.append(url)
    return tuple(urls)


def _chain_id(rpc: str, timeout: float) -> int:
    try:
        answer = requests.post(
            rpc,
            json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []},
            timeout=timeout,
        ).json()
        return int(answer["result"], 16)
    except (requests.RequestException, ValueError, KeyError, TypeError) as exc:
        raise CliFailure(
            CHAIN_READ_FAILED,
            f"Cannot read the chain id from --rpc {redacted_url(rpc)} "
            f"({type(exc).__name__}); check "
            f"the URL (or ${RPC_ENV}) and that the node is running, or pass --chain-id.",
        ) from exc


def _sources(
    registries: List[Dict[str, Any]], chain_id: int
) -> Tuple[RegistrySource, ...]:
    try:
        return parse_registry_sources(registries, chain_id, name="--registry")
    except RegistryConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="'--registry'") from exc


def _sync(config: SyncConfig, errors: Console) -> Catalogue:
    """Run one period of the skill (read, fetch, refresh), with a status line on stderr."""
    sync = CatalogueSync(config)
    try:
        with errors.status(
            f"Reading {len(config.sources)} registry(ies) at "
            f"{redacted_url(config.rpc_url)}"
        ):
            try:
                snapshot, _ = read_snapshot(config, sync.session)
            except (ChainReadError, RegistryDecodeError, RegistryConfigError) as exc:
                raise CliFailure(
                    CHAIN_READ_FAILED,
                    "Cannot read the registries through --rpc "
                    f"{redacted_url(config.rpc_url)}: "
                    f"{without_url(str(exc), config.rpc_url)}. "
                    "Check the URL, --chain-id, --multicall2 and the registry addresses.",
                ) from exc
        digests = snapshot.digests
        with errors.status(
            f"Fetching {len(digests)} manifest(s) from {config.gateway_url}"
        ):
            fetched = fetch_manifests(config, digests, sync.cache, sync.fetcher)
        catalogue = refresh_catalogue(
            snapshot, fetched, lambda data: parse(data, config.policy.max_bytes), None
        )
        with errors.status("Deriving untyped tools' arguments from their code"):
            catalogue, unread = derive_catalogue(
                catalogue,
                config.rpc_url,
                config.multicall,
                config.gateway_url,
                config.fetch_timeout,
                snapshot.block_number,
            )
        for sentence in unread:
            errors.print(f"warning: {sentence}", markup=False)
        return catalogue
    finally:
        sync.close()


def read_market(
    config: SyncConfig,
    market: MarketplaceSource,
    errors: Console,
    state_dir: Optional[Path] = None,
) -> Optional[List[MechFacts]]:
    """Read every mech the MechMarketplace created and its facts, as the agent reads them.

    :param config: the RPC, Multicall2, batch size and timeout.
    :param market: the MechMarketplace (and legacy factory) and the first blocks.
    :param errors: stderr, for the status line and warnings.
    :param state_dir: where the discovery checkpoint is kept between runs (None: not
        kept, every run scans from the first blocks).
    :return: the facts, one per mech contract; None when the marketplace could not be
        read (a warning saying why is printed: the registries' mechs are still listed).
    """
    path = checkpoint_path(state_dir, market) if state_dir else None
    kept, why = load_checkpoint(path) if path else (None, "")
    if why:
        errors.print(f"warning: {why}; scanning from the first blocks", markup=False)
    sync = CatalogueSync(config)
    try:
        reader = MarketplaceReader(config, market, sync.session, kept)
        with errors.status(
            f"Reading the mechs of MechMarketplace {market.marketplace}"
        ):
            facts = reader.facts()
    except (ChainReadError, ValueError) as exc:
        errors.print(
            f"warning: cannot read MechMarketplace {market.marketplace} through "
            f"{redacted_url(config.rpc_url)} "
            f"({without_url(str(exc), config.rpc_url)}); mechs are listed without "
            "address, price or deliveries. Check --marketplace and "
            "--marketplace-first-block.",
            markup=False,
        )
        return None
    finally:
        sync.close()
    if path and reader.checkpoint is not None:
        why = save_checkpoint(path, reader.checkpoint)
        if why:
            errors.print(f"warning: {why}; the next run scans again", markup=False)
    return facts


def _arguments(tool: Tool) -> str:
    return (
        ", ".join(
            f"{a.identifier}{'' if a.required else '?'}: {a.type}"
            for a in tool.arguments
        )
        or f"prompt: str (free {tool.input_type or 'text'})"
    )


def empty_registries(
    catalogue: Catalogue, sources: Tuple[RegistrySource, ...]
) -> List[RegistrySource]:
    """Return the registries read that hold no mech (among the ids asked for).

    :param catalogue: the catalogue read.
    :param sources: the registries read.
    :return: those without a single mech in the catalogue, in order.
    """
    read = {(m.ref.registry_kind, m.ref.registry_address) for m in catalogue.mechs}
    return [s for s in sources if (s.kind, s.address) not in read]


def _say_empty(empty: List[RegistrySource], console: Console) -> None:
    for source in empty:
        console.print(
            f"note: {source.kind} at {source.address} holds no mechs"
            + ("" if source.ids.mode == IDS_ALL else " among the ids asked for")
            + " (nothing registered yet: `publish` sets a mech's manifest once it "
            "exists; on the devnet, `make devnet-up` seeds mechs).",
            markup=False,
        )


def _render(catalogue: Catalogue, with_tools: bool, console: Console) -> None:
    table = Table("registry", "id", "status", "tools", "name", title="mechs")
    for mech in catalogue.mechs:
        table.add_row(
            mech.ref.registry_kind,
            str(mech.ref.mech_id),
            mech.status,
            str(len(mech.tools)),
            mech.name,
        )
    console.print(table)
    for mech in catalogue.mechs:
        _render_mech(mech, with_tools, console)


def _entries(catalogue: Catalogue) -> Dict[str, str]:
    """Return mech contract address -> the catalogue entry its facts are attached to."""
    return {
        facts.address: f"{mech.ref.registry_kind} #{mech.ref.mech_id}"
        for mech in catalogue.mechs
        for facts in mech.marketplace
    }


def _number(facts: MechFacts, name: str) -> str:
    value = getattr(facts, name)
    if value is not None:
        return str(value)
    return "n/a" if dict(facts.unread).get(name) == UNREAD_NOT_APPLICABLE else "unread"


def _payment(facts: MechFacts) -> str:
    """The payment column: the type's name and, when priced, the price in whole units."""
    if facts.kind == MECH_KIND_LEGACY:
        return "legacy (native)"
    name = facts.payment_type_name or facts.payment_type or "unread"
    units = plan_payment(facts.payment_type, facts.max_delivery_rate).to_dict()[
        "price_units"
    ]
    return f"{name} ({units})" if units else name


def _render_market(
    facts: Sequence[MechFacts], catalogue: Catalogue, console: Console
) -> None:
    entries = _entries(catalogue)
    table = Table(
        "mech address",
        "service",
        "payment",
        "price",
        "karma",
        "requests",
        "deliveries",
        "liveness",
        "confirmed",
        "manifest",
        title="marketplace mechs (price: per request, in the payment's smallest unit)",
    )
    for fact in facts:
        table.add_row(
            fact.address,
            _number(fact, "service_id"),
            _payment(fact),
            _number(fact, "max_delivery_rate"),
            _number(fact, "karma"),
            _number(fact, "requests"),
            _number(fact, "deliveries"),
            str(fact.liveness),
            "yes" if fact.confirmed else "no",
            entries.get(fact.address, "(none)"),
        )
    console.print(table)


def list_json(catalogue: Catalogue, facts: Optional[Sequence[MechFacts]]) -> str:
    """Return ``--json``'s text: the catalogue JSON, and every marketplace mech when read.

    :param catalogue: the catalogue (facts attached to the entries they belong to).
    :param facts: every mech contract the MechMarketplace created, or None (not read).
    :return: canonical JSON (RFC 8785): the catalogue's, plus ``marketplace_mechs``: each
        mech's facts (``MechFacts.to_dict``) with its ``liveness``, the catalogue
        ``entry`` its facts are attached to (null: its service has no manifest) and
        ``payment`` (``model.payment.Payment.to_dict``: way, asset, price in units).
    """
    if facts is None:
        return catalogue.to_json()
    body = json.loads(catalogue.to_json())
    entries = _entries(catalogue)
    body["marketplace_mechs"] = [
        {
            **f.to_dict(),
            "liveness": str(f.liveness),
            "entry": entries.get(f.address),
            "payment": plan_payment(f.payment_type, f.max_delivery_rate).to_dict(),
        }
        for f in facts
    ]
    return canonical_text(body)


def _render_mech(mech: Mech, with_tools: bool, console: Console) -> None:
    label = f"{mech.ref.registry_kind} #{mech.ref.mech_id}"
    if with_tools and mech.tools:
        table = Table("tool", "arguments", title=f"{label}: {mech.name}")
        for tool in mech.tools:
            table.add_row(tool.name, _arguments(tool))
        console.print(table)
    if mech.problems:
        console.print(f"{label} ({mech.status}):", markup=False)
        for problem in mech.problems:
            print_problem(console, problem)


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
@click.option(
    "--rpc",
    envvar=RPC_ENV,
    default=DEFAULT_RPC,
    show_default=f"${RPC_ENV} or {DEFAULT_RPC}",
    help="JSON-RPC URL of the chain.",
)
@click.option(
    "--chain-id",
    type=click.IntRange(min=1),
    help="Chain id (default: asked of the RPC with eth_chainId).",
)
@click.option(
    "--registry",
    "registries",
    multiple=True,
    callback=parse_registry_option,
    metavar="KIND:ADDRESS[:IDS]",
    help=f"Registry to read (repeatable). KIND: {', '.join(REGISTRY_KINDS)}; "
    "IDS: all (default), 1,2,5 or 1-20.",
)
@click.option("--multicall2", "multicall", help="Multicall2 contract address.")
@click.option(
    "--marketplace",
    default="",
    help="MechMarketplace address: its mechs are listed with address, price, payment "
    "type, karma and deliveries (--chain: the preset's).",
)
@click.option(
    "--marketplace-first-block",
    type=click.IntRange(min=0),
    default=0,
    help="Block the MechMarketplace was deployed at; its CreateMech logs are read from "
    "there (--chain: the preset's).",
)
@click.option(
    "--ipfs-gateway",
    "gateway",
    default=default_gateway,
    show_default=f"${GATEWAY_ENV} or http://127.0.0.1:8080",
    help="IPFS HTTP gateway the manifests are fetched from.",
)
@click.option(
    "--fallback-gateway",
    "--gateway",
    "fallback_gateways",
    multiple=True,
    callback=parse_gateway_option,
    metavar="URL",
    help="Further IPFS HTTP gateway (repeatable), tried in this order when "
    "--ipfs-gateway fails or rate-limits; a failing one is skipped until it recovers.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    help="Seconds per eth_call and per IPFS request.",
)
@click.option(
    "--tools/--mechs-only",
    "with_tools",
    default=True,
    help="Also list each mech's tools (default), or only the mechs.",
)
@click.option(
    "--state-dir",
    type=click.Path(file_okay=False),
    help="Folder where the marketplace scan's checkpoint is kept, so the next run reads "
    f"only new blocks (default with a public --chain: {DEFAULT_STATE_DIR}; else not kept).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the catalogue JSON (with every marketplace mech in marketplace_mechs).",
)
@click.pass_context
@chain_options
@devnet_options
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
    :raises UsageError: (exit 2) when no registry or no Multicall2 is given.
    """
    out = Output(as_json or bool((ctx.obj or {}).get("json")))
    try:
        settings = chain_settings(
            {
                "rpc": rpc,
                "chain_id": chain_id,
                "gateway": gateway,
                "fallback_gateways": fallback_gateways,
                "multicall": multicall,
                "registries": registries,
                "marketplace": marketplace,
                "marketplace_first_block": marketplace_first_block,
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
        chain = settings["chain_id"] or _chain_id(settings["rpc"], timeout)
        config = SyncConfig(
            rpc_url=settings["rpc"],
            gateway_url=str(settings["gateway"]).rstrip("/"),
            sources=_sources(settings["registries"], chain),
            multicall=settings["multicall"],
            rpc_timeout=timeout,
            fetch_timeout=timeout,
            fallback_gateway_urls=tuple(settings["fallback_gateways"]),
        )
        market = market_source(settings, chain)
        catalogue = _sync(config, out.errors)
    except CliFailure as failure:
        out.fail(failure)
    kept = Path(state_dir) if state_dir else (DEFAULT_STATE_DIR if preset else None)
    facts = read_market(config, market, out.errors, kept) if market else None
    catalogue = attach_facts(catalogue, facts or ())
    _say_empty(empty_registries(catalogue, config.sources), out.errors)
    if out.as_json:
        click.echo(list_json(catalogue, facts))
        return
    _render(catalogue, with_tools, out.console)
    if facts is not None:
        _render_market(facts, catalogue, out.console)
