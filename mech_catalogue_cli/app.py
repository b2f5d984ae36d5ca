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

"""The ``mech-catalogue`` click group and its commands (see docs/cli.md)."""

import functools
import importlib
import inspect
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import click
from mech_catalogue_core import exporters
from mech_catalogue_core.chain.presets import ChainPreset
from mech_catalogue_core.chain.registry import (
    ChainReadError,
    RegistryDecodeError,
)
from mech_catalogue_core.derive.derive import (
    DerivedPackage,
    DeriveError,
    derive_package,
)
from mech_catalogue_core.derive.generate import (
    GenerateError,
    generate_manifest,
)
from mech_catalogue_core.exporters.erc8004 import (
    RegistrationError,
)
from mech_catalogue_core.ipfs import cid as cids
from mech_catalogue_core.ipfs.unixfs import (
    CODEC_DAG_PB,
    MAX_FILE_SIZE,
    root_digest,
)
from mech_catalogue_core.manifest.documents import (
    check_document,
)
from mech_catalogue_core.manifest.validation import (
    decode_json,
)
from mech_catalogue_core.model.canonical import (
    CanonicalizationError,
    canonical_bytes,
)
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
from mech_catalogue_core.model.vocabulary import (
    DocumentKind,
)
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import EXIT_INVALID
from .chain_options import PresetCommand, chain_options, need, pick
from .code_source import (
    CodeReadError,
    derive_code_uri,
    derive_from_chain,
    is_code_uri,
)
from .devnet_options import DevnetSettings, devnet_options, given
from .keys import redacted_url, without_url
from .output import CliFailure, Output, console_on, print_problem
from .overrides import failure_code, generate_failure, read_overrides
from .sources import DEFAULT_TIMEOUT, Loaded, default_gateway, load, read_file

INVALID_MANIFEST = "invalid_manifest"
ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
WARNINGS_AS_ERRORS = "warnings_as_errors"


