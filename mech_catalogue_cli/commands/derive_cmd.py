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

"""``mech-catalogue derive``: typed arguments from a tool package's code, never run (docs/cli.md)."""

from typing import List, Optional, Tuple

import click
from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.chain.presets import ChainPreset
from mech_catalogue_core.chain.registry import (
    ChainReadError,
    RegistryDecodeError,
)
from mech_catalogue_core.derive.derive import (
    DerivedPackage,
    DeriveError,
)
from rich.console import Console
from rich.table import Table

from ..adapters.urls import redacted_url
from ..chain_options import PresetCommand, chain_options, need, pick
from ..code_source import (
    CodeReadError,
    derive_code_uri,
    derive_from_chain,
    is_code_uri,
)
from ..devnet_options import USES_DERIVE, DevnetSettings, given
from ..mcp_server.node_words import chain_read_said
from ..output import CliFailure, Output, print_problem
from ..sources import DEFAULT_TIMEOUT
from .options import (
    examples,
    gateway_options_for,
    json_option,
)

#: Multicall2's address on Ethereum, Gnosis and most chains (same deployer and nonce)
MULTICALL2 = "0x5BA1e12693Dc8F9c48aAD8770482f4739bEeD696"


def _chain_target(
    unit: str,
    rpc_url: Optional[str],
    registry: Optional[str],
    multicall: str,
    devnet: Optional[DevnetSettings],
    preset: Optional[ChainPreset] = None,
) -> Tuple[str, str, str]:
    """Return (RPC URL, registry, Multicall2) from the options, else the devnet's or preset's."""
    if preset is not None:
        field = "olas_agent_registry" if unit == "agent" else "component_registry"
        registry = registry or need(preset, field, "--registry ADDRESS")
        rpc_url = rpc_url or need(preset, "rpc_url", "--rpc URL")
        multicall = pick("multicall", multicall, preset.multicall2)
    if devnet is not None:
        contract = "AgentRegistry" if unit == "agent" else "ComponentRegistry"
        rpc_url = rpc_url or devnet.info.rpc_url
        registry = registry or devnet.info.contracts[contract]
        multicall = multicall if given("multicall") else devnet.multicall
    if not rpc_url or not registry:
        raise click.UsageError(
            f"--{unit} needs --rpc and --registry (the "
            f"{'AgentRegistry' if unit == 'agent' else 'ComponentRegistry'}), or --devnet."
        )
    return rpc_url, registry, multicall


def _derive_on_chain(
    target: Tuple[str, str, str], unit: str, unit_id: int, gateway: str, timeout: float
) -> List[DerivedPackage]:
    """Derive from an agent's components or one component; fail with the first reason."""
    rpc_url, registry, multicall = target
    try:
        derived = derive_from_chain(
            rpc_url, multicall, registry, unit, unit_id, gateway, timeout
        )
    except (ChainReadError, RegistryDecodeError) as exc:
        raise CliFailure(
            "chain_read_failed",
            f"Cannot read {unit} {unit_id} from {registry} at {redacted_url(rpc_url)}: "
            f"{chain_read_said(str(exc), rpc_url)}. "
            "Check --rpc, --registry and --multicall2.",
        ) from exc
    packages = [d.package for _, d in derived if d.package is not None]
    problems = tuple(p for _, d in derived for p in d.problems)
    if not packages:
        first = problems[0] if problems else None
        reason = (
            first.message
            if first
            else f"{unit} {unit_id} depends on no component (getDependencies)"
        )
        raise CliFailure(
            first.code if first else "no_components",
            f"Nothing derived for {unit} {unit_id}: {reason}",
            problems,
        )
    return packages


def derive_tool_package(
    path: str, gateway: str = "", timeout: float = DEFAULT_TIMEOUT
) -> DerivedPackage:
    """Derive a tool package from a folder, or from a ``code_uri`` through a gateway.

    :param path: a tool package folder, or an ``ipfs://`` code URI.
    :param gateway: the IPFS gateway for a code URI ("" reads folders only).
    :param timeout: seconds per IPFS request.
    :return: the derived package.
    :raises CliFailure: naming the problem when it cannot be derived.
    """
    if gateway and is_code_uri(path):
        try:
            derivation = derive_code_uri(path, gateway, timeout)
        except CodeReadError as exc:
            raise CliFailure(
                exc.problem.code, exc.problem.message, (exc.problem,)
            ) from exc
        if derivation.package is None:
            problem = derivation.problems[0]
            raise CliFailure(problem.code, problem.message, derivation.problems)
        return derivation.package
    try:
        return derive_package(path)
    except DeriveError as exc:
        raise CliFailure(exc.problem.code, exc.problem.message, (exc.problem,)) from exc
    except OSError as exc:
        raise CliFailure(
            "file_not_readable", f"Cannot read the tool package at {path}: {exc}."
        ) from exc


