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

"""``mech-catalogue publish``: generate (or read) a manifest, upload, verify, update the registry.

Over :class:`mech_catalogue_cli.publisher.publisher.Publisher`. Who signs:

- ``--key-file FILE`` or ``$MECH_CATALOGUE_PUBLISH_KEY`` (hex private key): the owner key
  sends the update itself; with ``--safe``, a key that alone meets the Safe's threshold
  executes the Safe transaction;
- no key: the command prints the transaction to sign (with ``--safe``: the Safe
  transaction and its ``safeTxHash``, to sign in the Safe's own tooling).

``--dry-run`` checks everything (manifest, id, authorisation, on-chain digest, and with
a key the fees it would sign) and uploads nothing, sends nothing. The update is signed
within ``--max-fee-per-gas`` with the tip of ``--priority-fee-per-gas`` (the fee options
of every command that signs: :mod:`.gas_options`). Exit code 1 with the failure's code
on every refusal.
"""

import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import click
from eth_account import Account
from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.chain.presets import ChainPreset
from mech_catalogue_core.derive.derive import (
    DeriveError,
)
from mech_catalogue_core.derive.generate import (
    GenerateError,
    generate_manifest,
)
from mech_catalogue_core.manifest.validation import (
    decode_json,
)
from mech_catalogue_core.model.references import PROJECT_URL
from mech_catalogue_core.model.tool import (
    REGISTRY_KINDS,
    REGISTRY_OLAS_AGENT,
)
from mech_catalogue_core.publish.publish import (
    INVALID_MANIFEST,
    UP_TO_DATE,
    PublishError,
    PublishTarget,
)
from web3 import Web3

from mech_catalogue_cli.fee_caps import FeeBounds, say_gwei
from mech_catalogue_cli.publisher.ipfs import DEFAULT_IPFS_TIMEOUT, IpfsApi
from mech_catalogue_cli.publisher.publisher import Publisher, PublishReport

from ..adapters.http import DeadlineSession
from ..chain_options import PresetCommand, chain_options, need, pick
from ..devnet_options import (
    USES_PUBLISH,
    DevnetSettings,
    devnet_options,
    given,
    ipfs_api_url,
)
from ..folders import DEFAULTS, samples_help
from ..keys import load_key
from ..output import CliFailure, Output, console_on, print_problem
from ..overrides import failure_code, generate_failure, read_overrides
from ..sources import read_file
from .gas_options import (
    chosen_max_fee_per_gas,
    fee_options,
    tip_choice,
    warn_of_low_tip,
)

RPC_ENV = "MECH_CATALOGUE_RPC"
IPFS_API_ENV = "MECH_CATALOGUE_IPFS_API"
KEY_ENV = "MECH_CATALOGUE_PUBLISH_KEY"
DEFAULT_RPC = "http://127.0.0.1:8545"
DEFAULT_IPFS_API = "http://127.0.0.1:5001"
NO_MANIFEST = "no_manifest"
MISSING_OPTION = "missing_option"


def _manifest(
    paths: Tuple[str, ...], manifest_path: Optional[str], overrides_path: Optional[str]
) -> Any:
    if manifest_path:
        if paths:
            raise CliFailure(
                NO_MANIFEST, "Give tool package folders or --manifest, not both."
            )
        decoded = decode_json(read_file(Path(manifest_path)))
        if not decoded.ok:
            raise CliFailure(
                INVALID_MANIFEST,
                f"{manifest_path} is not valid JSON; nothing was published.",
                decoded.problems,
            )
        return decoded.value
    if not paths:
        raise CliFailure(
            NO_MANIFEST,
            "Give tool package folders to generate the manifest from, or --manifest FILE.",
        )
    packages = []
    for path in paths:
        try:
            packages.append(derive_package(path))
        except DeriveError as exc:
            raise CliFailure(
                exc.problem.code, exc.problem.message, (exc.problem,)
            ) from exc
        except OSError as exc:
            raise CliFailure(
                "file_not_readable", f"Cannot read the tool package at {path}: {exc}."
            ) from exc
    overrides = read_overrides(overrides_path)
    try:
        return generate_manifest(packages, overrides)[0]
    except GenerateError as exc:
        raise CliFailure(
            failure_code(exc, overrides_path),
            generate_failure(exc, overrides_path, "nothing was published"),
            exc.problems,
        ) from exc


