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

"""``list``'s reads: the chain id, the registries (one period of the skill's code) and the marketplace.

Runs the skill's own period code through :mod:`mech_catalogue_cli.sync_driver`:
``snapshot_reader`` (Multicall2 batches over ``eth_call``), ``manifest_fetcher`` (gateway
GETs, bytes verified against the on-chain digest) and ``refresh_catalogue`` (parse,
quarantine), then types untyped tools from their code (:mod:`..code_source`) and reads
the MechMarketplace's mechs (:mod:`..marketplace_driver`), keeping its discovery
checkpoint. A failed registry read is :data:`CHAIN_READ_FAILED` (exit 1); a failed
marketplace read is a warning (the registries' mechs are still listed).
"""

from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import click
from mech_catalogue_core.catalogue.fetching import (
    refresh_catalogue,
)
from mech_catalogue_core.chain.marketplace import (
    MarketplaceSource,
)
from mech_catalogue_core.chain.registry import (
    ChainReadError,
    RegistryConfigError,
    RegistryDecodeError,
    RegistrySource,
    parse_registry_sources,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)
from mech_catalogue_core.model.market import (
    MechFacts,
)
from rich.console import Console

from mech_catalogue_cli.adapters.jsonrpc import JsonRpc
from mech_catalogue_cli.adapters.jsonrpc import chain_id as read_chain_id
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

from ..adapters.urls import redacted_url
from ..mcp_server.node_words import NODE_SAID, chain_read_said, stranger_said
from ..output import CliFailure
from .publish_cmd import RPC_ENV

CHAIN_READ_FAILED = "chain_read_failed"


def _why(exc: ChainReadError, rpc: str) -> str:
    """Say briefly why a read failed: the transport error's type, else the node's words."""
    cause = exc.__cause__
    if cause is not None and not isinstance(cause, ValueError):
        return type(cause).__name__
    return stranger_said(exc.reason, NODE_SAID, rpc)


def ask_chain_id(rpc: str, timeout: float) -> int:
    """Ask the node which chain it serves (``eth_chainId``), for a missing ``--chain-id``.

    :param rpc: the node's URL (named by scheme and host only).
    :param timeout: seconds.
    :return: the chain id.
    :raises CliFailure: CHAIN_READ_FAILED (exit 1) saying what to check.
    """
    try:
        return read_chain_id(JsonRpc(rpc, timeout))
    except ChainReadError as exc:
        raise CliFailure(
            CHAIN_READ_FAILED,
            f"Cannot read the chain id from --rpc {redacted_url(rpc)} "
            f"({_why(exc, rpc)}); check "
            f"the URL (or ${RPC_ENV}) and that the node is running, or pass --chain-id.",
        ) from exc


def registry_sources(
    registries: List[Dict[str, Any]], chain_id: int
) -> Tuple[RegistrySource, ...]:
    """Turn ``--registry`` entries into the skill's registry sources.

    :param registries: the entries (:func:`.list_options.parse_registry_option`).
    :param chain_id: the chain they are on.
    :return: the sources.
    :raises BadParameter: (exit 2) naming ``--registry`` when the reader rejects one.
    """
    try:
        return parse_registry_sources(registries, chain_id, name="--registry")
    except RegistryConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="'--registry'") from exc


def sync_catalogue(config: SyncConfig, errors: Console) -> Catalogue:
    """Run one period of the skill (read, fetch, refresh), with a status line on stderr.

    :param config: the period's parameters.
    :param errors: stderr.
    :return: the catalogue, untyped tools typed from their code where it could be read.
    :raises CliFailure: CHAIN_READ_FAILED (exit 1) when the registries cannot be read.
    """
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
                    f"{chain_read_said(str(exc), config.rpc_url)}. "
                    "If the node answers, check --chain-id, --multicall2 and the registry "
                    "addresses.",
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
            f"({chain_read_said(str(exc), config.rpc_url)}); "
            "mechs are listed without "
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