@click.command(
    cls=PresetCommand,
    epilog=examples(
        "derive examples/tools/token_oracle",
        "derive --runtime examples/tools/token_oracle examples/tools/wallet_risk",
        "derive ipfs://bafybei... --ipfs-gateway http://127.0.0.1:8080",
        "derive --chain devnet --component 1",
        "derive --chain mainnet --rpc https://ethereum-rpc.example --agent 3",
        "derive --rpc https://rpc.gnosischain.com --registry 0xAGENT_REGISTRY --agent 3",
    ),
)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--runtime",
    "show_runtime",
    is_flag=True,
    help="Also list keywords the mech runtime supplies.",
)
@click.option(
    "--agent",
    "agent_id",
    type=click.IntRange(min=1),
    help="Olas agent id: derive from the code of every component it depends on.",
)
@click.option(
    "--component",
    "component_id",
    type=click.IntRange(min=1),
    help="Olas component id: derive from its code (metadata code_uri).",
)
@click.option(
    "--rpc",
    "rpc_url",
    help="Chain JSON-RPC URL (--devnet: the devnet's).",
    metavar="URL",
)
@click.option(
    "--registry",
    help="AgentRegistry (--agent) or ComponentRegistry (--component) address "
    "(--devnet: the devnet's).",
    metavar="ADDRESS",
)
@click.option(
    "--multicall2",
    "--multicall",
    "multicall",
    default=MULTICALL2,
    show_default=True,
    help="Multicall2 address on that chain (--devnet: the devnet's).",
    metavar="ADDRESS",
)
@chain_options
@gateway_options_for(USES_DERIVE)
@json_option
def derive(  # pylint: disable=too-many-arguments,too-many-locals,too-many-positional-arguments
    paths: Tuple[str, ...],
    show_runtime: bool,
    agent_id: Optional[int],
    component_id: Optional[int],
    rpc_url: Optional[str],
    registry: Optional[str],
    multicall: str,
    gateway: str,
    timeout: float,
    out: Output,
    devnet: Optional[DevnetSettings] = None,
    preset: Optional[ChainPreset] = None,
) -> None:
    """Derive typed arguments from tool package folders, IPFS directories (CID, ipfs://<CID>) or an Olas agent/component on chain; never runs code."""
    unit = "agent" if agent_id is not None else "component"
    unit_id = agent_id if agent_id is not None else component_id
    if (agent_id is None) == (component_id is None) and (
        unit_id is not None or not paths
    ):
        raise click.UsageError(
            "Give tool package folders or CIDs, or one of --agent N / --component N."
        )
    if preset is not None:
        gateway = pick("gateway", gateway, preset.ipfs_gateway)
    packages = [derive_tool_package(p, gateway, timeout) for p in paths]
    if unit_id is not None:
        target = _chain_target(unit, rpc_url, registry, multicall, devnet, preset)
        packages += _derive_on_chain(target, unit, unit_id, gateway, timeout)
    result = [
        {**package.to_dict(), "tools": [t.to_dict() for t in package.to_tools()]}
        for package in packages
    ]

    def render(console: Console) -> None:
        for package in packages:
            console.print(
                f"[bold]{package.name}[/] {package.version}: {', '.join(package.tool_names)}",
                markup=True,
            )
            table = Table(
                "argument", "type", "required", "default", "description", "found at"
            )
            for argument in package.arguments:
                if argument.runtime and not show_runtime:
                    continue
                table.add_row(
                    argument.identifier + (" (runtime)" if argument.runtime else ""),
                    argument.type,
                    "yes" if argument.required else "no",
                    argument.default_json or "",
                    argument.description,
                    ", ".join(argument.evidence),
                )
            console.print(table)
            for problem in package.problems:
                print_problem(console, problem)

    out.emit(result, render)