def _render(report: PublishReport) -> None:
    console = console_on(sys.stdout)
    target = report.target
    console.print(
        f"manifest {report.cid} ({len(report.tools)} tools: {', '.join(report.tools)})",
        markup=False,
    )
    console.print(f"digest   {report.digest}", markup=False)
    console.print(f"target   {target.describe}", markup=False)
    console.print(f"on chain {report.onchain_before or '(no hash)'}", markup=False)
    if report.fees:
        console.print(
            f"fees     {say_gwei(int(report.fees['maxFeePerGas']))} per gas at most "
            f"(tip {say_gwei(int(report.fees['maxPriorityFeePerGas']))}; "
            f"--max-fee-per-gas {say_gwei(int(report.fees['maxFeePerGasCap']))})",
            markup=False,
        )
    if report.decision == UP_TO_DATE:
        console.print(
            "[green]up to date[/]: the registry already holds this digest; nothing sent."
        )
    elif report.sent:
        console.print(
            f"[green]updated[/] tx {report.tx_hash} gas {report.gas_used}; digest read back and event match."
        )
    elif report.safe_tx:
        console.print("[yellow]sign this Safe transaction[/] (nothing was sent):")
        click.echo(json.dumps(report.safe_tx, indent=2))
    elif report.call:
        note = "dry run" if report.dry_run else "no key given"
        console.print(
            f"[yellow]{note}[/]: the transaction to send from the owner (nothing was sent):"
        )
        click.echo(json.dumps(report.call.to_dict(), indent=2))
    errors = console_on(sys.stderr)
    for warning in report.warnings:
        print_problem(errors, warning)


def _require(kind: str, registry: str, manager: str) -> None:
    """Name a missing address option before anything else is checked.

    :param kind: ``--kind``.
    :param registry: ``--registry`` (or the devnet's).
    :param manager: ``--manager`` (or the devnet's).
    :raises CliFailure: ``missing_option`` naming the option.
    """
    if not registry:
        raise CliFailure(
            MISSING_OPTION,
            "`--registry` is required (the registry's address), or use --devnet.",
        )
    if kind == REGISTRY_OLAS_AGENT and not manager:
        raise CliFailure(
            MISSING_OPTION,
            "`--manager` is required for this kind (olas_agent_registry): the "
            "RegistriesManager address that sends updateHash; or use --devnet.",
        )


def _from_preset(
    preset: ChainPreset, kind: str, registry: str, manager: str, rpc: str
) -> Tuple[str, str, str]:
    """Fill the registry, RegistriesManager and RPC a ``--chain`` preset has, where not typed.

    :param preset: the ``--chain`` preset.
    :param kind: ``--kind``.
    :param registry: ``--registry`` ("" when not given).
    :param manager: ``--manager`` ("" when not given).
    :param rpc: ``--rpc`` (typed, environment or default).
    :return: ``(registry, manager, rpc)``; a value the preset lacks is a usage error
        (exit 2) naming the option to pass.
    """
    registry = registry or need(preset, kind, "--registry ADDRESS")
    if kind == REGISTRY_OLAS_AGENT:
        manager = manager or need(preset, "registries_manager", "--manager ADDRESS")
    if not given("rpc"):
        rpc = pick("rpc", rpc, need(preset, "rpc_url", "--rpc URL"))
    return registry, manager, rpc


