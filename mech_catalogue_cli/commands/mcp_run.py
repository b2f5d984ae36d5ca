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

"""``mcp``'s start-up: the catalogue source, the paying marketplace, then the server.

:mod:`.mcp_cmd` declares the options and builds the call settings; this module decides
from them where the catalogue comes from (a running agent, or a direct read of the
registries and the marketplace), whether calls are paid (a key and a marketplace, with
``--max-price`` and ``--max-spend`` off the devnet), and starts serving. Logs go to
stderr and never carry the key.
"""

import logging
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import anyio
import click
from mech_catalogue_core.chain.registry import (
    RegistryConfigError,
    parse_registry_sources,
)

from mech_catalogue_cli.mcp_server.first_read import START_WAIT, FirstRead
from mech_catalogue_cli.mcp_server.http_access import HttpAccess
from mech_catalogue_cli.mcp_server.journal import Journal
from mech_catalogue_cli.mcp_server.market import DEFAULT_MAX_GAS, Marketplace
from mech_catalogue_cli.mcp_server.server import MechToolServer, serve
from mech_catalogue_cli.mcp_server.source import AgentSource, DirectSource, SourceError
from mech_catalogue_cli.mcp_server.tenure import FetchedDefinitions, TenureReader
from mech_catalogue_cli.mcp_server.tenure_record import TenureRecord
from mech_catalogue_cli.sync_driver import SyncConfig

from ..adapters.jsonrpc import JsonRpc
from ..chain_options import market_source
from ..output import CliFailure
from .list_read import ask_chain_id

NO_SOURCE = "no_catalogue_source"
#: seconds to wait for ``eth_chainId`` when ``--chain-id`` is not given
CHAIN_ID_TIMEOUT = 10.0


def catalogue_source(
    agent: Optional[str], chosen: Dict[str, Any], state_dir: Optional[str] = None
) -> Any:
    """Pick where the catalogue comes from.

    :param agent: ``--agent`` URL, or None.
    :param chosen: the chain settings (``chain_options.chain_settings``: ``rpc``,
        ``chain_id``, ``gateway``, ``multicall``, ``registries``, ``fallback_gateways``
        and the marketplace's).
    :param state_dir: ``--state-dir`` (a direct read keeps there the manifests it
        read, asked for first after a restart), or None.
    :return: an ``AgentSource`` for ``--agent`` (reading the offers' tenures from
        ``rpc`` and the gateway when a marketplace is set, as a direct read does:
        :func:`agent_tenure`), else a
        ``DirectSource`` reading the registries (and the marketplace) with the skill's
        code.
    :raises BadParameter: (exit 2) for a ``--registry`` the reader rejects.
    :raises CliFailure: NO_SOURCE when neither is given.
    """
    folder = Path(state_dir) if state_dir else None
    if agent:
        return AgentSource(agent, tenure=agent_tenure(chosen, folder))
    registries, multicall = chosen["registries"], chosen["multicall"]
    if not (registries and multicall):
        raise CliFailure(
            NO_SOURCE,
            "No catalogue source: give --chain NAME, --agent URL, --devnet, or "
            "--registry with --multicall2 (and --marketplace to pay mechs).",
        )
    chain = chosen["chain_id"] or ask_chain_id(chosen["rpc"], CHAIN_ID_TIMEOUT)
    try:
        sources = parse_registry_sources(registries, chain, name="--registry")
    except RegistryConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="'--registry'") from exc
    return DirectSource(
        SyncConfig(
            rpc_url=chosen["rpc"],
            gateway_url=chosen["gateway"].rstrip("/"),
            sources=sources,
            multicall=multicall,
            fallback_gateway_urls=tuple(chosen.get("fallback_gateways", ())),
        ),
        market_source(chosen, chain),
        folder,
    )


def agent_tenure(
    chosen: Dict[str, Any], folder: Optional[Path]
) -> Optional[TenureReader]:
    """The tenure reader of an ``--agent`` source: the direct read's, over the chain and IPFS.

    :param chosen: the chain settings (``rpc``, ``marketplace``,
        ``marketplace_first_block``, ``gateway``, ``fallback_gateways``).
    :param folder: ``--state-dir`` (the walks' record), or None.
    :return: the reader, None without an RPC and a marketplace (offers then have no
        tenure); without a gateway the services' manifests are not read, and tenures
        start at their newest update.
    """
    if not (chosen.get("rpc") and chosen.get("marketplace")):
        return None
    gateway = str(chosen.get("gateway") or "").rstrip("/")
    manifests = (
        FetchedDefinitions(
            SyncConfig(
                rpc_url=chosen["rpc"],
                gateway_url=gateway,
                sources=(),
                multicall="",
                fallback_gateway_urls=tuple(chosen.get("fallback_gateways", ())),
            )
        )
        if gateway
        else None
    )
    return TenureReader(
        JsonRpc(chosen["rpc"], CHAIN_ID_TIMEOUT),
        int(chosen.get("marketplace_first_block") or 0),
        manifests,
        record=TenureRecord(folder),
    )


