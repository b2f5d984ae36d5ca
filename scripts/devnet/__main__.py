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

"""``python -m scripts.devnet up [--no-seed] | down | status`` (run from the repository root).

``make devnet-up`` / ``make devnet-down`` run the first two with the repository's venv.
"""

import sys
import time
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from mech_catalogue_cli.devnet.locate import down_command
from mech_catalogue_cli.devnet.state import DEFAULT_STATE_DIR, DevnetInfo
from scripts.devnet.devnet import Devnet, DevnetError
from scripts.devnet.processes import ProcessError
from scripts.run_local.view import cli_command
from scripts.toolchain import MissingTool

console = Console()
if not console.is_terminal:  # piped output: do not cut CIDs and addresses at 80 columns
    console = Console(width=200)


def _print_info(info: DevnetInfo) -> None:
    endpoints = Table(title="devnet", show_header=False)
    endpoints.add_row("chain id", str(info.chain_id))
    endpoints.add_row("RPC", f"{info.rpc_url}  (anvil pid {info.anvil_pid})")
    endpoints.add_row(
        "IPFS API", f"{info.ipfs_api_multiaddr}  (kubo pid {info.ipfs_pid})"
    )
    endpoints.add_row("IPFS gateway", info.ipfs_gateway_url)
    endpoints.add_row("state", str(Path(info.state_dir) / "devnet.json"))
    for name, address in info.contracts.items():
        endpoints.add_row(name, address)
    console.print(endpoints)
    if info.registered:
        registered = Table(title="registered manifests")
        for column in ("registry", "id", "action", "shape", "CID"):
            registered.add_column(column)
        for entry in info.registered:
            registered.add_row(
                entry.registry, str(entry.id), entry.action, entry.shape, entry.cid
            )
        console.print(registered)


@click.group()
@click.option(
    "--state-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_STATE_DIR,
    show_default=True,
    help="Folder of devnet.json, logs and the IPFS repo.",
)
@click.pass_context
def cli(ctx: click.Context, state_dir: Path) -> None:
    """Local devnet: anvil + Olas registry stack + legacy mech registry + kubo."""
    ctx.obj = state_dir


@cli.command()
@click.option(
    "--seed/--no-seed",
    default=True,
    show_default=True,
    help="Register the fixture manifests in every registry kind (--no-seed: only "
    "deploy the contracts).",
)
@click.option("--chain-id", type=int, default=31337, show_default=True)
@click.pass_obj
def up(state_dir: Path, seed: bool, chain_id: int) -> None:
    """Start the devnet detached, write devnet.json, print what runs and what is registered."""
    began = time.monotonic()
    try:
        devnet = Devnet.start(seed=seed, state_dir=state_dir, chain_id=chain_id)
    except (DevnetError, MissingTool, ProcessError) as error:
        console.print(f"[red]devnet up failed:[/red] {error}")
        sys.exit(1)
    _print_info(devnet.info)
    console.print(
        f"devnet up in {time.monotonic() - began:.1f} s; read it with: "
        f"{cli_command('list --devnet')}; stop it with: {down_command(state_dir)}",
        markup=False,
    )


@cli.command()
@click.pass_obj
def down(state_dir: Path) -> None:
    """Stop the devnet's processes by their recorded pids."""
    try:
        devnet = Devnet.attach(state_dir)
    except DevnetError as error:
        console.print(str(error))
        return
    devnet.stop()
    console.print(
        f"stopped anvil (pid {devnet.info.anvil_pid}) and kubo (pid {devnet.info.ipfs_pid})"
    )


@cli.command()
@click.pass_obj
def status(state_dir: Path) -> None:
    """Tell whether anvil and kubo are alive and answer; exit 1 when not."""
    try:
        devnet = Devnet.attach(state_dir)
    except DevnetError as error:
        console.print(str(error))
        sys.exit(1)
    health = devnet.status()
    for name, ok in health.items():
        console.print(f"{name}: {'[green]up[/green]' if ok else '[red]down[/red]'}")
    if all(health.values()):
        _print_info(devnet.info)
    else:
        sys.exit(1)


if __name__ == "__main__":
    cli()  # pylint: disable=no-value-for-parameter
