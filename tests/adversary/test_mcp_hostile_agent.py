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

"""Whatever an ``--agent`` answers, the MCP server's source raises SourceError only.

Before, a tool without ``_meta``, a page that was a list or an offer whose ``mech`` was
``{}`` raised KeyError / TypeError / AttributeError out of the poller, and the server
process ended; a ``nextCursor`` that never ended kept it paging for ever (adversary
review). The agent's answers are served by a stand-in ``_get`` (no HTTP needed to shape
them), or, for what only HTTP can do (an endless body, a drip, bytes that are not JSON),
by a real local HTTP server (:func:`hostile_agent`).
"""

import http.server
import json
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Tuple

import pytest
from click.testing import CliRunner

from mech_catalogue_cli import EXIT_INVALID
from mech_catalogue_cli.app import cli
from mech_catalogue_cli.mcp_server import source as source_module
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import (
    MAX_LISTED_TOOL_BYTES,
    AgentBounds,
    AgentSource,
    ServedCatalogue,
    ServedTool,
    SourceError,
)

HEALTH = {"status": "fresh", "catalogue_digest": "ab" * 32}
TOOL = {"name": "t", "title": "t", "inputSchema": {"type": "object"}}


def answering(pages: Callable[[str], Any]) -> AgentSource:
    """An AgentSource whose GETs are answered by ``pages(path)``.

    :param pages: path with query -> the decoded JSON body.
    :return: the source.
    """
    agent = AgentSource("http://agent.invalid")

    def get(path: str, ok: Any = (200,)) -> Any:
        del ok
        return HEALTH if path == "/healthcheck" else pages(path)

    agent._get = get  # type: ignore[method-assign]  # pylint: disable=protected-access
    return agent


@pytest.mark.parametrize(
    "tools_page, offers_page",
    [
        ({"tools": [TOOL]}, {"offers": []}),  # no _meta
        ([TOOL], {"offers": []}),  # a list, not a page
        ({"tools": "t"}, {"offers": []}),  # a string of tools
        (
            {
                "tools": [
                    {**TOOL, "_meta": {"io.olas/mech-tool": {"mechToolName": "t"}}}
                ]
            },
            {"offers": [{"mech": {"chain_id": "x"}}]},  # a mech ref of another shape
        ),
        (
            {
                "tools": [
                    {**TOOL, "_meta": {"io.olas/mech-tool": {"mechToolName": "t"}}}
                ]
            },
            ["offers"],  # offers page that is a list
        ),
    ],
)
def test_an_agent_answering_another_shape_is_a_source_error(
    tools_page: Any, offers_page: Any
) -> None:
    """Each shape that stopped the server is SourceError, naming the agent."""
    agent = answering(
        lambda path: (
            tools_page
            if path.startswith("/tools?") or path == "/tools"
            else offers_page
        )
    )
    with pytest.raises(SourceError, match="http://agent.invalid"):
        agent.read()


def test_a_cursor_that_repeats_stops_the_read() -> None:
    """A nextCursor of "1" again and again: SourceError after the second page, not for ever."""
    calls: Dict[str, int] = {}

    def pages(path: str) -> Any:
        calls[path] = calls.get(path, 0) + 1
        return {"tools": [], "nextCursor": "1"}

    with pytest.raises(SourceError, match="repeats"):
        answering(pages).read()
    assert sum(calls.values()) == 2


def test_cursors_that_never_end_stop_at_the_page_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Fresh cursors for ever: SourceError at MAX_AGENT_PAGES pages."""
    monkeypatch.setattr(source_module, "MAX_AGENT_PAGES", 25)
    count = [0]

    def pages(path: str) -> Any:
        del path  # every page answers alike
        count[0] += 1
        return {"tools": [], "nextCursor": str(count[0])}

    with pytest.raises(SourceError, match="more than 25 pages"):
        answering(pages).read()
    assert count[0] == 25


def test_an_unchanged_agent_digest_reads_no_pages() -> None:
    """Each poll costs the agent one /healthcheck while its catalogue is unchanged.

    Before, every MCP server re-read every /tools page and every name's offers every 30 s
    from the agent's single loop, however many names anyone had registered.
    """
    asked: List[str] = []

    def pages(path: str) -> Any:
        asked.append(path)
        return {"tools": []} if path.startswith("/tools") else {}

    agent = answering(pages)
    settings = CallSettings(gateway_url="", ipfs_api_url="")
    app = MechToolServer(agent, settings, None, None)
    assert app.refresh()  # the first read: every page
    first = len(asked)
    assert not app.refresh() and not app.refresh()
    assert len(asked) == first  # only /healthcheck, which the stand-in answers itself


def test_a_tool_too_large_for_a_models_context_is_not_listed() -> None:
    """One registrant's oversized Tool is left out of tools/list; the others stay."""
    big = {**TOOL, "name": "big", "description": "x" * (MAX_LISTED_TOOL_BYTES + 1)}
    small = {**TOOL, "name": "small"}
    served = ServedCatalogue(
        "d",
        (ServedTool("big", "big", big, ()), ServedTool("small", "small", small, ())),
    )
    listed, left_out = served.within_bytes()
    assert [t.name for t in listed.tools] == ["small"]
    assert left_out == ("big",) and listed.digest == "d"


