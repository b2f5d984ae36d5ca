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

"""``make run``'s view of its agents: waiting vs unreachable, the piped log, the HTTP port.

What a new user reported: the live view said "unreachable" before the agent's first
answer; piped, it repeated a line every period although nothing changed; the default
port 8000 clashed with something else. Real sockets and a real HTTP server on loopback;
no agent is started (``tests/e2e`` runs the whole ``make run``).
"""

import io
import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, Iterator, List, cast

import pytest
from rich.console import Console

from scripts.devnet.processes import listen_port
from scripts.run_local.runner import LocalRun, busy_http_ports, choose_http_port
from scripts.run_local.view import (
    AgentView,
    LinePrinter,
    argument_types,
    cli_command,
    render,
    summary_line,
)
from scripts.run_local.workspace import WorkspaceError


def _text(views: List[AgentView]) -> str:
    console = Console(file=io.StringIO(), width=200, record=True)
    console.print(render(views, "status"))
    return console.export_text()


def _serving(period: int, digest: str = "ab" * 32, tools: int = 2) -> AgentView:
    return AgentView(
        "agent_0",
        health={"status": "fresh", "catalogue_digest": digest, "period": period},
        tools=[{"name": f"tool-{i}"} for i in range(tools)],
        mechs=[{"ref": {}}],
    )


def test_an_agent_that_never_answered_is_waiting_not_unreachable() -> None:
    """Before the first answer: "waiting for the agent"; after one, a silence is "unreachable"."""
    waiting = AgentView("agent_0", error="connection refused", waiting=True)
    gone = AgentView("agent_0", error="connection refused")
    assert "waiting for the agent" in _text([waiting])
    assert "unreachable" not in _text([waiting])
    assert "unreachable" in _text([gone])
    assert "waiting for the agent" not in _text([gone])
    assert "waiting for the agent" in summary_line(waiting)
    assert summary_line(gone).startswith("agent_0 unreachable")


