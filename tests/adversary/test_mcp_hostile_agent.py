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
them).
"""

from typing import Any, Callable, Dict, List

import pytest

from mech_catalogue_cli.mcp_server import source as source_module
from mech_catalogue_cli.mcp_server.server import CallSettings, MechToolServer
from mech_catalogue_cli.mcp_server.source import (
    MAX_LISTED_TOOL_BYTES,
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