def test_the_server_lists_only_tools_within_the_bound() -> None:
    """refresh() applies the bound to what tools/list serves (--all-tools included)."""
    big = {**TOOL, "name": "big", "description": "x" * (MAX_LISTED_TOOL_BYTES + 1)}
    catalogue = ServedCatalogue(
        "d",
        (ServedTool("big", "big", big, ()), ServedTool("t", "t", dict(TOOL), ())),
    )

    class Fixed:  # pylint: disable=too-few-public-methods
        """A source serving ``catalogue``."""

        def read(self) -> ServedCatalogue:
            """Return it.

            :return: the catalogue.
            """
            return catalogue

    settings = CallSettings(gateway_url="", ipfs_api_url="", all_tools=True)
    app = MechToolServer(Fixed(), settings, None, None)
    app.refresh()
    assert [t.name for t in app.listed.tools] == ["t"]
    assert app.catalogue.named("big") is not None  # still callable by name


#: a served tool and its one offer, as the agent's ``/tools`` and ``/tools/t`` answer them
MCP_TOOL = {**TOOL, "_meta": {"io.olas/mech-tool": {"mechToolName": "t"}}}
#: a body far past the small cap the tests give (the old code read it whole)
OVERSIZED = json.dumps({**HEALTH, "pad": "x" * (8 << 20)}).encode()
#: JSON nested past any cap: ``json.loads`` raised RecursionError on it
DEEP = b"[" * 50_000
#: seconds between the bytes of a drip, and the bytes dripped (3 s of drip in all)
DRIP_SECONDS, DRIP_BYTES = 0.05, 60


class _HostileAgent(http.server.BaseHTTPRequestHandler):
    """An agent whose ``/healthcheck`` answers as ``server.mode`` says; the rest normally."""

    protocol_version = "HTTP/1.0"  # the body ends when the connection closes

    def log_message(self, *args: object) -> None:  # pylint: disable=arguments-differ
        """Stay quiet."""

    def _send(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def _drip(self, mode: str) -> None:
        if mode == "drip_headers":
            self.wfile.write(b"HTTP/1.0 200 OK\r\nX-Pad: ")
            data = b"x" * DRIP_BYTES + b"\r\n\r\n" + json.dumps(HEALTH).encode()
        else:
            self.send_response(200)
            self.end_headers()
            data = json.dumps(HEALTH).encode()[:-1] + b" " * DRIP_BYTES + b"}"
        for i in range(len(data)):
            self.wfile.write(data[i : i + 1])
            self.wfile.flush()
            time.sleep(DRIP_SECONDS)

    def do_GET(self) -> None:  # pylint: disable=invalid-name
        """Answer one request (a client gone mid-answer is not an error here)."""
        mode = self.server.mode  # type: ignore[attr-defined]
        path = self.path.split("/", 2)[-1] if self.path.startswith("/key-") else None
        route = "/" + path if path is not None else self.path
        try:
            if route == "/healthcheck" and mode == "oversized":
                self._send(OVERSIZED)
            elif route == "/healthcheck" and mode == "deep":
                self._send(DEEP)
            elif route == "/healthcheck" and mode.startswith("drip"):
                self._drip(mode)
            elif route == "/healthcheck":
                self._send(json.dumps(HEALTH).encode())
            elif route.startswith("/tools/t"):
                self._send(json.dumps({"name": "t", "offers": []}).encode())
            elif route.startswith("/tools"):
                page = int(route.partition("cursor=")[2] or 0)
                many = mode == "many_pages"
                body: Dict[str, Any] = {
                    "tools": [MCP_TOOL] if many or page == 0 else []
                }
                if many:
                    body["nextCursor"] = str(page + 1)
                self._send(json.dumps(body).encode())
            else:
                self.send_error(404)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the reader stopped at its cap or deadline


@pytest.fixture(name="hostile_agent")
def fixture_hostile_agent() -> Iterator[Tuple[str, Callable[[str], None]]]:
    """A local agent on a free port, and a setter of its ``/healthcheck`` mode.

    :yield: its base URL, and ``set_mode("normal" | "oversized" | "deep" |
        "drip_headers" | "drip_body" | "many_pages")``.
    """
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _HostileAgent)
    server.daemon_threads = True
    server.mode = "normal"  # type: ignore[attr-defined]
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()

    def set_mode(mode: str) -> None:
        server.mode = mode  # type: ignore[attr-defined]

    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", set_mode
    finally:
        server.shutdown()
        server.server_close()