@pytest.fixture(name="agent_api")
def _agent_api() -> Iterator[Dict[str, Any]]:
    """A loopback HTTP server answering /healthcheck like an agent without a catalogue."""
    port = listen_port()
    state: Dict[str, Any] = {"port": port, "server": None}

    class Handler(BaseHTTPRequestHandler):
        """Every GET: an agent's healthcheck before its first agreement."""

        def do_GET(self) -> None:  # pylint: disable=invalid-name  # http.server's name
            """Answer."""
            body = json.dumps({"status": "starting", "period": -1}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:  # quiet
            pass

    def start() -> None:
        server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        state["server"] = server

    def stop() -> None:
        state["server"].shutdown()
        state["server"].server_close()

    state["start"], state["stop"] = start, stop
    yield state
    if state["server"] is not None:
        state["server"].server_close()


def test_read_marks_waiting_until_the_first_answer(agent_api: Dict[str, Any]) -> None:
    """LocalRun.read: waiting before the API ever answers, then fine, then unreachable."""
    process = SimpleNamespace(
        name="agent_0", http_url=f"http://127.0.0.1:{agent_api['port']}"
    )
    run = LocalRun(processes=cast(Any, [process]))
    (before,) = run.read()
    assert before.error and before.waiting
    agent_api["start"]()
    (answering,) = run.read()
    assert answering.error is None and answering.health["status"] == "starting"
    agent_api["stop"]()
    (after,) = run.read()
    assert after.error and not after.waiting


def test_the_piped_log_prints_a_line_per_change_not_per_period() -> None:
    """Same catalogue over periods: one line; a new digest, a silence, a return: one each."""
    out = io.StringIO()
    printer = LinePrinter(Console(file=out, force_terminal=False, width=400))
    reads = [
        AgentView("agent_0", error="refused", waiting=True),
        AgentView("agent_0", error="refused again", waiting=True),  # same state
        _serving(3),
        _serving(4),  # new period, same catalogue: nothing
        _serving(5),
        _serving(6, digest="cd" * 32, tools=3),  # a new catalogue
        AgentView("agent_0", error="refused"),  # gone
        AgentView("agent_0", error="timed out"),  # still gone: nothing
        _serving(9, digest="cd" * 32, tools=3),  # back
    ]
    for view in reads:
        printer.print_changes([view])
    lines = out.getvalue().splitlines()
    assert len(lines) == 5, lines
    assert "waiting for the agent" in lines[0]
    assert "period 3" in lines[1] and "2 tools" in lines[1]
    assert "cdcdcdcd" in lines[2] and "3 tools" in lines[2]
    assert "unreachable" in lines[3]
    assert "period 9" in lines[4]


def test_the_live_table_prints_no_extra_lines_on_a_terminal() -> None:
    """On a terminal the live table shows everything; the line printer stays silent."""
    out = io.StringIO()
    printer = LinePrinter(Console(file=out, force_terminal=True))
    printer.print_changes([_serving(1)])
    assert out.getvalue() == ""


@pytest.fixture(name="busy_port")
def _busy_port() -> Iterator[int]:
    """A port something listens on (as another program on 8000 would)."""
    port = listen_port()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", port))
        sock.listen()
        yield port


def test_a_busy_default_port_is_replaced_by_a_free_one_and_said(busy_port: int) -> None:
    """The default port taken: another, free for every agent, is chosen and printed."""
    port, note = choose_http_port(busy_port, 2, explicit=False)
    assert port != busy_port and busy_http_ports(port, 2) == []
    assert f"port {busy_port}" in note and f"127.0.0.1:{port}/tools" in note


def test_a_busy_requested_port_stops_the_run_naming_a_free_one(busy_port: int) -> None:
    """A port the user asked for is not silently changed: the error names a free one to pass."""
    with pytest.raises(WorkspaceError) as refused:
        choose_http_port(busy_port, 1, explicit=True)
    message = str(refused.value)
    assert f"port {busy_port}" in message
    suggested = int(re.search(r"--http-port (\d+)", message).group(1))  # type: ignore[union-attr]
    assert suggested != busy_port and busy_http_ports(suggested, 1) == []
    assert f"MECH_CATALOGUE_HTTP_PORT={suggested}" in message


def test_a_later_agents_busy_port_counts_too(busy_port: int) -> None:
    """Agent i listens on first + i: a busy second port is found before anything starts."""
    assert busy_http_ports(busy_port - 1, 2) == [busy_port]
    with pytest.raises(WorkspaceError):
        choose_http_port(busy_port - 1, 2, explicit=True)


def test_free_ports_are_kept() -> None:
    """Nothing to change when the ports are free."""
    port = listen_port()
    assert choose_http_port(port, 1, explicit=False) == (port, "")
    assert choose_http_port(port, 1, explicit=True) == (port, "")


def _requesting(period: int, answers: List[Any]) -> AgentView:
    view = _serving(period)
    view.request = {
        "tool": "prediction-online",
        "mech": "0x" + "9a" * 20,
        "price": 10**16,
        "responses": [
            {"request_id": request_id, "nonce": "n", "answer": answer, "error": None}
            for request_id, answer in answers
        ],
    }
    return view


def test_the_requester_s_last_answer_is_shown_and_printed_once_per_request() -> None:
    """The live table shows the request and its answer; a pipe gets a line per new answer."""
    table = _text([_requesting(2, [("0xaa11", '{"p_yes": 0.6}')])])
    assert "requests" in table and "prediction-online" in table
    assert "10000000000000000" in table and "0xaa11" in table and "p_yes" in table
    assert "requests" not in _text([_serving(2)])
    out = io.StringIO()
    printer = LinePrinter(Console(file=out, force_terminal=False, width=400))
    for view in (
        _requesting(1, [("0xaa11", None)]),  # pending: no answer yet
        _requesting(1, [("0xaa11", "yes")]),  # answered
        _requesting(2, [("0xaa11", "yes")]),  # a new period alone
        _requesting(3, [("0xbb22", "no")]),  # the next request's answer
    ):
        printer.print_changes([view])
    lines = out.getvalue().splitlines()
    assert len(lines) == 3, lines
    assert "last answer" not in lines[0]
    assert "last answer to request 0xaa11: yes" in lines[1]
    assert "last answer to request 0xbb22: no" in lines[2]


def test_the_tools_table_gives_each_argument_its_type() -> None:
    """Issue 33: the live view listed argument names only; now name: type, ? if optional."""
    schema = {
        "type": "object",
        "properties": {
            "prompt": {"type": "string"},
            "n": {"type": "integer"},
            "side": {"enum": ["yes", "no"]},
            "ids": {"type": "array", "items": {"type": "integer"}},
            "x": {"type": ["string", "null"]},
        },
        "required": ["prompt"],
    }
    view = AgentView(
        "agent_0",
        health={"status": "fresh", "period": 1, "catalogue_digest": "ab" * 32},
        tools=[{"name": "typed", "inputSchema": schema}],
        mechs=[{"ref": {}}],
    )
    assert argument_types(schema) == (
        "prompt: string, n?: integer, side?: enum, ids?: array[integer], "
        "x?: string|null"
    )
    assert "prompt: string, n?: integer" in _text([view])
    assert argument_types({"type": "object"}) == ""


def test_the_cli_line_says_how_to_run_it_when_it_is_not_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not on PATH (the venv not activated): its path, and how to activate; else its name."""
    scripts = tmp_path / ".venv" / "bin"
    scripts.mkdir(parents=True)
    program = scripts / "mech-catalogue"
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    program.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    away = cli_command("list --devnet", scripts, path=str(tmp_path / "elsewhere"))
    assert away.startswith(".venv/bin/mech-catalogue list --devnet")
    assert "source .venv/bin/activate" in away
    on_path = cli_command("list --devnet", scripts, path=str(scripts))
    assert on_path == "mech-catalogue list --devnet"