def _json_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--json`` and hand the command an :class:`Output` as ``out``."""

    @click.option(
        "--json", "as_json", is_flag=True, help="Print machine-readable JSON."
    )
    @click.pass_context
    @functools.wraps(command)
    def wrapper(ctx: click.Context, *args: Any, as_json: bool, **kwargs: Any) -> Any:
        out = Output(as_json or bool((ctx.obj or {}).get("json")))
        try:
            return command(*args, out=out, **kwargs)
        except CliFailure as failure:
            out.fail(failure)

    return wrapper


def examples(*lines: str) -> str:
    """Return a click epilog listing example command lines, kept unwrapped.

    :param lines: command lines, without the program name.
    :return: the epilog text.
    """
    return "\b\nExamples:\n" + "\n".join(f"  mech-catalogue {line}" for line in lines)


def _gateway_options(command: Callable[..., Any]) -> Callable[..., Any]:
    wants_devnet = "devnet" in inspect.signature(command).parameters

    @functools.wraps(command)
    def with_devnet(
        *args: Any, devnet: Optional[DevnetSettings], gateway: str, **kwargs: Any
    ) -> Any:
        if devnet is not None and not given("gateway"):
            gateway = devnet.info.ipfs_gateway_url
        if wants_devnet:
            kwargs["devnet"] = devnet
        return command(*args, gateway=gateway, **kwargs)

    decorated = devnet_options(with_devnet)
    decorated = click.option(
        "--timeout",
        type=click.FloatRange(min=0.1),
        default=DEFAULT_TIMEOUT,
        show_default=True,
        help="Seconds per IPFS request.",
    )(decorated)
    return click.option(
        "--ipfs-gateway",
        "gateway",
        default=default_gateway,
        show_default="$MECH_CATALOGUE_IPFS_GATEWAY or http://127.0.0.1:8080",
        help="IPFS HTTP gateway used for CIDs and digests (--devnet: the devnet's).",
    )(decorated)


class _LazyGroup(click.Group):
    """A group whose heavier commands are imported only when used.

    ``publish`` (web3), ``list`` and ``mcp`` (the MCP SDK, uvicorn) live in their own
    modules; importing them for every command was most of the CLI's start-up time (the
    ``mcp`` module alone 9 of 22 s at load 11). Their names are listed without importing
    them; ``--help`` of the group imports them for their short help.
    """

    lazy = {
        "publish": "mech_catalogue_cli.commands.publish_cmd:publish",
        "list": "mech_catalogue_cli.commands.list_cmd:list_mechs",
        "mcp": "mech_catalogue_cli.commands.mcp_cmd:mcp",
    }

    def list_commands(self, ctx: click.Context) -> List[str]:
        """Return the eager and the lazy command names, sorted."""
        return sorted([*super().list_commands(ctx), *self.lazy])

    def get_command(self, ctx: click.Context, cmd_name: str) -> Optional[click.Command]:
        """Return a command, importing its module first when it is a lazy one."""
        if cmd_name not in self.lazy:
            return super().get_command(ctx, cmd_name)
        module, attribute = self.lazy[cmd_name].split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(
    cls=_LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Inspect, derive, generate and convert Olas mech tool manifests.\n\n"
    "Exit codes: 0 ok, 1 invalid input or manifest, 2 usage error. New here? Follow "
    "docs/tutorial.md.",
    epilog="\b\nExamples:\n"
    "  mech-catalogue derive examples/tools/token_oracle\n"
    "  mech-catalogue list --devnet\n"
    "  mech-catalogue publish --help",
)
@click.option("--json", "as_json", is_flag=True, help="JSON output for every command.")
@click.pass_context
def cli(ctx: click.Context, as_json: bool) -> None:
    """Store the group-wide ``--json`` flag in the context for every command."""
    ctx.ensure_object(dict)
    ctx.obj["json"] = as_json


# --- loading and parsing ---------------------------------------------------------------
def _parse(loaded: Loaded) -> Tuple[Optional[Manifest], Tuple[Problem, ...]]:
    """Strict decode, schema check, and shape parsing; problems from all three."""
    manifest, problems, _ = _parse_with_kind(loaded)
    return manifest, problems


def _parse_with_kind(
    loaded: Loaded,
) -> Tuple[Optional[Manifest], Tuple[Problem, ...], DocumentKind]:
    """Like :func:`_parse`, also naming the kind of document the parser read.

    Every command reads a document the same way (``manifest.documents.check_document``):
    registry NFT metadata, tools as JSON in a ``description`` and a single tool object
    are checked as what they are, not against the manifest schema they do not follow.

    :param loaded: the document's bytes and origin.
    :return: (the manifest or None, every problem, the document kind).
    """
    decoded = decode_json(loaded.data)
    if not decoded.ok:
        return None, tuple(decoded.problems), DocumentKind.MANIFEST
    checked = check_document(decoded.value)
    return checked.manifest, checked.problems, checked.kind


def _load_manifest(
    source: str, gateway: str, timeout: float
) -> Tuple[Loaded, Manifest, Tuple[Problem, ...]]:
    loaded = load(source, gateway, timeout)
    manifest, problems = _parse(loaded)
    if manifest is None:
        raise CliFailure(
            INVALID_MANIFEST,
            f"{loaded.origin} is not a usable mech manifest.",
            problems,
        )
    return loaded, manifest, problems


# --- validate ----------------------------------------------------------------------------
#: what ``validate`` says after the source for a document that is not a v1 manifest
_KIND_NOTES = {
    DocumentKind.NFT_METADATA: " (registry NFT metadata)",
    DocumentKind.DESCRIBED_TOOLS: " (tools as JSON in its description)",
    DocumentKind.SINGLE_TOOL: " (a single tool object, read as a one-tool manifest)",
}


@cli.command(
    epilog=examples(
        "validate my-mech/manifest.json",
        "validate --strict my-mech/manifest.json",
        "validate --devnet bafybei...",
    )
)
@click.argument("source")
@click.option(
    "--strict", is_flag=True, help="Fail on warnings too (e.g. untyped tools)."
)
@_gateway_options
@_json_option
def validate(
    source: str, strict: bool, gateway: str, timeout: float, out: Output
) -> None:
    """Check a manifest FILE, CID or 0x digest: strict JSON, the v1 schema, every tool; whatever `show` and `export` read (NFT metadata, tools in the description, one tool object) is checked as what it is."""
    loaded = load(source, gateway, timeout)
    manifest, problems, kind = _parse_with_kind(loaded)
    what = _KIND_NOTES.get(kind, "")
    errors = [p for p in problems if p.is_error]
    ok = manifest is not None and not errors and not (strict and problems)
    result = {
        "ok": ok,
        "document": kind,
        "source": loaded.origin,
        "cid": loaded.cid,
        "tools": [] if manifest is None else list(manifest.tool_names),
        "problems": [p.to_dict() for p in problems],
    }
    if not ok:
        code = INVALID_MANIFEST if (manifest is None or errors) else WARNINGS_AS_ERRORS
        summary = f"{loaded.origin}{what}: {len(errors)} error(s), {len(problems) - len(errors)} warning(s)."
        if kind == DocumentKind.NFT_METADATA and manifest is None:
            summary += (
                " Its description holds no tool metadata JSON; for a component, derive "
                "the arguments from its code_uri with `mech-catalogue derive ipfs://<CID>`."
            )
        raise CliFailure(
            code,
            summary
            + (" --strict fails on warnings." if code == WARNINGS_AS_ERRORS else ""),
            problems,
        )

    def render(console: Console) -> None:
        tools = len(manifest.tools) if manifest is not None else 0
        console.print(
            f"[green]valid[/] {escape(loaded.origin)}{what}: {tools} tool(s), "
            f"{len(problems)} warning(s)",
            markup=True,
        )
        if kind == DocumentKind.NFT_METADATA:
            console.print(
                "  checked its fields and the tool metadata JSON in its description "
                "(docs/manifest-spec.md section 3)"
            )
        for problem in problems:
            print_problem(console, problem)

    out.emit(result, render)


# --- show --------------------------------------------------------------------------------
@cli.command(
    epilog=examples(
        "show my-mech/manifest.json",
        "show --devnet 0x0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
    )
)
@click.argument("source")
@_gateway_options
@_json_option
def show(source: str, gateway: str, timeout: float, out: Output) -> None:
    """List a manifest's tools and arguments; errors with no usable tool exit 1."""
    loaded, manifest, problems = _load_manifest(source, gateway, timeout)
    errors = [p for p in problems if p.is_error]
    if errors and not manifest.tools:
        raise CliFailure(
            INVALID_MANIFEST,
            f"{loaded.origin} has {len(errors)} error(s) and no usable tool; "
            "fix the errors below (`validate` explains each).",
            problems,
        )
    result = {
        "source": loaded.origin,
        "cid": loaded.cid,
        "name": manifest.name,
        "description": manifest.description,
        "tools": [t.to_dict() for t in manifest.tools],
        "problems": [p.to_dict() for p in problems],
    }

    def render(console: Console) -> None:
        console.print(
            f"[bold]{manifest.name or '(unnamed mech)'}[/] {manifest.description}",
            markup=True,
        )
        table = Table("tool", "arguments", "description", show_lines=False)
        for tool in manifest.tools:
            arguments = (
                ", ".join(
                    f"{a.identifier}{'' if a.required else '?'}: {a.type}"
                    for a in tool.arguments
                )
                or f"prompt: str (free {tool.input_type or 'text'})"
            )
            table.add_row(tool.name, arguments, tool.description)
        console.print(table)
        for problem in problems:
            print_problem(console, problem)

    out.emit(result, render)


