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

"""``python -m scripts.run_local [--agents 1|4]``: the main job, shown live until Ctrl-C."""

import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any, Callable, Dict, Optional

import click
from rich.console import Console
from rich.live import Live

from mech_catalogue_cli.devnet.locate import RUN_DIR_ENV, run_dir
from scripts.devnet.devnet import DevnetError
from scripts.devnet.processes import ProcessError
from scripts.run_local.runner import (
    LocalRun,
    RunInUse,
    choose_http_port,
    spoken_list,
)
from scripts.run_local.view import (
    LinePrinter,
    cli_command,
    devnet_endpoints,
    endpoints_table,
    render,
)
from scripts.run_local.workspace import SERVICES, WorkspaceError, service_unavailable
from scripts.toolchain import MissingTool

console = Console()
if not console.is_terminal:  # piped output: do not cut digests and URLs at 80 columns
    console = Console(width=400)
HTTP_PORT_ENV = "MECH_CATALOGUE_HTTP_PORT"
DEFAULT_HTTP_PORT = 8000


def _terminate(
    signum: int, frame: Optional[FrameType]
) -> None:  # pylint: disable=unused-argument
    raise KeyboardInterrupt


def install_stop_signals() -> None:
    """Make Ctrl-C (SIGINT) and SIGTERM stop the run, even when SIGINT came in ignored.

    A program started in the background by a shell (``make run &``, a script, ``nohup``)
    inherits SIGINT as ignored, and Python then leaves it ignored: Ctrl-C or ``kill -INT``
    did nothing and the devnet and agents ran on.
    """
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _terminate)


