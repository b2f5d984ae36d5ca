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

"""``mech-catalogue export``: a manifest's tools in the formats agents speak (docs/cli.md)."""

import sys
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Tuple

import click
from mech_catalogue_core import exporters
from mech_catalogue_core.catalogue.lookalikes import lookalike_problems
from mech_catalogue_core.exporters.erc8004 import (
    RegistrationError,
)
from mech_catalogue_core.ipfs import cid as cids
from mech_catalogue_core.model.catalogue import (
    Manifest,
    Mech,
)
from mech_catalogue_core.model.problems import (
    Problem,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_KINDS,
    MechRef,
)
from rich.console import Console

from ..output import CliFailure, Output, console_on, print_problem
from .manifest_input import load_manifest
from .options import (
    ADDRESS,
    examples,
    gateway_options,
    json_option,
)


@click.command(
    help="Convert a manifest FILE, CID or digest to an agent format (always JSON "
    "output).\n\nProvenance (chain, registry, mech id) is written only when given: a "
    "manifest read from a file or CID has none. Exit 2 when --url holds a template "
    "that cannot be filled (e.g. {agentId} without --agent-id).",
    epilog=examples(
        "export --format openai my-mech/manifest.json > tools.json",
        "export --format mcp --tool token-oracle-summary my-mech/manifest.json",
    ),
)
@click.argument("source")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(exporters.FORMATS),
    required=True,
    help="Target format.",
)
@click.option(
    "--tool", "tool_names", multiple=True, help="Only these tools (repeatable)."
)
@click.option(
    "--url",
    default="http://127.0.0.1:8000",
    show_default=True,
    help="Endpoint advertised (a2a, erc8004); {agentId} is filled from --agent-id.",
    metavar="URL",
)
@click.option(
    "--chain-id",
    type=click.IntRange(min=1),
    help="Chain of the mech's registry (with --registry-address and --mech-id) and of "
    "the ERC-8004 identity registry. Not written when not given.",
)
@click.option(
    "--registry-kind",
    type=click.Choice(REGISTRY_KINDS),
    default=REGISTRY_KINDS[2],
    show_default=True,
    help="Kind of the registry (only with --registry-address).",
)
@click.option(
    "--registry-address",
    help="Registry holding the mech's hash (with --chain-id and --mech-id).",
    metavar="ADDRESS",
)
@click.option(
    "--mech-id",
    type=click.IntRange(min=0),
    help="Agent or service id of the mech (with --chain-id and --registry-address).",
)
@click.option(
    "--agent-id", type=click.IntRange(min=0), help="ERC-8004 agentId (erc8004)."
)
@click.option(
    "--identity-registry",
    help="ERC-8004 IdentityRegistry address (erc8004).",
    metavar="ADDRESS",
)
@click.option(
    "--image",
    default="",
    help="Image URI (erc8004): absolute https://, ipfs:// or data: (default: the "
    "manifest's `image` when it is one).",
    metavar="URI",
)
@gateway_options
@json_option
def export(  # pylint: disable=too-many-arguments,too-many-locals
    *,
    source: str,
    fmt: str,
    tool_names: Tuple[str, ...],
    url: str,
    chain_id: Optional[int],
    registry_kind: str,
    registry_address: Optional[str],
    mech_id: Optional[int],
    agent_id: Optional[int],
    identity_registry: Optional[str],
    image: str,
    gateway: str,
    timeout: float,
    out: Output,
) -> None:
    """Convert a manifest FILE, CID or digest to an agent format (always JSON output)."""
    ref = _export_ref(chain_id, registry_kind, registry_address, mech_id)
    if fmt in ("a2a", "erc8004"):
        context = click.get_current_context()
        if context.get_parameter_source("url") == click.core.ParameterSource.DEFAULT:
            Console(stderr=True, soft_wrap=True).print(
                f"warning: no --url: the {fmt} document advertises {url}, this machine's "
                "loopback, where no A2A or MCP endpoint serves others; pass the public "
                "URL of yours (`mech-catalogue mcp --transport http` serves MCP)",
                markup=False,
            )
        try:
            url = exporters.expand_templates(url, agent_id)
        except RegistrationError as exc:
            raise click.UsageError(str(exc)) from exc
    loaded, manifest, problems = load_manifest(source, gateway, timeout)
    names = sorted({t.name for t in manifest.tools})
    _warn(tuple(problems) + tuple(lookalike_problems(names).values()))
    tools = list(manifest.tools)
    if tool_names:
        unknown = sorted(set(tool_names) - {t.name for t in tools})
        if unknown:
            raise CliFailure(
                "unknown_tool", f"{loaded.origin} has no tool(s) {unknown}; see `show`."
            )
        tools = [t for t in tools if t.name in tool_names]
    digest = cids.cid_to_digest(loaded.cid)[1] if loaded.cid else ""
    mech = Mech.from_manifest(
        ref or exporters.UNKNOWN_REF,
        Manifest(
            manifest.name, manifest.description, tuple(tools), manifest.extra_json
        ),
        cid=loaded.cid,
        digest=digest,
    )
    if ref is None:  # nothing on chain was named: no invented mech in provenance
        mech = replace(
            mech,
            tools=tuple(
                t.with_provenance(replace(t.provenance, mech=None)) for t in mech.tools
            ),
        )
    options = _ExportOptions(url, agent_id, identity_registry, chain_id, image)
    out.emit(_export(fmt, mech, options))


