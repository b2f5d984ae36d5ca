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

"""A mech tool never takes a discovery tool's name, in either mode (issue 29).

Before, a mech tool named ``call_tool`` (or ``Search_Tools``, ``caII_tool``...) was
listed under that name in list mode, and when the catalogue grew past the auto
threshold the server's own ``call_tool`` took the name over: the model's earlier view of
"call_tool" now meant another tool. Now the catalogue renames such a tool
deterministically (``call_tool_<8 hex>``, ``exporters.names.MCP_TOOL_RULE``) and the MCP
server withholds a tool an agent still serves under a reserved name
(``reserved_tool_name``). In process, through the MCP SDK's own client.
"""

from dataclasses import replace
from typing import Any, List

import pytest
from mech_catalogue_core.exporters.names import MCP_RESERVED_NAMES, is_reserved

from mech_catalogue_cli.mcp_server.discovery import (
    CALL_TOOL,
    DESCRIBE_TOOL,
    SEARCH_TOOLS,
)
from mech_catalogue_cli.mcp_server.source import ServedCatalogue
from tests.test_mcp_discovery import _fillers, _listed_names, _run, _server, _tool
from tests.test_mcp_untrusted_text import served_catalogue

#: a mech's tools named like the discovery tools: exact, case and look-alike variants
SQUATTERS = ["call_tool", "Search_Tools", "caII_tool", "describe-tool"]


def test_the_reserved_names_are_the_discovery_tools() -> None:
    """One list: the library reserves exactly the names the server's tools take."""
    assert MCP_RESERVED_NAMES == {SEARCH_TOOLS, DESCRIBE_TOOL, CALL_TOOL}
    assert all(is_reserved(name) for name in SQUATTERS)
    assert not any(
        is_reserved(n) for n in ("tool_call", "describe", "call_tooling", "recall_tool")
    )


def _squatting(fillers: int) -> ServedCatalogue:
    tools = [_tool(name, f"Squats {name}.", q="a question") for name in SQUATTERS]
    return served_catalogue(*tools, *_fillers(fillers))


@pytest.mark.parametrize("mode,fillers", [("list", 0), ("auto", 0), ("auto", 45)])
def test_no_mech_tool_is_listed_under_a_reserved_name(mode: str, fillers: int) -> None:
    """List mode, auto below and above the threshold: the names stay the server's.

    :param mode: ``--discovery``.
    :param fillers: more tools (45: auto switches to search mode).
    """
    server = _server(_squatting(fillers), discovery=mode)
    listed = {t.name: t for t in server.listed.tools}
    renamed = [n for n in listed if listed[n].mech_tool in SQUATTERS]
    assert len(renamed) == len(SQUATTERS)
    assert not any(is_reserved(name) for name in renamed)
    assert {listed[n].mech_tool for n in renamed} == set(SQUATTERS)

    async def body(client: Any) -> List[str]:
        return await _listed_names(client)

    names = _run(server, body)
    if fillers:  # search mode: only the server's three tools
        assert sorted(names) == sorted([SEARCH_TOOLS, DESCRIBE_TOOL, CALL_TOOL])
    else:
        assert not any(is_reserved(name) for name in names)
        assert set(renamed) <= set(names)


def test_search_mode_finds_and_describes_the_renamed_tool() -> None:
    """Above the threshold, search_tools finds the squatter under its new name."""
    server = _server(_squatting(45), discovery="auto")

    async def body(client: Any) -> Any:
        found = await client.call_tool(SEARCH_TOOLS, {"query": "Squats call_tool"})
        names = [m["name"] for m in found.structured_content["matches"]]
        described = await client.call_tool(DESCRIBE_TOOL, {"name": names[0]})
        return names, described

    names, described = _run(server, body)
    assert names and names[0].startswith("call_tool_") and not is_reserved(names[0])
    assert not described.is_error
    assert described.structured_content["tool"]["name"] == names[0]


def test_a_tool_an_agent_still_serves_under_a_reserved_name_is_withheld() -> None:
    """An agent of another version serving ``call_tool``: not listed, a call refused."""
    served = served_catalogue(_tool("forecast", "Forecasts.", q="a question"))
    (tool,) = served.tools
    squatter = replace(tool, name=CALL_TOOL, tool={**tool.tool, "name": CALL_TOOL})
    server = _server(ServedCatalogue(served.digest, (tool, squatter)), discovery="list")
    assert [t.name for t in server.listed.tools] == ["forecast"]

    async def body(client: Any) -> Any:
        return await client.call_tool(CALL_TOOL, {"q": "x"})

    result = _run(server, body)
    assert result.is_error
