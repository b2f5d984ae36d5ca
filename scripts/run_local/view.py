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

"""Read the catalogue from an agent's HTTP API and render it with rich."""

import json
import shutil
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

MAX_PAGES = 100


class AgentUnreachable(Exception):
    """The agent's HTTP API did not answer (not started yet, or stopped)."""


def get_json(url: str, timeout: float = 5.0) -> Any:
    """GET a JSON document; error statuses still return their JSON body.

    :param url: an http URL on loopback.
    :param timeout: seconds.
    :return: the decoded body.
    :raises AgentUnreachable: when nothing answers or the body is not JSON.
    """
    try:
        with urllib.request.urlopen(
            url, timeout=timeout
        ) as response:  # nosec B310: loopback http only
            body = response.read()
    except urllib.error.HTTPError as error:
        body = error.read()
    except (urllib.error.URLError, OSError) as error:
        raise AgentUnreachable(f"{url}: {error}") from error
    try:
        return json.loads(body)
    except ValueError as error:
        raise AgentUnreachable(f"{url} answered non-JSON: {body[:200]!r}") from error


@dataclass
class AgentView:
    """What one agent serves right now.

    :param name: the agent's name.
    :param health: ``GET /healthcheck`` (``status``, ``catalogue_digest``, ``period`` ...).
    :param tools: every page of ``GET /tools`` (MCP Tool objects).
    :param mechs: ``GET /mechs``'s ``mechs``.
    :param error: why the agent could not be read, if it could not.
    :param waiting: the agent has not answered once since it was started (its HTTP
        server is still coming up): shown as waiting, not as unreachable.
    :param request: the requester service's last request (``GET /synchronized_data``'s
        ``request``: ``tool``, ``mech``, ``price`` in wei, ``responses``); empty for the
        tool metadata service.
    """

    name: str
    health: Dict[str, Any] = field(default_factory=dict)
    tools: List[Dict[str, Any]] = field(default_factory=list)
    mechs: List[Dict[str, Any]] = field(default_factory=list)
    error: Optional[str] = None
    waiting: bool = False
    request: Dict[str, Any] = field(default_factory=dict)

    @property
    def last_answer(self) -> Optional[Dict[str, Any]]:
        """:return: the last response with an answer (``request_id``, ``answer``), or None."""
        done = [
            response
            for response in self.request.get("responses", [])
            if response.get("answer") is not None
        ]
        return done[-1] if done else None

    @property
    def has_catalogue(self) -> bool:
        """:return: whether the agent serves an agreed catalogue."""
        return bool(self.health.get("catalogue_digest"))


def read_agent(name: str, base_url: str, requests: bool = False) -> AgentView:
    """Read health, all tool pages and mechs from one agent (and its last request).

    :param name: the agent's name.
    :param base_url: e.g. ``http://127.0.0.1:8000``.
    :param requests: also read ``GET /synchronized_data``'s ``request`` (the requester
        service; the tool metadata service's document has none and can be megabytes).
    :return: the view; ``error`` set when the agent does not answer.
    """
    view = AgentView(name)
    try:
        view.health = get_json(f"{base_url}/healthcheck")
        if not view.has_catalogue:
            return view
        cursor: Optional[str] = None
        for _ in range(MAX_PAGES):
            page = get_json(
                f"{base_url}/tools" + (f"?cursor={cursor}" if cursor else "")
            )
            view.tools.extend(page.get("tools", []))
            cursor = page.get("nextCursor")
            if not cursor:
                break
        cursor = None
        for _ in range(MAX_PAGES):
            page = get_json(
                f"{base_url}/mechs" + (f"?cursor={cursor}" if cursor else "")
            )
            view.mechs.extend(page.get("mechs", []))
            cursor = page.get("nextCursor")
            if not cursor:
                break
        if requests:
            document = get_json(f"{base_url}/synchronized_data")
            view.request = dict(document.get("request") or {})
    except AgentUnreachable as error:
        view.error = str(error)
    return view