def _warn(problems: Tuple[Problem, ...]) -> None:
    """Print the manifest's problems on stderr (stdout holds only the exported JSON).

    :param problems: what ``validate`` reports for the manifest (the catalogue's text
        warnings included: a tool asking for a secret is one the MCP server refuses),
        and the look-alike names among its tools (``lookalike_tool_name``, as the
        catalogue warns).
    """
    errors = console_on(sys.stderr)
    for problem in problems:
        print_problem(errors, problem)


def _export_ref(
    chain_id: Optional[int],
    registry_kind: str,
    registry_address: Optional[str],
    mech_id: Optional[int],
) -> Optional[MechRef]:
    """The mech's ref when the command line names it all, None when it names none."""
    if registry_address is None and mech_id is None:
        return None
    if registry_address is None or mech_id is None or chain_id is None:
        raise click.UsageError(
            "--registry-address, --mech-id and --chain-id name the mech together; give "
            "all three, or none (then no provenance is written)"
        )
    if not ADDRESS.fullmatch(registry_address):
        raise click.UsageError(
            f"--registry-address {registry_address!r} is not 0x followed by 40 hex digits"
        )
    return MechRef(chain_id, registry_kind, registry_address.lower(), mech_id)


@dataclass(frozen=True)
class _ExportOptions:
    url: str
    agent_id: Optional[int]
    identity_registry: Optional[str]
    chain_id: Optional[int]
    image: str


def _export(fmt: str, mech: Mech, options: _ExportOptions) -> Any:
    if fmt == "mcp":
        return exporters.to_mcp_tools_list_result(mech.tools)
    if fmt == "openai":
        return exporters.to_openai_tools(mech.tools)
    if fmt == "anthropic":
        return exporters.to_anthropic_tools(mech.tools)
    if fmt == "langchain":
        return _langchain(mech)
    if fmt == "a2a":
        return exporters.to_agent_card(mech, url=options.url)
    warnings: List[str] = []
    try:
        registration = exporters.to_registration(
            mech,
            agent_id=options.agent_id,
            identity_registry=options.identity_registry,
            chain_id=options.chain_id,
            services=[
                exporters.Service(
                    "MCP",
                    options.url.rstrip("/") + "/mcp",
                    exporters.MCP_PROTOCOL_VERSION,
                )
            ],
            image=options.image,
            warnings=warnings,
        )
    except RegistrationError as exc:
        raise CliFailure("invalid_registration", str(exc)) from exc
    errors = Console(stderr=True, soft_wrap=True)
    for warning in warnings:
        errors.print(f"warning: {warning}", markup=False)
    return registration


def _langchain(mech: Mech) -> List[Dict[str, Any]]:
    """Describe the StructuredTools (Python objects) by what each is built from."""
    try:
        built = exporters.to_langchain_tools(mech.tools)
    except exporters.MissingDependency as exc:
        raise CliFailure("missing_dependency", str(exc)) from exc
    return [
        {
            "name": s.name,
            "description": s.description,
            "args_schema": s.args_schema,
            "metadata": s.metadata,
        }
        for s in built
    ]