@click.command(
    cls=PresetCommand,
    help="Publish a manifest: generate it from tool packages (or take --manifest), "
    "validate it, upload it to IPFS and read it back, compare its digest with the "
    "registry's, and send the hash update (signed by the owner key, or through --safe). "
    "An unchanged digest sends nothing.",
    epilog=samples_help(DEFAULTS, PROJECT_URL) + "\n\n\b\nExamples:\n"
    "  mech-catalogue publish examples/tools/token_oracle --overrides examples/token_oracle.overrides.yaml \\\n"
    "      --kind complementary_service_metadata --id 2 --chain devnet\n"
    "  mech-catalogue publish --manifest manifest.json --kind complementary_service_metadata \\\n"
    "      --id 2 --chain gnosis --ipfs-api /ip4/127.0.0.1/tcp/5001/http --dry-run\n"
    "  mech-catalogue publish --manifest manifest.json --kind legacy_mech_registry \\\n"
    "      --registry 0x... --id 7 --rpc https://... --ipfs-api /ip4/127.0.0.1/tcp/5001/http \\\n"
    "      --key-file owner.key --dry-run",
)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--manifest",
    "manifest_path",
    type=click.Path(dir_okay=False),
    help="Publish this manifest file instead of generating one.",
)
@click.option(
    "--overrides",
    "overrides_path",
    type=click.Path(dir_okay=False),
    help="YAML/JSON overrides for generation.",
)
@click.option(
    "--kind",
    type=click.Choice(REGISTRY_KINDS),
    required=True,
    help="Registry kind holding the digest.",
)
@click.option(
    "--registry",
    default="",
    help="Address of the AgentRegistry / legacy registry / ComplementaryServiceMetadata "
    "(required unless --chain or --devnet).",
    metavar="ADDRESS",
)
@click.option(
    "--manager",
    default="",
    help="RegistriesManager address (required for olas_agent_registry unless --chain or --devnet).",
    metavar="ADDRESS",
)
@click.option(
    "--id",
    "mech_id",
    type=click.IntRange(min=1),
    required=True,
    help="Agent id, or service id.",
)
@click.option(
    "--rpc",
    default=lambda: os.environ.get(RPC_ENV, DEFAULT_RPC),
    show_default=f"${RPC_ENV} or {DEFAULT_RPC}",
    help="JSON-RPC URL.",
    metavar="URL",
)
@click.option(
    "--ipfs-api",
    default=lambda: os.environ.get(IPFS_API_ENV, DEFAULT_IPFS_API),
    show_default=f"${IPFS_API_ENV} or {DEFAULT_IPFS_API}",
    callback=lambda _ctx, _param, value: ipfs_api_url(value),
    help="Kubo RPC API: a URL, or the multiaddr kubo and the devnet print "
    "(/ip4/127.0.0.1/tcp/5001/http).",
    metavar="URL|MULTIADDR",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=DEFAULT_IPFS_TIMEOUT,
    show_default=True,
    help="Seconds per IPFS/RPC request.",
)
@click.option(
    "--key-file",
    type=click.Path(dir_okay=False),
    help=f"File with the owner's hex private key (else ${KEY_ENV}; with --devnet, the "
    "devnet account that owns the mech).",
)
@click.option(
    "--safe",
    default=None,
    help="Publish through this Safe (e.g. the service multisig).",
    metavar="ADDRESS",
)
@click.option(
    "--dry-run", is_flag=True, help="Check and report; upload nothing, send nothing."
)
@fee_options
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.pass_context
@chain_options
@devnet_options(USES_PUBLISH)
def publish(  # pylint: disable=too-many-arguments,too-many-locals,too-many-positional-arguments
    ctx: click.Context,
    paths: Tuple[str, ...],
    manifest_path: Optional[str],
    overrides_path: Optional[str],
    kind: str,
    registry: str,
    manager: str,
    mech_id: int,
    rpc: str,
    ipfs_api: str,
    timeout: float,
    key_file: Optional[str],
    safe: Optional[str],
    dry_run: bool,
    max_fee_per_gas: Optional[int],
    priority_fee_per_gas: Optional[int],
    as_json: bool,
    devnet: Optional[DevnetSettings],
    preset: Optional[ChainPreset],
) -> None:
    """Publish a manifest: generate/validate, upload + read back, compare digests, update the registry."""
    out = Output(as_json or bool((ctx.obj or {}).get("json")))
    try:
        devnet_key = ""
        if devnet is not None:
            registry = registry or devnet.registry(kind)
            manager = manager or devnet.manager
            rpc = rpc if given("rpc") else devnet.info.rpc_url
            ipfs_api = ipfs_api if given("ipfs_api") else devnet.info.ipfs_api_url
            if not (key_file or safe or os.environ.get(KEY_ENV)):
                devnet_key = devnet.owner_key(kind, mech_id)
        if preset is not None:
            registry, manager, rpc = _from_preset(preset, kind, registry, manager, rpc)
        _require(kind, registry, manager)
        document = _manifest(paths, manifest_path, overrides_path)
        key = load_key(key_file, KEY_ENV, devnet_key)
        # pylint: disable-next=no-value-for-parameter
        account = Account.from_key(key) if key else None
        if account is not None:  # the tip is signed only with a key
            warn_of_low_tip(priority_fee_per_gas, preset, cancels=False)
        try:
            target = PublishTarget(kind, registry, mech_id, manager)
            w3 = Web3(
                Web3.HTTPProvider(
                    rpc,
                    request_kwargs={"timeout": timeout},
                    session=DeadlineSession(timeout),
                )
            )
            fee_bounds = FeeBounds(
                chosen_max_fee_per_gas(max_fee_per_gas, preset),
                tip_choice(priority_fee_per_gas, preset, devnet is not None),
            )
            report = Publisher(
                w3, IpfsApi(ipfs_api, timeout=timeout), fee_bounds=fee_bounds
            ).publish(document, target, account=account, safe=safe, dry_run=dry_run)
        except PublishError as exc:
            first = exc.problems[0]
            raise CliFailure(first.code, first.message, exc.problems[1:]) from exc
    except CliFailure as failure:
        out.fail(failure)
    result: Dict[str, Any] = report.to_dict()
    out.emit(result, lambda _console: _render(report))