#: caps small enough for a test, each well over a normal answer
SMALL = AgentBounds(answer_bytes=64 * 1024, answer_depth=32)


def test_a_normal_agent_is_still_read(
    hostile_agent: Tuple[str, Callable[[str], None]],
) -> None:
    """Within every bound, the catalogue is read as before: the digest and the tool."""
    url, _ = hostile_agent
    served = AgentSource(url, timeout=1.0, bounds=SMALL).read()
    assert served.digest == HEALTH["catalogue_digest"]
    assert [t.name for t in served.tools] == ["t"]


def test_an_oversized_answer_stops_at_the_cap(
    hostile_agent: Tuple[str, Callable[[str], None]],
) -> None:
    """An 8 MiB answer is refused at the 64 KiB cap, never read whole (was: read whole)."""
    url, set_mode = hostile_agent
    set_mode("oversized")
    with pytest.raises(SourceError, match=r"GET /healthcheck answered more than 65536"):
        AgentSource(url, timeout=5.0, bounds=SMALL).read()


@pytest.mark.parametrize("mode", ["drip_headers", "drip_body"])
def test_a_dripped_answer_ends_at_the_deadline(
    hostile_agent: Tuple[str, Callable[[str], None]], mode: str
) -> None:
    """A byte every 50 ms for 3 s: refused at the 1 s deadline (was: read for 3 s).

    Each byte came well within the 1 s timeout of one socket read, so the old reader
    waited for the whole drip, headers or body.

    :param hostile_agent: the local agent.
    :param mode: where the drip is.
    """
    url, set_mode = hostile_agent
    set_mode(mode)
    began = time.monotonic()
    with pytest.raises(SourceError, match=r"did not answer within 1 s"):
        AgentSource(url, timeout=1.0, bounds=SMALL).read()
    assert time.monotonic() - began < 2.0


def test_deeply_nested_json_is_a_source_error(
    hostile_agent: Tuple[str, Callable[[str], None]],
) -> None:
    """50,000 ``[`` are refused before decoding (was: RecursionError out of read())."""
    url, set_mode = hostile_agent
    set_mode("deep")
    with pytest.raises(SourceError, match=r"nested more than 32 levels"):
        AgentSource(url, timeout=5.0, bounds=SMALL).read()


@pytest.mark.parametrize(
    "bounds, found",
    [
        (AgentBounds(tools=3), "more than 3 tools"),
        (AgentBounds(read_bytes=4000), "more than 4000 bytes"),
    ],
)
def test_a_read_stops_at_its_tool_and_byte_caps(
    hostile_agent: Tuple[str, Callable[[str], None]],
    bounds: AgentBounds,
    found: str,
) -> None:
    """Endless pages of tools: the read stops at the tools or bytes cap of one read."""
    url, set_mode = hostile_agent
    set_mode("many_pages")
    with pytest.raises(SourceError, match=found):
        AgentSource(url, timeout=5.0, bounds=bounds).read()


def test_a_hostile_agent_at_start_up_is_a_clear_error_without_the_key(
    hostile_agent: Tuple[str, Callable[[str], None]],
) -> None:
    """``mcp --agent`` whose first read is refused exits 1 with no_catalogue_source.

    Before, deep JSON raised RecursionError out of the command (a traceback). The URL's
    path (where an API key may sit) is in no message.

    :param hostile_agent: the local agent.
    """
    url, set_mode = hostile_agent
    set_mode("deep")
    result = CliRunner().invoke(
        cli, ["--json", "mcp", "--agent", f"{url}/key-s3cret"], obj={}
    )
    assert result.exit_code == EXIT_INVALID, result.output
    assert not isinstance(result.exception, RecursionError)
    error = json.loads(result.stderr or result.output)["error"]
    assert error["code"] == "no_catalogue_source"
    assert "nested more than" in error["message"]
    assert "s3cret" not in result.output + (result.stderr or "")