def stop_uninterrupted(stop: Callable[[], None]) -> None:
    """Run ``stop`` with SIGINT and SIGTERM ignored, then restore their handlers.

    A second Ctrl-C while stuck agents were being stopped used to interrupt the stop and
    leave the remaining agents, Tendermint nodes and the devnet running.

    :param stop: what stops everything (e.g. ``LocalRun.stop``).
    """
    previous = {
        signum: signal.signal(signum, signal.SIG_IGN)
        for signum in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        stop()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _http_port(requested: int, agents: int) -> int:
    """Check the agents' HTTP ports before anything starts (:func:`choose_http_port`).

    :param requested: ``--http-port`` (or its default).
    :param agents: how many agents.
    :return: the first port to use: the requested one, or a free one (printed) when the
        default was busy; exits 1 naming a free port when a requested one is busy.
    """
    source = click.get_current_context().get_parameter_source("http_port")
    explicit = (
        source == click.core.ParameterSource.COMMANDLINE or HTTP_PORT_ENV in os.environ
    )
    try:
        port, note = choose_http_port(requested, agents, explicit)
    except WorkspaceError as error:
        console.print(f"[red]run failed:[/red] {error}")
        sys.exit(1)
    if note:
        console.print(note, markup=False)
    return port


@click.command()
@click.option(
    "--agents",
    type=click.IntRange(1, 7),
    default=lambda: int(os.environ.get("AGENTS", "1")),
    show_default="1, or $AGENTS",
    help="1: one agent on the abci connection's mock Tendermint; 4: four agents, each with its own Tendermint node.",
)
@click.option(
    "--service",
    type=click.Choice(SERVICES),
    default=lambda: os.environ.get("SERVICE", SERVICES[0]),
    show_default=f"$SERVICE or {SERVICES[0]}",
    help="tool_metadata: the catalogue service; requester: the catalogue, a tool choice "
    "and mech-interact's paid request through the agents' Safe (docs/running.md).",
)
@click.option(
    "--work-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=run_dir,
    show_default=f"${RUN_DIR_ENV} or .run",
    help="Agents, Tendermint homes, devnet state (<work dir>/devnet, found by the CLI's "
    "--devnet) and logs.",
)
@click.option(
    "--http-port",
    type=click.IntRange(1, 65535 - 7),
    default=lambda: int(os.environ.get(HTTP_PORT_ENV, DEFAULT_HTTP_PORT)),
    show_default=f"${HTTP_PORT_ENV} or {DEFAULT_HTTP_PORT}",
    help="HTTP port of the first agent's catalogue API (GET /tools); agent i gets this + i.",
)
@click.option(
    "--refresh",
    type=float,
    default=2.0,
    show_default=True,
    help="Seconds between reads of the agents' HTTP API.",
)
@click.option(
    "--reset-pause",
    type=int,
    default=10,
    show_default=True,
    help="Seconds between periods (reset_pause_duration, >= 10).",
)
@click.option(
    "--duration",
    type=float,
    default=0.0,
    help="Stop after this many seconds (0: run until Ctrl-C).",
)
def main(  # pylint: disable=too-many-arguments,too-many-positional-arguments,too-many-locals
    agents: int,
    service: str,
    work_dir: Path,
    http_port: int,
    refresh: float,
    reset_pause: int,
    duration: float,
) -> None:
    """Bring up the seeded devnet, run the service's agent(s), show the catalogue they serve."""
    unavailable = service_unavailable(service)
    if unavailable is not None:
        console.print(f"[red]cannot run {service}:[/red] {unavailable}", markup=True)
        sys.exit(1)
    install_stop_signals()
    http_port = _http_port(http_port, agents)
    run = LocalRun(
        agents=agents,
        service=service,
        work_dir=work_dir,
        settings={"RESET_PAUSE_DURATION": str(reset_pause)},
        http_port=http_port,
        offchain=True,
    )
    mode = "mock Tendermint" if agents == 1 else f"{agents} Tendermint nodes"
    first_catalogue: Optional[float] = None
    try:
        with console.status(f"starting devnet and {agents} agent(s) ({mode})…"):
            run.start()
        parts = ", ".join(
            f"{name} {seconds} s"
            for name, seconds in run.timings.items()
            if name != "start_total"
        )
        console.print(f"started in {run.timings.get('start_total')} s ({parts})")
        endpoints = devnet_endpoints(run.devnet.info) if run.devnet else {}
        console.print(endpoints_table(endpoints))
        for process in run.processes:
            console.print(
                f"{process.name}: {process.address}  {process.http_url}/tools  "
                f"page {process.http_url}/catalogue/  log {process.log_path}",
                markup=False,
            )
        if run.stand_in is not None:
            console.print(
                f"off-chain endpoint of mech {run.stand_in.mech} (devnet stand-in): "
                f"{run.stand_in.url}; try: {cli_command(run.stand_in.try_arguments())}",
                markup=False,
            )
        lines = LinePrinter(console)
        with Live(console=console, refresh_per_second=2, screen=False) as live:
            while True:
                views = run.read()
                elapsed = time.monotonic() - run.started_at
                if first_catalogue is None and any(
                    view.has_catalogue for view in views
                ):
                    first_catalogue = elapsed
                digests = {
                    view.health.get("catalogue_digest")
                    for view in views
                    if view.has_catalogue
                }
                agreement = (
                    ""
                    if len(views) == 1
                    else (
                        " · same digest on every agent"
                        if len(digests) == 1 and all(v.has_catalogue for v in views)
                        else " · digests differ / pending"
                    )
                )
                line = (
                    f"{agents} agent(s), {mode} · {elapsed:.0f} s since start"
                    + (
                        f" · first catalogue after {first_catalogue:.1f} s"
                        if first_catalogue
                        else ""
                    )
                    + agreement
                    + " · Ctrl-C stops everything"
                )
                live.update(render(views, line, endpoints))
                lines.print_changes(views)
                dead = run.dead()
                if dead:
                    console.print(
                        f"[red]stopped unexpectedly: {', '.join(dead)}; see the logs in {work_dir}[/red]"
                    )
                    sys.exit(1)
                if duration and elapsed >= duration:
                    break
                time.sleep(refresh)
    except KeyboardInterrupt:
        console.print("Ctrl-C received")
    except (DevnetError, MissingTool, ProcessError, RunInUse, WorkspaceError) as error:
        console.print(f"[red]run failed:[/red] {error}")
        sys.exit(1)
    finally:
        _stop(run)


def spoken_summary(summary: Dict[str, Any]) -> str:
    """Say a run's :meth:`.LocalRun.summary` in one line, seconds rounded to 0.1.

    :param summary: the summary (``timings``, ``first_catalogue_after_start_s``,
        ``periods``, ``period_s``; others are left out).
    :return: e.g. ``timings: devnet 4.2 s, agents 3.1 s; first catalogue 13.8 s after
        the start; 12 periods, 5.0 s each on average``.
    """
    phases = ", ".join(
        f"{name} {float(value):.1f} s"
        for name, value in dict(summary.get("timings") or {}).items()
    )
    parts = [f"timings: {phases or 'none recorded'}"]
    if "first_catalogue_after_start_s" in summary:
        first = float(summary["first_catalogue_after_start_s"])
        parts.append(f"first catalogue {first:.1f} s after the start")
    if summary.get("periods"):
        said = f"{summary['periods']} periods"
        if "period_s" in summary:
            said += f", {float(summary['period_s']):.1f} s each on average"
        parts.append(said)
    return "; ".join(parts)


def _stop(run: LocalRun) -> None:
    """Stop what this run started, saying so; say nothing when it started nothing.

    :param run: the run.
    """
    parts = spoken_list(run.started())
    if not parts:
        return
    summary = run.summary()
    console.print(
        f"stopping {parts} (Ctrl-C is ignored until they are stopped; stuck "
        "processes are killed after a timeout)…"
    )
    stop_uninterrupted(run.stop)
    console.print(f"{parts} stopped")
    console.print(spoken_summary(summary), markup=False)


if __name__ == "__main__":
    main()  # pylint: disable=no-value-for-parameter
