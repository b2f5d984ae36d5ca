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

"""LangChain tools keep the way back to the mech tool they stand for (issue #34 item 5).

A mech tool name LangChain (bound to OpenAI-style chat models) cannot use is renamed;
the OpenAI, Anthropic and MCP exports then name the mech tool in the description and
keep a reverse map, the LangChain export did neither: an agent given ``prediction_x1y2``
could not tell which mech tool to request. Names written here: dots, spaces, non-ASCII,
and two names that sanitise alike.
"""

import json
from typing import Any, Dict, List, Tuple

import pytest
from mech_catalogue_core import exporters
from mech_catalogue_core.exporters.langchain_tool import MECH_TOOL_NAME
from mech_catalogue_core.manifest.parsing import parse_manifest
from mech_catalogue_core.model.tool import Tool

pytest.importorskip("langchain_core")

NAMES = ["prediction.online", "prediction online", "résumé-writer", "plain_name"]


def _tools(names: List[str]) -> Tuple[Tool, ...]:
    document = {
        "name": "m",
        "tools": names,
        "toolMetadata": {
            n: {"name": n, "description": f"Does {n}.", "input": {"type": "text"}}
            for n in names
        },
    }
    parsed = parse_manifest(json.dumps(document).encode())
    assert parsed.manifest is not None
    return parsed.manifest.tools


def test_a_renamed_tool_names_its_mech_tool_and_maps_back() -> None:
    """Description and metadata lead back to the mech tool; names are unique and valid."""
    built = exporters.to_langchain_tools(_tools(NAMES))
    back = {tool.name: tool.metadata[MECH_TOOL_NAME] for tool in built}
    assert sorted(back.values()) == sorted(NAMES)
    assert len(back) == len(NAMES)  # two names sanitise alike, both kept apart
    for tool in built:
        mech_tool = tool.metadata[MECH_TOOL_NAME]
        renamed = tool.name != mech_tool
        assert (f"(mech tool name: {mech_tool})" in tool.description) is renamed
        assert all(c.isascii() and (c.isalnum() or c in "_-") for c in tool.name)


def test_the_same_names_as_the_openai_export() -> None:
    """A model bound to both exports sees one name per mech tool."""
    tools = _tools(NAMES)
    openai = [t["function"]["name"] for t in exporters.to_openai_tools(tools)]
    assert [t.name for t in exporters.to_langchain_tools(tools)] == openai


def test_invoking_a_renamed_tool_requests_the_mech_tool_by_its_own_name() -> None:
    """The call the tool makes carries the mech tool name, not the exported one."""
    sent: List[Tuple[str, Dict[str, Any]]] = []
    (tool,) = exporters.to_langchain_tools(
        _tools(["prediction.online"]), lambda name, kwargs: sent.append((name, kwargs))
    )
    tool.invoke({"prompt": "Will it rain?"})
    assert sent == [("prediction.online", {"prompt": "Will it rain?"})]