# --- derive ------------------------------------------------------------------------------
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
            f"{without_url(str(exc), rpc_url)}. "
            "Check --rpc, --registry and --multicall.",
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


def _derive(
    path: str, gateway: str = "", timeout: float = DEFAULT_TIMEOUT
) -> DerivedPackage:
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


@cli.command(
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
@click.option("--rpc", "rpc_url", help="Chain JSON-RPC URL (--devnet: the devnet's).")
@click.option(
    "--registry",
    help="AgentRegistry (--agent) or ComponentRegistry (--component) address "
    "(--devnet: the devnet's).",
)
@click.option(
    "--multicall",
    default=MULTICALL2,
    show_default=True,
    help="Multicall2 address on that chain (--devnet: the devnet's).",
)
@chain_options
@_gateway_options
@_json_option
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
    packages = [_derive(p, gateway, timeout) for p in paths]
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


# --- generate ----------------------------------------------------------------------------
@cli.command(
    help="Generate a manifest (spec v1) from tool packages, validated before it is "
    "written.\n\nThe output holds the manifest's canonical bytes (RFC 8785: no spaces, "
    "sorted keys), the bytes `publish` uploads: `cid FILE`, `ipfs add FILE` and "
    "`publish` give one digest.",
    epilog=examples(
        "generate examples/tools/token_oracle -o my-mech/manifest.json",
        "generate examples/tools/* --overrides examples/token_oracle.overrides.yaml -o my-mech/manifest.json",
    ),
)
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option(
    "--overrides", "overrides_path", type=click.Path(), help="YAML/JSON overrides file."
)
@click.option(
    "--output",
    "-o",
    "output_path",
    type=click.Path(dir_okay=False),
    help="Write the manifest here.",
)
@_json_option
def generate(
    paths: Tuple[str, ...],
    overrides_path: Optional[str],
    output_path: Optional[str],
    out: Output,
) -> None:
    """Generate a manifest (spec v1) from tool packages, validated before it is written."""
    packages = [_derive(p) for p in paths]
    try:
        document, warnings = generate_manifest(packages, read_overrides(overrides_path))
    except GenerateError as exc:
        raise CliFailure(
            failure_code(exc, overrides_path),
            generate_failure(exc, overrides_path, "nothing was written"),
            exc.problems,
        ) from exc
    data = canonical_bytes(document)  # the bytes `publish` uploads and hashes
    if output_path:
        Path(output_path).write_bytes(data)
    result = {
        "ok": True,
        "output": output_path,
        "manifest": document,
        "warnings": [w.to_dict() for w in warnings],
    }

    def render(console: Console) -> None:
        if output_path:
            console.print(
                f"[green]wrote[/] {output_path}: {len(document['tools'])} tool(s)",
                markup=True,
            )
        else:
            click.echo(data, nl=False)
        errors = console_on(sys.stderr)
        for warning in warnings:
            print_problem(errors, warning)

    out.emit(result, render)


# --- export ------------------------------------------------------------------------------
@cli.command(
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
    "--identity-registry", help="ERC-8004 IdentityRegistry address (erc8004)."
)
@click.option(
    "--image",
    default="",
    help="Image URI (erc8004): absolute https://, ipfs:// or data: (default: the "
    "manifest's `image` when it is one).",
)
@_gateway_options
@_json_option
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
    loaded, manifest, _ = _load_manifest(source, gateway, timeout)
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


# --- cid ---------------------------------------------------------------------------------
#: (label, CID version, raw leaves) of the ``ipfs add`` layouts ``cid FILE`` reports: kubo's
#: default (CIDv0), ``--cid-version=1`` (raw leaves implied), and CIDv1 with dag-pb leaves,
#: the one whose digest the registries' ``f01701220`` prefix assumes.
KUBO_LAYOUTS = (
    ("kubo-default-v0", 0, False),
    ("kubo-cid-version-1", 1, True),
    ("kubo-cid-version-1-dag-pb-leaves", 1, False),
)


def _cid_of_file(path: Path) -> Dict[str, Any]:
    data = read_file(path, MAX_FILE_SIZE)
    layouts = {}
    for label, version, raw_leaves in KUBO_LAYOUTS:
        codec, digest = root_digest(data, raw_leaves=raw_leaves, cid_version=version)
        codec_name = cids.DAG_PB if codec == CODEC_DAG_PB else cids.RAW
        layouts[label] = {
            "cid": cids.digest_to_cid(digest, codec_name, version),
            "codec": codec_name,
            "digest": "0x" + digest.hex(),
            "command": "ipfs add"
            + ("" if version == 0 else " --cid-version=1")
            + ("" if raw_leaves or version == 0 else " --raw-leaves=false"),
        }
    result = {"kind": "file", "file": str(path), "size": len(data), "layouts": layouts}
    published = _published_form(data)
    if published is not None:
        result["publish"] = published
    return result


def _published_form(data: bytes) -> Optional[Dict[str, Any]]:
    """Say what `publish --manifest` would upload when it is not these very bytes.

    :param data: the file's bytes.
    :return: None when the file is not JSON or already canonical; else the canonical
        form's dag-pb CID and digest, with a note.
    """
    decoded = decode_json(data)
    if not decoded.ok:
        return None
    try:
        canonical = canonical_bytes(decoded.value)
    except CanonicalizationError:
        return None
    if canonical == data:
        return None
    codec, digest = root_digest(canonical, raw_leaves=False, cid_version=1)
    assert codec == CODEC_DAG_PB  # nosec B101: dag-pb leaves were asked for
    return {
        "note": "this file is not in canonical form (RFC 8785); `publish --manifest` "
        "uploads the canonical bytes, whose digest is this one (`generate` writes them)",
        "cid": cids.digest_to_cid(digest, cids.DAG_PB),
        "digest": "0x" + digest.hex(),
    }


def _cid_of_digest(value: str) -> Dict[str, Any]:
    digest = cids.normalise_digest(value)
    return {
        "kind": "digest",
        "digest": digest,
        "dag_pb_v1": cids.digest_to_cid(digest, cids.DAG_PB),
        "dag_pb_v1_base16": cids.digest_to_cid(digest, cids.DAG_PB, base="base16"),
        "dag_pb_v0": cids.digest_to_cid(digest, cids.DAG_PB, version=0),
        "raw_v1": cids.digest_to_cid(digest, cids.RAW),
    }


def _cid_of_cid(value: str) -> Dict[str, Any]:
    codec, digest = cids.cid_to_digest(value)
    result: Dict[str, Any] = {
        "kind": "cid",
        "cid": cids.strip_cid(value),
        "codec": codec,
        "digest": digest,
        "v1": cids.to_v1(value),
    }
    if codec == cids.DAG_PB:
        result["v0"] = cids.to_v0(value)
    return result


@cli.command(
    name="cid",
    help="Convert a bytes32 digest <-> CID, or compute a FILE's CIDs as kubo's "
    "`ipfs add` would.\n\nVALUE is an existing file, a 0x + 64 hex digest, or a CID in "
    "any textual form: v0 (Qm...), v1 in base32 (either case), base58btc, base16 or "
    "base36, ipfs://<cid> or /ipfs/<cid>. A raw-codec CID is reported as raw.",
    epilog=examples(
        "cid my-mech/manifest.json",
        "cid 0x0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
        "cid bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
    ),
)
@click.argument("value")
@_json_option
def cid_command(value: str, out: Output) -> None:
    """Print the conversions of VALUE (file, digest or CID); bad input fails with exit 1."""
    try:
        if Path(value).is_file():
            result = _cid_of_file(Path(value))
        elif (
            value.lower().startswith("0x")
            or len(value) == 64
            and all(c in "0123456789abcdefABCDEF" for c in value)
        ):
            result = _cid_of_digest(value)
        else:
            result = _cid_of_cid(value)
    except cids.CidError as exc:
        raise CliFailure(exc.problem.code, exc.problem.message, (exc.problem,)) from exc

    def render(console: Console) -> None:
        for key, item in result.items():
            if key == "publish":
                console.print(
                    f"publish uploads {item['cid']} (digest {item['digest']}): {item['note']}",
                    markup=False,
                )
            elif isinstance(item, dict):
                for layout in item.values():
                    console.print(
                        f"{layout['command']}: {layout['cid']} (digest {layout['digest']})",
                        markup=False,
                    )
            else:
                console.print(f"{key}: {item}", markup=False)

    out.emit(result, render)


def main() -> None:
    """Run the CLI (exit codes: 0 ok, 1 invalid input, 2 usage)."""
    cli(obj={}, prog_name="mech-catalogue")  # pylint: disable=no-value-for-parameter


assert EXIT_INVALID == CliFailure.exit_code