def _short(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


#: what the agents table's problem column counts (the health endpoint's ``errors``)
MANIFEST_ERRORS_NOTE = (
    "manifest errors: error-severity problems in the mechs' manifests (those mechs are "
    "quarantined or partly read); the agents themselves are fine while their status is "
    "fresh. Agent errors go to each agent's log."
)


def endpoints_table(endpoints: Dict[str, str]) -> Table:
    """The devnet's endpoints, as the CLI's ``--devnet`` finds them.

    :param endpoints: label -> value (RPC, chain id, IPFS API, gateway, folder).
    :return: a two-column table.
    """
    table = Table(title="devnet", show_header=False, expand=False)
    for label, value in endpoints.items():
        table.add_row(label, value)
    return table


def cli_command(
    arguments: str, scripts_dir: Optional[Path] = None, path: Optional[str] = None
) -> str:
    """Return how to run the CLI from the user's shell: by name when that is this one.

    ``make setup`` installs ``mech-catalogue`` into ``.venv/bin``, which is not on a
    shell's PATH until the venv is activated; a bare ``mech-catalogue`` then answers
    "command not found".

    :param arguments: the command's arguments (``list --devnet``).
    :param scripts_dir: the folder of this Python's console scripts (default: the folder
        of ``sys.executable``, ``.venv/bin`` under ``make run``).
    :param path: the PATH to look in (default: the environment's).
    :return: ``mech-catalogue <arguments>`` when PATH finds this installation's, else
        its path (relative to the working folder when inside it) with the arguments,
        and how to put it on PATH.
    """
    folder = scripts_dir or Path(sys.executable).parent
    installed = folder / "mech-catalogue"
    found = shutil.which("mech-catalogue", path=path)
    if found and Path(found).resolve() == installed.resolve():
        return f"mech-catalogue {arguments}"
    try:
        shown = str(installed.relative_to(Path.cwd()))
    except ValueError:
        shown = str(installed)
    activate = Path(shown).parent / "activate"
    return f"{shown} {arguments}  (or `source {activate}` first, then `mech-catalogue`)"


def argument_types(schema: Dict[str, Any]) -> str:
    """Return a tool's arguments as ``name: type`` from its MCP ``inputSchema``.

    :param schema: the JSON Schema object (``properties``, ``required``).
    :return: e.g. ``prompt: string, n?: integer`` (``?``: optional; ``enum`` when the
        property lists values, ``any`` when it names no type).
    """
    required = set(schema.get("required", []))
    parts = []
    for name, prop in schema.get("properties", {}).items():
        kind = prop.get("type") if isinstance(prop, dict) else None
        if isinstance(kind, list):
            kind = "|".join(str(k) for k in kind)
        elif kind == "array" and isinstance(prop.get("items"), dict):
            kind = f"array[{prop['items'].get('type', 'any')}]"
        if not kind:
            kind = "enum" if isinstance(prop, dict) and "enum" in prop else "any"
        parts.append(f"{name}{'' if name in required else '?'}: {kind}")
    return ", ".join(parts)


def devnet_endpoints(info: Any) -> Dict[str, str]:
    """Return what a user needs to reach the devnet by hand.

    :param info: the devnet's :class:`mech_catalogue_cli.devnet.state.DevnetInfo`.
    :return: label -> value, in display order.
    """
    return {
        "RPC": info.rpc_url,
        "chain id": str(info.chain_id),
        "IPFS API": f"{info.ipfs_api_url}  ({info.ipfs_api_multiaddr})",
        "IPFS gateway": info.ipfs_gateway_url,
        "folder": str(info.state_dir),
        "CLI": cli_command("list --devnet"),
    }


def render(
    views: List[AgentView],
    status_line: str,
    endpoints: Optional[Dict[str, str]] = None,
) -> Group:
    """The devnet's endpoints, the agents' status, and the catalogue of the first agent that has one.

    :param views: one per agent.
    :param status_line: a line on top (elapsed time, what runs, how to stop).
    :param endpoints: the devnet's endpoints (:func:`devnet_endpoints`), shown first.
    :return: a renderable for ``rich.live.Live``.
    """
    agents = Table(title="agents", expand=False, caption=MANIFEST_ERRORS_NOTE)
    for column in (
        "agent",
        "status",
        "period",
        "block",
        "catalogue digest",
        "mechs",
        "tools",
        "manifest errors",
        "age s",
    ):
        agents.add_column(column)
    for view in views:
        health = view.health
        status = str(health.get("status", "…"))
        if view.error:
            status = (
                "[yellow]waiting for the agent[/yellow]"
                if view.waiting
                else "[red]unreachable[/red]"
            )
        agents.add_row(
            view.name,
            status,
            str(health.get("period", "")),
            str(health.get("block_number", "")),
            str(health.get("catalogue_digest", ""))[:16],
            str(health.get("mechs", "")),
            str(health.get("tools", "")),
            str(health.get("errors", "")),
            (
                f"{health['age_seconds']:.0f}"
                if isinstance(health.get("age_seconds"), (int, float))
                else ""
            ),
        )
    parts: List[Any] = [Text(status_line)]
    if endpoints:
        parts.append(endpoints_table(endpoints))
    parts.append(agents)
    if any(view.request for view in views):
        parts.append(requests_table(views))
    shown = next((view for view in views if view.has_catalogue and view.tools), None)
    if shown is None:
        parts.append(Text("waiting for the first agreed catalogue…"))
        return Group(*parts)
    mechs = Table(title=f"mechs (from {shown.name})")
    for column in ("mech", "status", "CID", "tools", "problems"):
        mechs.add_column(column)
    for mech in shown.mechs:
        ref = mech.get("ref", {})
        problems = mech.get("problems", [])
        codes = sorted({problem.get("code", "") for problem in problems})
        mechs.add_row(
            f"{ref.get('registry_kind', '')} #{ref.get('mech_id', '')}",
            ("[green]" if mech.get("status") == "ok" else "[red]")
            + str(mech.get("status", ""))
            + "[/]",
            _short(str(mech.get("cid", "")), 22),
            str(len(mech.get("tools", []))),
            _short(", ".join(codes), 40),
        )
    tools = Table(title=f"tools (GET /tools, MCP tools/list, from {shown.name})")
    for column in ("tool", "arguments (?: optional)", "mechs", "description"):
        tools.add_column(column)
    for tool in shown.tools:
        schema = tool.get("inputSchema", {})
        meta = tool.get("_meta", {}).get("io.olas/mech-tool", {})
        name = tool.get("name", "")
        if meta.get("collision"):
            name += " [yellow](collision)[/yellow]"
        tools.add_row(
            name,
            _short(argument_types(schema), 60),
            str(len(meta.get("mechs", []))),
            _short(tool.get("description", ""), 50),
        )
    parts.extend([mechs, tools])
    return Group(*parts)


def requests_table(views: List[AgentView]) -> Table:
    """The requester service's last request per agent, and its last answer.

    :param views: one per agent.
    :return: columns tool, mech, price paid (wei), request id, the answer's first line.
    """
    table = Table(title="requests (GET /synchronized_data)")
    for column in ("agent", "tool", "mech", "price (wei)", "request id", "answer"):
        table.add_column(column)
    for view in views:
        answer = view.last_answer or {}
        table.add_row(
            view.name,
            str(view.request.get("tool") or ""),
            str(view.request.get("mech") or ""),
            str(view.request.get("price") or ""),
            _short(str(answer.get("request_id", "")), 20),
            _short(str(answer.get("answer", "")), 50),
        )
    return table


def summary_line(view: AgentView) -> str:
    """One plain line of what an agent serves, for logs and pipes (no live table there).

    :param view: the agent's view.
    :return: e.g. ``agent_0 serves catalogue 1a2b... (period 3): 9 mechs, 14 tools: a, b``.
    """
    if view.error and view.waiting:
        return f"{view.name}: waiting for the agent (its HTTP API does not answer yet)"
    if view.error:
        return f"{view.name} unreachable: {view.error}"
    if not view.has_catalogue:
        return f"{view.name}: {view.health.get('status', 'starting')}, no catalogue yet"
    names = ", ".join(str(tool.get("name", "")) for tool in view.tools)
    answer = view.last_answer
    answered = (
        ""
        if answer is None
        else f"; last answer to request {answer.get('request_id', '')}: "
        f"{_short(str(answer.get('answer', '')), 60)}"
    )
    return (
        f"{view.name} serves catalogue {str(view.health['catalogue_digest'])[:16]} "
        f"(period {view.health.get('period', '?')}): {len(view.mechs)} mechs, "
        f"{len(view.tools)} tools: {names}{answered}"
    )


def change_key(view: AgentView) -> Tuple[Any, ...]:
    """What a piped line reports, without what moves every period (period, age, block).

    :param view: the agent's view.
    :return: equal for two reads that show the same state: waiting / unreachable /
        the agent's status without a catalogue / the catalogue digest, mechs and tools.
    """
    if view.error:
        return (view.name, "waiting" if view.waiting else "unreachable")
    if not view.has_catalogue:
        return (view.name, "status", view.health.get("status", "starting"))
    return (
        view.name,
        "catalogue",
        view.health.get("catalogue_digest"),
        len(view.mechs),
        tuple(str(tool.get("name", "")) for tool in view.tools),
        (view.last_answer or {}).get("request_id"),
    )


class LinePrinter:  # pylint: disable=too-few-public-methods
    """On a pipe or file (no live table there), one plain line per change an agent shows.

    A change is a new :func:`change_key`: a new period alone (same catalogue) prints
    nothing, so the log of a quiet run does not grow every period.

    :param console: where lines go; nothing is printed when it is a terminal (the live
        table shows everything there).
    """

    def __init__(self, console: Console) -> None:
        """Remember what was last printed per agent.

        :param console: where lines go.
        """
        self.console = console
        self.last: Dict[str, Tuple[Any, ...]] = {}

    def print_changes(self, views: List[AgentView]) -> None:
        """Print each agent's summary line when what it shows changed.

        :param views: the agents' views.
        """
        if self.console.is_terminal:
            return
        for view in views:
            key = change_key(view)
            if self.last.get(view.name) != key:
                self.last[view.name] = key
                self.console.print(summary_line(view), markup=False, highlight=False)
                self.console.file.flush()