def paying_market(
    key: Optional[str],
    chosen: Dict[str, Any],
    state_dir: str,
    paying_off_devnet: bool,
    bounds: Tuple[Optional[int], Optional[int]],
    gas_bounds: Tuple[int, Optional[int]] = (DEFAULT_MAX_GAS, None),
) -> Tuple[Optional[Marketplace], Optional[Journal]]:
    """Open the marketplace calls are paid through, and the call journal.

    :param key: the paying account's key ("" when none).
    :param chosen: the chain settings (``rpc``, ``marketplace``).
    :param state_dir: ``--state-dir`` (the journal's folder).
    :param paying_off_devnet: True unless ``--dry-run`` or on the devnet.
    :param bounds: ``(--max-price, --max-spend)`` in wei, None when not given.
    :param gas_bounds: ``(--max-gas, --max-fee-per-gas)``
        (:class:`~mech_catalogue_cli.mcp_server.market.Marketplace`'s).
    :return: ``(marketplace, journal)``; ``(None, None)`` without a key or a
        marketplace (every call is then a dry run).
    :raises UsageError: (exit 2) to pay off the devnet without both bounds.
    """
    if not (key and chosen["marketplace"]):
        return None, None
    if paying_off_devnet and None in bounds:
        # an MCP client (an LLM, possibly steered by a tool description) decides
        # what to call: real funds are never spent without both bounds
        raise click.UsageError(
            "paying mechs needs --max-price and --max-spend (wei; e.g. "
            "--max-price 20000000000000000 --max-spend 100000000000000000); "
            "or --dry-run to pay nothing"
        )
    market = Marketplace(
        chosen["rpc"], chosen["marketplace"], key, gas_bounds=gas_bounds
    )
    return market, Journal(Path(state_dir))


def start(  # pylint: disable=too-many-arguments
    app: MechToolServer,
    transport: str,
    host: str,
    port: int,
    access: Optional[HttpAccess] = None,
    *,
    start_wait: float = START_WAIT,
) -> None:
    """Read the catalogue (``start_wait`` s at most), say what is served, then serve.

    A first read still running after ``start_wait`` seconds goes on in the background
    (:mod:`.first_read`): the server serves at once with no tool listed, and announces
    the catalogue (``notifications/tools/list_changed``) once read.

    :param app: the server.
    :param transport: ``stdio`` or ``http``.
    :param host: the HTTP bind address.
    :param port: the HTTP port.
    :param access: the HTTP endpoint's guard (None for stdio).
    :param start_wait: ``--start-wait``: seconds the start waits for the first read.
    :raises CliFailure: NO_SOURCE when the first catalogue read fails within
        ``start_wait`` (later, the failure is logged and the poll reads again).
    :raises error: any other error of that read, as it was raised (a bug).
    """
    first = FirstRead(app.refresh)
    log = logging.getLogger("mech_catalogue.mcp")
    if not first.ended_within(start_wait):
        app.first_read = first
        log.warning(
            "the catalogue is still being read after %s s (--start-wait; a slow "
            "node?): serving over %s with no tool listed until it is read "
            "(notifications/tools/list_changed then)",
            start_wait,
            transport,
        )
        anyio.run(serve, app, transport, host, port, access)
        return
    if isinstance(first.error, SourceError):
        raise CliFailure(NO_SOURCE, str(first.error)) from first.error
    if first.error is not None:
        raise first.error
    settings, market = app.settings, app.market
    log.info(
        "listing %d of the catalogue's %d tools (%s; catalogue %s) over %s; "
        "requester %s%s",
        len(app.listed.tools),
        len(app.catalogue.tools),
        (
            "every tool"
            if settings.all_tools
            else "those a call can pay for; --all-tools for all"
        ),
        app.catalogue.digest[:16],
        transport,
        market.requester if market else "(none: dry run)",
        "; dry run" if settings.dry_run else "",
    )
    anyio.run(serve, app, transport, host, port, access)
